// SPDX-License-Identifier: Apache-2.0
#pragma once

// Side-by-side comparison of training runs of a project (`tgraph compare`, the studio's Compare
// view): per run the model, its validation metrics at the best evaluated step, its size and cost;
// per graph each run's Kendall tau; per pair of runs the graphs each ranks better.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tgraph {

class Project;

struct ComparedRun
{
    std::string id;
    std::string name;
    std::string model; // "tgraph", "kaufman", ... ("tgraph" for runs recorded before the zoo)
    std::string loss;
    std::string kind; // "layout" / "tile"
    std::string data; // the --data entries
    int64_t parameters = -1; // -1 unknown
    int64_t step = -1; // the evaluation shown: the best (by mean tau), else the latest; -1 none
    int graphs = 0; // validation graphs at that step
    double tau = 0, opa = 0, top1Slowdown = 0, top5Slowdown = 0, ape = 0, tileScore = 0; // NaN: not recorded
    double trainMsPerStep = 0; // median over the logged intervals; NaN none
    double inferMsPer128 = 0; // validation wall time per 128 configs scored; NaN none
    double peakRssMb = 0; // the training process's peak resident memory; NaN unknown
    std::map<std::string, double> graphTau; // graph -> tau at `step`
};

struct PairwiseWins
{
    size_t a = 0, b = 0; // indices into RunComparison::runs
    int aBetter = 0, bBetter = 0, ties = 0; // over the graphs both evaluated (|tau difference| <= 1e-9 ties)
    std::vector<std::string> graphsABetter, graphsBBetter;
};

struct RunComparison
{
    std::vector<ComparedRun> runs; // in the order asked
    std::vector<std::string> graphs; // every graph any run evaluated, sorted
    std::vector<PairwiseWins> pairs; // (0,1), (0,2), ..., (1,2), ...
};

// Runs by id, unique id prefix or unique name (InputError naming the project and the key when
// one is unknown or ambiguous, or when a run is asked twice).
RunComparison compareRuns(const Project& project, const std::vector<std::string>& keys);

// Plain-text report: the metrics table, the per-graph tau table and the pairwise wins.
std::string comparisonText(const RunComparison& comparison);
// The same as a JSON object.
std::string comparisonJson(const RunComparison& comparison);

} // namespace tgraph
