// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "app/studio/analysis/explainjob.h"
#include "app/studio/analysis/inferencejob.h"

#include "core/view/graphdocument.h"
#include "widgets/graph/nodeoverlay.h"

#include <QWidget>

#include <memory>
#include <vector>

class ErrorBanner;
class HeatmapView;
class InferenceRunner;
class PredictionTableModel;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QMenu;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;
class QTabWidget;
class QToolButton;
class RankScatterView;
class TauStripView;

// "Does the model rank this graph right, and which config does it think is fastest?": pick a
// model (weights, checkpoint, ensemble.json or a project run's ensemble), a graph open in the
// studio or a collection directory, and a config set; inference runs on the inference thread with
// progress and Cancel; the result shows as a table in predicted order, the rank scatter, the
// per-graph τ strip and the channel / cross-config attention heatmaps. Results are stored in the
// project when one is chosen, and stored results reopen from the project without the model.
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
    void setCollection(const QString& directory); // graph choice: this collection
    void setConfigSet(ConfigSetKind kind, int64_t count);
    void setStoreInProject(const QString& projectPath); // "" = do not store

    void run();
    void cancel();
    bool isRunning() const;
    // Shows the results of a stored inference run (no model needed).
    bool openStoredRun(const QString& projectPath, const QString& runId);

    // Exports: the first k rows of the table (rank,config,score,runtime_ns) and the Kaggle
    // submission of the shown graphs. False with a banner message on failure.
    bool exportTopK(const QString& path, int k);
    bool exportKaggle(const QString& path, const QString& collectionId = {});

    const InferenceOutcome* outcome() const { return m_outcome.get(); }
    int currentGraph() const { return m_graph; }
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
    const NodeOverlay& nodeOverlay() const { return m_nodeOverlay; }
    bool nodeOverlayActive() const;
    // Selects a config as a click in the table or the scatter does.
    void selectConfigById(int64_t config) { selectConfig(config, false); }

    // What the explain view needs to explain configs of the shown graph: the model that ranked them,
    // the graph and the config set it scored (or, before any result, the chosen graph and model).
    ExplainRequest explainContext() const;

    ErrorBanner* banner() const { return m_banner; }
    RankScatterView* scatter() const { return m_scatter; }
    TauStripView* tauStrip() const { return m_tauStrip; }
    HeatmapView* channelHeatmap() const { return m_channelMap; }
    HeatmapView* crossHeatmap() const { return m_crossMap; }
    PredictionTableModel* tableModel() const { return m_table; }
    QTableView* tableView() const { return m_tableView; }
    QTabWidget* viewTabs() const { return m_viewTabs; }

Q_SIGNALS:
    // A config was selected (table, scatter): the graph views can overlay its layout values.
    void configSelected(const QString& graphPath, qint64 config);
    void openGraphRequested(const QString& path);
    void statusMessage(const QString& message);
    void finished();
    // "Why is A ranked as it is against B?" (A and B: a config id, fastest, slowest or default).
    void explainRequested(const QString& configA, const QString& configB);
    // The per-node attention overlay changed (nodeOverlay(); empty = remove it) for `graphPath`.
    void nodeOverlayChanged(const QString& graphPath);

private:
    void setupUi();
    void updateMembers();
    void updateControls();
    void onFinished(const std::shared_ptr<const InferenceOutcome>& outcome);
    void showOutcome(std::shared_ptr<const InferenceOutcome> outcome);
    void selectConfig(int64_t config, bool fromTable);
    void updateExtraColumns();
    void updateHeatmaps();
    void updateNodeOverlay(const tgraph::model::AttentionMaps* maps, int64_t a, int64_t b, const QString& rows);
    void browseModel();
    void browseCollection();
    void chooseStoredRun();
    void fillExplainMenu(QMenu* menu);
    tgraph::GraphDocumentPtr chosenDocument() const;

    InferenceRunner* m_runner = nullptr;
    std::vector<tgraph::GraphDocumentPtr> m_documents;
    std::shared_ptr<const InferenceOutcome> m_outcome;
    tgraph::GraphDocumentPtr m_outcomeDocument; // the document the shown single-graph result came from
    int m_graph = -1;
    int64_t m_selectedConfig = -1;
    int64_t m_pinnedConfig = -1;

    ErrorBanner* m_banner = nullptr;
    QComboBox* m_model = nullptr;
    QListWidget* m_members = nullptr;
    QComboBox* m_target = nullptr;
    QLineEdit* m_collection = nullptr;
    QComboBox* m_configSet = nullptr;
    QSpinBox* m_count = nullptr;
    QSpinBox* m_seed = nullptr;
    QSpinBox* m_batch = nullptr;
    QSpinBox* m_tta = nullptr;
    QComboBox* m_store = nullptr;
    QPushButton* m_runButton = nullptr;
    QPushButton* m_cancelButton = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_summary = nullptr;
    QComboBox* m_graphChoice = nullptr;
    QComboBox* m_nodeChoice = nullptr;
    PredictionTableModel* m_table = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTableView* m_tableView = nullptr;
    QTabWidget* m_viewTabs = nullptr;
    RankScatterView* m_scatter = nullptr;
    TauStripView* m_tauStrip = nullptr;
    HeatmapView* m_channelMap = nullptr;
    HeatmapView* m_crossMap = nullptr;
    QComboBox* m_attentionMode = nullptr;
    QComboBox* m_attentionMember = nullptr;
    QComboBox* m_crossLayer = nullptr;
    QComboBox* m_nodeOverlayChoice = nullptr;
    NodeOverlay m_nodeOverlay;
};
