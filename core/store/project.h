// SPDX-License-Identifier: Apache-2.0
#pragma once

// The TGraph Studio project file (*.tgproj): one SQLite database holding experiments, runs, their
// parameters, metric histories, per-graph evaluations, predictions and artifact references, with
// the files a run writes (checkpoints, logs, weights) in NAME.tgproj.d/ beside it. The schema is
// MLflow-shaped (docs/studio.md §2.6); see docs/store.md for the tables and the decisions.
//
// Concurrency: WAL journal, busy timeout, foreign keys on. Any number of readers (the GUI polls)
// and one writer per run (RunWriter, a separate connection per process or thread); a Project
// object is one connection and is used from one thread at a time.

#include "core/store/sqlitedb.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tgraph {

// Whether `id` has the form of the run ids this store makes (32 lowercase hex digits, see
// Project::startRun). A run id names a folder (NAME.tgproj.d/runs/<id>), so every id read from a
// project file is checked against it: a crafted file must not slip "../.." or "/etc" into a path.
bool isRunId(std::string_view id);
// A new random run id of that form (what startRun gives a run).
std::string newRunId();

enum class RunStatus { Pending, Running, Finished, Failed, Killed, Crashed };
const char* runStatusName(RunStatus status); // "RUNNING", ...
bool parseRunStatus(const std::string& text, RunStatus* status);
bool isTerminal(RunStatus status); // Finished, Failed, Killed, Crashed

struct RunRecord
{
    std::string id; // 32 hex digits (isRunId; a run read with another id is refused)
    std::string experiment;
    std::string name;
    std::string parentRun; // cross-validation folds: the run they belong to
    RunStatus status = RunStatus::Pending;
    int64_t startMs = 0, endMs = 0, heartbeatMs = 0; // Unix epoch ms; 0 = not set
    int64_t pid = 0;
    int64_t pidStart = 0; // the process's start time in clock ticks since boot; 0 = not recorded
    std::string host;
    std::string commandLine;
    std::string resumedFrom; // the run this one continued (a new process appending to the same run
                             // records itself here as its own id; see docs/store.md §5)
    std::string checkpoint; // latest checkpoint, relative to the project folder
    std::string message; // why it failed, stopped or crashed
    // The furthest step the project records for the run: the last step of any of its metric
    // series and the step of its latest checkpoint (0 when it has none). What "Step" shows.
    int64_t lastStep = 0;
    // Read as CRASHED although the row still says RUNNING: its process on this host is gone
    // (docs/store.md §5). markCrashedRuns, run by every writer that opens the project, records it.
    bool crashNotRecorded = false;
};

struct RunStart
{
    std::string experiment = "Default";
    std::string name; // empty: "run-N"
    std::string parentRun;
    std::string commandLine;
    int64_t pid = 0; // 0: this process
    RunStatus status = RunStatus::Running;
};

struct MetricPoint
{
    int64_t step = 0;
    int64_t wallMs = 0;
    double value = 0; // NaN for a non-finite logged value
};

struct MetricSeries
{
    std::string key;
    std::string context;
    int64_t totalPoints = 0; // in the store
    bool downsampled = false;
    std::vector<MetricPoint> points; // by step
};

struct LatestMetric
{
    std::string runId;
    std::string key;
    std::string context;
    int64_t step = 0;
    int64_t wallMs = 0;
    double value = 0;
};

struct GraphMetricRecord
{
    std::string graph; // as registered (relative to the project folder, or absolute when outside it)
    int64_t step = 0;
    int64_t configs = 0;
    double kendallTau = 0, opa = 0, top5Slowdown = 0, tileScore = 0; // NaN when not defined
};

struct PredictionRecord
{
    int64_t config = 0;
    double score = 0;
    int64_t runtimeNs = 0; // 0 when unknown
};

struct ArtifactRecord
{
    std::string kind; // "checkpoint", "weights", "log", "predictions", ...
    std::string path; // relative to the project folder
    int64_t step = 0;
    int64_t createdMs = 0;
};

class Project
{
public:
    static constexpr int kSchemaVersion = 2; // 2: sweeps (docs/store.md §2, §9)
    static constexpr int64_t kApplicationId = 0x54475052; // "TGPR" in the SQLite header
    static constexpr int64_t kStaleHeartbeatMs = 30000;

    enum class Access { Read, Write };

    // A new, empty project; InputError when the file exists or cannot be created.
    static Project create(const std::string& path);
    // An existing project. Refused with an InputError naming the file, without modifying it: not an
    // SQLite file, another application's database, a truncated file, a schema newer than this build,
    // a damaged file (PRAGMA quick_check at the first open in this process of a file it did not
    // create: refused, not opened read-only; docs/store.md §2). Write access migrates an older
    // schema forward (only writers do) and marks crashed runs.
    static Project open(const std::string& path, Access access);
    // Write access; creates the file when it does not exist.
    static Project openOrCreate(const std::string& path);

    Project(Project&&) noexcept;
    Project& operator=(Project&&) noexcept;
    ~Project();

    const std::string& path() const { return m_path; }
    std::string folder() const; // the directory holding the project file
    std::string dataDir() const; // NAME.tgproj.d: runs' files
    // NAME.tgproj.d/runs/<id>, where the run's files are written, read and deleted. InputError
    // naming the project file, the run and the problem when `runId` is not a run id (isRunId) or
    // the folder, with symbolic links resolved (weakly_canonical), is not inside the data folder's
    // runs/ (a run folder that is a symbolic link leading elsewhere).
    std::string runDir(const std::string& runId) const;
    // A file path the project stores (a run's checkpoint, an artifact: relative to folder()), as
    // an absolute canonical path inside dataDir(). InputError naming the project file, `what`
    // (e.g. "run 1a2b3c4d checkpoint") and the problem when it leads elsewhere: `..`, an absolute
    // path, a symbolic link out of the data folder. Every file a run writes is in the data folder.
    std::string dataPath(const std::string& stored, const std::string& what) const;
    int schemaVersion() const;

    // ---- writing ----
    int64_t experimentId(const std::string& name); // created when missing
    std::string startRun(const RunStart& start);
    // Terminal states set end_ms; `message` says why (may be empty).
    void setRunStatus(const std::string& runId, RunStatus status, const std::string& message = {});
    // A new process takes the run over (resume): RUNNING, its pid/host, a fresh heartbeat.
    void adoptRun(const std::string& runId, int64_t pid, const std::string& commandLine);
    void heartbeat(const std::string& runId);
    // Drops what the run (and its folds) recorded after `step`: a run resumed from a checkpoint
    // at `step` continues from there, and the steps a crash left behind are not mixed into its
    // curves (TensorBoard's "orphaned data").
    void truncateRun(const std::string& runId, int64_t step);
    void setCheckpoint(const std::string& runId, const std::string& path, int64_t step);
    // Write-once: setting a key again to another value is an InputError (same value: no-op).
    void setParams(const std::string& runId, const std::vector<std::pair<std::string, std::string>>& params);
    void setTag(const std::string& runId, const std::string& key, const std::string& value);
    // `path` absolute or relative to the working directory; stored relative to the project folder.
    void addArtifact(const std::string& runId, const std::string& kind, const std::string& path, int64_t step);
    // The run's rows and its folder under dataDir(); its fold runs too. Every folder is checked
    // (runDir) before anything is deleted, and a symbolic link is removed, never followed.
    void deleteRun(const std::string& runId);
    // RUNNING runs whose process is gone: on this host, at once when its pid no longer runs (or now
    // belongs to a process with another start time); on another host (or without a pid), when the
    // heartbeat is older than `staleMs`. They become CRASHED with end_ms = the last heartbeat.
    // Returns how many were marked (docs/store.md §5).
    int markCrashedRuns(int64_t staleMs = kStaleHeartbeatMs);
    // A graph file the project refers to (evaluations, predictions); returns its id.
    int64_t graphId(const std::string& path, const std::string& collection = {});

    // ---- reading ----
    std::vector<std::string> experiments() const;
    // Newest first. A RUNNING run of this host whose process is gone reads as CRASHED
    // (crashNotRecorded set) on any connection, read-only ones too (docs/store.md §5).
    std::vector<RunRecord> runs(const std::string& experiment = {}) const;
    // By id, unique id prefix (>= 4 digits) or unique name; nullopt when none or ambiguous. Reads
    // a run of this host whose process is gone as CRASHED, as runs() does.
    std::optional<RunRecord> findRun(const std::string& idPrefixOrName) const;
    std::map<std::string, std::string> params(const std::string& runId) const;
    std::map<std::string, std::string> tags(const std::string& runId) const;
    std::vector<ArtifactRecord> artifacts(const std::string& runId) const;
    std::vector<std::string> metricKeys(const std::string& runId) const; // "context/key"
    // The latest value of every metric of the given runs (all runs when empty).
    std::vector<LatestMetric> latestMetrics(const std::vector<std::string>& runIds = {}) const;
    // One metric's history by step. maxPoints > 0 downsamples to about that many points, keeping
    // each bucket's first, minimum, maximum and last point (spikes stay visible in plots).
    MetricSeries metricHistory(
        const std::string& runId, const std::string& key, const std::string& context, int64_t maxPoints = 0) const;
    // Per-graph evaluation at `step` (-1: the latest evaluated step).
    std::vector<GraphMetricRecord> graphMetrics(const std::string& runId, int64_t step = -1) const;
    // `graph` as graphMetrics() reports it, or a path relative to the working directory.
    std::vector<PredictionRecord> predictions(const std::string& runId, int64_t step, const std::string& graph) const;
    // The graphs (as graphMetrics() reports them) with predictions of the run at `step`, by path.
    std::vector<std::string> predictedGraphs(const std::string& runId, int64_t step) const;

    // ---- the processes of runs ----
    // Whether the process that records the run still runs: its pid is alive on this host and, when
    // the process's start time was recorded, has that start time (a recycled pid is another
    // process). False for an unknown run or one without a pid; true for a run of another host,
    // which this host cannot check (`tgraph runs stop` refuses those).
    bool runProcessAlive(const std::string& runId) const;

    // Path helpers. relativePath throws InputError when `path` leaves the project folder.
    // absolutePath resolves a stored graph path (graphMetrics(), predictedGraphs()): graphs are
    // the user's data and may be anywhere; they are only read. Files of runs: dataPath().
    std::string relativePath(const std::string& path) const;
    std::string absolutePath(const std::string& relative) const;

    // The connection, for the store's own sources (core/store/sweeps.cpp) and tests.
    SqliteDb& db() const { return *m_db; }

private:
    Project(std::string path, std::unique_ptr<SqliteDb> db, Access access);
    void requireWrite(const char* what) const;
    void requireRunId(const std::string& runId) const;
    // Graph files: relative to the project folder when inside it, else absolute.
    std::string storedGraphPath(const std::string& path) const;

    std::string m_path;
    std::unique_ptr<SqliteDb> m_db;
    Access m_access = Access::Read;
};

// Time helpers shared by the writers.
int64_t nowMs();
std::string hostName();
// This process's start time in clock ticks since boot (/proc/self/stat field 22), to tell a live
// run from a recycled pid; 0 when unknown.
int64_t processStartTicks(int64_t pid);
// Whether the process `pid` of this host, started at `startTicks` (0: not recorded), is gone: no
// such process (kill(pid, 0) fails with ESRCH), a zombie, or the pid now belongs to a process
// that started at another time (a recycled pid). False for pid <= 0 (nothing to check).
bool localProcessGone(int64_t pid, int64_t startTicks);

} // namespace tgraph
