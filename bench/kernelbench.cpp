// SPDX-License-Identifier: Apache-2.0
#include "kernelbench.h"

#include "core/util/format.h"
#include "model/nn/fusedops.h"
#include "model/nn/layers.h"
#include "model/runtime/torchruntime.h"

#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <limits>

namespace tgraph::bench {

namespace {

namespace F = torch::nn::functional;

double bestSeconds(int repeat, const std::function<void()>& body)
{
    double best = std::numeric_limits<double>::infinity();
    for (int r = 0; r < repeat; ++r) {
        const auto start = std::chrono::steady_clock::now();
        body();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return best;
}

void row(const char* name, double fused, double composed, double bytes)
{
    std::printf(
        "%-34s %9.1f %9.1f %6.2fx %8.1f\n", name, 1e3 * fused, 1e3 * composed, composed / fused, bytes / fused / 1e9);
    std::fflush(stdout);
}

// Forward + backward of f(inputs) with a fixed upstream gradient; the inputs' gradients are reset.
double forwardBackward(int repeat, const std::vector<torch::Tensor>& inputs, const std::function<torch::Tensor()>& f,
    const torch::Tensor& upstream)
{
    return bestSeconds(repeat, [&] {
        for (const auto& t : inputs)
            t.mutable_grad() = torch::Tensor();
        f().backward(upstream);
    });
}

} // namespace

int runKernelBench(const std::vector<std::string>& args)
{
    int64_t n = 984;
    int64_t c = 128;
    int64_t width = 256;
    int repeat = 5;
    int threads = 0;
    for (size_t i = 0; i + 1 < args.size(); i += 2) {
        if (args[i] == "--nodes")
            n = std::stoll(args[i + 1]);
        else if (args[i] == "--configs")
            c = std::stoll(args[i + 1]);
        else if (args[i] == "--width")
            width = std::stoll(args[i + 1]);
        else if (args[i] == "--repeat")
            repeat = std::stoi(args[i + 1]);
        else if (args[i] == "--threads")
            threads = std::stoi(args[i + 1]);
    }
    if (args.size() % 2 != 0) {
        std::printf("Usage: tgraph-bench kernels [--nodes 984] [--configs 128] [--width 256] [--repeat 5] "
                    "[--threads T]\n"
                    "Times the fused element-wise kernels of model/nn/fusedkernels.h against the composed ATen ops\n"
                    "they replace, on (N, C, F) float32 activations: ms (best of --repeat), speed-up, and the\n"
                    "fused kernel's memory traffic in GB/s (arrays read + written once). A plain copy of one\n"
                    "activation shows the machine's memory bandwidth.\n");
        return args.size() == 1 && (args[0] == "--help" || args[0] == "-h") ? 0 : 2;
    }
    threads = model::initTorchRuntime(threads);
    torch::manual_seed(1);
    const double one = double(n * c * width) * sizeof(float);
    std::printf("tgraph-bench kernels: N %lld, C %lld, F %lld (%s per activation), %d thread%s, kernels: %s\n\n",
        (long long)n, (long long)c, (long long)width, formatBytes(uint64_t(one)).c_str(), threads,
        threads == 1 ? "" : "s", model::fusedKernelTarget());
    std::printf("%-34s %9s %9s %7s %8s\n", "", "fused ms", "ATen ms", "x", "GB/s");

    const auto h = torch::randn({ n, c, width });
    auto copyTarget = torch::empty_like(h);
    const double copy = bestSeconds(repeat, [&] { copyTarget.copy_(h); });
    std::printf("%-34s %9.1f %9s %7s %8.1f\n", "copy of one activation", 1e3 * copy, "", "", 2 * one / copy / 1e9);

    // The gated tail of a layer: the gate's two products (both sides), sigmoid and product, the
    // cross-config softmax, residual, GELU, dropout. GB/s counts the activation-sized arrays the
    // fused side reads and writes.
    model::ChannelGate gate(width);
    const auto temperature = torch::full({}, 0.5);
    auto composed = [&](const torch::Tensor& x, const torch::Tensor& s, const torch::Tensor& t, double p) {
        auto y = x * torch::sigmoid(gate->linear2(torch::relu(gate->linear1(x))));
        if (t.defined())
            y = torch::cat({ y, y * torch::softmax(y / t, 1) }, 2);
        if (!s.defined())
            return torch::gelu(y);
        return F::dropout(torch::gelu(s + y), F::DropoutFuncOptions().p(p).training(p > 0));
    };
    for (const bool cross : { false, true }) {
        const double ow = cross ? 2.0 : 1.0; // output width in activations
        const auto s = torch::randn({ n, c, cross ? 2 * width : width });
        const torch::Tensor t = cross ? temperature : torch::Tensor();
        const char* label = cross ? "cross on" : "cross off";
        torch::NoGradGuard noGrad;
        char name[96];
        std::snprintf(name, sizeof name, "f_in gate + GELU, %s", label);
        row(name, bestSeconds(repeat, [&] { model::gatedLayer(h, *gate, {}, t, false, 0.0, false); }),
            bestSeconds(repeat, [&] { composed(h, {}, t, 0.0); }), (3 + ow) * one);
        std::snprintf(name, sizeof name, "block gate + residual + GELU, %s", label);
        row(name, bestSeconds(repeat, [&] { model::gatedLayer(h, *gate, s, t, false, 0.0, false); }),
            bestSeconds(repeat, [&] { composed(h, s, t, 0.0); }), (3 + 2 * ow) * one);
    }
    for (const bool cross : { false, true }) {
        const double ow = cross ? 2.0 : 1.0;
        const auto hg = h.clone().requires_grad_(true);
        const auto sg = torch::randn({ n, c, cross ? 2 * width : width }).requires_grad_(true);
        const auto tg = temperature.clone().requires_grad_(true);
        const torch::Tensor t = cross ? tg : torch::Tensor();
        const auto upstream = torch::randn_like(sg);
        const std::vector<torch::Tensor> inputs { hg, sg, tg, gate->linear1->weight, gate->linear1->bias,
            gate->linear2->weight, gate->linear2->bias };
        char name[96];
        std::snprintf(name, sizeof name, "block fwd+bwd, dropout 0.2, %s", cross ? "cross on" : "cross off");
        const double fused = forwardBackward(
            repeat, inputs, [&] { return model::gatedLayer(hg, *gate, sg, t, false, 0.2, true); }, upstream);
        const double plain = forwardBackward(
            repeat, inputs, [&] { return composed(hg, sg, t, 0.2); }, upstream);
        // forward: h read (twice), z written and read, s read, out written; backward: h, z, s, dout
        // read, dh (read and written by the W1 path's addmm_), dz, ds written.
        row(name, fused, plain, (4 + 2 * ow) * one + (6 + 2 * ow) * one);
    }
    {
        // SAGE mean over a chain-like graph: every node sends to the next one and to a node 7 ahead.
        std::vector<int64_t> consumer;
        std::vector<int64_t> producer;
        for (int64_t i = 0; i + 1 < n; ++i) {
            consumer.push_back(i + 1);
            producer.push_back(i);
            if (i + 7 < n) {
                consumer.push_back(i + 7);
                producer.push_back(i);
            }
        }
        const auto edges = torch::stack({ torch::tensor(consumer), torch::tensor(producer) });
        const model::EdgeTensors e = model::prepareEdges(edges, n, false);
        model::SageConv conv(width, width);
        const auto x = torch::randn({ n, c, width });
        torch::NoGradGuard noGrad;
        const double fused = bestSeconds(repeat, [&] { conv->fusedForward(x, e); });
        const double composed = bestSeconds(repeat, [&] { conv(x, e); });
        row("SAGE layer incl. products (E = 2N)", fused, composed, 4 * one);
    }
    return 0;
}

} // namespace tgraph::bench
