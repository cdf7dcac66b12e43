// SPDX-License-Identifier: Apache-2.0
#pragma once

// Records one training run into a project file as the trainer reports it (a TrainingSink): step
// metrics are buffered and written in one transaction per flush interval, evaluations and events
// at once, with a heartbeat from a background thread so that a dead process can be told from a
// slow one. Cross-validation folds become child runs of the run (created on first use).

#include "core/store/project.h"
#include "core/train/trainingevents.h"

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tgraph {

struct RunWriterOptions
{
    int64_t flushIntervalMs = 1000; // buffered step metrics are committed at least this often
    int64_t heartbeatMs = 5000;
};

class RunWriter final : public TrainingSink
{
public:
    // Opens its own connection to `projectPath` (write access) for run `runId`, which must exist.
    RunWriter(const std::string& projectPath, std::string runId, RunWriterOptions options = {});
    // Flushes; the status stays as it is (a run destroyed without finish() is still RUNNING and
    // becomes CRASHED once its process is gone; docs/store.md §5).
    ~RunWriter() override;
    RunWriter(const RunWriter&) = delete;
    RunWriter& operator=(const RunWriter&) = delete;

    void stepMetrics(const StepMetrics& m) override;
    void evalMetrics(const EvalMetrics& m) override;
    void runEvent(const RunEvent& e) override;

    // Any other series (context "train", "valid", "system", ...), buffered like step metrics.
    void logMetric(
        const std::string& key, int64_t step, double value, const std::string& context = "train", int fold = -1);
    // Scores (and runtimes when known, else 0) of the configs of one graph at `step`: row i is
    // config configIds[i] (config i when configIds is empty, i.e. every config of the graph).
    void predictions(int64_t step, const std::string& graph, const std::vector<double>& scores,
        const std::vector<int64_t>& runtimes, int fold = -1, const std::vector<int64_t>& configIds = {});
    void flush();
    // Final status of the run (and of its fold runs that are still running).
    void finish(RunStatus status, const std::string& message = {});
    // Final status of one run this writer records (a fold run of another process's run), after a flush.
    void finishRun(const std::string& runId, RunStatus status, const std::string& message = {});

    Project& project() { return m_project; }
    const std::string& runId() const { return m_runId; }
    // The run that receives fold `fold`'s records: the run itself for -1, else its child run.
    std::string runFor(int fold);
    int64_t rowsWritten() const { return m_rowsWritten; }

private:
    struct Row
    {
        std::string run;
        std::string key;
        std::string context;
        int64_t step;
        int64_t wallMs;
        double value;
    };
    struct SeriesState
    {
        int64_t id = 0;
        int64_t lastStep = 0;
    };
    SeriesState& seriesFor(const std::string& run, const std::string& key, const std::string& context);
    void writeRows(const std::vector<Row>& rows); // inside a transaction
    void maybeFlush();
    void heartbeatLoop();

    Project m_project;
    std::string m_runId;
    RunWriterOptions m_options;
    std::vector<Row> m_buffer;
    int64_t m_lastFlushMs = 0;
    int64_t m_rowsWritten = 0;
    std::map<int, std::string> m_foldRuns;
    std::map<std::string, SeriesState> m_series; // run, key, context -> its row

    std::thread m_heartbeat;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stop = false;
};

} // namespace tgraph
