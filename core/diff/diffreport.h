// SPDX-License-Identifier: Apache-2.0
#pragma once

// A module diff written out (docs/diff.md §4-5): readable text, JSON (locale-free numbers) and one
// self-contained HTML page (inline CSS and SVG, no script, nothing fetched) to attach to a bug
// report.

#include "core/diff/hlodiff.h"
#include "core/util/json.h"

#include <cstddef>
#include <string>

namespace tgraph {

struct HloDiffReport
{
    const HloDiff& diff;
    const HloModule& a;
    const HloModule& b;
    std::string labelA; // the input as the user named it (a file, FILE#K)
    std::string labelB;
    size_t limit = 100; // text and HTML: entries shown per list (changed, removed, added, computations); 0 = all
};

// Names and other text from the files are escaped for a terminal (core/util/terminaltext.h).
std::string formatHloDiffText(const HloDiffReport& report);
// Every list complete whatever the limit (docs/diff.md §4 gives the schema).
Json hloDiffJson(const HloDiffReport& report);
std::string formatHloDiffHtml(const HloDiffReport& report);

// Shared by the three: an instruction's shape as HLO text, and the kinds of a pair as names.
std::string hloDiffKindList(uint16_t kinds, const char* separator = ", ");

} // namespace tgraph
