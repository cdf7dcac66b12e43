// SPDX-License-Identifier: Apache-2.0
#include "workerlaunch.h"

#include "core/store/project.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace tgraph::cli {

namespace {

constexpr int kMaxChildren = 4096;
volatile sig_atomic_t g_childCount = 0;
volatile sig_atomic_t g_signalled = 0;
pid_t g_children[kMaxChildren];

void forwardSignal(int sig)
{
    g_signalled = 1;
    for (int i = 0; i < g_childCount; ++i)
        if (g_children[i] > 0)
            ::kill(g_children[i], sig);
}

pid_t startChild(const ChildProcess& child, pid_t parent)
{
    std::vector<std::string> args { "tgraph-model" };
    args.insert(args.end(), child.args.begin(), child.args.end());
    std::vector<char*> argv;
    for (std::string& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
        // Own process group: a terminal's Ctrl-C reaches this process only, which passes it on
        // once. If this process dies its children are asked to stop (they checkpoint and end).
        ::setpgid(0, 0);
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (::getppid() != parent)
            ::_exit(1);
        ::execv("/proc/self/exe", argv.data());
        std::fprintf(stderr, "tgraph train: error: cannot run %s: %s\n", child.label.c_str(), std::strerror(errno));
        ::_exit(127);
    }
    return pid;
}

} // namespace

bool ChildOutcome::succeeded() const { return started && WIFEXITED(status) && WEXITSTATUS(status) == 0; }

bool ChildOutcome::interrupted() const { return started && WIFEXITED(status) && WEXITSTATUS(status) == 130; }

std::string ChildOutcome::describe() const
{
    if (!started)
        return "not started";
    if (WIFSIGNALED(status))
        return std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" + ::strsignal(WTERMSIG(status))
            + ")";
    return "exit status " + std::to_string(WEXITSTATUS(status));
}

std::vector<ChildOutcome> superviseChildren(
    const std::vector<ChildProcess>& children, const SuperviseOptions& options, bool* cancelled)
{
    std::vector<ChildOutcome> outcomes(children.size());
    if (children.size() > size_t(kMaxChildren))
        throw std::invalid_argument("superviseChildren: too many children");
    struct sigaction forward
    { };
    forward.sa_handler = forwardSignal;
    sigemptyset(&forward.sa_mask);
    forward.sa_flags = SA_RESTART;
    struct sigaction oldInt
    { }, oldTerm { };
    ::sigaction(SIGINT, &forward, &oldInt);
    ::sigaction(SIGTERM, &forward, &oldTerm);
    g_signalled = 0;
    g_childCount = 0;

    const pid_t parent = ::getpid();
    std::vector<pid_t> pids(children.size(), 0);
    size_t next = 0, running = 0;
    bool failing = false;
    auto deadline = std::chrono::steady_clock::time_point::max();
    while (true) {
        // Start children up to the concurrency, unless stopping.
        while (!failing && !g_signalled && next < children.size() && int(running) < options.concurrency) {
            const pid_t pid = startChild(children[next], parent);
            if (pid < 0) {
                std::fprintf(stderr, "tgraph train: error: cannot start %s: %s\n", children[next].label.c_str(),
                    std::strerror(errno));
                failing = true;
                deadline = std::chrono::steady_clock::now();
                break;
            }
            pids[next] = pid;
            outcomes[next].started = true;
            g_children[next] = pid;
            g_childCount = int(next + 1);
            ++next;
            ++running;
        }
        if (running == 0)
            break;
        int st = 0;
        const pid_t pid = ::waitpid(-1, &st, failing ? WNOHANG : 0);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (pid == 0) {
            if (std::chrono::steady_clock::now() > deadline) {
                for (size_t i = 0; i < pids.size(); ++i)
                    if (g_children[i] > 0) {
                        std::fprintf(stderr, "tgraph train: %s did not end after the failure: killed\n",
                            children[i].label.c_str());
                        ::kill(pids[i], SIGKILL);
                    }
                deadline = std::chrono::steady_clock::time_point::max();
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            continue;
        }
        for (size_t i = 0; i < pids.size(); ++i) {
            if (pids[i] != pid || g_children[i] == 0)
                continue;
            outcomes[i].status = st;
            g_children[i] = 0;
            --running;
            if (!outcomes[i].succeeded() && !outcomes[i].interrupted()) {
                std::fprintf(stderr, "tgraph train: %s (pid %d) ended: %s\n", children[i].label.c_str(), int(pid),
                    outcomes[i].describe().c_str());
                if (options.stopOthersOnFailure && !failing) {
                    failing = true;
                    deadline = std::chrono::steady_clock::now() + options.failureGrace;
                }
            }
        }
    }
    g_childCount = 0;
    ::sigaction(SIGINT, &oldInt, nullptr);
    ::sigaction(SIGTERM, &oldTerm, nullptr);
    if (cancelled)
        *cancelled = g_signalled != 0;
    return outcomes;
}

bool parseMasterAddress(const std::string& text, MasterAddress* out)
{
    const size_t colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 >= text.size())
        return false;
    std::string host = text.substr(0, colon);
    if (host.front() == '[') {
        if (host.size() < 3 || host.back() != ']')
            return false;
        host = host.substr(1, host.size() - 2);
    } else if (host.find(':') != std::string::npos) {
        return false; // a bare IPv6 address needs brackets
    }
    int port = 0;
    for (size_t i = colon + 1; i < text.size(); ++i) {
        if (text[i] < '0' || text[i] > '9' || port > 65535)
            return false;
        port = port * 10 + (text[i] - '0');
    }
    if (port < 1 || port > 65535)
        return false;
    out->host = host;
    out->port = port;
    return true;
}

int launchLocalWorkers(const LaunchOptions& options)
{
    if (options.workers < 1 || options.workers > kMaxChildren)
        return 2;
    // The workers meet through a file in a private folder (0700): no store port is opened, and the
    // Gloo connections between them bind 127.0.0.1, so nothing listens beyond loopback.
    std::string folder = (std::filesystem::temp_directory_path() / "tgraph-workers-XXXXXX").string();
    if (!::mkdtemp(folder.data())) {
        std::fprintf(stderr, "tgraph train: error: cannot create a rendezvous folder for the workers in %s: %s\n",
            std::filesystem::temp_directory_path().c_str(), std::strerror(errno));
        return 1;
    }
    struct RemoveFolder
    {
        std::string path;
        ~RemoveFolder()
        {
            std::error_code ignored;
            std::filesystem::remove_all(path, ignored);
        }
    } removeFolder { folder };
    const std::string rendezvous = folder + "/rendezvous";
    // Without a token of the user's, the workers share one drawn here (passed in the environment).
    if (!std::getenv("TGRAPH_WORKER_TOKEN")
        && std::find(options.trainArgs.begin(), options.trainArgs.end(), "--token-file") == options.trainArgs.end()) {
        std::random_device random;
        std::string token;
        for (int i = 0; i < 32; ++i)
            token += "0123456789abcdef"[random() & 15];
        ::setenv("TGRAPH_WORKER_TOKEN", token.c_str(), 1);
    }
    std::printf("starting %d workers (rendezvous %s)\n", options.workers, rendezvous.c_str());
    std::fflush(stdout);

    std::vector<ChildProcess> workers;
    for (int r = 0; r < options.workers; ++r) {
        ChildProcess w;
        w.label = "worker " + std::to_string(r);
        w.args = { "train" };
        w.args.insert(w.args.end(), options.trainArgs.begin(), options.trainArgs.end());
        for (const std::string& a : { std::string("--world-size"), std::to_string(options.workers),
                 std::string("--rank"), std::to_string(r), std::string("--rendezvous"), rendezvous })
            w.args.push_back(a);
        workers.push_back(std::move(w));
    }
    SuperviseOptions supervise;
    supervise.concurrency = options.workers;
    supervise.stopOthersOnFailure = true;
    // The others notice a lost worker at once (closed sockets) or after the collective timeout.
    supervise.failureGrace = options.timeout + std::chrono::seconds(10);
    const std::vector<ChildOutcome> outcomes = superviseChildren(workers, supervise);

    // Rank 0 records the run; if it was itself killed, nobody did: mark its run CRASHED now.
    const ChildOutcome& rank0 = outcomes[0];
    if (rank0.started && WIFSIGNALED(rank0.status) && !options.project.empty()) {
        try {
            Project project = Project::open(options.project, Project::Access::Write);
            project.markCrashedRuns(0);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "tgraph train: warning: %s\n", e.what());
        }
    }
    if (!rank0.started || !WIFEXITED(rank0.status))
        return 1;
    if (WEXITSTATUS(rank0.status) != 0)
        return WEXITSTATUS(rank0.status);
    for (const ChildOutcome& o : outcomes)
        if (!o.succeeded() && !o.interrupted())
            return 1;
    return 0;
}

} // namespace tgraph::cli
