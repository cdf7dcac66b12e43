// SPDX-License-Identifier: Apache-2.0
#include "tilemodel.h"

#include <cmath>
#include <limits>

namespace tgraph::model {

namespace F = torch::nn::functional;

namespace {

// Holds the config_feat standardization as buffers so they are named config_normalizer.{mean,std}.
class ConfigNormalizerImpl : public torch::nn::Module
{
public:
    ConfigNormalizerImpl()
    {
        mean = register_buffer("mean", torch::zeros({ kTileConfigWidth }, torch::kFloat32));
        std = register_buffer("std", torch::ones({ kTileConfigWidth }, torch::kFloat32));
    }
    torch::Tensor mean;
    torch::Tensor std;
};
TORCH_MODULE(ConfigNormalizer);

} // namespace

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
    const auto normalizer = register_module("config_normalizer", ConfigNormalizer());
    configMean = normalizer->mean;
    configStd = normalizer->std;
}

void TileModelImpl::setConfigStats(const ConfigStats& stats)
{
    TORCH_CHECK(stats.mean.size() == size_t(kTileConfigWidth) && stats.stddev.size() == size_t(kTileConfigWidth),
        "TileModel: config stats need 24 columns");
    torch::NoGradGuard noGrad;
    for (int64_t k = 0; k < kTileConfigWidth; ++k) {
        configMean[k] = stats.mean[size_t(k)];
        configStd[k] = stats.stddev[size_t(k)];
    }
}

ConfigStats TileModelImpl::configStats() const
{
    ConfigStats stats;
    const auto mean = configMean.to(torch::kFloat64).contiguous();
    const auto stddev = configStd.to(torch::kFloat64).contiguous();
    stats.mean.assign(mean.data_ptr<double>(), mean.data_ptr<double>() + kTileConfigWidth);
    stats.stddev.assign(stddev.data_ptr<double>(), stddev.data_ptr<double>() + kTileConfigWidth);
    return stats;
}

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
