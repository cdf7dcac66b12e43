// SPDX-License-Identifier: Apache-2.0
#pragma once

// The building blocks of the TGraph layout and tile models (docs/model.md §3.1-§3.2).
//
// Activation layout: every layer works on h of shape (N, C, F) = (nodes, configs, channels),
// contiguous. The sources (docs/model.md §3) write (C, N, F); the operators are the same with the two leading axes
// swapped, and node-major storage makes the SAGE gather/scatter move whole C*F rows.
//
// Float32 passes on the CPU run each layer's element-wise tail (gate, cross-config softmax,
// residual, GELU, dropout) and the SAGE mean as fused kernels (fusedops.h): one memory pass where
// the composed ops below take 5-10. The composed forms stay as the reference (TGRAPH_FUSED=0,
// double precision, tests).

#include "core/results/attentionmaps.h"
#include "model/nn/configwindow.h"
#include "model/nn/modeloptions.h"
#include "model/nn/recompute.h"

#include <torch/torch.h>

namespace tgraph::model {

// Edges prepared once per forward and shared by all blocks.
struct EdgeTensors
{
    torch::Tensor source; // (E',) int64: node whose features are sent (the consumer in code mode)
    torch::Tensor target; // (E',) int64: node that averages them (the producer in code mode)
    torch::Tensor inverseDegree; // (N, 1) float32: 1 / max(messages into the node, 1)
    int64_t nodes = 0;
    // The same edges as adjacency lists for the fused SAGE kernel (fusedops.h), int64: messages
    // into node i come from inSource[inBegin[i] .. inBegin[i + 1]), messages out of node j go to
    // outTarget[outBegin[j] .. outBegin[j + 1]), both in edge order.
    torch::Tensor inBegin; // (N + 1,)
    torch::Tensor inSource; // (E',)
    torch::Tensor outBegin; // (N + 1,)
    torch::Tensor outTarget; // (E',)
};

// `edges` is (2, E) int64 with row 0 = consumer, row 1 = producer (npz column order). Code mode:
// messages consumer -> producer only. `bidirectional` (paper) also sends producer -> consumer.
EdgeTensors prepareEdges(const torch::Tensor& edges, int64_t nodes, bool bidirectional);

// Normalizes over the node axis per (config, channel): biased variance, eps 1e-5, no affine
// parameters, no running statistics (identical in train and eval).
torch::Tensor instanceNormNodes(const torch::Tensor& h);

// "Channel-wise self-attention": g = sigmoid(W2 ReLU(W1 h + b1) + b2), out = h * g, at every
// (node, config) position. Code behaviour: no squeeze over nodes (the paper's SE block pools).
class ChannelGateImpl : public torch::nn::Module
{
public:
    explicit ChannelGateImpl(int64_t channels, int64_t reduction = kGateReduction);
    // `gate`, when given, receives g (N, C, F).
    torch::Tensor forward(const torch::Tensor& h, torch::Tensor* gate = nullptr);

    torch::nn::Linear linear1 { nullptr };
    torch::nn::Linear linear2 { nullptr };
};
TORCH_MODULE(ChannelGate);

// Cross-configuration attention: a = softmax over the config axis of h / T, with one raw
// learnable scalar T (init 0.5, no positivity constraint: code behaviour). Returns
// concat(h, h * a) on the channel axis, so the output has twice the channels.
class CrossConfigAttentionImpl : public torch::nn::Module
{
public:
    CrossConfigAttentionImpl();
    // `weights`, when given, receives a (N, C, F).
    torch::Tensor forward(const torch::Tensor& h, torch::Tensor* weights = nullptr);

    torch::Tensor temperature; // 0-d
};
TORCH_MODULE(CrossConfigAttention);

// GraphSAGE with mean aggregation as PyG's SAGEConv defaults: out_i = W_l mean_{j in S(i)} h_j + b_l
// + W_r h_i, S(i) = nodes sending to i (duplicates counted), mean 0 for nodes without messages.
// Computed as mean_j (W_l h_j): the same value, with the gather/scatter on the narrower output.
// Code behaviour. The paper writes f2(concat(h_i, sum_j f1(h_j))) followed by L2 normalization;
// that is not offered as a switch because it needs other parameters than the released weights.
class SageConvImpl : public torch::nn::Module
{
public:
    SageConvImpl(int64_t in, int64_t out);
    torch::Tensor forward(const torch::Tensor& h, const EdgeTensors& edges);
    // The same value through one (in -> 2 out) matrix product and the fused mean (fusedops.h).
    torch::Tensor fusedForward(const torch::Tensor& h, const EdgeTensors& edges);

    torch::nn::Linear lin_l { nullptr }; // with bias
    torch::nn::Linear lin_r { nullptr }; // without bias
};
TORCH_MODULE(SageConv);

// One f_in layer ("LinearActNorm" in the code): Linear -> InstanceNorm -> ChannelGate ->
// [concat(h, cross(h))] -> GELU. The Linear has Xavier-normal weights and bias 0.01. No dropout
// (code; the paper describes f_in as a 2-layer MLP with GELU).
class LinearActNormImpl : public torch::nn::Module
{
public:
    LinearActNormImpl(int64_t in, int64_t out, bool crossAttn);
    torch::Tensor forward(const torch::Tensor& x, LayerAttention* attention = nullptr);
    // Everything after the Linear, for callers that computed the Linear themselves.
    torch::Tensor afterLinear(const torch::Tensor& h, LayerAttention* attention = nullptr);

    torch::nn::Linear linear { nullptr };
    CrossConfigAttention cross_attn { nullptr }; // null when cross-attn is off
    ChannelGate attn { nullptr };
};
TORCH_MODULE(LinearActNorm);

// Graph block (code): s = h; eta = Gate(SAGE(InstanceNorm(h))); h = Dropout(GELU(s + [eta, cross(eta)])).
// With `residualAfterActivation` (paper): h = Dropout(s + GELU([eta, cross(eta)])). The fused
// path's dropout keys its mask by the configs' place in the batch `window` names (configwindow.h).
class GraphBlockImpl : public torch::nn::Module
{
public:
    GraphBlockImpl(int64_t in, int64_t out, bool crossAttn, double dropout, bool residualAfterActivation);
    torch::Tensor forward(const torch::Tensor& h, const EdgeTensors& edges, LayerAttention* attention = nullptr,
        const ConfigWindow& window = {});

    double dropout() const { return m_dropout; }
    bool residualAfterActivation() const { return m_residualAfterActivation; }

    SageConv conv { nullptr };
    CrossConfigAttention cross_attn { nullptr };
    ChannelGate attn { nullptr };

private:
    double m_dropout;
    bool m_residualAfterActivation;
};
TORCH_MODULE(GraphBlock);

// The stack both models share: f_in[0] `linear`, f_in[1] `linear2`, blocks `convs.K`. Registered
// directly on the owning model so the parameter names are the authors' (docs/model.md §3.3).
class GraphEncoder
{
public:
    void registerOn(torch::nn::Module& owner, int64_t inputWidth, const ModelOptions& options);
    // `projected` is f_in[0]'s Linear already applied: (N, C, layerWidth). Returns (N, C, H).
    // While gradients are recorded and no maps are asked for, each layer recomputes its
    // activations in the backward pass as setRecompute() says (recompute.h; default Auto).
    // `window`: the configs' place in a larger batch, for the blocks' dropout (configwindow.h).
    // Taken by value: when recomputing, it is let go once f_in has run (pass a temporary or move
    // it in, so that its memory is free while the blocks run).
    torch::Tensor forward(
        torch::Tensor projected, const EdgeTensors& edges, AttentionMaps* maps, const ConfigWindow& window = {});
    void setRecompute(RecomputeMode mode) { m_recompute = mode; }
    RecomputeMode recompute() const { return m_recompute; }
    const std::vector<GraphBlock>& blocks() const { return m_blocks; }
    int64_t hidden() const { return m_hidden; } // H: the channels of every layer's output

    LinearActNorm linear { nullptr };
    LinearActNorm linear2 { nullptr };
    torch::nn::ModuleList convs { nullptr };

private:
    std::vector<GraphBlock> m_blocks;
    int64_t m_hidden = 0;
    RecomputeMode m_recompute = RecomputeMode::Auto;
};

// (N, C, F) -> plain configs x channels floats, mean over nodes.
void fillMeanOverNodes(const torch::Tensor& values, int64_t* configs, int64_t* channels, std::vector<float>* out);
// values (N, C, F) -> out (C x N row-major, mean over F), *nodes = N.
void fillMeanOverChannels(const torch::Tensor& values, int64_t* nodes, std::vector<float>* out);

} // namespace tgraph::model
