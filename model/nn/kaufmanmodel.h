// SPDX-License-Identifier: Apache-2.0
#pragma once

// `--model kaufman`: the learned TPU performance model of Kaufman et al. (docs/model.md
// §8.2; "A Learned Performance Model for Tensor Processing Units", MLSys 2021), width H = 128 by default.
//
//   e0 = ReLU(f1([node part | opcode embedding 256 | config part]))   input (config to every node:
//        the paper's "option 1"; layout configs at their configurable nodes)
//   3 directed GraphSAGE layers, no biases, mean over at most 20 neighbours per direction:
//        e_k = L2norm(ReLU(f3([e_{k-1} | mean_in ReLU(f2_in e_{k-1}) | mean_out ReLU(f2_out e_{k-1})])))
//        sage_K.{f2_in,f2_out,f3}.weight
//   3 node-final layers ReLU(Linear(H, H))                               node_final_{1,2,3}
//   reduction (--reduction): mean-max [mean_n | max_n] -> head Linear(2H, 1); per-node
//   sum_n head(e_n); lstm: an LSTM over nodes in file (topological) order, last output -> head;
//   transformer: one encoder layer (4 heads, feed-forward 2H, no dropout), sum over nodes -> head.
// "Incoming" messages come from a node's operands (producers), "outgoing" from its users.

#include "model/nn/zoomodel.h"

namespace tgraph::model {

class KaufmanModelImpl : public ZooModelImpl
{
public:
    KaufmanModelImpl(const ModelOptions& options, GraphKind kind);
    torch::Tensor score(const LayoutBatch& batch) override;
    torch::Tensor score(const TileBatch& batch) override;

    static constexpr int64_t kOpEmbedding = 256;
    static constexpr int64_t kLayers = 3;
    static constexpr int64_t kMaxNeighbours = 20;

private:
    struct Sage
    {
        torch::nn::Linear inward { nullptr };
        torch::nn::Linear outward { nullptr };
        torch::nn::Linear combine { nullptr };
    };
    torch::Tensor run(const GraphTensors& graph, const torch::Tensor& configPart, int64_t configs);

    torch::nn::Embedding m_opEmbedding { nullptr };
    JoinLinear m_input { nullptr };
    std::vector<Sage> m_sage;
    std::vector<torch::nn::Linear> m_nodeFinal;
    torch::nn::LSTM m_lstm { nullptr };
    torch::nn::TransformerEncoderLayer m_transformer { nullptr };
    torch::nn::Linear m_head { nullptr };
};

} // namespace tgraph::model
