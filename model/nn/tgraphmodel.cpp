// SPDX-License-Identifier: Apache-2.0
#include "model/nn/tgraphmodel.h"

#include "model/nn/fusedops.h"
#include "model/nn/products.h"
#include "model/nn/recomputedlayer.h"
#include "model/nn/slicedscoring.h"

#include "core/graph/graph.h"

namespace tgraph::model {

namespace F = torch::nn::functional;

namespace {

// Column ranges of X0 (docs/model.md §2.7).
constexpr int64_t kNumericBegin = 0;
constexpr int64_t kConfigBegin = kNumericNodeFeatures;
constexpr int64_t kConfigWidth = kConfigSlots * kLayoutEmbedding; // 72
constexpr int64_t kNodeLayoutBegin = kConfigBegin + kConfigWidth; // 206
constexpr int64_t kNodeLayoutWidth = kNodeLayoutColumns * kLayoutEmbedding; // 24
constexpr int64_t kOpBegin = kNodeLayoutBegin + kNodeLayoutWidth; // 230
static_assert(kOpBegin + kOpEmbedding == kLayoutInputWidth);

// Largest (N, C, H) float32 activation a forward pass without gradients and without
// cross-attention builds before it scores its configs in sub-batches.
constexpr int64_t kScoreSubBatchBytes = int64_t(64) << 20;

// Mean pooling over the nodes of (N, C, H): ATen's mean(0) is this sum and division, but its
// autograd node keeps the input alive until its backward pass has run, one activation beside the
// gradient it allocates; the sum's node keeps only sizes.
torch::Tensor meanOverNodes(const torch::Tensor& h) { return h.sum(0) / double(h.size(0)); }

} // namespace

TGraphModelImpl::TGraphModelImpl(const ModelOptions& options)
    : m_options(options)
{
    TORCH_CHECK(options.opTableSize > 0, "TGraphModel: opTableSize must be > 0");
    embedding_op = register_module("embedding_op", torch::nn::Embedding(options.opTableSize, kOpEmbedding));
    embedding_layout_cfg
        = register_module("embedding_layout_cfg", torch::nn::Embedding(kLayoutTokens, kLayoutEmbedding));
    encoder.registerOn(*this, kLayoutInputWidth, options);
    classifier = register_module("classifier", torch::nn::Linear(options.hidden, 1));
    if (options.simInputs)
        sim_input = register_module("sim_input",
            torch::nn::Linear(torch::nn::LinearOptions(kSimInputColumns, options.layerWidth()).bias(false)));
}

torch::Tensor TGraphModelImpl::inputFeatures(const LayoutBatch& batch)
{
    TORCH_CHECK(!m_options.simInputs, "TGraphModel: inputFeatures() is the X0 of a model without simulator inputs");
    const int64_t c = batch.configs();
    const int64_t n = batch.graph.nodes();
    const auto& table = embedding_layout_cfg->weight;
    const auto config = F::embedding(scatterConfigTokens(batch), table).reshape({ c, n, kConfigWidth });
    const auto layout = F::embedding(batch.graph.nodeLayoutTokens, table).reshape({ n, kNodeLayoutWidth });
    const auto op = embedding_op(batch.graph.opcodes);
    return torch::cat({ batch.graph.numeric.expand({ c, n, kNumericNodeFeatures }), config,
                          layout.expand({ c, n, kNodeLayoutWidth }), op.expand({ c, n, kOpEmbedding }) },
        2);
}

torch::Tensor TGraphModelImpl::inputProjection(const LayoutBatch& batch) { return project(batch, nullptr); }

torch::Tensor TGraphModelImpl::inputProjection(const LayoutBatch& batch, const torch::Tensor& configEmbeddings)
{
    return project(batch, &configEmbeddings);
}

torch::Tensor TGraphModelImpl::configEmbeddings(const LayoutBatch& batch)
{
    return F::embedding(batch.configTokens, embedding_layout_cfg->weight); // (C, Nc, 18, 4)
}

TGraphModelImpl::Projector::Projector(TGraphModelImpl& model, const LayoutBatch& batch)
    : m_batch(batch)
{
    const int64_t n = batch.graph.nodes();
    const auto& weight = model.encoder.linear->linear->weight; // (W, 246)
    const int64_t width = weight.size(0);
    const auto& table = model.embedding_layout_cfg->weight; // (8, 4)

    // Config-independent part per node: numeric, node layout and opcode columns, plus the bias.
    const auto layout = F::embedding(batch.graph.nodeLayoutTokens, table).reshape({ n, kNodeLayoutWidth });
    const auto nodeInput = torch::cat({ layout, model.embedding_op(batch.graph.opcodes) }, 1); // (N, 40)
    m_perNode = torch::addmm(model.encoder.linear->linear->bias, batch.graph.numeric,
                    weight.narrow(1, kNumericBegin, kNumericNodeFeatures).t())
        + torch::mm(nodeInput, weight.narrow(1, kNodeLayoutBegin, kNodeLayoutWidth + kOpEmbedding).t());

    // projected[k, v, :] = E_layout[v] . W[:, 134 + 4k : 138 + 4k]: slot k holding token v.
    m_configWeight = weight.narrow(1, kConfigBegin, kConfigWidth);
    const auto projected = torch::matmul(
        table, m_configWeight.reshape({ width, kConfigSlots, kLayoutEmbedding }).permute({ 1, 2, 0 })); // (18, 8, W)
    // Non-configurable nodes: token 0 (value -2) in all 18 slots.
    m_unconfigured = projected.select(1, 0).sum(0); // (W,)
    m_table = projected.reshape({ kConfigSlots * kLayoutTokens, width });
    if (model.sim_input) {
        TORCH_CHECK(batch.simInputs.defined()
                && batch.simInputs.sizes()
                    == torch::IntArrayRef({ batch.configs(), batch.graph.configNodeIds.size(0), kSimInputColumns }),
            "TGraphModel: the model takes simulator inputs; the batch must carry them as (C, Nc, 5)");
        m_simWeight = model.sim_input->weight;
    }
    const auto& ids = batch.graph.configNodeIds;
    m_slotOf.assign(size_t(n), -1);
    const int64_t* id = ids.data_ptr<int64_t>();
    for (int64_t k = 0; k < ids.size(0); ++k) {
        TORCH_CHECK(id[k] >= 0 && id[k] < n && m_slotOf[size_t(id[k])] < 0, "TGraphModel: configurable node ", id[k],
            " is out of range or listed twice");
        m_slotOf[size_t(id[k])] = k;
    }
}

torch::Tensor TGraphModelImpl::Projector::rows(
    int64_t begin, int64_t end, const torch::Tensor* configEmbeddings, torch::Tensor into) const
{
    const int64_t c = m_batch.configs();
    const int64_t width = m_perNode.size(1);
    const auto base = (m_perNode.narrow(0, begin, end - begin) + m_unconfigured).unsqueeze(1).expand({ end - begin, c, width });
    torch::Tensor h;
    if (into.defined()) {
        TORCH_CHECK(into.is_contiguous() && into.sizes() == base.sizes(), "TGraphModel: projection rows of the wrong shape");
        h = into.copy_(base);
    } else {
        h = base.contiguous();
    }
    std::vector<int64_t> local;
    std::vector<int64_t> slots;
    for (int64_t i = begin; i < end; ++i)
        if (m_slotOf[size_t(i)] >= 0) {
            local.push_back(i - begin);
            slots.push_back(m_slotOf[size_t(i)]);
        }
    if (local.empty() || c == 0)
        return h;
    const int64_t m = int64_t(slots.size());
    const auto slotIndex = torch::tensor(slots, torch::kInt64);
    torch::Tensor configPart; // (C * m, W)
    if (configEmbeddings) {
        // Given embeddings (C, Nc, 18, 4) flattened to the 72 config columns of X0.
        configPart = product(
            configEmbeddings->index_select(1, slotIndex).reshape({ c * m, kConfigWidth }), m_configWeight.t());
    } else {
        // Sum over the 18 slots of projected[k, token]: an embedding bag over a flat (18 * 8, W) table.
        const auto offsets = torch::arange(kConfigSlots, torch::kInt64).mul_(kLayoutTokens);
        const auto flat = (m_batch.configTokens.index_select(1, slotIndex) + offsets).reshape({ c * m, kConfigSlots });
        configPart = useFusedKernels(m_table)
            ? bagSum(flat, m_table)
            : F::embedding_bag(flat, m_table, F::EmbeddingBagFuncOptions().mode(torch::kSum));
    }
    if (m_simWeight.defined())
        configPart = configPart
            + product(m_batch.simInputs.index_select(1, slotIndex).reshape({ c * m, kSimInputColumns }), m_simWeight.t());
    const auto nodes = torch::tensor(local, torch::kInt64);
    const auto configured = m_perNode.narrow(0, begin, end - begin).index_select(0, nodes).unsqueeze(1)
        + configPart.view({ c, m, width }).transpose(0, 1);
    h.index_copy_(0, nodes, configured);
    return h;
}

torch::Tensor TGraphModelImpl::project(const LayoutBatch& batch, const torch::Tensor* configEmbeddings)
{
    if (configEmbeddings)
        TORCH_CHECK(configEmbeddings->sizes()
                == torch::IntArrayRef({ batch.configs(), batch.graph.configNodeIds.size(0), kConfigSlots, kLayoutEmbedding }),
            "TGraphModel: config embeddings must be (C, Nc, 18, 4)");
    return Projector(*this, batch).rows(0, batch.graph.nodes(), configEmbeddings);
}

torch::Tensor TGraphModelImpl::forward(const LayoutBatch& batch, AttentionMaps* attention)
{
    // Without cross-attention a config's score does not depend on the other configs of its batch,
    // so without gradients a batch whose activations would exceed kScoreSubBatchBytes is scored in
    // sub-batches: the same scores in bounded memory (docs/model.md §6.1). With cross-attention the
    // batch is what the scores depend on, and it is scored whole.
    const int64_t c = batch.configs();
    const int64_t perConfig = batch.graph.nodes() * m_options.hidden * int64_t(sizeof(float));
    const int64_t sub = scoreSubBatchConfigs(batch.graph.nodes(), m_options.hidden);
    // With cross-attention the batch cannot be split by configuration, but by node slices
    // (slicedscoring.h): one activation instead of the whole pass's several.
    if (m_options.useCrossAttn && nodeSlicedScoringEnabled() && !attention && !torch::GradMode::is_enabled() && !is_training()
        && useFusedKernels(classifier->weight) && c * perConfig > kScoreSubBatchBytes)
        return scoreBySlices(batch);
    if (!m_options.useCrossAttn && !attention && !torch::GradMode::is_enabled() && sub < c) {
        // In training mode (a trainer's scores before its config-chunked backward pass, §11) every
        // sub-batch starts from the generator state the whole batch starts from and keys its
        // dropout masks by its place in the batch: the masks, and so the scores, of the whole batch.
        const bool dropout = is_training() && m_options.dropout > 0.0;
        const torch::Tensor state = dropout ? cpuGeneratorState() : torch::Tensor();
        std::vector<torch::Tensor> parts;
        for (int64_t begin = 0; begin < c; begin += sub) {
            if (dropout)
                setCpuGeneratorState(state);
            LayoutBatch part;
            part.graph = batch.graph;
            part.configTokens = batch.configTokens.narrow(0, begin, std::min(sub, c - begin));
            if (batch.simInputs.defined())
                part.simInputs = batch.simInputs.narrow(0, begin, std::min(sub, c - begin));
            part.window = batch.window.sub(begin, c);
            parts.push_back(classifier(meanOverNodes(nodeEmbeddings(part, nullptr))).squeeze(1));
        }
        return torch::cat(parts);
    }
    return classifier(meanOverNodes(nodeEmbeddings(batch, attention))).squeeze(1); // pooling, then the linear head
}

torch::Tensor TGraphModelImpl::scoreBySlices(const LayoutBatch& batch, int64_t sliceNodes)
{
    TORCH_CHECK(batch.graph.nodes() > 0, "TGraphModel: empty graph");
    TORCH_CHECK(!is_training() || m_options.dropout == 0.0, "TGraphModel: scoring by slices has no dropout");
    torch::NoGradGuard noGrad;
    const EdgeTensors edges = prepareEdges(batch.graph.edges, batch.graph.nodes(), m_options.bidirectionalEdges);
    const Projector projector(*this, batch);
    const auto pooled = pooledEmbeddingsBySlices(
        encoder, [&projector](int64_t begin, int64_t end, torch::Tensor& out) { projector.rows(begin, end, nullptr, out); },
        batch.graph.nodes(), batch.configs(), edges, sliceNodes);
    return classifier(pooled).squeeze(1);
}

torch::Tensor TGraphModelImpl::nodeEmbeddings(const LayoutBatch& batch, AttentionMaps* attention)
{
    TORCH_CHECK(batch.graph.nodes() > 0, "TGraphModel: empty graph");
    if (attention)
        attention->layers.clear();
    const EdgeTensors edges = prepareEdges(batch.graph.edges, batch.graph.nodes(), m_options.bidirectionalEdges);
    return encoder.forward(inputProjection(batch), edges, attention, batch.window);
}

torch::Tensor TGraphModelImpl::nodeEmbeddings(const LayoutBatch& batch, const torch::Tensor& configEmbeddings)
{
    TORCH_CHECK(batch.graph.nodes() > 0, "TGraphModel: empty graph");
    const EdgeTensors edges = prepareEdges(batch.graph.edges, batch.graph.nodes(), m_options.bidirectionalEdges);
    return encoder.forward(inputProjection(batch, configEmbeddings), edges, nullptr, batch.window);
}

int64_t scoreSubBatchConfigs(int64_t nodes, int64_t hidden)
{
    return std::max<int64_t>(1, kScoreSubBatchBytes / std::max<int64_t>(1, nodes * hidden * int64_t(sizeof(float))));
}

int64_t parameterCount(const torch::nn::Module& module)
{
    int64_t count = 0;
    for (const auto& p : module.parameters())
        count += p.numel();
    return count;
}

} // namespace tgraph::model
