// SPDX-License-Identifier: Apache-2.0
#include "app/studio/pages/diffpage.h"

#include "app/studio/common/studiolog.h"
#include "app/studio/session/studiosession.h"

#include "widgets/common/elidedlabel.h"
#include "widgets/common/errorbanner.h"
#include "widgets/common/formatting.h"
#include "widgets/common/jobchannel.h"
#include "widgets/common/jobcontrol.h"
#include "widgets/common/jobprogress.h"
#include "widgets/diff/diffview.h"
#include "widgets/graph/graphpane.h"

#include "model/facade/ensemble.h"

#include "core/util/progress.h"

#include <QAction>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMimeData>
#include <QProgressBar>
#include <QSettings>
#include <QStyle>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>

namespace tgraph::studio {

using namespace tgraph::widgets;

namespace {

const QString kLastDirKey = QStringLiteral("DiffPage/lastDir");

QStringList droppedFiles(const QMimeData* mime)
{
    QStringList files;
    if (mime && mime->hasUrls())
        for (const QUrl& url : mime->urls())
            if (url.isLocalFile() && QFileInfo(url.toLocalFile()).isFile())
                files << url.toLocalFile();
    return files;
}

} // namespace

DiffPage::DiffPage(StudioSession* session, QWidget* parent)
    : QWidget(parent)
    , m_session(session)
    , m_view(new DiffView(this))
    , m_banner(new ErrorBanner(this))
    , m_channel(new JobChannel(JobLane::Io, QStringLiteral("Diff"), this))
    , m_openButton(new QToolButton(this))
    , m_swapButton(new QToolButton(this))
    , m_progressBox(new QWidget(this))
    , m_progressLabel(new QLabel(m_progressBox))
    , m_progress(new QProgressBar(m_progressBox))
    , m_cancelButton(new QToolButton(m_progressBox))
    , m_stageBar(new QWidget(this))
    , m_stageLabel(new ElidedLabel(m_stageBar))
    , m_previousPass(new QAction(tr("Previous Pass"), this))
    , m_nextPass(new QAction(tr("Next Pass"), this))
    , m_timelineAction(new QAction(tr("Show in Timeline"), this))
    , m_historyAction(new QAction(tr("History across Passes…"), this))
    , m_modelChannel(new JobChannel(JobLane::Model, QStringLiteral("Diff scores"), this))
    , m_modelLabel(new ElidedLabel(this))
{
    setObjectName(QStringLiteral("diffPage"));
    setAcceptDrops(true);
    m_openButton->setObjectName(QStringLiteral("compareButton"));
    m_openButton->setText(tr("Compare Modules…"));
    m_openButton->setIcon(QIcon::fromTheme(QStringLiteral("document-open")));
    m_openButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_openButton->setAutoRaise(true);
    m_openButton->setToolTip(tr("Choose two HLO modules A and B (text, protobuf, .gz / .xz dump stages); "
                                "or drop two files on this page"));
    connect(m_openButton, &QToolButton::clicked, this, &DiffPage::chooseFiles);
    m_swapButton->setObjectName(QStringLiteral("swapButton"));
    m_swapButton->setText(tr("Swap A and B"));
    m_swapButton->setIcon(QIcon::fromTheme(QStringLiteral("object-flip-horizontal")));
    m_swapButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_swapButton->setAutoRaise(true);
    m_swapButton->setEnabled(false);
    connect(m_swapButton, &QToolButton::clicked, this, [this] {
        const StagePair swapped = m_pair.swapped();
        compare(m_pathB, m_pathA);
        setStagePair(swapped);
    });
    m_progress->setObjectName(QStringLiteral("diffProgress"));
    m_progress->setMaximumWidth(220);
    m_progress->setTextVisible(false);
    m_cancelButton->setObjectName(QStringLiteral("diffCancelButton"));
    m_cancelButton->setText(tr("Cancel"));
    m_cancelButton->setIcon(style()->standardIcon(QStyle::SP_DialogCancelButton));
    m_cancelButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_cancelButton->setAutoRaise(true);
    m_cancelButton->setToolTip(tr("Stop the diff"));

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 0);
    bar->setSpacing(6);
    bar->addWidget(m_openButton);
    bar->addWidget(m_swapButton);
    bar->addStretch(1);
    auto* box = new QHBoxLayout(m_progressBox);
    box->setContentsMargins(0, 0, 0, 0);
    box->setSpacing(6);
    box->addWidget(m_progressLabel);
    box->addWidget(m_progress);
    box->addWidget(m_cancelButton);
    m_progressBox->setObjectName(QStringLiteral("diffProgressBox"));
    bar->addWidget(m_progressBox);
    layout->addLayout(bar);

    // Which module and stages are compared, when the Passes page asked (docs/studio.md §11).
    m_stageBar->setObjectName(QStringLiteral("stageBar"));
    m_stageLabel->setObjectName(QStringLiteral("stageLabel"));
    m_previousPass->setObjectName(QStringLiteral("previousPassAction"));
    m_previousPass->setIcon(QIcon::fromTheme(QStringLiteral("go-up")));
    m_previousPass->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Up));
    m_previousPass->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_previousPass->setToolTip(tr("Both stages one pass earlier (Alt+Up)"));
    m_nextPass->setObjectName(QStringLiteral("nextPassAction"));
    m_nextPass->setIcon(QIcon::fromTheme(QStringLiteral("go-down")));
    m_nextPass->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Down));
    m_nextPass->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_nextPass->setToolTip(tr("Both stages one pass later (Alt+Down)"));
    m_timelineAction->setObjectName(QStringLiteral("showInTimelineAction"));
    m_timelineAction->setToolTip(tr("The Passes page with stage B selected in the module's timeline"));
    m_historyAction->setObjectName(QStringLiteral("diffHistoryAction"));
    m_historyAction->setToolTip(tr("Which pass created, changed, fused or removed the selected instruction"));
    addAction(m_previousPass);
    addAction(m_nextPass);
    connect(m_previousPass, &QAction::triggered, this, [this] { stepPass(-1); });
    connect(m_nextPass, &QAction::triggered, this, [this] { stepPass(+1); });
    connect(m_timelineAction, &QAction::triggered, this, &DiffPage::showInTimeline);
    connect(m_historyAction, &QAction::triggered, this, &DiffPage::showHistoryOfSelection);
    auto* stageRow = new QHBoxLayout(m_stageBar);
    stageRow->setContentsMargins(4, 0, 4, 0);
    stageRow->setSpacing(6);
    stageRow->addWidget(m_stageLabel, 1);
    for (QAction* action : { m_previousPass, m_nextPass, m_timelineAction, m_historyAction }) {
        auto* button = new QToolButton(m_stageBar);
        button->setDefaultAction(action);
        button->setObjectName(action->objectName() + QStringLiteral("Button"));
        button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        button->setAutoRaise(true);
        stageRow->addWidget(button);
    }
    layout->addWidget(m_stageBar);
    m_stageBar->hide();
    m_modelLabel->setObjectName(QStringLiteral("modelScoreLabel"));
    m_modelLabel->setContentsMargins(8, 0, 8, 0);
    layout->addWidget(m_modelLabel);
    auto* bannerMargins = new QVBoxLayout;
    bannerMargins->setContentsMargins(6, 2, 6, 0);
    bannerMargins->addWidget(m_banner);
    layout->addLayout(bannerMargins);
    layout->addWidget(m_view, 1);
    setBusy(false);

    // The bar, Cancel, the banner's error and "cancelled" on the status line: the studio's one job
    // control (docs/studio.md §3.7); the label says which step runs.
    auto* control = new JobControl(m_channel, m_progress, m_banner, this);
    control->setCancelButton(m_cancelButton);
    control->setCancelledMessage(tr("Diff cancelled"));
    connect(control, &JobControl::statusMessage, m_session, &StudioSession::showMessage);
    connect(control, &JobControl::busyChanged, this, &DiffPage::setBusy);
    connect(m_channel, &JobChannel::progressChanged, this,
        [this](quint64, const QString& label, quint64, quint64) { m_progressLabel->setText(label); });
    connect(m_channel, &JobChannel::failed, this, [this](quint64, const QString& message) {
        qCWarning(lcStudio).noquote() << "diff failed:" << message;
        Q_EMIT diffFailed(message);
    });
    connect(m_view, &DiffView::message, m_session, &StudioSession::showMessage);
    connect(m_session, &StudioSession::diffRequested, this, [this](const QString& a, const QString& b) {
        const StagePair& pair = m_session->stagePair();
        const bool stages = pair.isValid() && pair.pathA() == a && pair.pathB() == b;
        compare(a, b);
        setStagePair(stages ? pair : StagePair());
        m_session->requestPage(Page::Diff);
    });
    // An instruction of a dump-folder stage offers its history, as on the Graph page.
    for (const DiffView::Side side : { DiffView::Side::A, DiffView::Side::B }) {
        GraphPane* pane = m_view->pane(side);
        pane->setNodeMenuHook([this, side](QMenu& menu, qint64 node) {
            const DiffResultPtr& result = m_view->result();
            const QString path = side == DiffView::Side::A ? m_pathA : m_pathB;
            if (!result || !m_session->isDumpStage(path))
                return;
            const auto& document = side == DiffView::Side::A ? result->a : result->b;
            const QString name = QString::fromStdString(document->nodeName(node));
            menu.addAction(
                tr("History across Passes…"), this, [this, path, name] { m_session->requestHistory(path, name); });
        });
    }
    // The layout model's scores follow the session's model (docs/diff.md §11).
    connect(m_session, &StudioSession::sharedModelChanged, this, &DiffPage::scoreWithModel);
    connect(m_modelChannel, &JobChannel::failed, this, [this](quint64, const QString& message) {
        m_modelScore.reset();
        showModelText(tr("Layout model: %1").arg(message), message);
        Q_EMIT modelScoreShown();
    });
    updateStageActions();
    scoreWithModel();
}

DiffPage::~DiffPage() = default; // m_channel cancels and waits

bool DiffPage::isBusy() const { return m_channel->isBusy(); }

void DiffPage::setBusy(bool busy)
{
    m_progressBox->setVisible(busy);
    m_swapButton->setEnabled(!busy && m_view->result());
}

void DiffPage::cancel() { m_channel->cancel(); }

void DiffPage::compare(const QString& pathA, const QString& pathB)
{
    m_pathA = QFileInfo(pathA).absoluteFilePath();
    m_pathB = QFileInfo(pathB).absoluteFilePath();
    m_banner->dismiss();
    m_progressLabel->setText(tr("Reading %1").arg(QFileInfo(m_pathA).fileName()));
    setBusy(true);
    auto timer = std::make_shared<QElapsedTimer>();
    timer->start();
    m_channel->start([this, a = m_pathA.toStdString(), b = m_pathB.toStdString(), timer](
                         JobProgress& progress) -> JobTracker::Continuation {
        DiffResultPtr result;
        try {
            result = computeDiff(a, b, &progress);
        } catch (const std::bad_alloc&) {
            throw std::runtime_error("not enough memory to compare these modules");
        }
        return [this, result, timer] {
            m_view->setResult(result);
            m_swapButton->setEnabled(true);
            updateStageActions();
            scoreWithModel();
            const tgraph::HloDiff& d = result->diff;
            qCDebug(lcStudio) << "diff shown in" << timer->elapsed() << "ms";
            m_session->showMessage(d.same()
                    ? tr("The modules are the same")
                    : tr("Compared %1 with %2").arg(QFileInfo(m_pathA).fileName(), QFileInfo(m_pathB).fileName()));
            Q_EMIT diffShown();
        };
    });
}

void DiffPage::setStagePair(const StagePair& pair)
{
    m_pair = pair.isValid() ? pair : StagePair();
    m_stageBar->setVisible(m_pair.isValid());
    const QString text = stageText();
    m_stageLabel->setFullText(text,
        m_pair.isValid() ? QStringLiteral("A: %1\nB: %2")
                               .arg(QDir::toNativeSeparators(m_pair.pathA()), QDir::toNativeSeparators(m_pair.pathB()))
                         : QString());
    updateStageActions();
}

QString DiffPage::stageText() const
{
    if (!m_pair.isValid())
        return {};
    const int n = int(m_pair.stages.size());
    return tr("%1  ›  A: %2  →  B: %3  (stages %L4 and %L5 of %L6)")
        .arg(m_pair.module, m_pair.stages[size_t(m_pair.a)].label, m_pair.stages[size_t(m_pair.b)].label)
        .arg(m_pair.a + 1)
        .arg(m_pair.b + 1)
        .arg(n);
}

void DiffPage::updateStageActions()
{
    m_previousPass->setEnabled(m_pair.canStep(-1));
    m_nextPass->setEnabled(m_pair.canStep(+1));
    m_timelineAction->setEnabled(m_pair.isValid());
    m_historyAction->setEnabled(
        m_view->result() && (m_session->isDumpStage(m_pathA) || m_session->isDumpStage(m_pathB)));
}

void DiffPage::stepPass(int delta)
{
    if (!m_pair.canStep(delta))
        return;
    m_session->requestStageDiff(m_pair.stepped(delta));
}

void DiffPage::showInTimeline()
{
    if (m_pair.isValid())
        m_session->requestTimelineStage(m_pair.pathB());
}

bool DiffPage::selectedInstruction(bool sideB, QString* path, QString* name) const
{
    const DiffResultPtr& result = m_view->result();
    if (!result)
        return false;
    const DiffView::Side side = sideB ? DiffView::Side::B : DiffView::Side::A;
    const int64_t node = m_view->pane(side)->selectedNode();
    const auto& document = sideB ? result->b : result->a;
    if (node < 0 || node >= document->nodeCount())
        return false;
    *path = sideB ? m_pathB : m_pathA;
    *name = QString::fromStdString(document->nodeName(node));
    return true;
}

bool DiffPage::showHistoryOfSelection()
{
    QString path, name;
    if (!selectedInstruction(true, &path, &name) && !selectedInstruction(false, &path, &name)) {
        m_session->showMessage(tr("Select an instruction to see its history across the passes"));
        return false;
    }
    if (!m_session->isDumpStage(path)) {
        m_session->showMessage(tr("%1 is not a stage of the open dump folder").arg(QDir::toNativeSeparators(path)));
        return false;
    }
    m_session->requestHistory(path, name);
    return true;
}

QString DiffPage::modelText() const { return m_modelLabel->fullText(); }

bool DiffPage::isScoring() const { return m_modelChannel->isBusy(); }

void DiffPage::showModelText(const QString& text, const QString& toolTip) { m_modelLabel->setFullText(text, toolTip); }

void DiffPage::scoreWithModel()
{
    m_modelScore.reset();
    const QStringList files = m_session->sharedModel();
    const DiffResultPtr result = m_view->result();
    if (files.isEmpty()) {
        m_modelChannel->cancel();
        showModelText(tr("Layout model's estimate: no model open (open one on the Analysis page to score both "
                         "sides' layouts)"));
        return;
    }
    if (!result) {
        m_modelChannel->cancel();
        showModelText(QString());
        return;
    }
    QStringList names;
    for (const QString& f : files)
        names << QFileInfo(f).fileName();
    showModelText(tr("Layout model (%1): scoring both sides…").arg(names.join(QStringLiteral(", "))));
    std::vector<std::string> weights;
    for (const QString& f : files)
        weights.push_back(f.toStdString());
    m_modelChannel->run<tgraph::HloDiffModelScore>(
        [result, weights, a = m_pathA.toStdString(), b = m_pathB.toStdString()](JobProgress& progress) {
            tgraph::ProgressScope scope(&progress, "Scoring both sides with the layout model", 3);
            tgraph::facade::Ensemble ensemble
                = tgraph::facade::Ensemble::load(tgraph::facade::expandWeightsArguments(weights));
            scope.advanceBy(1);
            tgraph::HloDiffModelScore out;
            out.weights = weights;
            out.model = ensemble.size() > 1 ? "ensemble of " + std::to_string(ensemble.size()) : "";
            out.a = ensemble.scoreOwnLayouts(result->moduleA(), a);
            scope.advanceBy(1);
            out.b = ensemble.scoreOwnLayouts(result->moduleB(), b);
            scope.advanceBy(1);
            return out;
        },
        [this, names](const tgraph::HloDiffModelScore& score) {
            m_modelScore = score;
            const double delta = score.delta();
            const QString verdict = delta > 0 ? tr("B slower by the model")
                : delta < 0                   ? tr("B faster by the model")
                                              : tr("the same by the model");
            showModelText(tr("Layout model's estimate (%1): A %2 · B %3 · Δ %4, %5 (higher = slower; a ranking "
                             "score, not a time)")
                              .arg(names.join(QStringLiteral(", ")), Formatting::number(score.a, 4),
                                  Formatting::number(score.b, 4), Formatting::signedNumber(delta, 4), verdict),
                QString::fromLatin1(tgraph::kHloDiffModelCaveat));
            Q_EMIT modelScoreShown();
        });
}

void DiffPage::chooseFiles()
{
    QSettings settings;
    const QString dir = settings.value(kLastDirKey, QDir::homePath()).toString();
    const QString filter = tr("HLO modules (*.hlo *.txt *.pb *.gz *.xz);;All files (*)");
    QStringList files = QFileDialog::getOpenFileNames(this, tr("Compare Modules: A (and B)"), dir, filter);
    if (files.isEmpty())
        return;
    settings.setValue(kLastDirKey, QFileInfo(files.front()).absolutePath());
    if (files.size() == 1) {
        const QString b = QFileDialog::getOpenFileName(
            this, tr("Compare Modules: B"), QFileInfo(files.front()).absolutePath(), filter);
        if (b.isEmpty())
            return;
        files << b;
    }
    if (files.size() != 2) {
        m_banner->addMessage(tr("Choose two modules to compare, not %1").arg(files.size()));
        return;
    }
    compare(files[0], files[1]);
    setStagePair({});
}

void DiffPage::dragEnterEvent(QDragEnterEvent* event)
{
    if (droppedFiles(event->mimeData()).size() == 2)
        event->acceptProposedAction();
}

void DiffPage::dropEvent(QDropEvent* event)
{
    const QStringList files = droppedFiles(event->mimeData());
    if (files.size() != 2)
        return;
    event->acceptProposedAction();
    compare(files[0], files[1]);
    setStagePair({});
}

} // namespace tgraph::studio
