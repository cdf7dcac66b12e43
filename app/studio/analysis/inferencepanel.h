// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "app/studio/analysis/explainjob.h"
#include "app/studio/analysis/inferencejob.h"

#include "core/view/graphdocument.h"
#include "widgets/graph/nodeoverlay.h"

#include <QWidget>

#include <memory>
#include <vector>

class QTableView;
class QTabWidget;
class QToolButton;

namespace tgraph::widgets {
class ErrorBanner;
class HeatmapView;
class JobChannel;
class PredictionTableModel;
class RankScatterView;
class TauStripView;
}

namespace tgraph::studio {

class InferenceForm;
class InferenceResults;

// "Does the model rank this graph right, and which config does it think is fastest?": pick a
// model (weights, checkpoint, ensemble.json or a project run's ensemble), a graph open in the
// studio or a collection directory, and a config set (the form, inferenceform.h); inference runs
// on the inference thread with progress and Cancel; the result shows as a table in predicted
// order, the rank scatter, the per-graph τ strip and the channel / cross-config attention heatmaps
// (inferenceresults.h). Results are stored in the project when one is chosen, and stored results
// reopen from the project without the model (storedinference.h); the table exports as CSV
// (inferenceexport.h).
class InferencePanel : public QWidget
{
    Q_OBJECT
public:
    explicit InferencePanel(QWidget* parent = nullptr);
    ~InferencePanel() override;

    // The graphs open in the studio (the graph choice lists them) and the current one.
    void setDocuments(const std::vector<tgraph::GraphDocumentPtr>& documents, const tgraph::GraphDocumentPtr& current);
    // Project files the results can be stored in / reopened from.
    void setProjects(const QStringList& projectPaths);
    // Model files (a weights .npz, a checkpoint or an ensemble.json).
    void setModelFiles(const QStringList& files);
    QStringList modelFiles() const;
    void setCollection(const QString& directory); // graph choice: this collection
    void setConfigSet(ConfigSetKind kind, int64_t count);
    void setStoreInProject(const QString& projectPath); // "" = do not store

    void run();
    void cancel();
    bool isRunning() const;
    // Shows the results of a stored inference run (no model needed).
    bool openStoredRun(const QString& projectPath, const QString& runId);
    // The run settings (the form) fold away when results are shown and unfold for a new run.
    void setSettingsShown(bool shown);
    bool settingsShown() const;

    // Exports: the first k rows of the table (rank,config,score,runtime_ns) and the Kaggle
    // submission of the shown graphs. False with a banner message on failure.
    bool exportTopK(const QString& path, int k);
    bool exportKaggle(const QString& path, const QString& collectionId = {});

    const InferenceOutcome* outcome() const;
    int currentGraph() const;
    void showGraph(int index);
    // Attention heatmap mode: 0 = selected config, 1 = mean over configs, 2 = fastest − slowest,
    // 3 = selected − pinned.
    // Attention mode 3 shows the selected config minus this pinned one (a config id; -1 = none).
    void setAttentionMode(int mode);
    void pinConfig(int64_t config);
    // Per-node attention on the graph view: 0 = none, then the entries of the "Graph overlay"
    // choice (gate: mean of layers, gate per layer, then cross-config weight alike when the
    // model has it). The overlay follows the heatmap's mode (selected, mean, differences).
    void setNodeOverlay(int index);
    int nodeOverlayChoices() const;
    const widgets::NodeOverlay& nodeOverlay() const;
    bool nodeOverlayActive() const;
    // Selects a config as a click in the table or the scatter does.
    void selectConfigById(int64_t config);

    // What the explain view needs to explain configs of the shown graph: the model that ranked them,
    // the graph and the config set it scored (or, before any result, the chosen graph and model).
    ExplainRequest explainContext() const;

    widgets::ErrorBanner* banner() const { return m_banner; }
    widgets::RankScatterView* scatter() const;
    widgets::TauStripView* tauStrip() const;
    widgets::HeatmapView* channelHeatmap() const;
    widgets::HeatmapView* crossHeatmap() const;
    widgets::PredictionTableModel* tableModel() const;
    QTableView* tableView() const;
    QTabWidget* viewTabs() const;

Q_SIGNALS:
    // A config was selected (table, scatter): the graph views can overlay its layout values.
    void configSelected(const QString& graphPath, qint64 config);
    void openGraphRequested(const QString& path);
    void statusMessage(const QString& message);
    // The chosen model changed (the Tune panel reuses it, docs/studio.md §5.6).
    void modelFilesChanged(const QStringList& files);
    void finished();
    // "Why is A ranked as it is against B?" (A and B: a config id, fastest, slowest or default).
    void explainRequested(const QString& configA, const QString& configB);
    // The per-node attention overlay changed (nodeOverlay(); empty = remove it) for `graphPath`.
    void nodeOverlayChanged(const QString& graphPath);

private:
    void onFinished(const std::shared_ptr<const InferenceOutcome>& outcome);
    // Withdraws the banner's "incomplete request" message once the form no longer has that problem.
    void recheckRequest();
    void chooseStoredRun();
    void askExportTopK(int k);
    void askExportKaggle();

    widgets::JobChannel* m_channel = nullptr; // the model lane
    widgets::ErrorBanner* m_banner = nullptr;
    QToolButton* m_settingsToggle = nullptr;
    InferenceForm* m_form = nullptr;
    InferenceResults* m_results = nullptr;
    tgraph::GraphDocumentPtr m_runDocument; // the document of the running (or last) single-graph request
    QString m_requestProblem; // what the form lacked when Run was last pressed
    // The banner's conditions (ErrorBanner::showCondition): withdrawn when their cause goes.
    static constexpr const char* kNoProject = "no-project";
    static constexpr const char* kIncompleteRequest = "incomplete-request";
    static constexpr const char* kNoResults = "no-results";
};

} // namespace tgraph::studio
