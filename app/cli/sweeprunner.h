// SPDX-License-Identifier: Apache-2.0
#pragma once

// The process that drives a sweep (docs/store.md §9): takes queued child runs from the project
// file, starts each as a `tgraph train --queued-run RUN` child process in a process group of its
// own, at most `parallel` at once with `threads` LibTorch threads each, records how each ended,
// and ends the sweep FINISHED (or KILLED on SIGINT / SIGTERM, after stopping its children).

#include "core/store/project.h"

#include <string>

namespace tgraph::cli {

struct SweepDrive
{
    std::string projectPath;
    std::string sweepId;
    int parallel = 1;
    int threads = 1;
    int stopTimeoutSeconds = 60; // SIGTERM to the children, SIGKILL after this
};

// Runs until no child is queued or running, or until SIGINT / SIGTERM. Child runs found RUNNING
// with a live process of another (earlier) sweep process take slots until they end. Returns the
// exit status: 0 every run finished, 1 some failed or crashed, 130 stopped.
int driveSweep(Project& project, const SweepDrive& drive);

// The `tgraph train` command line a child run records (and what `tgraph runs show` prints).
std::string commandLineOf(const std::vector<std::string>& trainArguments);

// The `tgraph-model` executable beside this one.
std::string modelExecutable();

} // namespace tgraph::cli
