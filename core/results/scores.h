// SPDX-License-Identifier: Apache-2.0
#pragma once

// What inference produces, as plain types (no torch): per-graph scores in config order, the
// ranking, optional attention maps, metrics against measured runtimes, and the output files of
// `tgraph predict` / `tgraph eval`. The torch side is inference.h.

#include "core/results/attentionmaps.h"

#include "core/graph/graph.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tgraph {

// One graph's prediction (docs/model.md §6). Higher score = predicted slower.
struct GraphScores
{
    std::string file; // as given
    std::string name; // file stem: npz key, csv `graph` column, Kaggle id suffix
    GraphKind kind = GraphKind::Layout;
    int64_t nodes = 0; // nodes the model saw (layout: after pruning)
    int64_t nodesBeforePruning = 0;
    std::vector<float> scores; // (C,) in file order: mean over ensemble members of raw scores
    std::vector<int64_t> ranking; // config indices by ascending score (predicted fastest first), ties by index
    std::vector<int64_t> runtimes; // config_runtime as in the file (all zero in the test split)
    std::vector<int64_t> runtimeNormalizers; // tile: config_runtime_normalizers; empty for layout
    // One entry per ensemble member when asked for (InferenceOptions::attention). Layout: every
    // layer's rows are the graph's configs in file order; with cross-attn each config's softmax
    // weights were computed among the configs of its chunk, so a column sums to 1 per chunk
    // (averaged over TTA passes). Tile: one row (the node encoder does not see the configs).
    std::vector<AttentionMaps> attention;
    // Models with simulator inputs (docs/model.md §4.9): "" when they take none, else where the
    // graph's module came from, or "unpriced: WHY" when it was not found.
    std::string simInputs;

    int64_t configs() const { return int64_t(scores.size()); }
    bool hasRuntimes() const;
};

struct InferenceOptions
{
    // Configs per forward pass: all configs of a graph in k = ceil(C / B) near-equal contiguous
    // chunks (numpy array_split, docs/model.md §6.1). Code: 128 for xla:default, 256 for nlp:default, 512
    // for the random collections. With cross-attn the scores depend on the chunking.
    int64_t batchConfigs = 128;
    // Test-time augmentation (docs/model.md §6.2): N > 0 scores N seeded permutations of the configs
    // (chunk membership changes), inverts each and averages. 0 = off (the code's final scripts).
    int tta = 0;
    uint64_t ttaSeed = 101; // the code's permutation seed
    bool attention = false; // fill GraphScores::attention
};

// numpy.array_split sizes: k = ceil(count / batch) contiguous chunks, the first count % k of size
// floor(count / k) + 1, the rest floor(count / k). Empty for count = 0. batch must be >= 1.
std::vector<int64_t> arraySplitSizes(int64_t count, int64_t batch);

// The TTA permutations of one graph: `passes` permutations of 0..count-1 drawn one after the other
// from a generator seeded with `seed` (Fisher-Yates over splitmix64), the same on every platform.
std::vector<std::vector<int64_t>> ttaPermutations(int64_t count, int passes, uint64_t seed);

// Ascending by score, ties by index.
std::vector<int64_t> rankingOf(const std::vector<float>& scores);

// Metrics of one graph against its measured runtimes (docs/model.md §7).
enum class TileTarget {
    Raw, // config_runtime (the authors' code)
    Normalized, // config_runtime / config_runtime_normalizers (the official TpuGraphs target)
};
bool parseTileTarget(const std::string& text, TileTarget* target);

struct GraphMetrics
{
    std::string name;
    GraphKind kind = GraphKind::Layout;
    int64_t configs = 0;
    double kendallTau = 0; // tau-b (NaN when runtimes or scores are all equal)
    double opa = 0; // ordered-pair accuracy
    double slowdown1 = 0, slowdown5 = 0, slowdown10 = 0; // top-k slowdown, fractions
    double tileScore = 0; // tile: 2 - best of top-5 / best (1 = the best config is in the top 5)
};

// InputError naming the file when the graph has no measured runtimes (a test-split file).
GraphMetrics evaluate(const GraphScores& graph, TileTarget target = TileTarget::Raw);
// Mean of each metric over graphs, undefined values left out (docs/model.md §7.6); name "mean".
GraphMetrics meanMetrics(const std::vector<GraphMetrics>& graphs);

// Kaggle collection id of a path: "layout:{xla|nlp}:{default|random}" when the path has the
// TpuGraphs directories .../layout/{xla,nlp}/{default,random}/..., "tile:xla" for .../tile/xla/...;
// empty when not recognizable.
std::string collectionIdFromPath(const std::string& path);

// The CSV rows of one graph (graph,config,score,rank with rank 1 = predicted fastest), no header.
std::string scoresCsvRows(const GraphScores& graph);

// Output files, each written to a temporary name beside the target and renamed when complete.
// Construct before the work (an unwritable target fails at once, InputError naming it), add the
// graphs, then commit(); destruction without commit() removes the temporary file.
class ScoresWriter
{
public:
    enum class Format {
        Csv, // graph,config,score,rank (rank 1 = predicted fastest)
        Npz, // one float32 (C,) array per graph, keyed by the graph's name
        Kaggle, // ID,TopConfigs (docs/model.md §6.3): layout = the whole ranking, tile = its first 5, ';'-joined
    };
    // Csv or Npz from the extension (.csv / .npz); false otherwise.
    static bool formatFromPath(const std::string& path, Format* format);

    // `collectionId` (Kaggle): used for every graph when set, else collectionIdFromPath(file).
    ScoresWriter(std::string path, Format format, std::string collectionId = {});
    ~ScoresWriter();
    ScoresWriter(const ScoresWriter&) = delete;
    ScoresWriter& operator=(const ScoresWriter&) = delete;

    // InputError for a second graph of the same name (npz key / Kaggle id) or, for Kaggle, a file
    // whose collection cannot be told.
    void add(const GraphScores& graph);
    // The same checks before the work, for a graph file of `kind` that add() will get (its name is
    // the file stem): a bad input list fails before any graph is scored.
    void plan(const std::string& file, GraphKind kind);
    void commit();
    const std::string& path() const { return m_path; }

private:
    std::string keyOf(const std::string& file, const std::string& name, GraphKind kind) const;

    struct State;
    std::string m_path;
    Format m_format;
    std::string m_collectionId;
    std::unique_ptr<State> m_state;
};

} // namespace tgraph
