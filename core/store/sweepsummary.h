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

// InputError naming the project when `sweepKey` (id, prefix or name) is no sweep.
SweepSummary summarizeSweep(const Project& project, const std::string& sweepKey);

} // namespace tgraph
