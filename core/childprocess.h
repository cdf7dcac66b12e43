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

struct ChildProcessOptions
{
    // Polled about every 20 ms while the child runs; true kills it (SIGKILL) and throws Cancelled.
    std::function<bool()> cancelled;
    int timeoutMs = 0; // 0 = no limit; on expiry the child is killed and ChildProcessTimeout thrown
};

// Runs `argv[0]` (searched on PATH) with `input` on its stdin, collecting stdout and stderr, without
// a shell and without SIGPIPE if the child stops reading. Blocks the calling thread (call it from a
// worker). Throws ChildProcessStartError when the program cannot be started.
ChildProcessResult runChildProcess(
    const std::vector<std::string>& argv, std::string_view input, const ChildProcessOptions& options = {});

} // namespace tgraph
