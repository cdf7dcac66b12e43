// SPDX-License-Identifier: Apache-2.0
#include "core/store/sweeps.h"

#include "core/util/error.h"
#include "core/util/json.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace tgraph {

namespace {

bool hasSweepTable(const Project& project) { return project.schemaVersion() >= 2; }

std::string argumentsJson(const std::vector<std::string>& arguments)
{
    Json list = Json::array();
    for (const std::string& a : arguments)
        list.push_back(a);
    return jsonText(list, true);
}

std::vector<std::string> argumentsFrom(const Project& project, const std::string& runId, const std::string& text)
{
    std::vector<std::string> out;
    try {
        const Json list = parseJson(text);
        if (!list.is_array())
            throw std::runtime_error("not a list");
        for (const Json& a : list)
            out.push_back(jsonStringValue(a, "an argument"));
    } catch (const std::exception& e) {
        throw InputError(project.path(), "run " + runId + " sweep arguments", e.what());
    }
    return out;
}

} // namespace

std::string createSweep(Project& project, const RunStart& sweep,
    const std::vector<std::pair<std::string, std::string>>& params, const std::vector<SweepRunPlan>& plans)
{
    if (plans.empty())
        throw InputError(project.path(), "sweep", "has no run to queue");
    const std::string id = project.startRun(sweep);
    SqliteDb& db = project.db();
    try {
        project.setParams(id, params);
        SqliteTransaction t(db);
        const int64_t experiment = project.experimentId(sweep.experiment.empty() ? "Default" : sweep.experiment);
        SqliteStatement run(db,
            "INSERT INTO runs(id, experiment_id, name, parent_run, status, start_ms, cmdline) "
            "VALUES (?1, ?2, ?3, ?4, 'PENDING', ?5, ?6)");
        SqliteStatement row(db,
            "INSERT INTO sweep_runs(run_id, sweep_id, position, config, config_text, seed, arguments) "
            "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
        const int64_t now = nowMs();
        for (size_t i = 0; i < plans.size(); ++i) {
            const SweepRunPlan& plan = plans[i];
            const std::string child = newRunId();
            const std::string name = "c" + std::to_string(plan.config) + "-s" + std::to_string(plan.seed);
            run.bind(1, child).bind(2, experiment).bind(3, name).bind(4, id).bind(5, now).bind(6, "").run();
            run.reset();
            row.bind(1, child).bind(2, id).bind(3, int64_t(i)).bind(4, plan.config).bind(5, plan.configText);
            row.bind(6, plan.seed).bind(7, argumentsJson(plan.arguments)).run();
            row.reset();
        }
        t.commit();
    } catch (...) {
        try {
            project.deleteRun(id); // nothing half-made: no sweep without its queue
        } catch (const std::exception&) {
        }
        throw;
    }
    return id;
}

bool isSweep(const Project& project, const std::string& runId)
{
    if (!hasSweepTable(project))
        return false;
    SqliteStatement s(project.db(), "SELECT 1 FROM sweep_runs WHERE sweep_id = ?1 LIMIT 1");
    s.bind(1, runId);
    return s.step();
}

std::vector<std::string> sweepIds(const Project& project)
{
    std::vector<std::string> out;
    if (!hasSweepTable(project))
        return out;
    SqliteStatement s(project.db(),
        "SELECT r.id FROM runs r WHERE EXISTS (SELECT 1 FROM sweep_runs w WHERE w.sweep_id = r.id) "
        "ORDER BY r.start_ms DESC, r.rowid DESC");
    while (s.step()) {
        const std::string id = s.text(0);
        if (!isRunId(id))
            throw InputError(project.path(), "sweep " + id, "not a run id");
        out.push_back(id);
    }
    return out;
}

std::vector<SweepRunRecord> sweepRuns(const Project& project, const std::string& sweepId)
{
    std::vector<SweepRunRecord> out;
    if (!hasSweepTable(project))
        return out;
    SqliteStatement s(project.db(),
        "SELECT run_id, position, config, config_text, seed, arguments, attempts FROM sweep_runs "
        "WHERE sweep_id = ?1 ORDER BY position");
    s.bind(1, sweepId);
    while (s.step()) {
        SweepRunRecord r;
        r.runId = s.text(0);
        if (!isRunId(r.runId))
            throw InputError(project.path(), "sweep " + sweepId + " run " + r.runId, "not a run id");
        r.position = s.int64(1);
        r.config = s.int64(2);
        r.configText = s.text(3);
        r.seed = s.int64(4);
        r.arguments = argumentsFrom(project, r.runId, s.text(5));
        r.attempts = s.int64(6);
        out.push_back(std::move(r));
    }
    return out;
}

std::string nextQueuedRun(const Project& project, const std::string& sweepId)
{
    if (!hasSweepTable(project))
        return {};
    SqliteStatement s(project.db(),
        "SELECT w.run_id FROM sweep_runs w JOIN runs r ON r.id = w.run_id WHERE w.sweep_id = ?1 AND "
        "r.status = 'PENDING' ORDER BY w.position LIMIT 1");
    s.bind(1, sweepId);
    if (!s.step())
        return {};
    const std::string id = s.text(0);
    if (!isRunId(id))
        throw InputError(project.path(), "sweep " + sweepId + " run " + id, "not a run id");
    return id;
}

bool claimSweepRun(Project& project, const std::string& runId, int64_t pid, const std::string& commandLine)
{
    SqliteDb& db = project.db();
    SqliteTransaction t(db);
    const int64_t now = nowMs();
    SqliteStatement s(db,
        "UPDATE runs SET status = 'RUNNING', start_ms = ?2, heartbeat_ms = ?2, end_ms = NULL, pid = ?3, "
        "pid_start = ?4, host = ?5, cmdline = ?6, message = NULL WHERE id = ?1 AND status = 'PENDING'");
    s.bind(1, runId).bind(2, now).bind(3, pid).bind(4, processStartTicks(pid)).bind(5, hostName());
    s.bind(6, commandLine).run();
    if (db.changes() == 0)
        return false;
    SqliteStatement a(db, "UPDATE sweep_runs SET attempts = attempts + 1 WHERE run_id = ?1");
    a.bind(1, runId).run();
    t.commit();
    return true;
}

std::string sweepRunCheckpoint(const Project& project, const std::string& runId)
{
    const fs::path last = fs::path(project.runDir(runId)) / "last.npz"; // runDir: confined to the project
    std::error_code ec;
    return fs::is_regular_file(last, ec) ? last.string() : std::string();
}

bool requeueSweepRun(Project& project, const std::string& runId)
{
    const std::string dir = project.runDir(runId); // checked before anything changes
    const bool continues = !sweepRunCheckpoint(project, runId).empty();
    SqliteDb& db = project.db();
    {
        SqliteTransaction t(db);
        SqliteStatement look(db,
            "SELECT r.status FROM runs r JOIN sweep_runs w ON w.run_id = r.id WHERE r.id = ?1");
        look.bind(1, runId);
        if (!look.step())
            throw InputError(project.path(), "run " + runId, "is no child run of a sweep");
        const std::string status = look.text(0);
        if (status != "KILLED" && status != "CRASHED")
            throw InputError(project.path(), "run " + runId,
                "is " + status + "; only an interrupted (KILLED or CRASHED) child run is queued again");
        if (continues) {
            SqliteStatement s(db,
                "UPDATE runs SET status = 'PENDING', end_ms = NULL, heartbeat_ms = NULL, pid = NULL, "
                "pid_start = NULL, host = NULL, message = 'queued again after ' || lower(status) || "
                "'; continues from its checkpoint' WHERE id = ?1");
            s.bind(1, runId).run();
            t.commit();
            return true;
        }
        for (const char* sql : { "DELETE FROM metrics WHERE series IN (SELECT id FROM series WHERE run_id = ?1)",
                 "DELETE FROM series WHERE run_id = ?1", "DELETE FROM graph_metrics WHERE run_id = ?1",
                 "DELETE FROM predictions WHERE run_id = ?1", "DELETE FROM params WHERE run_id = ?1",
                 "DELETE FROM tags WHERE run_id = ?1", "DELETE FROM artifacts WHERE run_id = ?1",
                 // fold runs a child may have made (the sweep refuses --folds; a crafted row would not)
                 "DELETE FROM runs WHERE parent_run = ?1",
                 "UPDATE runs SET status = 'PENDING', end_ms = NULL, heartbeat_ms = NULL, pid = NULL, "
                 "pid_start = NULL, host = NULL, resumed_from = NULL, checkpoint = NULL, "
                 "message = 'queued again after ' || lower(status) WHERE id = ?1" }) {
            SqliteStatement s(db, sql);
            s.bind(1, runId).run();
        }
        t.commit();
    }
    std::error_code ec;
    fs::remove_all(dir, ec); // after the rows: a crash between leaves files, which the new start overwrites
    return false;
}

} // namespace tgraph
