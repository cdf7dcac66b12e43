// SPDX-License-Identifier: Apache-2.0
#pragma once

// Heatmap matrices of a model's attention maps (core/results/attentionmaps.h) for the inference panel and
// `tgraph render --view attention` (docs/studio.md §5).

#include "core/results/attentionmaps.h"
#include "widgets/analysis/heatmapview.h"
#include "widgets/graph/nodeoverlay.h"

#include <cstdint>
#include <vector>

namespace tgraph::studio {

// "f_in 1", "f_in 2", "block 1", ... for the layer prefixes "linear", "linear2", "convs.0", ...
QString attentionLayerLabel(const std::string& layer);

// Rows = layers, columns = channels; channel-gate values (0..1, viridis over the fixed range) of
// config row `row`, or the mean over all config rows when row < 0.
widgets::HeatmapData channelGateHeatmap(const tgraph::AttentionMaps& maps, int64_t row);
// Gate of row `a` minus gate of row `b` (diverging, symmetric range).
widgets::HeatmapData channelGateDifference(const tgraph::AttentionMaps& maps, int64_t a, int64_t b);
// One layer's cross-config softmax weights: rows = the layer's channels, columns = config rows in
// `columnOrder` (e.g. by true runtime, fastest first), named by `columnNames`. Empty data when the
// model has no cross-config attention.
widgets::HeatmapData crossConfigHeatmap(const tgraph::AttentionMaps& maps, size_t layer,
    const std::vector<int64_t>& columnOrder, const QStringList& columnNames);

// Per-node attention for the graph view (LayerAttention::nodeGate / nodeCross): the channel gate,
// or the cross-config weight, averaged over the channels of layer `layer` (every layer when
// layer < 0), for config row `a` (the mean over rows when a < 0); with b >= 0 row a minus row b on
// the diverging map. `modelNodeIds` maps the model's nodes (the pruned graph) to the file's
// (empty = the same ids); the file's other `nodeCount` nodes have no value. Empty when the maps
// hold no per-node values (too many configs x nodes, or cross weights of a model without them).
enum class NodeAttention { Gate, Cross };
widgets::NodeOverlay nodeAttentionOverlay(const tgraph::AttentionMaps& maps, NodeAttention quantity, int layer, int64_t a,
    int64_t b, const std::vector<int64_t>& modelNodeIds, int64_t nodeCount);

} // namespace tgraph::studio
