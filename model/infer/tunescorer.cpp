// SPDX-License-Identifier: Apache-2.0
#include "model/infer/tunescorer.h"

#include "model/nn/batch.h"

#include "core/sim/siminputs.h"
#include "core/util/error.h"

#include <numeric>

namespace tgraph::model {

namespace {

void checkKind(const std::vector<EnsembleMember>& models, GraphKind kind, const std::string& source)
{
    if (models.empty())
        throw std::invalid_argument("ModelTuneScorer: no model");
    for (const EnsembleMember& m : models)
        if (m.kind != kind)
            throw InputError(m.path, "",
                std::string("is a ") + graphKindName(m.kind) + " model, but " + source + " is a " + graphKindName(kind)
                    + " graph");
}

} // namespace

ModelTuneScorer::ModelTuneScorer(
    std::vector<EnsembleMember>& models, const LayoutGraph& pruned, const TuneSpace& space, std::string source)
    : m_models(models)
    , m_space(space)
    , m_source(std::move(source))
{
    checkKind(models, GraphKind::Layout, m_source);
    if (int64_t(space.nodeIds.size()) != pruned.configurableCount())
        throw std::invalid_argument("ModelTuneScorer: the space and the graph have different configurable nodes");
    for (EnsembleMember& member : models)
        m_tensors.push_back(makeGraphTensors(pruned, member.normalizer, member.options().opTableSize, m_source));
}

ModelTuneScorer::ModelTuneScorer(
    std::vector<EnsembleMember>& models, const TileGraph& kernel, const TuneSpace& space, std::string source)
    : m_models(models)
    , m_space(space)
    , m_source(std::move(source))
    , m_kernel(&kernel)
{
    checkKind(models, GraphKind::Tile, m_source);
}

bool ModelTuneScorer::takesSimInputs() const { return model::takesSimInputs(m_models); }

bool ModelTuneScorer::crossAttention() const
{
    for (const EnsembleMember& m : m_models)
        if (m.kind == GraphKind::Layout && m.options().useCrossAttn)
            return true;
    return false;
}

std::vector<double> ModelTuneScorer::operator()(const std::vector<TuneGenes>& batch)
{
    const int64_t count = int64_t(batch.size());
    std::vector<double> mean(batch.size(), 0.0);
    if (count == 0)
        return mean;
    c10::InferenceMode inferenceMode;
    std::vector<int64_t> rows(batch.size());
    std::iota(rows.begin(), rows.end(), int64_t(0));
    const auto accumulate = [&](const torch::Tensor& scores) {
        const auto s = scores.to(torch::kFloat64).contiguous();
        const double* p = s.data_ptr<double>();
        for (int64_t i = 0; i < count; ++i)
            mean[size_t(i)] += p[i] / double(m_models.size());
        ++m_passes;
    };
    if (m_kernel) {
        TileGraph kernel = *m_kernel;
        NdArray<float> feat({ count, int64_t(m_space.rowWidth) });
        for (int64_t i = 0; i < count; ++i)
            m_space.writeRow(batch[size_t(i)], feat.data() + i * m_space.rowWidth);
        kernel.configFeat = std::move(feat);
        kernel.configRuntime = NdArray<int64_t>({ count }, 0);
        for (EnsembleMember& member : m_models)
            accumulate(scoreTileBatch(
                member, makeTileBatch(kernel, member.normalizer, rows, member.options().opTableSize, m_source)));
        return mean;
    }
    const int64_t nc = int64_t(m_space.nodeIds.size());
    NdArray<float> feat({ count, nc, 18 });
    for (int64_t i = 0; i < count; ++i)
        m_space.writeRow(batch[size_t(i)], feat.data() + i * nc * 18);
    NdArray<float> sim;
    if (takesSimInputs())
        sim = m_simulator ? simulatorInputs(*m_simulator, feat) : unpricedSimInputs(count, nc);
    for (size_t m = 0; m < m_models.size(); ++m)
        accumulate(scoreLayoutConfigs(m_models[m], m_tensors[m], feat, sim, rows, count, m_source));
    return mean;
}

} // namespace tgraph::model
