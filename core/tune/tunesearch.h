// SPDX-License-Identifier: Apache-2.0
#pragma once

// Search strategies of the autotuner over a TuneSpace (XTAT slides: exhaustive, simulated annealing,
// evolutionary; plus random as the baseline). Candidates are scored in batches by a caller-given
// scorer (the learned model in `tgraph tune`, the simulator in tests): lower = faster. Every
// strategy is seeded, spends at most `budget` scored candidates and never scores a candidate twice
// (duplicates are dropped by their config row before scoring).

#include "core/tune/tunespace.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tgraph {

class ProgressSink;

enum class TuneStrategy { Exhaustive, Random, Annealing, Evolutionary };
const char* tuneStrategyName(TuneStrategy strategy); // "exhaustive", "random", "sa", "evo"
bool parseTuneStrategy(const std::string& text, TuneStrategy* strategy);

struct TuneOptions
{
    TuneStrategy strategy = TuneStrategy::Annealing;
    int64_t budget = 1000; // scored candidates, the default config included
    int64_t batch = 64; // candidates per scorer call (one model forward pass)
    uint64_t seed = 1;
    // Simulated annealing: the temperature falls geometrically from initialTemperature x s to
    // finalTemperature x s over the budget, s = the spread (standard deviation) of the first
    // batch's scores, so the schedule does not depend on the scorer's units.
    double initialTemperature = 1.0;
    double finalTemperature = 0.01;
    // Evolutionary: population size (0 = the batch size), tournament size.
    int64_t population = 0;
    int tournament = 3;
};

// Scores of a batch of candidates (lower = faster), in order.
using TuneScorer = std::function<std::vector<double>(const std::vector<TuneGenes>&)>;

struct TuneEvaluation
{
    TuneGenes genes;
    double score = 0;
    int64_t batch = 0; // which scorer call scored it (0 = the first)
};

struct TuneResult
{
    std::vector<TuneEvaluation> evaluated; // in scoring order; [0] is the start (compiler default)
    std::vector<double> bestSoFar; // per evaluation: the lowest score up to it
    int64_t batches = 0;
    int64_t duplicatesSkipped = 0;
    bool exhausted = false; // every candidate of the space was scored
    // Indices into `evaluated`, lowest score first (ties: earlier first).
    std::vector<size_t> ranking() const;
};

// Runs the search. `onBatch` (optional) sees the result after every scored batch (live views).
// Throws std::invalid_argument for bad options, InputError naming the space's source for an
// exhaustive search of a space larger than the budget, tgraph::Cancelled through `progress`.
TuneResult runTuneSearch(const TuneSpace& space, const TuneOptions& options, const TuneScorer& scorer,
    ProgressSink* progress = nullptr, const std::function<void(const TuneResult&)>& onBatch = {});

} // namespace tgraph
