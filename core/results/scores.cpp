// SPDX-License-Identifier: Apache-2.0
#include "core/results/scores.h"

#include "core/metrics/averages.h"

#include "core/io/npz.h"
#include "core/metrics/metrics.h"
#include "core/util/atomicfile.h"
#include "core/util/error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <numeric>
#include <set>

namespace tgraph {

namespace {

namespace fs = std::filesystem;

uint64_t splitmix64(uint64_t& state)
{
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// Uniform in 0..bound-1 without modulo bias (rejection of the top remainder).
uint64_t below(uint64_t& state, uint64_t bound)
{
    const uint64_t limit = std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % bound;
    uint64_t x;
    do
        x = splitmix64(state);
    while (x >= limit);
    return x % bound;
}

std::vector<double> toDoubles(const std::vector<int64_t>& v) { return std::vector<double>(v.begin(), v.end()); }

bool isCollectionId(const std::string& id)
{
    return id == "tile:xla" || id == "layout:xla:default" || id == "layout:xla:random" || id == "layout:nlp:default"
        || id == "layout:nlp:random";
}

// RFC 4180 quoting when the text holds a comma, quote or line break.
std::string csvField(const std::string& text)
{
    if (text.find_first_of(",\"\r\n") == std::string::npos)
        return text;
    std::string out = "\"";
    for (char c : text)
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

} // namespace

bool GraphScores::hasRuntimes() const
{
    return std::any_of(runtimes.begin(), runtimes.end(), [](int64_t r) { return r != 0; });
}

std::vector<int64_t> arraySplitSizes(int64_t count, int64_t batch)
{
    if (batch < 1)
        throw std::invalid_argument("arraySplitSizes: batch must be >= 1");
    if (count <= 0)
        return {};
    const int64_t chunks = (count + batch - 1) / batch;
    std::vector<int64_t> sizes(size_t(chunks), count / chunks);
    for (int64_t k = 0; k < count % chunks; ++k)
        ++sizes[size_t(k)];
    return sizes;
}

std::vector<std::vector<int64_t>> ttaPermutations(int64_t count, int passes, uint64_t seed)
{
    uint64_t state = seed;
    std::vector<std::vector<int64_t>> out;
    for (int p = 0; p < passes; ++p) {
        std::vector<int64_t> perm(size_t(std::max<int64_t>(count, 0)));
        std::iota(perm.begin(), perm.end(), int64_t(0));
        for (int64_t i = count - 1; i > 0; --i)
            std::swap(perm[size_t(i)], perm[below(state, uint64_t(i + 1))]);
        out.push_back(std::move(perm));
    }
    return out;
}

std::vector<int64_t> rankingOf(const std::vector<float>& scores)
{
    const std::vector<double> s(scores.begin(), scores.end());
    return rankByScore(s);
}

bool parseTileTarget(const std::string& text, TileTarget* target)
{
    if (text == "raw")
        *target = TileTarget::Raw;
    else if (text == "normalized")
        *target = TileTarget::Normalized;
    else
        return false;
    return true;
}

GraphMetrics evaluate(const GraphScores& graph, TileTarget target)
{
    if (!graph.hasRuntimes())
        throw InputError(graph.file, "config_runtime",
            "all zero (an unlabelled test file): there are no measured runtimes to evaluate against");
    if (graph.runtimes.size() != graph.scores.size())
        throw std::logic_error("evaluate: runtimes and scores differ in length");
    std::vector<double> runtimes = toDoubles(graph.runtimes);
    if (graph.kind == GraphKind::Tile && target == TileTarget::Normalized) {
        for (size_t i = 0; i < runtimes.size(); ++i) {
            if (graph.runtimeNormalizers.at(i) <= 0)
                throw InputError(graph.file, "config_runtime_normalizers[" + std::to_string(i) + "]",
                    "is " + std::to_string(graph.runtimeNormalizers[i]) + "; normalized runtimes need values > 0");
            runtimes[i] /= double(graph.runtimeNormalizers[i]);
        }
    }
    const std::vector<double> scores(graph.scores.begin(), graph.scores.end());
    GraphMetrics m;
    m.name = graph.name;
    m.kind = graph.kind;
    m.configs = graph.configs();
    m.kendallTau = kendallTauB(runtimes, scores);
    m.opa = orderedPairAccuracy(runtimes, scores);
    m.slowdown1 = topKSlowdown(runtimes, scores, 1);
    m.slowdown5 = topKSlowdown(runtimes, scores, 5);
    m.slowdown10 = topKSlowdown(runtimes, scores, 10);
    m.tileScore = graph.kind == GraphKind::Tile ? tileScore(runtimes, scores, 5) : NAN;
    return m;
}

GraphMetrics meanMetrics(const std::vector<GraphMetrics>& graphs)
{
    GraphMetrics mean;
    mean.name = "mean";
    if (!graphs.empty())
        mean.kind = graphs.front().kind;
    for (auto field : { &GraphMetrics::kendallTau, &GraphMetrics::opa, &GraphMetrics::slowdown1,
             &GraphMetrics::slowdown5, &GraphMetrics::slowdown10, &GraphMetrics::tileScore })
        mean.*field = meanOfDefined(graphs, field);
    for (const GraphMetrics& g : graphs)
        mean.configs += g.configs;
    return mean;
}

std::string collectionIdFromPath(const std::string& path)
{
    std::vector<std::string> parts;
    for (const auto& part : fs::path(path).parent_path())
        parts.push_back(part.string());
    for (size_t i = parts.size(); i-- > 0;) {
        if (parts[i] == "tile" && i + 1 < parts.size() && parts[i + 1] == "xla")
            return "tile:xla";
        if (parts[i] == "layout" && i + 2 < parts.size() && (parts[i + 1] == "xla" || parts[i + 1] == "nlp")
            && (parts[i + 2] == "default" || parts[i + 2] == "random"))
            return "layout:" + parts[i + 1] + ":" + parts[i + 2];
    }
    return {};
}

std::string scoresCsvRows(const GraphScores& graph)
{
    std::vector<int64_t> rank(graph.scores.size());
    for (size_t r = 0; r < graph.ranking.size(); ++r)
        rank[size_t(graph.ranking[r])] = int64_t(r) + 1;
    const std::string name = csvField(graph.name);
    std::string out;
    char line[96];
    for (size_t c = 0; c < graph.scores.size(); ++c) {
        std::snprintf(line, sizeof line, ",%zu,%.9g,%lld\n", c, double(graph.scores[c]), (long long)rank[c]);
        out += name;
        out += line;
    }
    return out;
}

struct ScoresWriter::State
{
    std::unique_ptr<NpzWriter> npz;
    std::unique_ptr<AtomicFile> text;
    std::set<std::string> names;
    std::set<std::string> planned;
    bool committed = false;
};

bool ScoresWriter::formatFromPath(const std::string& path, Format* format)
{
    const std::string ext = fs::path(path).extension().string();
    if (ext == ".csv")
        *format = Format::Csv;
    else if (ext == ".npz")
        *format = Format::Npz;
    else
        return false;
    return true;
}

ScoresWriter::ScoresWriter(std::string path, Format format, std::string collectionId)
    : m_path(std::move(path))
    , m_format(format)
    , m_collectionId(std::move(collectionId))
    , m_state(std::make_unique<State>())
{
    if (!m_collectionId.empty() && !isCollectionId(m_collectionId))
        throw InputError(m_path, "collection id",
            "'" + m_collectionId
                + "' is not one of layout:xla:default, layout:xla:random, layout:nlp:default, layout:nlp:random, "
                  "tile:xla");
    if (m_format == Format::Npz) {
        m_state->npz = std::make_unique<NpzWriter>(m_path, NpzCompression::Deflated);
        return;
    }
    m_state->text = std::make_unique<AtomicFile>(m_path);
    m_state->text->write(m_format == Format::Csv ? "graph,config,score,rank\n" : "ID,TopConfigs\n");
}

ScoresWriter::~ScoresWriter() = default; // the AtomicFile or NpzWriter removes an uncommitted file

std::string ScoresWriter::keyOf(const std::string& file, const std::string& name, GraphKind kind) const
{
    if (m_format != Format::Kaggle)
        return name;
    const std::string collection = m_collectionId.empty() ? collectionIdFromPath(file) : m_collectionId;
    if (collection.empty())
        throw InputError(file, "",
            "cannot tell the Kaggle collection from the path (expected .../layout/{xla,nlp}/{default,random}/... "
            "or .../tile/xla/...); pass --collection-id");
    if ((collection == "tile:xla") != (kind == GraphKind::Tile))
        throw InputError(
            file, "", std::string("is a ") + graphKindName(kind) + " graph but its collection id is " + collection);
    return collection + ":" + name;
}

void ScoresWriter::plan(const std::string& file, GraphKind kind)
{
    const std::string key = keyOf(file, fs::path(file).stem().string(), kind);
    if (!m_state->planned.insert(key).second)
        throw InputError(
            file, "", "a second graph named '" + key + "' (" + m_path + " keys graphs by file name without extension)");
}

void ScoresWriter::add(const GraphScores& graph)
{
    const std::string key = keyOf(graph.file, graph.name, graph.kind);
    if (!m_state->names.insert(key).second)
        throw InputError(graph.file, "",
            "a second graph named '" + key + "' (" + m_path + " keys graphs by file name without extension)");
    if (m_format == Format::Npz) {
        m_state->npz->add(key, NdArray<float>::fromVector({ graph.configs() }, graph.scores));
        return;
    }
    if (m_format == Format::Csv) {
        m_state->text->write(scoresCsvRows(graph));
        return;
    }
    const size_t count
        = graph.kind == GraphKind::Tile ? std::min<size_t>(5, graph.ranking.size()) : graph.ranking.size();
    std::string line = csvField(key) + ",";
    for (size_t r = 0; r < count; ++r)
        line += (r ? ";" : "") + std::to_string(graph.ranking[r]);
    m_state->text->write(line + "\n");
}

void ScoresWriter::commit()
{
    if (m_state->npz) {
        m_state->npz->commit();
        m_state->committed = true;
        return;
    }
    m_state->text->commit();
    m_state->committed = true;
}

} // namespace tgraph
