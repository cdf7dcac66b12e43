// SPDX-License-Identifier: Apache-2.0
#include "core/tune/tunesearch.h"

#include "core/util/error.h"
#include "core/util/progress.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <unordered_map>

namespace tgraph {

const char* tuneStrategyName(TuneStrategy strategy)
{
    switch (strategy) {
    case TuneStrategy::Exhaustive:
        return "exhaustive";
    case TuneStrategy::Random:
        return "random";
    case TuneStrategy::Annealing:
        return "sa";
    case TuneStrategy::Evolutionary:
        return "evo";
    }
    return "?";
}

bool parseTuneStrategy(const std::string& text, TuneStrategy* strategy)
{
    for (const TuneStrategy s :
        { TuneStrategy::Exhaustive, TuneStrategy::Random, TuneStrategy::Annealing, TuneStrategy::Evolutionary })
        if (text == tuneStrategyName(s)) {
            *strategy = s;
            return true;
        }
    if (text == "annealing" || text == "evolutionary") {
        *strategy = text == "annealing" ? TuneStrategy::Annealing : TuneStrategy::Evolutionary;
        return true;
    }
    return false;
}

std::vector<size_t> TuneResult::ranking() const
{
    std::vector<size_t> order(evaluated.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(
        order.begin(), order.end(), [this](size_t a, size_t b) { return evaluated[a].score < evaluated[b].score; });
    return order;
}

namespace {

// Batches of candidates to the scorer, without duplicates (by config row) and within the budget.
class Evaluator
{
public:
    Evaluator(const TuneSpace& space, const TuneOptions& options, const TuneScorer& scorer, ProgressSink* progress,
        const std::function<void(const TuneResult&)>& onBatch)
        : m_space(space)
        , m_options(options)
        , m_scorer(scorer)
        , m_onBatch(onBatch)
        , m_progress(
              progress, std::string("searching (") + tuneStrategyName(options.strategy) + ")", uint64_t(options.budget))
    { }

    TuneResult& result() { return m_result; }
    int64_t remaining() const { return m_options.budget - int64_t(m_result.evaluated.size()); }

    // For each candidate the index of its evaluation (scored now or earlier), -1 when over budget.
    std::vector<int64_t> score(const std::vector<TuneGenes>& candidates)
    {
        std::vector<int64_t> index(candidates.size(), -1);
        std::vector<TuneGenes> fresh;
        std::vector<std::string> freshKeys;
        std::vector<size_t> freshAt;
        std::unordered_map<std::string, size_t> inBatch;
        for (size_t i = 0; i < candidates.size(); ++i) {
            std::string key = keyOf(candidates[i]);
            if (const auto it = m_seen.find(key); it != m_seen.end()) {
                index[i] = int64_t(it->second);
                ++m_result.duplicatesSkipped;
                continue;
            }
            if (const auto it = inBatch.find(key); it != inBatch.end()) {
                index[i] = -2 - int64_t(it->second); // resolved below
                ++m_result.duplicatesSkipped;
                continue;
            }
            if (int64_t(fresh.size()) >= remaining())
                continue;
            inBatch.emplace(key, fresh.size());
            fresh.push_back(candidates[i]);
            freshKeys.push_back(std::move(key));
            freshAt.push_back(i);
        }
        if (fresh.empty()) {
            ++m_idleBatches;
            for (int64_t& v : index)
                v = v < -1 ? -1 : v;
            return index;
        }
        m_idleBatches = 0;
        const std::vector<double> scores = m_scorer(fresh);
        if (scores.size() != fresh.size())
            throw std::logic_error("tune: the scorer returned " + std::to_string(scores.size()) + " scores for "
                + std::to_string(fresh.size()) + " candidates");
        const size_t first = m_result.evaluated.size();
        for (size_t j = 0; j < fresh.size(); ++j) {
            const double score = std::isfinite(scores[j]) ? scores[j] : std::numeric_limits<double>::infinity();
            m_result.evaluated.push_back({ std::move(fresh[j]), score, m_result.batches });
            const double best = m_result.bestSoFar.empty() ? score : std::min(m_result.bestSoFar.back(), score);
            m_result.bestSoFar.push_back(best);
            m_seen.emplace(std::move(freshKeys[j]), first + j);
            index[freshAt[j]] = int64_t(first + j);
        }
        for (int64_t& v : index)
            if (v < -1)
                v = int64_t(first) + (-2 - v);
        ++m_result.batches;
        m_progress.advanceTo(uint64_t(m_result.evaluated.size()));
        if (m_onBatch)
            m_onBatch(m_result);
        return index;
    }

    // True when the search should stop: budget spent, or many batches in a row found nothing new
    // (a small space whose candidates have all been seen).
    bool done() const { return remaining() <= 0 || m_idleBatches >= 20; }

    double scoreOf(int64_t index) const { return m_result.evaluated[size_t(index)].score; }
    const TuneGenes& genesOf(int64_t index) const { return m_result.evaluated[size_t(index)].genes; }

private:
    std::string keyOf(const TuneGenes& genes) const
    {
        const std::vector<float> row = m_space.row(genes);
        std::string key;
        if (m_space.kind == GraphKind::Layout) {
            key.resize(row.size());
            for (size_t i = 0; i < row.size(); ++i)
                key[i] = char(int(row[i]) + 1); // layout values -1..5
        } else {
            key.assign(reinterpret_cast<const char*>(row.data()), row.size() * sizeof(float));
        }
        return key;
    }

    const TuneSpace& m_space;
    const TuneOptions& m_options;
    const TuneScorer& m_scorer;
    const std::function<void(const TuneResult&)>& m_onBatch;
    ProgressScope m_progress;
    TuneResult m_result;
    std::unordered_map<std::string, size_t> m_seen;
    int m_idleBatches = 0;
};

class Mutator
{
public:
    Mutator(const TuneSpace& space, std::mt19937_64& rng)
        : m_space(space)
        , m_rng(rng)
    {
        for (size_t i = 0; i < space.dimensions.size(); ++i)
            if (space.dimensions[i].count > 1)
                m_free.push_back(i);
    }

    bool canMutate() const { return !m_free.empty(); }

    // `changes` dimensions set to another of their options.
    TuneGenes mutate(TuneGenes genes, int changes)
    {
        for (int c = 0; c < changes && !m_free.empty(); ++c)
            changeOne(genes, m_free[std::uniform_int_distribution<size_t>(0, m_free.size() - 1)(m_rng)]);
        return genes;
    }

    void changeOne(TuneGenes& genes, size_t dim)
    {
        const int64_t count = m_space.dimensions[dim].count;
        if (count < 2)
            return;
        const int64_t other = std::uniform_int_distribution<int64_t>(0, count - 2)(m_rng);
        genes[dim] = int32_t(other >= genes[dim] ? other + 1 : other);
    }

    TuneGenes random()
    {
        TuneGenes genes(m_space.dimensions.size(), 0);
        for (size_t i = 0; i < genes.size(); ++i)
            genes[i] = int32_t(std::uniform_int_distribution<int64_t>(0, m_space.dimensions[i].count - 1)(m_rng));
        return genes;
    }

    // 1 to 3 changes, fewer more often.
    int smallStep() { return 1 + int(std::min<uint64_t>(2, std::geometric_distribution<int>(0.5)(m_rng))); }

    const std::vector<size_t>& freeDimensions() const { return m_free; }

private:
    const TuneSpace& m_space;
    std::mt19937_64& m_rng;
    std::vector<size_t> m_free;
};

double spreadOf(const TuneResult& result)
{
    std::vector<double> finite;
    for (const TuneEvaluation& e : result.evaluated)
        if (std::isfinite(e.score))
            finite.push_back(e.score);
    if (finite.size() < 2)
        return 1.0;
    const double mean = std::accumulate(finite.begin(), finite.end(), 0.0) / double(finite.size());
    double var = 0;
    for (const double v : finite)
        var += (v - mean) * (v - mean);
    const double sd = std::sqrt(var / double(finite.size() - 1));
    return sd > 0 ? sd : std::max(1e-12, std::abs(mean) * 1e-6);
}

void searchExhaustive(const TuneSpace& space, const TuneOptions& options, Evaluator& eval)
{
    const int64_t size = space.sizeUpTo(options.budget);
    if (size < 0)
        throw InputError(space.source, "search space",
            "has about 10^" + std::to_string(int(std::floor(space.log10Size())))
                + " candidates, more than the budget of " + std::to_string(options.budget)
                + ": use --strategy sa, evo or random, or a larger --budget");
    TuneGenes genes = space.start();
    bool more = true;
    while (more && !eval.done()) {
        std::vector<TuneGenes> batch;
        while (more && int64_t(batch.size()) < options.batch) {
            batch.push_back(genes);
            // Mixed-radix increment, last dimension fastest.
            more = false;
            for (size_t i = genes.size(); i-- > 0;) {
                if (++genes[i] < space.dimensions[i].count) {
                    more = true;
                    break;
                }
                genes[i] = 0;
            }
        }
        eval.score(batch);
    }
    eval.result().exhausted = !more;
}

void searchRandom(const TuneSpace& space, const TuneOptions& options, Evaluator& eval, Mutator& mutator)
{
    bool first = true;
    while (!eval.done()) {
        std::vector<TuneGenes> batch;
        if (first)
            batch.push_back(space.start());
        first = false;
        while (int64_t(batch.size()) < options.batch)
            batch.push_back(mutator.random());
        eval.score(batch);
    }
}

void searchAnnealing(
    const TuneSpace& space, const TuneOptions& options, Evaluator& eval, Mutator& mutator, std::mt19937_64& rng)
{
    // First batch: the start and its neighbours; their spread scales the temperature.
    std::vector<TuneGenes> batch { space.start() };
    while (int64_t(batch.size()) < options.batch)
        batch.push_back(mutator.mutate(space.start(), mutator.smallStep()));
    eval.score(batch);
    const double scale = spreadOf(eval.result());
    const double t0 = options.initialTemperature * scale;
    const double t1 = std::max(options.finalTemperature * scale, 1e-300);
    int64_t current = 0;
    for (size_t i = 1; i < eval.result().evaluated.size(); ++i)
        if (eval.scoreOf(int64_t(i)) < eval.scoreOf(current))
            current = int64_t(i);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    while (!eval.done()) {
        batch.clear();
        while (int64_t(batch.size()) < options.batch)
            batch.push_back(mutator.mutate(eval.genesOf(current), mutator.smallStep()));
        const std::vector<int64_t> scored = eval.score(batch);
        for (const int64_t index : scored) {
            if (index < 0 || index == current)
                continue;
            const double progress
                = double(eval.result().evaluated.size()) / double(std::max<int64_t>(options.budget, 1));
            const double temperature = t0 * std::pow(t1 / t0, std::min(1.0, progress));
            const double delta = eval.scoreOf(index) - eval.scoreOf(current);
            if (delta <= 0 || u(rng) < std::exp(-delta / temperature))
                current = index;
        }
    }
}

void searchEvolutionary(
    const TuneSpace& space, const TuneOptions& options, Evaluator& eval, Mutator& mutator, std::mt19937_64& rng)
{
    const int64_t populationSize = options.population > 0 ? options.population : options.batch;
    // Genes of one configurable node travel together in crossover.
    std::vector<std::vector<size_t>> groups;
    {
        std::vector<int64_t> group(space.dimensions.size(), -1);
        std::unordered_map<int64_t, size_t> byNode;
        for (size_t i = 0; i < space.dimensions.size(); ++i) {
            auto [it, added] = byNode.emplace(space.dimensions[i].configurable, groups.size());
            if (added)
                groups.emplace_back();
            groups[it->second].push_back(i);
        }
    }
    // Initial population: the start and wider mutants of it.
    std::vector<TuneGenes> batch { space.start() };
    while (int64_t(batch.size()) < populationSize)
        batch.push_back(mutator.mutate(space.start(), 1 + int(std::uniform_int_distribution<int>(0, 4)(rng))));
    std::vector<int64_t> population;
    for (const int64_t index : eval.score(batch))
        if (index >= 0 && std::find(population.begin(), population.end(), index) == population.end())
            population.push_back(index);
    const double mutationRate = 1.0 / double(std::max<size_t>(mutator.freeDimensions().size(), 1));
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const auto tournament = [&]() {
        int64_t best = -1;
        for (int t = 0; t < std::max(1, options.tournament); ++t) {
            const int64_t pick = population[std::uniform_int_distribution<size_t>(0, population.size() - 1)(rng)];
            if (best < 0 || eval.scoreOf(pick) < eval.scoreOf(best))
                best = pick;
        }
        return best;
    };
    while (!eval.done() && !population.empty()) {
        batch.clear();
        while (int64_t(batch.size()) < options.batch) {
            const TuneGenes& a = eval.genesOf(tournament());
            const TuneGenes& b = eval.genesOf(tournament());
            TuneGenes child = a;
            for (const auto& group : groups)
                if (u(rng) < 0.5)
                    for (const size_t i : group)
                        child[i] = b[i];
            bool changed = false;
            for (const size_t i : mutator.freeDimensions())
                if (u(rng) < mutationRate) {
                    mutator.changeOne(child, i);
                    changed = true;
                }
            if (!changed && (child == a || child == b))
                child = mutator.mutate(child, 1);
            batch.push_back(std::move(child));
        }
        for (const int64_t index : eval.score(batch))
            if (index >= 0 && std::find(population.begin(), population.end(), index) == population.end())
                population.push_back(index);
        // (mu + lambda): the best of parents and children survive.
        std::stable_sort(population.begin(), population.end(),
            [&eval](int64_t x, int64_t y) { return eval.scoreOf(x) < eval.scoreOf(y); });
        if (int64_t(population.size()) > populationSize)
            population.resize(size_t(populationSize));
    }
}

} // namespace

TuneResult runTuneSearch(const TuneSpace& space, const TuneOptions& options, const TuneScorer& scorer,
    ProgressSink* progress, const std::function<void(const TuneResult&)>& onBatch)
{
    if (options.budget < 1)
        throw std::invalid_argument("the budget must be at least 1 candidate");
    if (options.batch < 1)
        throw std::invalid_argument("the batch must hold at least 1 candidate");
    if (space.dimensions.empty())
        throw InputError(space.source, "search space", "has no dimension to search");
    std::mt19937_64 rng(options.seed);
    Mutator mutator(space, rng);
    Evaluator eval(space, options, scorer, progress, onBatch);
    if (!mutator.canMutate() || options.strategy == TuneStrategy::Exhaustive) {
        searchExhaustive(space, options, eval);
        return std::move(eval.result());
    }
    switch (options.strategy) {
    case TuneStrategy::Random:
        searchRandom(space, options, eval, mutator);
        break;
    case TuneStrategy::Annealing:
        searchAnnealing(space, options, eval, mutator, rng);
        break;
    case TuneStrategy::Evolutionary:
        searchEvolutionary(space, options, eval, mutator, rng);
        break;
    case TuneStrategy::Exhaustive:
        break;
    }
    if (space.sizeUpTo(options.budget) >= 0
        && int64_t(eval.result().evaluated.size()) == space.sizeUpTo(options.budget))
        eval.result().exhausted = true;
    return std::move(eval.result());
}

} // namespace tgraph
