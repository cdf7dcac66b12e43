// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

namespace tgraph::model {

// LibTorch version the binary was built against ("1.13.0").
std::string torchVersion();

// LibTorch starts with one intra-op thread on this kind of VM (spec/build-env.md §4): call once at
// start-up. `threads` <= 0 means std::thread::hardware_concurrency(). Returns the count in use.
int initTorchThreads(int threads = 0);

} // namespace tgraph::model
