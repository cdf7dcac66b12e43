// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "app/studio/dump/dumpfollower.h"
#include "app/studio/session/stagepair.h"

#include <QHash>
#include <QWidget>

#include <memory>

class QCheckBox;
class QCompleter;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSplitter;
class QStringListModel;
class QTableView;
class QTemporaryDir;
class QToolButton;
class QTreeWidget;

namespace tgraph {
struct InstructionHistory;
}

namespace tgraph::widgets {
class ElidedLabel;
class ErrorBanner;
class JobChannel;
}

namespace tgraph::studio {

class ModuleTableModel;
class PassTimelineFilter;
class PassTimelineModel;
class StudioSession;
class TimelineFiller;

// The Passes page (docs/studio.md §10): an XLA dump folder, followed while it is written. At the
// left the folder's modules (filter, sortable) and the selected module's other artifacts (open as
// text); at the right the module's pass timeline (what each pass added, removed and changed, the
// module's sizes, the simulator's estimate and its change), with the stage's actions (open on the
// Graph page, diff with the stage before or another one through the session), and below it the
// history of one instruction across the module's stages.
class PassesPage : public QWidget
{
    Q_OBJECT
public:
    explicit PassesPage(StudioSession* session, QWidget* parent = nullptr);
    ~PassesPage() override;

    // Follows `folder` (made absolute) instead of the folder before.
    void openFolder(const QString& folder);
    QString folder() const;

    DumpFollower* follower() const { return m_follower; }
    ModuleTableModel* moduleModel() const { return m_modules; }
    QSortFilterProxyModel* moduleProxy() const { return m_moduleProxy; }
    QTableView* moduleView() const { return m_moduleView; }
    QLineEdit* moduleFilter() const { return m_moduleFilter; }
    PassTimelineModel* timelineModel() const { return m_timeline; }
    PassTimelineFilter* timelineFilter() const { return m_timelineFilter; }
    QTableView* timelineView() const { return m_timelineView; }
    TimelineFiller* filler() const { return m_filler; }
    QListWidget* artifactList() const { return m_artifacts; }
    QCheckBox* hideUnchangedBox() const { return m_hideUnchanged; }
    QLineEdit* historyEdit() const { return m_historyEdit; }
    QTreeWidget* historyView() const { return m_historyView; }
    QLabel* historySummary() const { return m_historySummary; }

    // The module with this key (ModuleTableModel::moduleKey) selected; false when none has it.
    bool selectModule(const QString& key);
    QString currentModuleKey() const;
    // A row of the timeline model (not of the filtered view) selected; -1 when none.
    void selectStage(int row);
    int currentStage() const;

    // The stage's actions: the Graph page opens it (a compressed stage through a decompressed
    // copy), the session is asked for a diff with the stage before / with stage `other`.
    void openStage(int row);
    void diffWithPrevious();
    void diffWith(int other);
    void diffWithDialog();
    // Stages `a` and `b` of the module shown, with its stages, as the Diff page gets them.
    StagePair stagePair(int a, int b) const;
    // The module and stage whose HLO file is `stagePath` (or the decompressed copy of it) selected,
    // passes that changed nothing shown; false when the open folder has no such stage.
    bool showStage(const QString& stagePath);
    // The history of `instruction` (a name in the current stage) across the module's stages.
    void traceHistory(const QString& instruction);
    bool isTracing() const;

Q_SIGNALS:
    void historyShown(); // the history view holds a new history, or its error
    void textShown(const QString& file); // an artifact opened as text

private:
    void onIndexChanged(const DumpIndexPtr& index, bool first);
    void onModuleChanged();
    void onStageChanged();
    void updateActions();
    void updateTitle();
    void showArtifacts();
    void openArtifact(size_t file);
    void loadNames();
    void showHistory(const tgraph::InstructionHistory& history, const QStringList& stageLabels);
    void showProgress(const QString& label, quint64 done, quint64 total);
    void onHistoryRequested(const QString& stagePath, const QString& instruction);
    void onTimelineStageRequested(const QString& stagePath);
    // Tells the session which files are stages of the open folder.
    void publishStages();

    StudioSession* m_session;
    DumpFollower* m_follower;
    ModuleTableModel* m_modules;
    QSortFilterProxyModel* m_moduleProxy;
    PassTimelineModel* m_timeline;
    PassTimelineFilter* m_timelineFilter;
    TimelineFiller* m_filler;

    widgets::ErrorBanner* m_banner = nullptr;
    widgets::ElidedLabel* m_title = nullptr;
    QLineEdit* m_moduleFilter = nullptr;
    QTableView* m_moduleView = nullptr;
    QListWidget* m_artifacts = nullptr;
    QPushButton* m_openArtifact = nullptr;
    QCheckBox* m_hideUnchanged = nullptr;
    QPushButton* m_openStage = nullptr;
    QPushButton* m_diffPrevious = nullptr;
    QPushButton* m_diffWith = nullptr;
    QLabel* m_progressLabel = nullptr;
    QProgressBar* m_progress = nullptr;
    QToolButton* m_cancel = nullptr;
    QTableView* m_timelineView = nullptr;
    QLabel* m_legend = nullptr;
    QLineEdit* m_historyEdit = nullptr;
    QCompleter* m_completer = nullptr;
    QStringListModel* m_names = nullptr;
    QPushButton* m_trace = nullptr;
    QLabel* m_historySummary = nullptr;
    QTreeWidget* m_historyView = nullptr;
    QSplitter* m_splitter = nullptr;

    widgets::JobChannel* m_namesChannel;
    widgets::JobChannel* m_historyChannel;
    widgets::JobChannel* m_fileChannel;
    std::unique_ptr<QTemporaryDir> m_copies; // decompressed stages opened on the Graph page
    QHash<QString, QString> m_copyOf; // copy -> the stage file it was made from
    QString m_selectedModule; // key, kept while the folder is listed again
    QString m_selectedStage; // DumpStage::stage of the selected row
};

} // namespace tgraph::studio
