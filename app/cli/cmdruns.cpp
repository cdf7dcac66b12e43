// SPDX-License-Identifier: Apache-2.0
// `tgraph runs list|show|stop|resume|delete|export --project P.tgproj`: the runs of a project file.
#include "argparser.h"
#include "commands.h"
#include "sharedoptions.h"

#include "core/store/project.h"
#include "core/store/sweeps.h"
#include "core/util/atomicfile.h"
#include "core/util/error.h"
#include "core/util/format.h"
#include "core/util/terminaltext.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <thread>
#include <unistd.h>

namespace tgraph::cli {

namespace {

namespace fs = std::filesystem;

std::string formatTime(int64_t ms)
{
    if (ms <= 0)
        return "-";
    const std::time_t t = std::time_t(ms / 1000);
    std::tm tm {};
    localtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
    return buf;
}

std::string formatElapsed(int64_t ms)
{
    if (ms < 0)
        return "-";
    const int64_t s = ms / 1000;
    char buf[32];
    if (s >= 3600)
        std::snprintf(buf, sizeof buf, "%lldh%02lldm", (long long)(s / 3600), (long long)(s / 60 % 60));
    else
        std::snprintf(buf, sizeof buf, "%lldm%02llds", (long long)(s / 60), (long long)(s % 60));
    return buf;
}

RunRecord requireRun(const Project& project, const std::string& key)
{
    if (key.empty())
        throw InputError(project.path(), "", "name the run: an id, a unique id prefix (4+ digits) or a unique name");
    const auto run = project.findRun(key);
    if (!run)
        throw InputError(project.path(), "run " + key, "no such run, or the prefix or name is ambiguous");
    return *run;
}

// A file path the run stored, for display: absolute inside the project's data folder, else not
// the path (a crafted project may store any text) but why it is not used.
std::string shownPath(const Project& project, const std::string& stored, const std::string& what)
{
    try {
        return project.dataPath(stored, what);
    } catch (const InputError& e) {
        return "(not used: " + e.problem() + ")";
    }
}

double latest(const std::vector<LatestMetric>& metrics, const std::string& run, const char* key, const char* context)
{
    for (const LatestMetric& m : metrics)
        if (m.runId == run && m.key == key && m.context == context)
            return m.value;
    return std::nan("");
}

// What a project stores, for the terminal: a crafted name or message cannot move the cursor,
// recolour or rewrite lines, or split a row (core/util/format.h, terminalText).
std::string shown(const std::string& text) { return terminalText(text); }

std::string number(double v, const char* format = "%.4g")
{
    if (std::isnan(v))
        return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

int list(Project& project, const ArgParser& p)
{
    const std::vector<RunRecord> runs = project.runs(p.value("--experiment"));
    const auto metrics = project.latestMetrics();
    if (runs.empty()) {
        std::printf("no runs in %s\n", shown(project.path()).c_str());
        return ExitOk;
    }
    std::printf("%-10s %-16s %-14s %-9s %-19s %-8s %9s %9s %8s\n", "ID", "EXPERIMENT", "NAME", "STATUS", "STARTED",
        "TIME", "STEP", "LOSS", "TAU");
    for (const RunRecord& r : runs) {
        const int64_t step = r.lastStep; // what the project records: metrics and checkpoints
        const int64_t end = r.endMs > 0 ? r.endMs : (isTerminal(r.status) ? r.heartbeatMs : nowMs());
        const std::string name = r.parentRun.empty() ? shown(r.name) : "  " + shown(r.name);
        std::printf("%-10s %-16.16s %-14.14s %-9s %-19s %-8s %9lld %9s %8s\n", r.id.substr(0, 8).c_str(),
            shown(r.experiment).c_str(), name.c_str(), runStatusName(r.status), formatTime(r.startMs).c_str(),
            formatElapsed(end - r.startMs).c_str(), (long long)step,
            number(latest(metrics, r.id, "loss", "train")).c_str(),
            number(latest(metrics, r.id, "tau", "valid"), "%.4f").c_str());
    }
    return ExitOk;
}

int show(Project& project, const ArgParser& p)
{
    const RunRecord r = requireRun(project, p.positionals().size() > 1 ? p.positionals()[1] : std::string());
    std::printf("run          %s\nname         %s\nexperiment   %s\nstatus       %s%s%s\n", r.id.c_str(),
        shown(r.name).c_str(), shown(r.experiment).c_str(), runStatusName(r.status), r.message.empty() ? "" : " - ",
        shown(r.message).c_str());
    if (!r.parentRun.empty())
        std::printf("%s%s\n", isSweep(project, r.parentRun) ? "run of sweep " : "fold of      ", shown(r.parentRun).c_str());
    std::printf("step         %lld\n", (long long)r.lastStep);
    std::printf("started      %s\nended        %s\nheartbeat    %s\nprocess      %lld on %s\ncommand      %s\n",
        formatTime(r.startMs).c_str(), formatTime(r.endMs).c_str(), formatTime(r.heartbeatMs).c_str(), (long long)r.pid,
        shown(r.host).c_str(), shown(r.commandLine).c_str());
    if (!r.resumedFrom.empty())
        std::printf("resumed      yes (appends to this run)\n");
    if (!r.checkpoint.empty())
        std::printf(
            "checkpoint   %s\n", shown(shownPath(project, r.checkpoint, "run " + r.id + " checkpoint")).c_str());
    const auto params = project.params(r.id);
    if (!params.empty()) {
        std::printf("params\n");
        for (const auto& [k, v] : params)
            std::printf("  %-24s %s\n", shown(k).c_str(), shown(v).c_str());
    }
    const auto tags = project.tags(r.id);
    if (!tags.empty()) {
        std::printf("tags\n");
        for (const auto& [k, v] : tags)
            std::printf("  %-24s %s\n", shown(k).c_str(), shown(v).c_str());
    }
    const auto metrics = project.latestMetrics({ r.id });
    if (!metrics.empty()) {
        std::printf("latest metrics\n");
        for (const LatestMetric& m : metrics) {
            const MetricSeries s = project.metricHistory(r.id, m.key, m.context, 1);
            std::printf("  %-6s %-16s %12s  at step %lld (%lld points)\n", shown(m.context).c_str(), shown(m.key).c_str(),
                number(m.value, "%.6g").c_str(), (long long)m.step, (long long)s.totalPoints);
        }
    }
    const auto graphs = project.graphMetrics(r.id);
    if (!graphs.empty()) {
        std::printf("validation graphs at step %lld\n", (long long)graphs.front().step);
        for (const GraphMetricRecord& g : graphs)
            std::printf("  %-40s configs %6lld  tau %8s  opa %8s  top-5 slowdown %8s\n",
                shown(fs::path(g.graph).filename()).c_str(), (long long)g.configs, number(g.kendallTau, "%.4f").c_str(),
                number(g.opa, "%.4f").c_str(), number(g.top5Slowdown, "%.4f").c_str());
    }
    for (const RunRecord& fold : project.runs())
        if (fold.parentRun == r.id)
            std::printf(
                "fold run     %s %s %s\n", fold.id.substr(0, 8).c_str(), shown(fold.name).c_str(), runStatusName(fold.status));
    for (const ArtifactRecord& a : project.artifacts(r.id))
        std::printf("artifact     %-10s step %-8lld %s\n", shown(a.kind).c_str(), (long long)a.step,
            shown(shownPath(project, a.path, "run " + r.id + " artifact")).c_str());
    return ExitOk;
}

// SIGTERM asks the trainer to finish its step, write a checkpoint and stop (status KILLED); after
// the timeout SIGKILL, and the run is marked KILLED here.
int stop(Project& project, const ArgParser& p)
{
    const RunRecord r = requireRun(project, p.positionals().size() > 1 ? p.positionals()[1] : std::string());
    if (r.status != RunStatus::Running) {
        std::printf("run %s is not running (%s%s%s)\n", r.id.substr(0, 8).c_str(), runStatusName(r.status),
            r.message.empty() ? "" : ": ", shown(r.message).c_str());
        return ExitOk;
    }
    if (r.host != hostName())
        throw InputError(project.path(), "run " + r.id.substr(0, 8),
            "runs on host " + r.host + "; stop it there (this is " + hostName() + ")");
    const auto timeout = p.get<std::chrono::milliseconds>("--timeout");
    const double timeoutSeconds = double(timeout.count()) / 1000;
    const pid_t pid = pid_t(r.pid);
    if (!project.runProcessAlive(r.id)) {
        project.setRunStatus(r.id, RunStatus::Crashed, "its process is gone");
        std::printf("run %s had no process any more: marked CRASHED\n", r.id.substr(0, 8).c_str());
        return ExitOk;
    }
    std::printf("stopping run %s (pid %d): SIGTERM, waiting up to %.0f s for its checkpoint\n",
        r.id.substr(0, 8).c_str(), int(pid), timeoutSeconds);
    ::kill(pid, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        const auto now = project.findRun(r.id);
        if (now && isTerminal(now->status)) {
            std::printf("run %s stopped: %s%s%s\n", r.id.substr(0, 8).c_str(), runStatusName(now->status),
                now->message.empty() ? "" : " - ", shown(now->message).c_str());
            return ExitOk;
        }
        if (::kill(pid, 0) != 0 && errno == ESRCH)
            break;
    }
    if (::kill(pid, 0) == 0)
        ::kill(pid, SIGKILL);
    const auto now = project.findRun(r.id);
    if (now && !isTerminal(now->status))
        project.setRunStatus(
            r.id, RunStatus::Killed, "killed after " + number(timeoutSeconds, "%.0f") + " s without stopping");
    std::printf("run %s killed\n", r.id.substr(0, 8).c_str());
    return ExitOk;
}

int remove(Project& project, const ArgParser& p)
{
    const RunRecord r = requireRun(project, p.positionals().size() > 1 ? p.positionals()[1] : std::string());
    if (r.status == RunStatus::Running && !p.has("--force"))
        throw InputError(project.path(), "run " + r.id.substr(0, 8), "is running; stop it first (or --force)");
    project.deleteRun(r.id);
    std::printf("deleted run %s (%s) and its files\n", r.id.substr(0, 8).c_str(), shown(r.name).c_str());
    return ExitOk;
}

// Metrics as CSV (run,context,key,step,wall_ms,value), and with --weights the weights npz of the
// run's latest checkpoint: the checkpoint's arrays without the training state.
int exportRun(Project& project, const ArgParser& p)
{
    const RunRecord r = requireRun(project, p.positionals().size() > 1 ? p.positionals()[1] : std::string());
    const std::string csv = p.value("--output");
    const std::string weights = p.value("--weights");
    if (csv.empty() && weights.empty())
        throw InputError(project.path(), "", "nothing to export: give -o METRICS.csv and/or --weights W.npz");
    if (!csv.empty()) {
        std::vector<RunRecord> runs { r };
        for (const RunRecord& fold : project.runs())
            if (fold.parentRun == r.id)
                runs.push_back(fold);
        int64_t rows = 0;
        writeFileAtomically(csv, [&](AtomicFile& out) {
            out.write("run,context,key,step,wall_ms,value\n");
            std::string text;
            char buf[64];
            for (const RunRecord& run : runs)
                for (const std::string& name : project.metricKeys(run.id)) {
                    const std::string context = name.substr(0, name.find('/'));
                    const std::string key = name.substr(name.find('/') + 1);
                    for (const MetricPoint& m : project.metricHistory(run.id, key, context).points) {
                        std::snprintf(buf, sizeof buf, "%.17g", m.value);
                        text += run.id + ',' + context + ',' + key + ',' + std::to_string(m.step) + ','
                            + std::to_string(m.wallMs) + ',' + (std::isnan(m.value) ? "" : buf) + '\n';
                        ++rows;
                        if (text.size() >= (1 << 20)) {
                            out.write(text);
                            text.clear();
                        }
                    }
                }
            out.write(text);
        });
        std::printf("wrote %s: %lld metric rows of %zu run(s)\n", csv.c_str(), (long long)rows, runs.size());
    }
    if (!weights.empty()) {
        std::error_code ec;
        const std::string best = (fs::path(project.runDir(r.id)) / "best.npz").string();
        if (r.checkpoint.empty() && !fs::exists(best, ec))
            throw InputError(project.path(), "run " + r.id.substr(0, 8), "has no checkpoint to export weights from");
        const std::string checkpoint
            = fs::exists(best, ec) ? best : project.dataPath(r.checkpoint, "run " + r.id + " checkpoint");
        // `tgraph weights export` checks the checkpoint and writes exactly the weights keys.
        std::fflush(stdout);
        return execModelCommand({ "weights", "export", checkpoint, "-o", weights });
    }
    return ExitOk;
}

int runs(const ArgParser& p)
{
    const std::string action = p.positionals().front();
    const std::string file = p.value("--project");
    if (action == "list" || action == "show") {
        // Reading records the runs whose process is gone as CRASHED (opening for writing runs
        // markCrashedRuns, docs/store.md §5); a read-only project still reads them as CRASHED.
        const bool writable
            = ::access(file.c_str(), W_OK) == 0 && ::access(fs::absolute(file).parent_path().c_str(), W_OK) == 0;
        Project project = Project::open(file, writable ? Project::Access::Write : Project::Access::Read);
        return action == "list" ? list(project, p) : show(project, p);
    }
    if (action == "export") {
        Project project = Project::open(file, Project::Access::Read);
        return exportRun(project, p);
    }
    Project project = Project::open(file, Project::Access::Write);
    if (action == "stop")
        return stop(project, p);
    return remove(project, p);
}

} // namespace

int runRuns(const std::vector<std::string>& args)
{
    ArgParser p("runs",
        "The training runs of a project file (.tgproj): list them with status, duration and latest metrics;\n"
        "show one (params, metrics, per-graph evaluation, artifacts); stop a running one (SIGTERM: it\n"
        "finishes its step, writes a checkpoint and ends KILLED; SIGKILL after --timeout); delete one with\n"
        "its files; export its metrics as CSV and its weights as npz; resume a stopped or crashed one from\n"
        "its latest checkpoint in this terminal (= 'tgraph train --resume RUN --project P'; the run keeps\n"
        "its id and its history goes on from the checkpoint's step). A run is named by its id, a unique id\n"
        "prefix (4+ digits) or a unique name.",
        "list|show|stop|resume|delete|export [RUN] --project P.tgproj [options]");
    p.addPositional("ACTION", "list, show, stop, resume, delete or export");
    p.addPositional("RUN", "the run (not for list)");
    p.addOption("--project", "-p", "P", "the project file");
    p.addOption("--experiment", "", "NAME", "list: only this experiment's runs");
    p.addOption("--timeout", "", "S", "stop: seconds to wait for a graceful stop before SIGKILL", "60",
        opt::duration(0, 86400));
    p.addOption("--force", "", "", "delete: also a running run");
    p.addOption("--output", "-o", "CSV", "export: the metrics as CSV (run,context,key,step,wall_ms,value)");
    p.addOption("--weights", "", "W.npz",
        "export: the run's weights (its best checkpoint, else its latest), without the training state");
    p.addOption("--threads", "", "T", "resume: LibTorch threads (0 = all cores)", "0", threadsType());
    if (const int rc = parseOrExit(p, args); rc >= 0)
        return rc;
    const auto& pos = p.positionals();
    if (pos.empty())
        return usageError("runs", "missing the action (list, show, stop, resume, delete or export)");
    static const std::vector<std::string> actions { "list", "show", "stop", "resume", "delete", "export" };
    if (std::find(actions.begin(), actions.end(), pos[0]) == actions.end())
        return usageError("runs", "unknown action '" + pos[0] + "' (list, show, stop, resume, delete or export)");
    if (pos[0] != "list" && pos.size() != 2)
        return usageError("runs", pos[0] + " needs exactly one run");
    if (pos[0] == "list" && pos.size() != 1)
        return usageError("runs", "list takes no run");
    if (p.value("--project").empty())
        return usageError("runs", "missing --project P.tgproj");
    if (pos[0] == "resume")
        return execModelCommand(
            { "train", "--resume", pos[1], "--project", p.value("--project"), "--threads", p.value("--threads") });
    return guarded("runs", runs, p);
}

} // namespace tgraph::cli
