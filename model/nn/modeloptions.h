// SPDX-License-Identifier: Apache-2.0
#pragma once

// Hyper-parameters and paper-vs-code switches of the TGraph layout and tile models, torch-free so
// that app/ and widgets/ can hold them (docs/model.md §3, §3.5, §5).

#include <cstdint>
#include <string>

namespace tgraph::model {

constexpr int64_t kLayoutTokens = 8; // E_layout rows: value + 2 for values -2..5 (docs/model.md §2.7)
constexpr int64_t kLayoutEmbedding = 4; // E_layout columns
constexpr int64_t kOpEmbedding = 16; // E_op columns
constexpr int64_t kNodeLayoutColumns = 6; // node_feat[:, 134:140]
constexpr int64_t kConfigSlots = 18; // node_config_feat values per (config, configurable node)
constexpr int64_t kGateReduction = 8; // ChannelGate bottleneck F -> F/8 -> F
constexpr int64_t kReleasedOpTableSize = 120; // the authors' weights (one row short of opcode 120)
constexpr int64_t kDefaultOpTableSize = 121; // opcode ids 0..120 (docs/model.md §2.7, §10.13)

// Width of the layout model's input X0: numeric 134 | config 18x4 | node layout 6x4 | opcode 16 = 246.
constexpr int64_t kLayoutInputWidth
    = 134 + kConfigSlots * kLayoutEmbedding + kNodeLayoutColumns * kLayoutEmbedding + kOpEmbedding;
// Width of the tile model's node input: numeric 134 | node layout 24 | opcode 16 = 174.
constexpr int64_t kTileInputWidth = 134 + kNodeLayoutColumns * kLayoutEmbedding + kOpEmbedding;
constexpr int64_t kTileConfigWidth = 24; // config_feat columns

// The cost models `tgraph train --model` offers (issue "model zoo"): TGraph (tgraphmodel.h,
// tilemodel.h) and three reference models of the seed papers (zoomodel.h).
enum class ModelFamily {
    TGraph, // "tgraph": the TGraph layout / tile model
    TpuGraphsBaseline, // "tpugraphs-baseline": the TpuGraphs paper's ResModel (docs/model.md §8.1)
    Kaufman, // "kaufman": Kaufman et al.'s learned TPU performance model (docs/model.md §8.2)
    Tpgnn, // "tpgnn": GCN + TopK pooling + global pooling + MLP (docs/model.md §8.3)
};
const char* modelFamilyName(ModelFamily family);
bool parseModelFamily(const std::string& text, ModelFamily* family);
// Width used when none is asked for: 256 (TGraph), 32 (baseline: the paper's MLP [32, 32]),
// 128 (Kaufman, TPGNN).
int64_t defaultHidden(ModelFamily family);

// Kaufman et al.'s reductions of node embeddings to one graph embedding (docs/model.md §8.2).
enum class NodeReduction {
    MeanMax, // "mean-max": column-wise mean and max, concatenated
    PerNode, // "per-node": a scalar per node, summed
    Lstm, // "lstm": an LSTM over the nodes in topological (file) order, last state
    Transformer, // "transformer": a 4-head Transformer encoder layer, summed over nodes
};
const char* nodeReductionName(NodeReduction reduction);
bool parseNodeReduction(const std::string& text, NodeReduction* reduction);

struct ModelOptions
{
    ModelFamily family = ModelFamily::TGraph;
    NodeReduction reduction = NodeReduction::MeanMax; // Kaufman only

    int64_t hidden = 256; // H: width of every layer's output (graph_in = hidden_dim = 256 in all scripts)
    int64_t blocks = 2; // graph blocks after the two f_in layers
    // Code: ON for the default collections, OFF for random (docs/model.md §3 / §10.5). ON: each layer emits
    // H/2 "self" channels plus H/2 cross-config channels; OFF: H self channels.
    bool useCrossAttn = true;
    // Rows of E_op. 121 covers opcode ids 0..120; 120 loads the released weights, and then a graph
    // containing opcode 120 is refused when batching.
    int64_t opTableSize = kDefaultOpTableSize;
    double dropout = 0.2; // graph blocks (and the tile model's config branch and head); f_in has none

    // Paper-vs-code switches (docs/model.md §3.5); false = the authors' code, which produced their weights.
    // Code: h = GELU(h + [eta, cross(eta)]); paper: h = h + GELU([eta, cross(eta)]).
    bool residualAfterActivation = false;
    // Code: a node averages over its consumers only; paper: over its "immediate neighbours", i.e.
    // consumers and producers (each edge also used reversed).
    bool bidirectionalEdges = false;

    // Simulator inputs (docs/model.md §4.9, `--sim-inputs`, TGraph layout model only): the analytical
    // simulator's estimates of each configuration (core/sim/siminputs.h, 5 columns per configurable
    // node) enter f_in[0] through `sim_input` (W x 5, no bias); every batch then carries them.
    bool simInputs = false;

    // Channels produced by Linear/SAGE in each layer before the optional cross-attn concat.
    int64_t layerWidth() const { return useCrossAttn ? hidden / 2 : hidden; }
};

// "hidden 256, cross-attn on, op table 121" (for logs and error messages).
std::string describe(const ModelOptions& options);

} // namespace tgraph::model
