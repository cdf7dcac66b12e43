// SPDX-License-Identifier: Apache-2.0
#pragma once

// `--model tpgnn`: the TPGNN architecture (its project overview; docs/model.md §8.3), width H = 128 by default.
// Its own data (TVM TenSet ASTs) is not available; it runs on TpuGraphs graphs so it can be
// compared. The overview gives the shape, not the sizes; ours follow PyTorch Geometric's defaults
// for such a hierarchical GNN:
//   x = [node part | opcode embedding 32 | config part] (z-score normalized numeric features;
//       layout configs at their configurable nodes, tile config_feat at every node)
//   3 x { h = ReLU(A_sym conv_K(h))                         GCN: D^-1/2 (A + A^T + I) D^-1/2 among
//                                                           the nodes still in the graph
//         TopK pooling, ratio 0.8: y = h . p_K / |p_K|, keep the ceil(0.8 n) best nodes (per
//         config), h = h * tanh(y)                          pool_K.weight (1, H)
//         readout r += [max over kept nodes | mean over kept nodes] }
//   score = mlp_3(Dropout(ReLU(mlp_2(Dropout(ReLU(mlp_1(r)))))))   regression head (2H -> H -> H/2 -> 1)
// Trained with MSE on the standardized log runtime by default (a regression model).

#include "model/nn/zoomodel.h"

namespace tgraph::model {

class TpgnnModelImpl : public ZooModelImpl
{
public:
    TpgnnModelImpl(const ModelOptions& options, GraphKind kind);
    torch::Tensor score(const LayoutBatch& batch) override;
    torch::Tensor score(const TileBatch& batch) override;

    static constexpr int64_t kOpEmbedding = 32;
    static constexpr int64_t kLayers = 3;
    static constexpr double kPoolRatio = 0.8;

private:
    torch::Tensor run(const GraphTensors& graph, const torch::Tensor& configPart, int64_t configs);

    torch::nn::Embedding m_opEmbedding { nullptr };
    JoinLinear m_conv1 { nullptr };
    std::vector<torch::nn::Linear> m_convs; // conv_2, conv_3
    std::vector<torch::Tensor> m_pools; // pool_K.weight
    std::vector<torch::nn::Linear> m_mlp;
};

} // namespace tgraph::model
