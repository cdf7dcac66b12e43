// SPDX-License-Identifier: Apache-2.0
#pragma once

// The model's matrix products in the process's precision (docs/model.md §10.12). In fp32 (the
// default) each function is the ATen product it names. In bf16 the two operands are rounded to
// bfloat16 once (a float32 operand is converted in one pass; a bfloat16 one is used as it is, so a
// layer input feeding two products is converted once, toBf16) and multiplied with float32
// accumulation into a float32 result: oneDNN's bf16 GEMM, which runs on AMX tiles or AVX512-BF16
// dot products where the CPU has them (emulated, slower, elsewhere). Biases, results and
// everything around the products stay float32. The setting belongs to the process, like
// --recompute: weights files and checkpoints never store it.

#include "core/util/precision.h"

#include <torch/torch.h>

#include <string>

namespace tgraph::model {

// Products in bf16 from now on (true) or in fp32 (false, the start-up state).
void setBf16Products(bool on);
bool bf16Products();

// Sets the process's products from a user's setting (`--precision`): resolvePrecision(requested,
// cpuBf16Units()). Returns what it became, Fp32 or Bf16.
Precision applyPrecision(Precision requested);
// One line saying which path runs and why, for --help-adjacent output, run parameters and the
// studio: "bf16 products (auto: AVX512-BF16; oneDNN 2.6.3 bf16 GEMM, float32 results)",
// "fp32 products (auto: no bf16 units)", "fp32 products (--precision fp32)".
std::string precisionSummary(Precision requested);

// Sets the precision for its lifetime and restores the previous one (tests, benches).
class ProductPrecisionScope
{
public:
    explicit ProductPrecisionScope(bool bf16);
    ~ProductPrecisionScope();
    ProductPrecisionScope(const ProductPrecisionScope&) = delete;
    ProductPrecisionScope& operator=(const ProductPrecisionScope&) = delete;

private:
    bool m_before;
};

// What runs the bf16 products in this process: "oneDNN <version> bf16 GEMM, float32 results", or
// "ATen bf16 mm" when oneDNN's GEMM entry is not in the process (the results are then rounded to
// bfloat16 before they are widened back).
std::string bf16GemmBackend();

// t (2-d, float32 or bfloat16) as a contiguous bfloat16 tensor, rounded to nearest even in one
// pass (kernels::toBf16); a contiguous bfloat16 t is returned as it is.
torch::Tensor toBf16(const torch::Tensor& t);

// a (m, k) times b (k, n), float32 result. Operands are 2-d float32 (or bfloat16 in bf16 mode),
// strided as ATen's mm accepts (transposed views of contiguous tensors are not copied).
torch::Tensor product(const torch::Tensor& a, const torch::Tensor& b);
// bias (n,) + a b, as torch::addmm(bias, a, b); an undefined bias (a Linear without one) gives a b.
torch::Tensor productAdd(const torch::Tensor& bias, const torch::Tensor& a, const torch::Tensor& b);
// out = a b, or out += a b when `accumulate`; out (m, n) float32, contiguous.
void productInto(const torch::Tensor& out, const torch::Tensor& a, const torch::Tensor& b, bool accumulate);

} // namespace tgraph::model
