// SPDX-License-Identifier: Apache-2.0
#include "widgets/runs/sweepview.h"

#include "widgets/runs/parallelcoordinatesview.h"
#include "widgets/runs/sweepcurvesview.h"

#include "core/store/project.h"
#include "widgets/common/chartstyle.h"
#include "widgets/common/formatting.h"

#include <QCheckBox>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

#include <cmath>
#include <set>

namespace tgraph::widgets {

namespace {

QString meanStd(const tgraph::SpreadStat& s)
{
    if (s.n == 0)
        return Formatting::missing();
    return Formatting::meanStd(s.mean, s.n < 2 ? NAN : s.std, 4);
}

QStandardItem* item(const QString& text, double sortKey = NAN)
{
    auto* i = new QStandardItem(text);
    i->setEditable(false);
    if (!std::isnan(sortKey))
        i->setData(sortKey, Qt::UserRole + 1);
    return i;
}

} // namespace

SweepViewData readSweepView(const QString& projectPath, const QString& sweepKey, const QString& metric)
{
    const tgraph::Project project = tgraph::Project::open(projectPath.toStdString(), tgraph::Project::Access::Read);
    SweepViewData d;
    d.summary = tgraph::summarizeSweep(project, sweepKey.toStdString());
    d.importance = tgraph::parameterImportance(d.summary);
    d.metric = metric;
    const qsizetype slash = metric.indexOf(QLatin1Char('/'));
    const std::string context = slash < 0 ? "valid" : metric.left(slash).toStdString();
    const std::string key = slash < 0 ? metric.toStdString() : metric.mid(slash + 1).toStdString();
    d.curves = tgraph::sweepCurves(project, d.summary, key, context, 500);
    return d;
}

SweepView::SweepView(QWidget* parent)
    : QWidget(parent)
    , m_title(new QLabel(this))
    , m_parallel(new ParallelCoordinatesView(this))
    , m_curves(new SweepCurvesView(this))
    , m_configTable(new QTableView(this))
    , m_importanceTable(new QTableView(this))
    , m_configModel(new QStandardItemModel(this))
    , m_importanceModel(new QStandardItemModel(this))
{
    m_title->setWordWrap(true);
    m_configTable->setModel(m_configModel);
    m_configTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_configTable->setSortingEnabled(true);
    m_configTable->verticalHeader()->hide();
    m_configTable->setToolTip(tr("Double-click a configuration to select its runs"));
    m_importanceTable->setModel(m_importanceModel);
    m_importanceTable->verticalHeader()->hide();
    m_importanceTable->setToolTip(
        tr("|r|: absolute Pearson correlation of the parameter (log10 for wide numeric ranges; two categories "
           "as 0/1) with the runs' last valid tau. Variance explained: eta squared, the share of the tau "
           "variance between groups of runs with the same value."));
    m_curves->setMinimumHeight(200);
    m_parallel->setMinimumHeight(200);

    m_minMax = new QCheckBox(tr("Band from min to max (else mean ± std)"));
    connect(m_minMax, &QCheckBox::toggled, this, [this](bool on) {
        m_curves->setBand(on ? SweepCurvesView::Band::MinMax : SweepCurvesView::Band::StdDev);
    });
    auto* curvesPane = new QWidget;
    auto* curvesLayout = new QVBoxLayout(curvesPane);
    curvesLayout->setContentsMargins(0, 0, 0, 0);
    curvesLayout->addWidget(m_curves, 1);
    curvesLayout->addWidget(m_minMax);
    auto* top = new QSplitter(Qt::Horizontal);
    top->addWidget(m_parallel);
    top->addWidget(curvesPane);
    top->setStretchFactor(0, 3);
    top->setStretchFactor(1, 2);
    auto* bottom = new QSplitter(Qt::Horizontal);
    bottom->addWidget(m_configTable);
    bottom->addWidget(m_importanceTable);
    bottom->setStretchFactor(0, 3);
    bottom->setStretchFactor(1, 1);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(top);
    split->addWidget(bottom);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    // proportions kept when the view is resized (the plot's size hint would take nearly all)
    top->setSizes({ 550, 450 });
    bottom->setSizes({ 700, 300 });
    split->setSizes({ 600, 400 });
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_title);
    layout->addWidget(split, 1);

    connect(m_parallel, &ParallelCoordinatesView::selectionChanged, this, &SweepView::filterByRuns);
    connect(m_parallel, &ParallelCoordinatesView::runActivated, this,
        [this](const QString& run) { Q_EMIT runsRequested({ run }); });
    connect(m_configTable, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        const QStringList runs = m_configModel->item(index.row(), 0)->data(Qt::UserRole + 2).toStringList();
        Q_EMIT runsRequested(runs);
    });
}

void SweepView::setData(const SweepViewData& data)
{
    m_data = data;
    const tgraph::SweepSummary& s = m_data.summary;
    int64_t finished = 0;
    for (const tgraph::SweepConfigSummary& c : s.configs)
        finished += c.finished;
    QString best = tr("no run finished yet");
    if (s.best >= 0) {
        const tgraph::SweepConfigSummary& b = s.configs[size_t(s.best)];
        best = tr("best: c%1 %2, mean tau %3")
                   .arg(Formatting::id(b.config), QString::fromStdString(b.text), meanStd(b.tau));
    }
    m_title->setText(
        tr("<b>Sweep %1</b> (%2): %3 configurations, %4 of %5 runs finished; %6")
            .arg(QString::fromStdString(s.sweep.name), QString::fromLatin1(tgraph::runStatusName(s.sweep.status)))
            .arg(Formatting::count(int64_t(s.configs.size())), Formatting::count(finished),
                Formatting::count(int64_t(s.runs.size())), best.toHtmlEscaped()));
    fillTables();
    m_curves->setCurves(m_data.curves, m_data.metric);
    m_parallel->setSweep(s); // emits selectionChanged: the table follows
}

void SweepView::fillTables()
{
    const tgraph::SweepSummary& s = m_data.summary;
    m_configTable->setSortingEnabled(false);
    m_configModel->clear();
    QStringList headers { tr("Config") };
    for (const std::string& p : s.parameters)
        headers << QString::fromStdString(p);
    headers << tr("Seeds done") << tr("tau (mean ± std)") << tr("OPA") << tr("top-5 slowdown");
    m_configModel->setHorizontalHeaderLabels(headers);
    m_configModel->setSortRole(Qt::UserRole + 1);
    for (size_t i = 0; i < s.configs.size(); ++i) {
        const tgraph::SweepConfigSummary& c = s.configs[i];
        QList<QStandardItem*> row;
        auto* first = item(
            QStringLiteral("c%1%2").arg(Formatting::id(c.config), int(i) == s.best ? QStringLiteral(" ★") : QString()),
            double(c.config));
        QStringList runs;
        for (const std::string& r : c.runIds)
            runs << QString::fromStdString(r);
        first->setData(runs, Qt::UserRole + 2);
        first->setData(ChartStyle::category(i), Qt::DecorationRole); // its curve's colour
        row << first;
        for (const std::string& p : s.parameters) {
            const QString v = QString::fromStdString(tgraph::parameterValue(c, p));
            bool ok = false;
            const double number = v.toDouble(&ok); // the grid's text, in C notation
            auto* cell = item(ok && std::isfinite(number) ? Formatting::significant(number, 12) : v, ok ? number : NAN);
            if (!ok)
                cell->setData(v, Qt::UserRole + 1);
            row << cell;
        }
        row << item(
            QStringLiteral("%1/%2").arg(Formatting::count(c.finished), Formatting::count(c.runs)), double(c.finished));
        row << item(meanStd(c.tau), c.tau.n ? c.tau.mean : -2) << item(meanStd(c.opa), c.opa.n ? c.opa.mean : -1)
            << item(meanStd(c.top5Slowdown), c.top5Slowdown.n ? c.top5Slowdown.mean : 1e9);
        if (int(i) == s.best)
            for (QStandardItem* cell : row) {
                QFont f = cell->font();
                f.setBold(true);
                cell->setFont(f);
            }
        m_configModel->appendRow(row);
    }
    m_configTable->setSortingEnabled(true);
    m_configTable->resizeColumnsToContents();

    m_importanceModel->clear();
    m_importanceModel->setHorizontalHeaderLabels({ tr("Parameter"), tr("|r| with tau"), tr("Variance explained") });
    for (const tgraph::ParameterImportance& p : m_data.importance) {
        auto number = [](double v) { return Formatting::number(v, 3); };
        m_importanceModel->appendRow({ item(QString::fromStdString(p.parameter)), item(number(p.correlation)),
            item(number(p.varianceExplained)) });
    }
    m_importanceTable->resizeColumnsToContents();
}

void SweepView::filterByRuns(const QStringList& runIds)
{
    const std::set<QString> selected(runIds.begin(), runIds.end());
    const bool brushed = m_parallel->selectedRuns().size() != m_parallel->lineCount();
    for (int row = 0; row < m_configModel->rowCount(); ++row) {
        bool any = false;
        for (const QString& r : m_configModel->item(row, 0)->data(Qt::UserRole + 2).toStringList())
            any = any || selected.count(r);
        m_configTable->setRowHidden(row, brushed && !any);
    }
}

int SweepView::visibleConfigurations() const
{
    int n = 0;
    for (int row = 0; row < m_configModel->rowCount(); ++row)
        n += m_configTable->isRowHidden(row) ? 0 : 1;
    return n;
}

} // namespace tgraph::widgets
