// SPDX-License-Identifier: Apache-2.0
#include "model/facade/autotuner.h"

#include "model/facade/ensemblemembers.h"
#include "model/infer/autotune.h"

namespace tgraph::facade {

std::string simulatorVerificationProblem(const GraphDocument& document)
{
    return model::simulatorModuleProblem(document);
}

Autotuner::Autotuner(Ensemble& models, std::shared_ptr<const GraphDocument> document, tgraph::AutotuneRequest request)
    : m_tuner(std::make_unique<model::Autotuner>(models.members().list, std::move(document), std::move(request)))
{ }

Autotuner::~Autotuner() = default;

const TuneSpace& Autotuner::space() const { return m_tuner->space(); }

tgraph::AutotuneOutcome Autotuner::run(ProgressSink* progress, const std::function<void(const TuneResult&)>& onBatch)
{
    return m_tuner->run(progress, onBatch);
}

std::vector<float> Autotuner::row(
    const tgraph::AutotuneOutcome& outcome, const tgraph::AutotuneCandidate& candidate) const
{
    return m_tuner->row(outcome, candidate);
}

double Autotuner::simulatedRuntime(const TuneGenes& genes) const { return m_tuner->simulatedRuntime(genes); }

std::string Autotuner::layoutAssignment(const std::vector<float>& row) const { return m_tuner->layoutAssignment(row); }

} // namespace tgraph::facade
