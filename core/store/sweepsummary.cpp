// SPDX-License-Identifier: Apache-2.0
#include "core/store/sweepsummary.h"

#include "core/store/sweeps.h"
#include "core/util/error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>

namespace tgraph {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<std::pair<std::string, std::string>> parseConfigText(const std::string& text)
{
    std::vector<std::pair<std::string, std::string>> out;
    std::istringstream items(text);
    std::string item;
    while (items >> item) {
        const size_t eq = item.find('=');
        out.emplace_back(item.substr(0, eq), eq == std::string::npos ? std::string() : item.substr(eq + 1));
    }
    return out;
}

} // namespace

SpreadStat spreadOf(const std::vector<double>& values)
{
    SpreadStat s;
    s.mean = s.std = s.min = s.max = kNaN;
    double sum = 0;
    for (double v : values) {
        if (std::isnan(v))
            continue;
        if (s.n == 0)
            s.min = s.max = v;
        s.min = std::min(s.min, v);
        s.max = std::max(s.max, v);
        sum += v;
        ++s.n;
    }
    if (s.n == 0)
        return s;
    s.mean = sum / double(s.n);
    if (s.n >= 2) {
        double squares = 0;
        for (double v : values)
            if (!std::isnan(v))
                squares += (v - s.mean) * (v - s.mean);
        s.std = std::sqrt(squares / double(s.n - 1));
    }
    return s;
}

SweepSummary summarizeSweep(const Project& project, const std::string& sweepKey)
{
    const auto sweep = project.findRun(sweepKey);
    if (!sweep || !isSweep(project, sweep->id))
        throw InputError(project.path(), "sweep " + sweepKey, "no such sweep, or the prefix or name is ambiguous");
    SweepSummary out;
    out.sweep = *sweep;
    std::map<std::string, RunRecord> byId;
    for (RunRecord& r : project.runs())
        if (r.parentRun == sweep->id)
            byId.emplace(r.id, std::move(r));
    const std::vector<SweepRunRecord> rows = sweepRuns(project, sweep->id);
    std::vector<std::string> ids;
    for (const SweepRunRecord& row : rows)
        ids.push_back(row.runId);
    std::map<std::pair<std::string, std::string>, double> latest; // (run, key) -> value
    for (const LatestMetric& m : project.latestMetrics(ids))
        if (m.context == "valid")
            latest[{ m.runId, m.key }] = m.value;
    auto metric = [&](const std::string& run, const char* key) {
        const auto it = latest.find({ run, key });
        return it == latest.end() ? kNaN : it->second;
    };
    std::map<int64_t, size_t> configIndex;
    for (const SweepRunRecord& row : rows) {
        SweepRunSummary r;
        r.runId = row.runId;
        r.config = row.config;
        r.seed = row.seed;
        r.attempts = row.attempts;
        const auto it = byId.find(row.runId);
        if (it != byId.end()) {
            r.name = it->second.name;
            r.status = it->second.status;
        }
        r.tau = metric(row.runId, "tau");
        r.opa = metric(row.runId, "opa");
        r.top5Slowdown = metric(row.runId, "top5_slowdown");
        out.runs.push_back(r);
        auto [slot, added] = configIndex.emplace(row.config, out.configs.size());
        if (added) {
            SweepConfigSummary c;
            c.config = row.config;
            c.text = row.configText;
            c.values = parseConfigText(row.configText);
            out.configs.push_back(std::move(c));
            for (const auto& [name, value] : out.configs.back().values)
                if (std::find(out.parameters.begin(), out.parameters.end(), name) == out.parameters.end())
                    out.parameters.push_back(name);
        }
        SweepConfigSummary& c = out.configs[slot->second];
        ++c.runs;
        c.runIds.push_back(row.runId);
        switch (r.status) {
        case RunStatus::Finished:
            ++c.finished;
            break;
        case RunStatus::Running:
            ++c.running;
            break;
        case RunStatus::Pending:
            ++c.queued;
            break;
        default:
            ++c.failed;
        }
    }
    std::sort(out.configs.begin(), out.configs.end(),
        [](const SweepConfigSummary& a, const SweepConfigSummary& b) { return a.config < b.config; });
    for (SweepConfigSummary& c : out.configs) {
        std::vector<double> tau, opa, top5;
        for (const SweepRunSummary& r : out.runs)
            if (r.config == c.config && r.status == RunStatus::Finished) {
                tau.push_back(r.tau);
                opa.push_back(r.opa);
                top5.push_back(r.top5Slowdown);
            }
        c.tau = spreadOf(tau);
        c.opa = spreadOf(opa);
        c.top5Slowdown = spreadOf(top5);
    }
    for (size_t i = 0; i < out.configs.size(); ++i)
        if (out.configs[i].tau.n > 0 && (out.best < 0 || out.configs[i].tau.mean > out.configs[size_t(out.best)].tau.mean))
            out.best = int(i);
    return out;
}

} // namespace tgraph
