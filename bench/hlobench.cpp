// SPDX-License-Identifier: Apache-2.0
#include "hlobench.h"

#include "procstats.h"

#include "core/hlo/featurizer.h"
#include "core/util/format.h"
#include "core/synth/hlogen.h"
#include "core/hlo/hloinput.h"
#include "core/hlo/hloproto.h"
#include "core/hlo/hlotext.h"
#include "core/synth/hostileproto.h"

#include <cstdio>
#include <filesystem>
#include <sys/resource.h>
#include <unistd.h>

namespace tgraph::bench {

int runHloParse(const std::vector<std::string>& args)
{
    if (args.empty()) {
        std::fprintf(stderr, "usage: tgraph-bench hlo-parse FILE [REPEAT]\n");
        return 2;
    }
    const int repeat = args.size() > 1 ? std::max(1, std::stoi(args[1])) : 1;
    bool parseOnly = false;
    for (size_t i = 2; i < args.size(); ++i) {
        if (args[i] == "--parse-only") {
            parseOnly = true;
        } else if (args[i] == "--limit-mb" && i + 1 < args.size()) {
            // Address space capped at what the process maps now plus this much: a reader that
            // would need far more fails with bad_alloc instead of taking the machine's memory.
            const rlim_t limit = rlim_t(virtualSize() + (uint64_t(std::stoull(args[++i])) << 20));
            const rlimit r { limit, limit };
            ::setrlimit(RLIMIT_AS, &r);
        }
    }
    const uint64_t baseline = currentRss();
    double parse = 0, featurize = 0;
    uint64_t bytes = 0, instructions = 0;
    for (int r = 0; r < repeat; ++r) {
        HloTextOptions lean;
        lean.keepAttributes = false;
        auto start = std::chrono::steady_clock::now();
        const HloInputFile in = readHloInput(args[0], lean);
        parse += secondsSince(start);
        start = std::chrono::steady_clock::now();
        for (const ModuleTuningData& m : in.modules) {
            if (!parseOnly)
                featurizeModule(m, args[0], nullptr);
            instructions += m.module.instructions.size();
        }
        featurize += secondsSince(start);
        bytes += in.fileBytes;
    }
    std::printf("parse=%.6f featurize=%.6f seconds=%.6f bytes=%llu instructions=%llu peak_rss=%llu baseline_rss=%llu\n",
        parse, featurize, parse + featurize, (unsigned long long)bytes, (unsigned long long)instructions,
        (unsigned long long)peakRss(), (unsigned long long)baseline);
    return 0;
}

int runHloBench(const std::vector<std::string>& args)
{
    int64_t size = 150000;
    std::string family = "transformer";
    std::filesystem::path dir = std::filesystem::temp_directory_path();
    std::string shared = std::string(TGRAPH_SOURCE_DIR) + "/../shared/data";
    for (size_t i = 0; i < args.size(); ++i) {
        auto next = [&]() { return i + 1 < args.size() ? args[++i] : std::string(); };
        if (args[i] == "--size")
            size = std::stoll(next());
        else if (args[i] == "--family")
            family = next();
        else if (args[i] == "--dir")
            dir = next();
        else if (args[i] == "--shared")
            shared = next();
        else {
            std::printf("Usage: tgraph-bench hlo [--size N] [--family F] [--dir DIR] [--shared DIR]\n"
                        "Parse + featurize throughput and peak RSS for a generated module of N instructions\n"
                        "(default 150000, family transformer) as HLO text and as xla.HloModuleProto, and for the\n"
                        "real files under DIR/hlo and DIR/tpu_graphs (default ../shared/data).\n");
            return args[i] == "--help" ? 0 : 2;
        }
    }
    const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
    const std::string tag = std::to_string(::getpid());
    HloGenSpec spec;
    spec.family = family;
    spec.instructions = size;
    const std::string text = generateHloText(spec);
    const std::string textPath = (dir / ("tgraph-bench-" + tag + ".hlo")).string();
    const std::string protoPath = (dir / ("tgraph-bench-" + tag + ".pb")).string();
    writeFile(textPath, text);
    {
        HloTextOptions lean;
        lean.keepAttributes = false;
        writeFile(protoPath, encodeHloModuleProto(parseHloText(text, textPath, lean)));
    }

    std::vector<std::pair<std::string, std::string>> files = { { "generated " + family + " (text)", textPath },
        { "generated " + family + " (HloModuleProto)", protoPath } };
    for (const char* f :
        { "hlo/ssd_mobilenet_tf.hlo", "hlo/graphsage_tf.hlo", "tpu_graphs/module_tuning_data_layout.pb" })
        if (std::filesystem::exists(shared + "/" + f))
            files.emplace_back(std::string("real ") + f, shared + "/" + f);

    std::printf("tgraph-bench hlo: parse + featurize in fresh processes (best of 3; small files repeated)\n\n");
    std::printf("  %-42s %9s %8s %10s %10s %18s %18s\n", "input", "size", "instr.", "parse", "parse+feat.",
        "parse peak RSS", "parse+feat. RSS");
    for (const auto& [label, path] : files) {
        const uint64_t fileSize = std::filesystem::file_size(path);
        const int repeat
            = fileSize < (8u << 20) ? int(std::max<uint64_t>(1, (64u << 20) / std::max<uint64_t>(fileSize, 1))) : 1;
        double best = 1e300, bestParse = 1e300, peak = 0, baseline = 0, instructions = 0, bytes = 0;
        for (int r = 0; r < 3; ++r) {
            const std::string report = runChild({ self, "hlo-parse", path, std::to_string(repeat) });
            best = std::min(best, reportValue(report, "seconds"));
            bestParse = std::min(bestParse, reportValue(report, "parse"));
            peak = std::max(peak, reportValue(report, "peak_rss"));
            baseline = reportValue(report, "baseline_rss");
            instructions = reportValue(report, "instructions") / repeat;
            bytes = reportValue(report, "bytes");
        }
        // Memory from single runs: the peak above the process's start, relative to the file size.
        const std::string parseOnly = runChild({ self, "hlo-parse", path, "1", "--parse-only" });
        const std::string full = runChild({ self, "hlo-parse", path, "1" });
        const double parseAbove = reportValue(parseOnly, "peak_rss") - reportValue(parseOnly, "baseline_rss");
        const double fullAbove = reportValue(full, "peak_rss") - reportValue(full, "baseline_rss");
        (void)peak;
        (void)baseline;
        std::printf("  %-42s %9s %8.0f %5.0f MB/s %5.0f MB/s %9s %6.2fx %9s %6.2fx\n", label.c_str(),
            formatBytes(fileSize).c_str(), instructions, bytes / 1e6 / bestParse, bytes / 1e6 / best,
            formatBytes(uint64_t(parseAbove)).c_str(), parseAbove / double(fileSize),
            formatBytes(uint64_t(fullAbove)).c_str(), fullAbove / double(fileSize));
    }
    std::printf("\nThroughput: best of 3 processes, small files parsed repeatedly in each. Memory: peak RSS above the\n"
                "process's start in one run, and its ratio to the file size. Parsing holds the file and the module;\n"
                "featurizing drops the file and adds the graph, whose node_feat alone is 560 bytes per instruction.\n");
    std::filesystem::remove(textPath);
    std::filesystem::remove(protoPath);
    return 0;
}

int runHloHostileBench(const std::vector<std::string>& args)
{
    std::filesystem::path dir = std::filesystem::temp_directory_path();
    uint64_t limitMb = 4096;
    for (size_t i = 0; i < args.size(); ++i) {
        auto next = [&]() { return i + 1 < args.size() ? args[++i] : std::string(); };
        if (args[i] == "--dir") {
            dir = next();
        } else if (args[i] == "--limit-mb") {
            limitMb = std::stoull(next());
        } else {
            std::printf("Usage: tgraph-bench hlo-hostile [--dir DIR] [--limit-mb MB]\n"
                        "Parse time and peak RSS of the protobuf reader on hostile but valid HloModuleProto files\n"
                        "of 100 KB and 1 MB (core/synth/hostileproto.h: repeated fields interleaved, a shape\n"
                        "repeated, tuning data of many tiny modules), each in a fresh process whose address space\n"
                        "is capped at MB more than it maps at start (default 4096). Targets: under 1 s, and 64 MB\n"
                        "above the start (256 MB for many-modules: a module costs ~1 KB however small).\n");
            return args[i] == "--help" ? 0 : 2;
        }
    }
    const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
    const std::string tag = std::to_string(::getpid());
    std::printf("tgraph-bench hlo-hostile: protobuf reader on hostile files (best of 3 processes; target < 1 s, "
                "< 64 MB; many-modules < 256 MB)\n\n");
    std::printf("  %-22s %9s %9s %10s %16s %s\n", "pattern", "size", "repeats", "parse", "peak RSS above", "");
    bool allMet = true;
    for (const HostileProtoKind kind : hostileProtoKinds())
        for (const size_t size : { size_t(100) << 10, size_t(1) << 20 }) {
            const HostileProto file = generateHostileHloProto(kind, size);
            const std::string path = (dir / ("tgraph-bench-" + tag + "-" + hostileProtoKindName(kind) + ".pb")).string();
            writeFile(path, file.bytes);
            double best = 1e300, above = 0;
            std::string failure;
            for (int r = 0; r < 3 && failure.empty(); ++r) {
                try {
                    const std::string report
                        = runChild({ self, "hlo-parse", path, "1", "--parse-only", "--limit-mb", std::to_string(limitMb) });
                    best = std::min(best, reportValue(report, "parse"));
                    above = std::max(above, reportValue(report, "peak_rss") - reportValue(report, "baseline_rss"));
                } catch (const std::exception& e) {
                    failure = e.what();
                }
            }
            std::filesystem::remove(path);
            if (!failure.empty()) {
                allMet = false;
                std::printf("  %-22s %9s %9lld  failed within %llu MB: %s\n", hostileProtoKindName(kind),
                    formatBytes(file.bytes.size()).c_str(), (long long)file.repeats, (unsigned long long)limitMb,
                    failure.substr(0, 120).c_str());
                continue;
            }
            const double memoryTarget = double((kind == HostileProtoKind::ManyModules ? 256u : 64u) << 20);
            const bool met = best < 1.0 && above < memoryTarget;
            allMet = allMet && met;
            std::printf("  %-22s %9s %9lld %8.3f s %16s %s\n", hostileProtoKindName(kind),
                formatBytes(file.bytes.size()).c_str(), (long long)file.repeats, best,
                formatBytes(uint64_t(std::max(0.0, above))).c_str(), met ? "ok" : "MISSED");
        }
    std::printf("\n%s\n", allMet ? "every figure within its target" : "some figures missed their target");
    return 0;
}

} // namespace tgraph::bench
