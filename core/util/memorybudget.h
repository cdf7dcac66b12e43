// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>

namespace tgraph {

// How many bytes one array or model read from a file may claim before anything is allocated
// (docs/formats.md, "Declared sizes"): TGRAPH_MEMORY_BUDGET when set (bytes, or with a binary
// suffix K, M, G or T: "512M", "8G"), otherwise the least of the machine's physical memory, the
// process's address-space and data limits (ulimit -v / -d) and its cgroup's memory.max. A file
// declaring more is refused with an error naming it, instead of the process running out of memory.
// Throws InputError naming TGRAPH_MEMORY_BUDGET when the variable is not a size.
uint64_t memoryBudgetBytes();

// "the memory budget of 8.0 GiB (TGRAPH_MEMORY_BUDGET or the machine's memory)", for messages.
std::string describeMemoryBudget(uint64_t budget);

// Parses "4096", "512K", "64M", "8G", "1T" (binary units); false when it is not such a size.
bool parseByteSize(const std::string& text, uint64_t* bytes);

} // namespace tgraph
