// SPDX-License-Identifier: Apache-2.0
#include "torchruntime.h"

#include "cachingcpuallocator.h"

#include <ATen/Parallel.h>
#include <torch/version.h>

#include <algorithm>
#include <thread>
#include <unistd.h>

namespace tgraph::model {

std::string torchVersion() { return TORCH_VERSION; }

int initTorchRuntime(int threads)
{
    // Idle blocks kept for reuse: a quarter of the memory, 512 MiB to 8 GiB.
    CachingAllocatorOptions cache;
    const long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && pageSize > 0)
        cache.idleLimitBytes = std::clamp(size_t(pages) * size_t(pageSize) / 4, size_t(512) << 20, size_t(8) << 30);
    installCachingCpuAllocator(cache);
    if (threads <= 0)
        threads = int(std::max(1u, std::thread::hardware_concurrency()));
    at::set_num_threads(threads);
    return at::get_num_threads();
}

} // namespace tgraph::model
