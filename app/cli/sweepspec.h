// SPDX-License-Identifier: Apache-2.0
#pragma once

// What `tgraph sweep` runs (docs/store.md §9): a grid ('lr=1e-3,3e-4 hidden=128,256') or a random
// search space ('lr=log:1e-4..1e-2 hidden=64,128,256 dropout=0.1..0.3') over `tgraph train`
// options, expanded into configurations, each of which becomes `tgraph train` arguments.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tgraph::cli {

// A spec the sweep refuses; what() says which parameter and why (a usage error, exit 2).
class SweepSpecError : public std::invalid_argument
{
public:
    using std::invalid_argument::invalid_argument;
};

struct SweepParameter
{
    enum class Kind { Values, Uniform, LogUniform, IntegerUniform };
    std::string name; // the `tgraph train` option without its dashes: "lr", "cross-attn"
    Kind kind = Kind::Values;
    std::vector<std::string> values; // Kind::Values, as written
    double low = 0, high = 0; // the ranges, inclusive
};

// One configuration: a value per parameter, in the spec's order.
struct SweepConfig
{
    std::vector<std::pair<std::string, std::string>> values;
    std::string text() const; // "lr=0.001 hidden=128"
};

// Parses a grid (`ranges` false: every parameter lists its values, NAME=V1,V2,...) or a random
// search space (`ranges` true: also NAME=LOW..HIGH, uniform; NAME=log:LOW..HIGH, log-uniform; both
// bounds integers: uniform integers). `what` ("--grid", "--space") starts the messages. Refuses an
// empty spec, a malformed item, an empty or repeated value, a repeated parameter, and the
// parameters the sweep sets itself (seed, threads, project, data, ...).
std::vector<SweepParameter> parseSweepSpec(const std::string& text, bool ranges, const std::string& what);

// Every combination of the grid's values, the first parameter varying slowest.
std::vector<SweepConfig> gridConfigs(const std::vector<SweepParameter>& grid);
// `count` distinct random draws from the space with the seed `seed` (reals rounded to 3 significant
// digits, written locale-free). SweepSpecError when the space holds fewer distinct configurations.
std::vector<SweepConfig> randomConfigs(const std::vector<SweepParameter>& space, int64_t count, uint64_t seed);

// The `tgraph train` arguments of a configuration: "--lr 0.001"; the train flags
// (--no-bias-decay, --residual-after-activation, --bidirectional-edges, --deterministic) take on|off
// and are given or left out.
std::vector<std::string> configArguments(const SweepConfig& config);

// Why `tgraph train` option `option` ("--seed", "-o") may not be among the train options given to a
// sweep, or "" when it may: the sweep sets it itself or it does not fit a sweep's child run.
std::string sweepOwnedOption(const std::string& option);

} // namespace tgraph::cli
