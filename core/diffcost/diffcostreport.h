// SPDX-License-Identifier: Apache-2.0
#pragma once

// A priced diff written out (docs/diff.md §8): a section of text after the diff's own, a "price"
// member of its JSON, a section of its HTML page. Each says that the figures are the simulator's
// estimate, not a measurement.

#include "core/diff/diffreport.h"
#include "core/diffcost/diffcost.h"

#include <string>
#include <vector>

namespace tgraph {

// One priced entry of the change lists: a matched pair, an added or a removed instruction.
struct HloPricedEntry
{
    enum class Kind : uint8_t { Matched, Added, Removed };
    Kind kind = Kind::Matched;
    uint32_t index = 0; // Matched: into HloDiff::pairs; Added: position in B; Removed: position in A
    double delta = 0;
};
const char* hloPricedEntryKindName(HloPricedEntry::Kind kind); // "matched", "added", "removed"

// Every pair with a delta other than 0, every added and every removed instruction, by |delta|
// (largest first), then pairs, removed and added in their modules' order.
std::vector<HloPricedEntry> hloPricedEntries(const HloDiff& diff, const HloDiffCost& cost);
// Rows of HloDiff::computations with a delta other than 0, by |delta|, largest first.
std::vector<size_t> hloPricedComputations(const HloDiff& diff, const HloDiffCost& cost);

// A delta as people read it: "+1.25 µs", "-870 ns", "0 ns".
std::string formatCostDelta(double ns);
// The sentence that labels every priced figure.
extern const char* const kHloDiffCostCaveat;

std::string formatHloDiffCostText(const HloDiffReport& report, const HloDiffCost& cost);
// {estimate, unit, a, b, delta, computations[], instructions[]}: every list complete.
Json hloDiffCostJson(const HloDiffReport& report, const HloDiffCost& cost);
// A <section> for the diff's HTML page; insertHtmlSection puts it before the page's footer.
std::string formatHloDiffCostHtml(const HloDiffReport& report, const HloDiffCost& cost);
std::string insertHtmlSection(const std::string& page, const std::string& section);
// Text for an HTML page: made safe for a terminal (terminalText), then & < > " escaped.
std::string htmlText(std::string_view raw);

} // namespace tgraph
