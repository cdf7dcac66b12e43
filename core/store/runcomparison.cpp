// SPDX-License-Identifier: Apache-2.0
#include "core/store/runcomparison.h"

#include "core/store/project.h"
#include "core/util/error.h"
#include "core/util/terminaltext.h"
#include "core/util/json.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <set>

namespace tgraph {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The value of `key` (context "valid") logged at `step`; NaN when none.
double valueAt(const Project& project, const std::string& run, const std::string& key, int64_t step)
{
    const MetricSeries s = project.metricHistory(run, key, "valid");
    for (const MetricPoint& p : s.points)
        if (p.step == step)
            return p.value;
    return kNaN;
}

double median(std::vector<double> v)
{
    if (v.empty())
        return kNaN;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double number(const std::map<std::string, std::string>& map, const std::string& key)
{
    const auto it = map.find(key);
    if (it == map.end())
        return kNaN;
    try {
        return std::stod(it->second);
    } catch (const std::exception&) {
        return kNaN;
    }
}

std::string text(const std::map<std::string, std::string>& map, const std::string& key, const std::string& fallback)
{
    const auto it = map.find(key);
    return it == map.end() || it->second.empty() ? fallback : it->second;
}

ComparedRun describeRun(const Project& project, const RunRecord& record)
{
    ComparedRun r;
    r.id = record.id;
    r.name = record.name;
    const auto params = project.params(record.id);
    const auto tags = project.tags(record.id);
    r.model = text(params, "model", "tgraph");
    r.loss = text(params, "loss", r.model == "tgraph" ? "hinge" : "?");
    r.kind = text(params, "kind", "?");
    r.data = text(params, "data", "");
    const double parameters = number(params, "parameters");
    r.parameters = std::isfinite(parameters) ? int64_t(parameters) : -1;
    r.peakRssMb = number(tags, "peak_rss_mb");

    // The evaluation to show: the best step when the run recorded one, else the latest.
    const MetricSeries tau = project.metricHistory(record.id, "tau", "valid");
    const double best = number(tags, "best_step");
    if (std::isfinite(best))
        r.step = int64_t(best);
    else if (!tau.points.empty())
        r.step = tau.points.back().step;
    r.tau = r.opa = r.top1Slowdown = r.top5Slowdown = r.ape = r.tileScore = r.inferMsPer128 = kNaN;
    if (r.step >= 0) {
        r.tau = valueAt(project, record.id, "tau", r.step);
        r.opa = valueAt(project, record.id, "opa", r.step);
        r.top1Slowdown = valueAt(project, record.id, "top1_slowdown", r.step);
        r.top5Slowdown = valueAt(project, record.id, "top5_slowdown", r.step);
        r.ape = valueAt(project, record.id, "ape", r.step);
        r.tileScore = valueAt(project, record.id, "tile_score", r.step);
        int64_t configs = 0;
        for (const GraphMetricRecord& g : project.graphMetrics(record.id, r.step)) {
            r.graphTau[g.graph] = g.kendallTau;
            configs += g.configs;
        }
        r.graphs = int(r.graphTau.size());
        const double seconds = valueAt(project, record.id, "eval_seconds", r.step);
        if (configs > 0 && std::isfinite(seconds))
            r.inferMsPer128 = 1000.0 * seconds * 128.0 / double(configs);
    }
    std::vector<double> stepMs;
    for (const MetricPoint& p : project.metricHistory(record.id, "steps_per_s", "train").points)
        if (p.value > 0 && std::isfinite(p.value))
            stepMs.push_back(1000.0 / p.value);
    r.trainMsPerStep = median(stepMs);
    return r;
}

std::string fixed(double v, int decimals)
{
    if (!std::isfinite(v))
        return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string percent(double v) { return std::isfinite(v) ? fixed(100.0 * v, 2) + "%" : "-"; }

std::string graphLabel(const std::string& graph) { return terminalText(std::filesystem::path(graph).stem().string()); }

// Names and paths a project stores are escaped for the terminal (core/util/format.h).
std::string runLabel(const ComparedRun& r) { return r.name.empty() ? r.id.substr(0, 8) : terminalText(r.name); }

std::string padded(const std::string& s, size_t width, bool right = false)
{
    if (s.size() >= width)
        return s;
    return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

} // namespace

RunComparison compareRuns(const Project& project, const std::vector<std::string>& keys)
{
    if (keys.empty())
        throw InputError(project.path(), "--runs", "name at least one run to compare");
    RunComparison out;
    std::set<std::string> seen;
    for (const std::string& key : keys) {
        const auto record = project.findRun(key);
        if (!record)
            throw InputError(project.path(), "run " + key, "no such run, or the prefix or name is ambiguous");
        if (!seen.insert(record->id).second)
            throw InputError(project.path(), "run " + key, "is asked twice");
        out.runs.push_back(describeRun(project, *record));
    }
    std::set<std::string> graphs;
    for (const ComparedRun& r : out.runs)
        for (const auto& [g, tau] : r.graphTau)
            graphs.insert(g);
    out.graphs.assign(graphs.begin(), graphs.end());
    for (size_t a = 0; a < out.runs.size(); ++a)
        for (size_t b = a + 1; b < out.runs.size(); ++b) {
            PairwiseWins w;
            w.a = a;
            w.b = b;
            for (const auto& [g, tauA] : out.runs[a].graphTau) {
                const auto it = out.runs[b].graphTau.find(g);
                if (it == out.runs[b].graphTau.end() || !std::isfinite(tauA) || !std::isfinite(it->second))
                    continue;
                const double d = tauA - it->second;
                if (d > 1e-9) {
                    ++w.aBetter;
                    w.graphsABetter.push_back(g);
                } else if (d < -1e-9) {
                    ++w.bBetter;
                    w.graphsBBetter.push_back(g);
                } else {
                    ++w.ties;
                }
            }
            out.pairs.push_back(std::move(w));
        }
    return out;
}

std::string comparisonText(const RunComparison& c)
{
    std::string out;
    const char* header[] = { "run", "model", "loss", "kind", "graphs", "step", "tau", "OPA", "top-1 slow", "top-5 slow",
        "APE", "params", "ms/step", "ms/128 cfg", "peak MB" };
    std::vector<std::vector<std::string>> rows;
    for (const ComparedRun& r : c.runs)
        rows.push_back({ runLabel(r), terminalText(r.model), terminalText(r.loss), terminalText(r.kind), std::to_string(r.graphs),
            r.step < 0 ? "-" : std::to_string(r.step), fixed(r.tau, 4), fixed(r.opa, 4), percent(r.top1Slowdown),
            percent(r.top5Slowdown), std::isfinite(r.ape) ? fixed(r.ape, 2) + "%" : "-",
            r.parameters < 0 ? "-" : std::to_string(r.parameters), fixed(r.trainMsPerStep, 1),
            fixed(r.inferMsPer128, 1), fixed(r.peakRssMb, 0) });
    std::vector<size_t> width(std::size(header));
    for (size_t k = 0; k < width.size(); ++k) {
        width[k] = std::string(header[k]).size();
        for (const auto& row : rows)
            width[k] = std::max(width[k], row[k].size());
    }
    for (size_t k = 0; k < width.size(); ++k)
        out += padded(header[k], width[k], k >= 4) + (k + 1 < width.size() ? "  " : "\n");
    for (const auto& row : rows)
        for (size_t k = 0; k < width.size(); ++k)
            out += padded(row[k], width[k], k >= 4) + (k + 1 < width.size() ? "  " : "\n");
    for (const ComparedRun& r : c.runs)
        if (r.step < 0)
            out += "note: " + runLabel(r) + " has no validation evaluation (train with valid/ graphs)\n";

    if (!c.graphs.empty()) {
        out += "\nper-graph Kendall tau\n";
        size_t gw = 5;
        for (const std::string& g : c.graphs)
            gw = std::max(gw, graphLabel(g).size());
        out += padded("graph", gw);
        for (const ComparedRun& r : c.runs)
            out += "  " + padded(runLabel(r), std::max<size_t>(8, runLabel(r).size()), true);
        out += "\n";
        for (const std::string& g : c.graphs) {
            out += padded(graphLabel(g), gw);
            for (const ComparedRun& r : c.runs) {
                const auto it = r.graphTau.find(g);
                out += "  "
                    + padded(it == r.graphTau.end() ? "-" : fixed(it->second, 4),
                        std::max<size_t>(8, runLabel(r).size()), true);
            }
            out += "\n";
        }
    }
    if (!c.pairs.empty()) {
        out += "\nwhich graphs does A rank better than B (higher tau)\n";
        for (const PairwiseWins& w : c.pairs) {
            const std::string a = runLabel(c.runs[w.a]), b = runLabel(c.runs[w.b]);
            out += a + " vs " + b + ": " + a + " better on " + std::to_string(w.aBetter) + ", " + b + " better on "
                + std::to_string(w.bBetter) + ", ties " + std::to_string(w.ties) + "\n";
        }
    }
    return out;
}

std::string comparisonJson(const RunComparison& c)
{
    Json json;
    Json& runs = json["runs"] = Json::array();
    for (const ComparedRun& r : c.runs) {
        Json& run = runs.emplace_back();
        run["id"] = r.id;
        run["name"] = r.name;
        run["model"] = r.model;
        run["loss"] = r.loss;
        run["kind"] = r.kind;
        run["data"] = r.data;
        run["parameters"] = r.parameters;
        run["step"] = r.step;
        run["graphs"] = r.graphs;
        run["tau"] = r.tau;
        run["opa"] = r.opa;
        run["top1_slowdown"] = r.top1Slowdown;
        run["top5_slowdown"] = r.top5Slowdown;
        run["ape"] = r.ape;
        run["tile_score"] = r.tileScore;
        run["train_ms_per_step"] = r.trainMsPerStep;
        run["infer_ms_per_128_configs"] = r.inferMsPer128;
        run["peak_rss_mb"] = r.peakRssMb;
        Json& graphTau = run["graph_tau"] = Json::object();
        for (const auto& [g, tau] : r.graphTau)
            graphTau[g] = tau;
    }
    Json& pairs = json["pairs"] = Json::array();
    for (const PairwiseWins& p : c.pairs) {
        Json& pair = pairs.emplace_back();
        pair["a"] = c.runs[p.a].id;
        pair["b"] = c.runs[p.b].id;
        pair["a_better"] = p.aBetter;
        pair["b_better"] = p.bBetter;
        pair["ties"] = p.ties;
        pair["graphs_a_better"] = p.graphsABetter;
        pair["graphs_b_better"] = p.graphsBBetter;
    }
    return jsonText(json) + "\n";
}

} // namespace tgraph
