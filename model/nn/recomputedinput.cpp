// SPDX-License-Identifier: Apache-2.0
#include "model/nn/recomputedinput.h"

#include "model/nn/fusedinternal.h"
#include "model/nn/fusedkernels.h"
#include "model/nn/products.h"

namespace tgraph::model {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// A layer's gate and cross-attention temperature (undefined without cross-attention).
struct Gate
{
    torch::Tensor w1, b1, w2, b2, temperature;
};

struct GateGradients
{
    fused::GateProductGradients products;
    torch::Tensor b2, temperature;
};

// What a layer's backward pass needs: its normalized input and the gate's hidden layer and z.
struct LayerState
{
    fused::Moments moments;
    torch::Tensor xn; // (N, C, W)
    torch::Tensor hidden; // (N C, W / r)
    torch::Tensor z; // (N, C, W)
};

kernels::GateActivation tailOf(const LayerState& s, const Gate& g)
{
    kernels::GateActivation a = fused::describe(s.xn, s.z, torch::Tensor(), g.temperature, false, 0.0, 0);
    a.zBias = g.b2.data_ptr<float>();
    return a;
}

// The gate's products of s.xn.
void gate(LayerState& s, const Gate& g)
{
    s.hidden = fused::gateHidden(s.xn, g.w1, g.b1);
    s.z = product(s.hidden, g.w2.t()).view(s.xn.sizes());
}

// Instance norm of u (in place when `own`), then the gate's products.
LayerState normalizeAndGate(const torch::Tensor& u, const Gate& g, bool own)
{
    LayerState s;
    s.moments = fused::momentsOf(u);
    s.xn = own ? u : torch::empty_like(u);
    const int64_t cols = u.size(1) * u.size(2);
    kernels::normalizeColumns(u.size(0), cols, cols, u.data_ptr<float>(), s.moments.mean.data_ptr<float>(),
        s.moments.invStd.data_ptr<float>(), s.xn.data_ptr<float>());
    gate(s, g);
    return s;
}

// The layer's output GELU([x, x * softmax_C(x / T)]) (or GELU(x)), x = xn * sigmoid(z).
torch::Tensor tailForward(const LayerState& s, const Gate& g)
{
    const kernels::GateActivation a = tailOf(s, g);
    auto out = torch::empty({ s.xn.size(0), s.xn.size(1), a.outWidth() }, s.xn.options());
    kernels::gateActivationForward(a, out.data_ptr<float>());
    return out;
}

// From the gradient of the layer's output: the gate's gradients, and the gradient of the layer's
// input before the norm, returned. s.xn is left as it was (the function keeps it); s is let go.
torch::Tensor layerBackward(LayerState& s, const Gate& g, const torch::Tensor& gradOut, GateGradients* out)
{
    const int64_t n = s.xn.size(0);
    const int64_t c = s.xn.size(1);
    const int64_t w = s.xn.size(2);
    auto gradXn = torch::empty_like(s.xn);
    auto gradZ = s.z.view({ n * c, w }); // the kernel reads a node's z before writing its gradient
    out->b2 = torch::empty({ w }, s.xn.options());
    const double dT = kernels::gateActivationBackward(tailOf(s, g), gradOut.data_ptr<float>(),
        gradXn.data_ptr<float>(), gradZ.data_ptr<float>(), nullptr, out->b2.data_ptr<float>());
    s.z = torch::Tensor();
    if (g.temperature.defined())
        out->temperature = torch::full({}, dT, g.temperature.options());
    out->products = fused::gateProductsBackward(gradZ, s.hidden, s.xn, g.w1, g.w2, gradXn);
    gradZ = torch::Tensor();
    s.hidden = torch::Tensor();
    const int64_t cols = c * w;
    // written over gradXn (the kernel reads each element before it writes it)
    kernels::normalizeColumnsBackward(n, cols, gradXn.data_ptr<float>(), s.xn.data_ptr<float>(),
        s.moments.invStd.data_ptr<float>(), gradXn.data_ptr<float>(), cols, false);
    s = LayerState();
    return gradXn;
}

// The function's parameter inputs: f_in[0]'s gate (w1, b1, w2, b2[, T]), then f_in[1]'s Linear
// (weight, bias) and gate (w1, b1, w2, b2[, T]).
struct Parameters
{
    Gate first;
    torch::Tensor weight, bias;
    Gate second;
};

Parameters unpack(const std::vector<torch::Tensor>& p, bool cross)
{
    size_t k = 0;
    auto gate = [&] {
        Gate g { p[k], p[k + 1], p[k + 2], p[k + 3], cross ? p[k + 4] : torch::Tensor() };
        k += cross ? 5 : 4;
        return g;
    };
    Parameters out;
    out.first = gate();
    out.weight = p[k];
    out.bias = p[k + 1];
    k += 2;
    out.second = gate();
    return out;
}

struct InputHolder : torch::CustomClassHolder
{
    bool cross = false;
};

torch::Tensor linearOf(const torch::Tensor& h, const Parameters& p)
{
    const int64_t n = h.size(0);
    const int64_t c = h.size(1);
    return productAdd(p.bias, h.view({ n * c, h.size(2) }), p.weight.t()).view({ n, c, p.weight.size(0) });
}

class RecomputedInputFunction : public torch::autograd::Function<RecomputedInputFunction>
{
public:
    static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& projectedIn, torch::TensorList parameters,
        const c10::intrusive_ptr<InputHolder>& holder)
    {
        const auto projected = projectedIn.contiguous();
        std::vector<torch::Tensor> list;
        for (const auto& t : parameters)
            list.push_back(t.contiguous());
        const Parameters p = unpack(list, holder->cross);
        // Kept: both layers' normalized inputs and statistics (f_in[0]'s instead of its input: the
        // same size); not f_in[1]'s input, twice as wide.
        torch::Tensor h1;
        {
            const LayerState first = normalizeAndGate(projected, p.first, false);
            h1 = tailForward(first, p.first);
            ctx->saved_data["xn0"] = first.xn;
            ctx->saved_data["mean0"] = first.moments.mean;
            ctx->saved_data["invStd0"] = first.moments.invStd;
        }
        const LayerState second = normalizeAndGate(linearOf(h1, p), p.second, true);
        h1 = torch::Tensor();
        auto out = tailForward(second, p.second);
        ctx->save_for_backward(parameters.vec());
        ctx->saved_data["xn1"] = second.xn;
        ctx->saved_data["mean1"] = second.moments.mean;
        ctx->saved_data["invStd1"] = second.moments.invStd;
        ctx->saved_data["inputGrad"] = projectedIn.requires_grad();
        ctx->saved_data["holder"] = c10::IValue::make_capsule(holder);
        return out;
    }

    static variable_list backward(AutogradContext* ctx, variable_list grads)
    {
        const auto saved = ctx->get_saved_variables();
        const auto holder = c10::static_intrusive_pointer_cast<InputHolder>(ctx->saved_data["holder"].toCapsule());
        std::vector<torch::Tensor> list;
        for (const auto& t : saved)
            list.push_back(t.detach().contiguous());
        const Parameters p = unpack(list, holder->cross);
        torch::NoGradGuard noGrad;
        const auto moments = [&](const char* mean, const char* invStd) {
            return fused::Moments { ctx->saved_data[mean].toTensor(), ctx->saved_data[invStd].toTensor() };
        };

        // The gates again from the kept normalized inputs (left as they are: a second backward pass
        // through a retained graph reads them again): f_in[1]'s backward pass, then f_in[0]'s output
        // once more for the Linear's weight gradient.
        torch::Tensor grad = grads[0].contiguous();
        LayerState second;
        second.xn = ctx->saved_data["xn1"].toTensor();
        second.moments = moments("mean1", "invStd1");
        gate(second, p.second);
        const int64_t n = second.xn.size(0);
        const int64_t c = second.xn.size(1);
        GateGradients g2;
        const torch::Tensor gradU
            = layerBackward(second, p.second, grad, &g2).view({ n * c, p.weight.size(0) });
        LayerState first;
        first.xn = ctx->saved_data["xn0"].toTensor();
        first.moments = moments("mean0", "invStd0");
        gate(first, p.first);
        torch::Tensor h1 = tailForward(first, p.first);
        const auto gradWeight = product(gradU.t(), h1.view({ n * c, h1.size(2) }));
        const auto gradBias = gradU.sum(0);
        h1 = torch::Tensor();
        // h1's gradient, written over the incoming gradient (both (N, C, H)).
        torch::Tensor gradH1 = grad.view({ n * c, grad.size(2) });
        productInto(gradH1, gradU, p.weight, false);
        GateGradients g1;
        const torch::Tensor gradProjected = layerBackward(first, p.first, grad, &g1);

        variable_list out(saved.size() + 2); // projected, the parameters, the holder
        if (ctx->saved_data["inputGrad"].toBool())
            out[0] = gradProjected;
        size_t slot = 0;
        const auto set = [&](const torch::Tensor& g) {
            if (saved[slot].requires_grad())
                out[slot + 1] = g;
            ++slot;
        };
        const GateGradients* order[] = { &g1, nullptr, &g2 };
        for (const GateGradients* gg : order) {
            if (!gg) {
                set(gradWeight);
                set(gradBias);
                continue;
            }
            set(gg->products.w1);
            set(gg->products.b1);
            set(gg->products.w2);
            set(gg->b2);
            if (holder->cross)
                set(gg->temperature);
        }
        return out;
    }
};

std::vector<torch::Tensor> gateParameters(const LinearActNorm& layer)
{
    std::vector<torch::Tensor> p { layer->attn->linear1->weight, layer->attn->linear1->bias,
        layer->attn->linear2->weight, layer->attn->linear2->bias };
    if (layer->cross_attn)
        p.push_back(layer->cross_attn->temperature);
    return p;
}

} // namespace

torch::Tensor recomputedInputLayers(const LinearActNorm& first, const LinearActNorm& second, const torch::Tensor& projected)
{
    fused::checkActivation(projected, "projected");
    TORCH_CHECK(bool(first->cross_attn) == bool(second->cross_attn), "recomputed f_in: cross-attention in one layer only");
    TORCH_CHECK(first->attn->linear1->weight.size(1) == projected.size(2), "recomputed f_in: the gate's width does not match");
    auto holder = c10::make_intrusive<InputHolder>();
    holder->cross = bool(first->cross_attn);
    std::vector<torch::Tensor> parameters = gateParameters(first);
    parameters.push_back(second->linear->weight);
    parameters.push_back(second->linear->bias);
    for (const auto& t : gateParameters(second))
        parameters.push_back(t);
    return RecomputedInputFunction::apply(projected, torch::TensorList(parameters), holder);
}

} // namespace tgraph::model
