// SPDX-License-Identifier: Apache-2.0
#include "model/nn/recomputedlayer.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/csrc/autograd/engine.h>

#include <mutex>

namespace tgraph::model {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// The layer and what it needs, held by the autograd context until the backward pass.
struct LayerHolder : torch::CustomClassHolder
{
    LayerFunction layer;
};

class RecomputedLayerFunction : public torch::autograd::Function<RecomputedLayerFunction>
{
public:
    // Runs without gradient recording (LibTorch runs a custom function's forward so).
    static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& input, torch::TensorList parameters,
        const c10::intrusive_ptr<LayerHolder>& holder)
    {
        ctx->saved_data["rng"] = cpuGeneratorState();
        ctx->saved_data["layer"] = c10::IValue::make_capsule(holder);
        ctx->saved_data["parameters"] = int64_t(parameters.size());
        std::vector<torch::Tensor> toSave { input };
        toSave.insert(toSave.end(), parameters.begin(), parameters.end());
        ctx->save_for_backward(toSave);
        return holder->layer(input);
    }

    static variable_list backward(AutogradContext* ctx, variable_list grads)
    {
        const auto saved = ctx->get_saved_variables();
        const auto holder = c10::static_intrusive_pointer_cast<LayerHolder>(ctx->saved_data["layer"].toCapsule());
        const int64_t count = ctx->saved_data["parameters"].toInt();
        const torch::Tensor input = saved[0].detach().requires_grad_(saved[0].requires_grad());

        torch::Tensor output;
        {
            // The forward pass again, from the generator state it started with; the state the
            // backward pass found is put back afterwards.
            const at::Tensor current = cpuGeneratorState();
            setCpuGeneratorState(ctx->saved_data["rng"].toTensor());
            torch::AutoGradMode enable(true);
            output = holder->layer(input);
            setCpuGeneratorState(current);
        }
        // Differentiate with respect to what needs a gradient; the others get none.
        std::vector<torch::Tensor> wrt;
        std::vector<size_t> slot;
        if (input.requires_grad()) {
            wrt.push_back(input);
            slot.push_back(0);
        }
        for (int64_t k = 0; k < count; ++k)
            if (saved[size_t(1 + k)].requires_grad()) {
                wrt.push_back(saved[size_t(1 + k)]);
                slot.push_back(size_t(1 + k));
            }
        variable_list out(size_t(2 + count)); // input, parameters, holder
        if (wrt.empty() || !output.requires_grad())
            return out;
        // What torch::autograd::grad does, but with the recomputed output released before the
        // backward pass runs: its gradient edge is all the engine needs, and the layer's own
        // backward does not read it, so one activation less is held at the peak.
        const torch::autograd::edge_list roots { torch::autograd::impl::gradient_edge(output) };
        output.reset();
        torch::autograd::edge_list targets;
        for (const auto& t : wrt)
            targets.push_back(torch::autograd::impl::gradient_edge(t));
        const variable_list g = torch::autograd::Engine::get_default_engine().execute(
            roots, { grads[0] }, /*keep_graph=*/false, /*create_graph=*/false, /*accumulate_grad=*/false, targets);
        for (size_t k = 0; k < g.size(); ++k)
            out[slot[k]] = g[k];
        return out;
    }
};

} // namespace

torch::Tensor cpuGeneratorState()
{
    at::Generator generator = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(generator.mutex());
    return generator.get_state();
}

void setCpuGeneratorState(const torch::Tensor& state)
{
    at::Generator generator = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(generator.mutex());
    generator.set_state(state);
}

torch::Tensor recomputedLayer(LayerFunction layer, const torch::Tensor& input, const std::vector<torch::Tensor>& parameters)
{
    auto holder = c10::make_intrusive<LayerHolder>();
    holder->layer = std::move(layer);
    return RecomputedLayerFunction::apply(input, torch::TensorList(parameters), holder);
}

} // namespace tgraph::model
