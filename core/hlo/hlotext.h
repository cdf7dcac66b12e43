// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/hlo/hlomodule.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tgraph {

struct HloTextOptions
{
    // Keep attributes that are not features (metadata, backend_config, sharding, ...) as text for
    // inspectors; off for bulk conversion to save memory.
    bool keepAttributes = true;
};

// The line that separates the modules of a file, as XLA's test files and `hlo-opt
// --split-input-file` write them (docs/formats.md §8.2).
inline constexpr std::string_view kHloModuleSeparator = "// -----";

// True when `text` starts, after whitespace and comments, like an HLO text module: with
// `HloModule`, or without that line as XLA's parser accepts a module: with `ENTRY` or with a
// computation written without a signature (`NAME {`).
bool looksLikeHloText(std::string_view text);

// One module of a text file: text[begin, end), starting at the start of line firstLine.
struct HloTextPart
{
    size_t begin = 0;
    size_t end = 0;
    uint32_t firstLine = 1;
};
// The modules of a text file: the text between lines reading `// -----` (spaces and tabs around
// it allowed); parts holding only whitespace and comments are left out. A file without such a line
// is one part.
std::vector<HloTextPart> splitHloText(std::string_view text);

// Parses an HLO text module as XLA's printer writes it and XLA's parser reads it (docs/formats.md
// §8): old and new dumps, operand shapes printed or not, `%` names or not, comments, strings with
// braces, ROOT and ENTRY, tiled/sparse layouts, async and collective ops, every called-computation
// attribute; with or without its `HloModule` line where XLA's parser accepts that (a module
// without it is named `module_<entry computation>`, as XLA names it); instruction shapes left out
// where XLA's parser infers them, and operands written as instructions (`add(f32[] parameter(0),
// f32[] constant(1))`), which become instructions of their own named as XLA names them
// (docs/formats.md §8.7). Unknown attributes are kept as text. The module is then checked by
// verifyHloModule (core/hlo/hloverify.h). Errors are InputError(file, "line L, column C",
// problem): unterminated strings and comments, unbalanced braces, undefined operands and
// computations, duplicate names, use before definition, cycles, recursive calls, operand counts or
// shapes an opcode fixes, shapes that must be written or cannot be inferred, nesting deeper than a
// bound, and a `// -----` line (several modules where one is expected).
HloModule parseHloText(std::string_view text, const std::string& file, const HloTextOptions& options = {});
HloModule parseHloTextFile(const std::string& path, const HloTextOptions& options = {});
// Every module of a file (splitHloText), each parsed and verified as parseHloText does; lines in
// errors and in the instructions are lines of the whole file.
std::vector<HloModule> parseHloTextModules(
    std::string_view text, const std::string& file, const HloTextOptions& options = {});

} // namespace tgraph
