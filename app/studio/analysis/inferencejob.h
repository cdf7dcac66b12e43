// SPDX-License-Identifier: Apache-2.0
#pragma once

// The work behind the studio's inference panel, as plain functions that run on the inference
// thread (and in tests without a window): load the models, pick the config set of a graph (all,
// a seeded sample, or candidates generated for an HLO module and priced by the simulator), score
// it (model/facade/ensemble.h), compute the metrics and store the result in a project.

#include "core/graph/graph.h"
#include "core/view/graphdocument.h"
#include "core/sim/layoutcandidates.h"
#include "core/io/ndarray.h"
#include "core/results/attentionmaps.h"
#include "core/results/scores.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tgraph {
class ProgressSink;
}

namespace tgraph::studio {

enum class ConfigSetKind {
    All, // every config of the file
    Sample, // a seeded uniform sample without replacement
    Generate, // candidates for an HLO module (core/sim/layoutcandidates.h), priced by the simulator
};

struct InferenceRequest
{
    std::vector<std::string> weights; // weights .npz, checkpoints or ensemble.json files
    std::vector<int> members; // indices into the expanded member list; empty = all
    tgraph::GraphDocumentPtr document; // one graph open in the studio, or
    std::vector<std::string> files; // graph files / directories of a collection (all configs)
    ConfigSetKind configSet = ConfigSetKind::All;
    int64_t sampleCount = 1000; // Sample / Generate
    uint64_t seed = 1;
    tgraph::LayoutSampler sampler = tgraph::LayoutSampler::Default; // Generate
    bool simulate = true; // Generate: simulated runtimes for the candidates
    tgraph::InferenceOptions options;
    std::string project; // when set, the results are stored in a run of this project
    std::string experiment = "Inference";
    std::string runName; // empty: "inference-N"
};

// One graph's result.
struct GraphInference
{
    std::string path;
    std::string name;
    std::string collection; // Kaggle collection id when the path tells it
    tgraph::GraphKind kind = tgraph::GraphKind::Layout;
    int64_t nodes = 0; // nodes the model saw (layout: after pruning)
    int64_t nodesBeforePruning = 0;
    std::vector<int64_t> configIds; // per row: index of the config in the file (or candidate index)
    std::vector<double> scores; // per row
    std::vector<double> runtimes; // per row, ns; empty = unknown
    bool simulated = false; // runtimes from the simulator
    bool generated = false; // configIds index candidates generated for the module, not the file's configs
    // Layout: (rows, Nc, 18) layout values and the configurable nodes' ids (full graph); tile:
    // (rows, 24). Empty for collection graphs (their files are not kept in memory).
    tgraph::NdArray<float> configValues;
    std::vector<int64_t> configurableNodes;
    std::vector<tgraph::AttentionMaps> attention; // one per ensemble member (single graphs)
    // The file's node id of each node the model saw (the pruned graph); empty = the same ids.
    std::vector<int64_t> modelNodeIds;
    double kendallTau = 0, opa = 0, top5Slowdown = 0; // NaN without runtimes
    // Models with simulator inputs (docs/model.md §4.9): "" (none), or "unpriced: WHY".
    std::string simInputs;

    bool hasRuntimes() const { return !runtimes.empty(); }
};

struct InferenceOutcome
{
    std::vector<GraphInference> graphs;
    std::vector<std::string> members; // the model files used
    // Collection files that could not be scored, and graphs scored without their simulator
    // inputs' prices ("file: why"): the page's banner shows them as warnings.
    std::vector<std::string> problems;
    std::string project;
    std::string runId; // the project run holding the results ("" = not stored)
    double seconds = 0;
};

// The member files of `weights` (ensemble.json expanded). InputError naming a bad file.
std::vector<std::string> expandModelFiles(const std::vector<std::string>& weights);

// Rows of a config set: all rows, or `count` distinct rows drawn with `seed`, ascending.
std::vector<int64_t> sampleConfigRows(int64_t configs, int64_t count, uint64_t seed);

// Runs the request (see InferenceRequest). InputError naming the file for bad models or graphs;
// tgraph::Cancelled when `progress` is cancelled (nothing is stored then).
InferenceOutcome runInference(const InferenceRequest& request, tgraph::ProgressSink* progress);

} // namespace tgraph::studio
