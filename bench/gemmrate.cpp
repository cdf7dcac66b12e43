// SPDX-License-Identifier: Apache-2.0
#include "gemmrate.h"

#include "procstats.h"

#include "model/nn/fusedkernels.h"
#include "model/nn/modeloptions.h"
#include "model/nn/slicedscoring.h"
#include "model/nn/tgraphmodel.h"

#include <torch/torch.h>

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

double gemmPeak(int64_t n, int repeat)
{
    const auto a = torch::randn({ n, n });
    const auto b = torch::randn({ n, n });
    auto c = torch::empty({ n, n });
    const double s = bestSeconds(repeat, [&] { torch::mm_out(c, a, b); });
    return 2.0 * double(n) * double(n) * double(n) / s / 1e9;
}

double gemmRate(int64_t m, int64_t k, int64_t n, int repeat)
{
    const auto a = torch::randn({ m, k });
    const auto w = torch::randn({ k, n });
    const auto bias = torch::randn({ n });
    const double s = bestSeconds(repeat, [&] { (void)torch::addmm(bias, a, w); });
    return 2.0 * double(m) * double(k) * double(n) / s / 1e9;
}

double gateKernelRate(int64_t m, int64_t width, int64_t reduced, int repeat)
{
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
