// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

namespace tgraph::bench {

// `tgraph-bench model`: forward and training-step time of the TGraph layout model for C configs on
// pruned graphs of N nodes, cross-attn on and off, as effective GFLOP/s (the matmul FLOPs of the
// plain module) next to this machine's measured GEMM peak, against the PyTorch reference module
// (bench/model_torch.py) run with Debian's python3-torch; peak RSS of each side. Every case runs in
// fresh child processes: `tgraph-bench model-case` is the C++ side.
int runModelBench(const std::vector<std::string>& args);
int runModelCase(const std::vector<std::string>& args);

} // namespace tgraph::bench
