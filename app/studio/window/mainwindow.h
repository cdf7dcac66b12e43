// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QMainWindow>
#include <QPointer>

#include "app/studio/common/projectinfo.h"

#include "core/view/graphdocument.h"

class AboutDialog;
class CollectionView;
class FetchDialog;
class ErrorBanner;
class JobChannel;
class GraphLoader;
class GraphPage;
class GraphSummaryView;
class ExplainPanel;
class InferencePanel;
class TrainingMonitor;
class TunePanel;
class NodeInspector;
class QDockWidget;
class QTreeWidget;
class QAction;
class QLabel;
class QMenu;
class QProgressBar;
class QStackedWidget;
class QTabWidget;
class QTimer;
class QToolButton;
class RecentFiles;

// The studio window: one tab per opened graph (a GraphPage: graph view, before/after pruning,
// summary), a sidebar listing the open graphs, a dockable node inspector; loads in the background
// with progress and cancel in the status bar, load errors inline in a banner above the tabs.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Queues the files for loading; each successful load adds (or refreshes) a tab.
    void openFiles(const QStringList& paths);

    QTabWidget* tabWidget() const { return m_tabs; }
    ErrorBanner* errorBanner() const { return m_banner; }
    GraphLoader* loader() const { return m_loader; }
    // The summary shown in tab `index`, nullptr when out of range.
    GraphSummaryView* summaryView(int index) const;
    GraphPage* graphPage(int index) const;
    GraphPage* currentPage() const;
    NodeInspector* inspector() const { return m_inspector; }
    QTreeWidget* sidebar() const { return m_sidebar; }
    QDockWidget* inspectorDock() const { return m_inspectorDock; }
    InferencePanel* inferencePanel() const { return m_inferencePanel; }
    QDockWidget* inferenceDock() const { return m_inferenceDock; }
    ExplainPanel* explainPanel() const { return m_explainPanel; }
    QDockWidget* explainDock() const { return m_explainDock; }
    TrainingMonitor* trainingMonitor() const { return m_monitor; }
    QDockWidget* trainingDock() const { return m_trainingDock; }
    TunePanel* tunePanel() const { return m_tunePanel; }
    QDockWidget* tuneDock() const { return m_tuneDock; }
    // File > Open Folder… and folders dropped or named on the command line: the collection view
    // (the checks of `tgraph data verify`, docs/formats.md §16.4) in its dock.
    void openCollectionFolder(const QString& folder);
    CollectionView* collectionView() const { return m_collectionView; }
    QDockWidget* collectionDock() const { return m_collectionDock; }
    // Data > Fetch TpuGraphs… (created on first use, kept while the window lives).
    FetchDialog* fetchDialog();
    // Every open graph, in tab order.
    std::vector<tgraph::GraphDocumentPtr> documents() const;
    const std::vector<ProjectInfoPtr>& projects() const { return m_projects; }
    // The View menu's action for a dock (Ctrl+I, Ctrl+Y, Ctrl+U, Ctrl+T): it brings the dock forward
    // when it is hidden or behind another dock's tab, and hides it when it is already in front.
    QAction* dockAction(QDockWidget* dock) const;
    // Re-reads the open projects for the sidebar now (it does so every kProjectPollMs anyway).
    void refreshProjects();
    static constexpr int kProjectPollMs = 2000;
    bool isLoading() const;
    // Existing recently opened files, newest first.
    QStringList recentFiles() const;

public Q_SLOTS:
    void openFileDialog();
    void openFolderDialog();
    void showFetchDialog();
    void closeTab(int index);
    void closeCurrentTab();
    void cancelLoading();
    void showAboutDialog();
    void exportSvg();
    void exportPng();
    void copyImage();
    // Exports the current graph view; false with a banner message on failure.
    bool exportCurrentView(const QString& path);

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void setupActions();
    void setupStatusBar();
    QWidget* createEmptyState();
    void updateRecentMenu();
    void updateCentralPage();
    void restoreSettings();
    void saveSettings() const;
    void sizeAnalysisDocks();

    void onJobStarted(const QString& path, int queued);
    void onProgress(const QString& label, quint64 done, quint64 total);
    void onLoaded(const QString& path, const tgraph::GraphDocumentPtr& document, qint64 elapsedMs);
    void onProjectLoaded(const QString& path, const ProjectInfoPtr& project, qint64 elapsedMs);
    void onCurrentTabChanged();
    void exportWithDialog(const QString& title, const QString& suffix, const QString& filter);
    void updateSidebar();
    void updateActions();
    void setupDocks();
    void onFailed(const QString& path, const QString& message);
    void onCancelled(const QString& path);
    void onIdle();
    void updateAnalysisPanels();
    QAction* addDockAction(QDockWidget* dock, const QKeySequence& keys);
    void showDock(QDockWidget* dock);
    void onProjectsRead(const std::vector<ProjectInfoPtr>& infos);
    // Colours the configurable nodes of `graphPath`'s tab by config `config`'s layout choices.
    void overlayConfig(const QString& graphPath, qint64 config);

    CollectionView* m_collectionView = nullptr;
    QDockWidget* m_collectionDock = nullptr;
    FetchDialog* m_fetchDialog = nullptr;
    GraphLoader* m_loader = nullptr;
    RecentFiles* m_recent = nullptr;
    ErrorBanner* m_banner = nullptr;
    QStackedWidget* m_pages = nullptr;
    QTabWidget* m_tabs = nullptr;

    QMenu* m_recentMenu = nullptr;
    QMenu* m_viewMenu = nullptr;
    QAction* m_openAction = nullptr;
    QAction* m_closeTabAction = nullptr;
    QAction* m_quitAction = nullptr;
    QAction* m_aboutAction = nullptr;
    QAction* m_exportSvgAction = nullptr;
    QAction* m_exportPngAction = nullptr;
    QAction* m_copyImageAction = nullptr;
    QAction* m_findAction = nullptr;
    QAction* m_findNextAction = nullptr;
    QAction* m_findPreviousAction = nullptr;
    QAction* m_zoomInAction = nullptr;
    QAction* m_zoomOutAction = nullptr;
    QAction* m_fitAction = nullptr;
    QAction* m_splitAction = nullptr;
    QAction* m_backAction = nullptr;
    QAction* m_forwardAction = nullptr;

    QDockWidget* m_sidebarDock = nullptr;
    QTreeWidget* m_sidebar = nullptr;
    QDockWidget* m_inspectorDock = nullptr;
    NodeInspector* m_inspector = nullptr;
    QDockWidget* m_inferenceDock = nullptr;
    InferencePanel* m_inferencePanel = nullptr;
    QDockWidget* m_explainDock = nullptr;
    ExplainPanel* m_explainPanel = nullptr;
    QDockWidget* m_trainingDock = nullptr;
    TunePanel* m_tunePanel = nullptr;
    QDockWidget* m_tuneDock = nullptr;
    TrainingMonitor* m_monitor = nullptr;
    bool m_analysisDocksSized = false; // the bottom docks got their default height (or a saved one)
    QPointer<GraphPage> m_connectedPage;
    std::vector<ProjectInfoPtr> m_projects; // opened project files, shown in the sidebar
    JobChannel* m_projectPoll = nullptr; // re-reads them, so the sidebar follows runs added or ended
    QTimer* m_projectTimer = nullptr;
    std::vector<std::pair<QDockWidget*, QAction*>> m_dockActions;
    QStringList m_sharedModel; // the model Inference last passed to Tune (Tune follows while it has it)

    QLabel* m_progressLabel = nullptr;
    QProgressBar* m_progressBar = nullptr;
    QToolButton* m_cancelButton = nullptr;
    QString m_loadingName;
    int m_queued = 0;

    QPointer<AboutDialog> m_aboutDialog;
};
