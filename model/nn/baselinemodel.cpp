// SPDX-License-Identifier: Apache-2.0
#include "model/nn/baselinemodel.h"

namespace tgraph::model {

namespace F = torch::nn::functional;

namespace {

torch::Tensor lrelu(const torch::Tensor& x)
{
    return F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(BaselineModelImpl::kSlope));
}

torch::Tensor l2normalize(const torch::Tensor& x) { return F::normalize(x, F::NormalizeFuncOptions().dim(-1)); }

} // namespace

BaselineModelImpl::BaselineModelImpl(const ModelOptions& options, GraphKind kind)
    : ZooModelImpl(options, kind)
{
    const int64_t h = options.hidden;
    const int64_t in = kZooNodeWidth + kOpEmbedding;
    m_opEmbedding = register_module("op_embedding", torch::nn::Embedding(options.opTableSize, kOpEmbedding));
    const bool layout = kind == GraphKind::Layout;
    if (layout)
        m_preJoin = register_module("pre_mlp_1", JoinLinear(in, kConfigSlots, h));
    else
        m_pre1 = register_module("pre_mlp_1", torch::nn::Linear(in, h));
    m_pre2 = register_module("pre_mlp_2", torch::nn::Linear(h, h));
    for (int k = 0; k < 2; ++k) {
        const std::string name = "gnn_" + std::to_string(k + 1) + "_";
        if (layout)
            m_gnnJoin[k] = register_module(name + "1", JoinLinear(h, kConfigSlots, h));
        else
            m_gnnIn[k] = register_module(name + "1", torch::nn::Linear(h, h));
        m_gnnOut[k] = register_module(name + "2", torch::nn::Linear(h, h));
    }
    if (!layout) {
        m_configMlp = register_module("config_mlp", torch::nn::Linear(kTileConfigWidth, h));
        m_head1 = register_module("head_1", torch::nn::Linear(3 * h, h));
    }
    m_readout
        = register_module("readout", torch::nn::Linear(torch::nn::LinearOptions(layout ? 3 * h : h, 1).bias(false)));
}

torch::Tensor BaselineModelImpl::encode(const GraphTensors& graph, const torch::Tensor& cfg, int64_t configs)
{
    const auto x = torch::cat({ zooNodeFeatures(graph), m_opEmbedding(graph.opcodes) }, 1);
    torch::Tensor h = cfg.defined() ? m_preJoin(x, cfg, graph.configNodeIds, configs) : m_pre1(x).unsqueeze(1);
    h = lrelu(m_pre2(lrelu(h)));
    const NormalizedAdjacency adjacency = symmetricAdjacency(graph.edges, graph.nodes());
    for (int k = 0; k < 2; ++k) {
        const auto mixed = propagate(adjacency, h);
        const auto first = cfg.defined() ? m_gnnJoin[k](mixed, cfg, graph.configNodeIds, configs) : m_gnnIn[k](mixed);
        h = h + lrelu(m_gnnOut[k](lrelu(first)));
    }
    return h; // (N, C, H), C = 1 for tiles
}

torch::Tensor BaselineModelImpl::score(const LayoutBatch& batch)
{
    TORCH_CHECK(m_kind == GraphKind::Layout, "tpugraphs-baseline: a tile model was given a layout batch");
    const auto cfg = zooLayoutConfigFeatures(batch) * kConfigScale;
    const auto h = encode(batch.graph, cfg, batch.configs());
    const auto configurable = h.index_select(0, batch.graph.configNodeIds).sum(0);
    const auto g = torch::cat({ h.mean(0), l2normalize(h.sum(0)), l2normalize(configurable) }, 1); // (C, 3H)
    return m_readout(g).squeeze(1);
}

torch::Tensor BaselineModelImpl::score(const TileBatch& batch)
{
    const auto config = lrelu(m_configMlp(standardizedConfigs(batch))); // (C, H)
    const auto h = encode(batch.graph, {}, 1).squeeze(1); // (N, H)
    const auto g = torch::cat({ h.mean(0), l2normalize(h.sum(0)) }).unsqueeze(0).expand({ batch.configs(), -1 });
    return m_readout(lrelu(m_head1(torch::cat({ g, config }, 1)))).squeeze(1);
}

} // namespace tgraph::model
