// SPDX-License-Identifier: Apache-2.0
#pragma once

// The TGraph tile model (docs/model.md §5): late fusion of the graph-level config_feat.
//
//   node input (N, 174) = [numeric 134 | node layout 6 x E_layout | E_op]; config axis of size 1
//   the same f_in[0] `linear`, f_in[1] `linear2` and blocks `convs.K` as the layout model
//   readout: per-channel max and mean over nodes (H each)
//   config branch `config_mlp`: Linear 24->H -> Dropout -> GELU -> Linear H->H on standardized config_feat
//   head `head`: [config | max | mean] (3H) -> Linear H -> Dropout -> GELU -> Linear H -> Dropout -> GELU
//                -> Linear 1 => scores (C,)
//
// Parameter and buffer names, in the style of the layout model's PyTorch state dict (docs/model.md §5; the sources do
// not give the authors' tile names; these are ours):
//   embedding_op.weight, embedding_layout_cfg.weight, linear.*, linear2.*, convs.K.* (as the layout
//   model), config_mlp.{0,3}.{weight,bias}, head.{0,3,6}.{weight,bias} (nn.Sequential indices),
//   buffers config_normalizer.mean (24,), config_normalizer.std (24,): config_feat standardization.
// With a config axis of size 1 the cross-config softmax is identically 1, so cross-attn only
// duplicates the self channels; it is kept (and its temperatures) for parity with the code.

#include "core/results/attentionmaps.h"
#include "model/nn/batch.h"
#include "model/nn/layers.h"
#include "model/nn/modeloptions.h"

#include <torch/torch.h>

#include <vector>

namespace tgraph::model {

// Per-column mean and population std (ddof 0; constant column -> std 1) of config_feat over the
// configs of all training kernels.
struct ConfigStats
{
    std::vector<double> mean = std::vector<double>(size_t(kTileConfigWidth), 0.0);
    std::vector<double> stddev = std::vector<double>(size_t(kTileConfigWidth), 1.0);
};
ConfigStats computeConfigStats(const std::vector<const TileGraph*>& graphs);

// The config_feat standardization as buffers, so a model registering it as "config_normalizer" has
// the buffers config_normalizer.mean and config_normalizer.std (24,).
class ConfigNormalizerImpl : public torch::nn::Module
{
public:
    ConfigNormalizerImpl();
    void set(const ConfigStats& stats);
    ConfigStats stats() const;
    torch::Tensor mean;
    torch::Tensor std;
};
TORCH_MODULE(ConfigNormalizer);

class TileModelImpl : public torch::nn::Module
{
public:
    explicit TileModelImpl(const ModelOptions& options = {});

    // Scores (C,) of the batch's configs; higher = slower. `attention` as in TGraphModel (configs = 1).
    torch::Tensor forward(const TileBatch& batch, AttentionMaps* attention = nullptr);

    void setConfigStats(const ConfigStats& stats);
    ConfigStats configStats() const;
    const ModelOptions& options() const { return m_options; }

    torch::nn::Embedding embedding_op { nullptr };
    torch::nn::Embedding embedding_layout_cfg { nullptr };
    GraphEncoder encoder; // linear, linear2, convs.K
    torch::nn::Sequential config_mlp { nullptr };
    torch::nn::Sequential head { nullptr };
    torch::Tensor configMean; // buffer config_normalizer.mean (24,)
    torch::Tensor configStd; // buffer config_normalizer.std (24,)

private:
    ModelOptions m_options;
    ConfigNormalizer m_configNormalizer { nullptr };
};
TORCH_MODULE(TileModel);

} // namespace tgraph::model
