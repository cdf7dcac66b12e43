// SPDX-License-Identifier: Apache-2.0
#pragma once

// The TGraph layout model, exactly the forward pass of the authors' code (docs/model.md
// §3), with the cheap paper-vs-code choices of §3.5 as ModelOptions switches.
//
//   X0 (C, N, 246) = [numeric 134 | config tokens 18 x E_layout | node layout 6 x E_layout | E_op]
//   (+ 5 simulator input columns per configurable node with ModelOptions::simInputs, §4.9)
//   f_in[0] `linear`, f_in[1] `linear2`: Linear -> InstanceNorm -> ChannelGate -> [cross] -> GELU
//   blocks `convs.K`: Dropout(GELU(h + [eta, cross(eta)])), eta = Gate(SAGE(InstanceNorm(h)))
//   mean over nodes -> `classifier` Linear(H, 1) -> scores (C,); higher = slower.
//
// Parameter names are the PyTorch state-dict names of the authors' module (docs/model.md §3.3), so the
// weights npz (weights.h) is a loop over named_parameters().

#include "core/results/attentionmaps.h"
#include "model/nn/batch.h"
#include "model/nn/layers.h"
#include "model/nn/modeloptions.h"

#include <torch/torch.h>

namespace tgraph::model {

class TGraphModelImpl : public torch::nn::Module
{
public:
    explicit TGraphModelImpl(const ModelOptions& options = {});

    // Scores (C,) of the batch's configs. `attention`, when given, is filled with one entry per
    // layer (gates and cross-config weights averaged over nodes). Dropout follows train()/eval().
    torch::Tensor forward(const LayoutBatch& batch, AttentionMaps* attention = nullptr);

    // h (N, C, H): the node embeddings after the last block, before mean pooling. forward() is
    // exactly classifier(h.mean(0)), so w . h[n, c] / N is node n's share of score(c) - bias
    // (model/infer/explain.h). With cross-attn, h of config c depends on the other configs of the batch,
    // as the scores do.
    torch::Tensor nodeEmbeddings(const LayoutBatch& batch, AttentionMaps* attention = nullptr);
    // The same with the configurable nodes' config-token embeddings given as (C, Nc, 18, 4) instead
    // of looked up in E_layout: differentiable with respect to them (gradient x input, explain.h).
    torch::Tensor nodeEmbeddings(const LayoutBatch& batch, const torch::Tensor& configEmbeddings);
    // E_layout[token] of the batch's configurable nodes: (C, Nc, 18, 4).
    torch::Tensor configEmbeddings(const LayoutBatch& batch);

    // The X0 (C, N, 246) of docs/model.md §2.7, built literally from the embedding tables. forward() never builds
    // it: it uses inputProjection(), which equals `linear.linear` applied to X0.
    torch::Tensor inputFeatures(const LayoutBatch& batch);
    // f_in[0]'s Linear applied to X0, as (N, C, layerWidth), without materializing X0: the
    // config-independent columns are projected once per node, the 18 config tokens go through a
    // (18 x 8) table of projected embeddings, and non-configurable nodes (all tokens 0) share one row.
    torch::Tensor inputProjection(const LayoutBatch& batch);
    // The same with the config-token embeddings of the configurable nodes given (C, Nc, 18, 4).
    torch::Tensor inputProjection(const LayoutBatch& batch, const torch::Tensor& configEmbeddings);

    // forward()'s scores computed node slice by node slice in the memory of one (N, C, H)
    // activation (slicedscoring.h), without gradients or dropout; `sliceNodes` 0 = automatic.
    // forward() takes this path by itself in eval mode without gradients when cross-attention makes
    // the batch indivisible and its activations are large (docs/model.md §6.1).
    torch::Tensor scoreBySlices(const LayoutBatch& batch, int64_t sliceNodes = 0);

    const ModelOptions& options() const { return m_options; }

    torch::nn::Embedding embedding_op { nullptr }; // (opTableSize, 16)
    torch::nn::Embedding embedding_layout_cfg { nullptr }; // (8, 4), shared by config and node layout tokens
    torch::nn::Linear classifier { nullptr }; // (1, H)
    // (W, 5), no bias: the simulator inputs' columns of f_in[0] (ModelOptions::simInputs only).
    torch::nn::Linear sim_input { nullptr };
    GraphEncoder encoder; // linear, linear2, convs.K

private:
    // inputProjection() for some nodes: the config-independent part of every node projected once,
    // the configurable nodes' rows from their tokens (or given embeddings) when asked.
    class Projector
    {
    public:
        Projector(TGraphModelImpl& model, const LayoutBatch& batch);
        // Rows begin .. end - 1 of inputProjection(): (end - begin, C, W), written into `into` when
        // it is defined (contiguous, of that shape) and returned.
        torch::Tensor rows(int64_t begin, int64_t end, const torch::Tensor* configEmbeddings = nullptr,
            torch::Tensor into = {}) const;

    private:
        const LayoutBatch& m_batch;
        torch::Tensor m_perNode; // (N, W): bias + the config-independent columns
        torch::Tensor m_configWeight; // (W, 72): the config columns of the Linear
        torch::Tensor m_unconfigured; // (W,): the config columns of a node with all tokens 0
        torch::Tensor m_table; // (18 * 8, W): slot k holding token v, projected
        torch::Tensor m_simWeight; // (W, 5) for a model with simulator inputs, else undefined
        std::vector<int64_t> m_slotOf; // node -> its row in configNodeIds, or -1
    };

    // inputProjection() with the config part from the tokens (configEmbeddings == nullptr) or from
    // the given embeddings.
    torch::Tensor project(const LayoutBatch& batch, const torch::Tensor* configEmbeddings);

    ModelOptions m_options;
};
TORCH_MODULE(TGraphModel);

// Configurations per sub-batch of a pass without gradients and without cross-attention over a
// graph of `nodes` nodes: the most whose (N, C, H) activation fits in 64 MiB, at least one
// (docs/model.md §6.1).
int64_t scoreSubBatchConfigs(int64_t nodes, int64_t hidden);

// Number of scalar parameters.
int64_t parameterCount(const torch::nn::Module& module);

} // namespace tgraph::model
