// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

namespace tgraph::bench {

// `tgraph-bench hlo`: parse + featurize throughput (MB/s) and peak memory of HLO text and protobuf
// modules: a generated module of >= 100k instructions (text and its HloModuleProto encoding) and
// the real files in ../shared/data. `tgraph-bench hlo-parse FILE` is the child side.
int runHloBench(const std::vector<std::string>& args);
int runHloParse(const std::vector<std::string>& args);

} // namespace tgraph::bench
