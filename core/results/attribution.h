// SPDX-License-Identifier: Apache-2.0
#pragma once

// Why a layout configuration ranks fast: the result of explaining config A against config B with
// the TGraph model (model/infer/explain.h computes it; core/ so that widgets can show it), as plain structs without torch,
// for the CLI, the studio and project storage.
//
// Score units are the model's raw scores (higher = predicted slower). With an ensemble every
// number is the mean over its members, so the decomposition stays exact.

#include "core/graph/graph.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace tgraph {

inline constexpr double kNotComputed = std::numeric_limits<double>::quiet_NaN();

// How a config to explain is chosen on the command line.
enum class ConfigRole {
    Index, // a config index of the file
    PredictedFastest, // lowest model score over all configs (tgraph predict's rank 1)
    PredictedSlowest, // highest model score
    CompilerDefault, // the config whose layout values are all -1 (compilerDefaultConfig)
};

struct ConfigSelector
{
    ConfigRole role = ConfigRole::Index;
    int64_t index = 0; // role == Index
};

// "12", "fastest", "slowest" or "default"; false for anything else.
bool parseConfigSelector(const std::string& text, ConfigSelector* selector);
// "config 12", "predicted fastest", ... for messages.
std::string configRoleName(ConfigRole role);
// "config 12" for an index, "predicted fastest (config 24)" for the other roles.
std::string configLabel(ConfigRole role, int64_t index);

// The compiler default of a layout graph: the config of a tuning record's default run
// (LayoutGraph::defaultConfig), else the first config whose node_config_feat values are all
// -1 ("let the compiler choose" for every configurable node). Files of `tgraph synth` and
// `tgraph simulate` have it as row 0 (LayoutSimulator::measure prices row 0 as the default); the
// published TpuGraphs files do not mark it. -1 when no config qualifies.
int64_t compilerDefaultConfig(const LayoutGraph& graph);

// The three tensors of a configurable node's 18 layout values: 0-5 output, 6-11 input (lhs),
// 12-17 kernel (rhs), each a minor-to-major dim order padded with -1.
inline constexpr const char* kLayoutTensorNames[3] = { "out", "in", "kernel" };

// One node of the graph the model saw (the pruned graph).
struct NodeAttribution
{
    int64_t node = 0; // position in the pruned graph
    int64_t fileNode = 0; // position in the file before pruning (= HLO instruction position)
    int64_t configurable = -1; // index into node_config_ids; -1 = not configurable
    int opcode = 0; // TpuGraphs opcode id
    std::string name; // HLO instruction name when the module is known, else ""

    // Exact decomposition: score(c) = bias + sum over nodes of share(c), share = w . h_n(c) / N.
    double shareA = 0;
    double shareB = 0;

    // Configurable nodes: layout values of A and B, and which of the 18 differ (bit k = value k).
    std::array<int8_t, 18> layoutA {};
    std::array<int8_t, 18> layoutB {};
    uint32_t differingValues = 0;

    // Counterfactuals (nodes whose layout differs): score(B with this node's layout from A) -
    // score(B), and score(A with this node's layout from B) - score(A), each against the anchor of
    // the same forward pass. Negative effectOnB / positive effectOnA = A's choice is predicted faster.
    double effectOnB = kNotComputed;
    double effectOnA = kNotComputed;

    // Gradient x input of score(A) (resp. B) with respect to this node's 18 config-token
    // embeddings (sum over the 4 embedding dims), in the same batch as the share. Configurable only.
    std::array<float, 18> gradInputA {};
    std::array<float, 18> gradInputB {};

    // Simulator (when the graph is tied to its HLO module): this instruction's cost in ns under A and
    // B (LayoutSimulator::breakdown, while trip counts included), and the simulated counterparts of
    // the counterfactuals (ns).
    double simulatedA = kNotComputed;
    double simulatedB = kNotComputed;
    double simulatedEffectOnB = kNotComputed;
    double simulatedEffectOnA = kNotComputed;

    bool layoutDiffers() const { return differingValues != 0; }
    double difference() const { return shareA - shareB; }
    // How much better A's layout of this node is predicted to be than B's, in score units: the mean
    // of the two counterfactual directions, (effectOnA - effectOnB) / 2. > 0 = A's choice faster.
    // NaN when there is no counterfactual.
    double effect() const { return (effectOnA - effectOnB) / 2; }
    // The same from the simulator, in ns (> 0 = A's choice faster).
    double simulatedEffect() const { return (simulatedEffectOnA - simulatedEffectOnB) / 2; }
};

// One instruction of the HLO module whose simulated cost differs between A and B (it may lie
// outside the pruned graph: the simulator propagates layouts through element-wise ops and fusions).
struct SimulatedInstruction
{
    int64_t fileNode = 0; // instruction position = node of the file
    int64_t node = -1; // node of the pruned graph, -1 when pruning dropped it
    std::string name;
    std::string opcode; // HLO opcode as written
    double nsA = 0;
    double nsB = 0;
};

// Forward passes of one explanation, per ensemble member.
struct ExplainPasses
{
    int64_t ranking = 0; // scoring all configs to find the predicted fastest / slowest
    int64_t shares = 0; // the inference chunks holding A and B (1 or 2)
    int64_t counterfactual = 0; // batches of counterfactual variants
    int64_t gradient = 0; // backward passes for gradient x input
};

struct Attribution
{
    std::string file;
    int64_t configA = 0;
    int64_t configB = 0;
    std::string labelA; // "config 12", "predicted fastest", ...
    std::string labelB;

    // Scores exactly as `tgraph predict` without TTA: each config in its array_split chunk of
    // `batchConfigs` configs in file order (with cross-attn the chunk is the context).
    double scoreA = 0;
    double scoreB = 0;
    double bias = 0; // classifier bias (mean over members)
    int64_t runtimeA = 0; // config_runtime; 0 when the file has no measurements
    int64_t runtimeB = 0;
    int64_t rankA = -1; // 1-based predicted rank among all configs when they were scored, else -1
    int64_t rankB = -1;
    std::vector<double> configScores; // every config's score when all were scored (as rankA), else empty

    int64_t configs = 0;
    int64_t nodesBeforePruning = 0;
    int64_t batchConfigs = 0;
    int members = 0;
    bool crossAttention = false;
    bool gradients = false; // gradInputA / gradInputB were computed

    // Every node of the pruned graph, in node order.
    std::vector<NodeAttribution> nodes;
    int64_t differingNodes = 0; // configurable nodes whose 18 values differ between A and B

    // Counterfactual batches: each pass holds A and B as anchors and up to batchConfigs - 2 variants.
    std::vector<int64_t> counterfactualBatchSizes; // configs per pass, anchors included
    std::vector<double> anchorScoresA; // score of A in each pass (mean over members)
    std::vector<double> anchorScoresB;
    ExplainPasses passes;

    // Simulator side (empty `moduleSource` = no module tied to the graph).
    std::string moduleSource; // the --module file, or how the module was regenerated
    double simulatedTotalA = kNotComputed; // LayoutSimulator::runtime, noise-free ns
    double simulatedTotalB = kNotComputed;
    std::vector<SimulatedInstruction> simulated; // instructions whose cost differs, by |nsA - nsB| descending

    int64_t nodeCount() const { return int64_t(nodes.size()); }
    double shareSumA() const;
    double shareSumB() const;
};

enum class AttributionOrder {
    Effect, // nodes with a counterfactual by |effect| descending, then the others by |share difference|
    Share, // all nodes by |share difference| descending
};

// Node indices (into Attribution::nodes) in the given order; ties by node position.
std::vector<size_t> rankedNodes(const Attribution& attribution, AttributionOrder order);

// "1,0": one tensor's minor-to-major dims of a node's 18 layout values (tensor 0 out, 1 in,
// 2 kernel; trailing -1 dropped), "default" when all six are -1.
std::string tensorLayoutText(const std::array<int8_t, 18>& values, int tensor);

// "out 1,0 | 0,1; kernel default | 1,0": the tensors whose values differ, A's then B's values
// (minor-to-major dims, trailing -1 dropped, all -1 = "default"). "" when nothing differs.
std::string layoutDifferenceText(const NodeAttribution& node);

// Machine-readable form: the summary and the first `top` ranked nodes (all when top <= 0), and up
// to `top` simulated instructions. 2-space indented JSON.
std::string attributionJson(const Attribution& attribution, AttributionOrder order, int64_t top);

} // namespace tgraph
