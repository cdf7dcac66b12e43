// SPDX-License-Identifier: Apache-2.0
#pragma once

// Heatmap matrices of a model's attention maps (model/attentionmaps.h) for the inference panel and
// `tgraph render --view attention` (spec ux-anchors.md §5).

#include "model/attentionmaps.h"
#include "widgets/heatmapview.h"

#include <cstdint>
#include <vector>

// "f_in 1", "f_in 2", "block 1", ... for the layer prefixes "linear", "linear2", "convs.0", ...
QString attentionLayerLabel(const std::string& layer);

// Rows = layers, columns = channels; channel-gate values (0..1, viridis over the fixed range) of
// config row `row`, or the mean over all config rows when row < 0.
HeatmapData channelGateHeatmap(const tgraph::model::AttentionMaps& maps, int64_t row);
// Gate of row `a` minus gate of row `b` (diverging, symmetric range).
HeatmapData channelGateDifference(const tgraph::model::AttentionMaps& maps, int64_t a, int64_t b);
// One layer's cross-config softmax weights: rows = the layer's channels, columns = config rows in
// `columnOrder` (e.g. by true runtime, fastest first), named by `columnNames`. Empty data when the
// model has no cross-config attention.
HeatmapData crossConfigHeatmap(const tgraph::model::AttentionMaps& maps, size_t layer,
    const std::vector<int64_t>& columnOrder, const QStringList& columnNames);
