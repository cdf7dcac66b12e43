// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "app/studio/analysis/inferencejob.h"

#include "core/view/graphdocument.h"

#include <QWidget>

#include <cstdint>
#include <memory>

class QComboBox;
class QLabel;
class QMenu;
class QSortFilterProxyModel;
class QTableView;
class QTabWidget;

namespace tgraph::widgets {
class PredictionTableModel;
class RankScatterView;
class TauStripView;
}

namespace tgraph::studio {

class AttentionViews;

// The inference panel's results: a summary line, the graph of the outcome shown, the table of its
// configs in predicted order (with a node's 18 layout values or the tile's 24 as extra columns),
// the export buttons and the explain menu, and the tabs: rank scatter, τ per graph, channel and
// cross-config attention (attentionviews.h). A config selected in the table or the scatter is
// selected everywhere.
class InferenceResults : public QWidget
{
    Q_OBJECT
public:
    explicit InferenceResults(QWidget* parent = nullptr);
    ~InferenceResults() override;

    // Shows `outcome`; `document` is the document a single-graph result came from (null for
    // collections and stored results): its node names label the node choice.
    void showOutcome(std::shared_ptr<const InferenceOutcome> outcome, tgraph::GraphDocumentPtr document);
    const std::shared_ptr<const InferenceOutcome>& outcome() const { return m_outcome; }
    const tgraph::GraphDocumentPtr& document() const { return m_document; }
    int currentGraph() const { return m_graph; }
    void showGraph(int index);

    // Selects a config id (as a click in the table, `fromTable`, or the scatter does).
    void selectConfig(int64_t config, bool fromTable = false);
    int64_t selectedConfig() const { return m_selectedConfig; }
    void pinConfig(int64_t config); // B of "selected − pinned"

    AttentionViews* attention() const { return m_attention; }
    widgets::RankScatterView* scatter() const { return m_scatter; }
    widgets::TauStripView* tauStrip() const { return m_tauStrip; }
    widgets::PredictionTableModel* tableModel() const { return m_table; }
    QTableView* tableView() const { return m_tableView; }
    QTabWidget* viewTabs() const { return m_viewTabs; }

Q_SIGNALS:
    void configSelected(const QString& graphPath, qint64 config);
    void openGraphRequested(const QString& path);
    void explainRequested(const QString& configA, const QString& configB);
    void nodeOverlayChanged(const QString& graphPath);
    void exportTopKRequested(int k);
    void exportKaggleRequested();

private:
    void updateExtraColumns();
    void updateAttention();
    void fillExplainMenu(QMenu* menu);

    std::shared_ptr<const InferenceOutcome> m_outcome;
    tgraph::GraphDocumentPtr m_document;
    int m_graph = -1;
    int64_t m_selectedConfig = -1;
    int64_t m_pinnedConfig = -1;

    QLabel* m_summary = nullptr;
    QComboBox* m_graphChoice = nullptr;
    QComboBox* m_nodeChoice = nullptr;
    widgets::PredictionTableModel* m_table = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTableView* m_tableView = nullptr;
    QTabWidget* m_viewTabs = nullptr;
    widgets::RankScatterView* m_scatter = nullptr;
    widgets::TauStripView* m_tauStrip = nullptr;
    AttentionViews* m_attention = nullptr;
};

} // namespace tgraph::studio
