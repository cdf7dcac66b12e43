// SPDX-License-Identifier: Apache-2.0
#include "mainwindow.h"

#include "aboutdialog.h"
#include "graphloader.h"
#include "recentfiles.h"
#include "studiolog.h"

#include "widgets/errorbanner.h"
#include "widgets/formatting.h"
#include "widgets/graphsummaryview.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyle>
#include <QTabBar>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace {

const QString kGeometryKey = QStringLiteral("MainWindow/geometry");
const QString kStateKey = QStringLiteral("MainWindow/state");
const QString kLastDirKey = QStringLiteral("MainWindow/lastDirectory");
constexpr int kStatusTimeoutMs = 8000;
constexpr int kProgressSteps = 1000;

QStringList localFiles(const QMimeData* mime)
{
    QStringList files;
    if (!mime || !mime->hasUrls())
        return files;
    const QList<QUrl> urls = mime->urls();
    for (const QUrl& url : urls) {
        if (url.isLocalFile() && !QFileInfo(url.toLocalFile()).isDir())
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

    connect(m_loader, &GraphLoader::jobStarted, this, &MainWindow::onJobStarted);
    connect(m_loader, &GraphLoader::progressChanged, this, &MainWindow::onProgress);
    connect(m_loader, &GraphLoader::loaded, this, &MainWindow::onLoaded);
    connect(m_loader, &GraphLoader::failed, this, &MainWindow::onFailed);
    connect(m_loader, &GraphLoader::cancelled, this, &MainWindow::onCancelled);
    connect(m_loader, &GraphLoader::idle, this, &MainWindow::onIdle);
    connect(m_recent, &RecentFiles::changed, this, &MainWindow::updateRecentMenu);

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

    m_recentMenu = file->addMenu(QIcon::fromTheme(QStringLiteral("document-open-recent")), tr("Open &Recent"));
    m_recentMenu->setObjectName(QStringLiteral("recentMenu"));
    // Re-check on every show: files may have vanished since the menu was last built.
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::updateRecentMenu);

    file->addSeparator();
    m_closeTabAction = file->addAction(
        QIcon::fromTheme(QStringLiteral("tab-close")), tr("&Close Tab"), this, &MainWindow::closeCurrentTab);
    m_closeTabAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_W));

    file->addSeparator();
    m_quitAction
        = file->addAction(QIcon::fromTheme(QStringLiteral("application-exit")), tr("&Quit"), this, &QWidget::close);
    m_quitAction->setShortcut(QKeySequence::Quit);
    m_quitAction->setMenuRole(QAction::QuitRole);

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
    return qobject_cast<GraphSummaryView*>(m_tabs->widget(index));
}

bool MainWindow::isLoading() const { return m_loader->isBusy(); }

QStringList MainWindow::recentFiles() const { return m_recent->files(); }

void MainWindow::openFiles(const QStringList& paths)
{
    if (!paths.isEmpty())
        m_loader->enqueue(paths);
}

void MainWindow::openFileDialog()
{
    QSettings settings;
    const QString dir = settings.value(kLastDirKey, QDir::homePath()).toString();
    const QStringList files = QFileDialog::getOpenFileNames(this, tr("Open Graphs"), dir,
        tr("Graphs and HLO modules (*.npz *.hlo *.txt *.pb);;TpuGraphs graphs (*.npz);;"
           "HLO text and protobuf modules (*.hlo *.txt *.pb);;All files (*)"));
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
    m_tabs->removeTab(index);
    page->deleteLater();
    updateCentralPage();
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

void MainWindow::onLoaded(const QString& path, const tgraph::GraphSummary& summary, qint64 elapsedMs)
{
    QString absolute = QFileInfo(path).absoluteFilePath();
    QString name = QFileInfo(absolute).fileName();
    const QString file = absolute;
    if (summary.module && summary.module->count > 1) { // a TuningData: one tab per module
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
    auto* view = new GraphSummaryView(m_tabs);
    view->setProperty("filePath", absolute);
    view->setSummary(summary);
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
    if (geometry.isEmpty() || !restoreGeometry(geometry))
        resize(1200, 800);
    restoreState(settings.value(kStateKey).toByteArray());
}

void MainWindow::saveSettings() const
{
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState());
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
