// SPDX-License-Identifier: Apache-2.0
// `tgraph-bench heldout`: for each fold of `tgraph train --config-folds K --config-fold-seed S`, the
// very configurations that training holds out (the same loading, de-duplication and split code,
// core/train/configfolds.h), priced by the analytical simulator (docs/simulator.md) on the graph
// converted from a real tuning record, and written as .npz files (--out) for `tgraph eval`.
// bench/real_sweep.sh compares the sweep's models with the simulator on exactly these configs.

#include "heldoutbench.h"

#include "core/graph/configs.h"
#include "core/graph/graphio.h"
#include "core/hlo/hloproto.h"
#include "core/metrics/metrics.h"
#include "core/sim/simulator.h"
#include "core/train/configfolds.h"
#include "core/train/trainingset.h"
#include "core/util/error.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

namespace tgraph::bench {

namespace {

std::string number(double v)
{
    if (!std::isfinite(v))
        return "null";
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

int usage(bool help)
{
    std::printf("Usage: tgraph-bench heldout --record RECORD.pb --record-graph NAME.npz --config-folds K\n"
                "                            [--config-fold-seed S] [--out DIR] DATA...\n"
                "Loads DATA as 'tgraph train --data DATA' does, and for each fold k of 'tgraph train\n"
                "--config-folds K --config-fold k --config-fold-seed S' prints one JSON line with the\n"
                "analytical simulator's Kendall tau, OPA and top-5 slowdown on the held-out configurations\n"
                "of NAME.npz (the graph 'tgraph convert' made of RECORD.pb). --out DIR also writes each\n"
                "held-out graph, unpruned, as DIR/fold-k/NAME.npz (for 'tgraph eval'). docs/model.md §4.4.1.\n");
    return help ? 0 : 2;
}

} // namespace

int runHeldOutBench(const std::vector<std::string>& args)
{
    namespace fs = std::filesystem;
    std::string record, recordGraph, out;
    ConfigFoldOptions folds;
    std::vector<std::string> data;
    for (size_t i = 0; i < args.size(); ++i) {
        const bool hasValue = i + 1 < args.size();
        if (args[i] == "--record" && hasValue)
            record = args[++i];
        else if (args[i] == "--record-graph" && hasValue)
            recordGraph = args[++i];
        else if (args[i] == "--config-folds" && hasValue)
            folds.folds = std::stoi(args[++i]);
        else if (args[i] == "--config-fold-seed" && hasValue)
            folds.seed = uint32_t(std::stoul(args[++i]));
        else if (args[i] == "--out" && hasValue)
            out = args[++i];
        else if (args[i].rfind("-", 0) == 0)
            return usage(args[i] == "--help" || args[i] == "-h");
        else
            data.push_back(args[i]);
    }
    if (record.empty() || recordGraph.empty() || folds.folds < 2 || data.empty())
        return usage(false);

    const HloProtoFile file = readHloProtoFile(record);
    if (file.modules.size() != 1)
        throw InputError(record, "modules", "one module expected");
    const std::vector<DataFile> files = listDataFiles(data);
    const TrainingData whole = loadTrainingData(files, TrainingDataOptions {});
    std::string recordPath;
    for (const DataFile& f : files)
        if (fs::path(f.path).filename() == recordGraph)
            recordPath = f.path;
    if (recordPath.empty())
        throw InputError(recordGraph, "--record-graph", "not among the data files");
    // The simulator prices rows over the configurable nodes of the unpruned graph, in its order.
    const LayoutGraph unpruned = loadLayoutGraph(recordPath);
    const std::vector<int64_t> configurable(
        unpruned.nodeConfigIds.data(), unpruned.nodeConfigIds.data() + unpruned.configurableCount());
    const LayoutSimulator sim(file.modules.front().module, configurable);

    for (int k = 0; k < folds.folds; ++k) {
        TrainingData split = whole;
        folds.fold = k;
        holdOutConfigFold(split, folds);
        for (size_t i : split.indicesOf(DataSplit::Valid)) {
            const TrainingGraph& g = split.graphs[i];
            const NdArray<float> configs = decompressConfigs(g.configs, g.path);
            const std::string stem = fs::path(g.path).filename().string();
            if (!out.empty()) {
                // Unpruned, as the file was: its module (RECORD.pb beside it) matches its nodes, for
                // models with simulator inputs (docs/model.md §4.9); eval prunes it as training did.
                LayoutGraph l = loadLayoutGraph(g.path);
                l.nodeConfigFeat = configs;
                l.configRuntime = g.layout.configRuntime;
                const fs::path dir = fs::path(out) / ("fold-" + std::to_string(k));
                fs::create_directories(dir);
                saveLayoutGraph(l, (dir / stem).string());
            }
            if (g.path != recordPath)
                continue;
            if (configs.dim(1) != int64_t(configurable.size()))
                throw InputError(recordPath, "node_config_feat", "configurable nodes differ from the record's");
            std::vector<double> measured, simulated;
            for (int64_t c = 0; c < g.configCount(); ++c) {
                measured.push_back(double(g.layout.configRuntime[c]));
                simulated.push_back(sim.runtime(configs.row(c)));
            }
            std::printf("{\"fold\":%d,\"folds\":%d,\"graph\":\"%s\",\"configs\":%lld,\"tau\":%s,\"opa\":%s,"
                        "\"top5_slowdown\":%s}\n",
                k, folds.folds, stem.c_str(), (long long)g.configCount(), number(kendallTauB(measured, simulated)).c_str(),
                number(orderedPairAccuracy(measured, simulated)).c_str(),
                number(topKSlowdown(measured, simulated, 5)).c_str());
        }
    }
    return 0;
}

} // namespace tgraph::bench
