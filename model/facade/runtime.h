// SPDX-License-Identifier: Apache-2.0
#pragma once

// The model runtime's process-wide set-up through the facade (docs/architecture.md, room
// model/facade): what tgraph-studio's main() and About dialog need of model/runtime, torch-free.

#include <string>

namespace tgraph::facade {

// Once at start-up, before any model is loaded: the caching CPU allocator and the intra-op threads
// (`threads` <= 0: every core). Returns the thread count in use.
int initRuntime(int threads = 0);

// The LibTorch version the binary was built against ("1.13.0").
std::string runtimeVersion();

// Gives the runtime's cached idle CPU blocks back to the system (after a job, before the user
// idles). Thread-safe.
void releaseIdleMemory();

} // namespace tgraph::facade
