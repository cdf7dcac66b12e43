// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/hlo/hlomodule.h"

#include <string>
#include <string_view>

namespace tgraph {

struct HloTextOptions
{
    // Keep attributes that are not features (metadata, backend_config, sharding, ...) as text for
    // inspectors; off for bulk conversion to save memory.
    bool keepAttributes = true;
};

// Parses an HLO text module as XLA's printer writes it (docs/formats.md §8): old and new
// dumps, operand shapes printed or not, `%` names or not, comments, strings with braces, ROOT and
// ENTRY, tiled/sparse layouts, async and collective ops, every called-computation attribute.
// Unknown attributes are kept as text. The module is then checked by verifyHloModule
// (core/hlo/hloverify.h). Errors are InputError(file, "line L, column C", problem): unterminated
// strings and comments, unbalanced braces, undefined operands and computations, duplicate names,
// use before definition, cycles, recursive calls, operand counts or shapes an opcode fixes, nesting
// deeper than a bound.
HloModule parseHloText(std::string_view text, const std::string& file, const HloTextOptions& options = {});
HloModule parseHloTextFile(const std::string& path, const HloTextOptions& options = {});

} // namespace tgraph
