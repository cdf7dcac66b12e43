// SPDX-License-Identifier: Apache-2.0
#include "model/nn/layers.h"

#include "model/nn/fusedops.h"
#include "model/nn/products.h"
#include "model/nn/recomputedblock.h"
#include "model/nn/recomputedinput.h"
#include "model/nn/recomputedlayer.h"

#include <vector>

namespace tgraph::model {

namespace F = torch::nn::functional;

EdgeTensors prepareEdges(const torch::Tensor& edges, int64_t nodes, bool bidirectional)
{
    TORCH_CHECK(edges.dim() == 2 && edges.size(0) == 2 && edges.scalar_type() == torch::kInt64,
        "prepareEdges: edges must be (2, E) int64");
    EdgeTensors e;
    e.nodes = nodes;
    // Row 0 = consumer, row 1 = producer. PyG's default flow sends edge_index[0] -> edge_index[1],
    // so in the code a producer averages the features of its consumers.
    if (bidirectional) {
        e.source = torch::cat({ edges[0], edges[1] });
        e.target = torch::cat({ edges[1], edges[0] });
    } else {
        e.source = edges[0].contiguous();
        e.target = edges[1].contiguous();
    }
    // Both adjacency lists by a stable counting sort (edge order kept within a node, so sums
    // run in a fixed order).
    const int64_t count = e.target.size(0);
    const int64_t* source = e.source.data_ptr<int64_t>();
    const int64_t* target = e.target.data_ptr<int64_t>();
    std::vector<int64_t> inBegin(size_t(nodes) + 1, 0);
    std::vector<int64_t> outBegin(size_t(nodes) + 1, 0);
    for (int64_t k = 0; k < count; ++k) {
        TORCH_CHECK(source[k] >= 0 && source[k] < nodes && target[k] >= 0 && target[k] < nodes, "prepareEdges: edge ",
            k, " (", source[k], " -> ", target[k], ") names a node outside 0..", nodes - 1);
        ++inBegin[size_t(target[k]) + 1];
        ++outBegin[size_t(source[k]) + 1];
    }
    auto inverseDegree = torch::empty({ nodes, 1 }, torch::kFloat32);
    float* inv = inverseDegree.data_ptr<float>();
    for (int64_t i = 0; i < nodes; ++i) {
        inv[i] = 1.0f / float(std::max<int64_t>(inBegin[size_t(i) + 1], 1));
        inBegin[size_t(i) + 1] += inBegin[size_t(i)];
        outBegin[size_t(i) + 1] += outBegin[size_t(i)];
    }
    e.inverseDegree = inverseDegree;
    e.inBegin = torch::tensor(inBegin, torch::kInt64);
    e.outBegin = torch::tensor(outBegin, torch::kInt64);
    e.inSource = torch::empty({ count }, torch::kInt64);
    e.outTarget = torch::empty({ count }, torch::kInt64);
    int64_t* inSource = e.inSource.data_ptr<int64_t>();
    int64_t* outTarget = e.outTarget.data_ptr<int64_t>();
    std::vector<int64_t> inNext(inBegin.begin(), inBegin.end() - 1);
    std::vector<int64_t> outNext(outBegin.begin(), outBegin.end() - 1);
    for (int64_t k = 0; k < count; ++k) {
        inSource[inNext[size_t(target[k])]++] = source[k];
        outTarget[outNext[size_t(source[k])]++] = target[k];
    }
    return e;
}

torch::Tensor instanceNormNodes(const torch::Tensor& h)
{
    // Over the nodes, for every (config, channel) column of the (N, C * F) view: exactly what
    // batch normalization with batch statistics computes for a (batch, channels) input (biased
    // variance, eps inside the root, no affine). ATen's fused CPU kernels take 2 passes forward
    // and 2 backward where the composed ops took 5 and ~12: 44 -> 28 ms forward and 161 -> 67 ms
    // forward + backward for N = 984, C = 128, F = 256 here. A single node gives exact zeros
    // (batch_norm's rounding would leave ~1e-5, amplified by 1/sqrt(eps)).
    const int64_t n = h.size(0);
    if (n == 1)
        return h.mul(0.0);
    return torch::batch_norm(h.reshape({ n, -1 }), {}, {}, {}, {}, /*training=*/true, /*momentum=*/0.0,
        /*eps=*/1e-5, /*cudnn_enabled=*/false)
        .view(h.sizes());
}

ChannelGateImpl::ChannelGateImpl(int64_t channels, int64_t reduction)
{
    linear1 = register_module("linear1", torch::nn::Linear(channels, channels / reduction));
    linear2 = register_module("linear2", torch::nn::Linear(channels / reduction, channels));
}

torch::Tensor ChannelGateImpl::forward(const torch::Tensor& h, torch::Tensor* gate)
{
    const auto g = torch::sigmoid(linear2(torch::relu(linear1(h))));
    if (gate)
        *gate = g;
    return h * g;
}

CrossConfigAttentionImpl::CrossConfigAttentionImpl()
{
    temperature = register_parameter("temperature", torch::full({}, 0.5, torch::kFloat32));
}

torch::Tensor CrossConfigAttentionImpl::forward(const torch::Tensor& h, torch::Tensor* weights)
{
    // Softmax over the config axis (dim 1 of (N, C, F)): for every node and channel the C configs
    // of the batch compete, so a config's output depends on the other configs in its batch.
    const auto a = torch::softmax(h / temperature, 1);
    if (weights)
        *weights = a;
    return torch::cat({ h, h * a }, 2);
}

SageConvImpl::SageConvImpl(int64_t in, int64_t out)
{
    lin_l = register_module("lin_l", torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(true)));
    lin_r = register_module("lin_r", torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(false)));
}

torch::Tensor SageConvImpl::forward(const torch::Tensor& h, const EdgeTensors& edges)
{
    const int64_t n = h.size(0);
    const int64_t c = h.size(1);
    const int64_t out = lin_l->weight.size(0);
    // The mean is linear, so W_l * mean(h_j) = mean(W_l * h_j): project first, then move rows of
    // C * out instead of C * in floats.
    const auto projected = F::linear(h, lin_l->weight).reshape({ n, c * out });
    const auto messages = projected.index_select(0, edges.source);
    const auto summed = torch::zeros({ n, c * out }, h.options()).index_add_(0, edges.target, messages);
    const auto mean = (summed * edges.inverseDegree).view({ n, c, out });
    return F::linear(h, lin_r->weight, lin_l->bias) + mean;
}

torch::Tensor SageConvImpl::fusedForward(const torch::Tensor& h, const EdgeTensors& edges)
{
    return sageLayer(h, *this, edges);
}

namespace {

// Records a layer's gate values and (when defined) cross-config weights, (N, C, F) each, averaged
// over nodes and over channels.
void fillMaps(const torch::Tensor& gates, const torch::Tensor& weights, LayerAttention* attention)
{
    fillMeanOverNodes(gates, &attention->configs, &attention->channels, &attention->gate);
    fillMeanOverChannels(gates, &attention->nodes, &attention->nodeGate);
    if (weights.defined()) {
        fillMeanOverNodes(weights, &attention->configs, &attention->channels, &attention->cross);
        fillMeanOverChannels(weights, &attention->nodes, &attention->nodeCross);
    }
}

// Gate, then (when present) [x, cross(x)]; records both maps averaged over nodes when asked.
torch::Tensor gateThenCross(
    const torch::Tensor& h, ChannelGate& gate, CrossConfigAttention& cross, LayerAttention* attention)
{
    torch::Tensor gates;
    torch::Tensor weights;
    auto x = gate(h, attention ? &gates : nullptr);
    if (cross)
        x = cross(x, attention ? &weights : nullptr);
    if (attention)
        fillMaps(gates, weights, attention);
    return x;
}

// The maps gateThenCross records, for the fused path: the gate sigmoid(z) of x and the cross
// weights softmax over configs of (x * gate) / T, computed beside the fused kernel (same values).
void recordAttention(
    const torch::Tensor& x, const torch::Tensor& z, CrossConfigAttention& cross, LayerAttention* attention)
{
    torch::NoGradGuard noGrad;
    const auto gates = torch::sigmoid(z);
    fillMaps(gates, cross ? torch::softmax(x * gates / cross->temperature, 1) : torch::Tensor(), attention);
}

} // namespace

LinearActNormImpl::LinearActNormImpl(int64_t in, int64_t out, bool crossAttn)
{
    linear = register_module("linear", torch::nn::Linear(in, out));
    if (crossAttn)
        cross_attn = register_module("cross_attn", CrossConfigAttention());
    attn = register_module("attn", ChannelGate(out));
    // Authors' code: Xavier-normal weights and bias 0.01 for the f_in linears.
    torch::NoGradGuard noGrad;
    torch::nn::init::xavier_normal_(linear->weight);
    linear->bias.fill_(0.01);
}

torch::Tensor LinearActNormImpl::forward(const torch::Tensor& x, LayerAttention* attention)
{
    if (useFusedKernels(x) && x.dim() == 3) {
        // f_in[1]'s Linear in the process's precision (products.h); the composed path keeps ATen's.
        const auto& w = linear->weight;
        return afterLinear(
            productAdd(linear->bias, x.reshape({ -1, x.size(2) }), w.t()).view({ x.size(0), x.size(1), w.size(0) }),
            attention);
    }
    return afterLinear(linear(x), attention);
}

torch::Tensor LinearActNormImpl::afterLinear(const torch::Tensor& h, LayerAttention* attention)
{
    if (useFusedKernels(h)) {
        const auto x = instanceNormNodes(h);
        if (attention)
            recordAttention(x, attn->linear2(torch::relu(attn->linear1(x))), cross_attn, attention);
        return gatedLayer(x, *attn, {}, cross_attn ? cross_attn->temperature : torch::Tensor(), false, 0.0, false);
    }
    return torch::gelu(gateThenCross(instanceNormNodes(h), attn, cross_attn, attention));
}

GraphBlockImpl::GraphBlockImpl(int64_t in, int64_t out, bool crossAttn, double dropout, bool residualAfterActivation)
    : m_dropout(dropout)
    , m_residualAfterActivation(residualAfterActivation)
{
    conv = register_module("conv", SageConv(in, out));
    if (crossAttn)
        cross_attn = register_module("cross_attn", CrossConfigAttention());
    attn = register_module("attn", ChannelGate(out));
}

torch::Tensor GraphBlockImpl::forward(
    const torch::Tensor& h, const EdgeTensors& edges, LayerAttention* attention, const ConfigWindow& window)
{
    if (useFusedKernels(h)) {
        const auto eta = conv->fusedForward(instanceNormNodes(h), edges);
        if (attention)
            recordAttention(eta, attn->linear2(torch::relu(attn->linear1(eta))), cross_attn, attention);
        return gatedLayer(eta, *attn, h, cross_attn ? cross_attn->temperature : torch::Tensor(),
            m_residualAfterActivation, m_dropout, is_training(), window);
    }
    const auto eta = gateThenCross(conv(instanceNormNodes(h), edges), attn, cross_attn, attention);
    // Code: residual before the activation. Paper (docs/model.md §3.5): residual after it.
    const auto out = m_residualAfterActivation ? h + torch::gelu(eta) : torch::gelu(h + eta);
    return F::dropout(out, F::DropoutFuncOptions().p(m_dropout).training(is_training()));
}

void GraphEncoder::registerOn(torch::nn::Module& owner, int64_t inputWidth, const ModelOptions& options)
{
    TORCH_CHECK(options.hidden > 0 && options.blocks >= 0, "model: hidden must be > 0 and blocks >= 0");
    TORCH_CHECK(!options.useCrossAttn || options.hidden % 2 == 0, "model: hidden must be even with cross-attn");
    const int64_t width = options.layerWidth();
    m_hidden = options.hidden;
    TORCH_CHECK(width % kGateReduction == 0, "model: layer width must be a multiple of ", kGateReduction);
    linear = owner.register_module("linear", LinearActNorm(inputWidth, width, options.useCrossAttn));
    linear2 = owner.register_module("linear2", LinearActNorm(options.hidden, width, options.useCrossAttn));
    convs = owner.register_module("convs", torch::nn::ModuleList());
    m_blocks.clear();
    for (int64_t k = 0; k < options.blocks; ++k) {
        m_blocks.push_back(
            GraphBlock(options.hidden, width, options.useCrossAttn, options.dropout, options.residualAfterActivation));
        convs->push_back(m_blocks.back());
    }
}

torch::Tensor GraphEncoder::forward(
    torch::Tensor projected, const EdgeTensors& edges, AttentionMaps* maps, const ConfigWindow& window)
{
    auto layer = [maps](const char* name) -> LayerAttention* {
        if (!maps)
            return nullptr;
        maps->layers.push_back({});
        maps->layers.back().layer = name;
        return &maps->layers.back();
    };
    const bool recompute = !maps && torch::GradMode::is_enabled() && projected.requires_grad()
        && recomputes(m_recompute, projected.size(0), projected.size(1), m_hidden);
    if (recompute) {
        // f_in[0] and f_in[1] are one recomputed segment, so f_in[1]'s input (a whole activation)
        // is not held while the blocks run backward: on the fused path it keeps both layers'
        // normalized inputs (half an activation each with cross-attention) and is differentiated
        // by hand (recomputedinput.h); on the composed path it keeps its input. Each block keeps its input; on the
        // fused path it recomputes its per-config parts in chunks, and keeps eta where that costs
        // half an activation or its backward pass follows at once (recomputedblock.h). The
        // composed path recomputes through autograd (recomputedlayer.h). Modules and edges are
        // captured by value, as the backward pass runs after this call returns.
        auto h = useFusedKernels(projected)
            ? recomputedInputLayers(linear, linear2, projected)
            : recomputedLayers({ [f = linear](const torch::Tensor& x) mutable { return f->afterLinear(x); },
                                   [g = linear2](const torch::Tensor& x) mutable { return g->forward(x); } },
                projected, { linear->parameters(), linear2->parameters() });
        projected = torch::Tensor(); // the fused path keeps its own copy of what it needs
        for (size_t k = 0; k < m_blocks.size(); ++k) {
            GraphBlock block = m_blocks[k];
            h = useFusedKernels(h)
                ? recomputedBlock(block, h, edges, block->is_training(), window, k + 1 == m_blocks.size())
                : recomputedLayer([block, edges, window](
                                      const torch::Tensor& x) mutable { return block->forward(x, edges, nullptr, window); },
                    h, block->parameters());
        }
        return h;
    }
    if (maps)
        maps->layers.reserve(maps->layers.size() + 2 + m_blocks.size()); // keeps the pointers valid
    auto h = linear->afterLinear(projected, layer("linear"));
    h = linear2(h, layer("linear2"));
    for (size_t k = 0; k < m_blocks.size(); ++k)
        h = m_blocks[k](h, edges, layer(("convs." + std::to_string(k)).c_str()), window);
    return h;
}

void fillMeanOverNodes(const torch::Tensor& values, int64_t* configs, int64_t* channels, std::vector<float>* out)
{
    const auto mean = values.detach().mean(0).to(torch::kFloat32).contiguous();
    *configs = mean.size(0);
    *channels = mean.size(1);
    out->assign(mean.data_ptr<float>(), mean.data_ptr<float>() + mean.numel());
}

void fillMeanOverChannels(const torch::Tensor& values, int64_t* nodes, std::vector<float>* out)
{
    // (N, C, F) -> mean over F -> (C, N): one row of node values per config.
    const auto mean = values.detach().mean(2).to(torch::kFloat32).t().contiguous();
    *nodes = mean.size(1);
    out->assign(mean.data_ptr<float>(), mean.data_ptr<float>() + mean.numel());
}

} // namespace tgraph::model
