// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

namespace tgraph::bench {

// `tgraph-bench project [--rows N]`: the project store. Logging throughput of a writer process
// (batched per flush interval, and one transaction per row for contrast) while this process polls
// the project like the GUI; "latest metrics of 1 000 runs"; one metric history of 1 M points in
// full and downsampled for plotting.
int runProjectBench(const std::vector<std::string>& args);

} // namespace tgraph::bench
