// SPDX-License-Identifier: Apache-2.0
#include "core/store/runwriter.h"

#include "core/util/error.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <unistd.h>

namespace tgraph {

RunWriter::RunWriter(const std::string& projectPath, std::string runId, RunWriterOptions options)
    : m_project(Project::open(projectPath, Project::Access::Write))
    , m_runId(std::move(runId))
    , m_options(options)
{
    if (!m_project.findRun(m_runId) || m_project.findRun(m_runId)->id != m_runId)
        throw InputError(projectPath, "run " + m_runId, "no such run");
    m_lastFlushMs = nowMs();
    m_heartbeat = std::thread([this] { heartbeatLoop(); });
}

RunWriter::~RunWriter()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    if (m_heartbeat.joinable())
        m_heartbeat.join();
    try {
        flush();
    } catch (const std::exception&) {
        // the process is ending; the rows committed so far are what the project keeps
    }
}

void RunWriter::heartbeatLoop()
{
    // Its own connection: SQLite connections are not shared between threads here.
    std::unique_ptr<SqliteDb> db;
    try {
        db = std::make_unique<SqliteDb>(m_project.path(), SqliteDb::Mode::ReadWrite);
        db->setBusyTimeout(10000);
    } catch (const std::exception&) {
        return;
    }
    std::unique_lock lock(m_mutex);
    while (!m_stop) {
        lock.unlock();
        try {
            SqliteStatement s(
                *db, "UPDATE runs SET heartbeat_ms = ?2 WHERE status = 'RUNNING' AND (id = ?1 OR parent_run = ?1)");
            s.bind(1, m_runId).bind(2, nowMs()).run();
        } catch (const std::exception&) {
            // a full disk or a locked file: the next beat tries again; the run itself reports errors
        }
        lock.lock();
        m_wake.wait_for(lock, std::chrono::milliseconds(m_options.heartbeatMs), [this] { return m_stop; });
    }
}

std::string RunWriter::runFor(int fold)
{
    if (fold < 0)
        return m_runId;
    auto it = m_foldRuns.find(fold);
    if (it != m_foldRuns.end())
        return it->second;
    const std::string name = "fold-" + std::to_string(fold);
    for (const RunRecord& r : m_project.runs())
        if (r.parentRun == m_runId && r.name == name) { // a resumed run continues its folds
            m_foldRuns[fold] = r.id;
            if (r.status != RunStatus::Running)
                m_project.adoptRun(r.id, int64_t(getpid()), {});
            return r.id;
        }
    RunStart start;
    start.experiment = m_project.findRun(m_runId)->experiment;
    start.name = name;
    start.parentRun = m_runId;
    const std::string id = m_project.startRun(start);
    m_foldRuns[fold] = id;
    return id;
}

void RunWriter::logMetric(const std::string& key, int64_t step, double value, const std::string& context, int fold)
{
    m_buffer.push_back({ runFor(fold), key, context, step, nowMs(), value });
    maybeFlush();
}

void RunWriter::stepMetrics(const StepMetrics& m)
{
    const std::string run = runFor(m.fold);
    const int64_t now = nowMs();
    for (const auto& [key, value] : std::initializer_list<std::pair<const char*, double>> { { "loss", m.loss },
             { "lr", m.learningRate }, { "grad_norm", m.gradNorm }, { "tokens_per_s", m.tokensPerSecond },
             { "steps_per_s", m.stepsPerSecond }, { "epoch", m.epoch }, { "skipped_steps", double(m.skippedTotal) } })
        m_buffer.push_back({ run, key, "train", m.step, now, value });
    maybeFlush();
}

void RunWriter::evalMetrics(const EvalMetrics& m)
{
    const std::string run = runFor(m.fold);
    const int64_t now = nowMs();
    for (const auto& [key, value] : std::initializer_list<std::pair<const char*, double>> { { "tau", m.meanTau },
             { "opa", m.meanOpa }, { "top5_slowdown", m.meanTop5Slowdown }, { "tile_score", m.meanTileScore },
             { "top1_slowdown", m.meanTop1Slowdown }, { "ape", m.ape }, { "eval_seconds", m.seconds } })
        if (!((std::string(key) == "tile_score" || std::string(key) == "ape") && std::isnan(value)))
            m_buffer.push_back({ run, key, "valid", m.step, now, value });
    // Graph ids are looked up (and registered) before the transaction.
    std::vector<int64_t> graphIds;
    for (const GraphEvalMetrics& g : m.graphs)
        graphIds.push_back(m_project.graphId(g.graph));
    SqliteDb& db = m_project.db();
    SqliteTransaction t(db);
    m_series.clear(); // a failure below rolls back series rows created here
    writeRows(m_buffer);
    SqliteStatement s(db,
        "INSERT OR REPLACE INTO graph_metrics(run_id, step, graph_id, configs, kendall_tau, opa, top5_slowdown, "
        "tile_score) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    for (size_t k = 0; k < m.graphs.size(); ++k) {
        const GraphEvalMetrics& g = m.graphs[k];
        s.bind(1, run).bind(2, m.step).bind(3, graphIds[k]).bind(4, g.configs).bind(5, g.kendallTau);
        s.bind(6, g.opa).bind(7, g.top5Slowdown).bind(8, g.tileScore).run();
        ++m_rowsWritten;
    }
    if (m.best) {
        SqliteStatement tag(db,
            "INSERT INTO tags(run_id, key, value) VALUES (?1, ?2, ?3) "
            "ON CONFLICT(run_id, key) DO UPDATE SET value = excluded.value");
        tag.bind(1, run).bind(2, "best_step").bind(3, std::to_string(m.step)).run();
        tag.bind(1, run).bind(2, "best_tau").bind(3, std::to_string(m.meanTau)).run();
    }
    t.commit();
    m_buffer.clear();
    m_lastFlushMs = now;
}

void RunWriter::runEvent(const RunEvent& e)
{
    const std::string run = runFor(e.fold);
    flush();
    switch (e.kind) {
    case RunEventKind::Checkpoint:
        m_project.setCheckpoint(run, e.path, e.step);
        break;
    case RunEventKind::Finished:
        m_project.setRunStatus(run, RunStatus::Finished, e.message);
        break;
    case RunEventKind::Stopped:
        m_project.setRunStatus(run, RunStatus::Killed, e.message);
        break;
    case RunEventKind::Warning:
        m_project.setTag(run, "last_warning", e.message);
        break;
    case RunEventKind::Started:
        m_project.setTag(run, "started", e.message);
        break;
    case RunEventKind::Worker:
        m_project.setTag(run, e.path, e.message);
        break;
    case RunEventKind::Info:
        break;
    }
}

void RunWriter::predictions(int64_t step, const std::string& graph, const std::vector<double>& scores,
    const std::vector<int64_t>& runtimes, int fold, const std::vector<int64_t>& configIds)
{
    if (!configIds.empty() && configIds.size() != scores.size())
        throw std::invalid_argument("RunWriter::predictions: config ids and scores differ in length");
    const std::string run = runFor(fold);
    const int64_t graphKey = m_project.graphId(graph);
    SqliteDb& db = m_project.db();
    SqliteTransaction t(db);
    SqliteStatement s(db,
        "INSERT OR REPLACE INTO predictions(run_id, step, graph_id, config, score, runtime_ns) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    for (size_t c = 0; c < scores.size(); ++c) {
        s.bind(1, run)
            .bind(2, step)
            .bind(3, graphKey)
            .bind(4, configIds.empty() ? int64_t(c) : configIds[c])
            .bind(5, scores[c]);
        s.bind(6, c < runtimes.size() ? runtimes[c] : int64_t(0)).run();
    }
    t.commit();
    m_rowsWritten += int64_t(scores.size());
}

void RunWriter::maybeFlush()
{
    if (nowMs() - m_lastFlushMs >= m_options.flushIntervalMs)
        flush();
}

void RunWriter::flush()
{
    m_lastFlushMs = nowMs();
    if (m_buffer.empty())
        return;
    try {
        SqliteTransaction t(m_project.db());
        writeRows(m_buffer);
        t.commit();
    } catch (...) {
        m_series.clear(); // rolled back: the cached series rows and steps may not exist
        throw;
    }
    m_buffer.clear();
}

RunWriter::SeriesState& RunWriter::seriesFor(const std::string& run, const std::string& key, const std::string& context)
{
    const std::string name = run + '\x1f' + key + '\x1f' + context;
    auto it = m_series.find(name);
    if (it != m_series.end())
        return it->second;
    SqliteDb& db = m_project.db();
    SqliteStatement insert(db, "INSERT OR IGNORE INTO series(run_id, key, context) VALUES (?1, ?2, ?3)");
    insert.bind(1, run).bind(2, key).bind(3, context).run();
    SqliteStatement find(db, "SELECT id, last_step FROM series WHERE run_id = ?1 AND key = ?2 AND context = ?3");
    find.bind(1, run).bind(2, key).bind(3, context).step();
    SeriesState state;
    state.id = find.int64(0);
    state.lastStep = find.isNull(1) ? std::numeric_limits<int64_t>::min() : find.int64(1);
    return m_series.emplace(name, state).first->second;
}

void RunWriter::writeRows(const std::vector<Row>& rows)
{
    if (rows.empty())
        return;
    SqliteDb& db = m_project.db();
    SqliteStatement insert(db,
        "INSERT INTO metrics(series, step, ts_ms, value) VALUES (?1, ?2, ?3, ?4) ON CONFLICT(series, step) DO UPDATE "
        "SET ts_ms = excluded.ts_ms, value = excluded.value");
    SqliteStatement exists(db, "SELECT 1 FROM metrics WHERE series = ?1 AND step = ?2");
    struct Touched
    {
        int64_t added = 0;
        int64_t firstStep = std::numeric_limits<int64_t>::max();
        const Row* latest = nullptr;
    };
    std::map<int64_t, Touched> touched;
    for (const Row& r : rows) {
        SeriesState& series = seriesFor(r.run, r.key, r.context);
        bool added = r.step > series.lastStep;
        if (!added) { // an earlier step again (rare: a resumed run): count it only when new
            exists.bind(1, series.id).bind(2, r.step);
            added = !exists.step();
            exists.reset();
        }
        insert.bind(1, series.id).bind(2, r.step).bind(3, r.wallMs);
        insert.bind(4, std::isfinite(r.value) ? r.value : std::nan("")).run();
        Touched& t = touched[series.id];
        t.added += added;
        t.firstStep = std::min(t.firstStep, r.step);
        if (r.step >= series.lastStep) {
            series.lastStep = r.step;
            t.latest = &r;
        }
    }
    SqliteStatement update(db,
        "UPDATE series SET points = points + ?2, first_step = min(coalesce(first_step, ?3), ?3), "
        "last_step = coalesce(?4, last_step), last_ts_ms = coalesce(?5, last_ts_ms), "
        "last_value = CASE WHEN ?4 IS NULL THEN last_value ELSE ?6 END WHERE id = ?1");
    for (const auto& [id, t] : touched) {
        update.bind(1, id).bind(2, t.added).bind(3, t.firstStep);
        if (t.latest) {
            update.bind(4, t.latest->step).bind(5, t.latest->wallMs);
            update.bind(6, std::isfinite(t.latest->value) ? t.latest->value : std::nan(""));
        }
        update.run();
    }
    m_rowsWritten += int64_t(rows.size());
}

void RunWriter::finish(RunStatus status, const std::string& message)
{
    flush();
    for (const auto& [fold, id] : m_foldRuns) {
        const auto r = m_project.findRun(id);
        if (r && !isTerminal(r->status))
            m_project.setRunStatus(id, status, message);
    }
    m_project.setRunStatus(m_runId, status, message);
}

void RunWriter::finishRun(const std::string& runId, RunStatus status, const std::string& message)
{
    flush();
    m_project.setRunStatus(runId, status, message);
}

} // namespace tgraph
