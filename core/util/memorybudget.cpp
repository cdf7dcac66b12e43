// SPDX-License-Identifier: Apache-2.0
#include "core/util/memorybudget.h"

#include "core/util/error.h"
#include "core/util/format.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <sys/resource.h>
#include <unistd.h>

namespace tgraph {

bool parseByteSize(const std::string& text, uint64_t* bytes)
{
    uint64_t value = 0;
    const char* begin = text.data();
    const char* end = text.data() + text.size();
    const auto [next, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc() || next == begin)
        return false;
    int shift = 0;
    if (next != end) {
        if (next + 1 != end)
            return false;
        switch (*next) {
        case 'K': case 'k': shift = 10; break;
        case 'M': case 'm': shift = 20; break;
        case 'G': case 'g': shift = 30; break;
        case 'T': case 't': shift = 40; break;
        default: return false;
        }
    }
    if (shift && value > (UINT64_MAX >> shift))
        return false;
    *bytes = value << shift;
    return *bytes > 0;
}

namespace {

uint64_t cgroupLimit()
{
    std::ifstream in("/sys/fs/cgroup/memory.max"); // cgroup v2; "max" when unlimited
    std::string text;
    uint64_t limit = 0;
    if (in >> text && text != "max" && parseByteSize(text, &limit))
        return limit;
    return UINT64_MAX;
}

uint64_t rlimitOf(int resource)
{
    rlimit r {};
    if (::getrlimit(resource, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
        return uint64_t(r.rlim_cur);
    return UINT64_MAX;
}

} // namespace

uint64_t memoryBudgetBytes()
{
    if (const char* env = std::getenv("TGRAPH_MEMORY_BUDGET"); env && *env) {
        uint64_t bytes = 0;
        if (!parseByteSize(env, &bytes))
            throw InputError("TGRAPH_MEMORY_BUDGET", "",
                std::string("'") + env + "' is not a size (bytes, or with K, M, G or T: 512M, 8G)");
        return bytes;
    }
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long pageSize = ::sysconf(_SC_PAGESIZE);
    uint64_t budget = pages > 0 && pageSize > 0 ? uint64_t(pages) * uint64_t(pageSize) : UINT64_MAX;
    budget = std::min({ budget, rlimitOf(RLIMIT_AS), rlimitOf(RLIMIT_DATA), cgroupLimit() });
    return budget;
}

std::string describeMemoryBudget(uint64_t budget)
{
    return "the memory budget of " + formatBytes(budget) + " (TGRAPH_MEMORY_BUDGET, or the machine's memory and limits)";
}

} // namespace tgraph
