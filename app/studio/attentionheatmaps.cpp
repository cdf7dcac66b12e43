// SPDX-License-Identifier: Apache-2.0
#include "attentionheatmaps.h"

#include <QObject>

#include <cmath>
#include <functional>
#include <limits>

using tgraph::model::AttentionMaps;
using tgraph::model::LayerAttention;

QString attentionLayerLabel(const std::string& layer)
{
    if (layer == "linear")
        return QStringLiteral("f_in 1");
    if (layer == "linear2")
        return QStringLiteral("f_in 2");
    if (layer.rfind("convs.", 0) == 0)
        return QStringLiteral("block %1").arg(std::stoi(layer.substr(6)) + 1);
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
    d.title = row >= 0 ? QObject::tr("Channel gates, config row %1").arg(row)
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
        d.rowLabels << QObject::tr("ch %1").arg(c);
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
