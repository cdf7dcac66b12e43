// SPDX-License-Identifier: Apache-2.0
#include "projectbench.h"

#include "procstats.h"

#include "core/store/project.h"
#include "core/store/runwriter.h"
#include "core/store/sqlitedb.h"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace tgraph::bench {

namespace {

using Clock = std::chrono::steady_clock;

std::string freshProject(const fs::path& dir, const std::string& name)
{
    const std::string file = (dir / name).string();
    for (const char* suffix : { "", "-wal", "-shm" })
        fs::remove(file + suffix);
    Project::create(file);
    return file;
}

// One writer process logs `rows` metric rows (7 per step interval) with the given flush interval
// while this process polls latest metrics and one history, as the run monitor does.
void loggingThroughput(const fs::path& dir, int64_t rows, int64_t flushMs, const char* label)
{
    const std::string file = freshProject(dir, "throughput.tgproj");
    std::string id;
    {
        Project p = Project::open(file, Project::Access::Write);
        id = p.startRun({});
    }
    const auto start = Clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
        int rc = 0;
        try {
            RunWriter w(file, id, { flushMs, 5000 });
            StepMetrics m;
            for (int64_t step = 1; step * 7 <= rows; ++step) {
                m.step = step;
                m.loss = 1.0 / double(step);
                w.stepMetrics(m);
            }
            w.finish(RunStatus::Finished);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "writer: %s\n", e.what());
            rc = 1;
        }
        _exit(rc);
    }
    Project reader = Project::open(file, Project::Access::Read);
    int64_t polls = 0;
    double pollSeconds = 0, worstPoll = 0;
    int status = 0;
    while (waitpid(pid, &status, WNOHANG) == 0) {
        const auto t = Clock::now();
        reader.latestMetrics({ id });
        reader.metricHistory(id, "loss", "train", 2000);
        const double s = secondsSince(t);
        pollSeconds += s;
        worstPoll = std::max(worstPoll, s);
        ++polls;
        usleep(50000);
    }
    const double seconds = secondsSince(start);
    const int64_t written = reader.metricHistory(id, "loss", "train").totalPoints * 7;
    std::printf("  %-34s %9lld rows in %6.2f s = %9.0f rows/s  (reader: %lld polls, mean %.1f ms, worst %.1f ms)%s\n",
        label, (long long)written, seconds, double(written) / seconds, (long long)polls,
        polls ? 1000 * pollSeconds / double(polls) : 0.0, 1000 * worstPoll,
        WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "" : "  WRITER FAILED");
}

} // namespace

int runProjectBench(const std::vector<std::string>& args)
{
    int64_t rows = 700000;
    for (size_t k = 0; k + 1 < args.size(); ++k)
        if (args[k] == "--rows")
            rows = std::stoll(args[k + 1]);
    const fs::path dir = fs::temp_directory_path() / ("tgraph-bench-project-" + std::to_string(getpid()));
    fs::create_directories(dir);

    std::printf("Project store (SQLite %s, WAL), files in %s\n\nLogging while a reader polls every 50 ms:\n",
        sqliteVersion().c_str(), dir.string().c_str());
    loggingThroughput(dir, rows, 100, "batched (one commit per 100 ms)");
    loggingThroughput(dir, std::min<int64_t>(rows, 70000), 0, "one commit per step interval");

    // Latest metrics of 1 000 runs (7 train + 4 valid series, 20 points each).
    {
        const std::string file = freshProject(dir, "runs.tgproj");
        std::vector<std::string> ids;
        {
            Project p = Project::open(file, Project::Access::Write);
            for (int r = 0; r < 1000; ++r)
                ids.push_back(p.startRun({}));
        }
        const auto fill = Clock::now();
        for (const std::string& id : ids) {
            RunWriter w(file, id, { 1000000, 60000 });
            StepMetrics m;
            EvalMetrics e;
            for (int64_t step = 1; step <= 20; ++step) {
                m.step = step * 100;
                m.loss = 1.0 / double(step);
                w.stepMetrics(m);
            }
            e.step = 2000;
            e.meanTau = 0.5;
            e.meanTileScore = std::nan("");
            w.evalMetrics(e);
            w.finish(RunStatus::Finished);
        }
        std::printf("\n1 000 runs x 144 metric rows written in %.2f s\n", secondsSince(fill));
        Project reader = Project::open(file, Project::Access::Read);
        double best = 1e9;
        size_t n = 0;
        for (int k = 0; k < 5; ++k) {
            const auto t = Clock::now();
            const auto runs = reader.runs();
            n = reader.latestMetrics().size() + runs.size();
            best = std::min(best, secondsSince(t));
        }
        std::printf(
            "  run table: all runs + latest metrics of 1 000 runs (%zu rows): %.1f ms (best of 5)\n", n, 1000 * best);
    }

    // One metric history of 1 M points.
    {
        const std::string file = freshProject(dir, "history.tgproj");
        std::string id;
        {
            Project p = Project::open(file, Project::Access::Write);
            id = p.startRun({});
        }
        const auto fill = Clock::now();
        {
            RunWriter w(file, id, { 1000, 60000 });
            for (int64_t step = 0; step < 1000000; ++step)
                w.logMetric("loss", step, std::sin(double(step) * 1e-4) + 1e-6 * double(step % 977));
            w.finish(RunStatus::Finished);
        }
        std::printf("\n1 M points of one metric written in %.2f s (%.0f rows/s, one writer, no reader)\n",
            secondsSince(fill), 1e6 / secondsSince(fill));
        Project reader = Project::open(file, Project::Access::Read);
        for (int64_t points : { int64_t(0), int64_t(4000), int64_t(1000) }) {
            double best = 1e9;
            size_t n = 0;
            for (int k = 0; k < 3; ++k) {
                const auto t = Clock::now();
                n = reader.metricHistory(id, "loss", "train", points).points.size();
                best = std::min(best, secondsSince(t));
            }
            std::printf("  history %-22s -> %7zu points: %7.1f ms (best of 3)\n",
                points ? ("downsampled to ~" + std::to_string(points)).c_str() : "in full", n, 1000 * best);
        }
        std::printf("  project file: %.1f MiB\n", double(fs::file_size(file)) / (1024.0 * 1024.0));
    }
    fs::remove_all(dir);
    return 0;
}

} // namespace tgraph::bench
