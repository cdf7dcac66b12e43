// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/hlo/hlomodule.h"
#include "core/io/ndarray.h"

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace tgraph {

// The layout choices of one tensor of a configurable node.
struct TensorLayoutChoices
{
    int rank = 0;
    int pinned = 0; // how many most-minor dims a choice fixes: 2 (convolution, dot) or rank (reshape);
                    // 0 for tensors of rank > 6, which the 0..5 layout values cannot describe
    // Number of non-default choices: rank!/(rank-pinned)! (ordered picks of `pinned` distinct dims).
    int64_t count() const;
    // Choice k in 0..count()-1 written as minor-to-major dims into out[0..pinned), -1 after.
    void write(int64_t k, float* out6) const;
};

// The tensors a configurable node's 18-value config row describes: output, then its first and
// second operands (input/kernel for convolutions, lhs/rhs for dots; reshape: output, input).
struct NodeLayoutChoices
{
    int64_t node = 0; // position in the module
    std::vector<TensorLayoutChoices> tensors;
};

// Layout choices of the given configurable nodes (docs/formats.md §5.1 as in the real data:
// convolutions pin the two most-minor dims of 3 tensors, reshapes take full permutations of 2
// tensors; dots, an assumption, pin two dims of output, lhs and rhs).
std::vector<NodeLayoutChoices> layoutChoices(const HloModule& module, std::span<const int64_t> configurableNodes);

enum class LayoutSampler {
    Random, // each tensor of each node uniformly among its choices and the default (layout:*:random)
    Default, // a local search around the compiler default: each config changes 1-3 nodes (or single
             // tensors) of an earlier one, starting from the default (layout:*:default); guided by a
             // cost function when one is given, as the autotuner's search that produced the real data
};
const char* layoutSamplerName(LayoutSampler sampler);
bool parseLayoutSampler(const std::string& text, LayoutSampler* sampler);

// Up to `count` distinct config rows (C, Nc, 18) as float layout values; row 0 is the compiler
// default (all -1). Fewer rows when the space is smaller. Throws InputError naming `file` when
// the rows would not fit in `maxBytes` (the estimate is in the message).
// `cost` (optional, Default sampler only): the runtime of a row; parents are then picked by
// tournament among the rows found so far half of the time, so the search drifts towards faster
// configurations.
NdArray<float> sampleLayoutConfigs(std::span<const NodeLayoutChoices> nodes, int64_t count, LayoutSampler sampler,
    uint64_t seed, const std::string& file = {}, uint64_t maxBytes = uint64_t(8) << 30,
    const std::function<double(const float*)>& cost = {});

} // namespace tgraph
