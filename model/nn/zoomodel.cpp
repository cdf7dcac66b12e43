// SPDX-License-Identifier: Apache-2.0
#include "model/nn/zoomodel.h"

#include "model/nn/baselinemodel.h"
#include "model/nn/kaufmanmodel.h"
#include "model/nn/tgraphmodel.h"
#include "model/nn/tpgnnmodel.h"

namespace tgraph::model {

torch::Tensor zooNodeFeatures(const GraphTensors& graph)
{
    // Tokens are value + 2 (batch.h): back to the minor-to-major value, scaled to about -0.2..1.
    const auto layout = (graph.nodeLayoutTokens.to(torch::kFloat32) - 2.0) / 5.0;
    return torch::cat({ graph.numeric, layout }, 1);
}

torch::Tensor zooLayoutConfigFeatures(const LayoutBatch& batch)
{
    // Token = value + 2 for values -1..5: (token - 1) / 6 maps them onto 0..1.
    return (batch.configTokens.to(torch::kFloat32) - 1.0) / 6.0;
}

JoinLinearImpl::JoinLinearImpl(int64_t nodeWidth, int64_t configWidth, int64_t out)
{
    node = register_module("node", torch::nn::Linear(nodeWidth, out));
    config = register_module("config", torch::nn::Linear(torch::nn::LinearOptions(configWidth, out).bias(false)));
}

torch::Tensor JoinLinearImpl::forward(
    const torch::Tensor& nodePart, const torch::Tensor& configPart, const torch::Tensor& configNodeIds, int64_t configs)
{
    auto base = node(nodePart); // (N, H) or (N, C, H)
    const int64_t n = base.size(0);
    if (base.dim() == 2)
        base = base.unsqueeze(1).expand({ n, configs, base.size(1) });
    if (!configPart.defined())
        return base.contiguous();
    const auto projected = config(configPart);
    if (configPart.dim() == 2) // per config, every node
        return base + projected.unsqueeze(0);
    // (C, Nc, H) at the configurable nodes only.
    return base.contiguous().index_add(0, configNodeIds, projected.transpose(0, 1));
}

NormalizedAdjacency symmetricAdjacency(const torch::Tensor& edges, int64_t nodes)
{
    NormalizedAdjacency a;
    a.nodes = nodes;
    a.source = torch::cat({ edges[0], edges[1] }).contiguous();
    a.target = torch::cat({ edges[1], edges[0] }).contiguous();
    return a;
}

torch::Tensor propagate(const NormalizedAdjacency& adjacency, const torch::Tensor& h, const torch::Tensor& alive)
{
    const int64_t n = h.size(0);
    const int64_t c = h.size(1);
    torch::Tensor weight; // (2E, C) edge present in config c
    torch::Tensor degree; // (N, C) including the self loop
    if (alive.defined()) {
        weight = alive.index_select(0, adjacency.source) * alive.index_select(0, adjacency.target);
        degree = alive.clone().index_add_(0, adjacency.target, weight);
    } else {
        weight = torch::ones({ adjacency.source.size(0), c }, h.options());
        degree = torch::ones({ n, c }, h.options()).index_add_(0, adjacency.target, weight);
    }
    const auto invSqrt = degree.clamp_min(1.0).rsqrt(); // (N, C)
    const auto norm = weight * invSqrt.index_select(0, adjacency.source) * invSqrt.index_select(0, adjacency.target);
    const auto messages = h.index_select(0, adjacency.source) * norm.unsqueeze(2);
    auto self = h * (invSqrt * invSqrt).unsqueeze(2);
    if (alive.defined())
        self = self * alive.unsqueeze(2);
    return self.index_add(0, adjacency.target, messages);
}

ZooModelImpl::ZooModelImpl(const ModelOptions& options, GraphKind kind)
    : m_options(options)
    , m_kind(kind)
{
    TORCH_CHECK(options.opTableSize > 0 && options.hidden > 0, "zoo model: op table and width must be > 0");
    if (kind == GraphKind::Tile)
        m_configNormalizer = register_module("config_normalizer", ConfigNormalizer());
}

void ZooModelImpl::setConfigStats(const ConfigStats& stats)
{
    if (m_configNormalizer)
        m_configNormalizer->set(stats);
}

ConfigStats ZooModelImpl::configStats() const
{
    return m_configNormalizer ? m_configNormalizer->stats() : ConfigStats {};
}

torch::Tensor ZooModelImpl::standardizedConfigs(const TileBatch& batch) const
{
    TORCH_CHECK(m_configNormalizer, "zoo model: a layout model was given a tile batch");
    return (batch.configFeat - m_configNormalizer->mean) / m_configNormalizer->std;
}

ZooModel makeZooModel(const ModelOptions& options, GraphKind kind)
{
    switch (options.family) {
    case ModelFamily::TpuGraphsBaseline:
        return std::make_shared<BaselineModelImpl>(options, kind);
    case ModelFamily::Kaufman:
        return std::make_shared<KaufmanModelImpl>(options, kind);
    case ModelFamily::Tpgnn:
        return std::make_shared<TpgnnModelImpl>(options, kind);
    case ModelFamily::TGraph:
        break;
    }
    throw std::invalid_argument("makeZooModel: TGraph is not a zoo model (tgraphmodel.h, tilemodel.h)");
}

int64_t modelParameterCount(const ModelOptions& options, GraphKind kind)
{
    if (options.family != ModelFamily::TGraph)
        return parameterCount(*makeZooModel(options, kind));
    if (kind == GraphKind::Layout)
        return parameterCount(*TGraphModel(options));
    return parameterCount(*TileModel(options));
}

} // namespace tgraph::model
