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
// `tgraph-bench hlo-hostile`: parse time and peak RSS of the protobuf reader on hostile files of
// 100 KB and 1 MB (core/synth/hostileproto.h), in capped child processes.
int runHloHostileBench(const std::vector<std::string>& args);

} // namespace tgraph::bench
