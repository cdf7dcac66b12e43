// SPDX-License-Identifier: Apache-2.0
#include "model/facade/ensemble.h"

#include "model/facade/ensemblemembers.h"
#include "model/infer/ownlayoutscore.h"
#include "model/infer/siminputs.h"

namespace tgraph::facade {

std::vector<std::string> expandWeightsArguments(const std::vector<std::string>& arguments)
{
    return model::expandWeightsArguments(arguments);
}

std::vector<std::string> listGraphFiles(const std::vector<std::string>& entries)
{
    return model::listGraphFiles(entries);
}

Ensemble::Ensemble()
    : m_members(std::make_unique<Members>())
{ }

Ensemble::~Ensemble() = default;
Ensemble::Ensemble(Ensemble&& other) noexcept = default;
Ensemble& Ensemble::operator=(Ensemble&& other) noexcept = default;

Ensemble Ensemble::load(const std::vector<std::string>& paths)
{
    Ensemble ensemble;
    ensemble.m_members->list = model::loadEnsemble(paths);
    return ensemble;
}

bool Ensemble::empty() const { return !m_members || m_members->list.empty(); }

size_t Ensemble::size() const { return m_members ? m_members->list.size() : 0; }

GraphKind Ensemble::kind() const { return empty() ? GraphKind::Layout : m_members->list.front().kind; }

Ensemble::Members& Ensemble::members()
{
    if (!m_members)
        m_members = std::make_unique<Members>(); // after a move
    return *m_members;
}

bool Ensemble::takesSimInputs() const { return !empty() && model::takesSimInputs(m_members->list); }

std::string Ensemble::attachSimInputs(LayoutGraph& unpruned, const std::string& path,
    const std::shared_ptr<const HloModule>& module, ProgressSink* progress) const
{
    return model::attachSimulatorInputsFor(takesSimInputs(), unpruned, path, module, progress);
}

int64_t Ensemble::inferencePasses(int64_t configs, const tgraph::InferenceOptions& options) const
{
    return empty() ? 0 : model::inferencePasses(m_members->list, configs, options);
}

tgraph::GraphScores Ensemble::scoreLayoutGraph(const LayoutGraph& pruned, const std::string& source,
    const tgraph::InferenceOptions& options, ProgressScope* progress)
{
    return model::scoreLayoutGraph(members().list, pruned, source, options, progress);
}

tgraph::GraphScores Ensemble::scoreTileGraph(
    const TileGraph& graph, const std::string& source, const tgraph::InferenceOptions& options, ProgressScope* progress)
{
    return model::scoreTileGraph(members().list, graph, source, options, progress);
}

double Ensemble::scoreOwnLayouts(const HloModule& module, const std::string& file)
{
    return model::scoreOwnLayouts(members().list, module, file);
}

tgraph::GraphScores Ensemble::predictFile(
    const std::string& path, const tgraph::InferenceOptions& options, ProgressScope* progress)
{
    model::PredictFileOptions predict;
    predict.inference = options;
    return model::predictFile(members().list, path, predict, progress);
}

} // namespace tgraph::facade
