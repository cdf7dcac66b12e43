// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tgraph::bench {

// Best GFLOP/s of an (n x n) @ (n x n) matmul: this machine's GEMM peak, float32 on LibTorch's BLAS,
// or with `bf16` the model's bf16 product (model/nn/products.h: bfloat16 operands, float32 results,
// the operands' conversion not counted).
double gemmPeak(int64_t n, int repeat, bool bf16 = false);

// Best GFLOP/s of the product the model's layers run: (m x k) rows times a contiguous (k x n)
// weight plus a bias (model::productAdd, as model/nn does), on fresh random data; with `bf16` in
// bf16 with the rows' conversion counted, as a layer pays it.
double gemmRate(int64_t m, int64_t k, int64_t n, int repeat, bool bf16 = false);

// Best bytes per second moved (read plus written) by memcpy of a 256 MiB buffer: this machine's
// streaming bandwidth as one thread sees it.
double copyBandwidth(int repeat);

// Best GFLOP/s of the gate's two products for m rows of F = `width` channels through R = `reduced`
// in the scoring passes' kernel (kernels::gateProducts), NaN for shapes it has no kernel for (it
// runs in both precisions); with `bf16` the two bf16 products a pass with gradients runs instead.
double gateKernelRate(int64_t m, int64_t width, int64_t reduced, int repeat, bool bf16 = false);

// Which precisions a bench runs ("fp32 then bf16"), this CPU's bf16 units and what auto means here,
// what runs the bf16 products, and this machine's fp32 and bf16 GEMM peaks (2048^3), on stdout.
void printPrecisionHeader(const std::vector<std::string>& precisions);

// One kind of matrix product of a pass: `rows` rows in all, multiplied by (k x n) in calls of
// `callRows` rows each.
struct Product {
    std::string what;
    int64_t callRows = 0;
    int64_t k = 0;
    int64_t n = 0;
    double rows = 0;
    bool gateKernel = false; // both gate products, R = k, F = n: rows * 4 R F FLOPs in one kernel
    double flops() const { return (gateKernel ? 4.0 : 2.0) * rows * double(k) * double(n); }
};

// The products of a layout model's scoring pass without gradients over `configs` configurations of
// a pruned graph of `nodes` nodes in array_split chunks of at most `batch` (docs/model.md §6.1):
// node slice by node slice with cross-attention, configuration sub-batches without. f_in[0]'s
// projection (the configurable nodes' rows only) is left out. The gates' products are one kernel
// (docs/model.md §6.1).
std::vector<Product> scoringProducts(bool crossAttn, int64_t hidden, int64_t blocks, int64_t nodes, int64_t configs,
    int64_t batch);

} // namespace tgraph::bench
