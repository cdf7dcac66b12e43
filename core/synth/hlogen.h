// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tgraph {

// Parameters of a generated HLO module (synthetic; for benchmarks, tests and demos).
struct HloGenSpec
{
    std::string family = "resnet"; // see hloGenFamilies()
    int64_t instructions = 2000; // approximate size target (the module grows in whole blocks)
    uint64_t seed = 1;
    bool metadata = true; // op_type/op_name metadata like framework dumps
};

std::vector<std::string> hloGenFamilies();

// HLO text as XLA prints a post-optimisation module: fusions with kLoop/kOutput kinds, reducer
// computations, while loops with body/condition, convolutions with windows and dim_labels, dots,
// reshapes/transposes, broadcasts, and consistent shapes and layouts throughout.
// Throws std::invalid_argument for an unknown family.
std::string generateHloText(const HloGenSpec& spec);

} // namespace tgraph
