// SPDX-License-Identifier: Apache-2.0
#include "model/nn/slicedscoring.h"

#include "model/nn/fusedinternal.h"
#include "model/nn/fusedkernels.h"
#include "model/nn/products.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace tgraph::model {

namespace {

// Temporaries per slice when the caller does not choose: large enough for efficient products
// (a few thousand rows), small enough to stay beside the buffer unnoticed.
constexpr int64_t kSliceBytes = int64_t(8) << 20;
// Rows of f_in[0]'s Linear written per call of the projection.
constexpr int64_t kProjectionBytes = int64_t(16) << 20;

struct Slices
{
    int64_t nodes = 0;
    int64_t size = 1;
    int64_t count() const { return (nodes + size - 1) / size; }
    int64_t begin(int64_t t) const { return t * size; }
    int64_t end(int64_t t) const { return std::min(nodes, (t + 1) * size); }
};

// Instance norm statistics (eps 1e-5) of `rows` contiguous rows of `cols` floats.
struct ColumnStats
{
    std::vector<float> mean;
    std::vector<float> invStd;
};

ColumnStats statsOf(int64_t rows, int64_t cols, const float* x)
{
    ColumnStats s { std::vector<float>(size_t(cols)), std::vector<float>(size_t(cols)) };
    kernels::columnMoments(rows, cols, cols, x, 1e-5f, s.mean.data(), s.invStd.data());
    return s;
}

void copyFloats(float* to, const float* from, int64_t count)
{
    std::memcpy(to, from, size_t(count) * sizeof(float));
}

torch::Tensor floats(std::initializer_list<int64_t> sizes) { return torch::empty(sizes, torch::kFloat32); }

// A layer's tail in eval mode (gatedLayer's values without dropout) for x (s, C, W) contiguous,
// with the residual rows (s, C, H) or null: out (s, C, H).
void gatedTail(const torch::Tensor& x, const ChannelGateImpl& gate, const torch::Tensor& temperature,
    const float* residual, bool residualAfterActivation, float* out)
{
    const auto z = fused::gateLogits(x, gate.linear1->weight, gate.linear1->bias, gate.linear2->weight);
    const auto zBias = gate.linear2->bias.contiguous();
    kernels::GateActivation a
        = fused::describe(x, z, torch::Tensor(), temperature, residualAfterActivation, 0.0, /*seed=*/0);
    a.residual = residual;
    a.zBias = zBias.data_ptr<float>();
    kernels::gateActivationForward(a, out);
}

// f_in's second half: the compact (N, C, W) Linear output at the buffer's front is normalized,
// gated and cross-attended into (N, C, H) rows over the whole buffer, in decreasing slice order.
// A slice's output goes straight to its rows: its own input is read into `x` first, and the
// inputs of the slices still to run lie before its rows (W <= H).
void expandInputLayer(float* buffer, int64_t configs, int64_t width, int64_t hidden, const Slices& slices,
    const LinearActNormImpl& layer)
{
    const int64_t rowIn = configs * width;
    const int64_t rowOut = configs * hidden;
    const ColumnStats stats = statsOf(slices.nodes, rowIn, buffer);
    const torch::Tensor temperature = layer.cross_attn ? layer.cross_attn->temperature : torch::Tensor();
    for (int64_t t = slices.count() - 1; t >= 0; --t) {
        const int64_t first = slices.begin(t);
        const int64_t s = slices.end(t) - first;
        auto x = floats({ s, configs, width });
        kernels::normalizeColumns(
            s, rowIn, rowIn, buffer + first * rowIn, stats.mean.data(), stats.invStd.data(), x.data_ptr<float>());
        gatedTail(x, *layer.attn, temperature, nullptr, false, buffer + first * rowOut);
    }
}

// One graph block over the buffer's (N, C, H) rows. Writes the output over the input, or, with
// `pooled`, adds its sum over the nodes into pooled (C H doubles) and leaves the buffer as it is.
void runBlock(float* buffer, int64_t configs, int64_t hidden, const Slices& slices, const GraphBlockImpl& block,
    const EdgeTensors& edges, double* pooled)
{
    const int64_t n = slices.nodes;
    const int64_t row = configs * hidden;
    const ColumnStats stats = statsOf(n, row, buffer);
    const SageConvImpl& conv = *block.conv;
    // (2H, W), in bf16 converted once for all slices (products.h)
    const auto weightF = torch::cat({ conv.lin_l->weight, conv.lin_r->weight }, 1).t().contiguous();
    const auto weight = bf16Products() ? toBf16(weightF) : weightF;
    const int64_t width = weight.size(1);
    const torch::Tensor temperature = block.cross_attn ? block.cross_attn->temperature : torch::Tensor();
    const kernels::EdgeLists lists = fused::edgeLists(edges);

    // Node j's input row is read as a message by the nodes i with j in in(i). After j's slice has
    // been written, the row is kept aside if a later slice still reads it, until that slice has run.
    std::vector<const float*> rowOf(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
        rowOf[size_t(i)] = buffer + i * row;
    std::vector<int64_t> lastReader(size_t(n), -1);
    if (!pooled)
        for (int64_t i = 0; i < n; ++i)
            for (int64_t q = lists.inBegin[i]; q < lists.inBegin[i + 1]; ++q) {
                int64_t& last = lastReader[size_t(lists.inSource[q])];
                last = std::max(last, i / slices.size);
            }
    std::vector<torch::Tensor> kept(static_cast<size_t>(n)); // the rows kept aside, by node
    std::vector<std::vector<int64_t>> releasedAfter(size_t(slices.count())); // their nodes, by last reader

    for (int64_t t = 0; t < slices.count(); ++t) {
        const int64_t first = slices.begin(t);
        const int64_t s = slices.end(t) - first;
        auto input = floats({ s, configs, 2 * hidden });
        kernels::sageInputRows(lists, first, first + s, configs, hidden, rowOf.data(), stats.mean.data(),
            stats.invStd.data(), input.data_ptr<float>());
        const auto eta = productAdd(conv.lin_l->bias, input.view({ s * configs, 2 * hidden }), weight)
                             .view({ s, configs, width });
        auto out = floats({ s, configs, hidden });
        gatedTail(eta, *block.attn, temperature, buffer + first * row, block.residualAfterActivation(),
            out.data_ptr<float>());
        if (pooled) {
            kernels::addColumnSums(s, row, out.data_ptr<float>(), pooled);
            continue;
        }
        for (int64_t i = first; i < first + s; ++i) {
            const int64_t last = lastReader[size_t(i)];
            if (last <= t)
                continue;
            kept[size_t(i)] = torch::from_blob(buffer + i * row, { row }, torch::kFloat32).clone();
            rowOf[size_t(i)] = kept[size_t(i)].data_ptr<float>();
            releasedAfter[size_t(last)].push_back(i);
        }
        copyFloats(buffer + first * row, out.data_ptr<float>(), s * row);
        for (const int64_t i : releasedAfter[size_t(t)])
            kept[size_t(i)] = torch::Tensor(); // no later slice reads node i
    }
}

std::atomic<bool>& slicedSetting()
{
    static std::atomic<bool> setting { [] {
        const char* v = std::getenv("TGRAPH_SLICES");
        return !(v && std::strcmp(v, "0") == 0);
    }() };
    return setting;
}

} // namespace

bool nodeSlicedScoringEnabled() { return slicedSetting().load(); }

void setNodeSlicedScoringEnabled(bool enabled) { slicedSetting().store(enabled); }

int64_t defaultSliceNodes(int64_t configs, int64_t hidden)
{
    return std::max<int64_t>(1, kSliceBytes / (std::max<int64_t>(1, configs) * 2 * hidden * int64_t(sizeof(float))));
}

torch::Tensor pooledEmbeddingsBySlices(const GraphEncoder& encoder, const ProjectionRows& projection, int64_t nodes,
    int64_t configs, const EdgeTensors& edges, int64_t sliceNodes)
{
    TORCH_CHECK(nodes > 0 && configs > 0, "pooledEmbeddingsBySlices: empty batch");
    TORCH_CHECK(edges.nodes == nodes, "pooledEmbeddingsBySlices: the edges are not of this graph");
    torch::NoGradGuard noGrad;
    const int64_t hidden = encoder.hidden();
    const int64_t width = encoder.linear->linear->weight.size(0);
    TORCH_CHECK(width <= hidden, "pooledEmbeddingsBySlices: layers wider than their output");
    Slices slices;
    slices.nodes = nodes;
    slices.size = sliceNodes > 0 ? sliceNodes : defaultSliceNodes(configs, hidden);
    const int64_t rowIn = configs * width;
    const int64_t rowOut = configs * hidden;
    auto bufferTensor = floats({ nodes, configs, hidden });
    float* buffer = bufferTensor.data_ptr<float>();

    // f_in[0]: its Linear (the projection) written compactly at the front, in slices of about
    // kProjectionBytes (its temporaries are only the configurable nodes' rows), then the rest of
    // the layer.
    const int64_t projectionSlice = std::max<int64_t>(1, kProjectionBytes / (rowIn * int64_t(sizeof(float))));
    for (int64_t first = 0; first < nodes; first += projectionSlice) {
        const int64_t s = std::min(projectionSlice, nodes - first);
        auto rows = torch::from_blob(buffer + first * rowIn, { s, configs, width }, torch::kFloat32);
        projection(first, first + s, rows);
    }
    expandInputLayer(buffer, configs, width, hidden, slices, *encoder.linear);

    // f_in[1]: its Linear slice by slice into the compact front (a slice's outputs cover only input
    // rows already read), then the rest of the layer.
    const auto& linear2 = *encoder.linear2->linear;
    const auto weight2F = linear2.weight.t().contiguous(); // (H, W)
    const auto weight2 = bf16Products() ? toBf16(weight2F) : weight2F;
    for (int64_t t = 0; t < slices.count(); ++t) {
        const int64_t first = slices.begin(t);
        const int64_t s = slices.end(t) - first;
        const auto input = torch::from_blob(buffer + first * rowOut, { s * configs, hidden }, torch::kFloat32);
        const auto q = productAdd(linear2.bias, input, weight2);
        copyFloats(buffer + first * rowIn, q.data_ptr<float>(), s * rowIn);
    }
    expandInputLayer(buffer, configs, width, hidden, slices, *encoder.linear2);

    std::vector<double> sums(size_t(rowOut), 0.0);
    const auto& blocks = encoder.blocks();
    for (size_t k = 0; k < blocks.size(); ++k)
        runBlock(buffer, configs, hidden, slices, *blocks[k], edges, k + 1 == blocks.size() ? sums.data() : nullptr);
    if (blocks.empty())
        kernels::addColumnSums(nodes, rowOut, buffer, sums.data());

    auto pooled = floats({ configs, hidden });
    float* p = pooled.data_ptr<float>();
    for (int64_t j = 0; j < rowOut; ++j)
        p[j] = float(sums[size_t(j)] / double(nodes));
    return pooled;
}

} // namespace tgraph::model
