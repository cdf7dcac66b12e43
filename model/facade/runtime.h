// SPDX-License-Identifier: Apache-2.0
#pragma once

// The model runtime's process-wide set-up through the facade (docs/architecture.md, room
// model/facade): what tgraph-studio's main() and About dialog need of model/runtime, torch-free.

#include "core/util/precision.h"

#include <string>

namespace tgraph::facade {

// Once at start-up, before any model is loaded: the caching CPU allocator and the intra-op threads
// (`threads` <= 0: every core). Returns the thread count in use.
// The model's products run in `precision` (docs/model.md §10.12): auto = bf16 where the CPU has
// AMX-BF16 or AVX512-BF16, fp32 elsewhere.
int initRuntime(int threads = 0, Precision precision = Precision::Auto);

// The products' precision in use, in a few words for a status line: "bf16 products" or
// "fp32 products".
std::string productPrecision();

// The LibTorch version the binary was built against ("1.13.0").
std::string runtimeVersion();

// Gives the runtime's cached idle CPU blocks back to the system (after a job, before the user
// idles). Thread-safe.
void releaseIdleMemory();

} // namespace tgraph::facade
