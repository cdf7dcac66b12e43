// SPDX-License-Identifier: Apache-2.0
#pragma once

// The precision of the model's matrix products (docs/model.md §10.12): the setting users give
// (`--precision auto|fp32|bf16`), the CPU's bf16 units as cpuid reports them, and what `auto`
// becomes on a CPU. Torch-free, so the CLI, the studio and tests can ask without LibTorch.

#include <optional>
#include <string>

namespace tgraph {

enum class Precision {
    Auto, // bf16 where the CPU has bf16 units (AMX-BF16 or AVX512-BF16), fp32 elsewhere
    Fp32, // every product in float32
    Bf16, // products with bfloat16 inputs and float32 accumulation; everything else float32
};

// "auto", "fp32", "bf16".
const char* precisionName(Precision p);
// The inverse of precisionName; nullopt for anything else.
std::optional<Precision> parsePrecision(const std::string& text);

// The bf16 instructions of a CPU that the operating system has enabled (cpuid leaf 7 and XCR0).
struct CpuBf16Units
{
    bool amx = false; // AMX-BF16 tiles (CPUID.(7,0):EDX[22], XCR0 bits 17-18)
    bool avx512 = false; // AVX512-BF16 dot products (CPUID.(7,1):EAX[5], XCR0 bits 5-7)
    bool hidden = false; // the CPU has some, hidden by TGRAPH_CPU_BF16=0 (amx and avx512 are then false)
    bool any() const { return amx || avx512; }
};

// This CPU's, read once with cpuid (all false on other architectures).
CpuBf16Units detectedCpuBf16Units();

// `detected` as the process uses them: all hidden when `environment` (the value of
// TGRAPH_CPU_BF16, nullptr when unset) is "0", so that `auto` takes the fp32 path as on a CPU
// without bf16 units; any other value changes nothing.
CpuBf16Units effectiveBf16Units(const CpuBf16Units& detected, const char* environment);

// The units `auto` decides with: effectiveBf16Units(detectedCpuBf16Units(), getenv("TGRAPH_CPU_BF16")),
// read once.
CpuBf16Units cpuBf16Units();

// "AMX-BF16 + AVX512-BF16", "AVX512-BF16", "AMX-BF16", "no bf16 units", or
// "bf16 units hidden by TGRAPH_CPU_BF16=0".
std::string describe(const CpuBf16Units& units);

// What a setting means on a CPU with `units`: Fp32 or Bf16, never Auto. Auto gives Bf16 exactly
// when units.any(); an explicit setting is kept (bf16 without the units is correct, only slower).
Precision resolvePrecision(Precision requested, const CpuBf16Units& units);

} // namespace tgraph
