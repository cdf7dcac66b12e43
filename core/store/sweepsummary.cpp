// SPDX-License-Identifier: Apache-2.0
#include "core/store/sweepsummary.h"

#include "core/store/sweeps.h"
#include "core/util/error.h"

#include <algorithm>
#include <charconv>
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

std::vector<SweepCurve> sweepCurves(const Project& project, const SweepSummary& summary, const std::string& key,
    const std::string& context, int64_t maxPoints)
{
    std::vector<SweepCurve> out;
    for (const SweepConfigSummary& c : summary.configs) {
        SweepCurve curve;
        curve.config = c.config;
        curve.text = c.text;
        std::map<int64_t, std::vector<double>> byStep;
        for (const std::string& run : c.runIds) {
            const MetricSeries series = project.metricHistory(run, key, context, maxPoints);
            if (!series.points.empty())
                ++curve.runs;
            for (const MetricPoint& m : series.points)
                byStep[m.step].push_back(m.value);
        }
        for (const auto& [step, values] : byStep)
            curve.points.push_back({ step, spreadOf(values) });
        out.push_back(std::move(curve));
    }
    return out;
}

std::string parameterValue(const SweepConfigSummary& config, const std::string& parameter)
{
    for (const auto& [name, value] : config.values)
        if (name == parameter)
            return value;
    return {};
}

namespace {

bool toNumber(const std::string& text, double* value)
{
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, *value);
    return ec == std::errc() && ptr == end && std::isfinite(*value);
}

double pearson(const std::vector<double>& x, const std::vector<double>& y)
{
    const size_t n = x.size();
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; ++i) {
        mx += x[i];
        my += y[i];
    }
    mx /= double(n);
    my /= double(n);
    double sxy = 0, sxx = 0, syy = 0;
    for (size_t i = 0; i < n; ++i) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
        syy += (y[i] - my) * (y[i] - my);
    }
    if (sxx <= 0 || syy <= 0)
        return kNaN;
    return sxy / std::sqrt(sxx * syy);
}

} // namespace

std::vector<ParameterImportance> parameterImportance(const SweepSummary& summary)
{
    std::map<int64_t, const SweepConfigSummary*> configs;
    for (const SweepConfigSummary& c : summary.configs)
        configs[c.config] = &c;
    std::vector<ParameterImportance> out;
    for (const std::string& parameter : summary.parameters) {
        ParameterImportance imp;
        imp.parameter = parameter;
        imp.correlation = imp.varianceExplained = kNaN;
        std::vector<std::string> values;
        std::vector<double> metric;
        for (const SweepRunSummary& r : summary.runs) {
            if (r.status != RunStatus::Finished || std::isnan(r.tau) || !configs.count(r.config))
                continue;
            values.push_back(parameterValue(*configs[r.config], parameter));
            metric.push_back(r.tau);
        }
        imp.runs = int64_t(metric.size());
        out.push_back(imp);
        if (metric.size() < 3)
            continue;
        ParameterImportance& result = out.back();
        std::vector<double> numbers(values.size());
        bool numeric = true;
        for (size_t i = 0; i < values.size() && numeric; ++i)
            numeric = toNumber(values[i], &numbers[i]);
        std::vector<std::string> distinct = values;
        std::sort(distinct.begin(), distinct.end());
        distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
        // |Pearson r|
        if (numeric) {
            const auto [lo, hi] = std::minmax_element(numbers.begin(), numbers.end());
            std::vector<double> x = numbers;
            if (*lo > 0 && *hi / *lo >= 10)
                for (double& v : x)
                    v = std::log10(v);
            result.correlation = std::abs(pearson(x, metric));
        } else if (distinct.size() == 2) {
            std::vector<double> x;
            for (const std::string& v : values)
                x.push_back(v == distinct[1] ? 1.0 : 0.0);
            result.correlation = std::abs(pearson(x, metric));
        }
        // eta squared over groups of equal value (numbers with many values: 4 groups by rank)
        std::vector<int> group(values.size());
        if (numeric && distinct.size() > 8) {
            std::vector<size_t> order(values.size());
            for (size_t i = 0; i < order.size(); ++i)
                order[i] = i;
            std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return numbers[a] < numbers[b]; });
            for (size_t k = 0; k < order.size(); ++k)
                group[order[k]] = int(k * 4 / order.size());
        } else {
            for (size_t i = 0; i < values.size(); ++i)
                group[i] = int(std::lower_bound(distinct.begin(), distinct.end(), values[i]) - distinct.begin());
        }
        double mean = 0;
        for (double v : metric)
            mean += v;
        mean /= double(metric.size());
        std::map<int, std::pair<double, int>> sums;
        double total = 0;
        for (size_t i = 0; i < metric.size(); ++i) {
            sums[group[i]].first += metric[i];
            ++sums[group[i]].second;
            total += (metric[i] - mean) * (metric[i] - mean);
        }
        double between = 0;
        for (const auto& [g, sum] : sums) {
            const double gm = sum.first / sum.second;
            between += sum.second * (gm - mean) * (gm - mean);
        }
        if (total > 0)
            result.varianceExplained = between / total;
    }
    return out;
}

} // namespace tgraph
