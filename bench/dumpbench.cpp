// SPDX-License-Identifier: Apache-2.0
#include "dumpbench.h"

#include "procstats.h"

#include "core/dump/dumpindex.h"
#include "core/dump/dumpstage.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace tgraph::bench {

namespace {

namespace fs = std::filesystem;

void touch(const fs::path& path) { std::ofstream out(path, std::ios::binary); }

// A folder of about `files` names as a GPU compilation with --xla_dump_hlo_pass_re=.* leaves them:
// per module before_optimizations, 30 per-pass files, after_optimizations with its buffer
// assignment and memory report, LLVM IR, PTX, the thunk schedule and the lmhlo MLIR (empty files:
// the index opens none).
void makeGeneratedFolder(const fs::path& dir, int files)
{
    static const char* kPipelines[] = { "spmd-partitioner", "optimization", "simplification", "layout_assignment",
        "fusion", "horizontal_fusion", "post-fusion_optimization", "GPU-ir-emit-prepare" };
    static const char* kPasses[] = { "pipeline-start", "algsimp", "dce", "cse", "layout-assignment", "fusion",
        "multi_output_fusion", "copy-insertion", "pipeline-end" };
    int made = 0;
    for (int id = 0; made < files; ++id) {
        char prefix[64];
        std::snprintf(prefix, sizeof prefix, "module_%04d.jit_train_step.%d.", id, id % 17);
        auto add = [&](const std::string& suffix) {
            if (made < files) {
                touch(dir / (prefix + suffix));
                ++made;
            }
        };
        add("before_optimizations.txt");
        for (int p = 0; p < 30; ++p) {
            char pass[160];
            std::snprintf(pass, sizeof pass, "%04d.%s.after_%s.before_%s.txt", p, kPipelines[p % 8], kPasses[p % 9],
                kPasses[(p + 1) % 9]);
            add(pass);
        }
        add("sm_8.0_gpu_after_optimizations.txt");
        add("sm_8.0_gpu_after_optimizations-buffer-assignment.txt");
        add("sm_8.0_gpu_after_optimizations-memory-usage-report.txt");
        add("ir-no-opt.ll");
        add("ir-with-opt.ll");
        add("0.ptx");
        add("thunk_schedule");
        if (made < files) {
            char mlir[64];
            std::snprintf(mlir, sizeof mlir, "lmhlo.module_%04d.jit_train_step.%d.mlir", id, id % 17);
            touch(dir / mlir);
            ++made;
        }
    }
}

// The real folder's names, `copies` times, each copy under other module ids (empty files).
int makeReplicatedFolder(const fs::path& dir, const fs::path& real, int copies)
{
    int made = 0;
    for (const auto& e : fs::directory_iterator(real)) {
        const std::string name = e.path().filename().string();
        const size_t at = name.find("module_");
        for (int c = 0; c < copies; ++c) {
            std::string copy = name;
            if (at != std::string::npos && c > 0)
                copy.insert(at + 7, std::to_string(c)); // module_0012 -> module_10012, another id
            touch(dir / copy);
            ++made;
        }
    }
    return made;
}

struct Timing
{
    double first = 0;
    double best = 1e9;
    size_t modules = 0;
    size_t stages = 0;
    size_t files = 0;
};

Timing timeIndex(const fs::path& dir, int repeats)
{
    Timing t;
    for (int r = 0; r < repeats; ++r) {
        const auto start = std::chrono::steady_clock::now();
        const DumpIndex index = indexDumpFolder(dir.string());
        const double s = secondsSince(start);
        if (r == 0)
            t.first = s;
        t.best = std::min(t.best, s);
        t.modules = index.modules.size();
        t.stages = index.stageCount();
        t.files = index.entryCount();
    }
    return t;
}

double timeCli(const std::vector<std::string>& argv, int repeats)
{
    double best = 1e9;
    for (int r = 0; r < repeats; ++r) {
        const auto start = std::chrono::steady_clock::now();
        runChild(argv);
        best = std::min(best, secondsSince(start));
    }
    return best;
}

void row(const std::string& what, const Timing& t, double cli)
{
    std::printf("| %s | %zu | %zu | %zu | %.1f ms | %.1f ms | %s |\n", what.c_str(), t.files, t.modules, t.stages,
        t.first * 1e3, t.best * 1e3, cli < 0 ? "-" : (std::to_string(int(cli * 1e3 + 0.5)) + " ms").c_str());
}

} // namespace

int runDumpBench(const std::vector<std::string>& args)
{
    fs::path work = fs::temp_directory_path();
    std::string shared = std::string(TGRAPH_SOURCE_DIR) + "/../shared/data";
    std::vector<int> sizes = { 2000, 20000 };
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--dir" && i + 1 < args.size()) {
            work = args[++i];
        } else if (args[i] == "--shared" && i + 1 < args.size()) {
            shared = args[++i];
        } else if (args[i] == "--files" && i + 1 < args.size()) {
            sizes = { std::max(1, std::stoi(args[++i])) };
        } else {
            std::printf(
                "Usage: tgraph-bench dump [--files N] [--dir DIR] [--shared DIR]\n\n"
                "Lists and indexes dump folders of 2 000 and 20 000 generated names (--files: one size),\n"
                "the real dump folder's names replicated 1x and 10x (empty files), in process (first and best\n"
                "of 5) and through `tgraph dump list --json` (best of 3); then `--counts` on the real folder.\n");
            return args[i] == "--help" || args[i] == "-h" ? 0 : 2;
        }
    }
    const fs::path root = work / ("tgraph-dumpbench-" + std::to_string(::getpid()));
    const fs::path tgraphExe = fs::read_symlink("/proc/self/exe").parent_path() / "tgraph";
    const bool haveCli = fs::exists(tgraphExe);
    std::printf(
        "| folder | entries | modules | stages | index, first | index, best of 5 | `tgraph dump list --json` |\n"
        "|---|---|---|---|---|---|---|\n");
    auto cli = [&](const fs::path& dir) {
        return haveCli ? timeCli({ tgraphExe.string(), "dump", "list", dir.string(), "--json" }, 3) : -1.0;
    };
    for (int n : sizes) {
        const fs::path dir = root / ("generated-" + std::to_string(n));
        fs::create_directories(dir);
        makeGeneratedFolder(dir, n);
        row("generated, " + std::to_string(n) + " names", timeIndex(dir, 5), cli(dir));
    }
    const fs::path real = fs::path(shared) / "dumps" / "alpa_gpu_sm70";
    if (fs::is_directory(real)) {
        for (int copies : { 1, 10 }) {
            const fs::path dir = root / ("replicated-" + std::to_string(copies));
            fs::create_directories(dir);
            makeReplicatedFolder(dir, real, copies);
            row("real names x" + std::to_string(copies), timeIndex(dir, 5), cli(dir));
        }
        if (haveCli) {
            const double counts
                = timeCli({ tgraphExe.string(), "dump", "list", real.string(), "--json", "--counts" }, 3);
            const auto start = std::chrono::steady_clock::now();
            const DumpIndex index = indexDumpFolder(real.string());
            size_t instructions = 0;
            for (const DumpModule& m : index.modules)
                for (const DumpStage& s : m.stages)
                    instructions += size_t(countDumpStage(index, s).instructions);
            std::printf("\nreal folder, every stage parsed: `tgraph dump list --counts --json` %.2f s (best of 3); in "
                        "process %.2f s for %zu stages, %zu instructions\n",
                counts, secondsSince(start), index.stageCount(), instructions);
        }
    } else {
        std::printf("(no real dump folder at %s: its rows are skipped)\n", real.c_str());
    }
    fs::remove_all(root);
    return 0;
}

} // namespace tgraph::bench
