// SPDX-License-Identifier: Apache-2.0
#include "app/studio/analysis/attentionheatmaps.h"

#include "widgets/common/formatting.h"

#include <QObject>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace tgraph::studio {

using namespace tgraph::widgets;

using tgraph::AttentionMaps;
using tgraph::LayerAttention;

QString attentionLayerLabel(const std::string& layer)
{
    if (layer == "linear")
        return QStringLiteral("f_in 1");
    if (layer == "linear2")
        return QStringLiteral("f_in 2");
    if (layer.rfind("convs.", 0) == 0)
        return QStringLiteral("block %1").arg(Formatting::id(std::stoi(layer.substr(6)) + 1));
    return QString::fromStdString(layer);
}

namespace {

HeatmapData layerMatrix(const AttentionMaps& maps, const std::function<float(const LayerAttention&, int64_t)>& value)
{
    HeatmapData d;
    d.columnLabel = QObject::tr("channel");
    for (const LayerAttention& l : maps.layers) {
        d.rowLabels << attentionLayerLabel(l.layer);
        d.columns = std::max(d.columns, l.channels);
    }
    d.values.assign(size_t(d.rows() * d.columns), std::numeric_limits<float>::quiet_NaN());
    for (size_t r = 0; r < maps.layers.size(); ++r)
        for (int64_t c = 0; c < maps.layers[r].channels; ++c)
            d.values[r * size_t(d.columns) + size_t(c)] = value(maps.layers[r], c);
    return d;
}

} // namespace

HeatmapData channelGateHeatmap(const AttentionMaps& maps, int64_t row)
{
    HeatmapData d = layerMatrix(maps, [row](const LayerAttention& l, int64_t c) {
        if (row >= 0)
            return row < l.configs ? l.gateAt(row, c) : std::numeric_limits<float>::quiet_NaN();
        double sum = 0;
        for (int64_t k = 0; k < l.configs; ++k)
            sum += l.gateAt(k, c);
        return l.configs ? float(sum / double(l.configs)) : std::numeric_limits<float>::quiet_NaN();
    });
    d.scale = HeatmapData::Scale::Unit;
    d.valueLabel = QObject::tr("gate (sigmoid)");
    d.title = row >= 0 ? QObject::tr("Channel gates, config row %1").arg(Formatting::id(row))
                       : QObject::tr("Channel gates, mean over configs");
    return d;
}

HeatmapData channelGateDifference(const AttentionMaps& maps, int64_t a, int64_t b)
{
    HeatmapData d = layerMatrix(maps, [a, b](const LayerAttention& l, int64_t c) {
        if (a < 0 || b < 0 || a >= l.configs || b >= l.configs)
            return std::numeric_limits<float>::quiet_NaN();
        return l.gateAt(a, c) - l.gateAt(b, c);
    });
    d.scale = HeatmapData::Scale::Diverging;
    d.reference = 1.0; // gates lie in 0..1: a difference of rounding noise is painted near white
    d.valueLabel = QObject::tr("gate difference");
    return d;
}

HeatmapData crossConfigHeatmap(
    const AttentionMaps& maps, size_t layer, const std::vector<int64_t>& columnOrder, const QStringList& columnNames)
{
    HeatmapData d;
    if (layer >= maps.layers.size() || maps.layers[layer].cross.empty())
        return d;
    const LayerAttention& l = maps.layers[layer];
    d.title = QObject::tr("Cross-config attention, %1").arg(attentionLayerLabel(l.layer));
    d.valueLabel = QObject::tr("softmax weight");
    d.columnLabel = QObject::tr("config (sorted)");
    d.columnNames = columnNames;
    d.columns = int64_t(columnOrder.size());
    for (int64_t c = 0; c < l.channels; ++c)
        d.rowLabels << QObject::tr("ch %1").arg(Formatting::id(c));
    d.values.resize(size_t(d.rows() * d.columns));
    for (int64_t c = 0; c < l.channels; ++c)
        for (int64_t k = 0; k < d.columns; ++k) {
            const int64_t row = columnOrder[size_t(k)];
            d.values[size_t(c * d.columns + k)]
                = row < l.configs ? l.crossAt(row, c) : std::numeric_limits<float>::quiet_NaN();
        }
    d.scale = HeatmapData::Scale::Auto;
    return d;
}

NodeOverlay nodeAttentionOverlay(const AttentionMaps& maps, NodeAttention quantity, int layer, int64_t a, int64_t b,
    const std::vector<int64_t>& modelNodeIds, int64_t nodeCount)
{
    std::vector<const LayerAttention*> layers;
    for (size_t l = 0; l < maps.layers.size(); ++l) {
        const LayerAttention& la = maps.layers[l];
        const auto& values = quantity == NodeAttention::Gate ? la.nodeGate : la.nodeCross;
        if ((layer < 0 || size_t(layer) == l) && la.hasNodeMaps() && !values.empty())
            layers.push_back(&la);
    }
    if (layers.empty() || nodeCount <= 0)
        return {};
    const int64_t nodes = layers.front()->nodes;
    const int64_t configs = layers.front()->configs;
    if (a >= configs || b >= configs || (!modelNodeIds.empty() && int64_t(modelNodeIds.size()) != nodes))
        return {};
    // Mean over the chosen layers of one config row (or of all rows when row < 0).
    const auto rowMean = [&](int64_t row, int64_t node) {
        double sum = 0;
        for (const LayerAttention* la : layers) {
            const auto& values = quantity == NodeAttention::Gate ? la->nodeGate : la->nodeCross;
            if (row >= 0) {
                sum += values[size_t(row * nodes + node)];
            } else {
                double rows = 0;
                for (int64_t k = 0; k < configs; ++k)
                    rows += values[size_t(k * nodes + node)];
                sum += rows / double(configs);
            }
        }
        return sum / double(layers.size());
    };
    NodeOverlay overlay;
    overlay.values.assign(size_t(nodeCount), std::numeric_limits<float>::quiet_NaN());
    double reference = 0; // the largest mean a difference is taken of
    for (int64_t n = 0; n < nodes; ++n) {
        const int64_t fileNode = modelNodeIds.empty() ? n : modelNodeIds[size_t(n)];
        if (fileNode < 0 || fileNode >= nodeCount)
            continue;
        const double meanA = rowMean(a, n);
        const double meanB = b >= 0 ? rowMean(b, n) : 0.0;
        reference = std::max({ reference, std::abs(meanA), std::abs(meanB) });
        overlay.values[size_t(fileNode)] = float(b >= 0 ? meanA - meanB : meanA);
    }
    const QString what = quantity == NodeAttention::Gate ? QObject::tr("gate") : QObject::tr("cross-config weight");
    const QString where = layer < 0 ? QObject::tr("mean of layers") : attentionLayerLabel(layers.front()->layer);
    if (b >= 0) {
        overlay.diverging = true;
        overlay.reference = float(reference);
        overlay.name = QObject::tr("%1 (%2), row %3 − row %4").arg(what, where, Formatting::id(a), Formatting::id(b));
        overlay.updateRange();
    } else {
        overlay.name = a >= 0 ? QObject::tr("%1 (%2), row %3").arg(what, where, Formatting::id(a))
                              : QObject::tr("%1 (%2), mean over configs").arg(what, where);
        // The range follows the data (the colour bar shows it): a node's gates averaged over
        // channels sit in a narrow band around 0.5, and softmax weights around 1/configs, so the
        // heatmap's fixed 0..1 range would paint every node the same colour.
        overlay.updateRange();
    }
    return overlay;
}

} // namespace tgraph::studio
