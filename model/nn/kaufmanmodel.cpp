// SPDX-License-Identifier: Apache-2.0
#include "model/nn/kaufmanmodel.h"

#include <vector>

namespace tgraph::model {

namespace F = torch::nn::functional;

namespace {

// Messages source -> target, each target keeping its first kMaxNeighbours in edge order.
struct Messages
{
    torch::Tensor source;
    torch::Tensor target;
    torch::Tensor inverseDegree; // (N, 1, 1)
};

Messages truncatedMessages(const torch::Tensor& from, const torch::Tensor& to, int64_t nodes)
{
    const auto f = from.contiguous();
    const auto t = to.contiguous();
    const int64_t* src = f.data_ptr<int64_t>();
    const int64_t* dst = t.data_ptr<int64_t>();
    std::vector<int64_t> count(size_t(nodes), 0);
    std::vector<int64_t> keptSource, keptTarget;
    for (int64_t e = 0; e < f.numel(); ++e) {
        if (count[size_t(dst[e])] >= KaufmanModelImpl::kMaxNeighbours)
            continue;
        ++count[size_t(dst[e])];
        keptSource.push_back(src[e]);
        keptTarget.push_back(dst[e]);
    }
    Messages m;
    m.source = torch::tensor(keptSource, torch::kInt64);
    m.target = torch::tensor(keptTarget, torch::kInt64);
    std::vector<float> reciprocal(static_cast<size_t>(nodes));
    for (int64_t n = 0; n < nodes; ++n)
        reciprocal[size_t(n)] = 1.0f / float(std::max<int64_t>(1, count[size_t(n)]));
    m.inverseDegree = torch::tensor(reciprocal).reshape({ nodes, 1, 1 });
    return m;
}

torch::Tensor meanOf(const Messages& m, const torch::Tensor& values)
{
    if (m.source.numel() == 0)
        return torch::zeros_like(values);
    return torch::zeros_like(values).index_add_(0, m.target, values.index_select(0, m.source)) * m.inverseDegree;
}

torch::nn::Linear noBias(int64_t in, int64_t out)
{
    return torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(false));
}

} // namespace

KaufmanModelImpl::KaufmanModelImpl(const ModelOptions& options, GraphKind kind)
    : ZooModelImpl(options, kind)
{
    const int64_t h = options.hidden;
    m_opEmbedding = register_module("op_embedding", torch::nn::Embedding(options.opTableSize, kOpEmbedding));
    m_input = register_module("input", JoinLinear(kZooNodeWidth + kOpEmbedding, configWidth(), h));
    for (int64_t k = 0; k < kLayers; ++k) {
        const std::string name = "sage_" + std::to_string(k + 1);
        auto holder = register_module(name, std::make_shared<torch::nn::Module>());
        Sage s;
        s.inward = holder->register_module("f2_in", noBias(h, h));
        s.outward = holder->register_module("f2_out", noBias(h, h));
        s.combine = holder->register_module("f3", noBias(3 * h, h));
        m_sage.push_back(s);
    }
    for (int k = 1; k <= 3; ++k)
        m_nodeFinal.push_back(register_module("node_final_" + std::to_string(k), torch::nn::Linear(h, h)));
    int64_t headIn = h;
    switch (options.reduction) {
    case NodeReduction::MeanMax:
        headIn = 2 * h;
        break;
    case NodeReduction::PerNode:
        break;
    case NodeReduction::Lstm:
        m_lstm = register_module("lstm", torch::nn::LSTM(torch::nn::LSTMOptions(h, h)));
        break;
    case NodeReduction::Transformer:
        TORCH_CHECK(h % 4 == 0, "kaufman: the transformer reduction needs a width divisible by its 4 heads");
        m_transformer = register_module("transformer",
            torch::nn::TransformerEncoderLayer(
                torch::nn::TransformerEncoderLayerOptions(h, 4).dim_feedforward(2 * h).dropout(0.0)));
        break;
    }
    m_head = register_module("head", torch::nn::Linear(headIn, 1));
}

torch::Tensor KaufmanModelImpl::run(const GraphTensors& graph, const torch::Tensor& configPart, int64_t configs)
{
    const int64_t n = graph.nodes();
    const auto x = torch::cat({ zooNodeFeatures(graph), m_opEmbedding(graph.opcodes) }, 1);
    torch::Tensor e = torch::relu(m_input(x, configPart, graph.configNodeIds, configs)); // (N, C, H)
    // Row 0 = consumer, row 1 = producer: incoming messages flow producer -> consumer.
    const Messages in = truncatedMessages(graph.edges[1], graph.edges[0], n);
    const Messages out = truncatedMessages(graph.edges[0], graph.edges[1], n);
    for (Sage& s : m_sage) {
        const auto fromIn = meanOf(in, torch::relu(s.inward(e)));
        const auto fromOut = meanOf(out, torch::relu(s.outward(e)));
        e = F::normalize(
            torch::relu(s.combine(torch::cat({ e, fromIn, fromOut }, 2))), F::NormalizeFuncOptions().dim(2));
    }
    for (auto& layer : m_nodeFinal)
        e = torch::relu(layer(e));
    switch (m_options.reduction) {
    case NodeReduction::MeanMax:
        return m_head(torch::cat({ e.mean(0), std::get<0>(e.max(0)) }, 1)).squeeze(1);
    case NodeReduction::PerNode:
        return m_head(e).squeeze(2).sum(0);
    case NodeReduction::Lstm: {
        const auto output = std::get<0>(m_lstm(e)); // (N, C, H), sequence first
        return m_head(output[n - 1]).squeeze(1);
    }
    case NodeReduction::Transformer:
        return m_head(m_transformer(e).sum(0)).squeeze(1);
    }
    return {};
}

torch::Tensor KaufmanModelImpl::score(const LayoutBatch& batch)
{
    TORCH_CHECK(m_kind == GraphKind::Layout, "kaufman: a tile model was given a layout batch");
    return run(batch.graph, zooLayoutConfigFeatures(batch), batch.configs());
}

torch::Tensor KaufmanModelImpl::score(const TileBatch& batch)
{
    return run(batch.graph, standardizedConfigs(batch), batch.configs());
}

} // namespace tgraph::model
