// SPDX-License-Identifier: Apache-2.0
#include "model/runtime/torchruntime.h"

#include "model/runtime/cachingcpuallocator.h"

#include <ATen/Parallel.h>
#include <torch/version.h>

#include <algorithm>
#include <dlfcn.h>
#include <thread>
#include <unistd.h>

namespace tgraph::model {

std::string torchVersion() { return TORCH_VERSION; }

namespace {

// OpenBLAS (which LibTorch's matmul calls through libblas.so.3): its pthreads build keeps a pool
// of its own, sized by OPENBLAS_NUM_THREADS or the core count when the library loads, which
// at::set_num_threads does not reach; its OpenMP build (the one our executables link, docs/build.md
// §4) runs on LibTorch's OpenMP threads and follows their count. Looked up at run time: another BLAS
// may be installed as libblas.so.3, and then there is nothing to set.
using SetThreads = void (*)(int);
using GetThreads = int (*)();

SetThreads openblasSetThreads()
{
    static const auto fn = reinterpret_cast<SetThreads>(::dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
    return fn;
}

} // namespace

int blasThreads()
{
    static const auto fn = reinterpret_cast<GetThreads>(::dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
    return fn ? fn() : 0;
}

std::string blasName()
{
    using GetParallel = int (*)();
    static const auto fn = reinterpret_cast<GetParallel>(::dlsym(RTLD_DEFAULT, "openblas_get_parallel"));
    if (!fn)
        return "not OpenBLAS";
    switch (fn()) {
    case 0:
        return "OpenBLAS (serial)";
    case 1:
        return "OpenBLAS (pthreads)";
    case 2:
        return "OpenBLAS (OpenMP)";
    default:
        return "OpenBLAS";
    }
}

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
    if (const SetThreads setBlas = openblasSetThreads())
        setBlas(threads); // else a worker asked for 1 thread still runs its products on every core
    return at::get_num_threads();
}

} // namespace tgraph::model
