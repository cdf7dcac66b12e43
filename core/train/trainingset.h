// SPDX-License-Identifier: Apache-2.0
#pragma once

// Training data as the trainer holds it (docs/model.md §2): which files, and each file
// loaded, pruned, de-duplicated and compressed once, before any step. Torch-free.

#include "core/graph/configs.h"
#include "core/graph/graph.h"
#include "core/graph/normalizer.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tgraph {

class GraphCache;
class ProgressSink;

enum class DataSplit { Train, Valid };
const char* dataSplitName(DataSplit split);

struct DataFile
{
    std::string path;
    DataSplit split = DataSplit::Train;
    // Named on the command line (not found in a directory): a file that cannot be used is an
    // error instead of a skipped graph.
    bool explicitFile = false;
};

// Resolves `tgraph train --data` entries, in the given order:
//   DIR with a train/ subdirectory: DIR/train/*.npz (train) and DIR/valid/*.npz (valid) when
//     present; DIR/test/ is never read (its runtimes are not published);
//   any other DIR: its *.npz files, all training data;
//   FILE: one training file.
// Files of a directory are sorted by name. InputError for a missing entry, a directory without
// .npz files, or a file listed twice.
std::vector<DataFile> listDataFiles(const std::vector<std::string>& entries);

struct TrainingDataOptions
{
    // docs/model.md §2.3, applied to train-split files only (the code's behaviour; valid files keep their
    // duplicates). KeepFirst = code, KeepMin = paper.
    DedupPolicy dedup = DedupPolicy::KeepFirst;
    bool repadLayout = false; // approximate -1 re-padding of node_feat[:, 134:140] (docs/model.md §2.1)
    // The model kind asked for (`tgraph train --kind`): a graph of the other kind is refused,
    // naming it. Unset: the first file decides.
    std::optional<GraphKind> kind;
    ProgressSink* progress = nullptr;
    // Lazy loading (docs/model.md §2.4, `tgraph train --resident-graphs N`): when > 0, layout graphs
    // are read, checked and prepared once to learn their sizes, runtimes and node statistics, and
    // their arrays are then dropped; a step or a validation pass reads its graph again (through a
    // GraphCache holding at most this many prepared graphs). 0: every graph held in memory. Tile
    // graphs are always held in memory (kernels are small).
    int64_t residentGraphs = 0;
};

// One graph ready for training. Layout graphs are pruned (docs/model.md §2.2) and their configurations held
// base-7 compressed (§2.4) in `configs`; `layout.nodeConfigFeat` is left empty. Tile graphs are
// whole kernels, unpruned (§5).
struct TrainingGraph
{
    std::string path; // as listed
    std::string name; // file name, for logs and metrics
    DataSplit split = DataSplit::Train;
    GraphKind kind = GraphKind::Layout;
    LayoutGraph layout;
    NdArray<int32_t> configs; // layout: (C, Nc, 3)
    TileGraph tile;
    int64_t nodesBeforePruning = 0;
    int64_t duplicatesRemoved = 0;
    // False for a lazily loaded graph (TrainingDataOptions::residentGraphs): only the runtimes
    // (layout.configRuntime), the counts and `nodeStats` are held; TrainingData::acquire() reads
    // the rest from `path` when needed.
    bool resident = true;
    int64_t nodes = -1; // nodes after pruning, known without the arrays (-1: from nodeFeat)
    Normalizer nodeStats; // lazy graphs: unfinished statistics of this graph's nodes (for fitNormalizer)
    // Layout graphs of a model with simulator inputs: (C, Nc, 5) per row of `configs`
    // (model/train/siminputdata.h); empty otherwise.
    NdArray<float> simInputs;

    int64_t configCount() const;
    int64_t nodeCount() const;
    // Only for a resident graph (acquire() one that is not).
    const NdArray<float>& nodeFeat() const { return kind == GraphKind::Layout ? layout.nodeFeat : tile.nodeFeat; }
    const NdArray<int64_t>& runtimes() const
    {
        return kind == GraphKind::Layout ? layout.configRuntime : tile.configRuntime;
    }
};

struct TrainingData
{
    GraphKind kind = GraphKind::Layout;
    std::vector<TrainingGraph> graphs; // in listing order
    // One line per file left out by the loading-time filters (docs/model.md §2.5), naming file and reason.
    std::vector<std::string> skipped;

    // Set when graphs are loaded lazily: the prepared graphs in memory.
    std::shared_ptr<GraphCache> cache;

    std::vector<size_t> indicesOf(DataSplit split) const;
    std::vector<size_t> allIndices() const;
    // graphs[i] with all its arrays: itself when resident, else read again from its file through
    // the cache (InputError when the file changed since loading). Keep the pointer only as long
    // as the arrays are needed: a graph evicted from the cache is freed when the last holder lets go.
    std::shared_ptr<const TrainingGraph> acquire(size_t i) const;
};

// Loads every file. A file that is broken (unreadable, invalid arrays, NaN features, a
// configurable node without an edge, ...) stops loading with its InputError. A usable file that
// cannot be ranked -- fewer than 2 configurations (after de-duplication), no measured runtimes --
// is skipped (recorded in `skipped`) when it was found in a directory, and is an InputError when
// it was named explicitly. Mixing layout and tile files is an InputError; so is ending with no
// training graph (the message lists why files were skipped). Cancelled through the progress sink.
TrainingData loadTrainingData(const std::vector<DataFile>& files, const TrainingDataOptions& options = {});

// One file read, checked and prepared as loadTrainingData() does (pruned, de-duplicated for the
// train split, configurations compressed). `why` is set (and the graph left partial) when the
// file is readable but cannot be ranked; `place` names the array.
struct PreparedGraph
{
    TrainingGraph graph;
    std::string place;
    std::string why;
};
PreparedGraph prepareTrainingGraph(const DataFile& file, const TrainingDataOptions& options);

// Standardization statistics over all nodes of the given graphs (docs/model.md §2.6: training graphs only,
// after pruning).
Normalizer fitNormalizer(const TrainingData& data, const std::vector<size_t>& graphs);

// The order used to cut graphs into cross-validation folds (docs/model.md §4.4: sorted file names):
// indices of `graphs` sorted by file name, then path.
std::vector<size_t> sortedByName(const TrainingData& data, std::vector<size_t> graphs);

} // namespace tgraph
