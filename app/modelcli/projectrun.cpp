// SPDX-License-Identifier: Apache-2.0
#include "projectrun.h"

#include "core/store/sweeps.h"
#include "core/util/error.h"

#include <cerrno>
#include <csignal>
#include <filesystem>
#include <sys/resource.h>
#include <unistd.h>

namespace tgraph::cli {

namespace fs = std::filesystem;

namespace {

RunRecord requireRun(const Project& project, const std::string& key)
{
    const auto run = project.findRun(key);
    if (!run)
        throw InputError(project.path(), "run " + key, "no such run, or the id prefix or name is ambiguous");
    return *run;
}

bool processAlive(const RunRecord& run)
{
    if (run.host != hostName())
        return true; // cannot tell: its heartbeat decides (Project::markCrashedRuns)
    if (run.pid <= 0)
        return false;
    return ::kill(pid_t(run.pid), 0) == 0 || errno == EPERM;
}

} // namespace

std::unique_ptr<ProjectRun> ProjectRun::start(const std::string& projectPath, const std::string& experiment,
    const std::string& name, const std::string& commandLine,
    const std::vector<std::pair<std::string, std::string>>& params)
{
    std::string id;
    {
        Project project = Project::openOrCreate(projectPath);
        project.markCrashedRuns();
        RunStart s;
        s.experiment = experiment.empty() ? "Default" : experiment;
        s.name = name;
        s.commandLine = commandLine;
        s.pid = int64_t(::getpid());
        id = project.startRun(s);
        project.setParams(id, params);
    }
    return std::unique_ptr<ProjectRun>(new ProjectRun(projectPath, id, false));
}

// The checks of a queued run this process was started for: RUNNING with this pid on this host.
static void requireTakenForThisProcess(const Project& project, const std::string& projectPath, const std::string& runId)
{
    if (!isRunId(runId))
        throw InputError(projectPath, "run " + runId, "--queued-run takes a whole run id (32 hex digits)");
    const auto run = project.findRun(runId);
    if (!run || run->id != runId)
        throw InputError(projectPath, "run " + runId, "no such run");
    if (run->status != RunStatus::Running || run->pid != int64_t(::getpid()) || run->host != hostName())
        throw InputError(projectPath, "run " + runId.substr(0, 8),
            std::string("was not taken for this process (") + runStatusName(run->status) + ", pid "
                + std::to_string(run->pid) + "); only the sweep that queued it starts it");
}

std::unique_ptr<ProjectRun> ProjectRun::adoptQueued(const std::string& projectPath, const std::string& runId,
    const std::vector<std::pair<std::string, std::string>>& params)
{
    {
        Project project = Project::open(projectPath, Project::Access::Write);
        requireTakenForThisProcess(project, projectPath, runId);
        // The sweep recorded this process (pid, start time, host, command line) when it took the
        // run; what is left to record is what the trainer knows: its parameters.
        project.setParams(runId, params);
    }
    return std::unique_ptr<ProjectRun>(new ProjectRun(projectPath, runId, false));
}

std::unique_ptr<ProjectRun> ProjectRun::continueQueued(
    const std::string& projectPath, const std::string& runId, int64_t checkpointStep)
{
    {
        Project project = Project::open(projectPath, Project::Access::Write);
        requireTakenForThisProcess(project, projectPath, runId);
        project.truncateRun(runId, checkpointStep);
        project.adoptRun(runId, int64_t(::getpid()), ""); // marks it resumed; the sweep's command line stays
    }
    return std::unique_ptr<ProjectRun>(new ProjectRun(projectPath, runId, true));
}

std::unique_ptr<ProjectRun> ProjectRun::attachFold(const std::string& projectPath, const std::string& key, int fold)
{
    std::string id;
    {
        const Project project = Project::open(projectPath, Project::Access::Read);
        const RunRecord run = requireRun(project, key);
        if (!run.parentRun.empty())
            throw InputError(projectPath, "run " + key, "is itself a fold of run " + run.parentRun.substr(0, 8));
        if (run.status != RunStatus::Running)
            throw InputError(projectPath, "run " + key,
                std::string("is ") + runStatusName(run.status) + ": a fold can join a running cross-validation only");
        id = run.id;
    }
    return std::unique_ptr<ProjectRun>(new ProjectRun(projectPath, id, true, fold));
}

std::string ProjectRun::resumeCheckpoint(const std::string& projectPath, const std::string& key)
{
    const Project project = Project::open(projectPath, Project::Access::Read);
    const RunRecord run = requireRun(project, key);
    if (!run.parentRun.empty() && !isSweep(project, run.parentRun))
        throw InputError(projectPath, "run " + key,
            "is a cross-validation fold (" + run.name + "); resume its checkpoint as a run of its own: --resume "
                + project.runDir(run.parentRun) + "/" + run.name + "/last.npz");
    const std::string last = (fs::path(project.runDir(run.id)) / "last.npz").string();
    std::error_code ec;
    if (!fs::is_regular_file(last, ec)) {
        const bool folds = fs::exists(fs::path(project.runDir(run.id)) / "ensemble.json", ec)
            || fs::exists(fs::path(project.runDir(run.id)) / "fold-0", ec);
        throw InputError(projectPath, "run " + run.id.substr(0, 8),
            folds ? "is a cross-validation run: resume one fold's checkpoint (RUN_DIR/fold-K/last.npz) instead"
                  : "has no checkpoint to resume from yet (" + last
                    + " is missing: it stopped before its first checkpoint; see --eval-every)");
    }
    return last;
}

std::unique_ptr<ProjectRun> ProjectRun::resume(
    const std::string& projectPath, const std::string& key, const std::string& commandLine, int64_t checkpointStep)
{
    std::string id;
    {
        Project project = Project::open(projectPath, Project::Access::Write);
        project.markCrashedRuns();
        const RunRecord run = requireRun(project, key);
        // Its folder is where this process writes (train.log, checkpoints): refused here, before the
        // run is truncated or adopted, when it leads out of the project (Project::runDir).
        project.runDir(run.id);
        if (run.status == RunStatus::Running) {
            if (processAlive(run))
                throw InputError(projectPath, "run " + run.id.substr(0, 8),
                    "is running (pid " + std::to_string(run.pid) + " on " + run.host
                        + "); stop it first: tgraph runs stop " + run.id.substr(0, 8) + " --project " + projectPath);
            project.setRunStatus(run.id, RunStatus::Crashed, "its process is gone (killed, out of memory or a crash)");
        }
        project.truncateRun(run.id, checkpointStep);
        project.adoptRun(run.id, int64_t(::getpid()), commandLine);
        id = run.id;
    }
    return std::unique_ptr<ProjectRun>(new ProjectRun(projectPath, id, true));
}

ProjectRun::ProjectRun(const std::string& projectPath, std::string id, bool append, int fold)
    : m_id(std::move(id))
    , m_writer(std::make_unique<RunWriter>(projectPath, m_id))
    , m_fold(fold)
{
    Project& project = m_writer->project();
    try {
        m_dir = project.runDir(m_id);
    } catch (const InputError& e) {
        finish(RunStatus::Failed, e.problem());
        throw;
    }
    // A fold of another process's run logs into its own folder (processes do not share a file).
    const std::string logDir = m_fold < 0 ? m_dir : (fs::path(m_dir) / ("fold-" + std::to_string(m_fold))).string();
    std::error_code ec;
    fs::create_directories(logDir, ec);
    if (ec || !fs::is_directory(logDir)) {
        finish(RunStatus::Failed, "cannot create the run folder " + logDir);
        throw InputError(projectPath, logDir, "cannot create the run folder: " + ec.message());
    }
    const std::string logPath = (fs::path(logDir) / "train.log").string();
    m_log = std::fopen(logPath.c_str(), append && m_fold < 0 ? "a" : "w");
    if (!m_log) {
        finish(RunStatus::Failed, "cannot write " + logPath);
        throw InputError(projectPath, logPath, "cannot write the run's log");
    }
    if (!append)
        project.addArtifact(m_id, "log", logPath, 0);
    else if (m_fold >= 0)
        project.addArtifact(m_writer->runFor(m_fold), "log", logPath, 0);
}

ProjectRun::~ProjectRun()
{
    if (m_log)
        std::fclose(m_log);
}

void ProjectRun::finish(RunStatus status, const std::string& message)
{
    if (m_finished)
        return;
    m_finished = true;
    if (m_log)
        std::fflush(m_log);
    // The process's peak memory, for `tgraph compare` (ru_maxrss is in KiB on Linux).
    const std::string run = m_fold < 0 ? m_id : m_writer->runFor(m_fold);
    rusage usage {};
    if (getrusage(RUSAGE_SELF, &usage) == 0) {
        try {
            m_writer->project().setTag(run, "peak_rss_mb", std::to_string(double(usage.ru_maxrss) / 1024.0));
        } catch (const std::exception&) {
            // the status below matters more than this figure
        }
    }
    if (m_fold < 0)
        m_writer->finish(status, message);
    else
        m_writer->finishRun(run, status, message);
}

} // namespace tgraph::cli
