// SPDX-License-Identifier: Apache-2.0
#include "sweepspec.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <random>
#include <set>
#include <sstream>

namespace tgraph::cli {

namespace {

const char* const kFlags[] = { "no-bias-decay", "residual-after-activation", "bidirectional-edges", "deterministic" };

bool isFlag(const std::string& name)
{
    return std::find(std::begin(kFlags), std::end(kFlags), name) != std::end(kFlags);
}

bool parseReal(const std::string& text, double* value)
{
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, *value);
    return ec == std::errc() && ptr == end && std::isfinite(*value);
}

bool parseInteger(const std::string& text, int64_t* value)
{
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, *value);
    return ec == std::errc() && ptr == end;
}

std::vector<std::string> split(const std::string& text, char sep)
{
    std::vector<std::string> out;
    size_t start = 0;
    while (true) {
        const size_t at = text.find(sep, start);
        out.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
        if (at == std::string::npos)
            return out;
        start = at + 1;
    }
}

// A real rounded to 3 significant digits, shortest form, no locale.
std::string roundedReal(double v)
{
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 3);
    double rounded = 0;
    std::from_chars(buf, r.ptr, rounded);
    const auto s = std::to_chars(buf, buf + sizeof buf, rounded);
    return std::string(buf, s.ptr);
}

// Uniform in [0, 1) from 53 random bits: the same draws on every platform for a seed.
double unit(std::mt19937_64& rng) { return double(rng() >> 11) * (1.0 / 9007199254740992.0); }

} // namespace

std::string sweepOwnedOption(const std::string& option)
{
    static const std::pair<const char*, const char*> kOwned[] = {
        { "--project", "the sweep's --project is its children's" },
        { "--data", "give --data to the sweep; its children train on it" },
        { "--seed", "the sweep sets each run's seed (--seeds S, --seed-base B)" },
        { "--threads", "the sweep shares the cores among its children (--threads T per child)" },
        { "--out", "a sweep's runs keep their checkpoints in the project's run folders" },
        { "-o", "a sweep's runs keep their checkpoints in the project's run folders" },
        { "--resume", "a sweep resumes as a whole: tgraph sweep --resume SWEEP" },
        { "--experiment", "give --experiment to the sweep" },
        { "--run-name", "the sweep names its runs (cC-sS: configuration and seed)" },
        { "--metrics-jsonl", "every child would write the same file; the project keeps the metrics" },
        { "--folds", "a sweep's child runs are single runs, not cross-validations" },
        { "--train-folds", "a sweep's child runs are single runs, not cross-validations" },
        { "--keep", "a sweep's child runs are single runs, not cross-validations" },
        { "--fold-seed", "a sweep's child runs are single runs, not cross-validations" },
        { "--parallel-folds", "a sweep's child runs are single runs, not cross-validations" },
        { "--fold", "a sweep's child runs are single runs, not cross-validations" },
        { "--assemble", "a sweep's child runs are single runs, not cross-validations" },
        { "--attach-run", "a sweep's child runs are single runs, not cross-validations" },
        { "--launch-local", "a sweep runs its children side by side (--parallel), not data-parallel workers" },
        { "--world-size", "a sweep runs its children side by side (--parallel), not data-parallel workers" },
        { "--rank", "a sweep runs its children side by side (--parallel), not data-parallel workers" },
        { "--master", "a sweep runs its children side by side (--parallel), not data-parallel workers" },
        { "--rendezvous", "a sweep runs its children side by side (--parallel), not data-parallel workers" },
        { "--token-file", "a sweep runs its children side by side (--parallel), not data-parallel workers" },
        { "--dist-timeout", "a sweep runs its children side by side (--parallel), not data-parallel workers" },
        { "--queued-run", "the sweep passes it to each child itself" },
        { "--check-options", "the sweep checks every configuration itself" },
        { "--no-progress", "the sweep's children never draw progress bars" },
    };
    for (const auto& [name, why] : kOwned)
        if (option == name)
            return why;
    return {};
}

std::string SweepConfig::text() const
{
    std::string out;
    for (const auto& [name, value] : values)
        out += (out.empty() ? "" : " ") + name + "=" + value;
    return out;
}

std::vector<SweepParameter> parseSweepSpec(const std::string& text, bool ranges, const std::string& what)
{
    std::vector<SweepParameter> out;
    std::istringstream items(text);
    std::string item;
    std::set<std::string> names;
    while (items >> item) {
        const size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
            throw SweepSpecError(what + ": '" + item + "' is not NAME=" + (ranges ? "VALUES or NAME=LOW..HIGH" : "V1,V2,..."));
        SweepParameter p;
        p.name = item.substr(0, eq);
        if (p.name.rfind("--", 0) == 0)
            p.name.erase(0, 2);
        const std::string body = item.substr(eq + 1);
        if (p.name.empty() || p.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") != std::string::npos)
            throw SweepSpecError(what + ": '" + item.substr(0, eq) + "' is not a tgraph train option name");
        if (const std::string why = sweepOwnedOption("--" + p.name); !why.empty())
            throw SweepSpecError(what + ": " + p.name + " cannot be swept: " + why);
        if (!names.insert(p.name).second)
            throw SweepSpecError(what + ": " + p.name + " is given twice");
        if (body.empty())
            throw SweepSpecError(what + ": " + p.name + " has no value");
        const size_t dots = body.find("..");
        if (dots != std::string::npos) {
            if (!ranges)
                throw SweepSpecError(what + ": " + p.name + "=" + body
                    + ": a grid lists its values (V1,V2,...); ranges are for --random N --space");
            std::string range = body;
            if (range.rfind("log:", 0) == 0) {
                p.kind = SweepParameter::Kind::LogUniform;
                range.erase(0, 4);
            } else {
                p.kind = SweepParameter::Kind::Uniform;
            }
            const size_t at = range.find("..");
            const std::string lo = range.substr(0, at), hi = range.substr(at + 2);
            int64_t loInt = 0, hiInt = 0;
            if (p.kind == SweepParameter::Kind::Uniform && parseInteger(lo, &loInt) && parseInteger(hi, &hiInt)) {
                p.kind = SweepParameter::Kind::IntegerUniform;
                p.low = double(loInt);
                p.high = double(hiInt);
            } else if (!parseReal(lo, &p.low) || !parseReal(hi, &p.high)) {
                throw SweepSpecError(what + ": " + p.name + "=" + body + ": the bounds must be numbers (LOW..HIGH)");
            }
            if (!(p.low < p.high))
                throw SweepSpecError(what + ": " + p.name + "=" + body + ": LOW must be below HIGH");
            if (p.kind == SweepParameter::Kind::LogUniform && p.low <= 0)
                throw SweepSpecError(what + ": " + p.name + "=" + body + ": a log range needs LOW > 0");
            if (isFlag(p.name))
                throw SweepSpecError(what + ": " + p.name + " is a switch: on,off");
        } else {
            p.values = split(body, ',');
            std::set<std::string> seen;
            for (const std::string& v : p.values) {
                if (v.empty())
                    throw SweepSpecError(what + ": " + p.name + "=" + body + ": an empty value");
                if (!seen.insert(v).second)
                    throw SweepSpecError(what + ": " + p.name + " lists " + v + " twice");
                if (isFlag(p.name) && v != "on" && v != "off")
                    throw SweepSpecError(
                        what + ": " + p.name + "=" + v + ": a switch of tgraph train takes on or off");
            }
        }
        out.push_back(std::move(p));
    }
    if (out.empty())
        throw SweepSpecError(what + ": no parameter (e.g. 'lr=1e-3,3e-4 hidden=128,256')");
    return out;
}

std::vector<SweepConfig> gridConfigs(const std::vector<SweepParameter>& grid)
{
    std::vector<SweepConfig> out(1);
    for (const SweepParameter& p : grid) {
        std::vector<SweepConfig> next;
        for (const SweepConfig& c : out)
            for (const std::string& v : p.values) {
                SweepConfig d = c;
                d.values.emplace_back(p.name, v);
                next.push_back(std::move(d));
            }
        out = std::move(next);
    }
    return out;
}

std::vector<SweepConfig> randomConfigs(const std::vector<SweepParameter>& space, int64_t count, uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::vector<SweepConfig> out;
    std::set<std::string> seen;
    const int64_t attempts = 1000 * count;
    for (int64_t i = 0; i < attempts && int64_t(out.size()) < count; ++i) {
        SweepConfig c;
        for (const SweepParameter& p : space) {
            const double u = unit(rng);
            std::string v;
            switch (p.kind) {
            case SweepParameter::Kind::Values:
                v = p.values[std::min(p.values.size() - 1, size_t(u * double(p.values.size())))];
                break;
            case SweepParameter::Kind::Uniform:
                v = roundedReal(p.low + u * (p.high - p.low));
                break;
            case SweepParameter::Kind::LogUniform:
                v = roundedReal(std::exp(std::log(p.low) + u * (std::log(p.high) - std::log(p.low))));
                break;
            case SweepParameter::Kind::IntegerUniform: {
                const double span = p.high - p.low + 1;
                v = std::to_string(int64_t(p.low) + std::min(int64_t(span) - 1, int64_t(u * span)));
                break;
            }
            }
            c.values.emplace_back(p.name, v);
        }
        if (seen.insert(c.text()).second)
            out.push_back(std::move(c));
    }
    if (int64_t(out.size()) < count)
        throw SweepSpecError("--random " + std::to_string(count) + ": the space holds only "
            + std::to_string(out.size()) + " distinct configurations");
    return out;
}

std::vector<std::string> configArguments(const SweepConfig& config)
{
    std::vector<std::string> args;
    for (const auto& [name, value] : config.values) {
        if (isFlag(name)) {
            if (value == "on")
                args.push_back("--" + name);
            continue;
        }
        args.push_back("--" + name);
        args.push_back(value);
    }
    return args;
}

} // namespace tgraph::cli
