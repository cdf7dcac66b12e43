// SPDX-License-Identifier: Apache-2.0
#include "widgets/runs/runcomparisonview.h"

#include "widgets/common/axispolicy.h"
#include "widgets/common/chartstyle.h"
#include "widgets/common/formatting.h"
#include "widgets/common/legendnames.h"

#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QHeaderView>
#include <QLabel>
#include <QScatterSeries>
#include <QSplitter>
#include <QTableWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace tgraph::widgets {

namespace {

using Formatting::number;

QString percent(double v) { return Formatting::percent(v, 2); }

QString runLabel(const tgraph::ComparedRun& r)
{
    return QString::fromStdString(r.name.empty() ? r.id.substr(0, 8) : r.name);
}

QString graphLabel(const std::string& graph)
{
    return QString::fromStdString(std::filesystem::path(graph).stem().string());
}

QTableWidgetItem* cell(const QString& text, double sortValue = NAN, bool right = true)
{
    auto* item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    if (right)
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    if (std::isfinite(sortValue))
        item->setData(Qt::UserRole, sortValue);
    return item;
}

QTableWidget* makeTable(const QStringList& headers)
{
    auto* t = new QTableWidget(0, int(headers.size()));
    t->setHorizontalHeaderLabels(headers);
    t->verticalHeader()->hide();
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->horizontalHeader()->setStretchLastSection(true);
    return t;
}

} // namespace

RunComparisonView::RunComparisonView(QWidget* parent)
    : QWidget(parent)
    , m_chartView(new QChartView(new QChart))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    m_note = new QLabel(tr("Select two or more runs and press Compare."));
    m_note->setWordWrap(true);
    layout->addWidget(m_note);

    m_metrics = makeTable({ tr("Run"), tr("Model"), tr("Loss"), tr("Kind"), tr("Graphs"), tr("Step"), tr("τ"),
        tr("OPA"), tr("Top-1 slowdown"), tr("Top-5 slowdown"), tr("APE"), tr("Parameters"), tr("ms / step"),
        tr("ms / 128 configs"), tr("Peak MB") });
    m_metrics->horizontalHeaderItem(6)->setToolTip(tr("Mean Kendall τ over the validation graphs"));
    m_metrics->horizontalHeaderItem(10)->setToolTip(tr("Kaufman et al.'s absolute percentage error (tile)"));
    m_metrics->horizontalHeaderItem(13)->setToolTip(tr("Validation wall time per 128 configurations scored"));
    m_pairs = makeTable({ tr("A"), tr("B"), tr("A ranks better"), tr("B ranks better"), tr("Ties") });

    m_chartView->setRenderHint(QPainter::Antialiasing);
    ChartStyle::setUp(chart());
    m_chartView->setMinimumHeight(220);

    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(m_metrics);
    split->addWidget(m_chartView);
    split->addWidget(m_pairs);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 2);
    split->setStretchFactor(2, 1);
    layout->addWidget(split, 1);
}

QChart* RunComparisonView::chart() const { return m_chartView->chart(); }

void RunComparisonView::setComparison(tgraph::RunComparison comparison)
{
    m_comparison = std::move(comparison);
    QStringList missing;
    for (const tgraph::ComparedRun& r : m_comparison.runs)
        if (r.step < 0)
            missing << runLabel(r);
    if (m_comparison.runs.empty())
        m_note->setText(tr("Select two or more runs and press Compare."));
    else if (!missing.isEmpty())
        m_note->setText(
            tr("%n run(s) without a validation evaluation: %1 (train with valid/ graphs)", nullptr, int(missing.size()))
                .arg(missing.join(", ")));
    else
        m_note->setText(
            tr("%n run(s) at their best evaluated step; τ per graph below", nullptr, int(m_comparison.runs.size())));
    fillMetrics();
    fillChart();
    fillPairs();
}

void RunComparisonView::fillMetrics()
{
    m_metrics->setSortingEnabled(false);
    m_metrics->setRowCount(int(m_comparison.runs.size()));
    for (int row = 0; row < int(m_comparison.runs.size()); ++row) {
        const tgraph::ComparedRun& r = m_comparison.runs[size_t(row)];
        auto* name = cell(runLabel(r), NAN, false);
        name->setToolTip(QString::fromStdString(r.id + (r.data.empty() ? "" : "\n" + r.data)));
        name->setForeground(ChartStyle::category(size_t(row)));
        m_metrics->setItem(row, 0, name);
        m_metrics->setItem(row, 1, cell(QString::fromStdString(r.model), NAN, false));
        m_metrics->setItem(row, 2, cell(QString::fromStdString(r.loss), NAN, false));
        m_metrics->setItem(row, 3, cell(QString::fromStdString(r.kind), NAN, false));
        m_metrics->setItem(row, 4, cell(Formatting::count(r.graphs), r.graphs));
        m_metrics->setItem(
            row, 5, cell(r.step < 0 ? Formatting::missing() : Formatting::count(r.step), double(r.step)));
        m_metrics->setItem(row, 6, cell(number(r.tau, 4), r.tau));
        m_metrics->setItem(row, 7, cell(number(r.opa, 4), r.opa));
        m_metrics->setItem(row, 8, cell(percent(r.top1Slowdown), r.top1Slowdown));
        m_metrics->setItem(row, 9, cell(percent(r.top5Slowdown), r.top5Slowdown));
        m_metrics->setItem(row, 10, cell(Formatting::percent(r.ape / 100.0, 2), r.ape)); // APE is in percent
        m_metrics->setItem(row, 11,
            cell(r.parameters < 0 ? Formatting::missing() : Formatting::count(r.parameters), double(r.parameters)));
        m_metrics->setItem(row, 12, cell(number(r.trainMsPerStep, 1), r.trainMsPerStep));
        m_metrics->setItem(row, 13, cell(number(r.inferMsPer128, 1), r.inferMsPer128));
        m_metrics->setItem(row, 14, cell(number(r.peakRssMb, 0), r.peakRssMb));
    }
    m_metrics->resizeColumnsToContents();
}

void RunComparisonView::fillChart()
{
    QChart* c = chart();
    ChartStyle::clear(c);
    // Graphs by their mean tau over the runs that evaluated them: the strip rises left to right and
    // a run's markers above the others' stand out.
    std::vector<std::pair<double, std::string>> order;
    for (const std::string& g : m_comparison.graphs) {
        double sum = 0;
        int n = 0;
        for (const tgraph::ComparedRun& r : m_comparison.runs)
            if (const auto it = r.graphTau.find(g); it != r.graphTau.end() && std::isfinite(it->second)) {
                sum += it->second;
                ++n;
            }
        order.push_back({ n ? sum / n : -2.0, g });
    }
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    m_graphOrder.clear();
    for (const auto& [mean, g] : order)
        m_graphOrder.push_back(g);
    // The hover hint is in the title: a title on the label-less x axis is cut to "…" when the strip
    // is short (the Compare page at 1366x768).
    c->setTitle(tr("Kendall τ per graph (%n graph(s), ordered by the runs' mean; hover a marker for its graph)", nullptr,
        int(m_graphOrder.size())));
    if (m_graphOrder.empty())
        return;

    // x is a graph's slot (no numbers to read: hover names the graph); y is τ over its whole range.
    auto* x = new QValueAxis;
    x->setRange(-0.5, double(m_graphOrder.size()) - 0.5);
    x->setLabelsVisible(false);
    x->setTitleVisible(false);
    x->setGridLineVisible(false);
    auto* y = new NiceAxis;
    y->setTitleText(tr("Kendall τ"));
    AxisPolicy::Request tau;
    tau.lo = -1.0;
    tau.hi = 1.0;
    y->setRequest(tau);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    QList<QAbstractSeries*> legendSeries;
    QStringList legendNames;
    for (size_t k = 0; k < m_comparison.runs.size(); ++k) {
        const tgraph::ComparedRun& r = m_comparison.runs[k];
        auto* s = new QScatterSeries;
        s->setName(runLabel(r) + " (" + QString::fromStdString(r.model) + ")");
        s->setColor(ChartStyle::category(k));
        s->setBorderColor(ChartStyle::category(k));
        s->setMarkerSize(9);
        // Runs side by side within a graph's slot, so equal taus stay visible.
        const double offset
            = m_comparison.runs.size() > 1 ? (double(k) / double(m_comparison.runs.size() - 1) - 0.5) * 0.5 : 0.0;
        for (size_t gi = 0; gi < m_graphOrder.size(); ++gi)
            if (const auto it = r.graphTau.find(m_graphOrder[gi]); it != r.graphTau.end() && std::isfinite(it->second))
                s->append(double(gi) + offset, it->second);
        c->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
        legendSeries << s;
        legendNames << s->name();
        const QString run = runLabel(r);
        connect(s, &QScatterSeries::hovered, this, [this, run](const QPointF& p, bool state) {
            const size_t gi = size_t(std::lround(p.x()));
            if (!state || gi >= m_graphOrder.size()) {
                QToolTip::hideText();
                return;
            }
            QToolTip::showText(QCursor::pos(),
                tr("%1\n%2: τ %3").arg(graphLabel(m_graphOrder[gi]), run, number(p.y(), 4)), m_chartView);
        });
        connect(s, &QScatterSeries::clicked, this, [this](const QPointF& p) {
            const size_t gi = size_t(std::lround(p.x()));
            if (gi < m_graphOrder.size())
                Q_EMIT graphActivated(QString::fromStdString(m_graphOrder[gi]));
        });
    }
    // Run names that stay distinct in the legend's room (docs/studio.md §9).
    if (!legendSeries.isEmpty())
        LegendNames::set(c, legendSeries, legendNames);
}

void RunComparisonView::fillPairs()
{
    m_pairs->setRowCount(int(m_comparison.pairs.size()));
    for (int row = 0; row < int(m_comparison.pairs.size()); ++row) {
        const tgraph::PairwiseWins& w = m_comparison.pairs[size_t(row)];
        const QString a = runLabel(m_comparison.runs[w.a]), b = runLabel(m_comparison.runs[w.b]);
        const auto list = [](const std::vector<std::string>& graphs) {
            QStringList names;
            for (const std::string& g : graphs)
                names << graphLabel(g);
            return names.isEmpty() ? QObject::tr("no graph") : names.join("\n");
        };
        m_pairs->setItem(row, 0, cell(a, NAN, false));
        m_pairs->setItem(row, 1, cell(b, NAN, false));
        auto* aBetter = cell(Formatting::count(w.aBetter), w.aBetter);
        aBetter->setToolTip(list(w.graphsABetter));
        auto* bBetter = cell(Formatting::count(w.bBetter), w.bBetter);
        bBetter->setToolTip(list(w.graphsBBetter));
        m_pairs->setItem(row, 2, aBetter);
        m_pairs->setItem(row, 3, bBetter);
        m_pairs->setItem(row, 4, cell(Formatting::count(w.ties), w.ties));
    }
    m_pairs->resizeColumnsToContents();
}

} // namespace tgraph::widgets
