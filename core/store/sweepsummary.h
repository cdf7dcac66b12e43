// SPDX-License-Identifier: Apache-2.0
#pragma once

// A sweep read back from the project (docs/store.md §9): its child runs grouped by configuration,
// with the mean, standard deviation, minimum and maximum over the finished seeds of the validation
// metrics each run logged last (Kendall tau, OPA, top-5 slowdown), and the best configuration.
// What `tgraph sweep report` prints and the studio's Sweep view draws.

#include "core/store/project.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tgraph {

// Mean, sample standard deviation (n - 1; NaN below 2 values), minimum and maximum of n values.
struct SpreadStat
{
    int64_t n = 0;
    double mean = 0, std = 0, min = 0, max = 0; // NaN when n == 0
};
SpreadStat spreadOf(const std::vector<double>& values); // NaN values are left out

struct SweepRunSummary
{
    std::string runId;
    std::string name; // cC-sS
    int64_t config = 0;
    int64_t seed = 0;
    RunStatus status = RunStatus::Pending;
    int64_t attempts = 0;
    // The run's last validation evaluation (valid/tau, valid/opa, valid/top5_slowdown); NaN when none.
    double tau = 0, opa = 0, top5Slowdown = 0;
};

struct SweepConfigSummary
{
    int64_t config = 0;
    std::string text; // "lr=0.001 hidden=128"
    std::vector<std::pair<std::string, std::string>> values; // parsed from `text`
    int64_t runs = 0, finished = 0, running = 0, queued = 0, failed = 0; // failed: FAILED, KILLED, CRASHED
    SpreadStat tau, opa, top5Slowdown; // over the finished runs
    std::vector<std::string> runIds; // in queue order
};

struct SweepSummary
{
    RunRecord sweep;
    std::vector<std::string> parameters; // the swept parameters, in the spec's order
    std::vector<SweepConfigSummary> configs; // by configuration number
    std::vector<SweepRunSummary> runs; // in queue order
    int best = -1; // index into configs: the highest mean tau over finished runs; -1 when none finished
};

// How much one swept parameter matters for a metric, over the finished runs (docs/store.md §9):
// - `correlation`: |Pearson r| between the parameter's value and the metric (numbers: log10 of
//   the value when all values are positive and span a factor of 10 or more; a parameter of two
//   categories: 0 / 1; NaN for more categories or fewer than 3 runs or no spread);
// - `varianceExplained`: eta squared of a one-way analysis of variance, the share of the metric's
//   variance between the groups of runs with the same value (numbers with more than 8 distinct
//   values: 4 groups of equal count by value), 0..1; NaN with fewer than 3 runs or no spread.
struct ParameterImportance
{
    std::string parameter;
    double correlation = 0;
    double varianceExplained = 0;
    int64_t runs = 0;
};
// Per parameter of `summary` (its order), over its finished runs' last valid/tau.
std::vector<ParameterImportance> parameterImportance(const SweepSummary& summary);

// The value of `parameter` in configuration `config` of `summary` ("" when it has none).
std::string parameterValue(const SweepConfigSummary& config, const std::string& parameter);

// One metric's curve per configuration over its runs (finished or not): at each step that any of
// its runs logged, the mean, sample std, min and max over the runs that logged it.
struct SweepCurvePoint
{
    int64_t step = 0;
    SpreadStat value;
};
struct SweepCurve
{
    int64_t config = 0;
    std::string text;
    int64_t runs = 0; // runs with at least one point
    std::vector<SweepCurvePoint> points; // by step
};
// `maxPoints` > 0 downsamples each run's history first (Project::metricHistory).
std::vector<SweepCurve> sweepCurves(const Project& project, const SweepSummary& summary, const std::string& key,
    const std::string& context, int64_t maxPoints = 0);

// InputError naming the project when `sweepKey` (id, prefix or name) is no sweep.
SweepSummary summarizeSweep(const Project& project, const std::string& sweepKey);

} // namespace tgraph
