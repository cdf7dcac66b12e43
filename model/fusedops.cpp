// SPDX-License-Identifier: Apache-2.0
#include "fusedops.h"

#include "fusedkernels.h"

#include <ATen/CPUGeneratorImpl.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace tgraph::model {

namespace {

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

void checkActivation(const torch::Tensor& t, const char* what)
{
    TORCH_CHECK(t.dim() == 3 && t.scalar_type() == torch::kFloat32 && t.device().is_cpu(), "fused ops: ", what,
        " must be a (N, C, F) float32 CPU tensor");
}

// One 64-bit draw from LibTorch's default CPU generator: the dropout mask follows its state (and so
// torch::manual_seed and the checkpointed RNG state), as ATen's own dropout does.
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

class GatedActivationFunction : public torch::autograd::Function<GatedActivationFunction>
{
public:
    // The optional inputs are c10::optional so that LibTorch's Function treats a missing one as
    // "not a variable" (an undefined tensor argument is not allowed).
    static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& hIn, const torch::Tensor& zIn,
        const c10::optional<torch::Tensor>& residualIn, const c10::optional<torch::Tensor>& temperatureIn,
        bool residualAfterActivation, double dropout)
    {
        const auto h = hIn.contiguous();
        const auto z = zIn.contiguous();
        const bool hasResidual = residualIn.has_value() && residualIn->defined();
        const bool hasTemperature = temperatureIn.has_value() && temperatureIn->defined();
        const auto residual = hasResidual ? residualIn->contiguous() : torch::Tensor();
        const auto temperature = hasTemperature ? *temperatureIn : torch::Tensor();
        const uint64_t seed = dropout > 0.0 ? drawSeed() : 0;
        const kernels::GateActivation a = describe(h, z, residual, temperature, residualAfterActivation, dropout, seed);
        auto out = torch::empty({ a.nodes, a.configs, a.outWidth() }, h.options());
        kernels::gateActivationForward(a, out.data_ptr<float>());
        std::vector<torch::Tensor> toSave { h, z };
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
        return out;
    }

    static variable_list backward(AutogradContext* ctx, variable_list grads)
    {
        const auto saved = ctx->get_saved_variables();
        const bool hasResidual = ctx->saved_data["residual"].toBool();
        const bool hasTemperature = ctx->saved_data["temperature"].toBool();
        const auto& h = saved[0];
        const auto& z = saved[1];
        const torch::Tensor residual = hasResidual ? saved[2] : torch::Tensor();
        const torch::Tensor temperature = hasTemperature ? saved[hasResidual ? 3 : 2] : torch::Tensor();
        const kernels::GateActivation a = describe(h, z, residual, temperature, ctx->saved_data["after"].toBool(),
            ctx->saved_data["dropout"].toDouble(), uint64_t(ctx->saved_data["seed"].toInt()));
        const auto gradOut = grads[0].contiguous();
        auto gradH = torch::empty_like(h);
        auto gradZ = torch::empty_like(z);
        torch::Tensor gradResidual = hasResidual ? torch::empty_like(residual) : torch::Tensor();
        const double dT = kernels::gateActivationBackward(a, gradOut.data_ptr<float>(), gradH.data_ptr<float>(),
            gradZ.data_ptr<float>(), hasResidual ? gradResidual.data_ptr<float>() : nullptr);
        torch::Tensor gradT = hasTemperature ? torch::full({}, dT, temperature.options()) : torch::Tensor();
        return { gradH, gradZ, gradResidual, gradT, torch::Tensor(), torch::Tensor() };
    }
};

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

class SageMeanFunction : public torch::autograd::Function<SageMeanFunction>
{
public:
    static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& combinedIn, const EdgeTensors* edges)
    {
        const auto combined = combinedIn.contiguous();
        const int64_t n = combined.size(0);
        const int64_t c = combined.size(1);
        const int64_t w = combined.size(2) / 2;
        auto out = torch::empty({ n, c, w }, combined.options());
        kernels::sageMeanForward(edgeLists(*edges), c, w, combined.data_ptr<float>(), out.data_ptr<float>());
        // The edge lists outlive this call only through the context.
        ctx->saved_data["inBegin"] = edges->inBegin;
        ctx->saved_data["inSource"] = edges->inSource;
        ctx->saved_data["outBegin"] = edges->outBegin;
        ctx->saved_data["outTarget"] = edges->outTarget;
        ctx->saved_data["inverseDegree"] = edges->inverseDegree;
        ctx->saved_data["nodes"] = n;
        return out;
    }

    static variable_list backward(AutogradContext* ctx, variable_list grads)
    {
        EdgeTensors e;
        e.nodes = ctx->saved_data["nodes"].toInt();
        e.inBegin = ctx->saved_data["inBegin"].toTensor();
        e.inSource = ctx->saved_data["inSource"].toTensor();
        e.outBegin = ctx->saved_data["outBegin"].toTensor();
        e.outTarget = ctx->saved_data["outTarget"].toTensor();
        e.inverseDegree = ctx->saved_data["inverseDegree"].toTensor();
        const auto gradOut = grads[0].contiguous();
        const int64_t c = gradOut.size(1);
        const int64_t w = gradOut.size(2);
        auto gradCombined = torch::empty({ e.nodes, c, 2 * w }, gradOut.options());
        kernels::sageMeanBackward(edgeLists(e), c, w, gradOut.data_ptr<float>(), gradCombined.data_ptr<float>());
        return { gradCombined, torch::Tensor() };
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

torch::Tensor gatedActivation(const torch::Tensor& h, const torch::Tensor& z, const torch::Tensor& residual,
    const torch::Tensor& temperature, bool residualAfterActivation, double dropout, bool training)
{
    checkActivation(h, "h");
    checkActivation(z, "z");
    TORCH_CHECK(z.sizes() == h.sizes(), "fused ops: z must have the shape of h");
    const int64_t outWidth = temperature.defined() ? 2 * h.size(2) : h.size(2);
    if (residual.defined()) {
        checkActivation(residual, "residual");
        TORCH_CHECK(residual.size(0) == h.size(0) && residual.size(1) == h.size(1) && residual.size(2) == outWidth,
            "fused ops: the residual must be (N, C, ", outWidth, ")");
    }
    TORCH_CHECK(!temperature.defined() || temperature.numel() == 1, "fused ops: the temperature must be a scalar");
    TORCH_CHECK(dropout >= 0.0 && dropout < 1.0, "fused ops: dropout must be in [0, 1)");
    const c10::optional<torch::Tensor> s = residual.defined() ? c10::optional<torch::Tensor>(residual) : c10::nullopt;
    const c10::optional<torch::Tensor> t
        = temperature.defined() ? c10::optional<torch::Tensor>(temperature) : c10::nullopt;
    return GatedActivationFunction::apply(h, z, s, t, residualAfterActivation, training ? dropout : 0.0);
}

torch::Tensor sageMean(const torch::Tensor& combined, const EdgeTensors& edges)
{
    checkActivation(combined, "the combined projection");
    TORCH_CHECK(combined.size(0) == edges.nodes && combined.size(2) % 2 == 0,
        "fused ops: the combined projection must be (N, C, 2W) for the graph's N nodes");
    return SageMeanFunction::apply(combined, &edges);
}

} // namespace tgraph::model
