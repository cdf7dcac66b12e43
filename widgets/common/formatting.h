// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

#include <cstdint>
#include <vector>

// Text for numbers as the studio shows them: grouped counts, durations and sizes with units.
namespace Formatting {

// 1234567 -> "1,234,567" (in the current QLocale).
QString count(int64_t value);
// Nanoseconds with the largest fitting unit and three significant digits: "870 ns", "1.25 ms", "23.3 s".
QString duration(int64_t nanoseconds);
// Bytes with binary units: "512 B", "1.5 KiB", "23.4 MiB".
QString bytes(uint64_t value);
// numpy-style shape "(2, 3)", "(5,)", "()".
QString shape(const std::vector<int64_t>& dims);

} // namespace Formatting
