// SPDX-License-Identifier: Apache-2.0
#pragma once

// Activation recomputation of the graph layers in training (docs/model.md §11, "Recomputation"):
// with it, each f_in layer and graph block runs its forward pass without keeping its
// intermediates and keeps only its input; the backward pass runs the layer again, with the same
// dropout stream, and differentiates that (the gradients are exactly those without it). It trades
// about one more forward pass for most of the activation memory, which grows with configs x nodes.
// Torch-free, so the CLI and the checkpoint JSON can hold the choice.

#include <cstdint>
#include <string>

namespace tgraph::model {

enum class RecomputeMode {
    Auto, // "auto": on when a layer's activation (nodes x configs x hidden floats) reaches kRecomputeAutoBytes
    On, // "on": always while gradients are recorded
    Off, // "off": never (every intermediate kept for the backward pass)
};
const char* recomputeModeName(RecomputeMode mode);
bool parseRecomputeMode(const std::string& text, RecomputeMode* mode);

// Auto's threshold: one (N, C, H) float32 activation of 128 MiB (e.g. N = 4 096 nodes at C = 32,
// H = 256). Below it the intermediates are small and recomputing them would only cost time.
constexpr int64_t kRecomputeAutoBytes = int64_t(128) << 20;

// Whether a layer stack of `hidden` channels over `nodes` x `configs` positions recomputes.
bool recomputes(RecomputeMode mode, int64_t nodes, int64_t configs, int64_t hidden);

} // namespace tgraph::model
