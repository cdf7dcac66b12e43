// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "app/studio/analysis/inferencejob.h"

#include "widgets/graph/nodeoverlay.h"

#include <QObject>
#include <QPointer>
#include <QWidget>

#include <cstdint>
#include <memory>

class QComboBox;

namespace tgraph::widgets {
class HeatmapView;
struct RankScatterData;
}

namespace tgraph::studio {

// The inference panel's attention tabs: the channel-gate heatmap (of the selected config, the mean
// over configs, fastest − slowest, or selected − pinned) with the ensemble member and the per-node
// overlay for the graph view, and the cross-config attention heatmap of one layer with configs by
// true runtime. The pages are made here and shown by the panel's tab widget.
class AttentionViews : public QObject
{
    Q_OBJECT
public:
    explicit AttentionViews(QObject* parent = nullptr);
    ~AttentionViews() override;

    QWidget* channelPage() const { return m_channelPage; }
    QWidget* crossPage() const { return m_crossPage; }
    widgets::HeatmapView* channelHeatmap() const { return m_channelMap; }
    widgets::HeatmapView* crossHeatmap() const { return m_crossMap; }

    // The graph `graph` of `outcome` (its members name the member choice); fills the choices and
    // keeps the overlay choice when the new graph has it. Call update() afterwards.
    void setGraph(std::shared_ptr<const InferenceOutcome> outcome, int graph);
    // Draws the heatmaps and the overlay for the shown result's rows (the table's) and the
    // selected and pinned configs (ids; -1 = none).
    void update(const widgets::RankScatterData& rows, int64_t selectedConfig, int64_t pinnedConfig);

    // 0 = selected config, 1 = mean over configs, 2 = fastest − slowest, 3 = selected − pinned.
    int mode() const;
    void setMode(int mode);
    // The "Graph overlay" choice: 0 = none, then gate (mean of layers, per layer), then the
    // cross-config weight alike when the model has it.
    void setNodeOverlay(int index);
    int nodeOverlayChoices() const;
    bool nodeOverlayActive() const;
    const widgets::NodeOverlay& nodeOverlay() const { return m_nodeOverlay; }

Q_SIGNALS:
    void choicesChanged(); // mode, member, layer or overlay changed: update() is due
    void pinRequested(); // "Pin selected"
    void nodeOverlayChanged(); // nodeOverlay() changed (empty = remove it)

private:
    void updateNodeOverlay(const tgraph::AttentionMaps* maps, int64_t a, int64_t b, const QString& rows);
    const GraphInference* graph() const;

    std::shared_ptr<const InferenceOutcome> m_outcome;
    int m_graph = -1;
    widgets::NodeOverlay m_nodeOverlay;

    QPointer<QWidget> m_channelPage; // owned by the tab widget that shows them
    QPointer<QWidget> m_crossPage;
    widgets::HeatmapView* m_channelMap = nullptr;
    widgets::HeatmapView* m_crossMap = nullptr;
    QComboBox* m_mode = nullptr;
    QComboBox* m_member = nullptr;
    QComboBox* m_crossLayer = nullptr;
    QComboBox* m_nodeOverlayChoice = nullptr;
};

} // namespace tgraph::studio
