// SPDX-License-Identifier: Apache-2.0
// `tgraph sweep`: many `tgraph train` runs of a grid or random search space times seeds, queued in
// a project file and run as child processes K at a time; `sweep --resume`, `stop`, `report`,
// `list` (docs/store.md §9).
#include "argparser.h"
#include "commands.h"
#include "sweeprunner.h"
#include "sweepspec.h"
#include "terminalprogress.h"

#include "core/store/project.h"
#include "core/store/sweeps.h"
#include "core/store/sweepsummary.h"
#include "core/util/atomicfile.h"
#include "core/util/childprocess.h"
#include "core/util/error.h"
#include "core/util/json.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <set>
#include <thread>
#include <unistd.h>

namespace tgraph::cli {

namespace {

namespace fs = std::filesystem;

constexpr const char* kCommand = "sweep";

std::vector<std::string> g_args; // the command's arguments, for the sweep's record
std::vector<std::string> g_trainOptions; // the `tgraph train` options given to the sweep

struct SweepOption
{
    const char* name;
    const char* shortName;
    const char* valueName; // "" = a flag
    const char* help;
    const char* defaultValue;
    OptionType type;
};

const std::vector<SweepOption>& sweepOptions()
{
    static const std::vector<SweepOption> list = {
        { "--project", "-p", "P.tgproj", "the project file (created when missing)", "", {} },
        { "--data", "", "DIR|FILE", "the training data of every run (as tgraph train --data)", "", {} },
        { "--grid", "", "SPEC",
            "a grid: 'NAME=V1,V2 NAME=V1,...' over tgraph train options without their dashes (lr, hidden, "
            "cross-attn, loss, model, dropout, weight-decay, configs-per-step, steps, ...; switches such as "
            "bidirectional-edges take on,off); every combination is a configuration",
            "", {} },
        { "--random", "", "N", "N random configurations drawn from --space", "", opt::integer(1, 100000) },
        { "--space", "", "SPEC",
            "the random search space: NAME=V1,V2 (a choice), NAME=LOW..HIGH (uniform; integers when both bounds "
            "are), NAME=log:LOW..HIGH (log-uniform); reals are rounded to 3 significant digits",
            "", {} },
        { "--sweep-seed", "", "S", "seed of the random draws", "0", opt::size() },
        { "--seeds", "", "S", "runs per configuration, with the seeds B, B+1, ..., B+S-1", "1", opt::integer(1, 1000) },
        { "--seed-base", "", "B", "the first seed", "42", opt::size(1ull << 62) },
        { "--parallel", "-j", "K",
            "child runs at once (a --resume keeps the sweep's unless given); each gets --threads", "", opt::integer(1, 256) },
        { "--threads", "", "T", "LibTorch threads per child run (0 = max(1, cores / K))", "0", opt::integer(0, 1024) },
        { "--name", "", "NAME", "the sweep's run name (default: sweep-N)", "", {} },
        { "--experiment", "", "NAME", "the experiment of the sweep and its runs", "Default", {} },
        { "--resume", "", "SWEEP",
            "continue sweep SWEEP: its interrupted runs (KILLED, CRASHED) are queued again and start over; runs "
            "still running are waited for",
            "", {} },
        { "--timeout", "", "S", "stop: seconds the runs get to write their checkpoints before SIGKILL", "60",
            opt::duration(0, 86400) },
        { "--json", "", "", "report: JSON instead of a table", "", {} },
        { "--output", "-o", "FILE", "report: write it to FILE instead of the terminal", "", {} },
    };
    return list;
}

const SweepOption* findSweepOption(const std::string& token)
{
    const std::string name = token.substr(0, token.find('='));
    for (const SweepOption& o : sweepOptions())
        if (name == o.name || (o.shortName[0] && name == o.shortName))
            return &o;
    return nullptr;
}

// The sweep's own arguments and the `tgraph train` options given with them. A word that is no
// option belongs to the option before it (its owner's value), or to the sweep before any option.
void splitArguments(
    const std::vector<std::string>& args, std::vector<std::string>* sweep, std::vector<std::string>* train)
{
    bool toTrain = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a.size() < 2 || a[0] != '-') {
            (toTrain ? train : sweep)->push_back(a);
            continue;
        }
        if (a == "--help" || a == "-h") {
            sweep->push_back(a);
            continue;
        }
        const SweepOption* o = findSweepOption(a);
        if (!o) {
            toTrain = true;
            train->push_back(a);
            continue;
        }
        toTrain = false;
        sweep->push_back(a);
        if (o->valueName[0] && a.find('=') == std::string::npos && i + 1 < args.size())
            sweep->push_back(args[++i]);
    }
}

int threadsFor(int parallel, int requested)
{
    if (requested > 0)
        return requested;
    const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
    return std::max(1, cores / std::max(1, parallel));
}

// How this process drives the sweep: K children at once, their threads, the stop timeout.
SweepDrive driveOf(const ArgParser& p, const std::string& projectPath, const std::string& sweepId, int parallel)
{
    SweepDrive drive;
    drive.projectPath = projectPath;
    drive.sweepId = sweepId;
    drive.parallel = parallel;
    drive.threads = threadsFor(parallel, p.get<int>("--threads"));
    drive.stopTimeoutSeconds = int(p.get<std::chrono::milliseconds>("--timeout").count() / 1000);
    return drive;
}

// Each configuration's arguments through `tgraph train --check-options`: the train command's own
// parser and checks (option names, value ranges, combinations) before anything starts.
std::string checkWithTrain(const std::vector<std::string>& trainArguments, const std::string& project)
{
    std::vector<std::string> argv { modelExecutable(), "train" };
    argv.insert(argv.end(), trainArguments.begin(), trainArguments.end());
    argv.insert(argv.end(), { "--project", project, "--check-options", "--threads", "1", "--no-progress" });
    ChildProcessOptions options;
    options.timeoutMs = 120000;
    const ChildProcessResult r = runChildProcess(argv, {}, options);
    if (r.exitCode == 0)
        return {};
    std::string err = r.err;
    while (!err.empty() && (err.back() == '\n' || err.back() == '\r'))
        err.pop_back();
    if (const size_t nl = err.find('\n'); nl != std::string::npos)
        err.erase(nl);
    const std::string see = " (see 'tgraph train --help')";
    if (err.size() > see.size() && err.compare(err.size() - see.size(), see.size(), see) == 0)
        err.erase(err.size() - see.size());
    return err.empty() ? "tgraph train refused it (exit status " + std::to_string(r.exitCode) + ")" : err;
}

std::string requireSweepKey(const ArgParser& p, const std::string& action)
{
    const auto& pos = p.positionals();
    if (pos.size() != 2)
        throw std::invalid_argument(action + " needs exactly one sweep (its id, an id prefix or its name)");
    return pos[1];
}

std::string resolveSweep(const Project& project, const std::string& key)
{
    const auto run = project.findRun(key);
    if (!run || !isSweep(project, run->id))
        throw InputError(project.path(), "sweep " + key, "no such sweep, or the id prefix or name is ambiguous");
    return run->id;
}

// ---- start ------------------------------------------------------------------------------------

int start(const ArgParser& p, const std::vector<std::string>& trainOptions)
{
    const std::string projectPath = p.value("--project");
    const std::string data = p.value("--data");
    const int parallel = p.has("--parallel") ? p.get<int>("--parallel") : 1;
    // The spec first: every refusal is a usage error before anything starts.
    std::vector<SweepConfig> configs;
    std::string specText;
    try {
        if (p.has("--grid") && (p.has("--random") || p.has("--space")))
            throw SweepSpecError("give --grid or --random N --space SPEC, not both");
        if (p.has("--grid")) {
            std::string grid;
            for (const std::string& g : p.values("--grid"))
                grid += (grid.empty() ? "" : " ") + g;
            configs = gridConfigs(parseSweepSpec(grid, false, "--grid"));
            specText = "grid: " + grid;
        } else if (p.has("--random") || p.has("--space")) {
            if (!p.has("--random") || !p.has("--space"))
                throw SweepSpecError("--random N and --space SPEC go together");
            const std::string space = p.value("--space");
            configs = randomConfigs(
                parseSweepSpec(space, true, "--space"), p.get<int64_t>("--random"), p.get<uint64_t>("--sweep-seed"));
            specText = "random " + p.value("--random") + " (seed " + p.value("--sweep-seed") + "): " + space;
        } else {
            throw SweepSpecError("nothing to sweep: give --grid SPEC or --random N --space SPEC");
        }
    } catch (const SweepSpecError& e) {
        return usageError(kCommand, e.what());
    }
    for (size_t i = 0; i < trainOptions.size(); ++i) {
        const std::string& a = trainOptions[i];
        if (a.empty() || a[0] != '-')
            continue;
        const std::string name = a.substr(0, a.find('='));
        if (const std::string why = sweepOwnedOption(name); !why.empty())
            return usageError(kCommand, name + " is not a train option of a sweep: " + why);
        for (const SweepConfig& c : configs)
            for (const auto& [param, value] : c.values)
                if (name == "--" + param)
                    return usageError(kCommand, name + " is both swept and given as a train option");
    }
    if (projectPath.empty())
        return usageError(kCommand, "missing --project P.tgproj");
    if (data.empty())
        return usageError(kCommand, "missing --data DIR|FILE (the training data of every run)");
    std::error_code ec;
    if (!fs::exists(data, ec))
        throw InputError(data, "", "no such file or directory (--data)");
    const std::string absoluteData = fs::absolute(data).lexically_normal().string();

    const int64_t seeds = p.get<int64_t>("--seeds");
    const uint64_t seedBase = p.get<uint64_t>("--seed-base");
    std::vector<SweepRunPlan> plans;
    std::printf("checking %zu configuration(s) with tgraph train\n", configs.size());
    std::fflush(stdout);
    std::vector<std::vector<std::string>> configArgs(configs.size());
    for (size_t c = 0; c < configs.size(); ++c) {
        configArgs[c] = { "--data", absoluteData };
        const std::vector<std::string> swept = configArguments(configs[c]);
        configArgs[c].insert(configArgs[c].end(), swept.begin(), swept.end());
        configArgs[c].insert(configArgs[c].end(), trainOptions.begin(), trainOptions.end());
    }
    // A check is a process start (about 0.8 s, mostly loading LibTorch): a few at once.
    std::vector<std::string> problems(configs.size());
    {
        std::atomic<size_t> next { 0 };
        std::vector<std::thread> checkers;
        const size_t workers = std::min<size_t>(configs.size(), std::max(2u, std::thread::hardware_concurrency()));
        for (size_t w = 0; w < workers; ++w)
            checkers.emplace_back([&] {
                for (size_t c = next++; c < configs.size(); c = next++)
                    problems[c] = checkWithTrain(configArgs[c], projectPath);
            });
        for (std::thread& t : checkers)
            t.join();
    }
    for (size_t c = 0; c < configs.size(); ++c) {
        if (!problems[c].empty())
            return usageError(kCommand, "configuration " + std::to_string(c) + " (" + configs[c].text() + "): " + problems[c]);
        const std::vector<std::string>& args = configArgs[c];
        for (int64_t s = 0; s < seeds; ++s) {
            SweepRunPlan plan;
            plan.config = int64_t(c);
            plan.configText = configs[c].text();
            plan.seed = int64_t(seedBase) + s;
            plan.arguments = args;
            plan.arguments.insert(plan.arguments.end(), { "--seed", std::to_string(plan.seed) });
            plans.push_back(std::move(plan));
        }
    }
    if (interruptRequested()) // Ctrl-C while the configurations were checked: nothing was made
        throw Cancelled();
    // Seed-major: every configuration's first seed before any second one, so a stopped sweep has
    // seen all configurations.
    std::stable_sort(plans.begin(), plans.end(),
        [](const SweepRunPlan& a, const SweepRunPlan& b) { return a.seed < b.seed; });

    Project project = Project::openOrCreate(projectPath);
    RunStart s;
    s.experiment = p.value("--experiment");
    s.name = p.value("--name");
    if (s.name.empty())
        s.name = "sweep-" + std::to_string(sweepIds(project).size() + 1);
    std::vector<std::string> all { "sweep" };
    all.insert(all.end(), g_args.begin(), g_args.end());
    s.commandLine = commandLineOf(all);
    Json train = Json::array();
    for (const std::string& a : trainOptions)
        train.push_back(a);
    const std::string id = createSweep(project, s,
        { { "sweep.spec", specText }, { "sweep.configurations", std::to_string(configs.size()) },
            { "sweep.seeds", std::to_string(seeds) }, { "sweep.seed_base", std::to_string(seedBase) },
            { "sweep.data", absoluteData }, { "sweep.train_options", jsonText(train, true) } },
        plans);
    project.setTag(id, "sweep.parallel", std::to_string(parallel));
    const SweepDrive drive = driveOf(p, projectPath, id, parallel);
    std::printf("sweep %s (%s): %zu configuration(s) x %lld seed(s) = %zu runs, %d at once with %d thread(s) each\n",
        id.c_str(), s.name.c_str(), configs.size(), (long long)seeds, plans.size(), parallel, drive.threads);
    std::fflush(stdout);
    return driveSweep(project, drive);
}

// ---- resume -----------------------------------------------------------------------------------

int resume(const ArgParser& p)
{
    const std::string projectPath = p.value("--project");
    Project project = Project::open(projectPath, Project::Access::Write); // records crashed runs
    const std::string id = resolveSweep(project, p.value("--resume"));
    const auto sweep = project.findRun(id);
    if (sweep->status == RunStatus::Running && project.runProcessAlive(id))
        throw InputError(projectPath, "sweep " + id.substr(0, 8),
            "is running (pid " + std::to_string(sweep->pid) + " on " + sweep->host
                + "); stop it first: tgraph sweep stop " + id.substr(0, 8) + " --project " + projectPath);
    int requeued = 0, continuing = 0;
    for (const RunRecord& r : project.runs())
        if (r.parentRun == id && (r.status == RunStatus::Killed || r.status == RunStatus::Crashed)) {
            continuing += requeueSweepRun(project, r.id) ? 1 : 0;
            ++requeued;
        }
    std::vector<std::string> all { "sweep", "--resume", id, "--project", projectPath };
    project.adoptRun(id, int64_t(::getpid()), commandLineOf(all));
    int parallel = 1;
    if (p.has("--parallel")) {
        parallel = p.get<int>("--parallel");
        project.setTag(id, "sweep.parallel", std::to_string(parallel));
    } else {
        const auto tags = project.tags(id);
        if (const auto it = tags.find("sweep.parallel"); it != tags.end())
            parallel = std::clamp(std::atoi(it->second.c_str()), 1, 256);
    }
    const SweepDrive drive = driveOf(p, projectPath, id, parallel);
    std::printf("sweep %s resumed: %d interrupted run(s) queued again (%d to continue from their checkpoints), %d at "
                "once with %d thread(s) each\n",
        id.substr(0, 8).c_str(), requeued, continuing, parallel, drive.threads);
    std::fflush(stdout);
    return driveSweep(project, drive);
}

// ---- stop -------------------------------------------------------------------------------------

bool waitUntil(const std::function<bool()>& done, std::chrono::milliseconds timeout)
{
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        if (done())
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return done();
}

int stop(const ArgParser& p)
{
    const std::string projectPath = p.value("--project");
    Project project = Project::open(projectPath, Project::Access::Write);
    const std::string id = resolveSweep(project, requireSweepKey(p, "stop"));
    const auto timeout = p.get<std::chrono::milliseconds>("--timeout");
    const auto sweep = project.findRun(id);
    if (sweep->status == RunStatus::Running && project.runProcessAlive(id)) {
        if (sweep->host != hostName())
            throw InputError(projectPath, "sweep " + id.substr(0, 8),
                "runs on host " + sweep->host + "; stop it there (this is " + hostName() + ")");
        // The sweep process stops its children (SIGTERM, SIGKILL after its own --timeout) and ends KILLED.
        std::printf("stopping sweep %s (pid %lld)\n", id.substr(0, 8).c_str(), (long long)sweep->pid);
        ::kill(pid_t(sweep->pid), SIGTERM);
        const bool ended = waitUntil(
            [&] {
                const auto now = project.findRun(id);
                return !now || isTerminal(now->status);
            },
            timeout + std::chrono::seconds(70));
        if (!ended)
            ::kill(pid_t(sweep->pid), SIGKILL);
    }
    // Children still running without their sweep process (it was killed): stopped here.
    std::vector<RunRecord> running;
    for (const RunRecord& r : project.runs())
        if (r.parentRun == id && r.status == RunStatus::Running && r.host == hostName() && r.pid > 0)
            running.push_back(r);
    for (const RunRecord& r : running) {
        std::printf("stopping run %s (pid %lld)\n", r.id.substr(0, 8).c_str(), (long long)r.pid);
        ::kill(-pid_t(r.pid), SIGTERM);
        ::kill(pid_t(r.pid), SIGTERM);
    }
    waitUntil(
        [&] {
            for (const RunRecord& r : running)
                if (project.runProcessAlive(r.id))
                    return false;
            return true;
        },
        timeout);
    for (const RunRecord& r : running) {
        if (project.runProcessAlive(r.id)) {
            ::kill(-pid_t(r.pid), SIGKILL);
            ::kill(pid_t(r.pid), SIGKILL);
        }
        const auto now = project.findRun(r.id);
        if (now && (now->status == RunStatus::Running || now->crashNotRecorded))
            project.setRunStatus(r.id, RunStatus::Killed, "stopped with its sweep");
    }
    const auto now = project.findRun(id);
    if (now && (!isTerminal(now->status) || now->crashNotRecorded))
        project.setRunStatus(id, RunStatus::Killed,
            "stopped; resume with: tgraph sweep --resume " + id.substr(0, 8) + " --project " + projectPath);
    else if (now && now->status == RunStatus::Crashed)
        project.setRunStatus(id, RunStatus::Killed,
            "stopped after its process was gone; resume with: tgraph sweep --resume " + id.substr(0, 8) + " --project "
                + projectPath);
    const auto final = project.findRun(id);
    std::printf("sweep %s: %s%s%s\n", id.substr(0, 8).c_str(), runStatusName(final->status),
        final->message.empty() ? "" : " - ", final->message.c_str());
    return ExitOk;
}

// ---- report -----------------------------------------------------------------------------------

Json statJson(const SpreadStat& s)
{
    Json o = Json::object();
    o["n"] = s.n;
    o["mean"] = s.mean;
    o["std"] = s.std;
    o["min"] = s.min;
    o["max"] = s.max;
    return o;
}

Json paramsJson(const std::vector<std::pair<std::string, std::string>>& values)
{
    Json o = Json::object();
    for (const auto& [k, v] : values)
        o[k] = v;
    return o;
}

std::string reportJson(const SweepSummary& s)
{
    Json root = Json::object();
    root["sweep"] = s.sweep.id;
    root["name"] = s.sweep.name;
    root["status"] = runStatusName(s.sweep.status);
    root["parameters"] = s.parameters;
    root["metrics"] = "the last validation evaluation of each finished run (valid/tau, valid/opa, "
                      "valid/top5_slowdown); std is the sample standard deviation over seeds";
    Json configs = Json::array();
    for (const SweepConfigSummary& c : s.configs) {
        Json o = Json::object();
        o["config"] = c.config;
        o["parameters"] = paramsJson(c.values);
        o["runs"] = c.runs;
        o["finished"] = c.finished;
        o["running"] = c.running;
        o["queued"] = c.queued;
        o["failed"] = c.failed;
        o["tau"] = statJson(c.tau);
        o["opa"] = statJson(c.opa);
        o["top5_slowdown"] = statJson(c.top5Slowdown);
        o["run_ids"] = c.runIds;
        configs.push_back(std::move(o));
    }
    root["configurations"] = std::move(configs);
    Json runs = Json::array();
    for (const SweepRunSummary& r : s.runs) {
        Json o = Json::object();
        o["run"] = r.runId;
        o["name"] = r.name;
        o["config"] = r.config;
        o["seed"] = r.seed;
        o["status"] = runStatusName(r.status);
        o["attempts"] = r.attempts;
        o["tau"] = r.tau;
        o["opa"] = r.opa;
        o["top5_slowdown"] = r.top5Slowdown;
        runs.push_back(std::move(o));
    }
    root["runs"] = std::move(runs);
    if (s.best >= 0) {
        const SweepConfigSummary& b = s.configs[size_t(s.best)];
        Json best = Json::object();
        best["config"] = b.config;
        best["parameters"] = paramsJson(b.values);
        best["tau_mean"] = b.tau.mean;
        best["tau_std"] = b.tau.std;
        best["finished"] = b.finished;
        root["best"] = std::move(best);
    } else {
        root["best"] = nullptr;
    }
    return jsonText(root) + "\n";
}

std::string meanStd(const SpreadStat& s)
{
    if (s.n == 0)
        return "-";
    char buf[64];
    if (s.n < 2)
        std::snprintf(buf, sizeof buf, "%.4f", s.mean);
    else
        std::snprintf(buf, sizeof buf, "%.4f ± %.4f", s.mean, s.std);
    return buf;
}

// `text` padded with spaces to `width` columns (UTF-8: "±" is one column, two bytes).
std::string padded(const std::string& text, size_t width)
{
    size_t columns = 0;
    for (unsigned char c : text)
        columns += (c & 0xC0) != 0x80;
    return text + std::string(columns < width ? width - columns : 0, ' ');
}

std::string reportText(const SweepSummary& s)
{
    std::string out;
    char line[512];
    std::snprintf(line, sizeof line, "sweep %s (%s): %s, %zu configuration(s), %zu run(s)\n", s.sweep.id.c_str(),
        s.sweep.name.c_str(), runStatusName(s.sweep.status), s.configs.size(), s.runs.size());
    out += line;
    out += "metrics: each finished run's last validation evaluation; mean ± sample std over its seeds\n\n";
    size_t width = 10;
    for (const SweepConfigSummary& c : s.configs)
        width = std::max(width, c.text.size());
    std::snprintf(line, sizeof line, "%-6s %-*s %-8s %-17s %-17s %s\n", "CONFIG", int(width), "PARAMETERS",
        "SEEDS", "TAU", "OPA", "TOP-5 SLOWDOWN");
    out += line;
    for (size_t i = 0; i < s.configs.size(); ++i) {
        const SweepConfigSummary& c = s.configs[i];
        const std::string seeds = std::to_string(c.finished) + "/" + std::to_string(c.runs);
        std::snprintf(line, sizeof line, "%-6s %-*s %-8s ",
            (std::to_string(c.config) + (int(i) == s.best ? "*" : "")).c_str(), int(width), c.text.c_str(),
            seeds.c_str());
        out += line + padded(meanStd(c.tau), 17) + " " + padded(meanStd(c.opa), 17) + " " + meanStd(c.top5Slowdown)
            + "\n";
    }
    if (s.best >= 0) {
        const SweepConfigSummary& b = s.configs[size_t(s.best)];
        out += "\nbest: configuration " + std::to_string(b.config) + " (" + b.text + "), mean tau "
            + meanStd(b.tau) + " over " + std::to_string(b.finished) + " finished seed(s)\n";
    } else {
        out += "\nbest: none yet (no run finished)\n";
    }
    return out;
}

int report(const ArgParser& p)
{
    const Project project = Project::open(p.value("--project"), Project::Access::Read);
    const SweepSummary s = summarizeSweep(project, requireSweepKey(p, "report"));
    const std::string text = p.has("--json") ? reportJson(s) : reportText(s);
    if (p.has("--output")) {
        writeFileAtomically(p.value("--output"), [&](AtomicFile& out) { out.write(text); });
        std::printf("wrote %s\n", p.value("--output").c_str());
    } else {
        std::fputs(text.c_str(), stdout);
    }
    return ExitOk;
}

int list(const ArgParser& p)
{
    const Project project = Project::open(p.value("--project"), Project::Access::Read);
    const auto ids = sweepIds(project);
    if (ids.empty()) {
        std::printf("no sweeps in %s\n", project.path().c_str());
        return ExitOk;
    }
    std::printf("%-10s %-16s %-9s %6s %9s %8s %7s %7s\n", "ID", "NAME", "STATUS", "CONFIGS", "FINISHED", "RUNNING",
        "QUEUED", "FAILED");
    for (const std::string& id : ids) {
        const SweepSummary s = summarizeSweep(project, id);
        int64_t finished = 0, running = 0, queued = 0, failed = 0;
        for (const SweepConfigSummary& c : s.configs) {
            finished += c.finished;
            running += c.running;
            queued += c.queued;
            failed += c.failed;
        }
        std::printf("%-10s %-16.16s %-9s %6zu %9lld %8lld %7lld %7lld\n", id.substr(0, 8).c_str(), s.sweep.name.c_str(),
            runStatusName(s.sweep.status), s.configs.size(), (long long)finished, (long long)running,
            (long long)queued, (long long)failed);
    }
    return ExitOk;
}

int dispatch(const ArgParser& p)
{
    const auto& pos = p.positionals();
    try {
        if (pos.empty())
            return p.has("--resume") ? resume(p) : start(p, g_trainOptions);
        if (pos[0] == "report")
            return report(p);
        if (pos[0] == "stop")
            return stop(p);
        return list(p);
    } catch (const SweepSpecError& e) {
        return usageError(kCommand, e.what());
    } catch (const std::invalid_argument& e) {
        return usageError(kCommand, e.what());
    }
}

} // namespace

int runSweep(const std::vector<std::string>& args)
{
    ArgParser p(kCommand,
        "Sweeps: many 'tgraph train' runs of a grid (--grid) or of random draws from a search space (--random N\n"
        "--space), each configuration with S seeds, queued in the project file and run as child processes, K at\n"
        "once with the cores shared among them (docs/store.md §9). The sweep is a run of the project; its\n"
        "runs are its child runs. Every configuration is checked by 'tgraph train --check-options' before\n"
        "anything starts. Options that are not the sweep's go to every run (e.g. --steps 200 --eval-every 50).\n"
        "The queue lives in the project: a killed sweep continues with --resume (interrupted runs start over,\n"
        "runs still running are waited for, none runs twice); stop stops the sweep and all its runs; report\n"
        "gives one row per configuration with mean ± std over seeds of validation tau, OPA and top-5\n"
        "slowdown and the best configuration; list shows the project's sweeps.",
        "--project P --data D (--grid SPEC | --random N --space SPEC) [--seeds S] [--parallel K] [train options]\n"
        "       tgraph sweep --resume SWEEP --project P [--parallel K]\n"
        "       tgraph sweep stop SWEEP --project P [--timeout S]\n"
        "       tgraph sweep report SWEEP --project P [--json] [-o FILE]\n"
        "       tgraph sweep list --project P");
    p.addPositional("ACTION", "stop, report or list (none: start a sweep, or --resume one)");
    p.addPositional("SWEEP", "stop, report: the sweep (its id, an id prefix or its name)");
    for (const SweepOption& o : sweepOptions())
        p.addOption(o.name, o.shortName, o.valueName, o.help, o.defaultValue, o.type);
    p.addNote("Example: tgraph sweep --project p.tgproj --data coll --grid 'lr=1e-3,3e-4 hidden=64,128 cross-attn=on,off'\n"
              "  --seeds 3 --parallel 2 --steps 2000 --eval-every 500\n"
              "Exit status: 0 every run finished, 1 bad input or some run failed, 2 usage (a bad spec or train\n"
              "option: nothing was started), 130 stopped (SIGINT / SIGTERM: the running runs are stopped with\n"
              "their checkpoints; the queue stays for --resume).");
    std::vector<std::string> sweepArgs;
    g_args = args;
    g_trainOptions.clear();
    splitArguments(args, &sweepArgs, &g_trainOptions);
    if (const int rc = parseOrExit(p, sweepArgs); rc >= 0)
        return rc;
    const auto& pos = p.positionals();
    static const std::vector<std::string> actions { "stop", "report", "list" };
    if (!pos.empty() && std::find(actions.begin(), actions.end(), pos[0]) == actions.end())
        return usageError(kCommand, "unknown action '" + pos[0] + "' (stop, report or list; none starts a sweep)");
    if (p.value("--project").empty())
        return usageError(kCommand, "missing --project P.tgproj");
    if (!pos.empty() && pos[0] == "list" && pos.size() != 1)
        return usageError(kCommand, "list takes no sweep");
    if (!pos.empty() && pos[0] != "list" && pos.size() != 2)
        return usageError(kCommand, pos[0] + " needs exactly one sweep (its id, an id prefix or its name)");
    if ((!pos.empty() || p.has("--resume")) && !g_trainOptions.empty())
        return usageError(kCommand,
            "train options (" + g_trainOptions.front() + " ...) are given when a sweep starts, not to "
                + (pos.empty() ? std::string("--resume") : pos[0]));
    if (pos.empty() && p.has("--resume")
        && (p.has("--grid") || p.has("--random") || p.has("--space") || p.has("--data") || p.has("--seeds")))
        return usageError(kCommand, "--resume continues a sweep as it was made: no --grid, --random, --space, --data or --seeds");
    return guarded(kCommand, dispatch, p);
}

} // namespace tgraph::cli
