// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

namespace tgraph::bench {

// `tgraph-bench kernels`: the fused element-wise kernels of the TGraph layers (model/nn/fusedops.h)
// against the composed ATen ops they replace, with the machine's copy bandwidth beside them.
int runKernelBench(const std::vector<std::string>& args);

} // namespace tgraph::bench
