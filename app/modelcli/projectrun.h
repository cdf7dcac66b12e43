// SPDX-License-Identifier: Apache-2.0
#pragma once

// `tgraph train --project P.tgproj`: the run's record in a project file. Starts a new run (or takes
// over an existing one to resume it), keeps its checkpoints in the project's run folder
// (P.tgproj.d/runs/<id>/), writes its console lines into a log artifact there (train.log), and
// records every training event through a RunWriter (core/store/runwriter.h).

#include "core/store/project.h"
#include "core/store/runwriter.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace tgraph::cli {

class ProjectRun
{
public:
    // Opens the project (created when missing), marks runs whose process is gone as CRASHED and
    // starts a RUNNING run owned by this process.
    static std::unique_ptr<ProjectRun> start(const std::string& projectPath, const std::string& experiment,
        const std::string& name, const std::string& commandLine,
        const std::vector<std::pair<std::string, std::string>>& params);
    // Records this process as child run `runId` of a sweep (`tgraph train --queued-run`): the sweep
    // took the queued run for this process (RUNNING with this pid; core/store/sweeps.h) before it
    // started it. InputError when the run is anything else (another pid, not running, no such run).
    static std::unique_ptr<ProjectRun> adoptQueued(const std::string& projectPath, const std::string& runId,
        const std::vector<std::pair<std::string, std::string>>& params);
    // adoptQueued for a run the sweep queued again with a checkpoint (`--resume RUN --queued-run
    // RUN`): the same checks, then what was logged after `checkpointStep` is dropped and the run
    // appends to itself (its parameters stay).
    static std::unique_ptr<ProjectRun> continueQueued(
        const std::string& projectPath, const std::string& runId, int64_t checkpointStep);
    // Takes over run `key` (id, id prefix or name) to continue it: InputError when it is running in
    // a live process, belongs to another run (a fold), or has no latest checkpoint. Metrics logged
    // after the checkpoint's step are removed first (`checkpointStep`), so the history continues
    // without a gap or a duplicate. The run keeps its id: a resumed run appends to itself.
    static std::unique_ptr<ProjectRun> resume(
        const std::string& projectPath, const std::string& key, const std::string& commandLine, int64_t checkpointStep);
    // Records fold `fold` of the RUNNING cross-validation run `key` (started by --parallel-folds in
    // another process) as its fold run: checkpoints in RUN_DIR/fold-K/, the log in
    // RUN_DIR/fold-K/train.log, and finish() ends the fold run only. InputError when the run is
    // missing, not running or a fold itself.
    static std::unique_ptr<ProjectRun> attachFold(const std::string& projectPath, const std::string& key, int fold);
    // The latest-state checkpoint a resume of run `key` starts from (RUN_DIR/last.npz).
    static std::string resumeCheckpoint(const std::string& projectPath, const std::string& key);

    ~ProjectRun();
    ProjectRun(const ProjectRun&) = delete;
    ProjectRun& operator=(const ProjectRun&) = delete;

    const std::string& id() const { return m_id; }
    const std::string& dir() const { return m_dir; } // checkpoints (a fold's: dir()/fold-K/) and the log
    RunWriter& writer() { return *m_writer; }
    std::FILE* log() const { return m_log; }

    // Final status (of the run and its still-running folds) and message; later calls do nothing.
    void finish(RunStatus status, const std::string& message = {});

private:
    ProjectRun(const std::string& projectPath, std::string id, bool append, int fold = -1);

    std::string m_id;
    std::string m_dir;
    std::unique_ptr<RunWriter> m_writer;
    std::FILE* m_log = nullptr;
    bool m_finished = false;
    int m_fold = -1; // attachFold: the fold this process records
};

} // namespace tgraph::cli
