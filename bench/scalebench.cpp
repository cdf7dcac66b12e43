// SPDX-License-Identifier: Apache-2.0
#include "scalebench.h"

#include "gemmrate.h"
#include "procstats.h"

#include "core/graph/graphio.h"
#include "core/synth/synthetic.h"
#include "core/train/trainingset.h"
#include "core/util/childprocess.h"
#include "core/util/format.h"
#include "model/nn/modeloptions.h"
#include "model/nn/products.h"
#include "model/nn/slicedscoring.h"
#include "model/runtime/cachingcpuallocator.h"
#include "model/runtime/torchruntime.h"
#include "model/train/trainer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
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

// "key=value" arguments of a scale-case child.
std::map<std::string, std::string> keyValues(const std::vector<std::string>& args, size_t from)
{
    std::map<std::string, std::string> out;
    for (size_t i = from; i < args.size(); ++i) {
        const auto eq = args[i].find('=');
        if (eq == std::string::npos)
            throw std::runtime_error("scale-case: expected key=value, got '" + args[i] + "'");
        out[args[i].substr(0, eq)] = args[i].substr(eq + 1);
    }
    return out;
}

// Resets VmHWM to the current RSS (Linux >= 4.0: "5" to /proc/self/clear_refs), so the next
// peakRss() is the peak of what follows. False when the kernel refuses.
bool resetPeakRss()
{
    std::ofstream out("/proc/self/clear_refs");
    out << "5";
    out.flush();
    return bool(out);
}

struct PhaseResult
{
    double loadSeconds = NAN;
    double loadPeak = NAN;
    double baseRss = NAN; // RSS when the phase starts (data and model resident)
    double first = NAN; // first step (train) or the pass (eval), s
    double mean = NAN; // mean of the later steps (train) or the pass (eval), s
    double peak = NAN; // peak RSS of the phase alone
    double nodes = NAN;
    double configs = NAN;
};

PhaseResult runPhase(const std::vector<std::string>& argv)
{
    const std::string report = runChild(argv);
    PhaseResult r;
    r.loadSeconds = reportValue(report, "load_s");
    r.loadPeak = reportValue(report, "load_peak");
    r.baseRss = reportValue(report, "base_rss");
    r.first = reportValue(report, "first_s");
    r.mean = reportValue(report, "mean_s");
    r.peak = reportValue(report, "peak_rss");
    r.nodes = reportValue(report, "nodes");
    r.configs = reportValue(report, "configs");
    return r;
}

std::string gib(double bytes) { return std::isnan(bytes) ? "-" : formatBytes(uint64_t(bytes)); }

// The validation pass's matrix products, the rate of each shape measured here, the time they alone
// need at those rates, and the pass's own time against it.
void printProductBound(
    bool crossAttn, int64_t nodes, int64_t configs, int64_t batch, double passSeconds, bool bf16)
{
    const model::ModelOptions o;
    const std::vector<Product> products = scoringProducts(crossAttn, o.hidden, o.blocks, nodes, configs, batch);
    const double peak = gemmPeak(2048, 3, bf16);
    std::printf("\n%s validation products (f_in[0]'s projection left out) against this machine's %s GEMM: peak %.1f "
                "GFLOP/s (2048^3)\n",
        bf16 ? "bf16" : "fp32", bf16 ? "bf16" : "fp32", peak);
    std::printf("%-18s %9s %5s %5s | %8s %9s %8s\n", "product", "rows/call", "k", "n", "TFLOP", "GFLOP/s", "s");
    double flops = 0;
    double seconds = 0;
    for (const Product& p : products) {
        const double rate
            = p.gateKernel ? gateKernelRate(p.callRows, p.n, p.k, 5) : gemmRate(p.callRows, p.k, p.n, 5, bf16);
        const double s = p.flops() / rate / 1e9;
        std::printf("%-18s %9lld %5lld %5lld | %8.2f %9.1f %8.1f\n", p.what.c_str(), (long long)p.callRows,
            (long long)p.k, (long long)p.n, p.flops() / 1e12, rate, s);
        flops += p.flops();
        seconds += s;
    }
    std::printf("%-18s %9s %5s %5s | %8.2f %9.1f %8.1f\n", "all products", "", "", "", flops / 1e12,
        flops / seconds / 1e9, seconds);
    std::printf("products alone at peak: %.1f s; at the rates of their shapes: %.1f s; the pass: %.1f s "
                "(products %.0f%% of it, the pass at %.0f%% of peak)\n",
        flops / peak / 1e9, seconds, passSeconds, 100 * seconds / passSeconds, 100 * flops / passSeconds / 1e9 / peak);
    // Every layer (f_in[0], f_in[1], the blocks) reads its (N, C, H) input at least twice (the
    // instance norm's moments, then the layer) and writes its output once.
    const double activationBytes = double(nodes) * double(configs) * double(o.hidden) * sizeof(float);
    const double streamed = 3.0 * double(2 + o.blocks) * activationBytes;
    const double bandwidth = copyBandwidth(3);
    std::printf("activations streamed at least: %.0f GB (each layer's input read twice, output written once), "
                "%.1f s at the memcpy bandwidth here (%.1f GB/s, one thread)\n",
        streamed / 1e9, streamed / bandwidth, bandwidth / 1e9);
    std::fflush(stdout);
}

} // namespace

int runScaleCase(const std::vector<std::string>& args)
{
    if (args.size() < 2) {
        std::fprintf(stderr, "usage: tgraph-bench scale-case GRAPH train|eval [key=value ...]\n");
        return 2;
    }
    const std::string graph = args[0];
    const std::string phase = args[1];
    auto kv = keyValues(args, 2);
    auto get = [&kv](const std::string& key, const std::string& fallback) {
        const auto it = kv.find(key);
        return it == kv.end() ? fallback : it->second;
    };
    const int threads = model::initTorchRuntime(std::stoi(get("threads", "0")));
    (void)threads;
    const std::string precision = get("precision", "fp32");
    if (precision != "fp32" && precision != "bf16")
        throw std::runtime_error("scale-case: precision must be fp32 or bf16");
    model::setBf16Products(precision == "bf16");

    model::TrainOptions options;
    options.configsPerStep = std::stoll(get("configs", "32"));
    options.evalBatch = std::stoll(get("eval-batch", "128"));
    options.model.useCrossAttn = get("cross", "on") == "on";
    options.steps = 1000; // the schedule only sets the learning rate; the bench stops after `steps`
    options.evalEvery = 0;
    options.dedup = DedupPolicy::None;
    if (!model::parseRecomputeMode(get("recompute", "auto"), &options.recompute))
        throw std::runtime_error("scale-case: recompute must be auto, on or off");
    if (!model::parseConfigChunk(get("config-chunk", "auto"), &options.configChunk))
        throw std::runtime_error("scale-case: config-chunk must be auto, off or a number of configs");
    const std::string slices = get("slices", "on");
    if (slices != "on" && slices != "off")
        throw std::runtime_error("scale-case: slices must be on or off");
    model::setNodeSlicedScoringEnabled(slices == "on");
    if (options.configChunk > 0 && options.model.useCrossAttn)
        throw std::runtime_error("scale-case: config-chunk needs cross=off");
    const int64_t steps = std::max<int64_t>(1, std::stoll(get("steps", "4")));

    // The graph is both the training and the validation graph (no de-duplication: all its configs).
    const auto loadStart = std::chrono::steady_clock::now();
    TrainingDataOptions dataOptions;
    dataOptions.dedup = DedupPolicy::None;
    const TrainingData data = loadTrainingData({ { graph, DataSplit::Train, true } }, dataOptions);
    model::Trainer trainer(data, { 0 }, { 0 }, options);
    const double loadSeconds = secondsSince(loadStart);
    const uint64_t loadPeak = peakRss();
    if (!resetPeakRss())
        throw std::runtime_error("cannot reset the peak RSS through /proc/self/clear_refs");
    const uint64_t baseRss = currentRss();

    double first = NAN;
    double mean = NAN;
    if (phase == "train") {
        double later = 0;
        for (int64_t s = 0; s < steps; ++s) {
            const auto start = std::chrono::steady_clock::now();
            const model::StepOutcome o = trainer.step();
            const double t = secondsSince(start);
            if (!std::isfinite(o.loss))
                throw std::runtime_error("non-finite loss at step " + std::to_string(s));
            if (s == 0)
                first = t;
            else
                later += t;
        }
        mean = steps > 1 ? later / double(steps - 1) : first;
    } else if (phase == "eval") {
        const auto start = std::chrono::steady_clock::now();
        const EvalMetrics m = trainer.evaluate();
        first = mean = secondsSince(start);
        if (m.graphs.size() != 1 || m.graphs[0].configs != data.graphs[0].configCount())
            throw std::runtime_error("validation did not score every config");
    } else {
        std::fprintf(stderr, "scale-case: unknown phase '%s'\n", phase.c_str());
        return 2;
    }
    const model::CachingAllocatorStats cache = model::cachingCpuAllocatorStats();
    std::printf("load_s=%.3f load_peak=%llu base_rss=%llu first_s=%.3f mean_s=%.3f peak_rss=%llu nodes=%lld "
                "configs=%lld live_peak=%llu cache_requests=%llu cache_mapped=%llu\n",
        loadSeconds, (unsigned long long)loadPeak, (unsigned long long)baseRss, first, mean,
        (unsigned long long)peakRss(), (long long)data.graphs[0].nodeCount(), (long long)data.graphs[0].configCount(),
        (unsigned long long)cache.peakInUseBytes, (unsigned long long)cache.requests,
        (unsigned long long)cache.mapped);
    return 0;
}

int runScaleBench(const std::vector<std::string>& args)
{
    SyntheticLayoutSpec spec;
    spec.nodes = 40000;
    spec.configurableNodes = 3200;
    spec.configs = 4000;
    spec.seed = 1; // tgraph synth's default
    std::vector<int64_t> trainConfigs { 16, 32 };
    int64_t steps = 4;
    int threads = 0;
    int64_t evalBatch = 128;
    std::string cross = "on";
    std::string graphPath;
    std::vector<std::string> extra; // key=value passed to every case
    bool doTrain = true;
    bool doEval = true;
    bool bound = true;
    std::vector<std::string> precisions { "fp32", "bf16" };
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= args.size()) {
                std::fprintf(stderr, "tgraph-bench scale: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return args[++i];
        };
        if (a == "--nodes")
            spec.nodes = std::stoll(next());
        else if (a == "--configurable")
            spec.configurableNodes = std::stoll(next());
        else if (a == "--configs")
            spec.configs = std::stoll(next());
        else if (a == "--train-configs")
            trainConfigs = parseList(next());
        else if (a == "--steps")
            steps = std::max<int64_t>(1, std::stoll(next()));
        else if (a == "--threads")
            threads = std::stoi(next());
        else if (a == "--eval-batch")
            evalBatch = std::max<int64_t>(1, std::stoll(next()));
        else if (a == "--cross")
            cross = next();
        else if (a == "--graph")
            graphPath = next();
        else if (a == "--train-only")
            doEval = false;
        else if (a == "--eval-only")
            doTrain = false;
        else if (a == "--no-bound")
            bound = false;
        else if (a == "--case")
            extra.push_back(next());
        else if (a == "--precision") {
            const std::string v = next();
            if (v == "both")
                precisions = { "fp32", "bf16" };
            else if (v == "fp32" || v == "bf16")
                precisions = { v };
            else if (v == "auto")
                precisions = { precisionName(resolvePrecision(Precision::Auto, cpuBf16Units())) };
            else {
                std::fprintf(stderr, "tgraph-bench scale: --precision must be both, auto, fp32 or bf16\n");
                return 2;
            }
        }
        else {
            std::printf(
                "Usage: tgraph-bench scale [--nodes 40000] [--configurable 3200] [--configs 4000]\n"
                "                          [--train-configs 16,32] [--steps 4] [--eval-batch 128] [--cross on|off]\n"
                "                          [--threads T] [--graph FILE] [--train-only | --eval-only] [--case KEY=VALUE]\n"
                "                          [--no-bound] [--precision both|auto|fp32|bf16]\n"
                "The TGraph layout model at TpuGraphs nlp scale through the real trainer: one generated layout\n"
                "graph (tgraph synth's generator), training steps (forward, hinge loss, backward, AdamW) at each\n"
                "--train-configs size and the validation pass over all of its configs (array_split chunks of\n"
                "--eval-batch). Each phase runs in a fresh child process; its peak RSS is reset after loading, so\n"
                "the table shows the load and every phase apart. Time per step: mean of the steps after the first.\n"
                "--graph FILE keeps the generated graph there (and reuses it when it exists). --case KEY=VALUE\n"
                "is passed to every child: recompute=auto|on|off, config-chunk=auto|off|K (docs/model.md §11;\n"
                "config-chunk=K needs --cross off; auto chunks only with recompute=auto), slices=on|off (validation\n"
                "with cross-attention node slice by node slice, docs/model.md §6.1). Threads default to all cores.\n"
                "After the validation pass, unless --no-bound: its matrix products (their FLOPs at the shapes the\n"
                "pass uses), the GFLOP/s this machine's BLAS reaches at each shape alone, and so the time the\n"
                "products alone need here, a floor for the pass (docs/benchmarks.md §12).\n"
                "--precision: each phase in fp32 and then in bf16 products (both, the default), or in one\n"
                "(auto: what this CPU's auto is; docs/model.md §10.12, docs/benchmarks.md §18).\n");
            return a == "--help" || a == "-h" ? 0 : 2;
        }
    }
    threads = model::initTorchRuntime(threads);

    fs::path dir;
    if (graphPath.empty()) {
        dir = fs::temp_directory_path() / ("tgraph-bench-scale-" + std::to_string(::getpid()));
        fs::create_directories(dir);
        graphPath = (dir / "nlp-scale.npz").string();
    }
    if (!fs::exists(graphPath)) {
        const auto start = std::chrono::steady_clock::now();
        const LayoutGraph g = makeSyntheticLayoutGraph(spec);
        saveLayoutGraph(g, graphPath);
        std::printf("generated %s: %lld nodes, %lld configurable, %lld configs (%.1f s)\n", graphPath.c_str(),
            (long long)g.nodeCount(), (long long)g.configurableCount(), (long long)g.configCount(),
            secondsSince(start));
    }
    std::printf("tgraph-bench scale: LibTorch %s, %s, %d thread%s, cross-attn %s%s\n", model::torchVersion().c_str(),
        model::blasName().c_str(), threads, threads == 1 ? "" : "s", cross.c_str(), extra.empty() ? "" : ",");
    printPrecisionHeader(precisions);
    for (const auto& e : extra)
        std::printf(" %s", e.c_str());
    if (!extra.empty())
        std::printf("\n");
    std::fflush(stdout);

    const std::string self = fs::read_symlink("/proc/self/exe").string();
    auto caseArgv = [&](const std::string& phase, int64_t configs, const std::string& precision) {
        std::vector<std::string> argv { "env", "GLIBC_TUNABLES=" + hugePageMallocTunables(), self, "scale-case",
            graphPath, phase, "configs=" + std::to_string(configs), "steps=" + std::to_string(steps),
            "threads=" + std::to_string(threads), "eval-batch=" + std::to_string(evalBatch), "cross=" + cross,
            "precision=" + precision };
        argv.insert(argv.end(), extra.begin(), extra.end());
        return argv;
    };

    std::printf("\n%-28s %5s %7s %6s | %8s %9s %7s | %9s %9s %9s\n", "phase", "prec", "nodes", "C", "first s",
        "s/step", "vs fp32", "base RSS", "peak RSS", "load peak");
    auto row = [](const std::string& name, const std::string& precision, const PhaseResult& r, int64_t configs,
                   double fp32Mean) {
        char ratio[16] = "-";
        if (precision != "fp32" && std::isfinite(fp32Mean) && r.mean > 0)
            std::snprintf(ratio, sizeof ratio, "%.2fx", fp32Mean / r.mean);
        std::printf("%-28s %5s %7.0f %6lld | %8.2f %9.2f %7s | %9s %9s %9s\n", name.c_str(), precision.c_str(),
            r.nodes, (long long)configs, r.first, r.mean, ratio, gib(r.baseRss).c_str(), gib(r.peak).c_str(),
            gib(r.loadPeak).c_str());
        std::fflush(stdout);
    };
    // Each phase in every precision, one after the other (ratios measured back to back).
    if (doTrain)
        for (const int64_t c : trainConfigs) {
            double fp32Mean = NAN;
            for (const std::string& precision : precisions) {
                const PhaseResult r = runPhase(caseArgv("train", c, precision));
                row("train step, " + std::to_string(c) + " configs", precision, r, c, fp32Mean);
                if (precision == "fp32")
                    fp32Mean = r.mean;
            }
        }
    std::map<std::string, PhaseResult> evals;
    if (doEval) {
        double fp32Mean = NAN;
        for (const std::string& precision : precisions) {
            const PhaseResult r = runPhase(caseArgv("eval", trainConfigs.empty() ? 32 : trainConfigs.back(), precision));
            row("validation, all configs", precision, r, int64_t(r.configs), fp32Mean);
            if (precision == "fp32")
                fp32Mean = r.mean;
            evals[precision] = r;
        }
    }
    std::printf("\npeak RSS: the phase alone (VmHWM reset after loading the data and building the trainer);\n"
                "base RSS: resident when the phase starts; load peak: loading, pruning and the trainer's set-up.\n"
                "s/step: mean of steps 2..%lld (train) or the whole pass (validation).\n",
        (long long)steps);
    if (doEval && bound)
        for (const auto& [precision, eval] : evals)
            printProductBound(
                cross == "on", int64_t(eval.nodes), int64_t(eval.configs), evalBatch, eval.mean, precision == "bf16");
    if (!dir.empty())
        fs::remove_all(dir);
    return 0;
}

} // namespace tgraph::bench
