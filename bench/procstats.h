// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace tgraph::bench {

// Resident set size now and its peak (VmRSS / VmHWM of /proc/self/status), in bytes.
uint64_t currentRss();
uint64_t peakRss();
// Virtual memory size (VmSize), in bytes.
uint64_t virtualSize();

inline double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Writes `bytes` to `path` (inputs the benchmarks make for their child processes).
void writeFile(const std::string& path, const std::string& bytes);

// Runs a program, returns its stdout; throws std::runtime_error when it fails.
std::string runChild(const std::vector<std::string>& argv);

// "key=value" pairs of a child's one-line report.
double reportValue(const std::string& report, const std::string& key);

} // namespace tgraph::bench
