// SPDX-License-Identifier: Apache-2.0
#pragma once

// A caching allocator for LibTorch's large CPU tensors. A training step or a forward pass of the
// TGraph model allocates and frees (C, N, F) activations of tens to hundreds of MB over and over;
// glibc serves each with a fresh mmap and returns it with munmap, so every pass faults all of its
// memory in again, page by page (on this VM the kernel's share of a training step was as large as
// the model's own arithmetic: docs/build.md §7, issue 6). Here blocks of at least `minBytes`
// come from anonymous mappings in 2 MiB multiples (transparent huge pages asked for with
// MADV_HUGEPAGE) and go back to a free list when their tensor dies; the next request of a similar
// size (at most 1/8 larger) takes one, already faulted in. When none fits, the request is made of
// idle blocks' pages: the front of a larger idle block, or smaller idle blocks moved side by side
// with mremap (page tables move, the memory is neither copied nor faulted in again), plus fresh
// pages for what they do not cover. Only with no idle block at all is a block mapped whole, after
// idle blocks beyond the largest live total seen so far plus 1/8 (at least 64 MiB) were unmapped.
// Idle blocks beyond `idleLimitBytes` are unmapped too, and a failed mapping first releases every
// idle block and retries.
// Smaller requests go to LibTorch's own allocator. Thread-safe (one mutex).

#include <cstddef>
#include <cstdint>

namespace tgraph::model {

struct CachingAllocatorOptions
{
    size_t minBytes = size_t(1) << 20;
    size_t idleLimitBytes = size_t(2) << 30; // kept for reuse at most (initTorchRuntime: RAM / 4)
};

struct CachingAllocatorStats
{
    uint64_t requests = 0; // allocations served by the cache (>= minBytes)
    uint64_t reused = 0; // ... of which from an idle block
    uint64_t mapped = 0; // fresh mappings (whole blocks, or the part of an assembled one idle pages did not cover)
    uint64_t split = 0; // misses served by the front of a larger idle block
    uint64_t assembled = 0; // misses served by moving smaller idle blocks' pages into one range
    uint64_t movedBytes = 0; // ... their bytes moved
    uint64_t unmapped = 0; // munmap calls
    size_t inUseBytes = 0; // blocks held by live tensors (rounded sizes)
    size_t idleBytes = 0; // blocks kept for reuse
    size_t peakBytes = 0; // peak of inUse + idle
    size_t peakInUseBytes = 0; // largest live total seen (what misses trim the idle blocks toward)
};

// Makes the caching allocator LibTorch's CPU allocator (once per process; later calls change
// nothing and return false). TGRAPH_TORCH_CACHE=0 in the environment keeps LibTorch's own;
// TGRAPH_TORCH_CACHE=<MiB> sets the idle limit.
bool installCachingCpuAllocator(const CachingAllocatorOptions& options = {});
bool cachingCpuAllocatorInstalled();
CachingAllocatorStats cachingCpuAllocatorStats();
// Unmaps every idle block (e.g. after a large inference, before a long idle time).
void releaseIdleCpuBlocks();

} // namespace tgraph::model
