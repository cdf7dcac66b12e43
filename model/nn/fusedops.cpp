// SPDX-License-Identifier: Apache-2.0
#include "model/nn/fusedops.h"

#include "model/nn/fusedinternal.h"
#include "model/nn/fusedkernels.h"
#include "model/nn/products.h"

#include <ATen/CPUGeneratorImpl.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace tgraph::model {

namespace fused {

void checkActivation(const torch::Tensor& t, const char* what)
{
    TORCH_CHECK(t.dim() == 3 && t.scalar_type() == torch::kFloat32 && t.device().is_cpu(), "fused ops: ", what,
        " must be a (N, C, F) float32 CPU tensor");
}

uint64_t drawSeed()
{
    at::Generator generator = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(generator.mutex());
    return at::check_generator<at::CPUGeneratorImpl>(generator)->random64();
}

kernels::GateActivation describe(const torch::Tensor& h, const torch::Tensor& z, const torch::Tensor& residual,
    const torch::Tensor& temperature, bool residualAfterActivation, double dropout, uint64_t seed)
{
    kernels::GateActivation a;
    a.nodes = h.size(0);
    a.configs = h.size(1);
    a.width = h.size(2);
    a.h = h.data_ptr<float>();
    a.z = z.data_ptr<float>();
    a.residual = residual.defined() ? residual.data_ptr<float>() : nullptr;
    a.residualAfterActivation = residualAfterActivation;
    a.cross = temperature.defined();
    a.temperature = a.cross ? temperature.item<float>() : 1.0f;
    a.dropout = float(dropout);
    a.seed = seed;
    return a;
}

kernels::EdgeLists edgeLists(const EdgeTensors& e)
{
    kernels::EdgeLists l;
    l.nodes = e.nodes;
    l.inBegin = e.inBegin.data_ptr<int64_t>();
    l.inSource = e.inSource.data_ptr<int64_t>();
    l.outBegin = e.outBegin.data_ptr<int64_t>();
    l.outTarget = e.outTarget.data_ptr<int64_t>();
    l.inverseDegree = e.inverseDegree.data_ptr<float>();
    return l;
}

Moments momentsOf(const torch::Tensor& h)
{
    const int64_t cols = h.size(1) * h.size(2);
    Moments m { torch::empty({ cols }, h.options()), torch::empty({ cols }, h.options()) };
    kernels::columnMoments(
        h.size(0), cols, cols, h.data_ptr<float>(), 1e-5f, m.mean.data_ptr<float>(), m.invStd.data_ptr<float>());
    return m;
}

torch::Tensor gateHidden(const torch::Tensor& x, const torch::Tensor& w1, const torch::Tensor& b1)
{
    return productAdd(b1, x.view({ x.size(0) * x.size(1), x.size(2) }), w1.t()).clamp_min_(0.0);
}

torch::Tensor gateLogits(const torch::Tensor& x, const torch::Tensor& w1, const torch::Tensor& b1, const torch::Tensor& w2)
{
    // In bf16 too: the kernel runs both thin products (R = F/8 wide) in one pass at the fp32 rate,
    // faster here than two bf16 GEMMs, whose R-wide output runs at a tenth of their rate
    // (docs/model.md §10.12).
    const int64_t rows = x.size(0) * x.size(1);
    const int64_t width = x.size(2);
    const auto w1t = w1.t().contiguous(); // (F, R)
    const auto w2t = w2.t().contiguous(); // (R, F)
    const auto bias = b1.contiguous();
    auto z = torch::empty({ rows, width }, x.options());
    if (kernels::gateProducts(rows, width, w1t.size(1), x.data_ptr<float>(), w1t.data_ptr<float>(),
            bias.data_ptr<float>(), w2t.data_ptr<float>(), nullptr, z.data_ptr<float>()))
        return z;
    return torch::mm(gateHidden(x, w1, b1), w2.t());
}

GateProductGradients gateProductsBackward(const torch::Tensor& gradZ, const torch::Tensor& hidden,
    const torch::Tensor& x, const torch::Tensor& w1, const torch::Tensor& w2, const torch::Tensor& gradX)
{
    GateProductGradients g { torch::zeros_like(w1), torch::zeros({ w1.size(0) }, w1.options()), torch::zeros_like(w2) };
    addGateProductGradients(gradZ, hidden, x, w1, w2, gradX, g);
    return g;
}

void addGateProductGradients(const torch::Tensor& gradZ, const torch::Tensor& hidden, const torch::Tensor& x,
    const torch::Tensor& w1, const torch::Tensor& w2, const torch::Tensor& gradX, GateProductGradients& sums)
{
    const int64_t rows = x.size(0) * x.size(1);
    const auto gradHidden = torch::threshold_backward(product(gradZ, w2), hidden, 0.0);
    productInto(sums.w1, gradHidden.t(), x.view({ rows, x.size(2) }), true);
    sums.b1.add_(gradHidden.sum(0));
    productInto(sums.w2, gradZ.t(), hidden, true);
    productInto(gradX.view({ rows, x.size(2) }), gradHidden, w1, true);
}

} // namespace fused

namespace {

using fused::checkActivation;
using fused::describe;
using fused::drawSeed;
using fused::edgeLists;

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

std::atomic<int>& fusedSetting()
{
    static std::atomic<int> setting { [] {
        const char* v = std::getenv("TGRAPH_FUSED");
        return v && std::strcmp(v, "0") == 0 ? 0 : 1;
    }() };
    return setting;
}

// The edge lists outlive the forward call only through the context.
void saveEdges(AutogradContext* ctx, const EdgeTensors& edges)
{
    ctx->saved_data["inBegin"] = edges.inBegin;
    ctx->saved_data["inSource"] = edges.inSource;
    ctx->saved_data["outBegin"] = edges.outBegin;
    ctx->saved_data["outTarget"] = edges.outTarget;
    ctx->saved_data["inverseDegree"] = edges.inverseDegree;
    ctx->saved_data["nodes"] = edges.nodes;
}

EdgeTensors savedEdges(AutogradContext* ctx)
{
    EdgeTensors e;
    e.nodes = ctx->saved_data["nodes"].toInt();
    e.inBegin = ctx->saved_data["inBegin"].toTensor();
    e.inSource = ctx->saved_data["inSource"].toTensor();
    e.outBegin = ctx->saved_data["outBegin"].toTensor();
    e.outTarget = ctx->saved_data["outTarget"].toTensor();
    e.inverseDegree = ctx->saved_data["inverseDegree"].toTensor();
    return e;
}

// SAGE layer: p = h [W_l; W_r]^T (one product, no bias), out = root + b_l + mean of messages. The
// backward pass gets dp from the kernel (with b_l's gradient summed on the way) and does the two
// products of the weights' and the input's gradients itself.
class SageLayerFunction : public torch::autograd::Function<SageLayerFunction>
{
public:
    static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& hIn, const torch::Tensor& weightL,
        const torch::Tensor& weightR, const torch::Tensor& biasL, const EdgeTensors* edges)
    {
        const auto h = hIn.contiguous();
        const int64_t n = h.size(0);
        const int64_t c = h.size(1);
        const int64_t w = weightL.size(0);
        const auto weight = torch::cat({ weightL, weightR }, 0); // (2W, in)
        const auto combined = product(h.view({ n * c, h.size(2) }), weight.t()); // (N C, 2W)
        const auto bias = biasL.contiguous();
        auto out = torch::empty({ n, c, w }, h.options());
        kernels::sageMeanForward(
            edgeLists(*edges), c, w, combined.data_ptr<float>(), bias.data_ptr<float>(), out.data_ptr<float>());
        ctx->save_for_backward({ h, weight });
        saveEdges(ctx, *edges);
        return out;
    }

    static variable_list backward(AutogradContext* ctx, variable_list grads)
    {
        const auto saved = ctx->get_saved_variables();
        const auto& h = saved[0];
        const auto& weight = saved[1];
        const EdgeTensors e = savedEdges(ctx);
        const auto gradOut = grads[0].contiguous();
        const int64_t n = h.size(0);
        const int64_t c = h.size(1);
        const int64_t w = gradOut.size(2);
        auto gradCombined = torch::empty({ n * c, 2 * w }, gradOut.options());
        auto gradBias = torch::empty({ w }, gradOut.options());
        kernels::sageMeanBackward(
            edgeLists(e), c, w, gradOut.data_ptr<float>(), gradCombined.data_ptr<float>(), gradBias.data_ptr<float>());
        const auto h2 = h.view({ n * c, h.size(2) });
        const auto gradWeight = product(gradCombined.t(), h2); // (2W, in)
        const auto gradH = product(gradCombined, weight).view(h.sizes());
        return { gradH, gradWeight.narrow(0, 0, w), gradWeight.narrow(0, w, w), gradBias, torch::Tensor() };
    }
};

// The whole tail of a layer: z = W2 ReLU(W1 x + b1) (b2 added inside the kernel), then the gated
// activation of x. The backward pass does the gate's small products itself and adds the W1 path's
// input gradient into the kernel's (one addmm_ instead of a separate sum of two activations).
class GatedLayerFunction : public torch::autograd::Function<GatedLayerFunction>
{
public:
    static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& xIn, const torch::Tensor& w1,
        const torch::Tensor& b1, const torch::Tensor& w2, const torch::Tensor& b2In,
        const c10::optional<torch::Tensor>& residualIn, const c10::optional<torch::Tensor>& temperatureIn,
        bool residualAfterActivation, double dropout, int64_t configOffset, int64_t configTotal)
    {
        const auto x = xIn.contiguous();
        const int64_t n = x.size(0);
        const int64_t c = x.size(1);
        const int64_t f = x.size(2);
        const auto hidden = fused::gateHidden(x, w1, b1);
        const auto z = product(hidden, w2.t()).view({ n, c, f });
        const auto b2 = b2In.contiguous();
        const bool hasResidual = residualIn.has_value() && residualIn->defined();
        const bool hasTemperature = temperatureIn.has_value() && temperatureIn->defined();
        const auto residual = hasResidual ? residualIn->contiguous() : torch::Tensor();
        const auto temperature = hasTemperature ? *temperatureIn : torch::Tensor();
        const uint64_t seed = dropout > 0.0 ? drawSeed() : 0;
        kernels::GateActivation a = describe(x, z, residual, temperature, residualAfterActivation, dropout, seed);
        a.zBias = b2.data_ptr<float>();
        a.configOffset = configOffset;
        a.configTotal = configTotal;
        auto out = torch::empty({ n, c, a.outWidth() }, x.options());
        kernels::gateActivationForward(a, out.data_ptr<float>());
        std::vector<torch::Tensor> toSave { x, z, hidden, w1, w2, b2 };
        if (hasResidual)
            toSave.push_back(residual);
        if (hasTemperature)
            toSave.push_back(temperature);
        ctx->save_for_backward(toSave);
        ctx->saved_data["residual"] = hasResidual;
        ctx->saved_data["temperature"] = hasTemperature;
        ctx->saved_data["after"] = residualAfterActivation;
        ctx->saved_data["dropout"] = dropout;
        ctx->saved_data["seed"] = int64_t(seed);
        ctx->saved_data["configOffset"] = configOffset;
        ctx->saved_data["configTotal"] = configTotal;
        return out;
    }

    static variable_list backward(AutogradContext* ctx, variable_list grads)
    {
        const auto saved = ctx->get_saved_variables();
        const auto& x = saved[0];
        const auto& z = saved[1];
        const auto& hidden = saved[2];
        const auto& w1 = saved[3];
        const auto& w2 = saved[4];
        const auto& b2 = saved[5];
        const bool hasResidual = ctx->saved_data["residual"].toBool();
        const bool hasTemperature = ctx->saved_data["temperature"].toBool();
        const torch::Tensor residual = hasResidual ? saved[6] : torch::Tensor();
        const torch::Tensor temperature = hasTemperature ? saved[hasResidual ? 7 : 6] : torch::Tensor();
        kernels::GateActivation a = describe(x, z, residual, temperature, ctx->saved_data["after"].toBool(),
            ctx->saved_data["dropout"].toDouble(), uint64_t(ctx->saved_data["seed"].toInt()));
        a.zBias = b2.data_ptr<float>();
        a.configOffset = ctx->saved_data["configOffset"].toInt();
        a.configTotal = ctx->saved_data["configTotal"].toInt();
        const auto gradOut = grads[0].contiguous();
        const int64_t n = x.size(0);
        const int64_t c = x.size(1);
        const int64_t f = x.size(2);
        auto gradX = torch::empty_like(x);
        auto gradZ = torch::empty({ n * c, f }, x.options());
        auto gradB2 = torch::empty({ f }, x.options());
        torch::Tensor gradResidual = hasResidual ? torch::empty_like(residual) : torch::Tensor();
        const double dT = kernels::gateActivationBackward(a, gradOut.data_ptr<float>(), gradX.data_ptr<float>(),
            gradZ.data_ptr<float>(), hasResidual ? gradResidual.data_ptr<float>() : nullptr, gradB2.data_ptr<float>());
        const fused::GateProductGradients g = fused::gateProductsBackward(gradZ, hidden, x, w1, w2, gradX);
        torch::Tensor gradT = hasTemperature ? torch::full({}, dT, temperature.options()) : torch::Tensor();
        return { gradX, g.w1, g.b1, g.w2, gradB2, gradResidual, gradT, torch::Tensor(), torch::Tensor(),
            torch::Tensor(), torch::Tensor() };
    }
};

class BagSumFunction : public torch::autograd::Function<BagSumFunction>
{
public:
    static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& index, const torch::Tensor& tableIn)
    {
        const auto table = tableIn.contiguous();
        const int64_t bags = index.size(0);
        auto out = torch::empty({ bags, table.size(1) }, table.options());
        kernels::bagSumForward(bags, index.size(1), table.size(1), index.data_ptr<int64_t>(), table.data_ptr<float>(),
            out.data_ptr<float>());
        ctx->saved_data["index"] = index;
        ctx->saved_data["rows"] = table.size(0);
        return out;
    }

    static variable_list backward(AutogradContext* ctx, variable_list grads)
    {
        const auto index = ctx->saved_data["index"].toTensor();
        const int64_t rows = ctx->saved_data["rows"].toInt();
        const auto gradOut = grads[0].contiguous();
        auto gradTable = torch::empty({ rows, gradOut.size(1) }, gradOut.options());
        kernels::bagSumBackward(index.size(0), index.size(1), gradOut.size(1), rows, index.data_ptr<int64_t>(),
            gradOut.data_ptr<float>(), gradTable.data_ptr<float>());
        return { torch::Tensor(), gradTable };
    }
};

} // namespace

bool fusedKernelsEnabled() { return fusedSetting().load() != 0; }

void setFusedKernelsEnabled(bool enabled) { fusedSetting().store(enabled ? 1 : 0); }

bool useFusedKernels(const torch::Tensor& h)
{
    return fusedKernelsEnabled() && h.scalar_type() == torch::kFloat32 && h.device().is_cpu();
}

const char* fusedKernelTarget() { return kernels::kernelTarget(); }

torch::Tensor gatedLayer(const torch::Tensor& x, const ChannelGateImpl& gate, const torch::Tensor& residual,
    const torch::Tensor& temperature, bool residualAfterActivation, double dropout, bool training,
    const ConfigWindow& window)
{
    checkActivation(x, "x");
    const int64_t outWidth = temperature.defined() ? 2 * x.size(2) : x.size(2);
    if (residual.defined()) {
        checkActivation(residual, "residual");
        TORCH_CHECK(residual.size(0) == x.size(0) && residual.size(1) == x.size(1) && residual.size(2) == outWidth,
            "fused ops: the residual must be (N, C, ", outWidth, ")");
    }
    TORCH_CHECK(gate.linear1->weight.size(1) == x.size(2) && gate.linear2->weight.size(0) == x.size(2),
        "fused ops: the gate's width does not match x");
    TORCH_CHECK(dropout >= 0.0 && dropout < 1.0, "fused ops: dropout must be in [0, 1)");
    TORCH_CHECK(window.offset >= 0 && (window.total == 0 ? window.offset == 0 : window.offset + x.size(1) <= window.total),
        "fused ops: configs ", window.offset, " .. ", window.offset + x.size(1) - 1, " are not in a batch of ",
        window.total);
    if (!training && !torch::GradMode::is_enabled()) {
        // Scoring in eval mode: no autograd node, and the gate's products in one kernel.
        const auto xc = x.contiguous();
        const auto z = fused::gateLogits(xc, gate.linear1->weight, gate.linear1->bias, gate.linear2->weight);
        const auto b2 = gate.linear2->bias.contiguous();
        const auto res = residual.defined() ? residual.contiguous() : torch::Tensor();
        kernels::GateActivation a = fused::describe(xc, z, res, temperature, residualAfterActivation, 0.0, /*seed=*/0);
        a.zBias = b2.data_ptr<float>();
        a.configOffset = window.offset;
        a.configTotal = window.total;
        auto out = torch::empty({ xc.size(0), xc.size(1), a.outWidth() }, xc.options());
        kernels::gateActivationForward(a, out.data_ptr<float>());
        return out;
    }
    const c10::optional<torch::Tensor> s = residual.defined() ? c10::optional<torch::Tensor>(residual) : c10::nullopt;
    const c10::optional<torch::Tensor> t
        = temperature.defined() ? c10::optional<torch::Tensor>(temperature) : c10::nullopt;
    return GatedLayerFunction::apply(x, gate.linear1->weight, gate.linear1->bias, gate.linear2->weight,
        gate.linear2->bias, s, t, residualAfterActivation, training ? dropout : 0.0, window.offset, window.total);
}

torch::Tensor sageLayer(const torch::Tensor& h, const SageConvImpl& conv, const EdgeTensors& edges)
{
    checkActivation(h, "h");
    TORCH_CHECK(h.size(0) == edges.nodes, "fused ops: h must have the graph's ", edges.nodes, " nodes");
    TORCH_CHECK(conv.lin_l->weight.size(1) == h.size(2), "fused ops: the SAGE layer's width does not match h");
    return SageLayerFunction::apply(h, conv.lin_l->weight, conv.lin_r->weight, conv.lin_l->bias, &edges);
}

torch::Tensor bagSum(const torch::Tensor& index, const torch::Tensor& table)
{
    TORCH_CHECK(index.dim() == 2 && index.scalar_type() == torch::kInt64 && index.size(1) > 0,
        "fused ops: bag indices must be (B, S) int64 with S > 0");
    TORCH_CHECK(
        table.dim() == 2 && table.scalar_type() == torch::kFloat32, "fused ops: the table must be (R, W) float32");
    const auto idx = index.contiguous();
    if (idx.numel() > 0) {
        const auto [low, high] = torch::aminmax(idx);
        TORCH_CHECK(
            low.item<int64_t>() >= 0 && high.item<int64_t>() < table.size(0), "fused ops: bag index out of range");
    }
    return BagSumFunction::apply(idx, table);
}

} // namespace tgraph::model
