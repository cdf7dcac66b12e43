// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/hlo/featurizer.h"
#include "core/graph/graph.h"
#include "core/hlo/hlomodule.h"
#include "core/sim/layoutcandidates.h"
#include "core/sim/simulator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tgraph {

class ProgressSink;

// A synthetic TpuGraphs collection: modules from the HLO generators, layout or tile configs, and
// runtimes from the cost simulator, written as DIR/{train,valid,test}/*.npz exactly as the
// published dataset (test files carry zero runtimes) plus `meta_synthetic`.
struct SynthCollectionSpec
{
    GraphKind kind = GraphKind::Layout;
    LayoutSampler sampler = LayoutSampler::Random;
    int graphs = 20; // layout: modules; tile: kernels
    int64_t configs = 200; // per graph (fewer when a graph has fewer distinct configs)
    uint64_t seed = 1;
    std::vector<std::string> families; // empty = all generator families, in turn
    int64_t minInstructions = 300;
    int64_t maxInstructions = 3000;
    double validShare = 0.15;
    double testShare = 0.15;
    SimulatorParams params;
};

struct SynthCollectionResult
{
    std::vector<std::string> files; // written, relative to the directory
    int train = 0, valid = 0, test = 0;
    int64_t configs = 0;
};

// Throws InputError for an unwritable directory or impossible parameters; Cancelled through
// `progress`. Files already written stay (each one is complete: written to a temporary name).
// The module `writeSynthCollection` generates for one graph: generator family, requested size and
// seed; no metadata, attributes not kept (what `tgraph explain` regenerates to price a graph).
HloModule generatedModule(const std::string& family, int64_t size, uint64_t seed);

SynthCollectionResult writeSynthCollection(
    const SynthCollectionSpec& spec, const std::string& dir, ProgressSink* progress);

// One module with simulated layout runs (row 0 = the compiler default), ready for the featurizer:
// the configs as module_config runs, failures as error runs.
ModuleTuningData simulateLayoutRuns(HloModule module, const std::vector<int64_t>& configurable,
    const NdArray<float>& configs, const SimulatorParams& params, uint64_t seed);

// The JSON stored under meta_synthetic.
std::string syntheticMetaJson(const std::string& generator, const std::string& family, const std::string& sampler,
    uint64_t seed, const SimulatorParams& params);

} // namespace tgraph
