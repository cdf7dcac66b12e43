// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

namespace tgraph::bench {

// `tgraph-bench heldout`: the held-out configurations of `tgraph train --config-folds` per fold
// (docs/model.md §4.4.1), the analytical simulator's metrics on the real record's held-out
// configurations, and optionally the held-out graphs as .npz files for `tgraph eval`.
int runHeldOutBench(const std::vector<std::string>& args);

} // namespace tgraph::bench
