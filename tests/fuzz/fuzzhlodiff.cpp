// SPDX-License-Identifier: Apache-2.0
// Fuzz entry point: the module diff (core/diff). The input is HLO text; its parts between
// `// -----` lines are parsed one by one (a part that fails is left out), and every two
// consecutive modules that parse are diffed both ways, each module also against itself, and every
// diff written as text, JSON and HTML. The invariants of docs/diff.md §3 must hold for every diff
// (matched + removed = instructions of A, matched + added = instructions of B, one partner per
// instruction, a module against itself unchanged); the target aborts when one does not. Every diff
// is also priced by the simulator (core/diffcost, docs/diff.md §8): the per-instruction and
// per-computation deltas add up to the total, and a module against itself prices to 0. Each module
// also becomes the layout graph the layout model scores at its own layouts (core/sim/ownlayouts.h,
// docs/diff.md §11): two configurations, the default all -1, the own layouts within -1..5.

#include "core/diff/diffreport.h"
#include "core/diff/hlodiff.h"
#include "core/diffcost/diffcost.h"
#include "core/diffcost/diffcostreport.h"
#include "core/hlo/hlotext.h"
#include "core/sim/ownlayouts.h"
#include "core/util/error.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace {

void require(bool condition, const char* what)
{
    if (!condition) {
        std::fprintf(stderr, "fuzz_hlodiff: invariant broken: %s\n", what);
        std::abort();
    }
}

void diffAndCheck(const tgraph::HloModule& a, const tgraph::HloModule& b, bool self)
{
    const tgraph::HloDiff d = tgraph::diffHloModules(a, b);
    require(d.matched() + d.removed.size() == a.instructions.size(), "matched + removed = instructions of A");
    require(d.matched() + d.added.size() == b.instructions.size(), "matched + added = instructions of B");
    for (size_t x = 0; x < d.matchOfA.size(); ++x)
        if (d.matchOfA[x] >= 0)
            require(d.matchOfB[size_t(d.matchOfA[x])] == int32_t(x), "one partner per instruction");
    if (self)
        require(d.same(), "a module against itself has no change");
    const tgraph::HloDiffReport report { d, a, b, "a.hlo", "b.hlo", 20 };
    (void)tgraph::formatHloDiffText(report);
    (void)tgraph::jsonText(tgraph::hloDiffJson(report));
    (void)tgraph::formatHloDiffHtml(report);

    const tgraph::HloDiffCost cost = tgraph::priceHloDiff(d, a, b);
    double entries = 0, rows = 0;
    for (const tgraph::HloPricedEntry& e : tgraph::hloPricedEntries(d, cost))
        entries += e.delta;
    for (size_t r = 0; r < d.computations.size(); ++r)
        rows += cost.computationDelta(r);
    const double tolerance = 1e-6 * std::max({ 1.0, std::fabs(cost.totalA), std::fabs(cost.totalB) });
    if (std::isfinite(cost.totalA) && std::isfinite(cost.totalB)) {
        require(std::fabs(entries - cost.delta()) <= tolerance, "instruction deltas add up to the total");
        require(std::fabs(rows - cost.delta()) <= tolerance, "computation deltas add up to the total");
    }
    if (self)
        require(cost.delta() == 0, "a module against itself prices to 0");
    (void)tgraph::formatHloDiffCostText(report, cost);
    (void)tgraph::jsonText(tgraph::hloDiffCostJson(report, cost));
    (void)tgraph::formatHloDiffCostHtml(report, cost);
}

void ownLayoutsAndCheck(const tgraph::HloModule& m)
{
    tgraph::LayoutGraph g;
    try {
        g = tgraph::featurizeOwnLayouts(m, "fuzz.hlo");
    } catch (const tgraph::InputError&) {
        return; // nothing configurable, or the featurizer refuses the module: said, not crashed
    }
    require(g.configCount() == 2, "two configurations: the default and the own layouts");
    const int64_t n = g.configurableCount() * 18;
    for (int64_t i = 0; i < n; ++i) {
        require(g.nodeConfigFeat.data()[i] == -1.0f, "the default configuration is all -1");
        const float v = g.nodeConfigFeat.data()[n + i];
        require(v >= -1.0f && v <= 5.0f && v == std::floor(v), "own layout values are integers in -1..5");
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::vector<tgraph::HloModule> modules;
    try {
        for (const tgraph::HloTextPart& part : tgraph::splitHloText(text)) {
            try {
                modules.push_back(tgraph::parseHloText(text.substr(part.begin, part.end - part.begin), "fuzz.hlo"));
            } catch (const tgraph::InputError&) {
                // a part that does not parse is left out
            }
            if (modules.size() == 4)
                break;
        }
    } catch (const tgraph::InputError&) {
        return 0;
    }
    for (size_t k = 0; k < modules.size(); ++k) {
        ownLayoutsAndCheck(modules[k]);
        diffAndCheck(modules[k], modules[k], true);
        if (k + 1 < modules.size()) {
            diffAndCheck(modules[k], modules[k + 1], false);
            diffAndCheck(modules[k + 1], modules[k], false);
        }
    }
    return 0;
}
