// SPDX-License-Identifier: Apache-2.0
#include "model/nn/tilemodel.h"

#include <cmath>
#include <limits>

namespace tgraph::model {

namespace F = torch::nn::functional;

ConfigNormalizerImpl::ConfigNormalizerImpl()
{
    mean = register_buffer("mean", torch::zeros({ kTileConfigWidth }, torch::kFloat32));
    std = register_buffer("std", torch::ones({ kTileConfigWidth }, torch::kFloat32));
}

void ConfigNormalizerImpl::set(const ConfigStats& stats)
{
    TORCH_CHECK(stats.mean.size() == size_t(kTileConfigWidth) && stats.stddev.size() == size_t(kTileConfigWidth),
        "config stats need 24 columns");
    torch::NoGradGuard noGrad;
    for (int64_t k = 0; k < kTileConfigWidth; ++k) {
        mean[k] = stats.mean[size_t(k)];
        std[k] = stats.stddev[size_t(k)];
    }
}

ConfigStats ConfigNormalizerImpl::stats() const
{
    ConfigStats out;
    const auto m = mean.to(torch::kFloat64).contiguous();
    const auto s = std.to(torch::kFloat64).contiguous();
    out.mean.assign(m.data_ptr<double>(), m.data_ptr<double>() + kTileConfigWidth);
    out.stddev.assign(s.data_ptr<double>(), s.data_ptr<double>() + kTileConfigWidth);
    return out;
}

ConfigStats computeConfigStats(const std::vector<const TileGraph*>& graphs)
{
    const size_t width = size_t(kTileConfigWidth);
    std::vector<double> sum(width, 0.0);
    int64_t count = 0;
    for (const TileGraph* g : graphs) {
        for (int64_t r = 0; r < g->configFeat.dim(0); ++r)
            for (size_t k = 0; k < width; ++k)
                sum[k] += g->configFeat.row(r)[k];
        count += g->configFeat.dim(0);
    }
    ConfigStats stats;
    if (count == 0)
        return stats;
    std::vector<double> m2(width, 0.0);
    for (size_t k = 0; k < width; ++k)
        stats.mean[k] = sum[k] / double(count);
    for (const TileGraph* g : graphs)
        for (int64_t r = 0; r < g->configFeat.dim(0); ++r)
            for (size_t k = 0; k < width; ++k) {
                const double d = g->configFeat.row(r)[k] - stats.mean[k];
                m2[k] += d * d;
            }
    // Same constant-column rule as Normalizer (sklearn StandardScaler).
    const double n = double(count);
    const double eps = std::numeric_limits<double>::epsilon();
    for (size_t k = 0; k < width; ++k) {
        const double var = m2[k] / n;
        const double bound = n * eps * var + (n * stats.mean[k] * eps) * (n * stats.mean[k] * eps);
        stats.stddev[k] = var <= bound ? 1.0 : std::sqrt(var);
    }
    return stats;
}

TileModelImpl::TileModelImpl(const ModelOptions& options)
    : m_options(options)
{
    TORCH_CHECK(options.opTableSize > 0, "TileModel: opTableSize must be > 0");
    const int64_t h = options.hidden;
    embedding_op = register_module("embedding_op", torch::nn::Embedding(options.opTableSize, kOpEmbedding));
    embedding_layout_cfg
        = register_module("embedding_layout_cfg", torch::nn::Embedding(kLayoutTokens, kLayoutEmbedding));
    encoder.registerOn(*this, kTileInputWidth, options);
    config_mlp = register_module("config_mlp",
        torch::nn::Sequential(torch::nn::Linear(kTileConfigWidth, h), torch::nn::Dropout(options.dropout),
            torch::nn::GELU(), torch::nn::Linear(h, h)));
    head = register_module("head",
        torch::nn::Sequential(torch::nn::Linear(3 * h, h), torch::nn::Dropout(options.dropout), torch::nn::GELU(),
            torch::nn::Linear(h, h), torch::nn::Dropout(options.dropout), torch::nn::GELU(), torch::nn::Linear(h, 1)));
    m_configNormalizer = register_module("config_normalizer", ConfigNormalizer());
    configMean = m_configNormalizer->mean;
    configStd = m_configNormalizer->std;
}

void TileModelImpl::setConfigStats(const ConfigStats& stats) { m_configNormalizer->set(stats); }

ConfigStats TileModelImpl::configStats() const { return m_configNormalizer->stats(); }

torch::Tensor TileModelImpl::forward(const TileBatch& batch, AttentionMaps* attention)
{
    TORCH_CHECK(batch.graph.nodes() > 0, "TileModel: empty graph");
    if (attention)
        attention->layers.clear();
    const int64_t n = batch.graph.nodes();
    const int64_t c = batch.configs();
    const auto& table = embedding_layout_cfg->weight;
    const auto layout
        = F::embedding(batch.graph.nodeLayoutTokens, table).reshape({ n, kNodeLayoutColumns * kLayoutEmbedding });
    const auto x = torch::cat({ batch.graph.numeric, layout, embedding_op(batch.graph.opcodes) }, 1); // (N, 174)
    const auto projected = encoder.linear->linear(x).unsqueeze(1); // (N, 1, W): config axis of size 1
    const EdgeTensors edges = prepareEdges(batch.graph.edges, n, m_options.bidirectionalEdges);
    const auto nodes = encoder.forward(projected, edges, attention).squeeze(1); // (N, H)
    const int64_t h = nodes.size(1);
    const auto maxReadout = std::get<0>(nodes.max(0)).unsqueeze(0).expand({ c, h });
    const auto meanReadout = nodes.mean(0).unsqueeze(0).expand({ c, h });
    const auto config = config_mlp->forward((batch.configFeat - configMean) / configStd); // (C, H)
    return head->forward(torch::cat({ config, maxReadout, meanReadout }, 1)).squeeze(1);
}

} // namespace tgraph::model
