// SPDX-License-Identifier: Apache-2.0
#include "model/nn/recomputedlayer.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/csrc/autograd/engine.h>

#include <mutex>

namespace tgraph::model {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// The layers and how many of the function's parameter inputs each owns, held by the autograd
// context until the backward pass.
struct LayersHolder : torch::CustomClassHolder
{
    std::vector<LayerFunction> layers;
    std::vector<size_t> parameterCounts;
};

// Runs `layer` from generator state `state` and puts back the state it found.
torch::Tensor runFrom(LayerFunction& layer, const torch::Tensor& input, const torch::Tensor& state)
{
    const at::Tensor current = cpuGeneratorState();
    setCpuGeneratorState(state);
    torch::Tensor out = layer(input);
    setCpuGeneratorState(current);
    return out;
}

class RecomputedLayerFunction : public torch::autograd::Function<RecomputedLayerFunction>
{
public:
    // Runs without gradient recording (LibTorch runs a custom function's forward so).
    static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& input, torch::TensorList parameters,
        const c10::intrusive_ptr<LayersHolder>& holder)
    {
        ctx->saved_data["rng"] = cpuGeneratorState();
        ctx->saved_data["layers"] = c10::IValue::make_capsule(holder);
        std::vector<torch::Tensor> toSave { input };
        toSave.insert(toSave.end(), parameters.begin(), parameters.end());
        ctx->save_for_backward(toSave);
        torch::Tensor h = input;
        for (auto& layer : holder->layers)
            h = layer(h);
        return h;
    }

    static variable_list backward(AutogradContext* ctx, variable_list grads)
    {
        const auto saved = ctx->get_saved_variables();
        const auto holder = c10::static_intrusive_pointer_cast<LayersHolder>(ctx->saved_data["layers"].toCapsule());
        const size_t count = holder->layers.size();
        variable_list out(saved.size() + 1); // input, parameters, holder

        // Every layer's input again, and the generator state each started from (no graph).
        std::vector<torch::Tensor> inputs { saved[0].detach() };
        std::vector<torch::Tensor> states { ctx->saved_data["rng"].toTensor() };
        {
            torch::NoGradGuard noGrad;
            const at::Tensor current = cpuGeneratorState();
            setCpuGeneratorState(states[0]);
            for (size_t l = 0; l + 1 < count; ++l) {
                inputs.push_back(holder->layers[l](inputs[l]));
                states.push_back(cpuGeneratorState());
            }
            setCpuGeneratorState(current);
        }

        // Then layer by layer from the last: run it again with gradients and differentiate it.
        size_t firstParameter = 1;
        for (size_t l = 0; l < count; ++l)
            firstParameter += holder->parameterCounts[l];
        torch::Tensor grad = grads[0];
        for (size_t l = count; l-- > 0;) {
            firstParameter -= holder->parameterCounts[l];
            const bool inputNeedsGrad = l > 0 || saved[0].requires_grad();
            const torch::Tensor input = inputs[l].requires_grad_(inputNeedsGrad);
            inputs[l] = torch::Tensor();
            torch::Tensor output;
            {
                torch::AutoGradMode enable(true);
                output = runFrom(holder->layers[l], input, states[l]);
            }
            std::vector<torch::Tensor> wrt;
            std::vector<size_t> slot;
            if (inputNeedsGrad) {
                wrt.push_back(input);
                slot.push_back(0);
            }
            for (size_t k = 0; k < holder->parameterCounts[l]; ++k)
                if (saved[firstParameter + k].requires_grad()) {
                    wrt.push_back(saved[firstParameter + k]);
                    slot.push_back(firstParameter + k);
                }
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
                roots, { grad }, /*keep_graph=*/false, /*create_graph=*/false, /*accumulate_grad=*/false, targets);
            grad = torch::Tensor();
            for (size_t k = 0; k < g.size(); ++k) {
                if (slot[k] == 0 && l > 0)
                    grad = g[k]; // the previous layer's output gradient
                else
                    out[slot[k]] = g[k];
            }
            if (l > 0 && !grad.defined())
                return out;
        }
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

torch::Tensor recomputedLayers(std::vector<LayerFunction> layers, const torch::Tensor& input,
    const std::vector<std::vector<torch::Tensor>>& parameters)
{
    TORCH_CHECK(!layers.empty() && layers.size() == parameters.size(), "recomputedLayers: one parameter list per layer");
    auto holder = c10::make_intrusive<LayersHolder>();
    holder->layers = std::move(layers);
    std::vector<torch::Tensor> all;
    for (const auto& list : parameters) {
        holder->parameterCounts.push_back(list.size());
        all.insert(all.end(), list.begin(), list.end());
    }
    return RecomputedLayerFunction::apply(input, torch::TensorList(all), holder);
}

torch::Tensor recomputedLayer(LayerFunction layer, const torch::Tensor& input, const std::vector<torch::Tensor>& parameters)
{
    return recomputedLayers({ std::move(layer) }, input, { parameters });
}

} // namespace tgraph::model
