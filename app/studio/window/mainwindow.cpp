// SPDX-License-Identifier: Apache-2.0
#include "app/studio/window/mainwindow.h"

#include "app/studio/analysis/explainpanel.h"
#include "app/studio/analysis/inferencepanel.h"
#include "app/studio/analysis/tunepanel.h"
#include "app/studio/common/recentfiles.h"
#include "app/studio/common/studiolog.h"
#include "app/studio/data/collectionview.h"
#include "app/studio/data/fetchdialog.h"
#include "app/studio/dump/dumpfollower.h"
#include "app/studio/graph/graphloader.h"
#include "app/studio/pages/analysispage.h"
#include "app/studio/pages/diffpage.h"
#include "app/studio/pages/graphspage.h"
#include "app/studio/pages/passespage.h"
#include "app/studio/pages/runspage.h"
#include "app/studio/runs/trainingmonitor.h"
#include "app/studio/window/aboutdialog.h"

#include "widgets/common/errorbanner.h"
#include "widgets/common/formatting.h"
#include "widgets/common/modebar.h"
#include "widgets/graph/graphpage.h"
#include "widgets/graph/graphpane.h"
#include "widgets/graph/graphsummaryview.h"
#include "widgets/graph/graphview.h"
#include "widgets/graph/nodeinspector.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QProgressBar>
#include <QScreen>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace tgraph::studio {

using namespace tgraph::widgets;

using tgraph::studio::AnalysisPage;
using tgraph::studio::DiffPage;
using tgraph::studio::GraphsPage;
using tgraph::studio::PassesPage;
using tgraph::studio::RunsPage;
using tgraph::studio::StudioSession;

namespace {

const QString kGeometryKey = QStringLiteral("MainWindow/geometry");
const QString kMaximizedKey = QStringLiteral("MainWindow/maximized");
const QString kPageKey = QStringLiteral("MainWindow/page");
const QString kLastDirKey = QStringLiteral("MainWindow/lastDirectory");
const QString kGraphsStateKey = QStringLiteral("GraphsPage/splitter");
const QString kAnalysisStateKey = QStringLiteral("AnalysisPage/splitter");
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
    , m_session(new StudioSession(this))
    , m_loader(new GraphLoader(this))
    , m_recent(new RecentFiles(this))
    , m_banner(new ErrorBanner(this))
    , m_modeBar(new tgraph::widgets::ModeBar(this))
    , m_pages(new QStackedWidget(this))
{
    setObjectName(QStringLiteral("MainWindow"));
    setWindowTitle(tr("TGraph Studio"));
    setAcceptDrops(true);

    setupPages();
    setupActions();
    setupStatusBar();

    connect(m_loader, &GraphLoader::jobStarted, this, &MainWindow::onJobStarted);
    connect(m_loader, &GraphLoader::progressChanged, this, &MainWindow::onProgress);
    connect(m_loader, &GraphLoader::loaded, this, &MainWindow::onLoaded);
    connect(m_loader, &GraphLoader::projectLoaded, this, &MainWindow::onProjectLoaded);
    connect(m_loader, &GraphLoader::failed, this, &MainWindow::onFailed);
    connect(m_loader, &GraphLoader::cancelled, this, &MainWindow::onCancelled);
    connect(m_loader, &GraphLoader::idle, this, &MainWindow::onIdle);
    connect(m_recent, &RecentFiles::changed, this, &MainWindow::updateRecentMenu);

    connect(m_session, &StudioSession::openRequested, this, &MainWindow::openFiles);
    connect(m_session, &StudioSession::pageRequested, this, &MainWindow::showPage);
    connect(m_session, &StudioSession::statusMessage, this, &MainWindow::showStatus);

    updateRecentMenu();
    restoreSettings();
    updateActions();
}

MainWindow::~MainWindow()
{
    // The pages before the session they talk through: their views still report while they go.
    delete takeCentralWidget();
}

void MainWindow::setupPages()
{
    m_graphsPage = new GraphsPage(m_session, this);
    m_analysisPage = new AnalysisPage(m_session, this);
    m_runsPage = new RunsPage(m_session, this);
    m_passesPage = new PassesPage(m_session, this);
    m_diffPage = new DiffPage(m_session, this);
    m_collectionView = new CollectionView(this);
    m_collectionView->setObjectName(QStringLiteral("collectionView"));
    m_pages->setObjectName(QStringLiteral("studioPages"));
    m_pages->addWidget(m_graphsPage); // Page::Graph
    m_pages->addWidget(m_analysisPage); // Page::Analysis
    m_pages->addWidget(m_runsPage); // Page::Runs
    m_pages->addWidget(m_collectionView); // Page::Data
    m_pages->addWidget(m_passesPage); // Page::Passes
    m_pages->addWidget(m_diffPage); // Page::Diff

    m_modeBar->addMode(tr("Graph"), QIcon::fromTheme(QStringLiteral("view-list-tree")),
        tr("The graph canvas, the inspector and the open graphs (Ctrl+1)"));
    m_modeBar->addMode(tr("Analysis"), QIcon::fromTheme(QStringLiteral("office-chart-line")),
        tr("Inference, Explain and Tune with a model (Ctrl+2)"));
    m_modeBar->addMode(tr("Runs"), QIcon::fromTheme(QStringLiteral("view-statistics")),
        tr("The training runs of the open project (Ctrl+3)"));
    m_modeBar->addMode(tr("Data"), QIcon::fromTheme(QStringLiteral("folder")),
        tr("A checked TpuGraphs collection folder (Ctrl+4)"));
    m_modeBar->addMode(tr("Passes"), QIcon::fromTheme(QStringLiteral("view-process-tree")),
        tr("An XLA dump folder: its modules, what each pass changed, one instruction's history (Ctrl+5)"));
    m_modeBar->addMode(tr("Diff"), QIcon::fromTheme(QStringLiteral("view-split-left-right")),
        tr("Two HLO modules side by side, kept in sync through their diff (Ctrl+6)"));
    connect(m_modeBar, &tgraph::widgets::ModeBar::currentChanged, this, [this](int index) { showPage(Page(index)); });

    connect(m_graphsPage, &GraphsPage::currentPageChanged, this, &MainWindow::onCurrentGraphChanged);
    connect(m_graphsPage, &GraphsPage::countChanged, this, &MainWindow::updateActions);
    connect(m_graphsPage, &GraphsPage::openRequested, this, &MainWindow::openFileDialog);

    auto* central = new QWidget(this);
    auto* row = new QHBoxLayout(central);
    row->setContentsMargins(0, 0, 0, 0);
    row->setSpacing(0);
    row->addWidget(m_modeBar);
    auto* column = new QVBoxLayout;
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(0);
    auto* bannerMargins = new QVBoxLayout;
    bannerMargins->setContentsMargins(6, 4, 6, 0);
    bannerMargins->addWidget(m_banner);
    column->addLayout(bannerMargins);
    column->addWidget(m_pages, 1);
    row->addLayout(column, 1);
    setCentralWidget(central);
}

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

    QAction* openDump = file->addAction(QIcon::fromTheme(QStringLiteral("folder-open")), tr("Open &Dump Folder…"),
        this, &MainWindow::openDumpFolderDialog);
    openDump->setObjectName(QStringLiteral("openDumpFolderAction"));
    openDump->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D));
    openDump->setToolTip(tr("Follow an XLA dump folder (--xla_dump_to) on the Passes page"));
    QAction* compare = file->addAction(
        QIcon::fromTheme(QStringLiteral("view-split-left-right")), tr("&Compare Modules…"), this, [this] {
            showPage(Page::Diff);
            m_diffPage->chooseFiles();
        });
    compare->setObjectName(QStringLiteral("compareModulesAction"));
    compare->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_D));
    compare->setToolTip(tr("Diff two HLO modules (text, protobuf, .gz / .xz dump stages) side by side"));

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

    // View and navigation act on the current tab's graph (the pane used last in the split view);
    // they bring the Graph page forward first.
    const auto onPage = [this](auto function) {
        return [this, function] {
            showPage(Page::Graph);
            if (GraphPage* page = currentPage())
                function(page);
        };
    };
    const auto onView = [this](auto function) {
        return [this, function] {
            showPage(Page::Graph);
            if (GraphPage* page = currentPage())
                function(page->currentPane()->view());
        };
    };
    QMenu* view = menuBar()->addMenu(tr("&View"));
    m_viewMenu = view;
    const struct {
        Page page;
        QString text;
        Qt::Key key;
    } pages[] = {
        { Page::Graph, tr("&Graph Page"), Qt::Key_1 },
        { Page::Analysis, tr("&Analysis Page"), Qt::Key_2 },
        { Page::Runs, tr("&Runs Page"), Qt::Key_3 },
        { Page::Data, tr("&Data Page"), Qt::Key_4 },
        { Page::Passes, tr("&Passes Page"), Qt::Key_5 },
        { Page::Diff, tr("D&iff Page"), Qt::Key_6 },
    };
    for (const auto& p : pages) {
        QAction* action = view->addAction(p.text, this, [this, page = p.page] { showPage(page); });
        action->setObjectName(QStringLiteral("pageAction%1").arg(int(p.page)));
        action->setShortcut(QKeySequence(Qt::CTRL | p.key));
        action->setCheckable(true);
        m_pageActions.push_back(action);
    }
    view->addSeparator();
    const struct {
        AnalysisView view;
        QString text;
        Qt::Key key;
    } analyses[] = {
        { AnalysisView::Inference, tr("&Inference"), Qt::Key_I },
        { AnalysisView::Explain, tr("&Explain"), Qt::Key_Y },
        { AnalysisView::Tune, tr("T&une"), Qt::Key_U },
    };
    for (const auto& a : analyses) {
        QAction* action = view->addAction(a.text, this, [this, v = a.view] { showAnalysis(v); });
        action->setObjectName(QStringLiteral("analysisAction%1").arg(int(a.view)));
        action->setShortcut(QKeySequence(Qt::CTRL | a.key));
        m_analysisActions.push_back(action);
    }
    QAction* runs = view->addAction(tr("&Training Runs"), this, [this] { showPage(Page::Runs); });
    runs->setObjectName(QStringLiteral("trainingRunsAction"));
    runs->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
    view->addSeparator();
    view->addAction(m_graphsPage->graphListAction());
    view->addAction(m_graphsPage->inspectorAction());
    view->addSeparator();

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
        showPage(Page::Graph);
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
    statusBar()->addPermanentWidget(m_diffPage->progressWidget()); // the Diff page's job (docs/studio.md §11)
    m_progressLabel->hide();
    m_progressBar->hide();
    m_cancelButton->hide();
}

void MainWindow::showStatus(const QString& text) { statusBar()->showMessage(text, kStatusTimeoutMs); }

void MainWindow::showPage(Page page)
{
    const int index = int(page);
    if (index < 0 || index >= m_pages->count())
        return;
    m_pages->setCurrentIndex(index);
    m_modeBar->setCurrentIndex(index);
    for (size_t i = 0; i < m_pageActions.size(); ++i)
        m_pageActions[i]->setChecked(int(i) == index);
}

MainWindow::Page MainWindow::currentStudioPage() const { return Page(m_pages->currentIndex()); }

QAction* MainWindow::pageAction(Page page) const
{
    const auto index = size_t(page);
    return index < m_pageActions.size() ? m_pageActions[index] : nullptr;
}

QAction* MainWindow::analysisAction(AnalysisView view) const
{
    const auto index = size_t(view);
    return index < m_analysisActions.size() ? m_analysisActions[index] : nullptr;
}

void MainWindow::showAnalysis(AnalysisView view)
{
    m_analysisPage->showView(view);
    showPage(Page::Analysis);
}

QTabWidget* MainWindow::tabWidget() const { return m_graphsPage->tabWidget(); }

GraphSummaryView* MainWindow::summaryView(int index) const
{
    GraphPage* page = graphPage(index);
    return page ? page->summaryView() : nullptr;
}

GraphPage* MainWindow::graphPage(int index) const { return m_graphsPage->graphPage(index); }

GraphPage* MainWindow::currentPage() const { return m_graphsPage->currentPage(); }

NodeInspector* MainWindow::inspector() const { return m_graphsPage->inspector(); }

QTreeWidget* MainWindow::sidebar() const { return m_graphsPage->sidebar(); }

InferencePanel* MainWindow::inferencePanel() const { return m_analysisPage->inferencePanel(); }

ExplainPanel* MainWindow::explainPanel() const { return m_analysisPage->explainPanel(); }

TunePanel* MainWindow::tunePanel() const { return m_analysisPage->tunePanel(); }

TrainingMonitor* MainWindow::trainingMonitor() const { return m_runsPage->monitor(); }

std::vector<tgraph::GraphDocumentPtr> MainWindow::documents() const { return m_graphsPage->documents(); }

const std::vector<ProjectInfoPtr>& MainWindow::projects() const { return m_session->projects(); }

void MainWindow::refreshProjects() { m_session->refreshProjects(); }

void MainWindow::onProjectLoaded(const QString& path, const ProjectInfoPtr& project, qint64 elapsedMs)
{
    m_session->addProject(project);
    m_recent->add(QFileInfo(path).absoluteFilePath());
    showPage(Page::Runs);
    const auto runs = std::count_if(
        project->runs.begin(), project->runs.end(), [](const tgraph::RunRecord& r) { return r.parentRun.empty(); });
    showStatus(tr("Opened project %1 (%n run(s)) in %2", nullptr, int(runs))
                   .arg(QFileInfo(path).fileName(), Formatting::duration(elapsedMs * 1000000)));
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
    m_closeTabAction->setEnabled(tabWidget()->count() > 0);
}

void MainWindow::onCurrentGraphChanged()
{
    GraphPage* page = currentPage();
    if (m_connectedPage != page) {
        if (m_connectedPage) {
            disconnect(m_connectedPage, nullptr, this, nullptr);
            disconnect(m_connectedPage->fullPane(), nullptr, this, nullptr);
        }
        m_connectedPage = page;
        if (page) {
            connect(page, &GraphPage::historyChanged, this, &MainWindow::updateActions);
            connect(page, &GraphPage::message, this, &MainWindow::showStatus);
            connect(page->fullPane(), &GraphPane::layoutShown, this, &MainWindow::updateActions);
        }
    }
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
    showStatus(tr("Exported %1").arg(QDir::toNativeSeparators(path)));
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
        showStatus(tr("Copied the view as an image"));
    }
}

bool MainWindow::isLoading() const { return m_loader->isBusy(); }

QStringList MainWindow::recentFiles() const { return m_recent->files(); }

void MainWindow::openFiles(const QStringList& paths)
{
    QStringList files;
    for (const QString& path : paths) {
        if (QFileInfo(path).isDir() && tgraph::studio::looksLikeDumpFolder(path))
            openDumpFolder(path);
        else if (QFileInfo(path).isDir())
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
    showPage(Page::Data);
}

void MainWindow::openDumpFolder(const QString& folder)
{
    const QString absolute = QFileInfo(folder).absoluteFilePath();
    m_passesPage->openFolder(absolute);
    m_recent->add(absolute);
    showPage(Page::Passes);
}

void MainWindow::openDumpFolderDialog()
{
    QSettings settings;
    const QString dir = QFileDialog::getExistingDirectory(
        this, tr("Open Dump Folder"), settings.value(kLastDirKey, QDir::homePath()).toString());
    if (dir.isEmpty())
        return;
    settings.setValue(kLastDirKey, dir);
    openDumpFolder(dir);
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
    if (auto* graph = graphPage(index))
        QSettings().setValue(kSplitterKey, graph->saveSplitterState());
    m_graphsPage->closeTab(index);
}

void MainWindow::closeCurrentTab() { closeTab(tabWidget()->currentIndex()); }

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
    QString key = QFileInfo(path).absoluteFilePath();
    QString name = QFileInfo(key).fileName();
    const QString file = key;
    // A TuningData or a text file split by `// -----` lines: one tab per module.
    if (summary.module && summary.module->count > 1) {
        key += QStringLiteral("#%1").arg(summary.module->index);
        name += QStringLiteral(" [%1]").arg(QString::fromStdString(summary.module->name));
    }
    m_graphsPage->showDocument(document, key, name, QDir::toNativeSeparators(file));
    if (GraphPage* page = currentPage()) {
        const QByteArray splitter = QSettings().value(kSplitterKey).toByteArray();
        if (!splitter.isEmpty())
            page->restoreSplitterState(splitter);
    }
    showPage(Page::Graph);
    m_recent->add(file);
    showStatus(tr("Loaded %1 in %2").arg(name, Formatting::duration(elapsedMs * 1000000)));
}

void MainWindow::onFailed(const QString& path, const QString& message)
{
    m_banner->addMessage(message, ErrorBanner::Severity::Error);
    showStatus(tr("Could not load %1").arg(QFileInfo(path).fileName()));
}

void MainWindow::onCancelled(const QString& path)
{
    Q_UNUSED(path);
    showStatus(tr("Loading cancelled"));
}

void MainWindow::onIdle()
{
    m_loadingName.clear();
    m_queued = 0;
    m_progressLabel->hide();
    m_progressBar->hide();
    m_cancelButton->hide();
}

QSize MainWindow::freshSize(const QScreen* screen)
{
    // A laptop screen (up to 1440 x 900): all of it but a title bar's height; a bigger one: 80 % of
    // it, at least 1280 x 800 where that fits (docs/studio.md §9).
    if (!screen)
        return QSize(1280, 800);
    const QSize available = screen->availableSize();
    if (available.width() <= 1440 || available.height() <= 900)
        return available - QSize(0, 40);
    return QSize(std::max(available.width() * 4 / 5, 1280), std::max(available.height() * 4 / 5, 800))
        .boundedTo(available - QSize(0, 40));
}

void MainWindow::showAtStart()
{
    // Opened for the first time on a laptop screen: maximized, so that the canvas gets every pixel.
    const QScreen* s = screen();
    const bool laptop = s && (s->availableSize().width() <= 1440 || s->availableSize().height() <= 900);
    if (laptop && !m_geometryRestored)
        showMaximized();
    else
        show();
}

void MainWindow::placeOnScreen()
{
    const QScreen* s = screen();
    const QSize size = freshSize(s);
    resize(size);
    if (s) {
        const QRect available = s->availableGeometry();
        move(available.left() + (available.width() - size.width()) / 2, available.top());
    }
}

void MainWindow::restoreSettings()
{
    const QSettings settings;
    const QByteArray geometry = settings.value(kGeometryKey).toByteArray();
    m_geometryRestored = !geometry.isEmpty() && restoreGeometry(geometry);
    if (!m_geometryRestored)
        placeOnScreen();
    else if (settings.value(kMaximizedKey, false).toBool())
        setWindowState(windowState() | Qt::WindowMaximized);
    m_graphsPage->restoreState(settings.value(kGraphsStateKey).toByteArray());
    m_analysisPage->restoreState(settings.value(kAnalysisStateKey).toByteArray());
    const int page = settings.value(kPageKey, 0).toInt();
    // The Graph page, unless the window closed on the Analysis or Runs page (Data needs a folder).
    showPage(page == int(Page::Analysis) || page == int(Page::Runs) ? Page(page) : Page::Graph);
}

void MainWindow::saveSettings() const
{
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kMaximizedKey, isMaximized());
    settings.setValue(kPageKey, int(currentStudioPage()));
    settings.setValue(kGraphsStateKey, m_graphsPage->saveState());
    settings.setValue(kAnalysisStateKey, m_analysisPage->saveState());
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
    // Two files dropped while the Diff page shows: compared, not opened (docs/studio.md §11).
    if (currentStudioPage() == Page::Diff && files.size() == 2) {
        m_session->requestDiff(files[0], files[1]);
        return;
    }
    openFiles(files);
}

} // namespace tgraph::studio
