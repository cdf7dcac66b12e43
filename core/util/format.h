// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>

namespace tgraph {

// Human-readable quantities shared by the CLI and the GUI, three significant digits:
// "870 ns", "1.25 ms", "23.3 s" (the unit is chosen after rounding: 999.6 µs -> "1.00 ms");
// "512 B", "1.50 KiB", "23.4 MiB".
std::string formatDuration(int64_t nanoseconds);
std::string formatBytes(uint64_t bytes);

} // namespace tgraph
