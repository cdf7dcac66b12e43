// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QMainWindow>
#include <QPointer>

namespace tgraph {
struct GraphSummary;
}

class AboutDialog;
class ErrorBanner;
class GraphLoader;
class GraphSummaryView;
class QAction;
class QLabel;
class QMenu;
class QProgressBar;
class QStackedWidget;
class QTabWidget;
class QToolButton;
class RecentFiles;

// The studio window: one tab per opened graph file, loads in the background with progress and
// cancel in the status bar, load errors inline in a banner above the tabs.
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
    bool isLoading() const;
    // Existing recently opened files, newest first.
    QStringList recentFiles() const;

public Q_SLOTS:
    void openFileDialog();
    void closeTab(int index);
    void closeCurrentTab();
    void cancelLoading();
    void showAboutDialog();

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

    void onJobStarted(const QString& path, int queued);
    void onProgress(const QString& label, quint64 done, quint64 total);
    void onLoaded(const QString& path, const tgraph::GraphSummary& summary, qint64 elapsedMs);
    void onFailed(const QString& path, const QString& message);
    void onCancelled(const QString& path);
    void onIdle();

    GraphLoader* m_loader = nullptr;
    RecentFiles* m_recent = nullptr;
    ErrorBanner* m_banner = nullptr;
    QStackedWidget* m_pages = nullptr;
    QTabWidget* m_tabs = nullptr;

    QMenu* m_recentMenu = nullptr;
    QAction* m_openAction = nullptr;
    QAction* m_closeTabAction = nullptr;
    QAction* m_quitAction = nullptr;
    QAction* m_aboutAction = nullptr;

    QLabel* m_progressLabel = nullptr;
    QProgressBar* m_progressBar = nullptr;
    QToolButton* m_cancelButton = nullptr;
    QString m_loadingName;
    int m_queued = 0;

    QPointer<AboutDialog> m_aboutDialog;
};
