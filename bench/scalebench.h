// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

namespace tgraph::bench {

// `tgraph-bench scale`: the TGraph layout model at nlp scale (issue 27, docs/benchmarks.md §12). One
// generated layout graph of TpuGraphs nlp size (40 000 nodes, 3 200 configurable, 4 000 configs;
// about 13 000 nodes after pruning) goes through the real trainer (model/train/trainer.h): training
// steps at 16 and 32 configs and the validation pass over all configs. Every phase runs in its own
// child process (`tgraph-bench scale-case`), whose peak RSS is reset after loading the data
// (/proc/self/clear_refs), so one phase's peak cannot hide another's and the load is reported apart.
int runScaleBench(const std::vector<std::string>& args);
int runScaleCase(const std::vector<std::string>& args);

} // namespace tgraph::bench
