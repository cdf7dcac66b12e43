// SPDX-License-Identifier: Apache-2.0
#pragma once

// Sweeps in the project file (docs/store.md §9): a sweep is a run (the parent) whose child runs are
// the configurations of a grid or of random draws times the seeds. Each child is a row of `runs`
// (parent_run = the sweep) plus a row of `sweep_runs` (schema version 2) saying which
// configuration and seed it is and the `tgraph train` arguments it runs with. A queued child is a
// PENDING run; the queue is the database, so it survives the process that drives it.

#include "core/store/project.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tgraph {

// One child run as the sweep plans it.
struct SweepRunPlan
{
    int64_t config = 0; // configuration number, 0-based; the seeds of one configuration share it
    std::string configText; // "cross-attn=on hidden=128 lr=0.001": the parameters as the spec names them
    int64_t seed = 0;
    std::vector<std::string> arguments; // the `tgraph train` arguments of this run (without --project)
};

// One child run as the project records it.
struct SweepRunRecord : SweepRunPlan
{
    std::string runId;
    int64_t position = 0; // its place in the queue (start order)
    int64_t attempts = 0; // how many times a process was started for it
};

// Creates a sweep: the parent run (RUNNING, owned by this process; `sweep.commandLine`, name and
// experiment as given) with `params`, and one PENDING child run per plan with its sweep_runs row,
// all in one transaction. Returns the sweep's run id. InputError when `plans` is empty.
std::string createSweep(Project& project, const RunStart& sweep,
    const std::vector<std::pair<std::string, std::string>>& params, const std::vector<SweepRunPlan>& plans);

// Whether run `runId` is a sweep (has child runs in sweep_runs). False on a version-1 file.
bool isSweep(const Project& project, const std::string& runId);
// The sweeps of the project, newest first (their run ids).
std::vector<std::string> sweepIds(const Project& project);
// The child runs of sweep `sweepId` in queue order (empty for a run that is no sweep).
std::vector<SweepRunRecord> sweepRuns(const Project& project, const std::string& sweepId);

// The first queued (PENDING) child run of the sweep in queue order, or "" when none is queued.
std::string nextQueuedRun(const Project& project, const std::string& sweepId);

// Takes queued child `runId` for the process `pid` that is about to run it: PENDING -> RUNNING
// with that pid (and its start time), this host, a fresh start time and heartbeat, `commandLine`,
// attempts + 1; in one statement, so of two sweep processes that try, exactly one gets it. False
// when the run is not PENDING any more.
bool claimSweepRun(Project& project, const std::string& runId, int64_t pid, const std::string& commandLine);

// Queues an interrupted child (KILLED, CRASHED) again. With a latest-state checkpoint in its run
// folder (RUN_DIR/last.npz) it keeps everything and becomes PENDING to continue from it (the sweep
// starts it as `tgraph train --resume RUN --queued-run RUN`, which drops what was logged after the
// checkpoint's step); returns true. Without one it starts over: its metrics, evaluations,
// predictions, params, tags, artifacts and its run folder are dropped; returns false. Refused
// (InputError) for a run that is RUNNING or FINISHED, or is no sweep's child.
bool requeueSweepRun(Project& project, const std::string& runId);

// The latest-state checkpoint a queued child continues from (RUN_DIR/last.npz), empty when it
// starts from the beginning.
std::string sweepRunCheckpoint(const Project& project, const std::string& runId);

} // namespace tgraph
