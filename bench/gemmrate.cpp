// SPDX-License-Identifier: Apache-2.0
#include "gemmrate.h"

#include "procstats.h"

#include "model/nn/fusedkernels.h"
#include "model/nn/modeloptions.h"
#include "model/nn/products.h"
#include "model/nn/slicedscoring.h"
#include "model/nn/tgraphmodel.h"

#include "core/util/precision.h"

#include <torch/torch.h>

#include <cstdio>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace tgraph::bench {

namespace {

// Best time of `repeat` runs of f after one warm-up run.
template <typename F>
double bestSeconds(int repeat, const F& f)
{
    f();
    double best = std::numeric_limits<double>::infinity();
    for (int r = 0; r < repeat; ++r) {
        const auto start = std::chrono::steady_clock::now();
        f();
        best = std::min(best, secondsSince(start));
    }
    return best;
}

} // namespace

double gemmPeak(int64_t n, int repeat, bool bf16)
{
    const model::ProductPrecisionScope precision(bf16);
    const auto a = bf16 ? model::toBf16(torch::randn({ n, n })) : torch::randn({ n, n });
    const auto b = bf16 ? model::toBf16(torch::randn({ n, n })) : torch::randn({ n, n });
    auto c = torch::empty({ n, n });
    const double s = bestSeconds(repeat, [&] { model::productInto(c, a, b, false); });
    return 2.0 * double(n) * double(n) * double(n) / s / 1e9;
}

double gemmRate(int64_t m, int64_t k, int64_t n, int repeat, bool bf16)
{
    const model::ProductPrecisionScope precision(bf16);
    const auto a = torch::randn({ m, k });
    const auto w = bf16 ? model::toBf16(torch::randn({ k, n })) : torch::randn({ k, n });
    const auto bias = torch::randn({ n });
    const double s = bestSeconds(repeat, [&] { (void)model::productAdd(bias, a, w); });
    return 2.0 * double(m) * double(k) * double(n) / s / 1e9;
}

double gateKernelRate(int64_t m, int64_t width, int64_t reduced, int repeat, bool bf16)
{
    if (bf16) {
        const model::ProductPrecisionScope precision(true);
        const auto x = torch::randn({ m, width });
        const auto w1t = model::toBf16(torch::randn({ width, reduced }));
        const auto b1 = torch::randn({ reduced });
        const auto w2t = model::toBf16(torch::randn({ reduced, width }));
        const double s = bestSeconds(
            repeat, [&] { (void)model::product(model::productAdd(b1, x, w1t).clamp_min_(0.0), w2t); });
        return 4.0 * double(m) * double(width) * double(reduced) / s / 1e9;
    }
    const auto x = torch::randn({ m, width });
    const auto w1t = torch::randn({ width, reduced });
    const auto b1 = torch::randn({ reduced });
    const auto w2t = torch::randn({ reduced, width });
    auto z = torch::empty({ m, width });
    bool done = true;
    const double s = bestSeconds(repeat, [&] {
        done = model::kernels::gateProducts(m, width, reduced, x.data_ptr<float>(), w1t.data_ptr<float>(),
            b1.data_ptr<float>(), w2t.data_ptr<float>(), nullptr, z.data_ptr<float>());
    });
    return done ? 4.0 * double(m) * double(width) * double(reduced) / s / 1e9 : std::nan("");
}

double copyBandwidth(int repeat)
{
    const size_t bytes = size_t(256) << 20;
    std::vector<char> from(bytes, 1);
    std::vector<char> to(bytes, 2);
    const double s = bestSeconds(repeat, [&] { std::memcpy(to.data(), from.data(), bytes); });
    return 2.0 * double(bytes) / s;
}

void printPrecisionHeader(const std::vector<std::string>& precisions)
{
    const CpuBf16Units units = cpuBf16Units();
    std::string list;
    for (const std::string& p : precisions)
        list += (list.empty() ? "" : " then ") + p;
    std::printf("precision: %s (this CPU: %s, so auto = %s; bf16 products: %s)\n", list.c_str(),
        describe(units).c_str(), precisionName(resolvePrecision(Precision::Auto, units)),
        model::bf16GemmBackend().c_str());
    const double fp32 = gemmPeak(2048, 3, false);
    const double bf16 = gemmPeak(2048, 3, true);
    std::printf("GEMM peak (2048^3, best of 3): fp32 %.1f GFLOP/s, bf16 %.1f GFLOP/s (%.1fx)\n", fp32, bf16, bf16 / fp32);
    std::fflush(stdout);
}

std::vector<Product> scoringProducts(bool crossAttn, int64_t hidden, int64_t blocks, int64_t nodes, int64_t configs,
    int64_t batch)
{
    const int64_t width = crossAttn ? hidden / 2 : hidden; // a layer's own channels (docs/model.md §3.2)
    const int64_t chunks = (configs + batch - 1) / batch;
    const int64_t chunk = (configs + chunks - 1) / chunks; // array_split's larger chunks
    const double rows = double(nodes) * double(configs);
    int64_t callRows = 0;
    std::vector<Product> out;
    if (crossAttn) {
        // Node slices (model/nn/slicedscoring.h), SAGE aggregate-then-project.
        callRows = std::min(model::defaultSliceNodes(chunk, hidden), nodes) * chunk;
        out.push_back({ "f_in[1] Linear", callRows, hidden, width, rows });
        out.push_back({ "SAGE [W_l W_r]", callRows, 2 * hidden, width, rows * double(blocks) });
    } else {
        // Configuration sub-batches (TGraphModelImpl::forward), SAGE project-then-aggregate.
        callRows = std::min(model::scoreSubBatchConfigs(nodes, hidden), chunk) * nodes;
        out.push_back({ "f_in[1] Linear", callRows, hidden, width, rows });
        out.push_back({ "SAGE [W_l; W_r]", callRows, hidden, 2 * width, rows * double(blocks) });
    }
    out.push_back({ "gates (kernel)", callRows, width / model::kGateReduction, width, rows * double(2 + blocks), true });
    return out;
}

} // namespace tgraph::bench
