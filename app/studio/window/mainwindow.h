// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "app/studio/common/projectinfo.h"
#include "app/studio/session/studiosession.h"

#include "core/view/graphdocument.h"

#include <QMainWindow>
#include <QPointer>

class QAction;
class QLabel;
class QMenu;
class QProgressBar;
class QScreen;
class QStackedWidget;
class QTabWidget;
class QToolButton;
class QTreeWidget;

namespace tgraph::widgets {
class ErrorBanner;
class GraphPage;
class GraphSummaryView;
class ModeBar;
class NodeInspector;
}

namespace tgraph::studio {

class AboutDialog;
class CollectionView;
class ExplainPanel;
class FetchDialog;
class GraphLoader;
class InferencePanel;
class RecentFiles;
class TrainingMonitor;
class TunePanel;

class AnalysisPage;
class GraphsPage;
class PassesPage;
class RunsPage;
class DiffPage;

// The studio window (docs/studio.md §0): full-window pages — Graph, Analysis, Runs, Data, Passes — picked
// on the mode bar at the left edge, with the menus, the status bar (loading progress and Cancel)
// and the error banner above the pages. It arranges the pages and opens files; what the pages and
// panels share and ask of each other goes through the StudioSession.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    using Page = tgraph::studio::Page;
    using AnalysisView = tgraph::studio::AnalysisView;

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Shows the window as the studio starts: maximized on a laptop screen (up to 1440 x 900) the
    // first time, else at its restored or fresh size (docs/studio.md §9).
    void showAtStart();
    // The size of a first window on `screen`.
    static QSize freshSize(const QScreen* screen);

    // Queues the files for loading; each successful load adds (or refreshes) a tab. Folders open
    // on the Passes page when named like XLA dump folders, else as collections on the Data page.
    void openFiles(const QStringList& paths);

    tgraph::studio::StudioSession* session() const { return m_session; }
    void showPage(Page page);
    Page currentStudioPage() const;
    // The View menu's action for a page (Ctrl+1 .. Ctrl+5) and for an analysis view (Ctrl+I,
    // Ctrl+Y, Ctrl+U): it brings the page (and view) forward.
    QAction* pageAction(Page page) const;
    QAction* analysisAction(AnalysisView view) const;
    void showAnalysis(AnalysisView view);

    tgraph::studio::GraphsPage* graphsPage() const { return m_graphsPage; }
    tgraph::studio::AnalysisPage* analysisPage() const { return m_analysisPage; }
    tgraph::studio::RunsPage* runsPage() const { return m_runsPage; }
    tgraph::studio::PassesPage* passesPage() const { return m_passesPage; }
    tgraph::studio::DiffPage* diffPage() const { return m_diffPage; }
    QStackedWidget* pages() const { return m_pages; }
    tgraph::widgets::ModeBar* modeBar() const { return m_modeBar; }

    QTabWidget* tabWidget() const;
    widgets::ErrorBanner* errorBanner() const { return m_banner; }
    GraphLoader* loader() const { return m_loader; }
    // The summary shown in tab `index`, nullptr when out of range.
    widgets::GraphSummaryView* summaryView(int index) const;
    widgets::GraphPage* graphPage(int index) const;
    widgets::GraphPage* currentPage() const;
    widgets::NodeInspector* inspector() const;
    QTreeWidget* sidebar() const;
    InferencePanel* inferencePanel() const;
    ExplainPanel* explainPanel() const;
    TunePanel* tunePanel() const;
    TrainingMonitor* trainingMonitor() const;
    // File > Open Folder… and folders dropped or named on the command line: the collection view
    // (the checks of `tgraph data verify`, docs/formats.md §16.4) on the Data page.
    void openCollectionFolder(const QString& folder);
    CollectionView* collectionView() const { return m_collectionView; }
    // File > Open Dump Folder…, and folders named like XLA dump folders dropped, named on the
    // command line or reopened from the recent list: the Passes page follows it (docs/studio.md §10).
    void openDumpFolder(const QString& folder);
    // Data > Fetch TpuGraphs… (created on first use, kept while the window lives).
    FetchDialog* fetchDialog();
    // Every open graph, in tab order.
    std::vector<tgraph::GraphDocumentPtr> documents() const;
    const std::vector<ProjectInfoPtr>& projects() const;
    // Re-reads the open projects now (the session does so every kProjectPollMs anyway).
    void refreshProjects();
    bool isLoading() const;
    // Existing recently opened files, newest first.
    QStringList recentFiles() const;

public Q_SLOTS:
    void openFileDialog();
    void openFolderDialog();
    void openDumpFolderDialog();
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
    void setupPages();
    void setupActions();
    void setupStatusBar();
    void updateRecentMenu();
    void restoreSettings();
    void saveSettings() const;
    void placeOnScreen();

    void onJobStarted(const QString& path, int queued);
    void onProgress(const QString& label, quint64 done, quint64 total);
    void onLoaded(const QString& path, const tgraph::GraphDocumentPtr& document, qint64 elapsedMs);
    void onProjectLoaded(const QString& path, const ProjectInfoPtr& project, qint64 elapsedMs);
    void onCurrentGraphChanged();
    void exportWithDialog(const QString& title, const QString& suffix, const QString& filter);
    void updateActions();
    void onFailed(const QString& path, const QString& message);
    void onCancelled(const QString& path);
    void onIdle();
    void showStatus(const QString& text);

    tgraph::studio::StudioSession* m_session = nullptr;
    GraphLoader* m_loader = nullptr;
    RecentFiles* m_recent = nullptr;
    widgets::ErrorBanner* m_banner = nullptr;
    tgraph::widgets::ModeBar* m_modeBar = nullptr;
    QStackedWidget* m_pages = nullptr;
    tgraph::studio::GraphsPage* m_graphsPage = nullptr;
    tgraph::studio::AnalysisPage* m_analysisPage = nullptr;
    tgraph::studio::RunsPage* m_runsPage = nullptr;
    tgraph::studio::PassesPage* m_passesPage = nullptr;
    tgraph::studio::DiffPage* m_diffPage = nullptr;
    CollectionView* m_collectionView = nullptr;
    FetchDialog* m_fetchDialog = nullptr;

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
    std::vector<QAction*> m_pageActions; // by Page
    std::vector<QAction*> m_analysisActions; // by AnalysisView
    QPointer<widgets::GraphPage> m_connectedPage;

    QLabel* m_progressLabel = nullptr;
    QProgressBar* m_progressBar = nullptr;
    QToolButton* m_cancelButton = nullptr;
    QString m_loadingName;
    int m_queued = 0;

    QPointer<AboutDialog> m_aboutDialog;
    bool m_geometryRestored = false;
};

} // namespace tgraph::studio
