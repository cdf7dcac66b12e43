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
    bool any() const { return amx || avx512; }
};

// This CPU's, read once with cpuid (all false on other architectures).
CpuBf16Units cpuBf16Units();

// "AMX-BF16 + AVX512-BF16", "AVX512-BF16", "AMX-BF16" or "no bf16 units".
std::string describe(const CpuBf16Units& units);

// What a setting means on a CPU with `units`: Fp32 or Bf16, never Auto. Auto gives Bf16 exactly
// when units.any(); an explicit setting is kept (bf16 without the units is correct, only slower).
Precision resolvePrecision(Precision requested, const CpuBf16Units& units);

} // namespace tgraph
