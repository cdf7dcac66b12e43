// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

namespace tgraph::bench {

// `tgraph-bench diff`: two generated modules of N instructions (default 200 000), the second an
// edited copy of the first (layouts swapped, instructions renamed, dead ones added), read and
// diffed in a fresh process: time per phase and peak RSS (docs/benchmarks.md §14).
// `tgraph-bench diff-case A B` is the child side.
int runDiffBench(const std::vector<std::string>& args);
int runDiffCase(const std::vector<std::string>& args);

} // namespace tgraph::bench
