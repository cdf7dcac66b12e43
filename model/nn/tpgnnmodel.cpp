// SPDX-License-Identifier: Apache-2.0
#include "model/nn/tpgnnmodel.h"

#include <cmath>
#include <limits>

namespace tgraph::model {

namespace F = torch::nn::functional;

TpgnnModelImpl::TpgnnModelImpl(const ModelOptions& options, GraphKind kind)
    : ZooModelImpl(options, kind)
{
    const int64_t h = options.hidden;
    TORCH_CHECK(h >= 2, "tpgnn: width must be >= 2");
    m_opEmbedding = register_module("op_embedding", torch::nn::Embedding(options.opTableSize, kOpEmbedding));
    m_conv1 = register_module("conv_1", JoinLinear(kZooNodeWidth + kOpEmbedding, configWidth(), h));
    for (int64_t k = 2; k <= kLayers; ++k)
        m_convs.push_back(register_module("conv_" + std::to_string(k), torch::nn::Linear(h, h)));
    for (int64_t k = 1; k <= kLayers; ++k) {
        auto holder = register_module("pool_" + std::to_string(k), std::make_shared<torch::nn::Module>());
        // PyG's TopKPooling initializes its projection uniformly in +-1/sqrt(H).
        const double bound = 1.0 / std::sqrt(double(h));
        m_pools.push_back(holder->register_parameter("weight", torch::empty({ 1, h }).uniform_(-bound, bound)));
    }
    m_mlp.push_back(register_module("mlp_1", torch::nn::Linear(2 * h, h)));
    m_mlp.push_back(register_module("mlp_2", torch::nn::Linear(h, h / 2)));
    m_mlp.push_back(register_module("mlp_3", torch::nn::Linear(h / 2, 1)));
}

torch::Tensor TpgnnModelImpl::run(const GraphTensors& graph, const torch::Tensor& configPart, int64_t configs)
{
    const int64_t n = graph.nodes();
    const auto x = torch::cat({ zooNodeFeatures(graph), m_opEmbedding(graph.opcodes) }, 1);
    const NormalizedAdjacency adjacency = symmetricAdjacency(graph.edges, n);
    auto alive = torch::ones({ n, configs }, torch::kFloat32);
    int64_t kept = n;
    torch::Tensor h;
    torch::Tensor readout;
    for (int64_t k = 0; k < kLayers; ++k) {
        const auto z = k == 0 ? m_conv1(x, configPart, graph.configNodeIds, configs) : m_convs[size_t(k - 1)](h);
        h = torch::relu(propagate(adjacency, z, alive));
        // TopK pooling among the kept nodes of each config.
        const auto& p = m_pools[size_t(k)];
        const auto y = (h * p.view({ 1, 1, -1 })).sum(2) / p.norm(); // (N, C)
        kept = std::max<int64_t>(1, int64_t(std::ceil(kPoolRatio * double(kept))));
        const auto candidates = y.masked_fill(alive == 0, -std::numeric_limits<float>::infinity());
        const auto chosen = std::get<1>(candidates.topk(kept, 0));
        alive = torch::zeros_like(alive).scatter_(0, chosen, 1.0);
        h = h * (torch::tanh(y) * alive).unsqueeze(2);
        const auto maxPool
            = std::get<0>(h.masked_fill((alive == 0).unsqueeze(2), -std::numeric_limits<float>::infinity()).max(0));
        const auto meanPool = h.sum(0) / double(kept);
        const auto level = torch::cat({ maxPool, meanPool }, 1); // (C, 2H)
        readout = readout.defined() ? readout + level : level;
    }
    const double dropout = m_options.dropout;
    auto r = F::dropout(torch::relu(m_mlp[0](readout)), F::DropoutFuncOptions().p(dropout).training(is_training()));
    r = F::dropout(torch::relu(m_mlp[1](r)), F::DropoutFuncOptions().p(dropout).training(is_training()));
    return m_mlp[2](r).squeeze(1);
}

torch::Tensor TpgnnModelImpl::score(const LayoutBatch& batch)
{
    TORCH_CHECK(m_kind == GraphKind::Layout, "tpgnn: a tile model was given a layout batch");
    return run(batch.graph, zooLayoutConfigFeatures(batch), batch.configs());
}

torch::Tensor TpgnnModelImpl::score(const TileBatch& batch)
{
    return run(batch.graph, standardizedConfigs(batch), batch.configs());
}

} // namespace tgraph::model
