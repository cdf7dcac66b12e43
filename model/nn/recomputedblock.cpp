// SPDX-License-Identifier: Apache-2.0
#include "model/nn/recomputedblock.h"

#include "model/nn/fusedinternal.h"
#include "model/nn/fusedkernels.h"
#include "model/nn/products.h"

#include <algorithm>

namespace tgraph::model {

namespace {

using fused::gateHidden;
using fused::Moments;
using fused::momentsOf;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// The function's inputs after h, in this order (temperature only with cross-attention).
enum Param : size_t { LinL = 0, LinR, BiasL, W1, B1, W2, B2, Temperature };

struct BlockHolder : torch::CustomClassHolder
{
    EdgeTensors edges;
    ConfigWindow window;
    bool cross = false;
    bool residualAfterActivation = false;
    double dropout = 0.0;
    int64_t chunk = 1; // configurations per chunk of the per-config parts
    int64_t nodeChunk = 1; // nodes per chunk of the tail's backward pass
    bool keepEta = false; // the forward pass keeps eta and the gate's hidden layer for the backward pass
    bool keepZ = false; // ... and z
};

// Configs [c0, c0 + k) of h normalized: (N k, F), rows node-major as in h.
torch::Tensor normalizedChunk(const torch::Tensor& h, const Moments& m, int64_t c0, int64_t k)
{
    const int64_t n = h.size(0);
    const int64_t f = h.size(2);
    auto out = torch::empty({ n * k, f }, h.options());
    kernels::normalizeColumns(n, k * f, h.size(1) * f, h.data_ptr<float>() + c0 * f, m.mean.data_ptr<float>() + c0 * f,
        m.invStd.data_ptr<float>() + c0 * f, out.data_ptr<float>());
    return out;
}

// eta = SAGE(InstanceNorm(h)), (N, C, W), without gradients, `chunk` configurations at a time
// (both are per configuration). weight = [W_l; W_r], (2W, in).
torch::Tensor blockEta(const torch::Tensor& h, const Moments& m, const torch::Tensor& weight,
    const torch::Tensor& biasL, const kernels::EdgeLists& edges, int64_t chunk)
{
    const int64_t n = h.size(0);
    const int64_t c = h.size(1);
    const int64_t w = biasL.size(0);
    auto eta = torch::empty({ n, c, w }, h.options());
    for (int64_t c0 = 0; c0 < c; c0 += chunk) {
        const int64_t k = std::min(chunk, c - c0);
        const auto combined = product(normalizedChunk(h, m, c0, k), weight.t());
        if (k == c) {
            kernels::sageMeanForward(edges, k, w, combined.data_ptr<float>(), biasL.data_ptr<float>(), eta.data_ptr<float>());
            break;
        }
        auto part = torch::empty({ n, k, w }, h.options());
        kernels::sageMeanForward(edges, k, w, combined.data_ptr<float>(), biasL.data_ptr<float>(), part.data_ptr<float>());
        eta.narrow(1, c0, k).copy_(part);
    }
    return eta;
}

kernels::GateActivation tail(const torch::Tensor& eta, const torch::Tensor& z, const torch::Tensor& h,
    const std::vector<torch::Tensor>& p, const BlockHolder& b, uint64_t seed)
{
    kernels::GateActivation a = fused::describe(
        eta, z, h, b.cross ? p[Temperature] : torch::Tensor(), b.residualAfterActivation, b.dropout, seed);
    a.zBias = p[B2].data_ptr<float>();
    a.configOffset = b.window.offset;
    a.configTotal = b.window.total;
    return a;
}

class RecomputedBlockFunction : public torch::autograd::Function<RecomputedBlockFunction>
{
public:
    // Runs without gradient recording (LibTorch runs a custom function's forward so).
    static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& hIn, torch::TensorList parameters,
        const c10::intrusive_ptr<BlockHolder>& holder)
    {
        const auto h = hIn.contiguous();
        std::vector<torch::Tensor> p;
        for (const auto& t : parameters)
            p.push_back(t.contiguous());
        const auto lists = fused::edgeLists(holder->edges);
        const Moments moments = momentsOf(h);
        const auto eta = blockEta(h, moments, torch::cat({ p[LinL], p[LinR] }, 0), p[BiasL], lists, holder->chunk);
        const auto hidden = gateHidden(eta, p[W1], p[B1]);
        const auto z = product(hidden, p[W2].t()).view(eta.sizes());
        const uint64_t seed = holder->dropout > 0.0 ? fused::drawSeed() : 0;
        const kernels::GateActivation a = tail(eta, z, h, p, *holder, seed);
        auto out = torch::empty({ h.size(0), h.size(1), a.outWidth() }, h.options());
        kernels::gateActivationForward(a, out.data_ptr<float>());
        if (holder->keepEta) {
            ctx->saved_data["eta"] = eta;
            ctx->saved_data["hidden"] = hidden;
        }
        if (holder->keepZ)
            ctx->saved_data["z"] = z;
        std::vector<torch::Tensor> toSave { hIn };
        toSave.insert(toSave.end(), parameters.begin(), parameters.end());
        ctx->save_for_backward(toSave);
        ctx->saved_data["seed"] = int64_t(seed);
        ctx->saved_data["mean"] = moments.mean;
        ctx->saved_data["invStd"] = moments.invStd;
        ctx->saved_data["holder"] = c10::IValue::make_capsule(holder);
        return out;
    }

    static variable_list backward(AutogradContext* ctx, variable_list grads)
    {
        const auto saved = ctx->get_saved_variables();
        const auto holder = c10::static_intrusive_pointer_cast<BlockHolder>(ctx->saved_data["holder"].toCapsule());
        const auto seed = uint64_t(ctx->saved_data["seed"].toInt());
        const auto h = saved[0].detach().contiguous();
        std::vector<torch::Tensor> p;
        for (size_t k = 1; k < saved.size(); ++k)
            p.push_back(saved[k].detach().contiguous());
        const int64_t n = h.size(0);
        const int64_t c = h.size(1);
        const int64_t in = h.size(2);
        const int64_t w = p[BiasL].size(0);
        const auto lists = fused::edgeLists(holder->edges);
        const auto weight = torch::cat({ p[LinL], p[LinR] }, 0);
        torch::NoGradGuard noGrad;

        // The tail, whole: the kernel writes the residual's gradient over the incoming one.
        torch::Tensor grad = grads[0].contiguous();
        const Moments moments { ctx->saved_data["mean"].toTensor(), ctx->saved_data["invStd"].toTensor() };
        torch::Tensor eta;
        torch::Tensor hidden;
        torch::Tensor z;
        // Kept ones are taken out of the context, so that they die here (a second backward pass
        // through a retained graph rebuilds them).
        const auto take = [&](const char* key, torch::Tensor* t) {
            const auto it = ctx->saved_data.find(key);
            if (it == ctx->saved_data.end())
                return;
            *t = it->second.toTensor();
            ctx->saved_data.erase(it);
        };
        take("eta", &eta);
        take("hidden", &hidden);
        take("z", &z);
        if (!eta.defined()) {
            eta = blockEta(h, moments, weight, p[BiasL], lists, holder->chunk);
            hidden = gateHidden(eta, p[W1], p[B1]);
        }
        if (!z.defined())
            z = product(hidden, p[W2].t()).view(eta.sizes());

        // The tail and the gate's products, a few nodes at a time (the cross-config attention is
        // per node): the kernel writes the residual's gradient over the incoming one and z's
        // gradient over z (it reads each before it writes it), and eta's gradient goes over eta
        // once the node's gate products have read it, so no (N, C, W) gradient is allocated.
        fused::GateProductGradients gate { torch::zeros_like(p[W1]), torch::zeros_like(p[B1]),
            torch::zeros_like(p[W2]) };
        auto gradB2 = torch::zeros({ w }, h.options());
        auto gradB2Part = torch::empty({ w }, h.options());
        double dT = 0.0;
        for (int64_t n0 = 0; n0 < n; n0 += holder->nodeChunk) {
            const int64_t k = std::min(holder->nodeChunk, n - n0);
            const auto etaPart = eta.narrow(0, n0, k);
            const auto zPart = z.narrow(0, n0, k);
            const auto gradPart = grad.narrow(0, n0, k);
            kernels::GateActivation a = tail(etaPart, zPart, h.narrow(0, n0, k), p, *holder, seed);
            a.nodeOffset = n0;
            auto gradEtaPart = torch::empty_like(etaPart);
            dT += kernels::gateActivationBackward(a, gradPart.data_ptr<float>(), gradEtaPart.data_ptr<float>(),
                zPart.data_ptr<float>(), gradPart.data_ptr<float>(), gradB2Part.data_ptr<float>());
            gradB2.add_(gradB2Part);
            fused::addGateProductGradients(zPart.view({ k * c, w }), hidden.narrow(0, n0 * c, k * c), etaPart, p[W1],
                p[W2], gradEtaPart, gate);
            etaPart.copy_(gradEtaPart);
        }
        z = torch::Tensor();
        hidden = torch::Tensor();
        const torch::Tensor gradEta = eta;
        eta = torch::Tensor();

        // SAGE and the instance norm, chunk by chunk; their input gradient is added to the residual's.
        auto gradWeight = torch::zeros({ 2 * w, in }, h.options());
        auto gradBiasL = torch::zeros({ w }, h.options());
        auto gradBiasPart = torch::empty({ w }, h.options());
        for (int64_t c0 = 0; c0 < c; c0 += holder->chunk) {
            const int64_t k = std::min(holder->chunk, c - c0);
            const auto xn = normalizedChunk(h, moments, c0, k);
            const auto gradOut = gradEta.narrow(1, c0, k).contiguous();
            auto gradCombined = torch::empty({ n * k, 2 * w }, h.options());
            kernels::sageMeanBackward(
                lists, k, w, gradOut.data_ptr<float>(), gradCombined.data_ptr<float>(), gradBiasPart.data_ptr<float>());
            gradBiasL.add_(gradBiasPart);
            productInto(gradWeight, gradCombined.t(), xn, true);
            const auto gradXn = product(gradCombined, weight);
            kernels::normalizeColumnsBackward(n, k * in, gradXn.data_ptr<float>(), xn.data_ptr<float>(),
                moments.invStd.data_ptr<float>() + c0 * in, grad.data_ptr<float>() + c0 * in, c * in, true);
        }

        variable_list out(saved.size() + 1); // h, the parameters, the holder
        const auto set = [&](size_t slot, const torch::Tensor& g) {
            if (saved[slot].requires_grad())
                out[slot] = g;
        };
        set(0, grad);
        set(1 + LinL, gradWeight.narrow(0, 0, w));
        set(1 + LinR, gradWeight.narrow(0, w, w));
        set(1 + BiasL, gradBiasL);
        set(1 + W1, gate.w1);
        set(1 + B1, gate.b1);
        set(1 + W2, gate.w2);
        set(1 + B2, gradB2);
        if (holder->cross)
            set(1 + Temperature, torch::full({}, dT, p[Temperature].options()));
        return out;
    }
};

} // namespace

int64_t blockChunkConfigs(int64_t nodes, int64_t width, int64_t bytes)
{
    const int64_t perConfig = std::max<int64_t>(1, nodes * width * int64_t(sizeof(float)));
    return std::max<int64_t>(1, bytes / perConfig);
}

torch::Tensor recomputedBlock(const GraphBlock& block, const torch::Tensor& h, const EdgeTensors& edges, bool training,
    const ConfigWindow& window, bool last, int64_t chunkBytes)
{
    fused::checkActivation(h, "h");
    TORCH_CHECK(h.size(0) == edges.nodes, "recomputed block: h must have the graph's ", edges.nodes, " nodes");
    TORCH_CHECK(block->conv->lin_l->weight.size(1) == h.size(2), "recomputed block: the SAGE layer's width does not match h");
    TORCH_CHECK(window.offset >= 0 && (window.total == 0 ? window.offset == 0 : window.offset + h.size(1) <= window.total),
        "recomputed block: configs ", window.offset, " .. ", window.offset + h.size(1) - 1, " are not in a batch of ",
        window.total);
    auto holder = c10::make_intrusive<BlockHolder>();
    holder->edges = edges;
    holder->window = window;
    holder->cross = bool(block->cross_attn);
    holder->residualAfterActivation = block->residualAfterActivation();
    holder->dropout = training ? block->dropout() : 0.0;
    holder->chunk = blockChunkConfigs(h.size(0), h.size(2), chunkBytes);
    holder->nodeChunk = std::max<int64_t>(1, chunkBytes / std::max<int64_t>(1, h.size(1) * h.size(2) * int64_t(sizeof(float))));
    // With cross-attention eta and the gate's hidden layer are a little over half an activation: the
    // block keeps them (the backward pass then recomputes only the normalized input and z, whose
    // products are cheap); without, eta is a whole one and only the last block keeps it.
    holder->keepEta = last || 2 * block->conv->lin_l->weight.size(0) <= h.size(2);
    holder->keepZ = last;
    std::vector<torch::Tensor> parameters { block->conv->lin_l->weight, block->conv->lin_r->weight,
        block->conv->lin_l->bias, block->attn->linear1->weight, block->attn->linear1->bias,
        block->attn->linear2->weight, block->attn->linear2->bias };
    if (holder->cross)
        parameters.push_back(block->cross_attn->temperature);
    return RecomputedBlockFunction::apply(h, torch::TensorList(parameters), holder);
}

} // namespace tgraph::model
