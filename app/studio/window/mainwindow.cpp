// SPDX-License-Identifier: Apache-2.0
#include "app/studio/window/mainwindow.h"

#include "app/studio/window/aboutdialog.h"
#include "app/studio/analysis/explainpanel.h"
#include "app/studio/data/collectionview.h"
#include "app/studio/data/fetchdialog.h"
#include "app/studio/graph/graphloader.h"
#include "app/studio/analysis/inferencepanel.h"
#include "app/studio/common/recentfiles.h"
#include "app/studio/common/studiolog.h"
#include "app/studio/runs/trainingmonitor.h"
#include "app/studio/analysis/tunepanel.h"

#include "widgets/common/errorbanner.h"
#include "widgets/common/formatting.h"
#include "widgets/common/jobchannel.h"
#include "widgets/graph/graphpage.h"
#include "widgets/graph/graphpane.h"
#include "widgets/graph/graphsummaryview.h"
#include "widgets/graph/graphview.h"
#include "widgets/graph/nodeinspector.h"
#include "widgets/graph/nodeoverlay.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyle>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>

#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>

namespace {

const QString kGeometryKey = QStringLiteral("MainWindow/geometry");
const QString kStateKey = QStringLiteral("MainWindow/state");
const QString kLastDirKey = QStringLiteral("MainWindow/lastDirectory");
const QString kSplitterKey = QStringLiteral("GraphPage/splitter");
const QString kExportDirKey = QStringLiteral("MainWindow/exportDirectory");
constexpr int kStatusTimeoutMs = 8000;
constexpr int kProgressSteps = 1000;

QStringList localFiles(const QMimeData* mime)
{
    QStringList files;
    if (!mime || !mime->hasUrls())
        return files;
    const QList<QUrl> urls = mime->urls();
    for (const QUrl& url : urls) {
        if (url.isLocalFile())
            files.append(url.toLocalFile());
    }
    return files;
}

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_loader(new GraphLoader(this))
    , m_recent(new RecentFiles(this))
    , m_banner(new ErrorBanner(this))
    , m_pages(new QStackedWidget(this))
    , m_tabs(new QTabWidget(this))
    , m_projectPoll(new JobChannel(JobLane::Io, QStringLiteral("Projects"), this))
    , m_projectTimer(new QTimer(this))
{
    setObjectName(QStringLiteral("MainWindow"));
    setWindowTitle(tr("TGraph Studio"));
    setAcceptDrops(true);

    m_tabs->setObjectName(QStringLiteral("graphTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->setTabsClosable(true);
    m_tabs->setMovable(true);
    m_tabs->setElideMode(Qt::ElideMiddle);
    m_tabs->tabBar()->setExpanding(false);
    connect(m_tabs, &QTabWidget::tabCloseRequested, this, &MainWindow::closeTab);
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::updateCentralPage);
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::onCurrentTabChanged);

    m_pages->addWidget(createEmptyState());
    m_pages->addWidget(m_tabs);

    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    auto* bannerMargins = new QVBoxLayout;
    bannerMargins->setContentsMargins(6, 6, 6, 0);
    bannerMargins->addWidget(m_banner);
    layout->addLayout(bannerMargins);
    layout->addWidget(m_pages, 1);
    setCentralWidget(central);

    setupActions();
    setupStatusBar();
    setupDocks();

    connect(m_loader, &GraphLoader::jobStarted, this, &MainWindow::onJobStarted);
    connect(m_loader, &GraphLoader::progressChanged, this, &MainWindow::onProgress);
    connect(m_loader, &GraphLoader::loaded, this, &MainWindow::onLoaded);
    connect(m_loader, &GraphLoader::projectLoaded, this, &MainWindow::onProjectLoaded);
    connect(m_loader, &GraphLoader::failed, this, &MainWindow::onFailed);
    connect(m_loader, &GraphLoader::cancelled, this, &MainWindow::onCancelled);
    connect(m_loader, &GraphLoader::idle, this, &MainWindow::onIdle);
    connect(m_recent, &RecentFiles::changed, this, &MainWindow::updateRecentMenu);
    // The sidebar's projects follow their files: runs started, ended or deleted elsewhere too.
    m_projectTimer->setInterval(kProjectPollMs);
    connect(m_projectTimer, &QTimer::timeout, this, &MainWindow::refreshProjects);
    m_projectTimer->start();

    updateRecentMenu();
    updateCentralPage();
    restoreSettings();
}

MainWindow::~MainWindow() = default;

void MainWindow::setupActions()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));

    m_openAction = file->addAction(
        QIcon::fromTheme(QStringLiteral("document-open")), tr("&Open…"), this, &MainWindow::openFileDialog);
    m_openAction->setShortcut(QKeySequence::Open);
    m_openAction->setToolTip(tr("Open TpuGraphs .npz graphs, HLO text dumps and HLO / tuning-record protobufs"));

    QAction* openFolder = file->addAction(
        QIcon::fromTheme(QStringLiteral("folder-open")), tr("Open &Folder…"), this, &MainWindow::openFolderDialog);
    openFolder->setObjectName(QStringLiteral("openFolderAction"));
    openFolder->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    openFolder->setToolTip(tr("Check a TpuGraphs tree or collection folder and show its summary table"));

    m_recentMenu = file->addMenu(QIcon::fromTheme(QStringLiteral("document-open-recent")), tr("Open &Recent"));
    m_recentMenu->setObjectName(QStringLiteral("recentMenu"));
    // Re-check on every show: files may have vanished since the menu was last built.
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::updateRecentMenu);

    file->addSeparator();
    m_exportSvgAction = file->addAction(tr("Export View as &SVG…"), this, &MainWindow::exportSvg);
    m_exportSvgAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_exportPngAction = file->addAction(tr("Export View as &PNG…"), this, &MainWindow::exportPng);
    m_exportPngAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    m_copyImageAction = file->addAction(
        QIcon::fromTheme(QStringLiteral("edit-copy")), tr("Copy View as &Image"), this, &MainWindow::copyImage);
    m_copyImageAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));

    file->addSeparator();
    m_closeTabAction = file->addAction(
        QIcon::fromTheme(QStringLiteral("tab-close")), tr("&Close Tab"), this, &MainWindow::closeCurrentTab);
    m_closeTabAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_W));

    file->addSeparator();
    m_quitAction
        = file->addAction(QIcon::fromTheme(QStringLiteral("application-exit")), tr("&Quit"), this, &QWidget::close);
    m_quitAction->setShortcut(QKeySequence::Quit);
    m_quitAction->setMenuRole(QAction::QuitRole);

    // View and navigation act on the current tab's graph (the pane used last in the split view).
    const auto onPage = [this](auto function) {
        return [this, function] {
            if (GraphPage* page = currentPage())
                function(page);
        };
    };
    const auto onView = [this](auto function) {
        return [this, function] {
            if (GraphPage* page = currentPage())
                function(page->currentPane()->view());
        };
    };
    QMenu* view = menuBar()->addMenu(tr("&View"));
    m_findAction = view->addAction(QIcon::fromTheme(QStringLiteral("edit-find")), tr("&Find Node…"), this,
        onPage([](GraphPage* page) { page->focusSearch(); }));
    m_findAction->setShortcut(QKeySequence::Find);
    m_findNextAction = view->addAction(tr("Find &Next"), this, onPage([](GraphPage* page) { page->findNext(); }));
    m_findNextAction->setShortcut(QKeySequence::FindNext);
    m_findPreviousAction
        = view->addAction(tr("Find Pre&vious"), this, onPage([](GraphPage* page) { page->findPrevious(); }));
    m_findPreviousAction->setShortcut(QKeySequence::FindPrevious);
    view->addSeparator();
    m_zoomInAction = view->addAction(
        QIcon::fromTheme(QStringLiteral("zoom-in")), tr("Zoom &In"), this, onView([](GraphView* v) { v->zoomIn(); }));
    m_zoomInAction->setShortcuts({ QKeySequence::ZoomIn, QKeySequence(Qt::CTRL | Qt::Key_Equal) });
    m_zoomOutAction = view->addAction(QIcon::fromTheme(QStringLiteral("zoom-out")), tr("Zoom &Out"), this,
        onView([](GraphView* v) { v->zoomOut(); }));
    m_zoomOutAction->setShortcut(QKeySequence::ZoomOut);
    m_fitAction = view->addAction(QIcon::fromTheme(QStringLiteral("zoom-fit-best")), tr("&Fit to View"), this,
        onPage([](GraphPage* page) { page->fitToView(); })); // both panes of the split view
    m_fitAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    view->addSeparator();
    m_splitAction = view->addAction(tr("&Before / After Pruning"));
    m_splitAction->setCheckable(true);
    m_splitAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    connect(m_splitAction, &QAction::triggered, this, [this](bool on) {
        if (GraphPage* page = currentPage())
            page->setSplit(on);
        updateActions();
    });
    view->addSeparator();
    m_backAction = view->addAction(QIcon::fromTheme(QStringLiteral("go-previous")), tr("&Back"), this,
        onPage([](GraphPage* page) { page->goBack(); }));
    m_backAction->setShortcuts({ QKeySequence::Back, QKeySequence(Qt::ALT | Qt::Key_Left) });
    m_forwardAction = view->addAction(QIcon::fromTheme(QStringLiteral("go-next")), tr("F&orward"), this,
        onPage([](GraphPage* page) { page->goForward(); }));
    m_forwardAction->setShortcuts({ QKeySequence::Forward, QKeySequence(Qt::ALT | Qt::Key_Right) });
    m_viewMenu = view;

    QMenu* data = menuBar()->addMenu(tr("&Data"));
    QAction* fetch = data->addAction(QIcon::fromTheme(QStringLiteral("folder-download")), tr("&Fetch TpuGraphs…"),
        this, &MainWindow::showFetchDialog);
    fetch->setObjectName(QStringLiteral("fetchAction"));
    data->addAction(openFolder);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    m_aboutAction = help->addAction(QIcon::fromTheme(QStringLiteral("help-about")), tr("&About TGraph Studio…"), this,
        &MainWindow::showAboutDialog);
    m_aboutAction->setMenuRole(QAction::AboutRole);
}

void MainWindow::setupStatusBar()
{
    m_progressLabel = new QLabel(this);
    m_progressLabel->setObjectName(QStringLiteral("progressLabel"));
    m_progressBar = new QProgressBar(this);
    m_progressBar->setObjectName(QStringLiteral("progressBar"));
    m_progressBar->setMaximumWidth(220);
    m_progressBar->setTextVisible(false);
    m_cancelButton = new QToolButton(this);
    m_cancelButton->setObjectName(QStringLiteral("cancelButton"));
    m_cancelButton->setText(tr("Cancel"));
    m_cancelButton->setIcon(style()->standardIcon(QStyle::SP_DialogCancelButton));
    m_cancelButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_cancelButton->setAutoRaise(true);
    m_cancelButton->setToolTip(tr("Stop loading (also drops the files still queued)"));
    connect(m_cancelButton, &QToolButton::clicked, this, &MainWindow::cancelLoading);

    statusBar()->addPermanentWidget(m_progressLabel);
    statusBar()->addPermanentWidget(m_progressBar);
    statusBar()->addPermanentWidget(m_cancelButton);
    m_progressLabel->hide();
    m_progressBar->hide();
    m_cancelButton->hide();
}

QWidget* MainWindow::createEmptyState()
{
    auto* page = new QWidget(this);
    page->setObjectName(QStringLiteral("emptyState"));

    auto* hint = new QLabel(tr("Open a TpuGraphs .npz, an HLO dump or a tuning record (%1), or drop files here")
                                .arg(QKeySequence(QKeySequence::Open).toString(QKeySequence::NativeText)),
        page);
    hint->setObjectName(QStringLiteral("emptyStateHint"));
    hint->setAlignment(Qt::AlignCenter);
    hint->setWordWrap(true);
    hint->setForegroundRole(QPalette::PlaceholderText);
    QFont font = hint->font();
    font.setPointSizeF(font.pointSizeF() * 1.4);
    hint->setFont(font);

    auto* open = new QPushButton(tr("Open…"), page);
    open->setIcon(QIcon::fromTheme(QStringLiteral("document-open")));
    connect(open, &QPushButton::clicked, this, &MainWindow::openFileDialog);

    auto* layout = new QVBoxLayout(page);
    layout->addStretch(2);
    layout->addWidget(hint);
    layout->addSpacing(12);
    layout->addWidget(open, 0, Qt::AlignHCenter);
    layout->addStretch(3);
    return page;
}

GraphSummaryView* MainWindow::summaryView(int index) const
{
    GraphPage* page = graphPage(index);
    return page ? page->summaryView() : nullptr;
}

GraphPage* MainWindow::graphPage(int index) const { return qobject_cast<GraphPage*>(m_tabs->widget(index)); }

GraphPage* MainWindow::currentPage() const { return graphPage(m_tabs->currentIndex()); }

void MainWindow::setupDocks()
{
    m_sidebar = new QTreeWidget(this);
    m_sidebar->setObjectName(QStringLiteral("graphList"));
    m_sidebar->setHeaderLabels({ tr("Graph"), tr("Nodes"), tr("Configs") });
    m_sidebar->setRootIsDecorated(false);
    m_sidebar->setMinimumWidth(220);
    m_sidebar->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_sidebar->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_sidebar->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    m_sidebar->header()->setStretchLastSection(false);
    connect(m_sidebar, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        if (!item)
            return;
        for (int i = 0; i < m_tabs->count(); ++i)
            if (m_tabs->widget(i) == item->data(0, Qt::UserRole).value<QObject*>())
                m_tabs->setCurrentIndex(i);
    });
    m_sidebarDock = new QDockWidget(tr("Graphs"), this);
    m_sidebarDock->setObjectName(QStringLiteral("graphsDock"));
    m_sidebarDock->setWidget(m_sidebar);
    addDockWidget(Qt::LeftDockWidgetArea, m_sidebarDock);

    m_inspector = new NodeInspector(this);
    m_inspector->setObjectName(QStringLiteral("nodeInspector"));
    connect(m_inspector, &NodeInspector::nodeRequested, this, [this](qint64 node) {
        if (GraphPage* page = currentPage())
            page->selectNode(node);
    });
    m_inspectorDock = new QDockWidget(tr("Inspector"), this);
    m_inspectorDock->setObjectName(QStringLiteral("inspectorDock"));
    m_inspectorDock->setWidget(m_inspector);
    addDockWidget(Qt::RightDockWidgetArea, m_inspectorDock);
    resizeDocks({ m_sidebarDock, m_inspectorDock }, { 220, 340 }, Qt::Horizontal);

    // Analysis: inference, rank scatter and attention below the graphs (hidden until asked for).
    m_inferencePanel = new InferencePanel(this);
    m_inferencePanel->setObjectName(QStringLiteral("inferencePanel"));
    m_inferenceDock = new QDockWidget(tr("Inference"), this);
    m_inferenceDock->setObjectName(QStringLiteral("inferenceDock"));
    m_inferenceDock->setWidget(m_inferencePanel);
    addDockWidget(Qt::BottomDockWidgetArea, m_inferenceDock);
    m_inferenceDock->hide();
    connect(m_inferencePanel, &InferencePanel::statusMessage, this,
        [this](const QString& text) { statusBar()->showMessage(text, kStatusTimeoutMs); });
    connect(m_inferencePanel, &InferencePanel::configSelected, this, &MainWindow::overlayConfig);
    connect(m_inferencePanel, &InferencePanel::nodeOverlayChanged, this, [this](const QString& path) {
        for (int i = 0; i < m_tabs->count(); ++i)
            if (GraphPage* page = graphPage(i); page && QString::fromStdString(page->document()->path) == path)
                page->setOverlay(m_inferencePanel->nodeOverlay()); // an empty overlay removes it
    });
    connect(m_inferencePanel, &InferencePanel::openGraphRequested, this,
        [this](const QString& path) { openFiles({ path }); });

    // Explain: why the model ranks one config against another, tabbed with the inference panel.
    m_explainPanel = new ExplainPanel(this);
    m_explainPanel->setObjectName(QStringLiteral("explainPanel"));
    m_explainDock = new QDockWidget(tr("Explain"), this);
    m_explainDock->setObjectName(QStringLiteral("explainDock"));
    m_explainDock->setWidget(m_explainPanel);
    addDockWidget(Qt::BottomDockWidgetArea, m_explainDock);
    tabifyDockWidget(m_inferenceDock, m_explainDock);
    m_explainDock->hide();
    connect(m_explainPanel, &ExplainPanel::statusMessage, this,
        [this](const QString& text) { statusBar()->showMessage(text, kStatusTimeoutMs); });
    connect(m_inferencePanel, &InferencePanel::explainRequested, this, [this](const QString& a, const QString& b) {
        m_explainPanel->setContext(m_inferencePanel->explainContext());
        m_explainPanel->setConfigs(a, b);
        m_explainDock->show();
        m_explainDock->raise();
        m_explainPanel->run();
    });
    connect(m_inferencePanel, &InferencePanel::finished, this,
        [this] { m_explainPanel->setContext(m_inferencePanel->explainContext()); });
    connect(m_explainPanel, &ExplainPanel::nodeActivated, this, [this](const QString& path, qint64 node) {
        for (int i = 0; i < m_tabs->count(); ++i)
            if (GraphPage* page = graphPage(i); page && QString::fromStdString(page->document()->path) == path) {
                m_tabs->setCurrentIndex(i);
                page->selectNode(node);
                return;
            }
    });
    connect(m_explainPanel, &ExplainPanel::overlayChanged, this, [this](const QString& path) {
        for (int i = 0; i < m_tabs->count(); ++i)
            if (GraphPage* page = graphPage(i); page && QString::fromStdString(page->document()->path) == path)
                page->setOverlay(m_explainPanel->overlay()); // an empty overlay removes it
    });

    // Training runs of the open project, tabbed with the inference panel.
    m_monitor = new TrainingMonitor(this);
    m_monitor->setObjectName(QStringLiteral("trainingMonitor"));
    m_trainingDock = new QDockWidget(tr("Training runs"), this);
    m_trainingDock->setObjectName(QStringLiteral("trainingDock"));
    m_trainingDock->setWidget(m_monitor);
    addDockWidget(Qt::BottomDockWidgetArea, m_trainingDock);
    tabifyDockWidget(m_inferenceDock, m_trainingDock);
    m_trainingDock->hide();
    connect(m_monitor, &TrainingMonitor::statusMessage, this,
        [this](const QString& text) { statusBar()->showMessage(text, kStatusTimeoutMs); });
    connect(m_monitor, &TrainingMonitor::openWeightsRequested, this, [this](const QString& path) {
        m_inferencePanel->setModelFiles({ path });
        m_inferenceDock->show();
        m_inferenceDock->raise();
    });

    // The collection view: a checked TpuGraphs folder's summary, tabbed with the inference panel.
    m_collectionView = new CollectionView(this);
    m_collectionView->setObjectName(QStringLiteral("collectionView"));
    m_collectionDock = new QDockWidget(tr("Collection"), this);
    m_collectionDock->setObjectName(QStringLiteral("collectionDock"));
    m_collectionDock->setWidget(m_collectionView);
    addDockWidget(Qt::BottomDockWidgetArea, m_collectionDock);
    m_collectionDock->hide();

    // Autotune: search the layouts the model predicts fastest, tabbed with the inference panel.
    m_tunePanel = new TunePanel(this);
    m_tunePanel->setObjectName(QStringLiteral("tunePanel"));
    m_tuneDock = new QDockWidget(tr("Tune"), this);
    m_tuneDock->setObjectName(QStringLiteral("tuneDock"));
    m_tuneDock->setWidget(m_tunePanel);
    addDockWidget(Qt::BottomDockWidgetArea, m_tuneDock);
    tabifyDockWidget(m_inferenceDock, m_tuneDock);
    m_tuneDock->hide();
    connect(m_tunePanel, &TunePanel::statusMessage, this,
        [this](const QString& text) { statusBar()->showMessage(text, kStatusTimeoutMs); });
    connect(m_tunePanel, &TunePanel::overlayChanged, this, [this](const QString& path) {
        for (int i = 0; i < m_tabs->count(); ++i)
            if (GraphPage* page = graphPage(i); page && QString::fromStdString(page->document()->path) == path)
                page->setOverlay(m_tunePanel->overlay());
    });
    connect(m_tunePanel, &TunePanel::explainRequested, this, [this] {
        const ExplainRequest request = m_tunePanel->explainContext();
        m_explainPanel->setContext(request);
        m_explainPanel->setConfigs(QString::number(request.a.index), QString::number(request.b.index));
        m_explainDock->show();
        m_explainDock->raise();
        m_explainPanel->run();
    });
    connect(m_monitor, &TrainingMonitor::openWeightsRequested, this,
        [this](const QString& path) { m_tunePanel->setModelFiles({ path }); });
    // Tune reuses the model chosen in Inference, unless another one was chosen for Tune itself.
    connect(m_inferencePanel, &InferencePanel::modelFilesChanged, this, [this](const QStringList& files) {
        const QStringList tune = m_tunePanel->modelFiles();
        if (tune.isEmpty() || tune == m_sharedModel)
            m_tunePanel->setModelFiles(files);
        m_sharedModel = files;
    });
    // A poll of the monitored project that shows other runs than the sidebar: re-read at once.
    connect(m_monitor, &TrainingMonitor::snapshotShown, this, [this] {
        const QString monitored = QFileInfo(m_monitor->project()).absoluteFilePath();
        for (const ProjectInfoPtr& p : m_projects) {
            if (QFileInfo(QString::fromStdString(p->path)).absoluteFilePath() != monitored)
                continue;
            std::vector<std::pair<std::string, tgraph::RunStatus>> shown, listed;
            for (const RunRow& r : m_monitor->runsModel()->runs())
                shown.emplace_back(r.record.id, r.record.status);
            for (const tgraph::RunRecord& r : p->runs)
                if (r.parentRun.empty())
                    listed.emplace_back(r.id, r.status);
            std::sort(shown.begin(), shown.end());
            std::sort(listed.begin(), listed.end());
            if (shown != listed)
                refreshProjects();
        }
    });

    // The analysis docks share the bottom area; the first time one opens it gets half the window's
    // height, so that its charts are readable there (docs/studio.md §5).
    for (QDockWidget* dock : { m_inferenceDock, m_explainDock, m_trainingDock, m_tuneDock })
        connect(dock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
            if (visible && !m_analysisDocksSized)
                QMetaObject::invokeMethod(this, &MainWindow::sizeAnalysisDocks, Qt::QueuedConnection);
        });

    m_viewMenu->addSeparator();
    m_viewMenu->addAction(m_sidebarDock->toggleViewAction());
    m_viewMenu->addAction(m_inspectorDock->toggleViewAction());
    addDockAction(m_inferenceDock, QKeySequence(Qt::CTRL | Qt::Key_I));
    QAction* explain = addDockAction(m_explainDock, QKeySequence(Qt::CTRL | Qt::Key_Y));
    connect(explain, &QAction::triggered, this, [this] {
        if (!m_explainDock->isHidden())
            m_explainPanel->setContext(m_inferencePanel->explainContext());
    });
    QAction* tune = addDockAction(m_tuneDock, QKeySequence(Qt::CTRL | Qt::Key_U));
    connect(tune, &QAction::triggered, this, [this] {
        if (!m_tuneDock->isHidden() && m_tunePanel->modelFiles().isEmpty() && !m_sharedModel.isEmpty())
            m_tunePanel->setModelFiles(m_sharedModel);
    });
    addDockAction(m_trainingDock, QKeySequence(Qt::CTRL | Qt::Key_T));
    updateActions();
}

QAction* MainWindow::addDockAction(QDockWidget* dock, const QKeySequence& keys)
{
    // Not the dock's own toggleViewAction: toggling hid a dock that was open but behind another
    // dock's tab, which is exactly when its shortcut is pressed to bring it forward.
    auto* action = new QAction(dock->windowTitle(), this);
    action->setObjectName(dock->objectName() + QStringLiteral("Action"));
    action->setCheckable(true);
    action->setChecked(!dock->isHidden());
    action->setShortcut(keys);
    connect(dock->toggleViewAction(), &QAction::toggled, action, &QAction::setChecked);
    connect(action, &QAction::triggered, this, [this, dock, action] {
        // In front: shown, and not a tab behind another dock (Qt moves those out of sight).
        const bool inFront = !dock->isHidden() && dock->isVisible() && !dock->visibleRegion().isEmpty();
        if (inFront)
            dock->hide();
        else
            showDock(dock);
        action->setChecked(!dock->isHidden());
    });
    m_viewMenu->addAction(action);
    m_dockActions.emplace_back(dock, action);
    return action;
}

void MainWindow::showDock(QDockWidget* dock)
{
    dock->show();
    dock->raise();
    if (QWidget* content = dock->widget())
        content->setFocus(Qt::ShortcutFocusReason);
}

QAction* MainWindow::dockAction(QDockWidget* dock) const
{
    for (const auto& [d, action] : m_dockActions)
        if (d == dock)
            return action;
    return nullptr;
}

std::vector<tgraph::GraphDocumentPtr> MainWindow::documents() const
{
    std::vector<tgraph::GraphDocumentPtr> out;
    for (int i = 0; i < m_tabs->count(); ++i)
        if (GraphPage* page = graphPage(i))
            out.push_back(page->document());
    return out;
}

void MainWindow::updateAnalysisPanels()
{
    GraphPage* page = currentPage();
    m_inferencePanel->setDocuments(documents(), page ? page->document() : nullptr);
    m_tunePanel->setDocuments(documents(), page ? page->document() : nullptr);
    QStringList projects;
    for (const ProjectInfoPtr& p : m_projects)
        projects << QString::fromStdString(p->path);
    m_inferencePanel->setProjects(projects);
}

void MainWindow::overlayConfig(const QString& graphPath, qint64 config)
{
    if (m_inferencePanel->nodeOverlayActive())
        return; // the per-node attention overlay is shown instead (it follows the selection itself)
    for (int i = 0; i < m_tabs->count(); ++i) {
        GraphPage* page = graphPage(i);
        if (!page || QString::fromStdString(page->document()->path) != graphPath)
            continue;
        const tgraph::GraphDocument& doc = *page->document();
        if (doc.kind != tgraph::GraphKind::Layout || config < 0 || config >= doc.configCount())
            return;
        // Each configurable node: how many of its 18 layout values the config pins (not -1).
        NodeOverlay overlay;
        overlay.name = tr("config %1: layout values set").arg(config);
        overlay.values.assign(size_t(doc.nodeCount()), std::numeric_limits<float>::quiet_NaN());
        for (int64_t k = 0; k < doc.layout.configurableCount(); ++k) {
            const int64_t node = doc.layout.nodeConfigIds[k];
            const float* values = doc.configValues(node, config);
            overlay.values[size_t(node)] = float(std::count_if(values, values + 18, [](float v) { return v >= 0; }));
        }
        overlay.minimum = 0;
        overlay.maximum = 18;
        page->setOverlay(std::move(overlay));
        return;
    }
}

void MainWindow::updateSidebar()
{
    const QSignalBlocker blocker(m_sidebar);
    m_sidebar->clear();
    for (int i = 0; i < m_tabs->count(); ++i) {
        GraphPage* page = graphPage(i);
        if (!page)
            continue;
        const tgraph::GraphDocument& doc = *page->document();
        auto* item = new QTreeWidgetItem(m_sidebar,
            { m_tabs->tabText(i), Formatting::count(doc.nodeCount()), Formatting::count(doc.configCount()) });
        item->setToolTip(0, QDir::toNativeSeparators(QString::fromStdString(doc.path)));
        item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
        item->setTextAlignment(2, Qt::AlignRight | Qt::AlignVCenter);
        item->setData(0, Qt::UserRole, QVariant::fromValue<QObject*>(page));
        if (i == m_tabs->currentIndex())
            m_sidebar->setCurrentItem(item);
    }
    // Projects: their runs, newest first, as the runs table lists them (a cross-validation run's
    // folds count in their run); re-read every kProjectPollMs (View > Training runs shows them in full).
    for (const ProjectInfoPtr& project : m_projects) {
        std::vector<const tgraph::RunRecord*> runs;
        for (const tgraph::RunRecord& run : project->runs)
            if (run.parentRun.empty())
                runs.push_back(&run);
        auto* top = new QTreeWidgetItem(m_sidebar,
            { QFileInfo(QString::fromStdString(project->path)).fileName(), QString(),
                tr("%n run(s)", nullptr, int(runs.size())) });
        top->setToolTip(0, QDir::toNativeSeparators(QString::fromStdString(project->path)));
        QFont bold = top->font(0);
        bold.setBold(true);
        top->setFont(0, bold);
        for (const tgraph::RunRecord* r : runs) {
            const tgraph::RunRecord& run = *r;
            auto* item = new QTreeWidgetItem(top,
                { QString::fromStdString(run.name.empty() ? run.id.substr(0, 8) : run.name), QString(),
                    QString::fromLatin1(tgraph::runStatusName(run.status)) });
            item->setToolTip(0,
                tr("%1 · experiment %2").arg(QString::fromStdString(run.id), QString::fromStdString(run.experiment)));
        }
        top->setExpanded(true);
    }
    m_sidebar->setRootIsDecorated(!m_projects.empty());
    updateAnalysisPanels();
}

void MainWindow::refreshProjects()
{
    if (m_projects.empty() || m_projectPoll->isBusy())
        return;
    std::vector<std::string> paths;
    for (const ProjectInfoPtr& p : m_projects)
        paths.push_back(p->path);
    m_projectPoll->start([this, paths](JobProgress&) -> JobTracker::Continuation {
        std::vector<ProjectInfoPtr> infos;
        for (const std::string& path : paths) {
            try {
                infos.push_back(readProjectInfo(path));
            } catch (const std::exception&) {
                // gone or being replaced: the sidebar keeps what it showed
            }
        }
        return [this, infos] { onProjectsRead(infos); };
    });
}

void MainWindow::onProjectsRead(const std::vector<ProjectInfoPtr>& infos)
{
    const auto sameRuns = [](const ProjectInfo& a, const ProjectInfo& b) {
        return std::equal(a.runs.begin(), a.runs.end(), b.runs.begin(), b.runs.end(),
            [](const tgraph::RunRecord& x, const tgraph::RunRecord& y) {
                return x.id == y.id && x.name == y.name && x.status == y.status && x.parentRun == y.parentRun;
            });
    };
    bool changed = false;
    for (const ProjectInfoPtr& info : infos)
        for (ProjectInfoPtr& shown : m_projects)
            if (shown->path == info->path && !sameRuns(*shown, *info)) {
                shown = info;
                changed = true;
            }
    if (changed)
        updateSidebar();
}

void MainWindow::onProjectLoaded(const QString& path, const ProjectInfoPtr& project, qint64 elapsedMs)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    std::erase_if(m_projects, [&absolute](const ProjectInfoPtr& p) {
        return QFileInfo(QString::fromStdString(p->path)).absoluteFilePath() == absolute;
    });
    m_projects.push_back(project);
    m_sidebarDock->show();
    m_monitor->setProject(QString::fromStdString(project->path));
    m_trainingDock->show();
    m_trainingDock->raise();
    updateSidebar();
    m_recent->add(absolute);
    const auto runs = std::count_if(
        project->runs.begin(), project->runs.end(), [](const tgraph::RunRecord& r) { return r.parentRun.empty(); });
    statusBar()->showMessage(tr("Opened project %1 (%n run(s)) in %2", nullptr, int(runs))
                                 .arg(QFileInfo(path).fileName(), Formatting::duration(elapsedMs * 1000000)),
        kStatusTimeoutMs);
}

void MainWindow::updateActions()
{
    GraphPage* page = currentPage();
    for (QAction* action : { m_exportSvgAction, m_exportPngAction, m_copyImageAction, m_findAction, m_findNextAction,
             m_findPreviousAction, m_zoomInAction, m_zoomOutAction, m_fitAction })
        action->setEnabled(page);
    m_splitAction->setEnabled(page && page->document()->pruned);
    m_splitAction->setChecked(page && page->isSplit());
    m_backAction->setEnabled(page && page->canGoBack());
    m_forwardAction->setEnabled(page && page->canGoForward());
}

void MainWindow::onCurrentTabChanged()
{
    GraphPage* page = currentPage();
    if (m_connectedPage != page) {
        if (m_connectedPage) {
            disconnect(m_connectedPage, nullptr, this, nullptr);
            disconnect(m_connectedPage, nullptr, m_inspector, nullptr);
            disconnect(m_connectedPage->fullPane(), nullptr, this, nullptr);
        }
        m_connectedPage = page;
        if (page) {
            connect(page, &GraphPage::nodeSelected, m_inspector, &NodeInspector::setNode);
            connect(page, &GraphPage::historyChanged, this, &MainWindow::updateActions);
            connect(page, &GraphPage::message, this,
                [this](const QString& text) { statusBar()->showMessage(text, kStatusTimeoutMs); });
            connect(page->fullPane(), &GraphPane::layoutShown, this, &MainWindow::updateActions);
        }
        m_inspector->setDocument(page ? page->document() : nullptr);
        if (page)
            m_inspector->setNode(page->selectedNode());
    }
    updateSidebar();
    updateActions();
}

bool MainWindow::exportCurrentView(const QString& path)
{
    GraphPage* page = currentPage();
    if (!page)
        return false;
    QString error;
    const bool svg = path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive);
    const bool ok = svg ? page->exportSvg(path, &error) : page->exportPng(path, &error);
    if (!ok) {
        m_banner->addMessage(error, ErrorBanner::Severity::Error);
        return false;
    }
    statusBar()->showMessage(tr("Exported %1").arg(QDir::toNativeSeparators(path)), kStatusTimeoutMs);
    return true;
}

void MainWindow::exportWithDialog(const QString& title, const QString& suffix, const QString& filter)
{
    GraphPage* page = currentPage();
    if (!page)
        return;
    QSettings settings;
    const QString base = QFileInfo(QString::fromStdString(page->document()->path)).completeBaseName();
    const QString path = QFileDialog::getSaveFileName(this, title,
        settings.value(kExportDirKey, QDir::homePath()).toString() + QLatin1Char('/') + base + suffix, filter);
    if (path.isEmpty())
        return;
    settings.setValue(kExportDirKey, QFileInfo(path).absolutePath());
    exportCurrentView(path);
}

void MainWindow::exportSvg()
{
    exportWithDialog(tr("Export View as SVG"), QStringLiteral(".svg"), tr("SVG drawings (*.svg)"));
}

void MainWindow::exportPng()
{
    exportWithDialog(tr("Export View as PNG"), QStringLiteral(".png"), tr("PNG images (*.png)"));
}

void MainWindow::copyImage()
{
    if (GraphPage* page = currentPage()) {
        QApplication::clipboard()->setImage(page->renderImage());
        statusBar()->showMessage(tr("Copied the view as an image"), kStatusTimeoutMs);
    }
}

bool MainWindow::isLoading() const { return m_loader->isBusy(); }

QStringList MainWindow::recentFiles() const { return m_recent->files(); }

void MainWindow::openFiles(const QStringList& paths)
{
    QStringList files;
    for (const QString& path : paths) {
        if (QFileInfo(path).isDir())
            openCollectionFolder(path);
        else
            files << path;
    }
    if (!files.isEmpty())
        m_loader->enqueue(files);
}

void MainWindow::openCollectionFolder(const QString& folder)
{
    m_collectionView->openFolder(QFileInfo(folder).absoluteFilePath());
    m_collectionDock->show();
    m_collectionDock->raise();
}

void MainWindow::openFolderDialog()
{
    QSettings settings;
    const QString dir = QFileDialog::getExistingDirectory(
        this, tr("Open Collection Folder"), settings.value(kLastDirKey, QDir::homePath()).toString());
    if (dir.isEmpty())
        return;
    settings.setValue(kLastDirKey, dir);
    openCollectionFolder(dir);
}

FetchDialog* MainWindow::fetchDialog()
{
    if (!m_fetchDialog) {
        m_fetchDialog = new FetchDialog(this);
        m_fetchDialog->setObjectName(QStringLiteral("fetchDialog"));
        connect(m_fetchDialog, &FetchDialog::fetched, this, &MainWindow::openCollectionFolder);
    }
    return m_fetchDialog;
}

void MainWindow::showFetchDialog()
{
    FetchDialog* dialog = fetchDialog();
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
}

void MainWindow::openFileDialog()
{
    QSettings settings;
    const QString dir = settings.value(kLastDirKey, QDir::homePath()).toString();
    const QStringList files = QFileDialog::getOpenFileNames(this, tr("Open Graphs"), dir,
        tr("Graphs, HLO modules and projects (*.npz *.hlo *.txt *.pb *.tgproj);;TpuGraphs graphs (*.npz);;"
           "HLO text and protobuf modules (*.hlo *.txt *.pb);;TGraph projects (*.tgproj);;All files (*)"));
    if (files.isEmpty())
        return;
    settings.setValue(kLastDirKey, QFileInfo(files.front()).absolutePath());
    openFiles(files);
}

void MainWindow::closeTab(int index)
{
    QWidget* page = m_tabs->widget(index);
    if (!page)
        return;
    if (auto* graph = qobject_cast<GraphPage*>(page))
        QSettings().setValue(kSplitterKey, graph->saveSplitterState());
    m_tabs->removeTab(index);
    page->deleteLater();
    updateCentralPage();
    onCurrentTabChanged();
}

void MainWindow::closeCurrentTab() { closeTab(m_tabs->currentIndex()); }

void MainWindow::cancelLoading() { m_loader->cancelAll(); }

void MainWindow::showAboutDialog()
{
    if (!m_aboutDialog) {
        m_aboutDialog = new AboutDialog(this);
        m_aboutDialog->setAttribute(Qt::WA_DeleteOnClose);
    }
    m_aboutDialog->show();
    m_aboutDialog->raise();
    m_aboutDialog->activateWindow();
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = m_recent->files();
    for (int i = 0; i < files.size(); ++i) {
        const QString& path = files[i];
        // &1 … &9, &0 as mnemonics; '&' in names must be doubled to show literally.
        const QString name = QFileInfo(path).fileName().replace(QLatin1Char('&'), QStringLiteral("&&"));
        const QString text = i < 10 ? QStringLiteral("&%1  %2").arg((i + 1) % 10).arg(name) : name;
        QAction* action = m_recentMenu->addAction(text, this, [this, path] { openFiles({ path }); });
        action->setToolTip(QDir::toNativeSeparators(path));
        action->setStatusTip(QDir::toNativeSeparators(path));
    }
    m_recentMenu->setToolTipsVisible(true);
    if (!files.isEmpty())
        m_recentMenu->addSeparator();
    QAction* clear = m_recentMenu->addAction(tr("Clear List"), m_recent, &RecentFiles::clear);
    clear->setEnabled(!files.isEmpty());
    m_recentMenu->setEnabled(!files.isEmpty());
}

void MainWindow::updateCentralPage()
{
    const bool haveTabs = m_tabs->count() > 0;
    m_pages->setCurrentIndex(haveTabs ? 1 : 0);
    m_closeTabAction->setEnabled(haveTabs);
}

void MainWindow::onJobStarted(const QString& path, int queued)
{
    m_loadingName = QFileInfo(path).fileName();
    m_queued = queued;
    m_progressLabel->setText(queued > 0 ? tr("Loading %1 (%n more queued)…", nullptr, queued).arg(m_loadingName)
                                        : tr("Loading %1…").arg(m_loadingName));
    m_progressLabel->setToolTip(QDir::toNativeSeparators(path));
    m_progressBar->setRange(0, 0); // busy until the first report
    m_progressLabel->show();
    m_progressBar->show();
    m_cancelButton->show();
    statusBar()->clearMessage();
}

void MainWindow::onProgress(const QString& label, quint64 done, quint64 total)
{
    QString text = tr("Loading %1").arg(m_loadingName);
    // Core labels the whole-file step "loading <path>": only name steps the label does not repeat.
    if (!label.isEmpty() && !label.contains(m_loadingName))
        text += QStringLiteral(": ") + label;
    if (m_queued > 0)
        text += QLatin1Char(' ') + tr("(%n more queued)", nullptr, m_queued);
    m_progressLabel->setText(text + QStringLiteral("…"));
    if (total == 0) {
        m_progressBar->setRange(0, 0);
    } else {
        m_progressBar->setRange(0, kProgressSteps);
        m_progressBar->setValue(int(double(std::min(done, total)) / double(total) * kProgressSteps));
    }
}

void MainWindow::onLoaded(const QString& path, const tgraph::GraphDocumentPtr& document, qint64 elapsedMs)
{
    const tgraph::GraphSummary& summary = document->summary;
    QString absolute = QFileInfo(path).absoluteFilePath();
    QString name = QFileInfo(absolute).fileName();
    const QString file = absolute;
    // A TuningData or a text file split by `// -----` lines: one tab per module.
    if (summary.module && summary.module->count > 1) {
        absolute += QStringLiteral("#%1").arg(summary.module->index);
        name += QStringLiteral(" [%1]").arg(QString::fromStdString(summary.module->name));
    }

    // Re-opening a file refreshes its tab instead of adding a second one.
    int index = -1;
    for (int i = 0; i < m_tabs->count(); ++i) {
        if (m_tabs->widget(i)->property("filePath").toString() == absolute) {
            index = i;
            break;
        }
    }
    auto* view = new GraphPage(document, m_tabs);
    view->setProperty("filePath", absolute);
    const QByteArray splitter = QSettings().value(kSplitterKey).toByteArray();
    if (!splitter.isEmpty())
        view->restoreSplitterState(splitter);
    if (index >= 0) {
        QWidget* old = m_tabs->widget(index);
        m_tabs->removeTab(index);
        old->deleteLater();
        index = m_tabs->insertTab(index, view, name);
    } else {
        index = m_tabs->addTab(view, name);
    }
    m_tabs->setTabToolTip(index, QDir::toNativeSeparators(file));
    m_tabs->setCurrentIndex(index);
    updateCentralPage();
    onCurrentTabChanged();

    m_recent->add(file);
    statusBar()->showMessage(
        tr("Loaded %1 in %2").arg(name, Formatting::duration(elapsedMs * 1000000)), kStatusTimeoutMs);
}

void MainWindow::onFailed(const QString& path, const QString& message)
{
    m_banner->addMessage(message, ErrorBanner::Severity::Error);
    statusBar()->showMessage(tr("Could not load %1").arg(QFileInfo(path).fileName()), kStatusTimeoutMs);
}

void MainWindow::onCancelled(const QString& path)
{
    Q_UNUSED(path);
    statusBar()->showMessage(tr("Loading cancelled"), kStatusTimeoutMs);
}

void MainWindow::onIdle()
{
    m_loadingName.clear();
    m_queued = 0;
    m_progressLabel->hide();
    m_progressBar->hide();
    m_cancelButton->hide();
}

void MainWindow::restoreSettings()
{
    const QSettings settings;
    const QByteArray geometry = settings.value(kGeometryKey).toByteArray();
    if (geometry.isEmpty() || !restoreGeometry(geometry)) {
        // 1200x800, or less on a smaller screen: with its title bar the window must fit a
        // 1366x768 laptop (docs/studio.md §9).
        QSize size(1200, 800);
        if (const QScreen* s = screen())
            size = size.boundedTo(s->availableSize() - QSize(0, 48));
        resize(size);
    }
    // A saved layout keeps the docks' heights the user gave them.
    m_analysisDocksSized = restoreState(settings.value(kStateKey).toByteArray());
}

void MainWindow::sizeAnalysisDocks()
{
    if (m_analysisDocksSized)
        return;
    for (QDockWidget* dock : { m_inferenceDock, m_explainDock, m_trainingDock, m_tuneDock })
        if (dock->isVisible() && !dock->isFloating()) {
            m_analysisDocksSized = true;
            const int wanted = height() / 2;
            if (dock->height() < wanted)
                resizeDocks({ dock }, { wanted }, Qt::Vertical);
            return;
        }
}

void MainWindow::saveSettings() const
{
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState());
    if (GraphPage* page = currentPage())
        settings.setValue(kSplitterKey, page->saveSplitterState());
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    saveSettings();
    m_loader->cancelAll();
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (!localFiles(event->mimeData()).isEmpty())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const QStringList files = localFiles(event->mimeData());
    if (files.isEmpty())
        return;
    event->acceptProposedAction();
    openFiles(files);
}
