// SPDX-License-Identifier: Apache-2.0
#pragma once

// One layer run with activation recomputation (recompute.h, docs/model.md §11): the forward pass
// runs `layer` without recording a graph and keeps only `input` and the state of LibTorch's
// default CPU generator; the backward pass restores that state (so dropout draws the same mask),
// runs `layer` again with gradients and differentiates it with respect to `input` and
// `parameters` (the layer's own: the tensors the layer reads besides `input` that need
// gradients). The gradients equal those of calling `layer` directly.

#include <torch/torch.h>

#include <functional>
#include <vector>

namespace tgraph::model {

using LayerFunction = std::function<torch::Tensor(const torch::Tensor&)>;

// `layer` must not depend on state that changes between the forward and the backward pass other
// than the generator (module train/eval mode, captured tensors); it is kept until the backward
// pass has run.
torch::Tensor recomputedLayer(LayerFunction layer, const torch::Tensor& input, const std::vector<torch::Tensor>& parameters);

// Several layers in a row as one recomputed segment that keeps only `input`: its backward pass
// runs the layers again without a graph to get each one's input (and generator state), then from
// the last layer to the first runs one again with gradients and differentiates it, releasing its
// input, so at most one layer's intermediates exist at a time. parameters[l] are layer l's.
torch::Tensor recomputedLayers(std::vector<LayerFunction> layers, const torch::Tensor& input,
    const std::vector<std::vector<torch::Tensor>>& parameters);

// The state of LibTorch's default CPU generator (what dropout draws its seeds from), and setting it
// back: a pass run again from the same state draws the same masks.
torch::Tensor cpuGeneratorState();
void setCpuGeneratorState(const torch::Tensor& state);

} // namespace tgraph::model
