// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tgraph {

// What a finished child process left behind.
struct ChildProcessResult
{
    int exitCode = -1; // -1 when it did not exit normally
    int signal = 0; // the signal that ended it, 0 when it exited
    std::string out;
    std::string err;
};

// The program could not be started (not found, not executable).
class ChildProcessStartError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// The child ran longer than ChildProcessOptions::timeoutMs and was killed.
class ChildProcessTimeout : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// The child wrote more than ChildProcessOptions::maxOutputBytes to stdout or stderr and was killed.
class ChildProcessOutputLimit : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

struct ChildProcessOptions
{
    // Polled about every 20 ms while the child runs; true kills it (SIGKILL) and throws Cancelled.
    std::function<bool()> cancelled;
    int timeoutMs = 0; // 0 = no limit; on expiry the child is killed and ChildProcessTimeout thrown
    // Most bytes kept of each of stdout and stderr; one more kills the child and throws
    // ChildProcessOutputLimit, so a runaway child cannot fill our memory.
    size_t maxOutputBytes = size_t(64) << 20;
};

// The GLIBC_TUNABLES value for a LibTorch process: the current value (if any) plus
// glibc.malloc.hugetlb=1, so that glibc's mmap'd chunks (every tensor above 32 MB) are backed by
// transparent huge pages. Tensors of a model pass are allocated and freed again and again; with 4 KiB
// pages each new one costs tens of thousands of page faults (measured: the TGraph forward at C = 128,
// N = 984 spent 2/3 of its time in the kernel; 2.6 s -> 1.1 s, training step 10.6 s -> 4.9 s, same
// peak RSS). Read by glibc at process start: set it in the environment of the child.
std::string hugePageMallocTunables();

// Runs `argv[0]` (searched on PATH) with `input` on its stdin, collecting stdout and stderr, without
// a shell and without SIGPIPE if the child stops reading. Blocks the calling thread (call it from a
// worker). Throws ChildProcessStartError when the program cannot be started. The child leads a
// process group of its own: on a timeout, a cancel, too much output or an exception the whole group
// is killed (SIGKILL), so `/bin/sh -c` takes its children with it (docs/architecture.md).
ChildProcessResult runChildProcess(
    const std::vector<std::string>& argv, std::string_view input, const ChildProcessOptions& options = {});

} // namespace tgraph
