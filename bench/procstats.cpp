// SPDX-License-Identifier: Apache-2.0
#include "procstats.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

namespace tgraph::bench {

namespace {
uint64_t statusField(const char* name)
{
    std::ifstream in("/proc/self/status");
    std::string line;
    const std::string prefix = std::string(name) + ":";
    while (std::getline(in, line))
        if (line.rfind(prefix, 0) == 0)
            return uint64_t(std::stoull(line.substr(prefix.size()))) * 1024;
    return 0;
}
} // namespace

uint64_t currentRss() { return statusField("VmRSS"); }
uint64_t peakRss() { return statusField("VmHWM"); }
uint64_t virtualSize() { return statusField("VmSize"); }

void writeFile(const std::string& path, const std::string& bytes)
{
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

std::string runChild(const std::vector<std::string>& argv)
{
    int pipeFds[2];
    if (::pipe(pipeFds) != 0)
        throw std::runtime_error("pipe failed");
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(pipeFds[1], STDOUT_FILENO);
        ::close(pipeFds[0]);
        ::close(pipeFds[1]);
        std::vector<char*> args;
        for (const auto& a : argv)
            args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        ::execvp(args[0], args.data());
        std::perror(args[0]);
        ::_exit(127);
    }
    ::close(pipeFds[1]);
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = ::read(pipeFds[0], buf, sizeof buf)) > 0)
        out.append(buf, size_t(n));
    ::close(pipeFds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw std::runtime_error(argv[0] + " failed: " + out);
    return out;
}

double reportValue(const std::string& report, const std::string& key)
{
    const auto at = report.find(key + "=");
    if (at == std::string::npos)
        throw std::runtime_error("no " + key + " in report: " + report);
    return std::stod(report.substr(at + key.size() + 1));
}

} // namespace tgraph::bench
