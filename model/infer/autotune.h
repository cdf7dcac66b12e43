// SPDX-License-Identifier: Apache-2.0
#pragma once

// The autotuner's pipeline, shared by `tgraph tune` and the studio's Tune panel: the search space
// of a graph document (module layout choices, a file's recombined per-node layouts, or a tile
// kernel's configs), the model-scored search (core/tune/tunesearch.h, model/infer/tunescorer.h), the final
// re-scoring of the best candidates together in one batch, and the verification of the top-k and
// the default by the simulator or a user's measuring command.

#include "model/infer/tunescorer.h"

#include "core/tune/autotuning.h"
#include "core/view/graphdocument.h"
#include "core/graph/prune.h"
#include "core/sim/simulator.h"
#include "core/tune/tunesearch.h"

#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tgraph {
class ProgressSink;
}

namespace tgraph::model {

// Whether the simulator can verify tuned configurations of `document` without a module file: it
// prices the layouts of the graph's HLO module, which HLO inputs and tuning records carry and which
// is generated again for a `tgraph synth` layout graph file (its meta_synthetic names the
// generator). "" when it can, else why not, in words without command-line options (the studio
// shows them).
std::string simulatorModuleProblem(const GraphDocument& document);

class Autotuner
{
public:
    // Builds the space and the scorer. InputError naming the document's file for graphs that
    // cannot be tuned, models of the wrong kind, or a verification the graph cannot have.
    Autotuner(
        std::vector<EnsembleMember>& models, std::shared_ptr<const GraphDocument> document, AutotuneRequest request);
    ~Autotuner();

    const TuneSpace& space() const { return m_space; }
    bool crossAttention() const { return m_scorer->crossAttention(); }
    const std::string& moduleNote() const { return m_moduleNote; } // where the module came from ("" = none)
    // Set when the models take simulator inputs but no module prices the candidates.
    const std::string& simInputsNote() const { return m_simInputsNote; }
    const HloModule* module() const { return m_module.get(); }
    const LayoutGraph& fileGraph() const { return m_fileGraph; }
    const GraphDocument& document() const { return *m_document; }
    const AutotuneRequest& request() const { return m_request; }

    // Search, re-score, verify. `onBatch` sees the search after every scored batch (worker thread).
    AutotuneOutcome run(ProgressSink* progress, const std::function<void(const TuneResult&)>& onBatch = {});

    std::vector<float> row(const AutotuneOutcome& outcome, const AutotuneCandidate& c) const
    {
        return m_space.row(outcome.result.evaluated[c.evaluation].genes);
    }
    // The simulator's ns of a candidate; NaN without --simulate (thread-safe: the simulator is const).
    double simulatedRuntime(const TuneGenes& genes) const
    {
        return m_simulator ? m_simulator->runtime(m_space.row(genes).data()) : NAN;
    }
    // Per configurable node whose layouts differ from the default: "name (opcode, node N): output {1,0}".
    std::string layoutAssignment(const std::vector<float>& row) const;
    // The JSON file a --measure command reads.
    std::string configJson(const std::vector<float>& row, int rank) const;

private:
    std::string nodeName(int64_t node) const;
    void addFileRuntimes(AutotuneOutcome& out) const;

    std::vector<EnsembleMember>& m_models;
    std::shared_ptr<const GraphDocument> m_document;
    AutotuneRequest m_request;
    TuneSpace m_space;
    std::shared_ptr<const HloModule> m_module;
    SimulatorParams m_simParams;
    std::string m_moduleNote;
    std::string m_simInputsNote;
    LayoutGraph m_fileGraph;
    PrunedGraph m_pruned;
    std::optional<ModelTuneScorer> m_scorer;
    std::unique_ptr<LayoutSimulator> m_simulator;
};

// Runs `command` (by /bin/sh, {config_file} replaced by the quoted file, or the file appended) and
// returns the last number > 0 it prints; NaN with `note` set when it fails.
double measureWithCommand(const std::string& command, const std::string& configFile, int timeoutMs, std::string* note);

} // namespace tgraph::model
