// SPDX-License-Identifier: Apache-2.0
#include "core/util/precision.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace tgraph {

const char* precisionName(Precision p)
{
    switch (p) {
    case Precision::Auto:
        return "auto";
    case Precision::Fp32:
        return "fp32";
    case Precision::Bf16:
        return "bf16";
    }
    return "auto";
}

std::optional<Precision> parsePrecision(const std::string& text)
{
    for (Precision p : { Precision::Auto, Precision::Fp32, Precision::Bf16 })
        if (text == precisionName(p))
            return p;
    return std::nullopt;
}

namespace {

CpuBf16Units detect()
{
    CpuBf16Units units;
#if defined(__x86_64__) || defined(__i386__)
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid_max(0, nullptr) < 7)
        return units;
    __cpuid(1, a, b, c, d);
    const bool osxsave = (c >> 27) & 1u;
    if (!osxsave)
        return units;
    unsigned xcr0Low = 0, xcr0High = 0;
    __asm__ volatile("xgetbv" : "=a"(xcr0Low), "=d"(xcr0High) : "c"(0));
    const uint64_t xcr0 = (uint64_t(xcr0High) << 32) | xcr0Low;
    const bool avxState = (xcr0 & 0x6) == 0x6; // SSE and AVX registers
    const bool avx512State = avxState && (xcr0 & 0xe0) == 0xe0; // opmask, ZMM0-15 upper halves, ZMM16-31
    const bool tileState = (xcr0 & 0x60000) == 0x60000; // XTILECFG and XTILEDATA
    __cpuid_count(7, 0, a, b, c, d);
    const unsigned maxSubleaf = a;
    const bool avx512f = (b >> 16) & 1u;
    units.amx = tileState && ((d >> 22) & 1u) && ((d >> 24) & 1u); // AMX-BF16 and AMX-TILE
    if (maxSubleaf >= 1) {
        __cpuid_count(7, 1, a, b, c, d);
        units.avx512 = avx512State && avx512f && ((a >> 5) & 1u);
    }
#endif
    return units;
}

} // namespace

CpuBf16Units detectedCpuBf16Units()
{
    static const CpuBf16Units units = detect();
    return units;
}

CpuBf16Units effectiveBf16Units(const CpuBf16Units& detected, const char* environment)
{
    if (!environment || std::string_view(environment) != "0")
        return detected;
    CpuBf16Units none;
    none.hidden = detected.any() || detected.hidden;
    return none;
}

CpuBf16Units cpuBf16Units()
{
    static const CpuBf16Units units = effectiveBf16Units(detectedCpuBf16Units(), std::getenv("TGRAPH_CPU_BF16"));
    return units;
}

std::string describe(const CpuBf16Units& units)
{
    if (units.hidden)
        return "bf16 units hidden by TGRAPH_CPU_BF16=0";
    if (units.amx && units.avx512)
        return "AMX-BF16 + AVX512-BF16";
    if (units.amx)
        return "AMX-BF16";
    if (units.avx512)
        return "AVX512-BF16";
    return "no bf16 units";
}

Precision resolvePrecision(Precision requested, const CpuBf16Units& units)
{
    if (requested == Precision::Auto)
        return units.any() ? Precision::Bf16 : Precision::Fp32;
    return requested;
}

} // namespace tgraph
