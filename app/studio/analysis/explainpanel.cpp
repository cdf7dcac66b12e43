// SPDX-License-Identifier: Apache-2.0
#include "app/studio/analysis/explainpanel.h"
#include "ui_explainpanel.h"

#include "app/studio/common/studiolog.h"

#include "core/util/format.h"
#include "widgets/analysis/attributiontablemodel.h"
#include "widgets/common/errorbanner.h"
#include "widgets/common/jobchannel.h"
#include "widgets/common/jobcontrol.h"
#include "widgets/common/formatting.h"
#include "widgets/graph/graphpane.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTableView>

#include <cmath>
#include <utility>

namespace tgraph::studio {

using namespace tgraph::widgets;

namespace {

const char* const kFastest = "predicted fastest";
const char* const kSlowest = "predicted slowest";
const char* const kDefault = "compiler default";

// A tensor's layout in HLO's notation, "{1,0}" (or "default"), as the what-if fields show and read it.
QString layoutText(const std::array<int8_t, 18>& values, int tensor)
{
    const QString text = QString::fromStdString(tgraph::tensorLayoutText(values, tensor));
    return text == QLatin1String("default") ? text : QLatin1Char('{') + text + QLatin1Char('}');
}

// One config's line of the summary: score, predicted rank, and the runtimes as shown (text already
// formatted, empty when unknown).
QString scoreLine(const QString& which, const std::string& label, double score, int64_t rank, int64_t configs,
    const QString& runtime, const QString& simulator)
{
    QString line = QStringLiteral("<b>%1</b> %2: score %3")
                       .arg(which, QString::fromStdString(label).toHtmlEscaped(), Formatting::number(score, 5));
    if (rank > 0)
        line += QObject::tr(", predicted rank %1 of %2").arg(Formatting::count(rank), Formatting::count(configs));
    if (!runtime.isEmpty())
        line += QStringLiteral(", ") + runtime;
    if (!simulator.isEmpty())
        line += QStringLiteral(", ") + simulator;
    return line;
}

} // namespace

ExplainPanel::ExplainPanel(QWidget* parent)
    : QWidget(parent)
    , m_channel(new JobChannel(JobLane::Model, QStringLiteral("Explain"), this))
    , m_whatIfChannel(new JobChannel(JobLane::Model, QStringLiteral("What-if"), this))
{
    setupUi();
    auto* control = new JobControl(m_channel, m_progress, m_banner, this);
    control->setCancelledMessage(tr("Explanation cancelled"));
    connect(control, &JobControl::statusMessage, this, &ExplainPanel::statusMessage);
    connect(control, &JobControl::busyChanged, this, &ExplainPanel::updateControls);
    connect(control, &JobControl::stopped, this, &ExplainPanel::finished);
    // A what-if's failure shows where its result would have (no banner, no bar: it is quick).
    auto* whatIf = new JobControl(m_whatIfChannel, nullptr, nullptr, this);
    connect(whatIf, &JobControl::stopped, this, [this, whatIf] {
        if (!whatIf->lastError().isEmpty())
            m_whatIfResult->setText(
                tr("<span style='color:#b00020'>%1</span>").arg(whatIf->lastError().toHtmlEscaped()));
        updateControls();
    });
    updateControls();
}

ExplainPanel::~ExplainPanel() = default;

void ExplainPanel::setupUi()
{
    // The widgets, texts, tooltips and layouts are in explainpanel.ui; what depends on the code's
    // constants, the model and the wiring is set here.
    m_ui = std::make_unique<Ui::ExplainPanel>();
    m_ui->setupUi(this);
    m_banner = m_ui->errorBanner;

    m_configA = m_ui->configA;
    m_configB = m_ui->configB;
    for (const auto& [combo, initial] : { std::pair { m_configA, kFastest }, std::pair { m_configB, kDefault } }) {
        combo->addItems({ tr(kFastest), tr(kDefault), tr(kSlowest) });
        combo->setCurrentText(tr(initial));
    }
    m_runButton = m_ui->runButton;
    m_cancelButton = m_ui->cancelButton;
    m_progress = m_ui->progress;
    m_progress->hide();
    connect(m_runButton, &QPushButton::clicked, this, &ExplainPanel::run);
    connect(m_cancelButton, &QPushButton::clicked, this, &ExplainPanel::cancel);

    m_summary = m_ui->summary;

    m_order = m_ui->order;
    m_order->addItem(tr("by counterfactual effect"), int(tgraph::AttributionOrder::Effect));
    m_order->addItem(tr("by share difference"), int(tgraph::AttributionOrder::Share));
    m_differingOnly = m_ui->differingOnly;
    m_overlayChoice = m_ui->overlayChoice; // items: 0 = none, 1 = share A − B, 2 = counterfactual effect
    connect(m_order, &QComboBox::currentIndexChanged, this,
        [this] { setOrder(tgraph::AttributionOrder(m_order->currentData().toInt())); });
    connect(m_differingOnly, &QCheckBox::toggled, this, [this](bool on) { m_table->setDifferingOnly(on); });
    connect(m_overlayChoice, &QComboBox::currentIndexChanged, this, &ExplainPanel::updateOverlay);

    m_table = new AttributionTableModel(this);
    m_tableView = m_ui->attributionTable;
    m_tableView->setModel(m_table);
    m_tableView->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    connect(m_tableView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this](const QModelIndex& current) {
            const int64_t node = m_table->nodeAt(current.row());
            if (node < 0 || !m_outcome)
                return;
            m_graph->selectNode(node, true);
            setWhatIfNode(node);
            Q_EMIT nodeActivated(QString::fromStdString(m_outcome->document->path), node);
        });
    m_graph = m_ui->graphPane;
    m_colorBar = m_ui->colorBar;
    connect(m_graph, &GraphPane::nodeSelected, this, [this](qint64 node) {
        const int row = m_table->rowOfNode(node);
        if (row >= 0 && m_tableView->currentIndex().row() != row)
            m_tableView->setCurrentIndex(m_table->index(row, 0));
    });

    m_whatIfNodeLabel = m_ui->whatIfNode;
    m_whatIfBase = m_ui->whatIfBase;
    m_whatIfOut = m_ui->whatIfOut;
    m_whatIfIn = m_ui->whatIfIn;
    m_whatIfKernel = m_ui->whatIfKernel;
    m_whatIfButton = m_ui->whatIfButton;
    m_whatIfResult = m_ui->whatIfResult;
    const auto scoreWhatIf = [this] {
        runWhatIf(m_whatIfBase->currentIndex(), m_whatIfOut->text(), m_whatIfIn->text(), m_whatIfKernel->text());
    };
    for (QLineEdit* e : { m_whatIfOut, m_whatIfIn, m_whatIfKernel })
        connect(e, &QLineEdit::returnPressed, m_whatIfBase, scoreWhatIf);
    connect(m_whatIfButton, &QPushButton::clicked, this, scoreWhatIf);
    connect(m_whatIfBase, &QComboBox::currentIndexChanged, this, [this] { setWhatIfNode(m_whatIfNode); });
}

void ExplainPanel::setContext(ExplainRequest context)
{
    const bool sameGraph = m_context.document == context.document && m_context.file == context.file;
    m_context = std::move(context);
    // The banner's "open a graph" and "choose a model" go with their cause.
    if (m_context.document || !m_context.file.empty())
        m_banner->clearCondition(kNoGraph);
    if (!m_context.weights.empty())
        m_banner->clearCondition(kNoModel);
    if (!sameGraph && m_outcome) {
        m_channel->cancel();
        m_outcome.reset();
        m_whatIf.reset();
        m_table->setAttribution(nullptr, tgraph::AttributionOrder(m_order->currentData().toInt()));
        m_graph->setDocument(nullptr, tgraph::GraphSource::Kind::Pruned);
        m_summary->setText(tr("Choose two configurations and press Explain."));
        m_overlay = NodeOverlay();
        Q_EMIT overlayChanged(QString());
    }
    updateControls();
}

void ExplainPanel::setConfigs(const QString& a, const QString& b)
{
    const auto name = [this](const QString& text) {
        if (text == QLatin1String("fastest"))
            return tr(kFastest);
        if (text == QLatin1String("slowest"))
            return tr(kSlowest);
        if (text == QLatin1String("default"))
            return tr(kDefault);
        return text;
    };
    m_configA->setCurrentText(name(a));
    m_configB->setCurrentText(name(b));
}

bool ExplainPanel::selectorOf(const QString& text, tgraph::ConfigSelector* selector, QString* error) const
{
    const QString t = text.trimmed();
    if (t == tr(kFastest) || t == QLatin1String("fastest")) {
        selector->role = tgraph::ConfigRole::PredictedFastest;
        return true;
    }
    if (t == tr(kSlowest) || t == QLatin1String("slowest")) {
        selector->role = tgraph::ConfigRole::PredictedSlowest;
        return true;
    }
    if (t == tr(kDefault) || t == QLatin1String("default")) {
        selector->role = tgraph::ConfigRole::CompilerDefault;
        return true;
    }
    QString digits = t;
    if (digits.startsWith(QLatin1Char('#')))
        digits.remove(0, 1);
    bool ok = false;
    const qint64 id = digits.toLongLong(&ok);
    if (!ok || id < 0) {
        *error = tr("'%1' is not a config: use predicted fastest, predicted slowest, compiler default or a config id")
                     .arg(t);
        return false;
    }
    selector->role = tgraph::ConfigRole::Index;
    if (m_context.configIds.empty()) {
        selector->index = id;
        return true;
    }
    const auto it = std::find(m_context.configIds.begin(), m_context.configIds.end(), int64_t(id));
    if (it == m_context.configIds.end()) {
        *error = tr("config %1 is not in the config set the inference run scored").arg(Formatting::id(id));
        return false;
    }
    selector->index = it - m_context.configIds.begin();
    return true;
}

void ExplainPanel::run()
{
    m_banner->dismiss();
    if (!m_context.document && m_context.file.empty()) {
        m_banner->showCondition(kNoGraph,
            tr("Open a layout graph (or run inference on one) to explain its configurations"),
            ErrorBanner::Severity::Error);
        return;
    }
    if (m_context.weights.empty()) {
        m_banner->showCondition(kNoModel,
            tr("Choose a model in the inference panel first: explain uses the model that ranked the configs"),
            ErrorBanner::Severity::Error);
        return;
    }
    ExplainRequest request = m_context;
    QString error;
    if (!selectorOf(m_configA->currentText(), &request.a, &error)
        || !selectorOf(m_configB->currentText(), &request.b, &error)) {
        m_banner->addMessage(error);
        return;
    }
    qCDebug(lcStudio) << "explaining" << m_configA->currentText() << "vs" << m_configB->currentText() << "of"
                      << QString::fromStdString(request.document ? request.document->path : request.file);
    using Outcome = std::shared_ptr<const ExplainOutcome>;
    m_channel->run<Outcome>(
        [request = std::move(request)](JobProgress& progress) -> Outcome {
            return std::make_shared<const ExplainOutcome>(runExplain(request, &progress));
        },
        [this](Outcome outcome) { showOutcome(std::move(outcome)); });
}

void ExplainPanel::cancel() { m_channel->cancel(); }

bool ExplainPanel::isRunning() const { return m_channel->isBusy(); }

void ExplainPanel::showOutcome(std::shared_ptr<const ExplainOutcome> outcome)
{
    const bool newGraph = !m_outcome || m_outcome->document != outcome->document;
    m_outcome = std::move(outcome);
    m_whatIf.reset();
    m_whatIfResult->clear();
    m_table->setAttribution(m_outcome->attribution, tgraph::AttributionOrder(m_order->currentData().toInt()));
    m_tableView->resizeColumnsToContents();
    if (newGraph)
        m_graph->setDocument(m_outcome->document,
            m_outcome->document->pruned ? tgraph::GraphSource::Kind::Pruned : tgraph::GraphSource::Kind::Full);
    // The ten nodes ranked first stay highlighted in the model's graph.
    std::vector<int64_t> top;
    for (int r = 0; r < std::min(10, m_table->rowCount()); ++r)
        top.push_back(m_table->nodeAt(r));
    m_graph->setHighlighted(top);
    updateSummary();
    updateOverlay();
    if (m_table->rowCount() > 0)
        m_tableView->setCurrentIndex(m_table->index(0, 0));
    const tgraph::Attribution& a = *m_outcome->attribution;
    Q_EMIT statusMessage(tr("Explained %1 against %2: %3 of the configurable nodes differ")
                             .arg(QString::fromStdString(a.labelA), QString::fromStdString(a.labelB),
                                 Formatting::count(a.differingNodes)));
}

void ExplainPanel::updateSummary()
{
    if (!m_outcome)
        return;
    const tgraph::Attribution& a = *m_outcome->attribution;
    // Runtimes of the config set (measured, or simulated: generated candidates, synthetic graphs),
    // and the simulator's noise-free total when the module is known; each pair with the digits that
    // tell A from B (docs/studio.md §5.5).
    const bool simulated = m_outcome->runtimesSimulated;
    const bool haveRuntimes = a.runtimeA > 0 && a.runtimeB > 0;
    const QStringList runtimes = Formatting::durations({ a.runtimeA > 0 ? double(a.runtimeA) : NAN,
        a.runtimeB > 0 ? double(a.runtimeB) : NAN });
    const QStringList simulator = Formatting::durations({ a.simulatedTotalA, a.simulatedTotalB });
    const auto runtimeText = [&](int i, int64_t runtime) {
        return runtime > 0 ? (simulated ? tr("simulated %1") : tr("measured %1")).arg(runtimes[i]) : QString();
    };
    const auto simulatorText = [&](int i, double total) {
        if (!std::isfinite(total))
            return QString();
        if (!simulated)
            return tr("simulated %1").arg(simulator[i]);
        // Already simulated runtimes: the simulator's own total only when it reads differently.
        return simulator[i] == runtimes[i] ? QString() : tr("noise-free simulation %1").arg(simulator[i]);
    };
    QStringList lines;
    lines << scoreLine(tr("A"), a.labelA, a.scoreA, a.rankA, a.configs, runtimeText(0, a.runtimeA),
        simulatorText(0, a.simulatedTotalA));
    lines << scoreLine(tr("B"), a.labelB, a.scoreB, a.rankB, a.configs, runtimeText(1, a.runtimeB),
        simulatorText(1, a.simulatedTotalB));
    const double d = a.scoreA - a.scoreB;
    QString verdict = d < 0
        ? tr("The model predicts A faster than B (score A − B = %1).").arg(Formatting::signedSignificant(d, 4))
        : d > 0 ? tr("The model predicts A slower than B (score A − B = %1).").arg(Formatting::signedSignificant(d, 4))
                : tr("The model scores A and B the same.");
    if (haveRuntimes) {
        // Decided on the numbers, not on their rounded text; the difference is shown either way.
        const QString which = simulated ? tr("The simulated runtimes") : tr("The measurements");
        const QString difference = Formatting::durationDifference(double(a.runtimeA), double(a.runtimeB));
        QString judgement;
        if (a.runtimeA == a.runtimeB)
            judgement = tr("%1 cannot tell A from B (both %2).").arg(which, runtimes[0]);
        else if (d == 0)
            judgement = tr("%1: runtime A − B = %2.").arg(which, difference);
        else if ((d < 0) == (a.runtimeA < a.runtimeB))
            judgement = tr("%1 agree: runtime A − B = %2.").arg(which, difference);
        else
            judgement = QStringLiteral("<span style='color:#b00020'>%1</span>")
                            .arg(tr("%1 disagree: runtime A − B = %2.").arg(which, difference));
        verdict += QStringLiteral(" ") + judgement;
    }
    lines << verdict;
    int64_t configurable = 0;
    for (const auto& n : a.nodes)
        configurable += n.configurable >= 0;
    QString detail = tr("%1 of %2 configurable nodes have different layouts; %3 nodes in the model's graph (%4 in the "
                        "file); %5 member(s), cross-attention %6.")
                         .arg(Formatting::count(a.differingNodes), Formatting::count(configurable),
                             Formatting::count(a.nodeCount()), Formatting::count(a.nodesBeforePruning),
                             Formatting::count(a.members), a.crossAttention ? tr("on") : tr("off"));
    if (a.crossAttention && a.configs > 0 && a.batchConfigs > 0) {
        // Which batch each score came from: with cross-config attention a score depends on the
        // configs scored with it (the Tune search and the What-if score in other batches).
        const auto chunk = [&a](int64_t config) {
            const int64_t k = (a.configs + a.batchConfigs - 1) / a.batchConfigs;
            const int64_t base = a.configs / k, larger = a.configs % k;
            int64_t begin = 0;
            for (int64_t i = 0; i < k; ++i) {
                const int64_t size = base + (i < larger ? 1 : 0);
                if (config < begin + size)
                    return std::pair { begin, begin + size - 1 };
                begin += size;
            }
            return std::pair { begin, begin };
        };
        const auto [a0, a1] = chunk(a.configA);
        const auto [b0, b1] = chunk(a.configB);
        detail += QStringLiteral(" ")
            + tr("Scores depend on their batch (cross-config attention): A is scored with configs %1–%2, B with "
                 "configs %3–%4, the inference table's chunks of at most %5.")
                  .arg(Formatting::id(a0), Formatting::id(a1), Formatting::id(b0), Formatting::id(b1),
                      Formatting::count(a.batchConfigs));
    }
    if (!m_outcome->moduleNote.empty())
        detail
            += QStringLiteral(" ") + tr("No simulator column: %1.").arg(QString::fromStdString(m_outcome->moduleNote));
    lines << detail;
    m_summary->setText(lines.join(QStringLiteral("<br>")));
}

void ExplainPanel::setOrder(tgraph::AttributionOrder order)
{
    const int index = m_order->findData(int(order));
    if (index >= 0 && index != m_order->currentIndex())
        m_order->setCurrentIndex(index);
    m_table->setOrder(order);
}

void ExplainPanel::setOverlayQuantity(int index) { m_overlayChoice->setCurrentIndex(std::clamp(index, 0, 2)); }

void ExplainPanel::updateOverlay()
{
    const int choice = m_overlayChoice->currentIndex();
    if (!m_outcome || choice == 0) {
        m_overlay = NodeOverlay();
        m_colorBar->hide();
        m_graph->setOverlay(nullptr);
    } else {
        m_overlay = AttributionOverlay::make(*m_outcome->attribution, m_outcome->document->nodeCount(),
            choice == 1 ? AttributionOverlay::Quantity::ShareDifference : AttributionOverlay::Quantity::Effect);
        m_colorBar->setOverlay(m_overlay);
        m_colorBar->show();
        m_graph->setOverlay(&m_overlay);
    }
    Q_EMIT overlayChanged(m_outcome ? QString::fromStdString(m_outcome->document->path) : QString());
}

void ExplainPanel::setWhatIfNode(qint64 fileNode)
{
    m_whatIfNode = -1;
    const tgraph::NodeAttribution* entry = nullptr;
    if (m_outcome)
        for (const tgraph::NodeAttribution& n : m_outcome->attribution->nodes)
            if (n.fileNode == fileNode)
                entry = &n;
    if (!entry || entry->configurable < 0) {
        m_whatIfNodeLabel->setText(tr("select a configurable node"));
        updateControls();
        return;
    }
    m_whatIfNode = fileNode;
    m_whatIfNodeLabel->setText(tr("node %1 %2 in").arg(Formatting::id(fileNode), QString::fromStdString(entry->name)));
    const std::array<int8_t, 18>& values = m_whatIfBase->currentIndex() == 0 ? entry->layoutA : entry->layoutB;
    m_whatIfOut->setText(layoutText(values, 0));
    m_whatIfIn->setText(layoutText(values, 1));
    m_whatIfKernel->setText(layoutText(values, 2));
    updateControls();
}

void ExplainPanel::runWhatIf(int base, const QString& out, const QString& in, const QString& kernel)
{
    if (!m_outcome || m_whatIfNode < 0) {
        m_whatIfResult->setText(tr("Explain first, then pick a configurable node in the list"));
        return;
    }
    std::array<float, 18> values {};
    std::string error;
    int tensor = 0;
    for (const QString& text : { out, in, kernel }) {
        if (!parseTensorLayout(text.toStdString(), values.data() + 6 * tensor, &error)) {
            m_whatIfResult->setText(tr("<span style='color:#b00020'>%1: %2</span>")
                                        .arg(QString::fromLatin1(tgraph::kLayoutTensorNames[tensor]),
                                            QString::fromStdString(error).toHtmlEscaped()));
            return;
        }
        ++tensor;
    }
    const int64_t row = base == 0 ? m_outcome->rowA : m_outcome->rowB;
    m_whatIfBaseShown = base;
    const std::shared_ptr<const ExplainOutcome> outcome = m_outcome;
    const qint64 node = m_whatIfNode;
    m_whatIfResult->setText(tr("scoring…"));
    using Result = std::shared_ptr<const WhatIfOutcome>;
    m_whatIfChannel->run<Result>(
        [outcome, row, node, values](JobProgress&) -> Result {
            return std::make_shared<const WhatIfOutcome>(
                tgraph::studio::runWhatIf(*outcome->session, *outcome->attribution, row, node, values));
        },
        [this, outcome](Result result) {
            if (outcome != m_outcome)
                return; // another explanation arrived meanwhile
            m_whatIf = std::move(result);
            showWhatIf();
        });
    updateControls();
}

void ExplainPanel::showWhatIf()
{
    if (!m_whatIf)
        return;
    const WhatIfOutcome& w = *m_whatIf;
    const double e = w.effect();
    QString text = tr("score %1 → %2 (%3, %4)")
                       .arg(Formatting::number(w.baseScore, 5), Formatting::number(w.editedScore, 5),
                           Formatting::signedSignificant(e, 3),
                           e < 0       ? tr("predicted faster")
                               : e > 0 ? tr("predicted slower")
                                       : tr("no change"));
    if (w.rank > 0)
        text += tr("; rank %1 → %2 of %3")
                    .arg(Formatting::count(w.baseRank), Formatting::count(w.rank), Formatting::count(w.configs));
    // The baseline is scored in a batch of its own (its chunk plus the edited config): with
    // cross-config attention it may differ from the summary's score (docs/studio.md §5.5).
    if (m_outcome && m_outcome->attribution->crossAttention) {
        m_whatIfResult->setToolTip(tr("Both scores come from one batch: the base config's inference chunk plus the "
                                      "edited config. With cross-config attention a score depends on its batch, so "
                                      "the base score can differ from the one in the summary above."));
        text += QStringLiteral(" ") + tr("(batch: %1's chunk + the edit)").arg(m_whatIfBaseShown == 0 ? tr("A") : tr("B"));
    } else {
        m_whatIfResult->setToolTip(QString());
    }
    m_whatIfResult->setText(text);
}

void ExplainPanel::updateControls()
{
    const bool busy = m_channel->isBusy();
    m_runButton->setEnabled(!busy);
    m_cancelButton->setEnabled(busy);
    m_whatIfButton->setEnabled(m_outcome && m_whatIfNode >= 0 && !m_whatIfChannel->isBusy());
}

} // namespace tgraph::studio
