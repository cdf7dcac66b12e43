// SPDX-License-Identifier: Apache-2.0
#pragma once

// The real tuning record of ../shared/data/tpu_graphs/module_tuning_data_layout.pb (one module,
// 112 measured layout configurations), 5 folds over its configurations: train the TGraph model
// on 4/5 of the configs, rank the held-out 1/5, and compare with the analytical simulator's
// ranking of the same held-out configs (issue 6, report only). Shared by `tgraph-bench
// realrecord` (150 steps per fold) and tests/model/tst_training.cpp (a short run). Header-only
// so that the test binary needs no bench sources.

#include "core/graph/configs.h"
#include "core/hlo/featurizer.h"
#include "core/graph/graphio.h"
#include "core/hlo/hloproto.h"
#include "core/train/kfold.h"
#include "core/metrics/metrics.h"
#include "core/sim/simulator.h"
#include "core/train/trainingset.h"
#include "model/train/trainer.h"

#include <functional>
#include <string>
#include <vector>

namespace tgraph::bench {

struct RealRecordFold
{
    int fold = 0;
    int64_t heldOutConfigs = 0;
    double modelTau = 0, modelTop5Slowdown = 0; // fractions
    double simulatorTau = 0, simulatorTop5Slowdown = 0;
};

struct RealRecordOptions
{
    int folds = 5;
    uint32_t foldSeed = 123;
    int64_t steps = 150;
    int64_t configsPerStep = 64;
    int64_t hidden = 64;
    uint64_t seed = 42; // fold f: seed + f
};

// Runs every fold; `workDir` receives the per-fold train/held-out npz files. `onFold` sees each
// fold as it finishes. InputError when the record cannot be read.
inline std::vector<RealRecordFold> runRealRecordFolds(const std::string& record, const std::string& workDir,
    const RealRecordOptions& options = {}, const std::function<void(const RealRecordFold&)>& onFold = {})
{
    const HloProtoFile file = readHloProtoFile(record);
    const ModuleTuningData& module = file.modules.at(0);
    const LayoutGraph full = featurizeLayout(module, record);
    const std::vector<int64_t> configurable(
        full.nodeConfigIds.data(), full.nodeConfigIds.data() + full.configurableCount());
    const LayoutSimulator sim(module.module, configurable);
    const std::vector<int> fold = kfoldAssignment(full.configCount(), options.folds, options.foldSeed);
    std::vector<RealRecordFold> out;
    for (int f = 0; f < options.folds; ++f) {
        TrainingData data;
        data.kind = GraphKind::Layout;
        for (int part = 0; part < 2; ++part) { // 0 = training configs, 1 = held out
            LayoutGraph g = full;
            std::vector<int64_t> rows;
            for (int64_t c = 0; c < full.configCount(); ++c)
                if ((fold[size_t(c)] == f) == (part == 1))
                    rows.push_back(c);
            NdArray<float> feat({ int64_t(rows.size()), full.configurableCount(), kLayoutConfigFeatures });
            NdArray<int64_t> runtime({ int64_t(rows.size()) });
            for (size_t k = 0; k < rows.size(); ++k) {
                std::copy_n(full.nodeConfigFeat.row(rows[k]), full.nodeConfigFeat.rowSize(), feat.row(int64_t(k)));
                runtime[int64_t(k)] = full.configRuntime[rows[k]];
            }
            g.nodeConfigFeat = feat;
            g.configRuntime = runtime;
            const std::string p = workDir + "/real-fold" + std::to_string(f) + (part ? "-valid.npz" : "-train.npz");
            saveLayoutGraph(g, p);
            TrainingDataOptions load;
            load.dedup = part ? DedupPolicy::None : DedupPolicy::KeepFirst; // held-out configs keep duplicates
            TrainingData one = loadTrainingData({ { p, DataSplit::Train, true } }, load);
            one.graphs.front().split = part ? DataSplit::Valid : DataSplit::Train;
            data.graphs.push_back(std::move(one.graphs.front()));
        }
        model::TrainOptions o;
        o.steps = options.steps;
        o.configsPerStep = options.configsPerStep;
        o.model.hidden = options.hidden;
        o.evalEvery = 0;
        o.logEvery = 1000000;
        o.seed = options.seed + uint64_t(f);
        model::Trainer t(data, { 0 }, { 1 }, o);
        t.run();
        const EvalMetrics e = t.evaluate();
        const TrainingGraph& held = data.graphs[1];
        std::vector<double> measured, simulated;
        const NdArray<float> configs = decompressConfigs(held.configs);
        for (int64_t c = 0; c < held.configCount(); ++c) {
            measured.push_back(double(held.layout.configRuntime[c]));
            simulated.push_back(sim.runtime(configs.row(c)));
        }
        RealRecordFold r;
        r.fold = f;
        r.heldOutConfigs = held.configCount();
        r.modelTau = e.meanTau;
        r.modelTop5Slowdown = e.meanTop5Slowdown;
        r.simulatorTau = kendallTauB(measured, simulated);
        r.simulatorTop5Slowdown = topKSlowdown(measured, simulated, 5);
        if (onFold)
            onFold(r);
        out.push_back(r);
    }
    return out;
}

} // namespace tgraph::bench
