// SPDX-License-Identifier: Apache-2.0
#pragma once

// Weights exchange as .npz (numpy-readable), one array per PyTorch state-dict name.
//
// Layout model file (docs/model.md §3.3), keys exactly:
//   every named parameter of TGraphModel, float32, e.g. embedding_op.weight (T, 16),
//   embedding_layout_cfg.weight (8, 4), linear.linear.weight, linear.cross_attn.temperature (0-d),
//   linear.attn.linear1.weight, ..., convs.0.conv.lin_l.weight, convs.0.conv.lin_r.weight,
//   convs.0.attn.*, convs.0.cross_attn.temperature, ..., classifier.weight, classifier.bias;
//   normalizer.mean, normalizer.std: (134,) float64 (the Normalizer's own precision; float32 is
//   accepted on import); meta.use_cross_attn: int64 0-d.
//   Optional int64 0-d switches, written only when on (files of code-mode models carry exactly the
//   keys above): meta.residual_after_activation, meta.bidirectional_edges (ModelOptions).
// Import reads the op table size from embedding_op.weight, the width H from classifier.weight,
// the block count from the convs.K keys and cross-attn from meta.use_cross_attn, then refuses a
// missing, extra or mis-shaped key, a non-finite value or std <= 0 with an InputError naming the
// file, the key and the shapes.
//
// A checkpoint (checkpoint.h) is a weights file plus `checkpoint.version` and training state under
// the prefixes optimizer., scheduler., rng., train., checkpoint.: the loaders read its weights and
// ignore those keys. A plain weights file (no checkpoint.version) refuses them like any extra key.
//
// Tile model file: the same rules, with TileModel's parameters (tilemodel.h: embedding_*,
// linear*, convs.K.*, config_mlp.{0,3}.*, head.{0,3,6}.*) plus its buffers config_normalizer.mean
// and config_normalizer.std (24,) float32, normalizer.*, meta.* as above. H is read from
// head.3.weight. Each loader recognizes the other kind of file and says so.
//
// Zoo model file (`--model tpugraphs-baseline|kaufman|tpgnn`, zoomodel.h): every named parameter
// and buffer of the model, float32, under the names its header lists (e.g. kaufman:
// op_embedding.weight, input.node.weight, sage_1.f2_in.weight, ..., head.weight), normalizer.*,
// and meta.model: uint8 (K,) the family name as text; meta.tile: int64 0-d, 1 for a tile model;
// meta.hidden: int64 0-d width; meta.reduction: uint8 text (kaufman only). The same checks:
// missing, extra, mis-shaped or non-finite keys are refused naming the key.
//
// The reading and every check made before a model is built are torch-free: weightsfile.h.

#include "model/nn/tgraphmodel.h"
#include "model/nn/weightsfile.h" // kCheckpointVersionKey, kCheckpointPrefixes
#include "model/nn/tilemodel.h"
#include "model/nn/zoomodel.h"

#include "core/graph/graph.h"
#include "core/graph/normalizer.h"

#include <string>

namespace tgraph {
class NpzWriter;
}

namespace tgraph::model {

struct LayoutWeights
{
    TGraphModel model { nullptr };
    Normalizer normalizer;
};

struct TileWeights
{
    TileModel model { nullptr };
    Normalizer normalizer;
};

// Write atomically (temporary file renamed on success). The normalizer must be finished.
void saveWeightsNpz(const TGraphModel& model, const Normalizer& normalizer, const std::string& path);
void saveTileWeightsNpz(const TileModel& model, const Normalizer& normalizer, const std::string& path);

// The weights-file arrays of a model, added to an open writer (checkpoints add their own keys).
void addWeightArrays(NpzWriter& writer, const TGraphModel& model, const Normalizer& normalizer);
void addWeightArrays(NpzWriter& writer, const TileModel& model, const Normalizer& normalizer);

// The returned model is in eval mode.
LayoutWeights loadWeightsNpz(const std::string& path);
TileWeights loadTileWeightsNpz(const std::string& path);

// Layout or tile, from the keys of a weights file or checkpoint, or of the member of an ensemble file
// whose keys start with `prefix` (ensemblefile.h); InputError when neither, and for an ensemble file
// given without a prefix.
GraphKind weightsKind(const std::string& path, const std::string& prefix = {});

// A weights file or checkpoint of either kind (weightsKind), loaded with all the checks above.
void saveZooWeightsNpz(const ZooModel& model, const Normalizer& normalizer, const std::string& path);
void addWeightArrays(NpzWriter& writer, const ZooModel& model, const Normalizer& normalizer);
// Whether the file (the member under `prefix`) holds a zoo model (has meta.model).
bool isZooWeights(const std::string& path, const std::string& prefix = {});

struct AnyWeights
{
    GraphKind kind = GraphKind::Layout;
    TGraphModel layout { nullptr }; // kind == Layout, TGraph
    TileModel tile { nullptr }; // kind == Tile, TGraph
    ZooModel zoo; // any other family (then layout and tile are null)
    Normalizer normalizer;
    torch::nn::Module& module() const;
    const ModelOptions& options() const;
};
// With `prefix` "member.K.": member K of an ensemble file (ensemblefile.h), checked the same way.
AnyWeights loadAnyWeightsNpz(const std::string& path, const std::string& prefix = {});

} // namespace tgraph::model
