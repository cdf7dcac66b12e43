// SPDX-License-Identifier: Apache-2.0
#include "diffbench.h"

#include "procstats.h"

#include "core/diff/diffreport.h"
#include "core/diff/hlodiff.h"
#include "core/diffcost/diffcost.h"
#include "core/hlo/hloinput.h"
#include "core/synth/hlogen.h"
#include "core/util/format.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <unistd.h>
#include <unordered_map>

namespace tgraph::bench {

namespace {

struct EditCounts
{
    size_t renamed = 0;
    size_t layouts = 0;
    size_t added = 0;
};

bool nameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-'; }

// The module with every 997th instruction renamed (its uses too), the layout of every 1009th
// two-dimensional f32 instruction swapped ({1,0} -> {0,1}) and a dead constant before every
// 10007th instruction; parameters and roots are left alone. With `renameAll`, every instruction
// renamed instead and nothing else (no name matches: the other stages do all the work).
std::string editedCopy(const std::string& text, EditCounts& counts, bool renameAll = false)
{
    std::unordered_map<std::string, std::string> renamed;
    std::string out;
    out.reserve(text.size() + text.size() / 100);
    size_t instruction = 0, start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        std::string line = text.substr(start, end - start);
        start = end + 1;
        const bool isInstruction = line.starts_with("  %") || line.starts_with("  ROOT %");
        if (isInstruction) {
            ++instruction;
            const bool root = line.starts_with("  ROOT");
            const bool parameter = line.find(" parameter(") != std::string::npos;
            if (!root && !renameAll && instruction % 10007 == 0) {
                out += "  %bench_extra." + std::to_string(instruction) + " = s32[] constant("
                    + std::to_string(instruction) + ")\n";
                ++counts.added;
            }
            const size_t at = line.find('%');
            size_t nameEnd = at + 1;
            while (nameEnd < line.size() && nameChar(line[nameEnd]))
                ++nameEnd;
            if (renameAll || (!root && !parameter && instruction % 997 == 0)) {
                const std::string name = line.substr(at + 1, nameEnd - at - 1);
                renamed.emplace(name, name + "_renamed");
                ++counts.renamed;
            }
            const size_t eq = line.find(" = f32[", nameEnd);
            if (!root && !parameter && !renameAll && instruction % 1009 == 0 && eq == nameEnd) {
                const size_t close = line.find(']', eq);
                const std::string dims = line.substr(eq + 7, close - eq - 7);
                if (std::count(dims.begin(), dims.end(), ',') == 1 && line.compare(close + 1, 5, "{1,0}") == 0) {
                    line.replace(close + 1, 5, "{0,1}");
                    ++counts.layouts;
                }
            }
        }
        // References (and the definition) of renamed instructions.
        if (!renamed.empty() && line.find('%') != std::string::npos) {
            std::string fixed;
            fixed.reserve(line.size() + 16);
            for (size_t i = 0; i < line.size();) {
                if (line[i] != '%') {
                    fixed += line[i++];
                    continue;
                }
                size_t j = i + 1;
                while (j < line.size() && nameChar(line[j]))
                    ++j;
                const auto it = renamed.find(line.substr(i + 1, j - i - 1));
                fixed += '%';
                fixed += it == renamed.end() ? line.substr(i + 1, j - i - 1) : it->second;
                i = j;
            }
            line = std::move(fixed);
        }
        out += line;
        out += '\n';
    }
    return out;
}

} // namespace

int runDiffCase(const std::vector<std::string>& args)
{
    if (args.size() < 2) {
        std::fprintf(stderr, "usage: tgraph-bench diff-case A B\n");
        return 2;
    }
    const uint64_t baseline = currentRss();
    auto start = std::chrono::steady_clock::now();
    HloInputFile a = readHloInput(args[0]);
    HloInputFile b = readHloInput(args[1]);
    const double read = secondsSince(start);
    const HloModule& ma = a.modules.at(0).module;
    const HloModule& mb = b.modules.at(0).module;
    start = std::chrono::steady_clock::now();
    const HloDiff d = diffHloModules(ma, mb);
    const double diff = secondsSince(start);
    start = std::chrono::steady_clock::now();
    const HloDiffReport report { d, ma, mb, args[0], args[1] };
    const size_t jsonBytes = jsonText(hloDiffJson(report)).size();
    const double json = secondsSince(start);
    start = std::chrono::steady_clock::now();
    const size_t htmlBytes = formatHloDiffHtml(report).size();
    const double html = secondsSince(start);
    // `tgraph diff --price`: both sides priced by the simulator (docs/diff.md §8), after the rest.
    start = std::chrono::steady_clock::now();
    const HloDiffCost cost = priceHloDiff(d, ma, mb);
    const double price = secondsSince(start);
    std::printf("price=%.6f price_delta_ns=%.3f ", price, cost.delta());
    std::printf("read=%.6f diff=%.6f json=%.6f html=%.6f instructions_a=%zu instructions_b=%zu matched=%zu "
                "by_name=%zu changed=%zu layout=%zu removed=%zu added=%zu renamed=%zu json_bytes=%zu html_bytes=%zu "
                "peak_rss=%llu baseline_rss=%llu\n",
        read, diff, json, html, ma.instructions.size(), mb.instructions.size(), d.matched(),
        d.matchedByStage[size_t(HloMatchStage::Name)], d.changed.size(), d.byKind[size_t(HloChangeKind::Layout)].size(),
        d.removed.size(), d.added.size(),
        size_t(std::count_if(d.pairs.begin(), d.pairs.end(),
            [&](const HloDiffPair& p) { return ma.instructions[p.a].name != mb.instructions[p.b].name; })),
        jsonBytes, htmlBytes, (unsigned long long)peakRss(), (unsigned long long)baseline);
    return 0;
}

int runDiffBench(const std::vector<std::string>& args)
{
    int64_t size = 200000;
    std::string family = "transformer";
    std::filesystem::path dir = std::filesystem::temp_directory_path();
    int repeat = 3;
    for (size_t i = 0; i < args.size(); ++i) {
        auto next = [&]() { return i + 1 < args.size() ? args[++i] : std::string(); };
        if (args[i] == "--size")
            size = std::stoll(next());
        else if (args[i] == "--family")
            family = next();
        else if (args[i] == "--dir")
            dir = next();
        else if (args[i] == "--repeat")
            repeat = std::max(1, std::stoi(next()));
        else {
            std::printf("Usage: tgraph-bench diff [--size N] [--family F] [--dir DIR] [--repeat R]\n"
                        "Reads and diffs a generated module of N instructions (default 200000, family transformer)\n"
                        "against an edited copy (renamed instructions, swapped layouts, added ones) in fresh\n"
                        "processes (best of R, default 3): time per phase and peak RSS. Target: <= 10 s, <= 2 GB.\n");
            return args[i] == "--help" ? 0 : 2;
        }
    }
    const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
    const std::string tag = std::to_string(::getpid());
    HloGenSpec spec;
    spec.family = family;
    spec.instructions = size;
    const std::string text = generateHloText(spec);
    EditCounts edits;
    const std::string edited = editedCopy(text, edits);
    const std::string pathA = (dir / ("tgraph-bench-diff-a-" + tag + ".hlo")).string();
    const std::string pathB = (dir / ("tgraph-bench-diff-b-" + tag + ".hlo")).string();
    writeFile(pathA, text);
    writeFile(pathB, edited);

    std::printf("tgraph-bench diff: a generated %s module against an edited copy (%zu renamed, %zu layouts "
                "swapped, %zu added), read and diffed in fresh processes (best of %d)\n\n",
        family.c_str(), edits.renamed, edits.layouts, edits.added, repeat);
    struct Best
    {
        double total = 1e300, read = 0, diff = 0, json = 0, html = 0, peak = 0, price = 0;
        std::string report;
    };
    auto measure = [&](const std::string& b) {
        Best best;
        for (int r = 0; r < repeat; ++r) {
            const std::string report = runChild({ self, "diff-case", pathA, b });
            const double read = reportValue(report, "read"), diff = reportValue(report, "diff");
            if (read + diff < best.total)
                best = { read + diff, read, diff, reportValue(report, "json"), reportValue(report, "html"), best.peak,
                    reportValue(report, "price"), report };
            best.peak = std::max(best.peak, reportValue(report, "peak_rss"));
        }
        return best;
    };
    Best edited1, renamedAll;
    EditCounts all;
    try {
        edited1 = measure(pathB);
        writeFile(pathB, editedCopy(text, all, true));
        renamedAll = measure(pathB);
    } catch (...) {
        std::filesystem::remove(pathA);
        std::filesystem::remove(pathB);
        throw;
    }
    std::filesystem::remove(pathA);
    std::filesystem::remove(pathB);
    const std::string& report = edited1.report;
    const double best = edited1.total, bestRead = edited1.read, bestDiff = edited1.diff, bestJson = edited1.json,
                 bestHtml = edited1.html;
    const double peak = std::max(edited1.peak, renamedAll.peak);
    const auto value = [&](const char* key) { return size_t(reportValue(report, key)); };
    std::printf("  instructions      A %zu, B %zu (%s and %s of HLO text)\n", value("instructions_a"),
        value("instructions_b"), formatBytes(text.size()).c_str(), formatBytes(edited.size()).c_str());
    std::printf("  result            matched %zu (renamed %zu), changed %zu (layout %zu), removed %zu, added %zu\n",
        value("matched"), value("renamed"), value("changed"), value("layout"), value("removed"), value("added"));
    std::printf("  read both         %8.3f s\n", bestRead);
    std::printf("  diff              %8.3f s\n", bestDiff);
    std::printf("  read + diff       %8.3f s\n", best);
    std::printf("  JSON report       %8.3f s (%s)\n", bestJson, formatBytes(value("json_bytes")).c_str());
    std::printf("  HTML report       %8.3f s (%s)\n", bestHtml, formatBytes(value("html_bytes")).c_str());
    std::printf("  priced (--price)  %8.3f s (the simulator on both sides; delta %.0f ns)\n", edited1.price,
        reportValue(report, "price_delta_ns"));
    std::printf("  peak RSS          %s (pricing included)\n", formatBytes(uint64_t(edited1.peak)).c_str());
    std::printf("\n  every instruction renamed (%zu): matched %zu (by name %zu), changed %zu, removed %zu, added %zu\n",
        all.renamed, size_t(reportValue(renamedAll.report, "matched")),
        size_t(reportValue(renamedAll.report, "by_name")), size_t(reportValue(renamedAll.report, "changed")),
        size_t(reportValue(renamedAll.report, "removed")), size_t(reportValue(renamedAll.report, "added")));
    std::printf("  read + diff       %8.3f s (diff %.3f s), peak RSS %s\n", renamedAll.total, renamedAll.diff,
        formatBytes(uint64_t(renamedAll.peak)).c_str());
    const bool met = std::max(best + bestJson, renamedAll.total + renamedAll.json) <= 10.0 && peak <= 2.0 * (1u << 30);
    std::printf("\ntarget (read + diff + JSON <= 10 s, peak RSS <= 2 GiB): %s\n", met ? "met" : "MISSED");
    return 0;
}

} // namespace tgraph::bench
