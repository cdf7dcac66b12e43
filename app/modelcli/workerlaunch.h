// SPDX-License-Identifier: Apache-2.0
#pragma once

// Training processes started by `tgraph train` itself, all running this executable:
// - `--launch-local W`: W data-parallel workers on this machine (ranks 0..W-1, meeting through a
//   rendezvous file in a private folder; nothing listens beyond loopback). When one fails, the others are given the collective timeout (plus a grace
//   period) to notice and end, then killed.
// - `--parallel-folds P`: the folds of a cross-validation as independent processes (`--fold K`),
//   at most P at a time; a failed fold does not stop the others.
// SIGINT/SIGTERM are passed on to every running child (a data-parallel group stops after the same
// step; a fold writes its checkpoint and ends), and no further child is started after one.

#include <chrono>
#include <string>
#include <vector>

namespace tgraph::cli {

struct MasterAddress
{
    std::string host;
    int port = 0;
};

// "HOST:PORT" or "[IPv6]:PORT"; false for anything else (port 1..65535).
bool parseMasterAddress(const std::string& text, MasterAddress* out);

struct ChildProcess
{
    std::string label; // "worker 1", "fold 3"
    std::vector<std::string> args; // after the program name: "train", ...
};

struct ChildOutcome
{
    bool started = false;
    int status = 0; // waitpid status
    bool succeeded() const; // exit 0
    bool interrupted() const; // exit 130: stopped on request
    std::string describe() const; // "exit status 1", "killed by signal 9 (Killed)"
};

struct SuperviseOptions
{
    int concurrency = 1; // children running at once
    bool stopOthersOnFailure = false;
    std::chrono::milliseconds failureGrace { 10000 }; // then the others are killed
};

// Runs the children (this executable, started through /proc/self/exe, each in its own process
// group and ended with SIGTERM if this process dies) to the end. `cancelled` is set when a
// SIGINT/SIGTERM arrived.
std::vector<ChildOutcome> superviseChildren(
    const std::vector<ChildProcess>& children, const SuperviseOptions& options, bool* cancelled = nullptr);

struct LaunchOptions
{
    int workers = 2;
    std::vector<std::string> trainArgs; // `train` options without --launch-local
    std::chrono::milliseconds timeout { 300000 }; // the workers' collective timeout
    std::string project; // marks rank 0's run CRASHED if rank 0 itself dies ("" = none)
};

// Runs the workers to the end; returns rank 0's exit status (or 1 when it was killed).
int launchLocalWorkers(const LaunchOptions& options);

} // namespace tgraph::cli
