// SPDX-License-Identifier: Apache-2.0
#include "commands.h"

#include "argparser.h"

namespace tgraph::cli {

const std::vector<Command>& commands()
{
    static const std::vector<Command> list = {
        { "convert", "featurize an XLA HLO module (text or protobuf, tuning records too) into a TpuGraphs .npz",
            runConvert },
        { "data", "fetch the public TpuGraphs dataset (resumable, checked) and verify a collection tree", runData },
        { "diff",
            "compare two HLO modules: instructions matched, changes by kind (layout, shape, fusion...), "
            "text, JSON or HTML",
            runDiff },
        { "dump", "list an XLA dump folder (--xla_dump_to): every module with its HLO stages in pass order", runDump },
        { "gen-hlo", "write a synthetic HLO text module (mlp, resnet, transformer, unet, gnn) shaped like an XLA dump",
            runGenHlo },
        { "inspect", "summarize graphs and modules: .npz, HLO text, HLO and tuning-record protobufs", runInspect },
        { "prune", "prune a layout graph to its configurable nodes and their neighbours; dedup and compress configs",
            runPrune },
        { "render", "draw a graph or module to PNG or SVG as the studio's graph view does (no window)", runRender },
        { "compare", "compare training runs of a project: metrics, size, speed, per-graph tau, pairwise wins",
            runCompare },
        { "runs", "list, show, stop, resume, delete and export the training runs of a project file (.tgproj)",
            runRuns },
        { "simulate",
            "price layout configs of an HLO module with the analytical cost simulator (baseline, calibration)",
            runSimulate },
        { "sweep",
            "run many training runs of a grid or random search times seeds, K at once; resume, stop, report",
            runSweep },
        { "synth", "write synthetic TpuGraphs collections (generated modules, simulated runtimes)", runSynth },
    };
    return list;
}

} // namespace tgraph::cli
