// SPDX-License-Identifier: Apache-2.0
// tgraph-bench: benchmarks that print figures (speed and memory targets are checked here, not
// in timed unit tests).

#include "diffbench.h"
#include "dumpbench.h"
#include "hlobench.h"
#include "kernelbench.h"
#include "modelbench.h"
#include "npzbench.h"
#include "projectbench.h"
#include "heldoutbench.h"
#include "realrecordbench.h"
#include "scalebench.h"

#include "core/util/error.h"

#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <exception>
#include <string>
#include <vector>

int main(int argc, char** argv)
{
    // LibTorch's OpenMP threads should sleep, not spin, between parallel regions (as `tgraph` sets
    // for tgraph-model; see app/cli/plumbing.cpp). libgomp reads it when it loads, so start again.
    if (!std::getenv("OMP_WAIT_POLICY")) {
        ::setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
        ::execv("/proc/self/exe", argv);
    }
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        std::printf("Usage: tgraph-bench <benchmark> [options]\n\n"
                    "Benchmarks:\n"
                    "  npz        write and read a ~1 GiB layout npz (stored and deflated), compared with numpy\n"
                    "  hlo        parse + featurize HLO text and protobuf modules (generated >= 100k instructions, "
                    "real files)\n"
                    "  diff       two generated 200k-instruction modules (one edited) read and diffed: time and peak "
                    "RSS\n"
                    "  hlo-hostile protobuf reader on hostile 100 KB and 1 MB files: time and peak RSS\n"
                    "  dump       list and index XLA dump folders of 2 000 and 20 000 files, real names replicated, "
                    "`tgraph dump list`\n"
                    "  project    project store: logging rows/s with a polling reader, run table of 1 000 runs, "
                    "1 M-point history\n"
                    "  kernels    fused element-wise kernels of the TGraph layers vs the composed ATen ops\n"
                    "  model      TGraph model forward and training step vs the PyTorch module, GFLOP/s vs GEMM peak\n"
                    "  realrecord TGraph model vs simulator on the real tuning record, 5 folds over configs, 150 steps "
                    "each\n"
                    "  heldout    the held-out configs of train --config-folds: the simulator's metrics on the real "
                    "record, npz files\n"
                    "  scale      TGraph training step and validation at TpuGraphs nlp scale (40k nodes, 4k configs): "
                    "time and peak RSS per phase\n");
        return args.empty() ? 2 : 0;
    }
    try {
        const std::vector<std::string> rest(args.begin() + 1, args.end());
        if (args[0] == "npz")
            return tgraph::bench::runNpzBench(rest);
        if (args[0] == "npz-read")
            return tgraph::bench::runNpzRead(rest);
        if (args[0] == "hlo")
            return tgraph::bench::runHloBench(rest);
        if (args[0] == "diff")
            return tgraph::bench::runDiffBench(rest);
        if (args[0] == "diff-case")
            return tgraph::bench::runDiffCase(rest);
        if (args[0] == "hlo-hostile")
            return tgraph::bench::runHloHostileBench(rest);
        if (args[0] == "hlo-parse")
            return tgraph::bench::runHloParse(rest);
        if (args[0] == "dump")
            return tgraph::bench::runDumpBench(rest);
        if (args[0] == "project")
            return tgraph::bench::runProjectBench(rest);
        if (args[0] == "kernels")
            return tgraph::bench::runKernelBench(rest);
        if (args[0] == "model")
            return tgraph::bench::runModelBench(rest);
        if (args[0] == "realrecord")
            return tgraph::bench::runRealRecordBench(rest);
        if (args[0] == "heldout")
            return tgraph::bench::runHeldOutBench(rest);
        if (args[0] == "scale")
            return tgraph::bench::runScaleBench(rest);
        if (args[0] == "scale-case")
            return tgraph::bench::runScaleCase(rest);
        if (args[0] == "model-case")
            return tgraph::bench::runModelCase(rest);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tgraph-bench: %s\n", e.what());
        return 1;
    }
    std::fprintf(stderr, "tgraph-bench: unknown benchmark '%s'\n", args[0].c_str());
    return 2;
}
