// SPDX-License-Identifier: Apache-2.0
#pragma once

// Batched scoring of autotuner candidates (core/tune/tunesearch.h) by a model or ensemble: one forward
// pass per member scores a whole batch of config rows; the score is the mean of the members' raw
// scores (lower = predicted faster), as `tgraph predict` ranks.
//
// Cross-config attention makes a layout score depend on the other configs of its batch (
// docs/model.md §3.1), so scores from different batches are not strictly comparable. The
// autotuner compares them as they are during the search and then re-scores its final candidates
// together in one batch (rescoreTogether), which decides the reported top-k; a model trained
// with --cross-attn off has batch-independent scores and needs no re-scoring.

#include "model/infer/inference.h"

#include "core/sim/simulator.h"
#include "core/tune/tunespace.h"

#include <memory>
#include <string>
#include <vector>

namespace tgraph::model {

class ModelTuneScorer
{
public:
    // A layout graph as the model sees it (pruned, docs/model.md §2.2: `graph` is the pruned graph) whose
    // configurable nodes are the space's. InputError naming `source` for models of the wrong kind.
    ModelTuneScorer(
        std::vector<EnsembleMember>& models, const LayoutGraph& pruned, const TuneSpace& space, std::string source);
    // A tile kernel (its configs are replaced by the candidates).
    ModelTuneScorer(
        std::vector<EnsembleMember>& models, const TileGraph& kernel, const TuneSpace& space, std::string source);

    // Scores of the candidates, in order, in one pass per member.
    std::vector<double> operator()(const std::vector<TuneGenes>& batch);
    bool crossAttention() const;
    int64_t passes() const { return m_passes; }
    // True when a member reads simulator inputs (docs/model.md §4.9).
    bool takesSimInputs() const;
    // The simulator that prices each candidate for such members (the space's configurable nodes);
    // without one they get the unpriced inputs.
    void setSimulator(std::shared_ptr<const LayoutSimulator> simulator) { m_simulator = std::move(simulator); }

private:
    std::vector<EnsembleMember>& m_models;
    const TuneSpace& m_space;
    std::string m_source;
    std::vector<GraphTensors> m_tensors; // layout: per member
    const TileGraph* m_kernel = nullptr;
    int64_t m_passes = 0;
    std::shared_ptr<const LayoutSimulator> m_simulator;
};

} // namespace tgraph::model
