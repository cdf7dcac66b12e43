// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

namespace tgraph::bench {

// `tgraph-bench realrecord`: model vs simulator tau and top-5 slowdown on the real tuning record,
// 5 folds over configurations (realrecord.h).
int runRealRecordBench(const std::vector<std::string>& args);

} // namespace tgraph::bench
