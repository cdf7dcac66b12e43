// SPDX-License-Identifier: Apache-2.0
#pragma once

// The autotuner through the facade (docs/architecture.md, room model/facade): model/infer/autotune.h's
// search, re-scoring and verification of a graph document's configurations for an Ensemble, with
// the torch-free request and outcome of core/tune/autotuning.h.

#include "model/facade/ensemble.h"

#include "core/tune/autotuning.h"
#include "core/tune/tunesearch.h"
#include "core/tune/tunespace.h"
#include "core/view/graphdocument.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tgraph {
class ProgressSink;
}
namespace tgraph::model {
class Autotuner;
}

namespace tgraph::facade {

// Whether the simulator can verify the tuned configurations of `document` ("Verify with the
// simulator"): "" when the graph's HLO module is known (HLO inputs, tuning records, `tgraph synth`
// layout graph files whose module is generated again), else why not, in plain words.
std::string simulatorVerificationProblem(const GraphDocument& document);

class Autotuner
{
public:
    // Builds the space and the scorer; `models` must outlive the tuner. InputError naming the
    // document's file for graphs that cannot be tuned, models of the wrong kind, or a verification
    // the graph cannot have.
    Autotuner(Ensemble& models, std::shared_ptr<const GraphDocument> document, tgraph::AutotuneRequest request);
    ~Autotuner();
    Autotuner(const Autotuner&) = delete;
    Autotuner& operator=(const Autotuner&) = delete;

    const TuneSpace& space() const;
    // Search, re-score, verify. `onBatch` sees the search after every scored batch (worker thread).
    tgraph::AutotuneOutcome run(ProgressSink* progress, const std::function<void(const TuneResult&)>& onBatch = {});
    // The config row (layout: Nc x 18 values) of a candidate.
    std::vector<float> row(const tgraph::AutotuneOutcome& outcome, const tgraph::AutotuneCandidate& candidate) const;
    // The simulator's ns of a candidate; NaN when not verifying with the simulator.
    double simulatedRuntime(const TuneGenes& genes) const;
    // Per configurable node whose layouts differ from the default, one line.
    std::string layoutAssignment(const std::vector<float>& row) const;

private:
    std::unique_ptr<model::Autotuner> m_tuner;
};

} // namespace tgraph::facade
