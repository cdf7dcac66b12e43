// SPDX-License-Identifier: Apache-2.0
#pragma once

// Inference (docs/model.md §6): every configuration of a graph scored in array_split
// chunks (§6.1), optional test-time augmentation over seeded permutations (§6.2), the mean of raw
// scores over an ensemble and the ascending ranking (§6.3), optional per-config attention maps.
// Results are the plain structs of scores.h.

#include "model/nn/batch.h"
#include "core/results/scores.h"
#include "model/nn/tgraphmodel.h"
#include "model/nn/tilemodel.h"
#include "model/nn/zoomodel.h"

#include "core/graph/normalizer.h"

#include <string>
#include <vector>

namespace tgraph {
class ProgressScope;
}

namespace tgraph::model {

// One ensemble member: a weights file or a checkpoint (whose training state is ignored), loaded.
struct EnsembleMember
{
    std::string path;
    GraphKind kind = GraphKind::Layout;
    TGraphModel layout { nullptr }; // kind == Layout
    TileModel tile { nullptr }; // kind == Tile
    ZooModel zoo; // instead of both for another model family (zoomodel.h); gives no attention maps
    Normalizer normalizer;

    const ModelOptions& options() const;
    // "TGraph", "kaufman", ... for messages.
    std::string modelName() const;
};

// Loads each file through loadWeightsNpz / loadTileWeightsNpz, telling layout from tile by its
// keys (a tile-model file has head.0.weight); an ensemble file (model/nn/ensemblefile.h) gives each
// of its N members, named "FILE (member K)". InputError (naming the file, and the member) for an
// unreadable or invalid file, no files, or members of different kinds. Models are in eval mode.
std::vector<EnsembleMember> loadEnsemble(const std::vector<std::string>& paths);

// `--weights` arguments to member files: a weights .npz, checkpoint or ensemble file as is; an ensemble.json
// written by `tgraph train --folds` (its "ensemble" list, relative to the file) expands to its
// checkpoints. InputError naming the manifest when it cannot be read.
std::vector<std::string> expandWeightsArguments(const std::vector<std::string>& arguments);

// Forward passes scoreLayoutGraph / scoreTileGraph make for a graph of `configs` configurations
// (for progress totals).
int64_t inferencePasses(const std::vector<EnsembleMember>& models, int64_t configs, const InferenceOptions& options);

// Per-node attention maps (LayerAttention::nodeGate / nodeCross) are kept while configs x nodes
// stays within this many floats per layer (64 MB per member for the 4 layers); beyond it only
// the node-averaged maps are returned.
constexpr int64_t kMaxNodeMapValues = int64_t(4) << 20;

// One model's scores (C,) of a layout graph's configs, in file order: the rows in `order` (all of
// 0..C-1, e.g. a TTA permutation) are cut into array_split chunks of at most `batchConfigs`, each
// chunk is one forward pass, and the scores are put back at their rows. `graph` is the model's
// node-level tensors (makeGraphTensors with its normalizer). `attention`, when given, gets each
// layer's maps with rows in file order. `progress` advances by one per pass (and cancels).
// `simInputs` (C, Nc, 5): the graph's simulator inputs, read when the model takes them
// (docs/model.md §4.9; InputError naming `source` when it does and they are empty).
torch::Tensor scoreLayoutConfigs(TGraphModel& model, const GraphTensors& graph, const NdArray<float>& nodeConfigFeat,
    const NdArray<float>& simInputs, const std::vector<int64_t>& order, int64_t batchConfigs, const std::string& source,
    AttentionMaps* attention = nullptr, ProgressScope* progress = nullptr);

// The same for any member (a zoo model gives no attention maps).
torch::Tensor scoreLayoutConfigs(EnsembleMember& member, const GraphTensors& graph,
    const NdArray<float>& nodeConfigFeat, const NdArray<float>& simInputs, const std::vector<int64_t>& order, int64_t batchConfigs,
    const std::string& source, AttentionMaps* attention = nullptr, ProgressScope* progress = nullptr);
// A member's scores (C,) of a tile batch.
torch::Tensor scoreTileBatch(EnsembleMember& member, const TileBatch& batch, AttentionMaps* attention = nullptr);

// Every config of a pruned layout graph (docs/model.md §2.2) by every member: TTA, mean over members,
// ranking. A member with simulator inputs reads graph.simInputs (attached before pruning,
// siminputs.h). InputError naming `source` for inputs the models cannot take (an opcode beyond the op
// table, non-finite features, a graph without configurable nodes or with fewer than 2 configs).
GraphScores scoreLayoutGraph(std::vector<EnsembleMember>& models, const LayoutGraph& graph, const std::string& source,
    const InferenceOptions& options, ProgressScope* progress = nullptr);
// A whole tile kernel: all configs in one pass per member (the tile model's scores depend neither
// on the batch nor on the order, so chunking and TTA would change nothing).
GraphScores scoreTileGraph(std::vector<EnsembleMember>& models, const TileGraph& graph, const std::string& source,
    const InferenceOptions& options, ProgressScope* progress = nullptr);

// True when a layout member reads simulator inputs (docs/model.md §4.9): its graphs need
// attachSimulatorInputs (siminputs.h) before pruning.
bool takesSimInputs(const std::vector<EnsembleMember>& models);

struct PredictFileOptions
{
    InferenceOptions inference;
    bool repadLayout = false; // as training: re-pad node_feat[:, 134:140] (docs/model.md §2.1), off by default
};

// Reads a TpuGraphs npz (layout or tile, as the members), prunes a layout graph as training does
// (configs stored plain or base-7 compressed) and scores it.
GraphScores predictFile(std::vector<EnsembleMember>& models, const std::string& path, const PredictFileOptions& options,
    ProgressScope* progress = nullptr);

// Configs (C) of a graph file from its header, without loading it; InputError when it is not a
// TpuGraphs graph.
int64_t configCountOfFile(const std::string& path, GraphKind* kind = nullptr);

// `--data` entries to graph files: a FILE as is, a DIR's *.npz files sorted by name. InputError
// for a missing entry or a directory without .npz files.
std::vector<std::string> listGraphFiles(const std::vector<std::string>& entries);

} // namespace tgraph::model
