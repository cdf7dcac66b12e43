// SPDX-License-Identifier: Apache-2.0
#include "model/runtime/cachingcpuallocator.h"

#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <sys/mman.h>
#include <unordered_map>

namespace tgraph::model {

namespace {

constexpr size_t kHugePage = size_t(2) << 20;

size_t roundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

// 2 MiB-aligned anonymous memory (huge pages can only back aligned 2 MiB ranges): map 2 MiB more
// than asked and cut off the ends. `reserve`: address space only (PROT_NONE), for assemble().
void* mapAligned(size_t bytes, bool reserve = false)
{
    const size_t span = bytes + kHugePage;
    void* raw = ::mmap(nullptr, span, reserve ? PROT_NONE : PROT_READ | PROT_WRITE,
        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED)
        return nullptr;
    const auto base = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t start = roundUp(base, kHugePage);
    if (start > base)
        ::munmap(raw, start - base);
    const uintptr_t end = start + bytes;
    if (base + span > end)
        ::munmap(reinterpret_cast<void*>(end), base + span - end);
    void* block = reinterpret_cast<void*>(start);
    if (!reserve)
        ::madvise(block, bytes, MADV_HUGEPAGE); // a hint: without THP the block still works
    return block;
}

// Fresh memory over part of a reserved range.
bool mapFixed(void* at, size_t bytes)
{
    void* p = ::mmap(at, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    if (p == MAP_FAILED)
        return false;
    ::madvise(p, bytes, MADV_HUGEPAGE);
    return true;
}

class CachingCpuAllocator final : public c10::Allocator
{
public:
    CachingCpuAllocator(c10::Allocator* fallback, const CachingAllocatorOptions& options)
        : m_fallback(fallback)
        , m_fallbackDeleter(fallback->raw_deleter())
        , m_options(options)
    { }

    c10::DataPtr allocate(size_t n) const override
    {
        if (n < m_options.minBytes) {
            // LibTorch's own for small tensors, behind the one deleter raw_deleter() promises.
            c10::DataPtr small = m_fallback->allocate(n);
            void* p = small.get();
            TORCH_INTERNAL_ASSERT(small.get_context() == p, "the CPU allocator's context is not its data");
            small.release_context();
            return { p, p, &deleteAny, c10::Device(c10::DeviceType::CPU) };
        }
        void* p = self().take(roundUp(n, kHugePage));
        return { p, p, &deleteAny, c10::Device(c10::DeviceType::CPU) };
    }

    c10::DeleterFnPtr raw_deleter() const override { return &deleteAny; }

    CachingAllocatorStats stats()
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_stats;
    }

    void releaseIdle()
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        trim(0);
    }

    static CachingCpuAllocator* instance;

private:
    CachingCpuAllocator& self() const { return const_cast<CachingCpuAllocator&>(*this); }

    void* take(size_t bytes)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        ++m_stats.requests;
        // The smallest idle block that fits and is at most 1/8 larger.
        auto it = m_idle.lower_bound(bytes);
        if (it != m_idle.end() && it->first <= bytes + bytes / 8) {
            void* p = it->second;
            const size_t size = it->first;
            m_idle.erase(it);
            m_stats.idleBytes -= size;
            m_stats.inUseBytes += size;
            m_live[p] = size;
            ++m_stats.reused;
            return p;
        }
        // A miss: no idle block fits. The idle blocks' pages make up the new one (assemble), and
        // only what they do not cover is mapped fresh: faulting memory in is what the cache is for
        // avoiding (on this VM about 1 GB/s, a quarter of a step's extra time with recomputation).
        size_t& peak = m_stats.peakInUseBytes;
        peak = std::max(peak, m_stats.inUseBytes + bytes);
        void* p = m_idle.empty() ? nullptr : assemble(bytes);
        if (!p) {
            // Keep what is mapped near the largest working set seen so far: release idle blocks
            // (largest first) while live + idle + this one would exceed it by more than the slack.
            const size_t bound = peak + std::max(peak / 8, size_t(64) << 20);
            trim(bound > m_stats.inUseBytes + bytes ? bound - m_stats.inUseBytes - bytes : 0);
            p = mapAligned(bytes);
            if (!p) {
                trim(0); // give the idle blocks back and try once more
                p = mapAligned(bytes);
            }
            if (!p)
                TORCH_CHECK(false, "out of memory: cannot map ", bytes >> 20, " MiB for a tensor (",
                    m_stats.inUseBytes >> 20, " MiB in use)");
            ++m_stats.mapped;
        }
        m_stats.inUseBytes += bytes;
        m_stats.peakBytes = std::max(m_stats.peakBytes, m_stats.inUseBytes + m_stats.idleBytes);
        m_live[p] = bytes;
        return p;
    }

    // A block of `bytes` made of idle blocks' pages, none faulted in again: the smallest idle block
    // larger than `bytes` is split (its tail stays idle), or, when every idle block is smaller, the
    // largest are moved side by side into a new range (mremap moves page tables, not data; the
    // last one split if it covers more than is left), and what they do not cover is mapped fresh.
    // Split blocks are address ranges like any other: munmap and mremap take part of a mapping.
    // nullptr when the kernel refuses (address space, mapping count); then nothing has changed or
    // the moved pages are given back. Under the mutex.
    void* assemble(size_t bytes)
    {
        const auto larger = m_idle.lower_bound(bytes);
        if (larger != m_idle.end()) {
            char* p = static_cast<char*>(larger->second);
            const size_t size = larger->first;
            m_idle.erase(larger);
            if (size > bytes)
                m_idle.emplace(size - bytes, p + bytes);
            m_stats.idleBytes -= bytes;
            ++m_stats.split;
            return p;
        }
        char* range = static_cast<char*>(mapAligned(bytes, true));
        if (!range)
            return nullptr;
        size_t filled = 0;
        while (filled < bytes && !m_idle.empty()) {
            const auto largest = std::prev(m_idle.end());
            char* from = static_cast<char*>(largest->second);
            const size_t size = largest->first;
            const size_t part = std::min(size, bytes - filled);
            if (::mremap(from, part, part, MREMAP_MAYMOVE | MREMAP_FIXED, range + filled) == MAP_FAILED)
                break; // the rest is mapped fresh
            m_idle.erase(largest);
            if (part < size)
                m_idle.emplace(size - part, from + part);
            m_stats.idleBytes -= part;
            m_stats.movedBytes += part;
            filled += part;
        }
        if (filled < bytes) {
            if (!mapFixed(range + filled, bytes - filled)) {
                ::munmap(range, bytes);
                ++m_stats.unmapped;
                return nullptr;
            }
            ++m_stats.mapped;
        }
        ++m_stats.assembled;
        return range;
    }

    // True when `p` was one of ours (now idle); false for the fallback's.
    bool give(void* p)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        auto it = m_live.find(p);
        if (it == m_live.end())
            return false;
        const size_t size = it->second;
        m_live.erase(it);
        m_stats.inUseBytes -= size;
        m_idle.emplace(size, p);
        m_stats.idleBytes += size;
        trim(m_options.idleLimitBytes);
        return true;
    }

    // Unmaps idle blocks, largest first, until at most `limit` bytes stay idle. Under the mutex.
    void trim(size_t limit)
    {
        while (m_stats.idleBytes > limit && !m_idle.empty()) {
            auto largest = std::prev(m_idle.end());
            ::munmap(largest->second, largest->first);
            m_stats.idleBytes -= largest->first;
            ++m_stats.unmapped;
            m_idle.erase(largest);
        }
    }

    static void deleteAny(void* p)
    {
        if (p && instance->give(p))
            return;
        instance->m_fallbackDeleter(p);
    }

    c10::Allocator* m_fallback;
    c10::DeleterFnPtr m_fallbackDeleter;
    CachingAllocatorOptions m_options;
    std::mutex m_mutex;
    std::multimap<size_t, void*> m_idle;
    std::unordered_map<void*, size_t> m_live;
    CachingAllocatorStats m_stats;
};

CachingCpuAllocator* CachingCpuAllocator::instance = nullptr;
std::once_flag g_installOnce;

} // namespace

bool installCachingCpuAllocator(const CachingAllocatorOptions& options)
{
    bool installed = false;
    std::call_once(g_installOnce, [&] {
        CachingAllocatorOptions o = options;
        if (const char* env = std::getenv("TGRAPH_TORCH_CACHE")) {
            const std::string value = env;
            if (value == "0")
                return;
            char* end = nullptr;
            const unsigned long long mib = std::strtoull(value.c_str(), &end, 10);
            if (end != value.c_str() && *end == '\0')
                o.idleLimitBytes = size_t(mib) << 20;
        }
        c10::Allocator* fallback = c10::GetCPUAllocator();
        if (!fallback->raw_deleter())
            return; // cannot wrap an allocator without a raw deleter
        // Lives as long as the process: tensors may be freed during static destruction.
        CachingCpuAllocator::instance = new CachingCpuAllocator(fallback, o);
        c10::SetCPUAllocator(CachingCpuAllocator::instance, /*priority=*/1);
        installed = true;
    });
    return installed;
}

bool cachingCpuAllocatorInstalled() { return CachingCpuAllocator::instance != nullptr; }

CachingAllocatorStats cachingCpuAllocatorStats()
{
    return CachingCpuAllocator::instance ? CachingCpuAllocator::instance->stats() : CachingAllocatorStats {};
}

void releaseIdleCpuBlocks()
{
    if (CachingCpuAllocator::instance)
        CachingCpuAllocator::instance->releaseIdle();
}

} // namespace tgraph::model
