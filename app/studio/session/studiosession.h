// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "app/studio/common/projectinfo.h"
#include "app/studio/session/stagepair.h"

#include "widgets/graph/nodeoverlay.h"

#include "core/view/graphdocument.h"

#include <QObject>
#include <QSet>
#include <QStringList>

class QTimer;

namespace tgraph::widgets {
class JobChannel;
}

namespace tgraph::studio {

#include <map>
#include <vector>

// The studio's pages (docs/studio.md §0): the graph canvas, the model's analyses, the training
// runs, the checked collection folders, the passes of an XLA dump folder and the diff of two
// modules.
enum class Page { Graph, Analysis, Runs, Data, Passes, Diff };
// The tabs of the Analysis page.
enum class AnalysisView { Inference, Explain, Tune };

// What the studio's pages and panels share, and the one place they talk through (docs/studio.md
// §3.7): the open graphs and the current one, the open projects, the model the analysis panels
// share, the per-graph colour overlays, and the requests one panel makes of another (select a
// node of a graph, show a page, open files, show a message). Panels and pages hold a pointer to
// it; none of them knows the main window, which only arranges the pages.
class StudioSession : public QObject
{
    Q_OBJECT
public:
    explicit StudioSession(QObject* parent = nullptr);
    ~StudioSession() override;

    // The open graphs in tab order and the current one (set by the graph page).
    void setDocuments(std::vector<tgraph::GraphDocumentPtr> documents, tgraph::GraphDocumentPtr current);
    const std::vector<tgraph::GraphDocumentPtr>& documents() const { return m_documents; }
    const tgraph::GraphDocumentPtr& currentDocument() const { return m_current; }
    // The open graph read from `path` (a document's path), nullptr when none is open.
    tgraph::GraphDocumentPtr findDocument(const QString& path) const;

    // Open project files, as last read (a project opened again replaces its entry).
    void addProject(const ProjectInfoPtr& project);
    // Fresh reads of open projects: replaces the entries whose runs changed; true when any did.
    bool updateProjects(const std::vector<ProjectInfoPtr>& fresh);
    const std::vector<ProjectInfoPtr>& projects() const { return m_projects; }
    QStringList projectPaths() const;
    // Re-reads the open projects off the GUI thread (the io lane), so that the lists of runs
    // follow runs started, ended or deleted elsewhere; done every kProjectPollMs anyway.
    void refreshProjects();
    static constexpr int kProjectPollMs = 2000;

    // The model the analysis panels share: Inference's choice, which Tune follows while it has
    // not been given another one (docs/studio.md §5.6), and what a run offers from the Runs page.
    void setSharedModel(const QStringList& files);
    const QStringList& sharedModel() const { return m_sharedModel; }
    // A model offered from elsewhere (a run's weights on the Runs page): every analysis view
    // takes it, and the Analysis page comes forward on Inference.
    void offerModel(const QStringList& files);

    // A colour overlay for graph `path` (an empty overlay removes it); the latest one per graph.
    void setOverlay(const QString& path, const widgets::NodeOverlay& overlay);
    const widgets::NodeOverlay* overlay(const QString& path) const;

    // Requests: one panel asks, whoever shows the thing answers.
    void requestOpen(const QStringList& paths);
    void requestNode(const QString& graphPath, qint64 node);
    void selectConfig(const QString& graphPath, qint64 config);
    void requestPage(Page page);
    void requestAnalysis(AnalysisView view);
    void showMessage(const QString& text);
    // Two HLO modules to compare (files or stages of a dump folder, A before B); the diff page
    // answers (docs/studio.md §10).
    void requestDiff(const QString& pathA, const QString& pathB);
    // The same for two stages of a dump-folder module, with the module's stages (docs/studio.md
    // §11): diffRequested(pair.pathA(), pair.pathB()) is emitted after stagePair() holds `pair`, so
    // the diff page can name the stages and step along them. requestDiff() clears stagePair().
    void requestStageDiff(const StagePair& pair);
    const StagePair& stagePair() const { return m_stagePair; }
    // The stage whose HLO file is `stagePath` selected in the pass timeline, the Passes page
    // brought forward; the Passes page answers when that folder is open (docs/studio.md §10).
    void requestTimelineStage(const QString& stagePath);
    // The history of one instruction across the stages of the dump-folder module that `stagePath`
    // is a stage of; the Passes page answers when that folder is open (docs/studio.md §10).
    void requestHistory(const QString& stagePath, const QString& instruction);
    // The HLO stage files of the open dump folder (and the decompressed copies the Graph page
    // opened), set by the Passes page: the Graph page offers a node's history for these.
    void setDumpStages(const QStringList& paths);
    bool isDumpStage(const QString& path) const { return m_dumpStages.contains(path); }

Q_SIGNALS:
    void documentsChanged();
    void currentDocumentChanged(const tgraph::GraphDocumentPtr& document);
    void projectsChanged();
    void projectOpened(const QString& path); // addProject: a project file was opened
    void sharedModelChanged(const QStringList& files);
    void modelOffered(const QStringList& files);
    void overlayChanged(const QString& path);
    void openRequested(const QStringList& paths);
    void nodeRequested(const QString& graphPath, qint64 node);
    void configSelected(const QString& graphPath, qint64 config);
    void pageRequested(tgraph::studio::Page page);
    void analysisRequested(tgraph::studio::AnalysisView view);
    void statusMessage(const QString& text);
    void diffRequested(const QString& pathA, const QString& pathB);
    void historyRequested(const QString& stagePath, const QString& instruction);
    void timelineStageRequested(const QString& stagePath);

private:
    std::vector<tgraph::GraphDocumentPtr> m_documents;
    tgraph::GraphDocumentPtr m_current;
    std::vector<ProjectInfoPtr> m_projects;
    QStringList m_sharedModel;
    widgets::JobChannel* m_projectPoll = nullptr;
    QTimer* m_projectTimer = nullptr;
    std::map<QString, widgets::NodeOverlay> m_overlays;
    QSet<QString> m_dumpStages;
    StagePair m_stagePair;
};

} // namespace tgraph::studio
