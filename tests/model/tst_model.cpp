// SPDX-License-Identifier: Apache-2.0
// TGraph layout and tile models: state-dict names and sizes, input assembly, operator semantics,
// batch (in)dependence, weights npz exchange, and parity with a plain PyTorch reference
// (tests/tools/tgraph_reference.py) run by Debian's python3.

#include "model/nn/batch.h"
#include "model/runtime/cachingcpuallocator.h"
#include "model/nn/fusedkernels.h"
#include "model/nn/fusedops.h"
#include "model/nn/layers.h"
#include "model/nn/products.h"
#include "model/nn/recompute.h"
#include "model/nn/recomputedblock.h"
#include "model/nn/recomputedinput.h"
#include "model/nn/tgraphmodel.h"
#include "model/nn/tilemodel.h"
#include "model/runtime/torchruntime.h"
#include "model/nn/weights.h"

#include "core/graph/configs.h"
#include "core/util/error.h"
#include "core/graph/graphio.h"
#include "core/graph/normalizer.h"
#include "core/io/npz.h"
#include "core/graph/prune.h"
#include "core/synth/synthetic.h"
#include "modeltestutil.h"
#include "testutil.h"

#include <QTemporaryDir>
#include <QtTest>

#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <set>

using namespace tgraph;
using namespace tgraph::model;
using namespace modeltest;

namespace {

using Shapes = std::map<std::string, std::vector<int64_t>>;

Shapes shapesOf(const torch::nn::Module& m)
{
    Shapes s;
    for (const auto& p : m.named_parameters())
        s[p.key()] = std::vector<int64_t>(p.value().sizes().begin(), p.value().sizes().end());
    return s;
}

// Expected state dict of one f_in layer / graph block, written out from docs/model.md §3.3 (not derived
// from the model's own formula). `w` = layer width (128 with cross-attn, 256 without).
void addLayer(Shapes& s, const std::string& prefix, const std::string& linear, int64_t in, int64_t w, bool cross)
{
    if (linear == "conv") {
        s[prefix + ".conv.lin_l.weight"] = { w, in };
        s[prefix + ".conv.lin_l.bias"] = { w };
        s[prefix + ".conv.lin_r.weight"] = { w, in };
    } else {
        s[prefix + ".linear.weight"] = { w, in };
        s[prefix + ".linear.bias"] = { w };
    }
    s[prefix + ".attn.linear1.weight"] = { w / 8, w };
    s[prefix + ".attn.linear1.bias"] = { w / 8 };
    s[prefix + ".attn.linear2.weight"] = { w, w / 8 };
    s[prefix + ".attn.linear2.bias"] = { w };
    if (cross)
        s[prefix + ".cross_attn.temperature"] = {};
}

Shapes expectedLayoutShapes(bool cross, int64_t opTable)
{
    const int64_t w = cross ? 128 : 256;
    Shapes s;
    s["embedding_op.weight"] = { opTable, 16 };
    s["embedding_layout_cfg.weight"] = { 8, 4 };
    addLayer(s, "linear", "linear", 246, w, cross);
    addLayer(s, "linear2", "linear", 256, w, cross);
    addLayer(s, "convs.0", "conv", 256, w, cross);
    addLayer(s, "convs.1", "conv", 256, w, cross);
    s["classifier.weight"] = { 1, 256 };
    s["classifier.bias"] = { 1 };
    return s;
}

// 5 nodes; node 2 consumes 0 and 1, node 3 consumes 2, node 4 consumes 3 and 2. Configurable: 1, 3.
// Numeric columns hold varied values, columns 134..139 layout values -1..5.
LayoutGraph handGraph()
{
    LayoutGraph g;
    const int64_t n = 5;
    g.nodeFeat = NdArray<float>({ n, kNodeFeatures }, 0.0f);
    for (int64_t i = 0; i < n; ++i) {
        for (int c = 0; c < kNumericNodeFeatures; ++c)
            g.nodeFeat(i, c) = float((i * 7 + c * 3) % 11) - 2.0f + (c == 5 ? 100.0f * float(i) : 0.0f);
        g.nodeFeat(i, 9) = 4.0f; // a constant column: std 1
        for (int j = 0; j < 6; ++j)
            g.nodeFeat(i, 134 + j) = float((i + j) % 7) - 1.0f;
    }
    g.nodeOpcode = NdArray<int64_t>::fromVector({ n }, { 63, 26, 34, 75, 120 });
    g.edgeIndex = NdArray<int64_t>::fromVector({ 5, 2 }, { 2, 0, 2, 1, 3, 2, 4, 3, 4, 2 });
    g.nodeConfigIds = NdArray<int64_t>::fromVector({ 2 }, { 1, 3 });
    const int64_t configs = 3;
    g.nodeConfigFeat = NdArray<float>({ configs, 2, kLayoutConfigFeatures }, -1.0f);
    for (int64_t c = 0; c < configs; ++c)
        for (int64_t k = 0; k < 2; ++k)
            for (int64_t j = 0; j < kLayoutConfigFeatures; ++j)
                g.nodeConfigFeat(c, k, j) = float((c * 5 + k * 3 + j) % 7) - 1.0f;
    g.configRuntime = NdArray<int64_t>::fromVector({ configs }, { 30, 10, 20 });
    g.nodeSplits = NdArray<int64_t>::fromVector({ 1 }, { 0 });
    return g;
}

// A tile model with jittered weights and config_feat statistics of `graph`, in eval mode.
TileModel randomTileModel(const TileGraph& graph)
{
    TileModel t(options(true));
    randomize(*t);
    t->setConfigStats(computeConfigStats({ &graph }));
    t->eval();
    return t;
}

torch::Tensor scores(TGraphModel& m, const LayoutBatch& b)
{
    torch::NoGradGuard noGrad;
    return m->forward(b);
}

// Names both sides' differences on failure.
void compareShapes(const Shapes& actual, const Shapes& expected)
{
    QString diff;
    for (const auto& [name, shape] : expected) {
        const auto it = actual.find(name);
        if (it == actual.end())
            diff += " missing " + QString::fromStdString(name);
        else if (it->second != shape)
            diff += " "
                + QString::fromStdString(name + " is " + shapeToString(it->second) + " not " + shapeToString(shape));
    }
    for (const auto& [name, shape] : actual)
        if (!expected.count(name))
            diff += " unexpected " + QString::fromStdString(name);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

// Error of the ranking-relevant part: scores minus their mean, relative to its spread.
double centeredRelativeError(const torch::Tensor& ours, const torch::Tensor& ref)
{
    const auto a = ours - ours.mean();
    const auto b = ref - ref.mean();
    return maxAbs(a - b) / std::max(maxAbs(b), 1e-12);
}

torch::Tensor tensorOf(const NdArray<float>& a)
{
    std::vector<int64_t> shape = a.shape();
    return torch::from_blob(const_cast<float*>(a.data()), shape, torch::kFloat32).clone();
}

// The composed ATen ops the fused gated layer replaces (layers.cpp's composed path).
torch::Tensor composedGate(
    const torch::Tensor& h, ChannelGate& gate, const torch::Tensor& s, const torch::Tensor& t, bool after)
{
    const auto z = gate->linear2(torch::relu(gate->linear1(h)));
    auto y = h * torch::sigmoid(z);
    if (t.defined())
        y = torch::cat({ y, y * torch::softmax(y / t, 1) }, 2);
    if (!s.defined())
        return torch::gelu(y);
    return after ? s + torch::gelu(y) : torch::gelu(s + y);
}

// Gradients of sum(out * upstream) with respect to `inputs` (undefined ones skipped).
std::vector<torch::Tensor> gradients(
    const torch::Tensor& out, const torch::Tensor& upstream, const std::vector<torch::Tensor>& inputs)
{
    std::vector<torch::Tensor> defined;
    for (const auto& t : inputs)
        if (t.defined())
            defined.push_back(t);
    return torch::autograd::grad({ (out * upstream).sum() }, defined);
}

// Whether a gradient computed another way agrees with `ref`: within 1e-5 of it relatively, or,
// for gradients that are rounding noise around an exact zero (biases an instance norm cancels,
// sums that cancel), within 1e-6 of `largest`, the largest gradient of the comparison. Returns the
// error in the unit that decided.
double gradientError(const torch::Tensor& ours, const torch::Tensor& ref, double largest)
{
    const double diff = maxAbs(ours - ref);
    const double relative = diff / std::max(maxAbs(ref), 1e-30);
    return relative < 1e-5 ? relative : diff / std::max(largest, 1e-30) * 10.0;
}

// Empty when every gradient of `ours` agrees with the one of `ref` at the same place
// (gradientError below 1e-5, with `largest` taken over `ref`), else which one does not and by how much.
QString gradientsDisagree(const std::vector<torch::Tensor>& ours, const std::vector<torch::Tensor>& ref)
{
    if (ours.size() != ref.size())
        return QStringLiteral("%1 gradients, expected %2").arg(ours.size()).arg(ref.size());
    double largest = 0;
    for (const auto& g : ref)
        largest = std::max(largest, maxAbs(g));
    for (size_t k = 0; k < ours.size(); ++k)
        if (const double err = gradientError(ours[k], ref[k], largest); !(err < 1e-5))
            return QStringLiteral("input %1 off by %2").arg(k).arg(err);
    return {};
}

// Restores the fused-kernel switch when a test ends, however it ends.
struct FusedSwitch
{
    explicit FusedSwitch(bool enabled)
        : m_before(fusedKernelsEnabled())
    {
        setFusedKernelsEnabled(enabled);
    }
    ~FusedSwitch() { setFusedKernelsEnabled(m_before); }
    bool m_before;
};

} // namespace

class TestModel : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::string path(const char* name) const { return testutil::str(m_dir.filePath(name)); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QCOMPARE(initTorchRuntime(2), 2);
        // OpenBLAS keeps its own pool, which LibTorch's setting does not reach: initTorchRuntime
        // sizes it too (0: another BLAS, nothing to size).
        const int blas = blasThreads();
        QVERIFY2(blas == 0 || blas == 2, qPrintable(QString::number(blas)));
        // One thread: ctest runs two tests at once on this 2-core machine, and oversubscribed OpenMP
        // threads spin-wait (a 9 s test took over 300 s with 2 threads each).
        QCOMPARE(initTorchRuntime(1), 1);
        QVERIFY(blasThreads() == (blas == 0 ? 0 : 1));
        qInfo("BLAS: %s", blas ? "OpenBLAS, pool sized with LibTorch's threads" : "not OpenBLAS");
        torch::manual_seed(20240601);
    }

    // Large tensors come from the caching allocator and their blocks are reused; small ones go to
    // LibTorch's own; values are what the operations compute either way.
    void cachingAllocatorReusesLargeBlocks()
    {
        QVERIFY(cachingCpuAllocatorInstalled()); // by initTorchRuntime
        releaseIdleCpuBlocks();
        const CachingAllocatorStats before = cachingCpuAllocatorStats();
        const int64_t n = (3 << 20) / 4; // 3 MiB of floats: a 4 MiB block
        {
            const auto a = torch::arange(n, torch::kFloat32);
            QCOMPARE(reinterpret_cast<uintptr_t>(a.data_ptr()) % (2u << 20), uintptr_t(0)); // huge-page aligned
            const CachingAllocatorStats live = cachingCpuAllocatorStats();
            QCOMPARE(live.requests, before.requests + 1);
            QCOMPARE(live.mapped, before.mapped + 1);
            QCOMPARE(live.inUseBytes, before.inUseBytes + (size_t(4) << 20));
            QCOMPARE(a[n - 1].item<float>(), float(n - 1));
        }
        const CachingAllocatorStats freed = cachingCpuAllocatorStats();
        QCOMPARE(freed.inUseBytes, before.inUseBytes);
        QCOMPARE(freed.idleBytes, size_t(4) << 20);
        {
            // 3.5 MiB fits the idle 4 MiB block: no new mapping
            const auto b = torch::full({ (7 << 20) / 8 }, 2.0f);
            const CachingAllocatorStats reused = cachingCpuAllocatorStats();
            QCOMPARE(reused.reused, freed.reused + 1);
            QCOMPARE(reused.mapped, freed.mapped);
            QCOMPARE(b.sum().item<double>(), 2.0 * double((7 << 20) / 8));
            // a much smaller request does not take a block 8x its size; a tiny one is not ours
            const auto small = torch::ones({ 1000 });
            QCOMPARE(cachingCpuAllocatorStats().requests, reused.requests);
            QCOMPARE(small.sum().item<float>(), 1000.0f);
        }
        releaseIdleCpuBlocks();
        const CachingAllocatorStats released = cachingCpuAllocatorStats();
        QCOMPARE(released.idleBytes, size_t(0));
        QVERIFY(released.unmapped > freed.unmapped);
        // the same model output with blocks reused as with fresh ones (64 configs: MiB activations)
        const LayoutGraph g = smallSyntheticGraph(64, 9);
        const LayoutBatch b = makeLayoutBatch(g, fitNormalizer(g.nodeFeat), allRows(64), 121, "s");
        TGraphModel m(options(true));
        m->eval();
        const uint64_t mappedBefore = cachingCpuAllocatorStats().mapped;
        const auto first = scores(m, b);
        const CachingAllocatorStats afterFirst = cachingCpuAllocatorStats();
        QVERIFY(afterFirst.mapped > mappedBefore);
        const auto second = scores(m, b);
        QVERIFY(torch::equal(first, second));
        QCOMPARE(cachingCpuAllocatorStats().mapped, afterFirst.mapped); // the second pass maps nothing

        // A request no idle block fits is made of idle blocks' pages: three freed 40 MiB blocks
        // moved side by side make a 100 MiB tensor (the third split, 20 MiB of it left idle), and
        // nothing is mapped; every page of it can be read and written.
        releaseIdleCpuBlocks();
        {
            std::vector<torch::Tensor> blocks;
            for (int k = 0; k < 3; ++k)
                blocks.push_back(torch::full({ (40 << 20) / 4 }, float(k + 1)));
        }
        const CachingAllocatorStats idle = cachingCpuAllocatorStats();
        QCOMPARE(idle.idleBytes, size_t(120) << 20);
        {
            const auto large = torch::empty({ (100 << 20) / 4 });
            const CachingAllocatorStats assembled = cachingCpuAllocatorStats();
            QCOMPARE(assembled.mapped, idle.mapped);
            QCOMPARE(assembled.assembled, idle.assembled + 1);
            QCOMPARE(assembled.movedBytes, idle.movedBytes + (size_t(100) << 20));
            QCOMPARE(assembled.idleBytes, size_t(20) << 20);
            QCOMPARE(reinterpret_cast<uintptr_t>(large.data_ptr()) % (2u << 20), uintptr_t(0));
            // the pages moved with what the freed tensors left in them (fresh pages would read 0)
            QCOMPARE(large.min().item<float>(), 1.0f);
            QCOMPARE(large.max().item<float>(), 3.0f);
            large.fill_(7.0f);
            QCOMPARE(large.min().item<float>(), 7.0f);
            QCOMPARE(large.max().item<float>(), 7.0f);
        }
        // ... and a smaller one is the front of a larger idle block: 30 MiB of the idle 100 MiB
        // block (neither idle block is within 1/8 of 30 MiB), the other 70 MiB staying idle.
        const CachingAllocatorStats freedLarge = cachingCpuAllocatorStats();
        QCOMPARE(freedLarge.idleBytes, size_t(120) << 20);
        {
            const auto part = torch::full({ (30 << 20) / 4 }, 3.0f);
            const CachingAllocatorStats split = cachingCpuAllocatorStats();
            QCOMPARE(split.mapped, freedLarge.mapped);
            QCOMPARE(split.split, freedLarge.split + 1);
            QCOMPARE(split.idleBytes, size_t(90) << 20);
            QCOMPARE(part.sum(torch::kFloat64).item<double>(), 3.0 * double((30 << 20) / 4));
        }
        // With no idle block at all, a block is mapped whole.
        releaseIdleCpuBlocks();
        const uint64_t mappedIdle = cachingCpuAllocatorStats().mapped;
        {
            const auto fresh = torch::ones({ (10 << 20) / 4 });
            QCOMPARE(cachingCpuAllocatorStats().mapped, mappedIdle + 1);
            QCOMPARE(fresh.sum().item<float>(), float((10 << 20) / 4));
        }
    }

    void parameterNamesAndShapes()
    {
        for (const bool cross : { true, false }) {
            for (const int64_t table : { int64_t(121), int64_t(120) }) {
                TGraphModel m(options(cross, table));
                compareShapes(shapesOf(*m), expectedLayoutShapes(cross, table));
                QVERIFY(m->named_buffers().is_empty()); // InstanceNorm has no running stats
            }
        }
        // Tile model: the layout stack with a 174-wide input, then config_mlp and head.
        TileModel t(options(true));
        Shapes expected = expectedLayoutShapes(true, 121);
        expected.erase("classifier.weight");
        expected.erase("classifier.bias");
        expected["linear.linear.weight"] = { 128, 174 };
        expected["config_mlp.0.weight"] = { 256, 24 };
        expected["config_mlp.0.bias"] = { 256 };
        expected["config_mlp.3.weight"] = { 256, 256 };
        expected["config_mlp.3.bias"] = { 256 };
        expected["head.0.weight"] = { 256, 768 };
        expected["head.0.bias"] = { 256 };
        expected["head.3.weight"] = { 256, 256 };
        expected["head.3.bias"] = { 256 };
        expected["head.6.weight"] = { 1, 256 };
        expected["head.6.bias"] = { 1 };
        compareShapes(shapesOf(*t), expected);
        std::set<std::string> buffers;
        for (const auto& b : t->named_buffers())
            buffers.insert(b.key());
        QCOMPARE(buffers, (std::set<std::string> { "config_normalizer.mean", "config_normalizer.std" }));
    }

    void parameterCounts()
    {
        // Cross-attn ON (layer width 128, gate 128 -> 16 -> 128 = 2048+16+2048+128 = 4240):
        //   embeddings 121*16 + 8*4                         =   1 968
        //   linear  : 246*128 + 128 + gate + temperature    =  35 857
        //   linear2 : 256*128 + 128 + gate + temperature    =  37 137
        //   convs.K : lin_l 256*128 + 128, lin_r 256*128, gate, temperature = 69 905, twice = 139 810
        //   classifier 256 + 1                              =     257
        //   total 215 029 (docs/model.md §3.3); with the authors' 120-row op table 16 fewer.
        QCOMPARE(parameterCount(*TGraphModel(options(true))), int64_t(215029));
        QCOMPARE(parameterCount(*TGraphModel(options(true, 120))), int64_t(215013));
        // Cross-attn OFF (width 256, gate 256 -> 32 -> 256 = 8192+32+8192+256 = 16 672):
        //   1 968 + linear (246*256+256+gate = 79 904) + linear2 (256*256+256+gate = 82 464)
        //   + 2 x (65 792 + 65 536 + gate = 148 000) + 257 = 460 593 (docs/model.md §3.3).
        QCOMPARE(parameterCount(*TGraphModel(options(false))), int64_t(460593));
        // Tile, cross-attn ON: 1 968 + linear (174*128+128+4240+1 = 26 641) + 37 137 + 139 810
        //   + config_mlp (24*256+256 + 256*256+256 = 72 192) + head (768*256+256 + 65 792 + 257 = 262 913)
        //   = 540 661 (the config_normalizer buffers are not parameters).
        QCOMPARE(parameterCount(*TileModel(options(true))), int64_t(540661));
    }

    void initialization()
    {
        TGraphModel m(options(true));
        const auto params = m->named_parameters();
        for (const char* name : { "linear.cross_attn.temperature", "convs.1.cross_attn.temperature" })
            QCOMPARE(params[name].item<float>(), 0.5f);
        for (const char* name : { "linear.linear.bias", "linear2.linear.bias" })
            QVERIFY(torch::all(params[name] == 0.01f).item<bool>());
        // Xavier-normal: std = sqrt(2 / (fan_in + fan_out)).
        const double xavier0 = std::sqrt(2.0 / (246 + 128));
        const double xavier1 = std::sqrt(2.0 / (256 + 128));
        QVERIFY(std::abs(params["linear.linear.weight"].std().item<double>() / xavier0 - 1) < 0.03);
        QVERIFY(std::abs(params["linear2.linear.weight"].std().item<double>() / xavier1 - 1) < 0.03);
        // PyTorch defaults elsewhere: Kaiming-uniform(a = sqrt 5) => |w| <= 1/sqrt(fan_in); N(0, 1) embeddings.
        const double bound = 1.0 / 16.0;
        const double lmax = maxAbs(params["convs.0.conv.lin_l.weight"]);
        QVERIFY2(lmax <= bound && lmax > 0.9 * bound, qPrintable(QString::number(lmax)));
        QVERIFY(std::abs(params["embedding_op.weight"].std().item<double>() - 1.0) < 0.1);
    }

    void batching()
    {
        const LayoutGraph g = handGraph();
        validate(g, "hand");
        const Normalizer norm = fitNormalizer(g.nodeFeat);
        const std::vector<int64_t> rows { 2, 0 };
        const LayoutBatch b = makeLayoutBatch(g, norm, rows, 121, "hand");
        QCOMPARE(b.configs(), int64_t(2));
        QCOMPARE(b.graph.nodes(), int64_t(5));

        // Edges (2, E): row 0 = consumer = npz column 0.
        QCOMPARE(b.graph.edges.sizes().vec(), (std::vector<int64_t> { 2, 5 }));
        for (int64_t e = 0; e < 5; ++e) {
            QCOMPARE(b.graph.edges[0][e].item<int64_t>(), g.edgeIndex(e, 0));
            QCOMPARE(b.graph.edges[1][e].item<int64_t>(), g.edgeIndex(e, 1));
        }
        // Normalization on columns 0..133 only, with the normalizer's statistics.
        QCOMPARE(b.graph.numeric.sizes().vec(), (std::vector<int64_t> { 5, 134 }));
        for (int64_t i = 0; i < 5; ++i)
            for (int c = 0; c < kNumericNodeFeatures; ++c) {
                const double expected = (g.nodeFeat(i, c) - norm.mean()[size_t(c)]) / norm.stddev()[size_t(c)];
                QVERIFY(std::abs(b.graph.numeric[i][c].item<float>() - expected) < 1e-5);
            }
        QCOMPARE(norm.stddev()[9], 1.0); // constant column
        QCOMPARE(b.graph.numeric[3][9].item<float>(), 0.0f);
        // Layout columns 134..139 are tokens value + 2, not standardized.
        for (int64_t i = 0; i < 5; ++i)
            for (int j = 0; j < 6; ++j)
                QCOMPARE(b.graph.nodeLayoutTokens[i][j].item<int64_t>(), int64_t(g.nodeFeat(i, 134 + j)) + 2);
        QCOMPARE(b.graph.opcodes[4].item<int64_t>(), int64_t(120));

        // Config tokens: chosen rows in batch order, value + 2.
        QCOMPARE(b.configTokens.sizes().vec(), (std::vector<int64_t> { 2, 2, 18 }));
        for (int64_t c = 0; c < 2; ++c)
            for (int64_t k = 0; k < 2; ++k)
                for (int64_t j = 0; j < 18; ++j)
                    QCOMPARE(
                        b.configTokens[c][k][j].item<int64_t>(), int64_t(g.nodeConfigFeat(rows[size_t(c)], k, j)) + 2);
        // Dense scatter (docs/model.md §2.7): -2 fill => token 0 on non-configurable nodes 0, 2, 4.
        const auto dense = scatterConfigTokens(b);
        QCOMPARE(dense.sizes().vec(), (std::vector<int64_t> { 2, 5, 18 }));
        for (int64_t c = 0; c < 2; ++c) {
            for (int64_t node : { 0, 2, 4 })
                QVERIFY(torch::all(dense[c][node] == 0).item<bool>());
            QVERIFY(torch::equal(dense[c][1], b.configTokens[c][0]));
            QVERIFY(torch::equal(dense[c][3], b.configTokens[c][1]));
        }
        // The base-7 compressed path gives the same tokens.
        QVERIFY(torch::equal(makeConfigTokens(compressConfigs(g.nodeConfigFeat), rows, "hand"), b.configTokens));

        // X0 = [numeric 134 | config 72 | node layout 24 | opcode 16], all from one E_layout table.
        TGraphModel m(options(true));
        torch::NoGradGuard noGrad;
        const auto x0 = m->inputFeatures(b);
        QCOMPARE(x0.sizes().vec(), (std::vector<int64_t> { 2, 5, 246 }));
        const auto table = m->embedding_layout_cfg->weight;
        for (int64_t c = 0; c < 2; ++c) {
            QVERIFY(torch::equal(x0[c].narrow(1, 0, 134), b.graph.numeric));
            for (int64_t i = 0; i < 5; ++i) {
                for (int64_t k = 0; k < 18; ++k)
                    QVERIFY(torch::equal(x0[c][i].narrow(0, 134 + 4 * k, 4), table[dense[c][i][k]]));
                for (int64_t j = 0; j < 6; ++j)
                    QVERIFY(torch::equal(x0[c][i].narrow(0, 206 + 4 * j, 4), table[b.graph.nodeLayoutTokens[i][j]]));
                QVERIFY(torch::equal(x0[c][i].narrow(0, 230, 16), m->embedding_op->weight[b.graph.opcodes[i]]));
            }
        }
        QVERIFY(torch::equal(x0[0][0].narrow(0, 134, 4), table[0])); // value -2 -> token 0
        // The forward's decomposed projection equals f_in[0]'s Linear applied to X0 (as (N, C, W)).
        const auto direct = m->encoder.linear->linear(x0).transpose(0, 1);
        const auto projected = m->inputProjection(b);
        QVERIFY2(maxAbs(projected - direct) < 1e-5, qPrintable(QString::number(maxAbs(projected - direct))));
    }

    void batchingRefusals()
    {
        const LayoutGraph good = handGraph();
        const Normalizer norm = fitNormalizer(good.nodeFeat);
        const std::vector<int64_t> rows { 0, 1 };
        // Opcode 120 with the authors' 120-row table.
        testutil::expectInputError([&] { makeLayoutBatch(good, norm, rows, 120, "g.npz"); },
            { "g.npz", "node_opcode[4]", "opcode 120", "0..119" });
        LayoutGraph g = good;
        g.nodeFeat(2, 136) = 2.5f;
        testutil::expectInputError(
            [&] { makeLayoutBatch(g, norm, rows, 121, "g.npz"); }, { "g.npz", "node_feat[2,136]", "layout value 2.5" });
        g.nodeFeat(2, 136) = -3.0f;
        testutil::expectInputError(
            [&] { makeLayoutBatch(g, norm, rows, 121, "g.npz"); }, { "g.npz", "node_feat[2,136]", "layout value -3" });
        // Axis numbers of rank > 6 tensors (6, 7, ...) share the token of axis 5.
        g.nodeFeat(2, 136) = 7.0f;
        QCOMPARE(makeLayoutBatch(g, norm, rows, 121, "g.npz").graph.nodeLayoutTokens[2][2].item<int64_t>(), int64_t(7));
        g = good;
        g.nodeConfigFeat(1, 1, 4) = -2.0f;
        testutil::expectInputError(
            [&] { makeLayoutBatch(g, norm, rows, 121, "g.npz"); }, { "node_config_feat[1,1,4]", "value -2" });
        g = good;
        g.edgeIndex(3, 1) = 5;
        testutil::expectInputError([&] { makeLayoutBatch(g, norm, rows, 121, "g.npz"); }, { "edge_index[3,1]", "5" });
        g = good;
        g.nodeConfigIds[1] = 1;
        testutil::expectInputError(
            [&] { makeLayoutBatch(g, norm, rows, 121, "g.npz"); }, { "node_config_ids[1]", "listed twice" });
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, makeLayoutBatch(good, norm, { 3 }, 121, "g.npz"));
    }

    // Values of the definition (biased variance, eps 1e-5), gradients of the composed formula.
    void instanceNorm()
    {
        const auto h = (torch::randn({ 7, 3, 5 }) * 3 + 2).requires_grad_(true);
        const auto out = instanceNormNodes(h);
        const auto mean = h.mean(0, true);
        const auto var = (h - mean).pow(2).mean(0, true); // biased
        const auto expected = (h - mean) / torch::sqrt(var + 1e-5);
        QVERIFY(maxAbs(out - expected) < 1e-5);
        QVERIFY(maxAbs(out.mean(0)) < 1e-5);
        const auto upstream = torch::randn_like(h);
        QVERIFY(relativeError(gradients(out, upstream, { h })[0], gradients(expected, upstream, { h })[0]) < 1e-4);
        // One node: zero variance gives zeros, not NaN.
        QCOMPARE(maxAbs(instanceNormNodes(h.narrow(0, 0, 1))), 0.0);
    }

    void sageDirection()
    {
        // Nodes 0 and 2 both consume node 1: node 1 averages {0, 2}; 0 and 2 have no consumers.
        SageConv conv(2, 2);
        torch::NoGradGuard noGrad;
        conv->lin_l->weight.copy_(torch::eye(2));
        conv->lin_l->bias.zero_();
        conv->lin_r->weight.zero_();
        const auto h = torch::tensor({ 1.0f, 10.0f, 2.0f, 20.0f, 3.0f, 30.0f }).view({ 3, 1, 2 }); // (N, C, F)
        auto edges = torch::tensor({ 0, 2, 1, 1 }, torch::kInt64).view({ 2, 2 }); // rows: consumers, producers
        auto out = conv(h, prepareEdges(edges, 3, false));
        QVERIFY(
            torch::allclose(out.view({ 3, 2 }), torch::tensor({ 0.0f, 0.0f, 2.0f, 20.0f, 0.0f, 0.0f }).view({ 3, 2 })));
        // A duplicated edge counts twice: (2 h0 + h2) / 3.
        edges = torch::tensor({ 0, 0, 2, 1, 1, 1 }, torch::kInt64).view({ 2, 3 });
        out = conv(h, prepareEdges(edges, 3, false));
        QVERIFY(torch::allclose(out[1][0], torch::tensor({ 5.0f / 3, 50.0f / 3 })));
        // Paper switch: both directions, so 0 and 2 now average their producer 1.
        edges = torch::tensor({ 0, 2, 1, 1 }, torch::kInt64).view({ 2, 2 });
        out = conv(h, prepareEdges(edges, 3, true));
        QVERIFY(torch::allclose(
            out.view({ 3, 2 }), torch::tensor({ 2.0f, 20.0f, 2.0f, 20.0f, 2.0f, 20.0f }).view({ 3, 2 })));
        // Root weight without bias, lin_l's bias once: out = W_l mean + b_l + W_r h.
        conv->lin_r->weight.copy_(torch::eye(2) * 2);
        conv->lin_l->bias.copy_(torch::tensor({ 0.5f, -1.0f }));
        out = conv(h, prepareEdges(edges.narrow(1, 0, 1), 3, false)); // only 0 consumes 1
        QVERIFY(torch::allclose(out.view({ 3, 2 }),
            torch::tensor({ 2.5f, 19.0f, 1.0f + 4.0f + 0.5f, 10.0f + 40.0f - 1.0f, 6.5f, 59.0f }).view({ 3, 2 })));
    }

    void crossAttentionBatchDependence()
    {
        const LayoutGraph g = smallSyntheticGraph(8, 3);
        const Normalizer norm = fitNormalizer(g.nodeFeat);
        const auto batch = [&](std::vector<int64_t> rows) { return makeLayoutBatch(g, norm, rows, 121, "s"); };
        for (const bool cross : { false, true }) {
            TGraphModel m(options(cross));
            randomize(*m);
            m->eval();
            const auto all = scores(m, batch({ 0, 1, 2, 3, 4, 5, 6, 7 }));
            const auto half = torch::cat({ scores(m, batch({ 0, 1, 2, 3 })), scores(m, batch({ 4, 5, 6, 7 })) });
            const auto permuted = scores(m, batch({ 7, 6, 5, 4, 3, 2, 1, 0 })).flip(0);
            const double splitError = relativeError(half, all);
            const double permutationError = relativeError(permuted, all);
            if (cross) {
                // The softmax over configs makes a config's score depend on its batch companions
                // (but not on their order).
                QVERIFY2(splitError > 1e-3, qPrintable(QString::number(splitError)));
                QVERIFY2(permutationError < 1e-5, qPrintable(QString::number(permutationError)));
            } else {
                QVERIFY2(splitError < 1e-5, qPrintable(QString::number(splitError)));
                QVERIFY2(permutationError < 1e-5, qPrintable(QString::number(permutationError)));
            }
        }
    }

    void evalDeterminism()
    {
        const LayoutGraph g = smallSyntheticGraph(6, 4);
        const LayoutBatch b = makeLayoutBatch(g, fitNormalizer(g.nodeFeat), allRows(6), 121, "s");
        TGraphModel m(options(true));
        m->eval();
        const auto first = scores(m, b);
        QCOMPARE(first.sizes().vec(), (std::vector<int64_t> { 6 }));
        QVERIFY(torch::equal(first, scores(m, b)));
        m->train(); // block dropout p = 0.2
        QVERIFY(!torch::equal(scores(m, b), scores(m, b)));
        m->eval();
        QVERIFY(torch::equal(first, scores(m, b)));
        // Gradients reach every parameter (training will need them).
        m->train();
        m->zero_grad();
        m->forward(b).sum().backward();
        for (const auto& p : m->named_parameters())
            QVERIFY2(p.value().grad().defined() && maxAbs(p.value().grad()) > 0, p.key().c_str());
    }

    // The fused gated layer (model/nn/fusedops.h) gives the composed ops' values and gradients (input,
    // residual, temperature and the gate's four parameters), with and without cross-attention,
    // with no residual, the code's and the paper's residual.
    void fusedGateMatchesComposed()
    {
        for (const bool cross : { false, true }) {
            for (const int residual : { 0, 1, 2 }) { // none, code order, paper order
                const int64_t n = 11, c = 9, f = 24;
                const int64_t ow = cross ? 2 * f : f;
                ChannelGate gate(f);
                {
                    torch::NoGradGuard noGrad; // gate pre-activations of a few units: both sides of 0
                    for (const auto& p : gate->parameters())
                        p.copy_(torch::randn_like(p) * 0.8);
                }
                const auto h = (torch::randn({ n, c, f }) * 1.5).requires_grad_(true);
                const auto s = residual ? torch::randn({ n, c, ow }).requires_grad_(true) : torch::Tensor();
                const auto t = cross ? torch::full({}, 0.37).requires_grad_(true) : torch::Tensor();
                const bool after = residual == 2;
                const auto fused = gatedLayer(h, *gate, s, t, after, 0.0, true);
                const auto composed = composedGate(h, gate, s, t, after);
                const QString label = QStringLiteral("cross %1, residual %2").arg(cross).arg(residual);
                QCOMPARE(fused.sizes().vec(), composed.sizes().vec());
                QVERIFY2(maxAbs(fused - composed) < 1e-5, qPrintable(label));
                const auto upstream = torch::randn({ n, c, ow });
                const std::vector<torch::Tensor> inputs { h, s, t, gate->linear1->weight, gate->linear1->bias,
                    gate->linear2->weight, gate->linear2->bias };
                const auto gf = gradients(fused, upstream, inputs);
                const auto gc = gradients(composed, upstream, inputs);
                QCOMPARE(gf.size(), gc.size());
                for (size_t k = 0; k < gf.size(); ++k) {
                    // The temperature's gradient is one sum of C * N * F terms that largely cancel.
                    const double limit = gf[k].dim() == 0 ? 1e-4 : 1e-5;
                    const double e = relativeError(gf[k], gc[k]);
                    QVERIFY2(e < limit, qPrintable(label + QStringLiteral(": gradient %1 off by %2").arg(k).arg(e)));
                }
            }
        }
        // Shapes are checked before any memory is touched.
        const auto h = torch::randn({ 3, 2, 8 });
        ChannelGate wide(16);
        QVERIFY_THROWS_EXCEPTION(c10::Error, gatedLayer(h, *wide, {}, {}, false, 0.0, false));
        ChannelGate gate(8);
        QVERIFY_THROWS_EXCEPTION(
            c10::Error, gatedLayer(h, *gate, torch::randn({ 3, 2, 8 }), torch::full({}, 0.5), false, 0.0, false));
    }

    // The gate's products in one kernel (kernels::gateProducts, used by the node-sliced scoring):
    // ATen's ReLU(x W1^T + b1) and its product with W2^T to float rounding, for both gate widths
    // it has a kernel for and row counts that do and do not fill its blocks of four; NaN rows stay
    // NaN; the same bits on one thread and two; nothing written for shapes without a kernel.
    void fusedGateProductsMatchAten()
    {
        struct Shape { int64_t width, reduced, rows; };
        for (const Shape sh : { Shape { 128, 16, 1 }, Shape { 128, 16, 7 }, Shape { 256, 32, 130 }, Shape { 48, 16, 9 } }) {
            const QString label = QStringLiteral("F %1, R %2, %3 rows").arg(sh.width).arg(sh.reduced).arg(sh.rows);
            auto x = torch::randn({ sh.rows, sh.width });
            if (sh.rows > 3)
                x[2][5] = std::numeric_limits<float>::quiet_NaN();
            const auto w1 = torch::randn({ sh.reduced, sh.width }) * 0.3;
            const auto b1 = torch::randn({ sh.reduced });
            const auto w2 = torch::randn({ sh.width, sh.reduced }) * 0.3;
            const auto w1t = w1.t().contiguous();
            const auto w2t = w2.t().contiguous();
            const auto hiddenRef = torch::addmm(b1, x, w1.t()).clamp_min(0.0);
            const auto zRef = torch::mm(hiddenRef, w2.t());
            auto run = [&](int threads) {
                at::set_num_threads(threads);
                auto hidden = torch::full({ sh.rows, sh.reduced }, 7.0);
                auto z = torch::full({ sh.rows, sh.width }, 7.0);
                const bool done = kernels::gateProducts(sh.rows, sh.width, sh.reduced, x.data_ptr<float>(),
                    w1t.data_ptr<float>(), b1.data_ptr<float>(), w2t.data_ptr<float>(), hidden.data_ptr<float>(),
                    z.data_ptr<float>());
                at::set_num_threads(1);
                return std::make_tuple(done, hidden, z);
            };
            const auto [done, hidden, z] = run(1);
            QVERIFY2(done, qPrintable(label));
            QCOMPARE(torch::isnan(hidden).sum().item<int64_t>(), torch::isnan(hiddenRef).sum().item<int64_t>());
            QCOMPARE(torch::isnan(z).sum().item<int64_t>(), torch::isnan(zRef).sum().item<int64_t>());
            const auto finite = torch::isfinite(zRef).all(1);
            QVERIFY2(finite.sum().item<int64_t>() >= sh.rows - 1, qPrintable(label));
            QVERIFY2(relativeError(hidden.index({ finite }), hiddenRef.index({ finite })) < 1e-5, qPrintable(label));
            QVERIFY2(relativeError(z.index({ finite }), zRef.index({ finite })) < 1e-5, qPrintable(label));
            const auto [done2, hidden2, z2] = run(2);
            QVERIFY(done2);
            QVERIFY2(torch::equal(hidden.nan_to_num(), hidden2.nan_to_num()), qPrintable(label));
            QVERIFY2(torch::equal(z.nan_to_num(), z2.nan_to_num()), qPrintable(label));
        }
        // No kernel for a bottleneck of 8 channels or a width not a multiple of 16: nothing written.
        for (const Shape sh : { Shape { 64, 8, 5 }, Shape { 24, 16, 5 } }) {
            const auto x = torch::randn({ sh.rows, sh.width });
            const auto w1t = torch::randn({ sh.width, sh.reduced });
            const auto b1 = torch::randn({ sh.reduced });
            const auto w2t = torch::randn({ sh.reduced, sh.width });
            auto z = torch::full({ sh.rows, sh.width }, 7.0);
            QVERIFY(!kernels::gateProducts(sh.rows, sh.width, sh.reduced, x.data_ptr<float>(), w1t.data_ptr<float>(),
                b1.data_ptr<float>(), w2t.data_ptr<float>(), nullptr, z.data_ptr<float>()));
            QVERIFY(torch::equal(z, torch::full({ sh.rows, sh.width }, 7.0)));
        }
    }

    // Dropout inside the fused kernel: about p of the elements are zero, the others are the
    // undropped value / (1 - p); the gradient is zero exactly where the output was dropped; the mask
    // follows the default generator (same seed, same mask) and not the thread count.
    void fusedDropout()
    {
        for (const bool cross : { false, true }) {
            const int64_t n = 40, c = 16, f = 32;
            const int64_t ow = cross ? 2 * f : f;
            const double p = 0.3;
            ChannelGate gate(f);
            const auto h = torch::randn({ n, c, f }).requires_grad_(true);
            const auto s = (torch::rand({ n, c, ow }) + 1).requires_grad_(true); // s + y rarely exactly 0
            const auto t = cross ? torch::full({}, 0.6) : torch::Tensor();
            const auto plain = composedGate(h, gate, s, t, false).detach();
            torch::manual_seed(11);
            const auto out = gatedLayer(h, *gate, s, t, false, p, true);
            const auto dropped = (out == 0).to(torch::kFloat32);
            const double fraction = dropped.mean().item<double>();
            // 20 480 or 40 960 Bernoulli(0.3) draws: standard deviation < 0.0033
            QVERIFY2(std::abs(fraction - p) < 0.015, qPrintable(QString::number(fraction)));
            const auto kept = 1 - dropped;
            QVERIFY(maxAbs(kept * (out - plain / (1 - p))) < 1e-5);
            const auto grads = gradients(out, torch::ones({ n, c, ow }), { h, s });
            QCOMPARE(maxAbs(grads[1] * dropped), 0.0); // no gradient through a dropped element
            QVERIFY(maxAbs(grads[1] * kept) > 0);
            torch::manual_seed(11);
            QVERIFY(torch::equal(gatedLayer(h, *gate, s, t, false, p, true), out));
            at::set_num_threads(2);
            torch::manual_seed(11);
            const auto twoThreads = gatedLayer(h, *gate, s, t, false, p, true);
            at::set_num_threads(1);
            QVERIFY(torch::equal(twoThreads, out));
            QVERIFY(!torch::equal(gatedLayer(h, *gate, s, t, false, p, true), out)); // the generator moved on
            // eval mode (training = false) drops nothing
            QVERIFY(maxAbs(gatedLayer(h, *gate, s, t, false, p, false) - plain) < 1e-5);
        }
        // The keep decision is a function of (seed, row, column) alone.
        int keptCount = 0;
        for (uint32_t col = 0; col < 1000; ++col) {
            QCOMPARE(kernels::dropoutKeeps(5, 7, col, 0.25f), kernels::dropoutKeeps(5, 7, col, 0.25f));
            keptCount += kernels::dropoutKeeps(5, 7, col, 0.25f) ? 1 : 0;
        }
        QVERIFY2(std::abs(keptCount - 750) < 60, qPrintable(QString::number(keptCount)));
    }

    // Dropout keyed by the configs' place in the whole batch (configwindow.h, docs/model.md §11):
    // element (node i, config k, column j) of a batch of C configs is kept as dropoutKeeps(seed,
    // i * C + k, j) says (the default window: today's masks, bit for bit); configs begin..end-1 run
    // alone with window {begin, C} from the same generator state draw exactly the whole batch's
    // masks there, and get its values and gradients; without the window they draw other masks.
    void fusedDropoutIsChunkInvariant()
    {
        const int64_t n = 30, c = 12, f = 16;
        const float p = 0.3f;
        ChannelGate gate(f);
        const auto h = torch::randn({ n, c, f });
        const auto s = torch::rand({ n, c, f }) + 1; // s + y rarely exactly 0
        const auto gradOut = torch::randn({ n, c, f });
        // The seed the layer draws: the first 64-bit draw after manual_seed(21).
        torch::manual_seed(21);
        const uint64_t seed = [] {
            at::Generator g = at::detail::getDefaultCPUGenerator();
            std::lock_guard<std::mutex> lock(g.mutex());
            return at::check_generator<at::CPUGeneratorImpl>(g)->random64();
        }();
        const auto expectedKept = [&](int64_t begin, int64_t configs) {
            auto kept = torch::empty({ n, configs, f }, torch::kBool);
            auto a = kept.accessor<bool, 3>();
            for (int64_t i = 0; i < n; ++i)
                for (int64_t k = 0; k < configs; ++k)
                    for (int64_t j = 0; j < f; ++j)
                        a[i][k][j] = kernels::dropoutKeeps(seed, uint64_t(i * c + begin + k), uint32_t(j), p);
            return kept;
        };
        const auto wholeInput = h.clone().requires_grad_(true);
        torch::manual_seed(21);
        const auto whole = gatedLayer(wholeInput, *gate, s, {}, false, p, true);
        QVERIFY(torch::equal(whole != 0, expectedKept(0, c)));
        const auto wholeGrad = gradients(whole, gradOut, { wholeInput })[0];
        for (const auto& [begin, end] : std::vector<std::pair<int64_t, int64_t>> { { 0, 5 }, { 5, 12 }, { 3, 4 } }) {
            const int64_t k = end - begin;
            const auto part = h.narrow(1, begin, k).contiguous().requires_grad_(true);
            const auto partS = s.narrow(1, begin, k).contiguous();
            torch::manual_seed(21);
            const auto out = gatedLayer(part, *gate, partS, {}, false, p, true, ConfigWindow { begin, c });
            QVERIFY(torch::equal(out != 0, expectedKept(begin, k)));
            QVERIFY(maxAbs(out - whole.narrow(1, begin, k)) < 1e-5);
            const auto grad = gradients(out, gradOut.narrow(1, begin, k).contiguous(), { part })[0];
            QVERIFY(maxAbs(grad - wholeGrad.narrow(1, begin, k)) < 1e-5);
            torch::manual_seed(21);
            const auto unplaced = gatedLayer(part, *gate, partS, {}, false, p, true);
            QVERIFY(!torch::equal(unplaced != 0, out != 0));
        }
        // A window the configs do not fit in is refused.
        QVERIFY_THROWS_EXCEPTION(c10::Error, gatedLayer(h, *gate, s, {}, false, p, true, ConfigWindow { 1, c }));
        QVERIFY_THROWS_EXCEPTION(c10::Error, gatedLayer(h, *gate, s, {}, false, p, true, ConfigWindow { 2, 0 }));
    }

    // The fused SAGE mean equals the index_add form (duplicate edges, nodes without messages,
    // both directions), forward and backward; edges naming a missing node are refused.
    void fusedSageMatchesIndexAdd()
    {
        const int64_t n = 7, c = 5, in = 12, out = 10;
        SageConv conv(in, out);
        randomize(*conv);
        const auto edges = torch::tensor({ 0, 2, 2, 3, 6, 6, 1, 1, 1, 4, 4, 5 }, torch::kInt64).view({ 2, 6 });
        for (const bool both : { false, true }) {
            const EdgeTensors e = prepareEdges(edges, n, both);
            const auto h = torch::randn({ n, c, in }).requires_grad_(true);
            const auto fused = conv->fusedForward(h, e);
            const auto composed = conv(h, e);
            QVERIFY(maxAbs(fused - composed) < 1e-5);
            const auto upstream = torch::randn({ n, c, out });
            const std::vector<torch::Tensor> inputs { h, conv->lin_l->weight, conv->lin_l->bias, conv->lin_r->weight };
            const auto gf = gradients(fused, upstream, inputs);
            const auto gc = gradients(composed, upstream, inputs);
            for (size_t k = 0; k < gf.size(); ++k)
                QVERIFY2(relativeError(gf[k], gc[k]) < 1e-5, qPrintable(QString::number(k)));
        }
        // Adjacency lists: node 1 receives from 0, 2, 2 in edge order; node 2 sends twice to 1.
        const EdgeTensors e = prepareEdges(edges, n, false);
        QCOMPARE(e.inBegin[1].item<int64_t>(), int64_t(0));
        QCOMPARE(e.inBegin[2].item<int64_t>(), int64_t(3));
        QCOMPARE(e.inSource.narrow(0, 0, 3).to(torch::kFloat32).sum().item<float>(), 4.0f);
        QCOMPARE(e.outBegin[3].item<int64_t>() - e.outBegin[2].item<int64_t>(), int64_t(2));
        QCOMPARE(e.inverseDegree[1].item<float>(), 1.0f / 3);
        QCOMPARE(e.inverseDegree[0].item<float>(), 1.0f); // no messages
        const auto bad = torch::tensor({ 0, 9, 1, 1 }, torch::kInt64).view({ 2, 2 });
        QVERIFY_THROWS_EXCEPTION(c10::Error, prepareEdges(bad, n, false));
    }

    // The bag sum of the config projection equals ATen's embedding_bag (values and the table's
    // gradient), with repeated rows; out-of-range indices are refused.
    void bagSumMatchesEmbeddingBag()
    {
        const auto index = torch::randint(0, 144, { 50, 18 }, torch::kInt64);
        const auto table = torch::randn({ 144, 33 }).requires_grad_(true);
        const auto ours = bagSum(index, table);
        const auto theirs = torch::nn::functional::embedding_bag(
            index, table, torch::nn::functional::EmbeddingBagFuncOptions().mode(torch::kSum));
        QVERIFY(maxAbs(ours - theirs) < 1e-5);
        const auto upstream = torch::randn({ 50, 33 });
        QVERIFY(
            relativeError(gradients(ours, upstream, { table })[0], gradients(theirs, upstream, { table })[0]) < 1e-5);
        QVERIFY_THROWS_EXCEPTION(c10::Error, bagSum(torch::full({ 2, 3 }, 144, torch::kInt64), table));
        QVERIFY_THROWS_EXCEPTION(c10::Error, bagSum(torch::full({ 2, 3 }, -1, torch::kInt64), table));
    }

    // The whole model with and without the fused kernels: same scores, same gradient of every
    // parameter (dropout off so both compute the same function), for the code's and the paper's
    // variants, the tile model included.
    void fusedModelMatchesComposed()
    {
        const LayoutGraph g = smallSyntheticGraph(12, 8);
        const LayoutBatch b = makeLayoutBatch(g, fitNormalizer(g.nodeFeat), allRows(12), 121, "s");
        for (int variant = 0; variant < 4; ++variant) {
            ModelOptions o = options(variant != 1);
            o.dropout = 0.0;
            o.residualAfterActivation = variant == 2;
            o.bidirectionalEdges = variant == 3;
            TGraphModel m(o);
            randomize(*m);
            m->train();
            auto run = [&](bool fused) {
                FusedSwitch use(fused);
                m->zero_grad();
                const auto out = m->forward(b);
                (out * torch::linspace(-1, 1, out.size(0))).sum().backward();
                std::map<std::string, torch::Tensor> grads;
                for (const auto& p : m->named_parameters())
                    grads[p.key()] = p.value().grad().clone();
                return std::make_pair(out.detach(), grads);
            };
            const auto [fusedScores, fusedGrads] = run(true);
            const auto [plainScores, plainGrads] = run(false);
            const QString label = QStringLiteral("variant %1").arg(variant);
            QVERIFY2(relativeError(fusedScores, plainScores) < 1e-5, qPrintable(label));
            for (const auto& [name, grad] : plainGrads) {
                const double e = relativeError(fusedGrads.at(name), grad);
                // The f_in biases only shift what instance norm removes: their gradients are rounding
                // noise in both forms, compared in absolute terms.
                const bool cancelled = name == "linear.linear.bias" || name == "linear2.linear.bias";
                QVERIFY2(cancelled ? maxAbs(fusedGrads.at(name) - grad) < 1e-5 : e < 1e-4,
                    qPrintable(label + ": " + QString::fromStdString(name) + " off by " + QString::number(e)));
            }
        }
        const TileGraph tg = smallTileGraph(6);
        TileModel tile = randomTileModel(tg);
        const TileBatch tb = makeTileBatch(tg, fitNormalizer(tg.nodeFeat), allRows(6), 121, "t");
        torch::NoGradGuard noGrad;
        torch::Tensor fused, plain;
        {
            FusedSwitch use(true);
            fused = tile->forward(tb);
        }
        {
            FusedSwitch use(false);
            plain = tile->forward(tb);
        }
        QVERIFY(relativeError(fused, plain) < 1e-5);
    }

    // Activation recomputation (recompute.h): the layers run again in the backward pass with the
    // same dropout masks, so scores and every parameter's gradient equal those without it, for
    // the fused and the composed layers, with and without cross-attention; auto recomputes only
    // from kRecomputeAutoBytes on, and nothing is recomputed under no-grad.
    void recomputationKeepsGradients()
    {
        const LayoutGraph g = smallSyntheticGraph(12, 8);
        const LayoutBatch b = makeLayoutBatch(g, fitNormalizer(g.nodeFeat), allRows(12), 121, "s");
        // Whether the autograd graph of `out` holds a node named `what` (a recomputed layer).
        const auto hasNode = [](const torch::Tensor& out, const char* what) {
            std::vector<torch::autograd::Node*> todo { out.grad_fn().get() };
            std::set<torch::autograd::Node*> seen;
            while (!todo.empty()) {
                torch::autograd::Node* node = todo.back();
                todo.pop_back();
                if (!node || !seen.insert(node).second)
                    continue;
                if (node->name().find(what) != std::string::npos)
                    return true;
                for (const auto& edge : node->next_edges())
                    todo.push_back(edge.function.get());
            }
            return false;
        };
        const auto hasRecomputedLayer = [&](const torch::Tensor& out) { return hasNode(out, "RecomputedLayerFunction"); };
        for (int variant = 0; variant < 4; ++variant) {
            const bool fused = variant < 2;
            const bool cross = variant % 2 == 0;
            FusedSwitch use(fused);
            ModelOptions o = options(cross);
            o.dropout = 0.2; // the masks must be drawn again identically
            TGraphModel m(o);
            randomize(*m);
            m->train();
            auto run = [&](RecomputeMode mode) {
                m->encoder.setRecompute(mode);
                m->zero_grad();
                torch::manual_seed(99);
                const auto out = m->forward(b);
                // f_in as one recomputed segment, and each block; on the fused path both are
                // differentiated by hand (recomputedinput.h, recomputedblock.h)
                const bool recomputed = fused
                    ? hasNode(out, "RecomputedInputFunction") && hasNode(out, "RecomputedBlockFunction")
                    : hasRecomputedLayer(out);
                (out * torch::linspace(-1, 1, out.size(0))).sum().backward();
                std::map<std::string, torch::Tensor> grads;
                for (const auto& p : m->named_parameters())
                    grads[p.key()] = p.value().grad().clone();
                return std::make_tuple(out.detach(), grads, recomputed);
            };
            const auto [plainScores, plainGrads, plainRecomputed] = run(RecomputeMode::Off);
            const auto [scores, grads, recomputed] = run(RecomputeMode::On);
            const auto [autoScores, autoGrads, autoRecomputed] = run(RecomputeMode::Auto);
            const QString label = QStringLiteral("%1, cross-attn %2").arg(fused ? "fused" : "composed", cross ? "on" : "off");
            QVERIFY2(recomputed && !plainRecomputed, qPrintable(label));
            QVERIFY2(!autoRecomputed, qPrintable(label)); // a small graph at 12 configs: far below the threshold
            QVERIFY2(maxAbs(scores - plainScores) <= 1e-6 * std::max(1.0, maxAbs(plainScores)), qPrintable(label));
            QVERIFY2(torch::equal(autoScores, plainScores), qPrintable(label));
            // Float rounding apart: the fused blocks sum their instance norms' statistics in double
            // and config chunk by config chunk (recomputedblock.h), the plain path in ATen's order.
            double largest = 0;
            for (const auto& entry : plainGrads)
                largest = std::max(largest, maxAbs(entry.second));
            for (const auto& [name, grad] : plainGrads) {
                const double e = gradientError(grads.at(name), grad, largest);
                QVERIFY2(e < 1e-5, qPrintable(label + ": " + QString::fromStdString(name) + " off by " + QString::number(e)));
            }
        }
        // No recomputation without gradients (validation, inference).
        ModelOptions o = options(true);
        TGraphModel m(o);
        m->encoder.setRecompute(RecomputeMode::On);
        torch::NoGradGuard noGrad;
        QVERIFY(!hasRecomputedLayer(m->forward(b)));
        // Auto's threshold and the names the CLI takes.
        QVERIFY(!recomputes(RecomputeMode::Auto, 4095, 32, 256));
        QVERIFY(recomputes(RecomputeMode::Auto, 4096, 32, 256));
        QVERIFY(recomputes(RecomputeMode::On, 1, 1, 1) && !recomputes(RecomputeMode::Off, 1 << 20, 1 << 10, 256));
        for (const RecomputeMode mode : { RecomputeMode::Auto, RecomputeMode::On, RecomputeMode::Off }) {
            RecomputeMode parsed = RecomputeMode::Auto;
            QVERIFY(parseRecomputeMode(recomputeModeName(mode), &parsed) && parsed == mode);
        }
        RecomputeMode parsed = RecomputeMode::Auto;
        QVERIFY(!parseRecomputeMode("yes", &parsed));
    }

    // A graph block recomputed in config chunks (recomputedblock.h), chunks of 1, 2 (uneven) and
    // all configs: the block's own output and every gradient (input, SAGE, gate, temperature),
    // with dropout in a config window, cross-attention on and off, both residual orders, and the
    // dropout generator left where the block leaves it; a one-node graph gives the block's zeros.
    void recomputedBlockMatchesTheBlock()
    {
        FusedSwitch use(true);
        const int64_t c = 5, hidden = 32;
        for (const int64_t n : { int64_t(40), int64_t(1) }) {
            std::vector<int64_t> consumers, producers;
            for (int64_t i = 1; i < n; ++i) {
                consumers.push_back(i);
                producers.push_back((i * 7) % n); // self-loops, duplicate edges, nodes without messages
                if (i % 3 == 0) {
                    consumers.push_back(i);
                    producers.push_back(i / 2);
                }
            }
            const EdgeTensors e = prepareEdges(n > 1 ? torch::stack({ torch::tensor(consumers), torch::tensor(producers) })
                                                     : torch::zeros({ 2, 0 }, torch::kInt64),
                n, false);
            for (const bool cross : { true, false })
                for (const bool after : { false, true }) {
                    GraphBlock block(hidden, cross ? hidden / 2 : hidden, cross, 0.3, after);
                    randomize(*block);
                    block->train();
                    const auto h = (torch::randn({ n, c, hidden }) * 2 + 0.5).requires_grad_(true);
                    const auto upstream = torch::randn({ n, c, hidden });
                    const ConfigWindow window { 3, 11 };
                    std::vector<torch::Tensor> inputs { h };
                    for (const auto& p : block->parameters())
                        inputs.push_back(p);
                    torch::manual_seed(7);
                    const auto ref = block->forward(h, e, nullptr, window);
                    const auto refNext = torch::rand({ 4 });
                    const auto refGrads = gradients(ref, upstream, inputs);
                    const QString label = QStringLiteral("n %1, cross %2, %3").arg(n).arg(cross).arg(after ? "paper" : "code");
                    if (n == 1)
                        QVERIFY2(maxAbs(ref) > 0, qPrintable(label)); // the residual, through GELU and dropout
                    for (const int64_t chunk : { int64_t(1), int64_t(2), c, -c }) { // -c: all, kept intermediates
                        torch::manual_seed(7);
                        const auto out
                            = recomputedBlock(block, h, e, true, window, chunk < 0, std::abs(chunk) * n * hidden * 4);
                        QVERIFY2(torch::equal(torch::rand({ 4 }), refNext), qPrintable(label));
                        QVERIFY2(torch::equal(out != 0, ref != 0), qPrintable(label)); // the same dropout masks
                        QVERIFY2(maxAbs(out - ref) <= 1e-5 * std::max(1.0, maxAbs(ref)), qPrintable(label));
                        if (chunk < 0) { // a retained graph's second backward pass rebuilds what the first used up
                            const auto loss = (out * upstream).sum();
                            for (int pass = 0; pass < 2; ++pass) {
                                const QString bad = gradientsDisagree(torch::autograd::grad({ loss }, inputs, {}, true), refGrads);
                                QVERIFY2(bad.isEmpty(), qPrintable(label + QStringLiteral(", pass %1: ").arg(pass) + bad));
                            }
                        }
                        const QString bad = gradientsDisagree(gradients(out, upstream, inputs), refGrads);
                        QVERIFY2(bad.isEmpty(), qPrintable(label + QStringLiteral(", chunk %1: ").arg(chunk) + bad));
                    }
                }
        }
        QCOMPARE(blockChunkConfigs(11657, 256, kBlockChunkBytes), int64_t(2));
        QCOMPARE(blockChunkConfigs(100000, 256, kBlockChunkBytes), int64_t(1));
        QCOMPARE(blockChunkConfigs(10, 256, kBlockChunkBytes), int64_t(3276));
    }

    // f_in[0] and f_in[1] recomputed and differentiated by hand (recomputedinput.h): the layers'
    // own output and every gradient (input, Linear, gates, temperatures), cross-attention on and
    // off, twice through a retained graph and once without the input's gradient; a one-node graph
    // gives the layers' values (instance norms of exact zeros).
    void recomputedInputLayersMatchTheLayers()
    {
        FusedSwitch use(true);
        const int64_t c = 6, hidden = 32;
        for (const int64_t n : { int64_t(50), int64_t(1) })
            for (const bool cross : { true, false }) {
                const int64_t width = cross ? hidden / 2 : hidden;
                LinearActNorm first(7, width, cross);
                LinearActNorm second(hidden, width, cross);
                randomize(*first);
                randomize(*second);
                const auto projected = (torch::randn({ n, c, width }) * 3 - 1).requires_grad_(true);
                const auto upstream = torch::randn({ n, c, hidden });
                std::vector<torch::Tensor> inputs { projected };
                for (const auto& p : first->parameters())
                    if (p.data_ptr() != first->linear->weight.data_ptr() && p.data_ptr() != first->linear->bias.data_ptr())
                        inputs.push_back(p);
                for (const auto& p : second->parameters())
                    inputs.push_back(p);
                const auto ref = second->forward(first->afterLinear(projected));
                const auto refGrads = gradients(ref, upstream, inputs);
                const auto out = recomputedInputLayers(first, second, projected);
                const QString label = QStringLiteral("n %1, cross %2").arg(n).arg(cross);
                QVERIFY2(maxAbs(out - ref) <= 1e-5 * std::max(1.0, maxAbs(ref)), qPrintable(label));
                const auto loss = (out * upstream).sum();
                for (int pass = 0; pass < 2; ++pass) { // a retained graph's second pass finds what it keeps intact
                    const QString bad = gradientsDisagree(torch::autograd::grad({ loss }, inputs, {}, true), refGrads);
                    QVERIFY2(bad.isEmpty(), qPrintable(label + QStringLiteral(", pass %1: ").arg(pass) + bad));
                }
                // Without a gradient for the input (f_in's input does not always need one).
                const auto fixed = recomputedInputLayers(first, second, projected.detach());
                const std::vector<torch::Tensor> parameters(inputs.begin() + 1, inputs.end());
                const auto parameterGrads = torch::autograd::grad({ (fixed * upstream).sum() }, parameters);
                const QString bad = gradientsDisagree(
                    parameterGrads, std::vector<torch::Tensor>(refGrads.begin() + 1, refGrads.end()));
                QVERIFY2(bad.isEmpty(), qPrintable(label + QStringLiteral(", input without gradient: ") + bad));
            }
    }

    // Without cross-attention and without gradients, a batch whose activations exceed 64 MiB is
    // scored in sub-batches (tgraphmodel.cpp): its scores are those of each config scored alone.
    void subBatchedScoresWithoutCrossAttention()
    {
        const LayoutGraph g = prunedSyntheticGraph(3000, 200, 8, 5);
        const int64_t configs = 2 * (int64_t(64) << 20) / (g.nodeCount() * 256 * 4) + 3; // about 2.5 sub-batches
        std::vector<int64_t> rows;
        for (int64_t k = 0; k < configs; ++k)
            rows.push_back(k % g.configCount());
        const Normalizer normalizer = fitNormalizer(g.nodeFeat);
        const LayoutBatch b = makeLayoutBatch(g, normalizer, rows, 121, "s");
        TGraphModel m(options(false));
        randomize(*m);
        m->eval();
        torch::NoGradGuard noGrad;
        const auto scores = m->forward(b);
        QCOMPARE(scores.size(0), configs);
        for (int64_t k = 0; k < g.configCount(); ++k) {
            const auto alone = m->forward(makeLayoutBatch(g, normalizer, { k }, 121, "s"));
            for (int64_t j = k; j < configs; j += g.configCount())
                QVERIFY2(std::abs(scores[j].item<double>() - alone[0].item<double>())
                        <= 1e-5 * std::max(1.0, std::abs(alone[0].item<double>())),
                    qPrintable(QStringLiteral("config %1").arg(j)));
        }
    }

    // With cross-attention a batch is scored node slice by node slice in one activation when it is
    // large (slicedscoring.h): the whole pass's scores whatever the slice size, with edges both ways
    // (rows of earlier slices kept aside for later readers), the paper's residual, three blocks and
    // none; and forward() takes that path by itself for a batch over 64 MiB of activation.
    void nodeSlicedScoresMatchTheWholePass()
    {
        const LayoutGraph g = prunedSyntheticGraph(400, 40, 12, 9);
        const Normalizer normalizer = fitNormalizer(g.nodeFeat);
        const LayoutBatch b = makeLayoutBatch(g, normalizer, allRows(12), 121, "s");
        torch::NoGradGuard noGrad;
        auto whole = [](TGraphModel& m, const LayoutBatch& batch) {
            return m->classifier(m->nodeEmbeddings(batch).mean(0)).squeeze(1);
        };
        struct Case
        {
            bool bidirectional;
            bool paperResidual;
            int64_t blocks;
        };
        for (const Case& k : { Case { false, false, 2 }, Case { true, false, 2 }, Case { true, true, 3 },
                 Case { false, false, 0 } }) {
            ModelOptions o = options(true);
            o.bidirectionalEdges = k.bidirectional;
            o.residualAfterActivation = k.paperResidual;
            o.blocks = k.blocks;
            TGraphModel m(o);
            randomize(*m);
            m->eval();
            const auto ref = whole(m, b);
            for (const int64_t slice : { int64_t(1), int64_t(7), g.nodeCount(), int64_t(0) }) {
                const auto sliced = m->scoreBySlices(b, slice);
                const QString label = QStringLiteral("both ways %1, paper %2, blocks %3, slice %4")
                                          .arg(k.bidirectional)
                                          .arg(k.paperResidual)
                                          .arg(k.blocks)
                                          .arg(slice);
                QVERIFY2(sliced.sizes() == ref.sizes(), qPrintable(label));
                QVERIFY2(maxAbs(sliced - ref) <= 1e-4 * std::max(1.0, maxAbs(ref)), qPrintable(label));
            }
        }
        // No edges: every node without messages (the mean term is 0).
        {
            TGraphModel m(options(true));
            randomize(*m);
            m->eval();
            LayoutBatch alone = b;
            alone.graph.edges = torch::empty({ 2, 0 }, torch::kInt64);
            const auto ref = whole(m, alone);
            QVERIFY(maxAbs(m->scoreBySlices(alone, 5) - ref) <= 1e-4 * std::max(1.0, maxAbs(ref)));
        }
        // forward() on a batch whose (N, C, H) activation exceeds 64 MiB: the sliced path, the same
        // scores; its configs compete as in the whole pass (a config's score changes with the batch).
        TGraphModel m(options(true));
        randomize(*m);
        m->eval();
        const int64_t configs = (int64_t(64) << 20) / (g.nodeCount() * 256 * 4) + 2;
        std::vector<int64_t> rows;
        for (int64_t k = 0; k < configs; ++k)
            rows.push_back(k % g.configCount());
        const LayoutBatch large = makeLayoutBatch(g, normalizer, rows, 121, "s");
        const auto ref = whole(m, large);
        const auto scores = m->forward(large);
        QVERIFY(maxAbs(scores - ref) <= 1e-4 * std::max(1.0, maxAbs(ref)));
        QVERIFY(maxAbs(scores.narrow(0, 0, 12) - m->forward(b)) > 1e-6);
    }

    // With libopenblas0-openmp installed the build links it ahead of the system's libblas.so.3, so
    // that the products run on LibTorch's OpenMP threads rather than a second pool (docs/build.md §4).
    void blasIsTheOneTheBuildChose()
    {
        // It computes: a product against the same sums taken in double.
        const auto a = torch::randn({ 300, 200 });
        const auto b = torch::randn({ 200, 100 });
        const auto ref = torch::mm(a.to(torch::kFloat64), b.to(torch::kFloat64));
        QVERIFY(maxAbs(torch::mm(a, b).to(torch::kFloat64) - ref) < 1e-3);
#ifdef TGRAPH_BLAS_OPENMP
        QCOMPARE(QString::fromStdString(blasName()), QStringLiteral("OpenBLAS (OpenMP)"));
#else
        QSKIP("the build found no libopenblas0-openmp");
#endif
    }

    // The fused kernels split work by nodes; the result must not depend on how (bitwise). Sizes
    // large enough for the work to be split between two threads (64 k floats per task). The BLAS
    // products around them also split over LibTorch's threads (OpenBLAS's OpenMP build), and a
    // product's rounding depends on its split: the inputs and weights that reach a product are
    // multiples of 1/4 and 1/8 small enough for every sum to be exact, so only our kernels can vary.
    void fusedKernelsIndependentOfThreads()
    {
        const int64_t n = 96, c = 32, f = 64;
        auto dyadic = [](const torch::Tensor& x, double step) { return (x.clamp(-2, 2) / step).round() * step; };
        auto dyadicParameters = [&](torch::nn::Module& m) {
            torch::NoGradGuard noGrad;
            for (auto& p : m.parameters())
                p.copy_(dyadic(p, 0.125));
        };
        const auto h = dyadic(torch::randn({ n, c, f }), 0.25).requires_grad_(true);
        ChannelGate gate(f);
        dyadicParameters(*gate);
        const auto s = torch::randn({ n, c, 2 * f }).requires_grad_(true);
        const auto t = torch::full({}, 0.45).requires_grad_(true);
        std::vector<int64_t> consumers, producers;
        for (int64_t i = 0; i + 1 < n; ++i) {
            consumers.push_back(i + 1);
            producers.push_back(i / 2);
        }
        const EdgeTensors e
            = prepareEdges(torch::stack({ torch::tensor(consumers), torch::tensor(producers) }), n, false);
        SageConv conv(f, f);
        randomize(*conv);
        dyadicParameters(*conv);
        const auto hs = dyadic(torch::randn({ n, c, f }), 0.25).requires_grad_(true);
        const auto upstream = torch::randn({ n, c, 2 * f });
        // The column kernels of the recomputed layers (more rows than one chunk of 256).
        const int64_t rows = 600;
        const auto cx = torch::randn({ rows, c * f }) * 2 + 1;
        const auto cg = torch::randn({ rows, c * f });
        auto run = [&](int threads) {
            at::set_num_threads(threads);
            // The kernels really split their work (they ran on one thread when their TU lacked -fopenmp).
            [&] { QCOMPARE(kernels::parallelThreads(8), threads); }();
            torch::manual_seed(3);
            const auto out = gatedLayer(h, *gate, s, t, false, 0.2, true);
            // the gradients the kernel computes itself (the others pass through BLAS products)
            auto grads = gradients(out, upstream, { s, t, gate->linear2->bias });
            const auto mean = conv->fusedForward(hs, e);
            grads.push_back(mean.detach());
            grads.push_back(gradients(mean, upstream.narrow(2, 0, f), { conv->lin_l->bias })[0]);
            grads.insert(grads.begin(), out.detach());
            auto columnMean = torch::empty({ c * f });
            auto invStd = torch::empty({ c * f });
            kernels::columnMoments(rows, c * f, c * f, cx.data_ptr<float>(), 1e-5f, columnMean.data_ptr<float>(),
                invStd.data_ptr<float>());
            auto back = torch::ones({ rows, c * f });
            kernels::normalizeColumnsBackward(rows, c * f, cg.data_ptr<float>(), cx.data_ptr<float>(),
                invStd.data_ptr<float>(), back.data_ptr<float>(), c * f, true);
            grads.insert(grads.end(), { columnMean, invStd, back });
            at::set_num_threads(1);
            return grads;
        };
        const auto one = run(1);
        const auto two = run(2);
        for (size_t k = 0; k < one.size(); ++k)
            QVERIFY2(torch::equal(one[k], two[k]), qPrintable(QString::number(k)));
        qInfo("fused kernels run with %s", fusedKernelTarget());
    }

    void attentionMaps()
    {
        const LayoutGraph g = smallSyntheticGraph(5, 5);
        const LayoutBatch b = makeLayoutBatch(g, fitNormalizer(g.nodeFeat), allRows(5), 121, "s");
        for (const bool cross : { true, false }) {
            TGraphModel m(options(cross));
            m->eval();
            AttentionMaps maps;
            torch::NoGradGuard noGrad;
            const auto withMaps = m->forward(b, &maps);
            QVERIFY(torch::equal(withMaps, m->forward(b)));
            QCOMPARE(maps.layers.size(), size_t(4));
            const char* names[] = { "linear", "linear2", "convs.0", "convs.1" };
            for (size_t l = 0; l < 4; ++l) {
                const LayerAttention& a = maps.layers[l];
                QCOMPARE(a.layer, std::string(names[l]));
                QCOMPARE(a.configs, int64_t(5));
                QCOMPARE(a.channels, int64_t(cross ? 128 : 256));
                QCOMPARE(a.gate.size(), size_t(5 * a.channels));
                for (float v : a.gate)
                    QVERIFY(v > 0 && v < 1);
                if (!cross) {
                    QVERIFY(a.cross.empty());
                    continue;
                }
                // Softmax over configs, averaged over nodes: every channel's column sums to 1.
                QCOMPARE(a.cross.size(), a.gate.size());
                for (int64_t f = 0; f < a.channels; ++f) {
                    double sum = 0;
                    for (int64_t c = 0; c < a.configs; ++c)
                        sum += a.crossAt(c, f);
                    QVERIFY(std::abs(sum - 1.0) < 1e-5);
                }
            }
        }
    }

    void weightsRoundTrip()
    {
        const LayoutGraph g = smallSyntheticGraph(6, 6);
        const Normalizer norm = fitNormalizer(g.nodeFeat);
        const LayoutBatch b = makeLayoutBatch(g, norm, allRows(6), 121, "s");
        for (const bool cross : { true, false }) {
            TGraphModel m(options(cross));
            randomize(*m);
            m->eval();
            const std::string file = path(cross ? "on.npz" : "off.npz");
            saveWeightsNpz(m, norm, file);
            {
                // Exactly the state-dict names plus normalizer.* and meta.use_cross_attn.
                NpzReader npz(file);
                std::set<std::string> keys;
                for (const std::string& k : npz.keys())
                    keys.insert(k);
                std::set<std::string> expected { "normalizer.mean", "normalizer.std", "meta.use_cross_attn" };
                for (const auto& [name, shape] : expectedLayoutShapes(cross, 121)) {
                    expected.insert(name);
                    QCOMPARE(npz.header(name).shape, shape);
                    QCOMPARE(npz.header(name).dtype.scalar, ScalarType::Float32);
                }
                QCOMPARE(keys, expected);
                QCOMPARE(npz.header("meta.use_cross_attn").dtype.scalar, ScalarType::Int64);
                QVERIFY(npz.header("meta.use_cross_attn").shape.empty());
                QCOMPARE(npz.read<int64_t>("meta.use_cross_attn")[0], int64_t(cross));
                QCOMPARE(npz.header("normalizer.std").shape, (std::vector<int64_t> { 134 }));
            }
            LayoutWeights w = loadWeightsNpz(file);
            QCOMPARE(w.model->options().useCrossAttn, cross);
            QCOMPARE(w.model->options().opTableSize, int64_t(121));
            QVERIFY(!w.model->is_training());
            QVERIFY(torch::equal(scores(w.model, b), scores(m, b)));
            QVERIFY(w.normalizer.mean() == norm.mean());
            QVERIFY(w.normalizer.stddev() == norm.stddev());
        }
        // Paper switches travel as meta keys.
        ModelOptions paper = options(true);
        paper.residualAfterActivation = true;
        paper.bidirectionalEdges = true;
        TGraphModel p(paper);
        p->eval();
        saveWeightsNpz(p, norm, path("paper.npz"));
        LayoutWeights w = loadWeightsNpz(path("paper.npz"));
        QVERIFY(w.model->options().residualAfterActivation && w.model->options().bidirectionalEdges);
        QVERIFY(torch::equal(scores(w.model, b), scores(p, b)));

        // Tile model with its config standardization.
        const TileGraph tg = smallTileGraph(5);
        const Normalizer tileNorm = fitNormalizer(tg.nodeFeat);
        TileModel t = randomTileModel(tg);
        saveTileWeightsNpz(t, tileNorm, path("tile.npz"));
        TileWeights tw = loadTileWeightsNpz(path("tile.npz"));
        const TileBatch tb = makeTileBatch(tg, tileNorm, allRows(5), 121, "t");
        torch::NoGradGuard noGrad;
        QVERIFY(torch::equal(tw.model->forward(tb), t->forward(tb)));
        QVERIFY(torch::equal(tw.model->configMean, t->configMean));
        QVERIFY(torch::equal(tw.model->configStd, t->configStd));
        QVERIFY(tw.normalizer.mean() == tileNorm.mean());
    }

    // A model with simulator inputs (docs/model.md §4.9): `sim_input.weight` (W, 5) and
    // meta.sim_inputs in its file, read back as such; its scores follow the inputs, and the
    // sub-batched and node-sliced passes carry them as the whole pass does.
    void simulatorInputsModel()
    {
        LayoutGraph g = smallSyntheticGraph(6, 6);
        const Normalizer norm = fitNormalizer(g.nodeFeat);
        g.simInputs = NdArray<float>({ g.configCount(), g.configurableCount(), kSimInputColumns });
        for (int64_t i = 0; i < g.simInputs.size(); ++i)
            g.simInputs[i] = float(std::sin(0.37 * double(i)));
        for (const bool cross : { true, false }) {
            ModelOptions o = options(cross);
            o.simInputs = true;
            TGraphModel m(o);
            randomize(*m);
            m->eval();
            QCOMPARE(m->sim_input->weight.sizes(), torch::IntArrayRef({ o.layerWidth(), kSimInputColumns }));
            const LayoutBatch b = makeLayoutBatch(g, norm, allRows(6), 121, "s");
            QVERIFY(b.simInputs.defined());
            const std::string file = path(cross ? "sim-on.npz" : "sim-off.npz");
            saveWeightsNpz(m, norm, file);
            QCOMPARE(NpzReader(file).read<int64_t>("meta.sim_inputs")[0], kSimInputColumns);
            LayoutWeights w = loadWeightsNpz(file);
            QVERIFY(w.model->options().simInputs);
            QVERIFY(torch::equal(scores(w.model, b), scores(m, b)));
            QVERIFY(describe(w.model->options()).find("simulator inputs") != std::string::npos);
            // Other inputs, other scores; the same inputs, the same scores.
            LayoutBatch other = b;
            other.simInputs = b.simInputs * -2.0;
            QVERIFY(!torch::allclose(scores(m, other), scores(m, b)));
            // A batch without them is a caller bug the model names.
            LayoutBatch without = b;
            without.simInputs = torch::Tensor();
            QVERIFY_THROWS_EXCEPTION(c10::Error, scores(m, without));
            // Node slices (cross-attention) and sub-batches (without) read them too.
            torch::NoGradGuard noGrad;
            if (cross)
                QVERIFY(torch::allclose(m->scoreBySlices(b, 2), m->forward(b), 1e-5, 1e-6));
        }
        // A model without them ignores a graph's inputs; its file has no meta.sim_inputs.
        TGraphModel plain(options(true));
        saveWeightsNpz(plain, norm, path("plain.npz"));
        QVERIFY(!NpzReader(path("plain.npz")).contains("meta.sim_inputs"));
        QVERIFY(!loadWeightsNpz(path("plain.npz")).model->options().simInputs);
        // Refusals: another column count; the flag on a tile model; the weight without the flag.
        ModelOptions o = options(true);
        o.simInputs = true;
        TGraphModel m(o);
        const std::string good = path("sim-good.npz");
        saveWeightsNpz(m, norm, good);
        const std::string bad = path("sim-bad.npz");
        rewriteNpz(good, bad, {}, { { "meta.sim_inputs", NpyArray::from(NdArray<int64_t>(std::vector<int64_t> {}, 3)) } });
        testutil::expectInputError([&] { loadWeightsNpz(bad); }, { "sim-bad.npz", "meta.sim_inputs", "3 simulator input columns" });
        rewriteNpz(good, bad, { "meta.sim_inputs" }, {});
        testutil::expectInputError([&] { loadWeightsNpz(bad); }, { "sim-bad.npz", "sim_input.weight", "unexpected key" });
        TileModel t(options(true));
        saveTileWeightsNpz(t, norm, path("tile-sim.npz"));
        rewriteNpz(path("tile-sim.npz"), bad, {},
            { { "meta.sim_inputs", NpyArray::from(NdArray<int64_t>(std::vector<int64_t> {}, kSimInputColumns)) } });
        testutil::expectInputError([&] { loadTileWeightsNpz(bad); }, { "meta.sim_inputs", "layout models" });
    }

    void weightsRefusals()
    {
        const LayoutGraph hand = handGraph();
        const Normalizer norm = fitNormalizer(hand.nodeFeat);
        TGraphModel m(options(true));
        const std::string good = path("good.npz");
        saveWeightsNpz(m, norm, good);
        const std::string bad = path("bad.npz");

        rewriteNpz(good, bad, { "convs.1.conv.lin_r.weight" }, {});
        testutil::expectInputError(
            [&] { loadWeightsNpz(bad); }, { "bad.npz", "convs.1.conv.lin_r.weight", "missing", "(128, 256)" });

        rewriteNpz(good, bad, {}, { { "convs.0.conv.lin_x.weight", NpyArray::from(NdArray<float>({ 2, 2 }, 0.0f)) } });
        testutil::expectInputError(
            [&] { loadWeightsNpz(bad); }, { "bad.npz", "convs.0.conv.lin_x.weight", "unexpected key" });

        rewriteNpz(
            good, bad, {}, { { "linear2.attn.linear1.weight", NpyArray::from(NdArray<float>({ 8, 128 }, 0.0f)) } });
        testutil::expectInputError(
            [&] { loadWeightsNpz(bad); }, { "linear2.attn.linear1.weight", "shape (8, 128)", "model's (16, 128)" });

        rewriteNpz(good, bad, {}, { { "linear.cross_attn.temperature", NpyArray::from(NdArray<float>({ 1 }, 0.5f)) } });
        testutil::expectInputError([&] { loadWeightsNpz(bad); }, { "linear.cross_attn.temperature", "(1,)", "()" });

        rewriteNpz(good, bad, { "meta.use_cross_attn" }, {});
        testutil::expectInputError([&] { loadWeightsNpz(bad); }, { "meta.use_cross_attn", "missing" });

        // Flipping the flag makes every layer the wrong width.
        rewriteNpz(
            good, bad, {}, { { "meta.use_cross_attn", NpyArray::from(NdArray<int64_t>(std::vector<int64_t> {}, 0)) } });
        testutil::expectInputError([&] { loadWeightsNpz(bad); }, { "bad.npz", "(256, 246)" });

        NdArray<float> nanBias({ 1 }, std::nanf(""));
        rewriteNpz(good, bad, {}, { { "classifier.bias", NpyArray::from(nanBias) } });
        testutil::expectInputError([&] { loadWeightsNpz(bad); }, { "classifier.bias", "not finite" });

        rewriteNpz(good, bad, {}, { { "normalizer.std", NpyArray::from(NdArray<double>({ 134 }, 0.0)) } });
        testutil::expectInputError([&] { loadWeightsNpz(bad); }, { "normalizer.std[0]", "> 0" });

        // The other kind of file is named as such.
        testutil::expectInputError([&] { loadTileWeightsNpz(good); }, { "layout-model weights" });
        TileModel t(options(true));
        saveTileWeightsNpz(t, norm, path("tile-only.npz"));
        testutil::expectInputError([&] { loadWeightsNpz(path("tile-only.npz")); }, { "tile-model weights" });

        // Op table size comes from the file: 120 rows (authors' weights) refuse opcode 120 when batching.
        TGraphModel released(options(true, 120));
        saveWeightsNpz(released, norm, path("released.npz"));
        LayoutWeights w = loadWeightsNpz(path("released.npz"));
        QCOMPARE(w.model->options().opTableSize, int64_t(120));
        testutil::expectInputError(
            [&] { makeLayoutBatch(hand, w.normalizer, { 0 }, w.model->options().opTableSize, "hand.npz"); },
            { "hand.npz", "node_opcode[4]", "opcode 120" });
        LayoutGraph noTan = hand;
        noTan.nodeOpcode[4] = 100;
        const LayoutBatch ok = makeLayoutBatch(noTan, w.normalizer, { 0, 1 }, 120, "hand.npz");
        QCOMPARE(scores(w.model, ok).size(0), int64_t(2));

        testutil::expectInputError([&] { loadWeightsNpz(path("does-not-exist.npz")); }, { "does-not-exist.npz" });

        // Declared sizes: a block key far beyond the file's arrays, or a width whose model the file
        // cannot hold, is refused before the model is built (building it would take gigabytes).
        rewriteNpz(good, bad, {}, { { "convs.4000.conv.lin_l.weight", NpyArray::from(NdArray<float>({ 1 }, 0.0f)) } });
        testutil::expectInputError([&] { loadWeightsNpz(bad); }, { "bad.npz", "4001 blocks", "but the file holds only" });
        rewriteNpz(good, bad, {}, { { "classifier.weight", NpyArray::from(NdArray<float>({ 1, 1 << 20 }, 0.0f)) } });
        testutil::expectInputError(
            [&] { loadWeightsNpz(bad); }, { "bad.npz", "classifier.weight", "width 1048576", "but the file holds only" });
    }

    void parityWithPyTorchReference()
    {
        QString why;
        if (!testutil::havePythonModules({ "numpy", "torch" }, &why))
            QSKIP(qPrintable("parity test skipped: " + testutil::python()
                + " cannot import numpy and torch (install python3-numpy python3-torch)"));
        // The reference runs float32: so do our products here, whatever the process was set to
        // (docs/model.md §10.12; the bf16 path is compared in tst_precision).
        const ProductPrecisionScope fp32(false);
        const LayoutGraph g = smallSyntheticGraph(16, 9);
        QVERIFY2(g.nodeCount() >= 20 && g.nodeCount() <= 80, qPrintable(QString::number(g.nodeCount())));
        const Normalizer norm = fitNormalizer(g.nodeFeat);
        const std::string graphFile = path("parity-graph.npz");
        saveLayoutGraph(g, graphFile);
        const LayoutBatch batch = makeLayoutBatch(g, norm, allRows(g.configCount()), 121, graphFile);

        struct Case
        {
            const char* name;
            ModelOptions options;
        };
        ModelOptions paper = options(true);
        paper.residualAfterActivation = true;
        paper.bidirectionalEdges = true;
        const std::vector<Case> cases { { "on", options(true) }, { "off", options(false) }, { "paper", paper } };
        std::vector<TGraphModel> models;
        std::vector<torch::Tensor> ours;
        std::vector<AttentionMaps> ourMaps(cases.size());
        QStringList args { testutil::toolsDir() + "/tgraph_reference.py" };
        for (size_t i = 0; i < cases.size(); ++i) {
            TGraphModel m(cases[i].options);
            randomize(*m);
            m->eval();
            saveWeightsNpz(m, norm, path((std::string(cases[i].name) + "-weights.npz").c_str()));
            torch::NoGradGuard noGrad;
            ours.push_back(m->forward(batch, &ourMaps[i]));
            models.push_back(m);
            args << QString::fromStdString(path((std::string(cases[i].name) + "-weights.npz").c_str()))
                 << QString::fromStdString(graphFile)
                 << QString::fromStdString(path((std::string(cases[i].name) + "-ref.npz").c_str()));
        }
        // Tile model on a tile graph.
        const TileGraph tg = smallTileGraph(12);
        validate(tg, "tile");
        const Normalizer tileNorm = fitNormalizer(tg.nodeFeat);
        TileModel tile = randomTileModel(tg);
        saveTileWeightsNpz(tile, tileNorm, path("tile-weights.npz"));
        saveTileGraph(tg, path("tile-graph.npz"));
        torch::Tensor tileOurs;
        {
            torch::NoGradGuard noGrad;
            tileOurs = tile->forward(makeTileBatch(tg, tileNorm, allRows(12), 121, "tile"));
        }
        args << QString::fromStdString(path("tile-weights.npz")) << QString::fromStdString(path("tile-graph.npz"))
             << QString::fromStdString(path("tile-ref.npz"));

        const auto r = testutil::run(testutil::python(), args, 300000);
        QVERIFY2(r.exitCode == 0 && !r.crashed, r.err.constData());

        for (size_t i = 0; i < cases.size(); ++i) {
            NpzReader ref(path((std::string(cases[i].name) + "-ref.npz").c_str()));
            const auto refScores = tensorOf(ref.read<float>("scores"));
            QCOMPARE(refScores.sizes().vec(), ours[i].sizes().vec());
            const double rel = relativeError(ours[i], refScores);
            const double centered = centeredRelativeError(ours[i], refScores);
            qInfo("parity %s: max relative error %.3g, centered %.3g (score spread %.3g)", cases[i].name, rel, centered,
                maxAbs(refScores - refScores.mean()));
            QVERIFY2(rel < 1e-4, qPrintable(QString::number(rel)));
            QVERIFY2(centered < 1e-4, qPrintable(QString::number(centered)));
            for (const LayerAttention& layer : ourMaps[i].layers) {
                const auto gate = tensorOf(ref.read<float>("gate." + layer.layer));
                QVERIFY(maxAbs(gate - torch::tensor(layer.gate).view({ layer.configs, layer.channels })) < 1e-5);
                if (cases[i].options.useCrossAttn) {
                    const auto cross = tensorOf(ref.read<float>("cross." + layer.layer));
                    QVERIFY(maxAbs(cross - torch::tensor(layer.cross).view({ layer.configs, layer.channels })) < 1e-5);
                } else {
                    QVERIFY(!ref.contains("cross." + layer.layer));
                }
            }
        }
        NpzReader ref(path("tile-ref.npz"));
        const auto refTile = tensorOf(ref.read<float>("scores"));
        const double rel = relativeError(tileOurs, refTile);
        const double centered = centeredRelativeError(tileOurs, refTile);
        qInfo("parity tile: max relative error %.3g, centered %.3g", rel, centered);
        QVERIFY2(rel < 1e-4, qPrintable(QString::number(rel)));
        QVERIFY2(centered < 1e-4, qPrintable(QString::number(centered)));
    }
};

QTEST_GUILESS_MAIN(TestModel)
#include "tst_model.moc"
