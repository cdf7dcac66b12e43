// SPDX-License-Identifier: Apache-2.0
#include "core/view/rangecuts.h"

#include <algorithm>
#include <cmath>

namespace tgraph {

std::vector<int32_t> cutWidths(int64_t n, std::span<const std::pair<int64_t, int64_t>> edges)
{
    std::vector<int32_t> widths(size_t(std::max<int64_t>(n, 0)) + 1, 0);
    for (const auto& [u, v] : edges) {
        const int64_t lo = std::min(u, v), hi = std::max(u, v);
        if (lo < 0 || hi >= n || lo == hi)
            continue;
        ++widths[size_t(lo + 1)];
        --widths[size_t(hi + 1)];
    }
    int32_t running = 0;
    for (int32_t& w : widths) {
        running += w;
        w = running;
    }
    return widths;
}

int partsFor(int64_t n, int64_t leafSize)
{
    if (n <= leafSize)
        return 1;
    constexpr double kFanOut = 12;
    // Leaves of 4/5 of leafSize, so that cuts moved by a quarter of a part stay within it.
    const double leaves = std::ceil(double(n) / (0.8 * double(leafSize)));
    const double levels = std::max(1.0, std::ceil(std::log(leaves) / std::log(kFanOut) - 1e-9));
    const auto parts = int64_t(std::ceil(std::pow(leaves, 1.0 / levels) - 1e-9));
    // At least 8 parts: a box opens on enough boxes to tell its content apart, and a range a bit
    // bigger than a leaf opens on small boxes rather than on two big ones.
    return int(std::min<int64_t>(std::clamp<int64_t>(parts, 8, 12), n));
}

std::vector<int64_t> narrowCuts(std::span<const int32_t> widths, int64_t begin, int64_t end, int parts)
{
    std::vector<int64_t> cuts;
    const int64_t n = end - begin;
    if (parts < 2 || n < 2)
        return cuts;
    parts = int(std::min<int64_t>(parts, n));
    const double part = double(n) / parts;
    const auto slack = int64_t(part / 4);
    int64_t previous = begin;
    for (int j = 1; j < parts; ++j) {
        const int64_t ideal = begin + int64_t(std::llround(part * j));
        // Leave at least one position for this part and each one after it.
        const int64_t lo = std::max(previous + 1, ideal - slack);
        const int64_t hi = std::min(end - (parts - j), ideal + slack);
        int64_t best = std::clamp(ideal, lo, std::max(lo, hi));
        for (int64_t p = lo; p <= hi; ++p) {
            const bool narrower = widths[size_t(p)] < widths[size_t(best)];
            const bool asNarrowButNearer
                = widths[size_t(p)] == widths[size_t(best)] && std::abs(p - ideal) < std::abs(best - ideal);
            if (narrower || asNarrowButNearer)
                best = p;
        }
        cuts.push_back(best);
        previous = best;
    }
    return cuts;
}

} // namespace tgraph
