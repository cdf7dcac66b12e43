// SPDX-License-Identifier: Apache-2.0
#pragma once

// Explaining why a layout configuration ranks fast with the TGraph model (result: attribution.h).
//
// Decomposition. The score is a linear head over the mean of the final node embeddings:
//   score(c) = b + (1/N) sum_n w . h_n(c),
// so share_n(c) = w . h_n(c) / N is exact: the shares of a config sum to score - b. h comes from
// TGraphModelImpl::nodeEmbeddings() in the same forward pass as the score.
//
// Batches and cross-config attention. With cross-attn (docs/model.md §3.1) a config's h and score depend
// on the other configs of its forward pass. The choices here:
//   - Shares and gradients of A and B are computed in the inference chunk each belongs to: the
//     configs of the file cut in array_split chunks of at most `batchConfigs` in file order, as
//     `tgraph predict` without TTA does. scoreA / scoreB are therefore exactly predict's scores
//     and the shares decompose those numbers.
//   - Counterfactual variants are new configs, scored in their own passes: each pass holds A and
//     B as anchors plus up to batchConfigs - 2 variants (the variants cut by array_split), and a
//     variant's effect is its score minus the anchor's score of the same pass. Effects are thus
//     within-batch differences; with cross-attn the anchors' absolute scores in those passes
//     differ from predict's (another batch), and are reported per pass. Without cross-attn
//     scores do not depend on the batch and all of this coincides.
//   A graph with 60 differing nodes gives 120 variants: one pass of 122 configs at B = 128.
//
// Ensembles: every quantity is the mean over members (each with its own normalizer), which keeps
// the decomposition exact (mean of shares sums to mean score - mean bias).

#include "model/nn/batch.h"
#include "core/results/attribution.h"
#include "core/results/editedscore.h"
#include "core/results/explainoptions.h"
#include "model/infer/inference.h"
#include "model/infer/siminputs.h"
#include "model/nn/tgraphmodel.h"

#include "core/hlo/hlomodule.h"
#include "core/graph/prune.h"

#include <memory>
#include <string>
#include <vector>

namespace tgraph {
class ProgressSink;
}

namespace tgraph::model {

// One forward pass decomposed.
struct BatchDecomposition
{
    torch::Tensor scores; // (C,) float32: exactly forward()'s scores of the batch
    torch::Tensor shares; // (N, C) float64: w . h[n, c] / N
    double bias = 0; // classifier bias b
};
// Eval-mode forward of `batch` (no gradients) with the per-node shares of every config.
BatchDecomposition decomposeBatch(TGraphModel& model, const LayoutBatch& batch);

// Gradient x input of score(row) with respect to the config-token embeddings of the configurable
// nodes, in the context of the whole batch: (Nc, 18) float64, entry [k, s] = sum over the 4
// embedding dims of d score / d e * e for slot s of configurable node k (row `row`'s embeddings
// only). One forward and one backward pass.
torch::Tensor gradientTimesInput(TGraphModel& model, const LayoutBatch& batch, int64_t row);

// Config tokens (Nc, 18) of `base` with the rows `nodes` (indices into node_config_ids) taken
// from `donor` (same shape).
torch::Tensor withNodeLayouts(const torch::Tensor& base, const torch::Tensor& donor, const std::vector<int64_t>& nodes);

// Scores of `variants` (V, Nc, 18 tokens), each forward pass holding the `anchors` (K, Nc, 18)
// first and then a chunk of the variants: the variants in array_split chunks of at most
// max(1, batchConfigs - K) in order.
struct VariantScores
{
    std::vector<double> scores; // (V,)
    std::vector<int64_t> pass; // (V,) the pass each variant was scored in
    std::vector<std::vector<double>> anchorScores; // per pass: the K anchors' scores
    std::vector<int64_t> passSizes; // configs per pass, anchors included
};
// A model with simulator inputs reads them priced on `simulator` (siminputs.h; null: unpriced).
VariantScores scoreVariants(TGraphModel& model, const GraphTensors& graph, const torch::Tensor& anchors,
    const torch::Tensor& variants, int64_t batchConfigs, const GraphSimulator* simulator = nullptr);
// Passes scoreVariants makes.
int64_t variantPasses(int64_t variants, int64_t anchors, int64_t batchConfigs);

// Config A against config B (indices of the file) of a pruned layout graph (`pruned.newToOld`
// gives the file's node ids). InputError naming `source` for indices out of range, A == B, members
// that are not layout models, or a graph the models cannot take. `progress` counts forward passes.
// Members with simulator inputs (docs/model.md §4.9) read every scored config priced on
// `simulator` (null: the unpriced inputs); the gradient x input attribution covers the layout
// tokens, the node shares everything.
Attribution explainConfigs(std::vector<EnsembleMember>& models, const PrunedGraph& pruned, int64_t configA,
    int64_t configB, const std::string& source, const ExplainOptions& options, ProgressSink* progress = nullptr,
    const GraphSimulator* simulator = nullptr);

// Reads a layout graph file (a TpuGraphs .npz, or an HLO module / tuning record with at least two
// configurations, whose module then gives the simulator's side) and explains it as
// explainLayoutGraph does.
Attribution explainFile(std::vector<EnsembleMember>& models, const std::string& path, const ConfigSelector& a,
    const ConfigSelector& b, const ExplainFileOptions& options, std::string* moduleNote = nullptr,
    ProgressSink* progress = nullptr);

// `fileGraph` pruned as training does (`pruned`), named `source` in errors: resolves the selectors
// (fastest / slowest by the ensemble's scores over all configs, default by compilerDefaultConfig:
// an InputError naming the file when it has none), explains A against B and adds the simulator's
// side when the module is known. `module`, when given, is the graph's HLO module (instruction i =
// node i: the studio's documents of HLO inputs and tuning records); options.moduleFile, when set,
// wins over it. `moduleNote`, when given, says why there is no simulator side ("" when there is).
// Members with simulator inputs are priced on that module (or the one beside the file).
Attribution explainLayoutGraph(std::vector<EnsembleMember>& models, const LayoutGraph& fileGraph,
    const PrunedGraph& pruned, const std::string& source, const ConfigSelector& a, const ConfigSelector& b,
    const ExplainFileOptions& options, std::shared_ptr<const HloModule> module = nullptr,
    std::string* moduleNote = nullptr, ProgressSink* progress = nullptr);

// What-if: config `base` with the 18 layout values of configurable node `configurable` (index into
// node_config_ids) replaced by `values` (each -1..5), scored in one forward pass per member: the
// inference chunk of `base` (array_split chunks of `batchConfigs`, as predict) plus the edited
// config, so `base` keeps the company it is ranked in (the mean over members of each). With
// cross-attn both scores depend on that pass; their difference is the edit's effect
// (core/results/editedscore.h).
// Members with simulator inputs read both configs priced on `simulator` (null: unpriced).
EditedScore scoreEditedLayout(std::vector<EnsembleMember>& models, const PrunedGraph& pruned, int64_t base,
    int64_t configurable, const std::array<float, 18>& values, int64_t batchConfigs, const std::string& source,
    const GraphSimulator* simulator = nullptr);

} // namespace tgraph::model
