// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace tgraph {

// Cutting a topologically ordered list of nodes into parts that follow the graph's blocks
// (docs/studio.md §1.2): a cut between positions p - 1 and p is crossed by the edges (u, v) with
// min(u, v) < p <= max(u, v); the boundaries between a network's layers are crossed by few edges.

// widths[p] for p in [0, n]: how many of `edges` (pairs of positions in [0, n)) cross a cut at
// p; widths[0] = widths[n] = 0. O(n + edges).
std::vector<int32_t> cutWidths(int64_t n, std::span<const std::pair<int64_t, int64_t>> edges);

// How many parts a range of n positions is split into so that a tree of such splits has leaves of
// at most `leafSize` positions (with room for cuts that move by a quarter of a part) and as few
// levels as a fan-out of 12 allows: between 8 and 12 (n when smaller); 1 when n <= leafSize.
int partsFor(int64_t n, int64_t leafSize);

// The `parts - 1` cut positions splitting [begin, end) into `parts` non-empty parts: each cut is the
// narrowest position (widths) within a quarter of a part of its ideal, equal-size position, the
// one nearest the ideal among equally narrow ones. Ascending, in (begin, end).
std::vector<int64_t> narrowCuts(std::span<const int32_t> widths, int64_t begin, int64_t end, int parts);

} // namespace tgraph
