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

// The products' precision in use, in a few words for a status line and a run's parameters:
// "bf16 (AVX512-BF16)", "bf16 (AMX-BF16 + AVX512-BF16)", "bf16 (emulated: no bf16 units)" or "fp32".
std::string productPrecision();

// Sets the products' precision from now on (any time between model calls; initRuntime sets it
// too): resolved as `tgraph --precision` does. Returns productPrecision().
std::string applyPrecision(Precision precision);

// The LibTorch version the binary was built against ("1.13.0").
std::string runtimeVersion();

// Gives the runtime's cached idle CPU blocks back to the system (after a job, before the user
// idles). Thread-safe.
void releaseIdleMemory();

} // namespace tgraph::facade
