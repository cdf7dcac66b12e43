// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

namespace tgraph::bench {

// `tgraph-bench dump`: listing and indexing XLA dump folders (core/dump): generated folders of
// 2 000 and 20 000 files named as XLA names them, the real dump folder's names replicated, and
// `tgraph dump list` end to end (docs/benchmarks.md §14).
int runDumpBench(const std::vector<std::string>& args);

} // namespace tgraph::bench
