// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/hlo/hlomodule.h"

#include <stdexcept>
#include <string>

namespace tgraph {

// A module as HLO text in XLA's printed form (docs/formats.md §8.8), from what the module holds:
// every instruction with its shape printed (shapes the reader inferred included), its operands by
// name, the attributes the reader parsed (dimensions, window, dim_labels, slices, padding, dot
// dimensions and sparsity, group counts, is_stable, called computations), its op metadata and
// the attributes kept as text. Constant literals are not held: they are written `{...}`, as XLA
// prints a constant it elides. parseHloText reads the result back to the same shapes, operands,
// calls and features.
class HloTextWriteError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// Throws HloTextWriteError when a name cannot be written as an HLO identifier (a protobuf module
// may hold any bytes) or an id names no instruction / computation of the module.
std::string writeHloText(const HloModule& module);

} // namespace tgraph
