// SPDX-License-Identifier: Apache-2.0
#include "core/util/childprocess.h"

#include "core/util/error.h"

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdexcept>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace tgraph {

std::string hugePageMallocTunables()
{
    const char* current = std::getenv("GLIBC_TUNABLES");
    const std::string value = current ? current : "";
    if (value.find("glibc.malloc.hugetlb") != std::string::npos)
        return value; // the user's choice wins
    return value.empty() ? "glibc.malloc.hugetlb=1" : value + ":glibc.malloc.hugetlb=1";
}

namespace {

// A file descriptor closed on scope exit.
class Fd
{
public:
    Fd() = default;
    explicit Fd(int fd)
        : m_fd(fd)
    { }
    ~Fd() { reset(); }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return m_fd; }
    void reset(int fd = -1)
    {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = fd;
    }

private:
    int m_fd = -1;
};

std::runtime_error systemError(const std::string& what)
{
    return std::runtime_error(what + ": " + std::strerror(errno));
}

// The child's stdin: a socket, so that writing to a child that exited early fails with EPIPE
// (MSG_NOSIGNAL) instead of raising SIGPIPE in our process.
void makeInput(Fd& ours, Fd& theirs)
{
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
        throw systemError("socketpair");
    ours.reset(fds[0]);
    theirs.reset(fds[1]);
    ::shutdown(ours.get(), SHUT_RD);
    ::shutdown(theirs.get(), SHUT_WR);
}

// A pipe the child writes and we read.
void makeOutput(Fd& ours, Fd& theirs)
{
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        throw systemError("pipe2");
    ours.reset(fds[0]);
    theirs.reset(fds[1]);
}

void setNonBlocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

// Kills and reaps the child if it is still running when the scope ends (exceptions included).
class Reaper
{
public:
    explicit Reaper(pid_t pid)
        : m_pid(pid)
    { }
    ~Reaper()
    {
        if (m_pid > 0) {
            // The child leads its own process group (POSIX_SPAWN_SETPGROUP): kill the group, its
            // children included; the group exists as long as the unreaped leader does.
            ::kill(-m_pid, SIGKILL);
            int status = 0;
            while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) { }
        }
    }
    int wait()
    {
        int status = 0;
        siginfo_t info {};
        while (::waitid(P_PID, id_t(m_pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) { }
        ::kill(-m_pid, SIGKILL); // the leader is a zombie until reaped below: its group still exists
        while (::waitpid(m_pid, &status, 0) < 0) {
            if (errno != EINTR)
                throw systemError("waitpid");
        }
        m_pid = -1;
        return status;
    }

private:
    pid_t m_pid;
};

} // namespace

ChildProcessResult runChildProcess(
    const std::vector<std::string>& argv, std::string_view input, const ChildProcessOptions& options)
{
    if (argv.empty())
        throw std::invalid_argument("runChildProcess: empty argv");
    Fd inOurs, inTheirs, outOurs, outTheirs, errOurs, errTheirs;
    makeInput(inOurs, inTheirs);
    makeOutput(outOurs, outTheirs);
    makeOutput(errOurs, errTheirs);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, inTheirs.get(), 0);
    posix_spawn_file_actions_adddup2(&actions, outTheirs.get(), 1);
    posix_spawn_file_actions_adddup2(&actions, errTheirs.get(), 2);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setpgroup(&attr, 0); // a new group, led by the child
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);

    std::vector<char*> args;
    for (const std::string& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = -1;
    const int rc = ::posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (rc != 0)
        throw ChildProcessStartError("cannot run " + argv[0] + ": " + std::strerror(rc));
    Reaper reaper(pid);
    inTheirs.reset();
    outTheirs.reset();
    errTheirs.reset();
    setNonBlocking(inOurs.get());
    setNonBlocking(outOurs.get());
    setNonBlocking(errOurs.get());

    ChildProcessResult result;
    size_t written = 0;
    if (input.empty())
        inOurs.reset();
    const auto start = std::chrono::steady_clock::now();
    char buffer[65536];
    while (outOurs.get() >= 0 || errOurs.get() >= 0) {
        if (options.cancelled && options.cancelled())
            throw Cancelled(); // the Reaper kills the group
        if (options.timeoutMs > 0
            && std::chrono::steady_clock::now() - start > std::chrono::milliseconds(options.timeoutMs))
            throw ChildProcessTimeout(argv[0] + " did not finish within " + std::to_string(options.timeoutMs) + " ms");
        pollfd fds[3];
        int n = 0;
        const auto add = [&](const Fd& fd, short events) {
            if (fd.get() >= 0)
                fds[n++] = { fd.get(), events, 0 };
        };
        add(inOurs, POLLOUT);
        add(outOurs, POLLIN);
        add(errOurs, POLLIN);
        if (::poll(fds, nfds_t(n), 20) < 0) {
            if (errno == EINTR)
                continue;
            throw systemError("poll");
        }
        for (int i = 0; i < n; ++i) {
            if (!fds[i].revents)
                continue;
            if (fds[i].fd == inOurs.get()) {
                const ssize_t w = ::send(inOurs.get(), input.data() + written, input.size() - written, MSG_NOSIGNAL);
                if (w > 0)
                    written += size_t(w);
                if ((w < 0 && errno != EAGAIN && errno != EINTR) || written == input.size())
                    inOurs.reset(); // done, or the child stopped reading: it will say why on stderr
                continue;
            }
            const bool isOut = fds[i].fd == outOurs.get();
            const ssize_t r = ::read(fds[i].fd, buffer, sizeof buffer);
            if (r > 0) {
                std::string& kept = isOut ? result.out : result.err;
                if (kept.size() + size_t(r) > options.maxOutputBytes)
                    throw ChildProcessOutputLimit(argv[0] + " wrote more than " + std::to_string(options.maxOutputBytes)
                        + " bytes to " + (isOut ? "stdout" : "stderr")); // the Reaper kills the group
                kept.append(buffer, size_t(r));
            }
            else if (r == 0 || (errno != EAGAIN && errno != EINTR))
                (isOut ? outOurs : errOurs).reset();
        }
    }
    inOurs.reset();
    // Both pipes are closed: the child has exited or is about to. Whatever it started and left
    // behind in its group (a background job of a shell command) goes with it.
    const int status = reaper.wait();
    if (WIFEXITED(status))
        result.exitCode = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        result.signal = WTERMSIG(status);
    return result;
}

} // namespace tgraph
