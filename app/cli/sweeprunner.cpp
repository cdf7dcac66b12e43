// SPDX-License-Identifier: Apache-2.0
#include "sweeprunner.h"

#include "terminalprogress.h"

#include "core/store/sweeps.h"
#include "core/util/childprocess.h"
#include "core/util/error.h"

#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace tgraph::cli {

namespace {

namespace fs = std::filesystem;

struct Child
{
    SweepRunRecord row;
    pid_t pid = 0;
    bool own = true; // started by this process (reaped here); else by an earlier sweep process
};

// One line of the sweep's account; a progress bar on the terminal is cleared first.
void say(const std::string& line)
{
    if (::isatty(STDERR_FILENO) == 1) {
        std::fputs("\r\033[K", stderr);
        std::fflush(stderr);
    }
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
}

std::string lastLine(const std::string& path)
{
    std::ifstream in(path);
    std::string line, last;
    while (std::getline(in, line))
        if (!line.empty())
            last = line;
    return last.size() > 300 ? last.substr(0, 300) + "..." : last;
}

std::string describe(const SweepRunRecord& row)
{
    return "c" + std::to_string(row.config) + "-s" + std::to_string(row.seed) + " (" + row.configText + ", seed "
        + std::to_string(row.seed) + ")";
}

// The child's `tgraph train` arguments: the configuration's, or, for a run queued again with a
// checkpoint, a resume of that run (its checkpoint holds the configuration's options).
std::vector<std::string> childArguments(const SweepRunRecord& row, const SweepDrive& d, bool continues)
{
    std::vector<std::string> args = continues ? std::vector<std::string> { "--resume", row.runId } : row.arguments;
    args.insert(args.end(),
        { "--project", d.projectPath, "--queued-run", row.runId, "--threads", std::to_string(d.threads),
            "--no-progress" });
    return args;
}

// Forks the child, which leads its own process group and waits for a go; the run is taken for
// the child's pid in the project first (claimSweepRun), so the run is never RUNNING without its
// process's pid, and a sweep killed in between leaves a child that exits without starting (its
// pipe closes). Returns 0 when another process took the run first.
pid_t startChild(Project& project, const SweepRunRecord& row, const SweepDrive& d)
{
    const bool continues = !sweepRunCheckpoint(project, row.runId).empty();
    const std::vector<std::string> args = childArguments(row, d, continues);
    const std::string exe = modelExecutable();
    const std::string dir = project.runDir(row.runId);
    std::error_code ec;
    fs::create_directories(dir, ec);
    const std::string console = (fs::path(dir) / "console.log").string();
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>("tgraph"));
    const std::string train = "train";
    argv.push_back(const_cast<char*>(train.c_str()));
    for (const std::string& a : args)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    int go[2];
    if (::pipe2(go, O_CLOEXEC) != 0)
        throw InputError(project.path(), "sweep", std::string("cannot make a pipe: ") + std::strerror(errno));
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(go[0]);
        ::close(go[1]);
        throw InputError(project.path(), "sweep", std::string("cannot start a process: ") + std::strerror(errno));
    }
    if (pid == 0) {
        ::setpgid(0, 0);
        ::close(go[1]);
        char byte = 0;
        ssize_t n = 0;
        do
            n = ::read(go[0], &byte, 1);
        while (n < 0 && errno == EINTR);
        if (n != 1 || byte != 'g')
            ::_exit(0);
        const int out = ::open(console.c_str(), O_WRONLY | O_CREAT | (continues ? O_APPEND : O_TRUNC), 0644);
        const int in = ::open("/dev/null", O_RDONLY);
        if (out >= 0) {
            ::dup2(out, STDOUT_FILENO);
            ::dup2(out, STDERR_FILENO);
        }
        if (in >= 0)
            ::dup2(in, STDIN_FILENO);
        ::signal(SIGINT, SIG_DFL);
        ::signal(SIGTERM, SIG_DFL);
        ::execv(exe.c_str(), argv.data());
        ::_exit(127);
    }
    ::close(go[0]);
    ::setpgid(pid, pid); // also here: the group exists before anyone signals it
    bool claimed = false;
    try {
        std::vector<std::string> shown { "train" };
        shown.insert(shown.end(), args.begin(), args.end());
        claimed = claimSweepRun(project, row.runId, pid, commandLineOf(shown));
    } catch (...) {
        ::close(go[1]);
        ::waitpid(pid, nullptr, 0);
        throw;
    }
    if (!claimed) {
        ::close(go[1]);
        ::waitpid(pid, nullptr, 0);
        return 0;
    }
    const ssize_t written = ::write(go[1], "g", 1);
    ::close(go[1]);
    if (written != 1) {
        ::waitpid(pid, nullptr, 0);
        project.setRunStatus(row.runId, RunStatus::Failed, "could not start its process");
        return 0;
    }
    return pid;
}

// After an own child ended: the status it recorded, or (when it ended without recording one) why
// it ended, recorded here.
// `stopping`: the sweep asked it to stop; a child that had not started its run yet (still
// loading, its handler not installed) ended by that signal or exit 130, and reads KILLED.
RunRecord recordEnd(Project& project, const Child& child, int waitStatus, bool stopping)
{
    auto run = project.findRun(child.row.runId);
    if (run && (run->status == RunStatus::Running || run->crashNotRecorded)) {
        const std::string console = (fs::path(project.runDir(child.row.runId)) / "console.log").string();
        const bool stopped = stopping
            && ((WIFSIGNALED(waitStatus) && (WTERMSIG(waitStatus) == SIGTERM || WTERMSIG(waitStatus) == SIGKILL))
                || (WIFEXITED(waitStatus) && WEXITSTATUS(waitStatus) == 130));
        if (stopped) {
            project.setRunStatus(child.row.runId, RunStatus::Killed, "stopped with its sweep before its run started");
        } else if (WIFSIGNALED(waitStatus)) {
            const int sig = WTERMSIG(waitStatus);
            project.setRunStatus(child.row.runId, RunStatus::Crashed,
                "ended by signal " + std::to_string(sig) + (sig == SIGKILL ? " (killed, or out of memory)" : ""));
        } else {
            const int code = WIFEXITED(waitStatus) ? WEXITSTATUS(waitStatus) : -1;
            const std::string last = lastLine(console);
            project.setRunStatus(child.row.runId, RunStatus::Failed,
                "tgraph train exited with status " + std::to_string(code) + " without ending its run"
                    + (last.empty() ? "" : ": " + last));
        }
        run = project.findRun(child.row.runId);
    }
    return run ? *run : RunRecord {};
}

std::string outcome(const Project& project, const RunRecord& run)
{
    std::string text = runStatusName(run.status);
    for (const LatestMetric& m : project.latestMetrics({ run.id }))
        if (m.context == "valid" && m.key == "tau") {
            char buf[32];
            std::snprintf(buf, sizeof buf, " (valid tau %.4f)", m.value);
            text += buf;
        }
    if (run.status != RunStatus::Finished && !run.message.empty())
        text += ": " + run.message;
    return text;
}

} // namespace

std::string modelExecutable()
{
    char self[PATH_MAX];
    const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return "tgraph-model";
    self[n] = '\0';
    return (fs::path(self).parent_path() / "tgraph-model").string();
}

std::string commandLineOf(const std::vector<std::string>& trainArguments)
{
    std::string line = "tgraph";
    for (const std::string& a : trainArguments)
        line += " " + (a.find_first_of(" \t'\"") == std::string::npos && !a.empty() ? a : "'" + a + "'");
    return line;
}

int driveSweep(Project& project, const SweepDrive& d)
{
    // What a LibTorch child needs in its environment (see execSibling, app/cli/plumbing.cpp).
    ::setenv("OMP_WAIT_POLICY", "PASSIVE", 0);
    ::setenv("GLIBC_TUNABLES", hugePageMallocTunables().c_str(), 1);

    const std::vector<SweepRunRecord> rows = sweepRuns(project, d.sweepId);
    std::map<std::string, SweepRunRecord> rowOf;
    for (const SweepRunRecord& r : rows)
        rowOf[r.runId] = r;
    const size_t total = rows.size();
    auto countDone = [&] {
        size_t done = 0;
        for (const RunRecord& r : project.runs())
            if (r.parentRun == d.sweepId && isTerminal(r.status))
                ++done;
        return done;
    };

    std::vector<Child> children;
    // Children an earlier sweep process started that still run: they keep their slots.
    for (const RunRecord& r : project.runs())
        if (r.parentRun == d.sweepId && r.status == RunStatus::Running && rowOf.count(r.id)) {
            children.push_back({ rowOf[r.id], pid_t(r.pid), false });
            say("still running from before: " + describe(rowOf[r.id]) + ", pid " + std::to_string(r.pid));
        }

    TerminalProgress progress;
    progress.begin("sweep " + d.sweepId.substr(0, 8), total);
    auto lastHeartbeat = std::chrono::steady_clock::now();
    bool stopping = false;
    std::chrono::steady_clock::time_point stopDeadline;
    bool killed = false;
    for (;;) {
        // Children that ended.
        for (size_t i = 0; i < children.size();) {
            Child& c = children[i];
            bool ended = false;
            RunRecord run;
            if (c.own) {
                int status = 0;
                const pid_t got = ::waitpid(c.pid, &status, WNOHANG);
                if (got == c.pid) {
                    ended = true;
                    run = recordEnd(project, c, status, stopping);
                }
            } else {
                const auto now = project.findRun(c.row.runId);
                if (!now || isTerminal(now->status)) {
                    ended = true;
                    if (now && now->crashNotRecorded)
                        project.markCrashedRuns();
                    const auto recorded = project.findRun(c.row.runId);
                    run = recorded ? *recorded : RunRecord {};
                }
            }
            if (ended) {
                say(describe(c.row) + " " + outcome(project, run) + " [" + std::to_string(countDone()) + " of "
                    + std::to_string(total) + " done]");
                children.erase(children.begin() + long(i));
            } else {
                ++i;
            }
        }

        if (!stopping && interruptRequested()) {
            stopping = true;
            stopDeadline = std::chrono::steady_clock::now() + std::chrono::seconds(d.stopTimeoutSeconds);
            say("stopping the sweep: SIGTERM to " + std::to_string(children.size())
                + " running child run(s), waiting up to " + std::to_string(d.stopTimeoutSeconds)
                + " s for their checkpoints");
            for (const Child& c : children)
                ::kill(-c.pid, SIGTERM);
        }
        if (stopping) {
            if (children.empty())
                break;
            if (!killed && std::chrono::steady_clock::now() >= stopDeadline) {
                killed = true;
                for (const Child& c : children) {
                    ::kill(-c.pid, SIGKILL);
                    ::kill(c.pid, SIGKILL);
                    const auto run = project.findRun(c.row.runId);
                    if (run && !isTerminal(run->status))
                        project.setRunStatus(c.row.runId, RunStatus::Killed,
                            "killed after " + std::to_string(d.stopTimeoutSeconds) + " s without stopping");
                }
            }
        } else {
            // Free slots take the next queued runs, in queue order.
            while (int(children.size()) < d.parallel) {
                const std::string next = nextQueuedRun(project, d.sweepId);
                if (next.empty())
                    break;
                const SweepRunRecord row = rowOf.count(next) ? rowOf[next] : SweepRunRecord {};
                if (row.runId.empty())
                    throw InputError(project.path(), "sweep " + d.sweepId, "run " + next + " is not in its queue");
                const pid_t pid = startChild(project, row, d);
                if (pid > 0) {
                    children.push_back({ row, pid, true });
                    say("started " + describe(row) + ": run " + row.runId.substr(0, 8) + ", pid " + std::to_string(pid)
                        + ", " + std::to_string(d.threads) + " thread(s)");
                }
            }
            if (children.empty())
                break; // nothing queued, nothing running
        }
        progress.update(countDone());
        if (std::chrono::steady_clock::now() - lastHeartbeat > std::chrono::seconds(5)) {
            project.heartbeat(d.sweepId);
            lastHeartbeat = std::chrono::steady_clock::now();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    progress.end();

    int finished = 0, failed = 0, queued = 0;
    for (const RunRecord& r : project.runs())
        if (r.parentRun == d.sweepId) {
            if (r.status == RunStatus::Finished)
                ++finished;
            else if (r.status == RunStatus::Pending)
                ++queued;
            else if (isTerminal(r.status))
                ++failed;
        }
    const std::string counts = std::to_string(finished) + " finished, " + std::to_string(failed)
        + " failed or interrupted, " + std::to_string(queued) + " queued";
    const std::string resume = "tgraph sweep --resume " + d.sweepId.substr(0, 8) + " --project " + d.projectPath;
    if (stopping) {
        project.setRunStatus(d.sweepId, RunStatus::Killed, "stopped: " + counts + "; resume with: " + resume);
        say("sweep " + d.sweepId.substr(0, 8) + " stopped: " + counts + "; resume with: " + resume);
        return 130;
    }
    project.setRunStatus(d.sweepId, RunStatus::Finished,
        counts + (failed > 0 ? "; '" + resume + "' runs the interrupted ones again" : ""));
    say("sweep " + d.sweepId.substr(0, 8) + " done: " + counts);
    return failed > 0 ? 1 : 0;
}

} // namespace tgraph::cli
