// SPDX-License-Identifier: Apache-2.0
#pragma once

// The model zoo: the reference cost models of the seed papers, trained, scored and compared with
// the same data pipeline, training loop, metrics and project store as TGraph (tgraphmodel.h).
//
//   tpugraphs-baseline  baselinemodel.h  the TpuGraphs paper's ResModel (docs/model.md §8.1)
//   kaufman             kaufmanmodel.h   Kaufman et al.'s learned TPU performance model (§8.2)
//   tpgnn               tpgnnmodel.h     GCN + TopK pooling + global pooling + MLP (docs/model.md §8.3)
//
// Each takes the batches TGraph takes (batch.h) and returns scores (C,), higher = slower, for a
// layout graph (configs as per-node config features of the configurable nodes) or a tile kernel
// (the kernel's config_feat, standardized by the buffers config_normalizer.{mean,std}).
//
// Shared input of every zoo model, per node n and config c (the papers' raw node features, here
// from the data pipeline's standardized numeric columns):
//   node part (N, 140): numeric 134 (Normalizer) | node_feat[:, 134:140] / 5 (layout minor-to-major
//                       values -1..5)
//   config part:        layout (C, Nc, 18): node_config_feat values (-1..5) mapped to 0..1 at the
//                       configurable nodes, absent (0) elsewhere; tile (C, 24): standardized config_feat
// A Linear over the concatenation [node part | opcode embedding | config part] is computed as
// JoinLinear: one Linear over the config-independent part per node plus a bias-free Linear of
// the config part added where it is present, which is the same function without building
// (N, C, F) inputs.

#include "model/nn/batch.h"
#include "model/nn/modeloptions.h"
#include "model/nn/tilemodel.h"

#include "core/graph/graph.h"

#include <torch/torch.h>

#include <memory>

namespace tgraph::model {

constexpr int64_t kZooNodeWidth = 140; // numeric 134 + node layout 6

// (N, 140) node part of every zoo model's input (see above).
torch::Tensor zooNodeFeatures(const GraphTensors& graph);
// (C, Nc, 18) float in 0..1 from the batch's config tokens (value + 2 -> (value + 1) / 6).
torch::Tensor zooLayoutConfigFeatures(const LayoutBatch& batch);

// Linear over [node | config] as described above: `node` (N, F) and a config part that is either
// per configurable node (C, Nc, Fc) with the node positions, or per config (C, Fc) for every node.
class JoinLinearImpl : public torch::nn::Module
{
public:
    JoinLinearImpl(int64_t nodeWidth, int64_t configWidth, int64_t out);
    // (N, C, out); `node` may also be (N, C, F) when it already depends on the config.
    torch::Tensor forward(const torch::Tensor& node, const torch::Tensor& configPart,
        const torch::Tensor& configNodeIds, int64_t configs);
    torch::nn::Linear node { nullptr }; // with bias
    torch::nn::Linear config { nullptr }; // without bias
};
TORCH_MODULE(JoinLinear);

// Symmetric-normalized adjacency with self loops, D^-1/2 (A + A^T + I) D^-1/2, as an edge list
// (duplicate edges counted). `alive` (N, C) restricts it per config to the nodes still in the
// graph (TopK pooling): edges between two alive nodes, degrees counted among them.
struct NormalizedAdjacency
{
    torch::Tensor source; // (2E,) both directions
    torch::Tensor target;
    int64_t nodes = 0;
};
NormalizedAdjacency symmetricAdjacency(const torch::Tensor& edges, int64_t nodes);
// out[i] = sum_j A_norm[i, j] h[j] for h (N, C, F); `alive` (N, C) float 0/1 or undefined (all).
torch::Tensor propagate(const NormalizedAdjacency& adjacency, const torch::Tensor& h, const torch::Tensor& alive = {});

class ZooModelImpl : public torch::nn::Module
{
public:
    ZooModelImpl(const ModelOptions& options, GraphKind kind);

    virtual torch::Tensor score(const LayoutBatch& batch) = 0;
    virtual torch::Tensor score(const TileBatch& batch) = 0;

    GraphKind kind() const { return m_kind; }
    const ModelOptions& options() const { return m_options; }
    // Tile models: the config_feat standardization (computeConfigStats of the training kernels).
    void setConfigStats(const ConfigStats& stats);
    ConfigStats configStats() const;

protected:
    // Tile models: (C, 24) standardized config_feat.
    torch::Tensor standardizedConfigs(const TileBatch& batch) const;
    int64_t configWidth() const { return m_kind == GraphKind::Layout ? kConfigSlots : kTileConfigWidth; }

    ModelOptions m_options;
    GraphKind m_kind;
    ConfigNormalizer m_configNormalizer { nullptr }; // tile only
};
using ZooModel = std::shared_ptr<ZooModelImpl>;

// A fresh model of options.family (not TGraph) for `kind` graphs; parameters from torch's
// generator (seed it first).
ZooModel makeZooModel(const ModelOptions& options, GraphKind kind);

// Scalar parameters of a model of any family (TGraph included) for `kind` graphs.
int64_t modelParameterCount(const ModelOptions& options, GraphKind kind);

} // namespace tgraph::model
