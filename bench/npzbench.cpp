// SPDX-License-Identifier: Apache-2.0
#include "npzbench.h"

#include "procstats.h"

#include "core/util/format.h"
#include "core/graph/graphio.h"
#include "core/io/npz.h"
#include "core/inspect/summary.h"
#include "core/synth/synthetic.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>

namespace tgraph::bench {

namespace {

struct Figures
{
    double seconds = 1e300;
    double peakRss = 0;
    double baselineRss = 0;
    double bytes = 0;
};

void keepBest(Figures& best, const std::string& report)
{
    best.seconds = std::min(best.seconds, reportValue(report, "seconds"));
    best.peakRss = std::max(best.peakRss, reportValue(report, "peak_rss"));
    best.baselineRss = std::max(best.baselineRss, reportValue(report, "baseline_rss"));
    best.bytes = reportValue(report, "bytes");
}

void printRow(const std::string& what, double seconds, double bytes, double peak = 0, double baseline = 0)
{
    std::printf("  %-30s %8.3f s %9.0f MB/s", what.c_str(), seconds, bytes / 1e6 / seconds);
    if (peak > 0)
        std::printf("   peak RSS %9s (%5.3fx array bytes; %s above start)", formatBytes(uint64_t(peak)).c_str(),
            peak / bytes, formatBytes(uint64_t(peak - baseline)).c_str());
    std::printf("\n");
}

std::string selfPath() { return std::filesystem::read_symlink("/proc/self/exe").string(); }

} // namespace

int runNpzRead(const std::vector<std::string>& args)
{
    if (args.empty()) {
        std::fprintf(stderr, "usage: tgraph-bench npz-read FILE [--raw]\n");
        return 2;
    }
    const uint64_t baseline = currentRss();
    const auto start = std::chrono::steady_clock::now();
    uint64_t bytes = 0;
    if (args.size() > 1 && args[1] == "--raw") {
        NpzReader npz(args[0]);
        std::vector<NpyArray> arrays; // all held at once, as a loaded graph would be
        for (const auto& key : npz.keys()) {
            arrays.push_back(npz.readRaw(key));
            bytes += arrays.back().data.size();
        }
    } else {
        const LayoutGraph g = loadLayoutGraph(args[0]); // typed, converted and validated
        NpzReader npz(args[0]);
        for (const auto& key : npz.keys())
            bytes += npz.header(key).dataBytes();
    }
    const double seconds = secondsSince(start);
    std::printf("seconds=%.6f bytes=%llu peak_rss=%llu baseline_rss=%llu\n", seconds, (unsigned long long)bytes,
        (unsigned long long)peakRss(), (unsigned long long)baseline);
    return 0;
}

int runNpzBench(const std::vector<std::string>& args)
{
    double gib = 1.0;
    int repeat = 3;
    std::string python = "/usr/bin/python3";
    std::string script = std::string(TGRAPH_SOURCE_DIR) + "/bench/npz_numpy.py";
    std::filesystem::path dir = std::filesystem::temp_directory_path();
    bool keep = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= args.size()) {
                std::fprintf(stderr, "tgraph-bench npz: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return args[++i];
        };
        if (a == "--gib")
            gib = std::stod(next());
        else if (a == "--repeat")
            repeat = std::max(1, std::stoi(next()));
        else if (a == "--python")
            python = next();
        else if (a == "--dir")
            dir = next();
        else if (a == "--keep")
            keep = true;
        else {
            std::printf("Usage: tgraph-bench npz [--gib SIZE] [--repeat N] [--dir DIR] [--python PYTHON] [--keep]\n"
                        "Writes a synthetic layout graph of about SIZE GiB (default 1) stored and deflated with\n"
                        "TGraph Studio's writer, then reads both files N times (default 3) in fresh processes with\n"
                        "our reader and with numpy's np.load; prints the best time, MB/s and the peak RSS.\n");
            return a == "--help" || a == "-h" ? 0 : 2;
        }
    }
    const bool haveNumpy = std::system((python + " -c 'import numpy' 2>/dev/null").c_str()) == 0;

    SyntheticLayoutSpec spec;
    spec.nodes = 20000;
    spec.configurableNodes = 500;
    spec.configs = std::max<int64_t>(2, int64_t(gib * double(1ull << 30) / double(spec.configurableNodes * 18 * 4)));
    spec.seed = 42;
    auto start = std::chrono::steady_clock::now();
    const LayoutGraph g = makeSyntheticLayoutGraph(spec);
    const double arrayBytes = double(g.nodeFeat.size() * 4 + g.nodeConfigFeat.size() * 4 + g.nodeOpcode.size()
        + (g.edgeIndex.size() + g.nodeConfigIds.size() + g.configRuntime.size() + g.nodeSplits.size()) * 8);
    std::printf("tgraph-bench npz: synthetic layout graph, %lld nodes, %lld configurable, %lld configs, %s of arrays "
                "(generated in %.1f s)\n",
        (long long)g.nodeCount(), (long long)g.configurableCount(), (long long)g.configCount(),
        formatBytes(uint64_t(arrayBytes)).c_str(), secondsSince(start));

    const std::string tag = std::to_string(::getpid());
    const std::string stored = (dir / ("tgraph-bench-" + tag + "-stored.npz")).string();
    const std::string deflated = (dir / ("tgraph-bench-" + tag + "-deflated.npz")).string();
    std::printf("\nwrite (TGraph Studio NpzWriter)\n");
    for (const auto& [path, compressed] : { std::pair { stored, false }, std::pair { deflated, true } }) {
        GraphWriteOptions w;
        w.compressed = compressed;
        start = std::chrono::steady_clock::now();
        saveLayoutGraph(g, path, w);
        const double s = secondsSince(start);
        printRow(compressed ? "deflated (savez_compressed)" : "stored (savez)", s, arrayBytes);
        std::printf("  %-30s %s on disk\n", "", formatBytes(std::filesystem::file_size(path)).c_str());
    }
    if (haveNumpy) {
        std::printf("\nwrite (numpy %s)\n", "np.savez / np.savez_compressed of the same arrays");
        for (const auto& [path, mode] : { std::pair { stored, "stored" }, std::pair { deflated, "deflated" } }) {
            const std::string out = path + ".numpy.npz";
            const std::string r = runChild({ python, script, "write", path, out, mode });
            std::filesystem::remove(out);
            printRow(std::string(mode) + " (numpy)", reportValue(r, "seconds"), reportValue(r, "bytes"));
        }
    }

    std::printf("\nread, best of %d fresh processes (page cache warm for all)\n", repeat);
    const std::string self = selfPath();
    for (const auto& [path, label] : { std::pair { stored, "stored" }, std::pair { deflated, "deflated" } }) {
        Figures ours, oursRaw, numpy;
        for (int r = 0; r < repeat; ++r) {
            keepBest(ours, runChild({ self, "npz-read", path }));
            keepBest(oursRaw, runChild({ self, "npz-read", path, "--raw" }));
            if (haveNumpy)
                keepBest(numpy, runChild({ python, script, "read", path }));
        }
        printRow(std::string(label) + ": ours, LayoutGraph", ours.seconds, ours.bytes, ours.peakRss, ours.baselineRss);
        printRow(std::string(label) + ": ours, raw arrays", oursRaw.seconds, oursRaw.bytes, oursRaw.peakRss,
            oursRaw.baselineRss);
        if (haveNumpy)
            printRow(
                std::string(label) + ": numpy np.load", numpy.seconds, numpy.bytes, numpy.peakRss, numpy.baselineRss);
        else
            std::printf("  numpy not available (%s -c 'import numpy' failed)\n", python.c_str());
    }
    if (!keep) {
        std::filesystem::remove(stored);
        std::filesystem::remove(deflated);
    } else {
        std::printf("\nkept %s and %s\n", stored.c_str(), deflated.c_str());
    }
    return 0;
}

} // namespace tgraph::bench
