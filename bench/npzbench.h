// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

namespace tgraph::bench {

// `tgraph-bench npz`: writes a synthetic ~1 GiB layout graph stored and deflated, then reads each
// file in fresh child processes with TGraph Studio's reader and with numpy's np.load, printing
// time, MB/s and peak RSS. `tgraph-bench npz-read FILE` is the child side.
int runNpzBench(const std::vector<std::string>& args);
int runNpzRead(const std::vector<std::string>& args);

} // namespace tgraph::bench
