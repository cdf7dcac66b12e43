// SPDX-License-Identifier: Apache-2.0
#pragma once

// `--model tpugraphs-baseline`: the TpuGraphs paper's "ResModel" baseline (docs/model.md
// §8.1), width H = 32 by default, leaky-ReLU (slope 0.2) everywhere.
//
// Layout (early join: config features enter before the GNN, at their nodes):
//   x = [node part 140 | opcode embedding 32], cfg = 100 x (config values mapped to 0..1)
//   h = MLP [H, H] ([x | cfg])                                          pre_mlp_1, pre_mlp_2
//   2 x residual GNN layer: h = h + MLP [H, H] ([A_sym h | cfg])         gnn_K_1, gnn_K_2 (K = 1, 2)
//       A_sym = D^-1/2 (A + A^T + I) D^-1/2
//   readout [mean_n h | L2norm(sum_n h) | L2norm(sum over configurable n of h)] -> Linear(3H, 1),
//   no bias                                                              readout
// Tile (late join: the GNN sees the kernel only, the config joins after pooling):
//   the same pre-MLP and GNN without cfg; g = [mean_n h | L2norm(sum_n h)];
//   score = readout(LReLU(head_1([g | LReLU(config_mlp(standardized config_feat))])))
// Differences from the paper's TF-GNN code, all of them documented choices: node features are
// the data pipeline's standardized columns rather than min-max scaled ones; graph-segment
// training (5 000-node segments) is not needed for the pruned graphs we train on.
// State-dict names: op_embedding.weight, pre_mlp_1.{node,config}.weight, pre_mlp_1.node.bias,
// pre_mlp_2.*, gnn_K_1.*, gnn_K_2.*, readout.weight; tile: pre_mlp_1.{weight,bias}, config_mlp.*,
// head_1.*, config_normalizer.{mean,std}.

#include "model/nn/zoomodel.h"

namespace tgraph::model {

class BaselineModelImpl : public ZooModelImpl
{
public:
    BaselineModelImpl(const ModelOptions& options, GraphKind kind);
    torch::Tensor score(const LayoutBatch& batch) override;
    torch::Tensor score(const TileBatch& batch) override;

    static constexpr int64_t kOpEmbedding = 32;
    static constexpr double kConfigScale = 100.0; // "multiplied by 100" (docs/model.md §8.1)
    static constexpr double kSlope = 0.2;

private:
    // The GNN layers on h (N, C, H); cfg / ids for the layout model, undefined for the tile one.
    torch::Tensor encode(const GraphTensors& graph, const torch::Tensor& cfg, int64_t configs);

    torch::nn::Embedding m_opEmbedding { nullptr };
    JoinLinear m_preJoin { nullptr }; // layout
    torch::nn::Linear m_pre1 { nullptr }; // tile
    torch::nn::Linear m_pre2 { nullptr };
    JoinLinear m_gnnJoin[2] { JoinLinear { nullptr }, JoinLinear { nullptr } }; // layout
    torch::nn::Linear m_gnnIn[2] { torch::nn::Linear { nullptr }, torch::nn::Linear { nullptr } }; // tile
    torch::nn::Linear m_gnnOut[2] { torch::nn::Linear { nullptr }, torch::nn::Linear { nullptr } };
    torch::nn::Linear m_configMlp { nullptr }; // tile
    torch::nn::Linear m_head1 { nullptr }; // tile
    torch::nn::Linear m_readout { nullptr };
};

} // namespace tgraph::model
