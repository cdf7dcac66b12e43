// SPDX-License-Identifier: Apache-2.0
#include "modelbench.h"

#include "gemmrate.h"
#include "procstats.h"

#include "core/util/childprocess.h"
#include "core/util/format.h"
#include "core/graph/graphio.h"
#include "core/graph/normalizer.h"
#include "core/graph/prune.h"
#include "core/synth/synthetic.h"
#include "model/nn/batch.h"
#include "model/nn/products.h"
#include "core/util/precision.h"
#include "model/runtime/cachingcpuallocator.h"
#include "model/nn/tgraphmodel.h"
#include "model/runtime/torchruntime.h"
#include "model/nn/weights.h"

#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <sstream>
#include <unistd.h>

namespace tgraph::bench {

namespace {

namespace fs = std::filesystem;

std::vector<int64_t> parseList(const std::string& text)
{
    std::vector<int64_t> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
        out.push_back(std::stoll(item));
    return out;
}

// Matmul FLOPs of one forward of the plain module (docs/model.md §3.2): every Linear over C * N rows
// (f_in[0] on X0, f_in[1], SAGE lin_l on the mean and lin_r, the gates' two Linears), plus the head.
double forwardFlops(const model::ModelOptions& o, int64_t configs, int64_t nodes)
{
    const double w = double(o.layerWidth());
    const double h = double(o.hidden);
    const double perRow = 2 * double(model::kLayoutInputWidth) * w + 2 * h * w + double(o.blocks) * 4 * h * w
        + double(2 + o.blocks) * 4 * w * (w / double(model::kGateReduction));
    return double(configs) * (double(nodes) * perRow + 2 * h);
}

// A synthetic layout graph whose pruned form has about `nodes` nodes (pruning keeps the
// configurable nodes and their neighbours, so the configurable count is tuned until it fits).
LayoutGraph prunedGraphOfSize(int64_t nodes, int64_t configs, uint64_t seed)
{
    SyntheticLayoutSpec spec;
    spec.nodes = nodes * 3;
    spec.configurableNodes = std::max<int64_t>(2, nodes / 5);
    spec.configs = configs;
    spec.duplicateFraction = 0;
    spec.seed = seed;
    LayoutGraph best;
    for (int attempt = 0; attempt < 8; ++attempt) {
        LayoutGraph g = pruneToConfigurable(makeSyntheticLayoutGraph(spec)).graph;
        const int64_t n = g.nodeCount();
        if (best.nodeCount() == 0 || std::abs(n - nodes) < std::abs(best.nodeCount() - nodes))
            best = std::move(g);
        if (std::abs(n - nodes) <= nodes / 50)
            break;
        spec.configurableNodes = std::max<int64_t>(2, spec.configurableNodes * nodes / std::max<int64_t>(n, 1));
    }
    return best;
}

torch::Tensor hingeLoss(const torch::Tensor& scores, const torch::Tensor& runtimes)
{
    const auto slower = (runtimes.unsqueeze(1) > runtimes.unsqueeze(0)).to(scores.scalar_type());
    const double c = double(scores.size(0));
    return (slower * torch::relu(1 - (scores.unsqueeze(1) - scores.unsqueeze(0)))).sum() / (c * c);
}

struct CaseResult
{
    double forward = NAN;
    double step = NAN;
    double peakRss = NAN;
};

CaseResult runCase(const std::vector<std::string>& argv)
{
    const std::string report = runChild(argv);
    CaseResult r;
    r.forward = reportValue(report, "forward");
    r.step = reportValue(report, "step");
    r.peakRss = reportValue(report, "peak_rss");
    return r;
}

void cell(double s)
{
    if (std::isnan(s))
        std::printf(" %8s", "-");
    else
        std::printf(" %8.3f", s);
}

// GFLOP/s and share of the GEMM peak; dashes for a case not run.
void rate(double flops, double seconds, double peak)
{
    if (std::isnan(seconds))
        std::printf(" %7s %5s", "-", "-");
    else
        std::printf(" %7.1f %4.0f%%", flops / seconds / 1e9, 100 * flops / seconds / 1e9 / peak);
}

void speedup(double x)
{
    if (std::isnan(x))
        std::printf(" %6s", "-");
    else
        std::printf(" %5.1fx", x);
}

} // namespace

int runModelCase(const std::vector<std::string>& args)
{
    if (args.size() < 5) {
        std::fprintf(stderr,
            "usage: tgraph-bench model-case WEIGHTS GRAPH CONFIGS REPEAT THREADS [--no-step] [--bf16]\n");
        return 2;
    }
    const int64_t configs = std::stoll(args[2]);
    const int repeat = std::max(1, std::stoi(args[3]));
    model::initTorchRuntime(std::stoi(args[4]));
    const bool doStep = std::find(args.begin(), args.end(), "--no-step") == args.end();
    model::setBf16Products(std::find(args.begin(), args.end(), "--bf16") != args.end());

    model::LayoutWeights w = model::loadWeightsNpz(args[0]);
    const LayoutGraph g = loadLayoutGraph(args[1]);
    const model::LayoutBatch batch = model::makeLayoutBatch(
        g, w.normalizer, model::allRows(std::min(configs, g.configCount())), w.model->options().opTableSize, args[1]);
    const auto runtimes
        = torch::from_blob(const_cast<int64_t*>(g.configRuntime.data()), { g.configCount() }, torch::kInt64)
              .narrow(0, 0, batch.configs())
              .clone();

    double forward = std::numeric_limits<double>::infinity();
    w.model->eval();
    for (int r = 0; r < repeat; ++r) {
        const auto start = std::chrono::steady_clock::now();
        torch::NoGradGuard noGrad;
        const auto scores = w.model->forward(batch);
        forward = std::min(forward, secondsSince(start));
    }
    double step = NAN;
    if (doStep) {
        step = std::numeric_limits<double>::infinity();
        w.model->train();
        torch::optim::AdamW optimizer(w.model->parameters(), torch::optim::AdamWOptions(1e-3).weight_decay(1e-5));
        for (int r = 0; r < repeat; ++r) {
            const auto start = std::chrono::steady_clock::now();
            optimizer.zero_grad();
            hingeLoss(w.model->forward(batch), runtimes).backward();
            optimizer.step();
            step = std::min(step, secondsSince(start));
        }
    }
    // TGRAPH_BENCH_PROFILE=PREFIX: one more forward and training step under LibTorch's profiler,
    // written as Chrome traces PREFIX-forward.json and PREFIX-step.json (after the timed runs).
    if (const char* prefix = std::getenv("TGRAPH_BENCH_PROFILE")) {
        {
            w.model->eval();
            torch::NoGradGuard noGrad;
            torch::autograd::profiler::RecordProfile profile(std::string(prefix) + "-forward.json");
            w.model->forward(batch);
        }
        if (doStep) {
            w.model->train();
            torch::optim::AdamW optimizer(w.model->parameters(), torch::optim::AdamWOptions(1e-3).weight_decay(1e-5));
            torch::autograd::profiler::RecordProfile profile(std::string(prefix) + "-step.json");
            optimizer.zero_grad();
            hingeLoss(w.model->forward(batch), runtimes).backward();
            optimizer.step();
        }
    }
    std::printf("forward=%.6f step=%.6f peak_rss=%llu\n", forward, step, (unsigned long long)peakRss());
    if (std::getenv("TGRAPH_BENCH_CACHE_STATS")) {
        const model::CachingAllocatorStats c = model::cachingCpuAllocatorStats();
        std::fprintf(stderr, "cache: %llu requests, %llu reused, %llu mapped, %llu unmapped, peak %zu MiB\n",
            (unsigned long long)c.requests, (unsigned long long)c.reused, (unsigned long long)c.mapped,
            (unsigned long long)c.unmapped, c.peakBytes >> 20);
    }
    return 0;
}

int runModelBench(const std::vector<std::string>& args)
{
    std::vector<int64_t> nodeList { 250, 1000, 4000 };
    std::vector<int64_t> configList { 64, 128 };
    std::vector<bool> crossList { true, false };
    int repeat = 3;
    int pythonRepeat = -1;
    int threads = 0;
    int64_t pythonMaxNodes = std::numeric_limits<int64_t>::max();
    bool doStep = true;
    std::string python = "/usr/bin/python3";
    bool pythonHugePages = false; // give the Python process the same glibc tunable
    std::vector<std::string> precisions { "fp32", "bf16" };
    const std::string script = std::string(TGRAPH_SOURCE_DIR) + "/bench/model_torch.py";
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= args.size()) {
                std::fprintf(stderr, "tgraph-bench model: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return args[++i];
        };
        if (a == "--nodes")
            nodeList = parseList(next());
        else if (a == "--configs")
            configList = parseList(next());
        else if (a == "--cross") {
            const std::string v = next();
            crossList.clear();
            if (v == "on" || v == "both")
                crossList.push_back(true);
            if (v == "off" || v == "both")
                crossList.push_back(false);
        } else if (a == "--repeat")
            repeat = std::max(1, std::stoi(next()));
        else if (a == "--python-repeat")
            pythonRepeat = std::max(0, std::stoi(next()));
        else if (a == "--python-max-nodes")
            pythonMaxNodes = std::stoll(next());
        else if (a == "--threads")
            threads = std::stoi(next());
        else if (a == "--python")
            python = next();
        else if (a == "--python-hugepages")
            pythonHugePages = true;
        else if (a == "--no-python")
            pythonRepeat = 0;
        else if (a == "--no-step")
            doStep = false;
        else if (a == "--precision") {
            const std::string v = next();
            if (v == "both")
                precisions = { "fp32", "bf16" };
            else if (v == "fp32" || v == "bf16")
                precisions = { v };
            else if (v == "auto")
                precisions = { precisionName(resolvePrecision(Precision::Auto, cpuBf16Units())) };
            else {
                std::fprintf(stderr, "tgraph-bench model: --precision must be both, auto, fp32 or bf16\n");
                return 2;
            }
        }
        else if (a == "--quick") { // CI smoke: one small case per cross-attn setting, once
            nodeList = { 250 };
            configList = { 64 };
            repeat = 1;
            pythonRepeat = 1;
        } else {
            std::printf(
                "Usage: tgraph-bench model [--nodes 250,1000,4000] [--configs 64,128] [--cross on|off|both]\n"
                "                          [--repeat 3] [--python-repeat R] [--python-max-nodes N] [--no-python]\n"
                "                          [--threads T] [--python PYTHON] [--python-hugepages] [--no-step] [--quick]\n"
                "                          [--precision both|auto|fp32|bf16]\n"
                "Times the TGraph layout model's forward (eval, no grad) and training step (forward + hinge\n"
                "loss + backward + AdamW) on pruned synthetic graphs, each case in a fresh process, best of\n"
                "--repeat; the same with the PyTorch reference module (bench/model_torch.py, Debian's\n"
                "python3-torch). GFLOP/s counts the matmul FLOPs of the plain module (training step: 3x the\n"
                "forward), next to the GEMM peak measured here. Threads default to all cores. --quick: N = 250,\n"
                "C = 64, one repeat (a smoke run). The C++ cases run with glibc's huge-page tunable, as\n"
                "tgraph starts tgraph-model (core/util/childprocess.h); --python-hugepages gives Python the same.\n"
                "--precision: our side in fp32 and then in bf16 products (both, the default; docs/model.md §10.12),\n"
                "each against the same float32 PyTorch run; GFLOP/s and %%peak against that precision's GEMM peak.\n");
            return a == "--help" || a == "-h" ? 0 : 2;
        }
    }
    if (pythonRepeat < 0)
        pythonRepeat = repeat;
    threads = model::initTorchRuntime(threads);
    const bool havePython
        = pythonRepeat > 0 && std::system((python + " -c 'import numpy, torch' 2>/dev/null").c_str()) == 0;

    const double peak1024 = gemmPeak(1024, 7);
    const double peak2048 = gemmPeak(2048, 3);
    const double peak = std::max(peak1024, peak2048);
    std::printf("tgraph-bench model: LibTorch %s, %s, %d thread%s; GEMM peak %.1f GFLOP/s (1024^3 %.1f, 2048^3 %.1f, "
                "best of 7/3)\n",
        model::torchVersion().c_str(), model::blasName().c_str(), threads, threads == 1 ? "" : "s", peak, peak1024, peak2048);
    printPrecisionHeader(precisions);
    const double bf16Peak = gemmPeak(2048, 3, true);
    if (pythonRepeat > 0 && !havePython)
        std::printf("python side skipped: %s cannot import numpy and torch (install python3-torch)\n", python.c_str());

    const fs::path dir = fs::temp_directory_path() / ("tgraph-bench-model-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string self = fs::read_symlink("/proc/self/exe").string();
    const int64_t maxConfigs = *std::max_element(configList.begin(), configList.end());

    std::printf("\n%6s %6s %4s %5s %4s | %8s %7s %5s %8s %6s | %8s %7s %5s %8s %6s | %9s %9s\n", "N", "E", "C", "cross", "prec",
        "fwd s", "GFLOP/s", "%peak", "py fwd", "x", "step s", "GFLOP/s", "%peak", "py step", "x", "RSS C++", "RSS py");
    for (const int64_t targetNodes : nodeList) {
        const LayoutGraph g = prunedGraphOfSize(targetNodes, maxConfigs, uint64_t(targetNodes));
        const std::string graphPath = (dir / ("graph-" + std::to_string(targetNodes) + ".npz")).string();
        saveLayoutGraph(g, graphPath);
        Normalizer normalizer;
        normalizer.add(g.nodeFeat);
        normalizer.finish();
        for (const bool cross : crossList) {
            model::ModelOptions options;
            options.useCrossAttn = cross;
            torch::manual_seed(7);
            model::TGraphModel m(options);
            const std::string weightsPath = (dir / ("weights-" + std::string(cross ? "on" : "off") + ".npz")).string();
            model::saveWeightsNpz(m, normalizer, weightsPath);
            for (const int64_t configs : configList) {
                const int64_t c = std::min(configs, g.configCount());
                // As `tgraph` starts tgraph-model: glibc's huge-page tunable (core/util/childprocess.h).
                std::vector<std::string> argv;
                std::vector<CaseResult> ours;
                for (const std::string& precision : precisions) {
                    argv = { "env", "GLIBC_TUNABLES=" + hugePageMallocTunables(), self, "model-case", weightsPath,
                        graphPath, std::to_string(c), std::to_string(repeat), std::to_string(threads) };
                    if (!doStep)
                        argv.push_back("--no-step");
                    if (precision == "bf16")
                        argv.push_back("--bf16");
                    ours.push_back(runCase(argv));
                }
                CaseResult py;
                if (havePython && g.nodeCount() <= pythonMaxNodes) {
                    argv = { python, script, weightsPath, graphPath, std::to_string(c), std::to_string(pythonRepeat),
                        std::to_string(threads) };
                    if (pythonHugePages)
                        argv.insert(argv.begin(), { "env", "GLIBC_TUNABLES=" + hugePageMallocTunables() });
                    if (!doStep)
                        argv.push_back("--no-step");
                    py = runCase(argv);
                }
                const double flops = forwardFlops(options, c, g.nodeCount());
                for (size_t k = 0; k < precisions.size(); ++k) {
                    const CaseResult& o = ours[k];
                    const double p = precisions[k] == "bf16" ? bf16Peak : peak;
                    std::printf("%6lld %6lld %4lld %5s %4s |", (long long)g.nodeCount(), (long long)g.edgeCount(),
                        (long long)c, cross ? "on" : "off", precisions[k].c_str());
                    cell(o.forward);
                    rate(flops, o.forward, p);
                    cell(py.forward);
                    speedup(py.forward / o.forward);
                    std::printf(" |");
                    cell(o.step);
                    rate(3 * flops, o.step, p);
                    cell(py.step);
                    speedup(py.step / o.step);
                    std::printf(" | %9s %9s\n", formatBytes(uint64_t(o.peakRss)).c_str(),
                        std::isnan(py.peakRss) ? "-" : formatBytes(uint64_t(py.peakRss)).c_str());
                    std::fflush(stdout);
                }
            }
        }
    }
    fs::remove_all(dir);
    std::printf("\nGFLOP/s: matmul FLOPs of the plain module (forward %s) / time; training step = 3x forward FLOPs.\n",
        "C*N*(2*246*W + 2*H*W + 4*H*W per block + gates)");
    return 0;
}

} // namespace tgraph::bench
