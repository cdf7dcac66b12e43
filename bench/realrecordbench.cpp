// SPDX-License-Identifier: Apache-2.0
// `tgraph-bench realrecord`: the TGraph model against the analytical simulator on the real tuning
// record, 5 folds over its 112 configurations (realrecord.h), 150 training steps per fold.

#include "realrecordbench.h"

#include "procstats.h"
#include "realrecord.h"

#include "model/runtime/torchruntime.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>

namespace tgraph::bench {

int runRealRecordBench(const std::vector<std::string>& args)
{
    namespace fs = std::filesystem;
    std::string record = std::string(TGRAPH_SOURCE_DIR) + "/../shared/data/tpu_graphs/module_tuning_data_layout.pb";
    RealRecordOptions options;
    int threads = 0;
    for (size_t i = 0; i < args.size(); ++i) {
        const bool hasValue = i + 1 < args.size();
        if (args[i] == "--record" && hasValue)
            record = args[++i];
        else if (args[i] == "--steps" && hasValue)
            options.steps = std::max<int64_t>(1, std::stoll(args[++i]));
        else if (args[i] == "--threads" && hasValue)
            threads = std::stoi(args[++i]);
        else {
            std::printf("Usage: tgraph-bench realrecord [--record FILE.pb] [--steps 150] [--threads T]\n"
                        "Trains the TGraph model (H = 64, 64 configs per step) on 4/5 of the configurations of a\n"
                        "real layout tuning record, 5 folds over configs, and prints the held-out Kendall tau and\n"
                        "top-5 slowdown of the model and of the analytical simulator per fold and their mean.\n");
            return args[i] == "--help" || args[i] == "-h" ? 0 : 2;
        }
    }
    if (!fs::exists(record)) {
        std::printf("realrecord skipped: %s is absent\n", record.c_str());
        return 0;
    }
    threads = model::initTorchRuntime(threads);
    const fs::path dir = fs::temp_directory_path() / ("tgraph-bench-realrecord-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::printf("tgraph-bench realrecord: %s, %lld steps per fold, %d thread%s\n\n", record.c_str(),
        (long long)options.steps, threads, threads == 1 ? "" : "s");
    std::printf(
        "%4s %8s | %9s %9s | %9s %9s | %7s\n", "fold", "held-out", "model tau", "top-5", "sim tau", "top-5", "time s");
    auto start = std::chrono::steady_clock::now();
    double sums[4] = {};
    std::vector<RealRecordFold> folds;
    try {
        folds = runRealRecordFolds(record, dir.string(), options, [&](const RealRecordFold& f) {
            std::printf("%4d %8lld | %9.4f %8.4f%% | %9.4f %8.4f%% | %7.1f\n", f.fold, (long long)f.heldOutConfigs,
                f.modelTau, 100 * f.modelTop5Slowdown, f.simulatorTau, 100 * f.simulatorTop5Slowdown,
                secondsSince(start));
            std::fflush(stdout);
            start = std::chrono::steady_clock::now();
        });
    } catch (...) {
        fs::remove_all(dir);
        throw;
    }
    fs::remove_all(dir);
    for (const RealRecordFold& f : folds) {
        sums[0] += f.modelTau;
        sums[1] += f.modelTop5Slowdown;
        sums[2] += f.simulatorTau;
        sums[3] += f.simulatorTop5Slowdown;
    }
    const double n = double(std::max<size_t>(folds.size(), 1));
    std::printf("%4s %8s | %9.4f %8.4f%% | %9.4f %8.4f%% |\n", "mean", "", sums[0] / n, 100 * sums[1] / n, sums[2] / n,
        100 * sums[3] / n);
    std::printf(
        "\ntau: Kendall tau-b of predicted vs measured runtimes of the held-out configs; top-5: slowdown of the "
        "best of the 5 predicted fastest over the best held-out config; peak RSS %.0f MiB.\n",
        double(peakRss()) / (1024.0 * 1024.0));
    return 0;
}

} // namespace tgraph::bench
