// SPDX-License-Identifier: Apache-2.0
#include "core/util/format.h"

#include <cmath>
#include <cstdio>

namespace tgraph {

namespace {
std::string threeDigits(double value, const char* unit)
{
    const double magnitude = std::fabs(value);
    const int decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f %s", decimals, value, unit);
    return buf;
}
} // namespace

std::string formatDuration(int64_t nanoseconds)
{
    const double ns = double(nanoseconds);
    if (std::fabs(ns) < 1e3)
        return std::to_string(nanoseconds) + " ns";
    if (std::fabs(std::round(ns / 1e3)) < 1000)
        return threeDigits(ns / 1e3, "µs");
    if (std::fabs(std::round(ns / 1e6)) < 1000)
        return threeDigits(ns / 1e6, "ms");
    return threeDigits(ns / 1e9, "s");
}

std::string formatBytes(uint64_t bytes)
{
    if (bytes < 1024)
        return std::to_string(bytes) + " B";
    static const char* const units[] = { "KiB", "MiB", "GiB", "TiB" };
    double scaled = double(bytes);
    int unit = -1;
    while (scaled >= 1024 && unit < 3) {
        scaled /= 1024;
        ++unit;
    }
    return threeDigits(scaled, units[unit]);
}

} // namespace tgraph
