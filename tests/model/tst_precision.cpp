// SPDX-License-Identifier: Apache-2.0
// bf16 products against fp32 (docs/model.md §10.12): the setting and the CPU check, the products
// themselves, and that the model ranks the same: scores' rank correlation, gradients' direction,
// explanations' node rankings, a short bf16 training run against the seed spread of fp32 runs, and
// a bf16-trained weights file (float32) loaded in fp32. Runs on any CPU: without bf16 units oneDNN
// emulates the products, only slower.

#include "model/infer/explain.h"
#include "model/nn/batch.h"
#include "model/nn/fusedkernels.h"
#include "model/nn/products.h"
#include "model/nn/tgraphmodel.h"
#include "model/nn/weights.h"
#include "model/runtime/torchruntime.h"
#include "model/train/trainer.h"
#include "model/train/trainoptions.h"

#include "core/graph/graphio.h"
#include "core/graph/prune.h"
#include "core/io/npz.h"
#include "core/metrics/metrics.h"
#include "core/synth/synthcollection.h"
#include "core/train/trainingset.h"
#include "core/util/precision.h"

#include "modeltestutil.h"
#include "testutil.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <fstream>
#include <numeric>
#include <sstream>

using namespace tgraph;
using namespace tgraph::model;

namespace {

// bf16 rounding of one float, by hand (round to nearest even): the reference for kernels::toBf16.
float roundedToBf16(float v)
{
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    if ((bits & 0x7fffffffu) > 0x7f800000u)
        return v;
    const uint32_t lower = bits & 0xffffu;
    uint32_t upper = bits >> 16;
    if (lower > 0x8000u || (lower == 0x8000u && (upper & 1u)))
        ++upper;
    const uint32_t out = upper << 16;
    float r;
    std::memcpy(&r, &out, sizeof r);
    return r;
}

double relativeDifference(const torch::Tensor& a, const torch::Tensor& b)
{
    return (a.to(torch::kFloat64) - b.to(torch::kFloat64)).norm().item<double>()
        / std::max(b.to(torch::kFloat64).norm().item<double>(), 1e-30);
}

std::vector<double> doubles(const torch::Tensor& t)
{
    const auto c = t.detach().to(torch::kFloat64).contiguous();
    return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

// Hinge loss of docs/model.md §4.1 on (C,) scores against runtimes.
torch::Tensor hinge(const torch::Tensor& scores, const torch::Tensor& runtimes)
{
    const auto slower = (runtimes.unsqueeze(1) > runtimes.unsqueeze(0)).to(scores.scalar_type());
    const double c = double(scores.size(0));
    return (slower * torch::relu(1 - (scores.unsqueeze(1) - scores.unsqueeze(0)))).sum() / (c * c);
}

// The gradients of one training step's loss, by parameter name.
std::map<std::string, torch::Tensor> gradients(TGraphModel& m, const LayoutBatch& batch, const torch::Tensor& runtimes)
{
    m->zero_grad();
    hinge(m->forward(batch), runtimes).backward();
    std::map<std::string, torch::Tensor> out;
    for (const auto& p : m->named_parameters())
        if (p.value().grad().defined())
            out[p.key()] = p.value().grad().clone();
    return out;
}

SynthCollectionResult writeLayoutCollection(const std::string& dir, int graphs, int64_t configs, uint64_t seed)
{
    SynthCollectionSpec spec;
    spec.kind = GraphKind::Layout;
    spec.graphs = graphs;
    spec.configs = configs;
    spec.seed = seed;
    spec.families = { "mlp", "resnet", "transformer", "gnn" };
    spec.minInstructions = 100;
    spec.maxInstructions = 300;
    spec.validShare = 0.3;
    spec.testShare = 0;
    return writeSynthCollection(spec, dir, nullptr);
}

} // namespace

class TestPrecision : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        initTorchRuntime(1); // ctest runs two tests at once on 2 cores
        setBf16Products(false);
    }

    void settingAndCpuCheck()
    {
        for (Precision p : { Precision::Auto, Precision::Fp32, Precision::Bf16 })
            QCOMPARE(parsePrecision(precisionName(p)), std::optional<Precision>(p));
        QVERIFY(!parsePrecision("fp16"));
        QVERIFY(!parsePrecision("BF16"));
        CpuBf16Units none;
        CpuBf16Units avx512;
        avx512.avx512 = true;
        CpuBf16Units amx;
        amx.amx = true;
        QCOMPARE(resolvePrecision(Precision::Auto, none), Precision::Fp32);
        QCOMPARE(resolvePrecision(Precision::Auto, avx512), Precision::Bf16);
        QCOMPARE(resolvePrecision(Precision::Auto, amx), Precision::Bf16);
        QCOMPARE(resolvePrecision(Precision::Bf16, none), Precision::Bf16); // emulated, not refused
        QCOMPARE(resolvePrecision(Precision::Fp32, amx), Precision::Fp32);
        QCOMPARE(describe(none), std::string("no bf16 units"));
        // TGRAPH_CPU_BF16=0 hides the units: auto is then fp32, as on a CPU without them.
        const CpuBf16Units hidden = effectiveBf16Units(avx512, "0");
        QVERIFY(!hidden.any() && hidden.hidden);
        QCOMPARE(resolvePrecision(Precision::Auto, hidden), Precision::Fp32);
        QCOMPARE(resolvePrecision(Precision::Bf16, hidden), Precision::Bf16);
        QVERIFY(describe(hidden).find("TGRAPH_CPU_BF16=0") != std::string::npos);
        QVERIFY(!effectiveBf16Units(none, "0").hidden); // nothing to hide
        for (const char* other : { static_cast<const char*>(nullptr), "1", "", "no" }) {
            QVERIFY(effectiveBf16Units(amx, other).amx);
            QVERIFY(!effectiveBf16Units(amx, other).hidden);
        }

        // cpuid against the kernel's view of the same CPU (Linux lists the flags it enabled).
        std::ifstream cpuinfo("/proc/cpuinfo");
        std::string line;
        std::string flags;
        while (std::getline(cpuinfo, line))
            if (line.rfind("flags", 0) == 0) {
                flags = " " + line.substr(line.find(':') + 1) + " ";
                break;
            }
        if (flags.empty())
            QSKIP("no /proc/cpuinfo flags to compare cpuid with");
        const CpuBf16Units detected = detectedCpuBf16Units();
        QCOMPARE(detected.avx512, flags.find(" avx512_bf16 ") != std::string::npos);
        QCOMPARE(detected.amx,
            flags.find(" amx_bf16 ") != std::string::npos && flags.find(" amx_tile ") != std::string::npos);
        const CpuBf16Units units = cpuBf16Units();
        QCOMPARE(units.any(), detected.any() && qgetenv("TGRAPH_CPU_BF16") != "0");

        // applyPrecision follows the setting; the summary names what ran.
        const ProductPrecisionScope restore(false);
        QCOMPARE(applyPrecision(Precision::Bf16), Precision::Bf16);
        QVERIFY(bf16Products());
        QVERIFY(precisionSummary(Precision::Bf16).rfind("bf16 products (--precision bf16", 0) == 0);
        QCOMPARE(applyPrecision(Precision::Fp32), Precision::Fp32);
        QVERIFY(!bf16Products());
        QCOMPARE(applyPrecision(Precision::Auto), units.any() ? Precision::Bf16 : Precision::Fp32);
        QCOMPARE(bf16Products(), units.any());
        qInfo("%s", precisionSummary(Precision::Auto).c_str());
    }

    void conversionRoundsToNearestEven()
    {
        std::vector<float> in { 0.0f, -0.0f, 1.0f, -2.5f, 1e-40f, 3.4e38f, INFINITY, -INFINITY, NAN };
        for (uint32_t bits : { 0x3f808000u, 0x3f818000u, 0x3f807fffu, 0x3f808001u, 0x7f7fffffu, 0x7f800001u }) {
            float v;
            std::memcpy(&v, &bits, sizeof v);
            in.push_back(v); // ties to even both ways, just below and above a tie, overflow, a signalling NaN
        }
        const auto random = torch::randn({ 100003 }) * 1000;
        in.insert(in.end(), random.data_ptr<float>(), random.data_ptr<float>() + random.numel());
        std::vector<uint16_t> out(in.size());
        kernels::toBf16(int64_t(in.size()), in.data(), out.data());
        for (size_t i = 0; i < in.size(); ++i) {
            const uint32_t widened = uint32_t(out[i]) << 16;
            float back;
            std::memcpy(&back, &widened, sizeof back);
            if (std::isnan(in[i])) {
                QVERIFY2(std::isnan(back), qPrintable(QString("element %1 lost its NaN").arg(i)));
                continue;
            }
            const float expected = roundedToBf16(in[i]);
            QVERIFY2(std::memcmp(&back, &expected, sizeof back) == 0,
                qPrintable(QString("element %1: %2 -> %3, expected %4").arg(i).arg(in[i]).arg(back).arg(expected)));
        }
        // ATen's own conversion agrees bit for bit.
        const auto t = torch::randn({ 257, 33 });
        QVERIFY(torch::equal(toBf16(t), t.to(torch::kBFloat16)));
    }

    // A bf16 product is the exact product of the bf16-rounded operands up to float32 accumulation:
    // far closer to that than to the float32 product (~0.3 % away), and results are not rounded to
    // bf16 (which would leave ~0.2 % per element).
    void productsHaveFloat32Accumulation()
    {
        torch::manual_seed(3);
        const auto a = torch::randn({ 300, 512 });
        const auto w = torch::randn({ 128, 512 }); // used as w.t(), as the layers do
        const auto bias = torch::randn({ 128 });
        const auto exact = torch::addmm(bias.to(torch::kFloat64), a.to(torch::kBFloat16).to(torch::kFloat64),
            w.to(torch::kBFloat16).to(torch::kFloat64).t());
        const auto fp32 = productAdd(bias, a, w.t());
        QVERIFY(!bf16Products());
        QVERIFY(relativeDifference(fp32, torch::addmm(bias, a, w.t())) == 0.0); // fp32: ATen's addmm itself
        const ProductPrecisionScope bf16(true);
        const auto out = productAdd(bias, a, w.t());
        QCOMPARE(out.scalar_type(), torch::kFloat32);
        const double toExact = relativeDifference(out, exact);
        const double toFp32 = relativeDifference(out, fp32);
        qInfo("bf16 product (%s): %.2e from the exact product of the rounded operands, %.2e from fp32",
            bf16GemmBackend().c_str(), toExact, toFp32);
        QVERIFY2(toFp32 > 1e-4 && toFp32 < 1e-2, qPrintable(QString::number(toFp32)));
        if (bf16GemmBackend().rfind("oneDNN", 0) == 0)
            QVERIFY2(toExact < 1e-5, qPrintable(QString::number(toExact)));
        // The other forms: plain, accumulated into, transposed left operand, bf16 operands given.
        QVERIFY(relativeDifference(product(a, w.t()), exact - bias.to(torch::kFloat64)) < 1e-3);
        auto acc = torch::ones({ 300, 128 });
        productInto(acc, a, w.t(), true);
        QVERIFY(relativeDifference(acc, exact - bias.to(torch::kFloat64) + 1.0) < 1e-3);
        const auto at = a.t().contiguous().t(); // a stored transposed
        QVERIFY(relativeDifference(product(at, w.t()), product(a, w.t())) == 0.0);
        QVERIFY(relativeDifference(product(toBf16(a), toBf16(w).t()), product(a, w.t())) == 0.0);
        productInto(acc, a, w.t(), false);
        QVERIFY(relativeDifference(acc, product(a, w.t())) == 0.0);
        // A thin result (a gate's hidden layer, computed transposed inside), both operand layouts.
        const double tol = bf16GemmBackend().rfind("oneDNN", 0) == 0 ? 1e-5 : 1e-2;
        const auto w1 = torch::randn({ 16, 512 });
        const auto thinExact = a.to(torch::kBFloat16).to(torch::kFloat64).mm(w1.to(torch::kBFloat16).to(torch::kFloat64).t());
        QVERIFY(relativeDifference(product(a, w1.t()), thinExact) < tol);
        QVERIFY(relativeDifference(product(at, w1.t().contiguous()), thinExact) < tol);
        auto thin = torch::ones({ 300, 16 });
        productInto(thin, a, w1.t(), true);
        QVERIFY(relativeDifference(thin, thinExact + 1.0) < tol);
        // Through autograd (a layer's forward pass with gradients): the gradients are bf16 products.
        const auto x = a.clone().requires_grad_(true);
        const auto wt = w.clone().requires_grad_(true);
        const auto b = bias.clone().requires_grad_(true);
        productAdd(b, x, wt.t()).sum().backward();
        QVERIFY(relativeDifference(x.grad(), torch::ones({ 300, 128 }).mm(w)) < 1e-2);
        QVERIFY(relativeDifference(wt.grad(), torch::ones({ 300, 128 }).t().mm(a)) < 1e-2);
        QVERIFY(relativeDifference(b.grad(), torch::full({ 128 }, 300.0f)) == 0.0);
        // Without a bias (the config embeddings' product, which explain differentiates): the same
        // gradients, and an undefined bias in productAdd means none.
        for (const bool viaProductAdd : { false, true }) {
            const auto x2 = a.clone().requires_grad_(true);
            const auto out2 = viaProductAdd ? productAdd(torch::Tensor(), x2, w.t()) : product(x2, w.t());
            QVERIFY(relativeDifference(out2, exact - bias.to(torch::kFloat64)) < 1e-3);
            out2.sum().backward();
            QVERIFY(relativeDifference(x2.grad(), x.grad()) == 0.0);
        }
        {
            const ProductPrecisionScope fp32(false);
            QVERIFY(relativeDifference(productAdd(torch::Tensor(), a, w.t()), torch::mm(a, w.t())) == 0.0);
        }
    }

    // The scores of a few hundred configurations of a generated graph rank the same in both
    // precisions, through every scoring path: whole passes, config sub-batches (no cross-attention)
    // and node slices (cross-attention).
    void scoresRankTheSame_data()
    {
        QTest::addColumn<bool>("cross");
        QTest::addColumn<bool>("sliced");
        QTest::newRow("cross-attention, whole pass") << true << false;
        QTest::newRow("cross-attention, node slices") << true << true;
        QTest::newRow("no cross-attention") << false << false;
    }
    void scoresRankTheSame()
    {
        QFETCH(bool, cross);
        QFETCH(bool, sliced);
        const LayoutGraph g = modeltest::prunedSyntheticGraph(400, 30, 300, 5);
        QVERIFY(g.nodeCount() > 50);
        const Normalizer normalizer = modeltest::fitNormalizer(g.nodeFeat);
        torch::manual_seed(11);
        TGraphModel m(modeltest::options(cross));
        m->eval();
        const LayoutBatch batch = makeLayoutBatch(g, normalizer, allRows(g.configCount()), m->options().opTableSize);
        torch::NoGradGuard noGrad;
        auto score = [&] { return sliced ? m->scoreBySlices(batch, 16) : m->forward(batch); };
        const auto fp32 = score();
        torch::Tensor bf16;
        {
            const ProductPrecisionScope precision(true);
            bf16 = score();
        }
        const double tau = kendallTauB(doubles(fp32), doubles(bf16));
        const double difference = relativeDifference(bf16 - bf16.mean(), fp32 - fp32.mean());
        qInfo("%lld configs of %lld nodes: Kendall tau fp32 vs bf16 %.4f, scores' relative difference %.2e",
            (long long)g.configCount(), (long long)g.nodeCount(), tau, difference);
        QVERIFY2(difference > 0, "bf16 gave the fp32 scores: the bf16 path did not run");
        QVERIFY2(tau > 0.98, qPrintable(QString::number(tau)));
    }

    // Explanations (model/infer/explain.h) work in bf16 (the gradients with respect to the config
    // embeddings go through a recorded bias-free product) and rank a graph's nodes as fp32's do:
    // by share of the score difference, by counterfactual effect and by gradient x input.
    void explanationsRankNodesTheSame_data()
    {
        QTest::addColumn<bool>("cross");
        QTest::newRow("cross-attention") << true;
        QTest::newRow("no cross-attention") << false;
    }
    void explanationsRankNodesTheSame()
    {
        QFETCH(bool, cross);
        PrunedGraph pruned;
        pruned.graph = modeltest::prunedSyntheticGraph(400, 30, 200, 7);
        const LayoutGraph& g = pruned.graph;
        torch::manual_seed(17);
        TGraphModel m(modeltest::options(cross));
        modeltest::randomize(*m);
        m->eval();
        EnsembleMember member;
        member.path = "<memory>";
        member.kind = GraphKind::Layout;
        member.layout = m;
        member.normalizer = modeltest::fitNormalizer(g.nodeFeat);
        std::vector<EnsembleMember> members { member };
        ExplainOptions options;
        options.batchConfigs = 128; // A and B in different chunks
        const Attribution fp32 = explainConfigs(members, pruned, 3, 150, "g", options);
        Attribution bf16;
        {
            const ProductPrecisionScope precision(true);
            bf16 = explainConfigs(members, pruned, 3, 150, "g", options);
        }
        QCOMPARE(bf16.nodeCount(), fp32.nodeCount());
        QCOMPARE(bf16.differingNodes, fp32.differingNodes);
        std::vector<double> shares[2], effects[2], gradients[2];
        for (int p = 0; p < 2; ++p)
            for (const NodeAttribution& n : (p == 0 ? fp32 : bf16).nodes) {
                shares[p].push_back(n.difference());
                if (n.layoutDiffers())
                    effects[p].push_back(n.effect());
                if (n.configurable >= 0) {
                    double sum = 0;
                    for (int s = 0; s < kLayoutConfigFeatures; ++s)
                        sum += n.gradInputA[size_t(s)] - n.gradInputB[size_t(s)];
                    gradients[p].push_back(sum);
                }
            }
        QVERIFY(effects[0].size() >= 10);
        const double tauShares = kendallTauB(shares[0], shares[1]);
        const double tauEffects = kendallTauB(effects[0], effects[1]);
        const double tauGradients = kendallTauB(gradients[0], gradients[1]);
        qInfo("%lld nodes, %lld differing: Kendall tau fp32 vs bf16 of shares %.4f, effects %.4f, gradient x "
              "input %.4f; score A %.5f vs %.5f",
            (long long)fp32.nodeCount(), (long long)fp32.differingNodes, tauShares, tauEffects, tauGradients,
            fp32.scoreA, bf16.scoreA);
        QVERIFY2(bf16.scoreA != fp32.scoreA, "bf16 gave the fp32 score: the bf16 path did not run");
        QVERIFY2(tauShares > 0.9, qPrintable(QString::number(tauShares)));
        QVERIFY2(tauEffects > 0.9, qPrintable(QString::number(tauEffects)));
        QVERIFY2(tauGradients > 0.9, qPrintable(QString::number(tauGradients)));
    }

    // One training step's gradients point the same way in both precisions (cosine per parameter),
    // with the layers' own backward passes and with recomputation (docs/model.md §11).
    void gradientsAgree_data()
    {
        QTest::addColumn<bool>("cross");
        QTest::addColumn<bool>("recompute");
        QTest::newRow("cross-attention") << true << false;
        QTest::newRow("cross-attention, recomputed") << true << true;
        QTest::newRow("no cross-attention") << false << false;
        QTest::newRow("no cross-attention, recomputed") << false << true;
    }
    void gradientsAgree()
    {
        QFETCH(bool, cross);
        QFETCH(bool, recompute);
        const LayoutGraph g = modeltest::prunedSyntheticGraph(300, 20, 32, 9);
        const Normalizer normalizer = modeltest::fitNormalizer(g.nodeFeat);
        ModelOptions o = modeltest::options(cross);
        o.dropout = 0; // the same function in both passes
        torch::manual_seed(13);
        TGraphModel m(o);
        m->train();
        m->encoder.setRecompute(recompute ? RecomputeMode::On : RecomputeMode::Off);
        const LayoutBatch batch = makeLayoutBatch(g, normalizer, allRows(g.configCount()), o.opTableSize);
        const auto runtimes = torch::from_blob(const_cast<int64_t*>(g.configRuntime.data()), { g.configCount() },
            torch::kInt64)
                                  .clone();
        const auto fp32 = gradients(m, batch, runtimes);
        std::map<std::string, torch::Tensor> bf16;
        {
            const ProductPrecisionScope precision(true);
            bf16 = gradients(m, batch, runtimes);
        }
        QCOMPARE(bf16.size(), fp32.size());
        double worst = 1;
        std::string worstName;
        double differs = 0;
        for (const auto& [name, a] : fp32) {
            const auto b = bf16.at(name).to(torch::kFloat64).flatten();
            const auto x = a.to(torch::kFloat64).flatten();
            differs = std::max(differs, (b - x).abs().max().item<double>());
            const double norms = x.norm().item<double>() * b.norm().item<double>();
            if (norms < 1e-20 || x.norm().item<double>() < 1e-6 * std::max(1.0, x.abs().max().item<double>()))
                continue; // rounding noise around an exact zero (the f_in biases the instance norm cancels)
            const double cosine = (x * b).sum().item<double>() / norms;
            if (cosine < worst) {
                worst = cosine;
                worstName = name;
            }
        }
        qInfo("lowest gradient cosine fp32 vs bf16: %.5f (%s)", worst, worstName.c_str());
        QVERIFY2(differs > 0, "bf16 gave the fp32 gradients: the bf16 path did not run");
        QVERIFY2(worst > 0.99, qPrintable(QString::fromStdString(worstName) + ": " + QString::number(worst)));
    }

    // A short bf16 training run ranks the held-out graphs within the spread of fp32 runs of other
    // seeds; its weights file is float32 and scores the same in an fp32 process as in training.
    void bf16TrainingRanksLikeFp32()
    {
        const std::string dir = testutil::str(m_dir.filePath("collection"));
        writeLayoutCollection(dir, 14, 64, 41);
        const TrainingData data = loadTrainingData(listDataFiles({ dir }));
        const auto train = data.indicesOf(DataSplit::Train);
        const auto valid = data.indicesOf(DataSplit::Valid);
        QVERIFY(valid.size() >= 3);
        auto run = [&](uint64_t seed, bool bf16, std::string weights) {
            const ProductPrecisionScope precision(bf16);
            TrainOptions o;
            o.steps = 60;
            o.model.hidden = 64;
            o.configsPerStep = 32;
            o.evalEvery = 0;
            o.logEvery = 1000;
            o.seed = seed;
            Trainer t(data, train, valid, o);
            t.run();
            const double tau = t.evaluate().meanTau;
            if (!weights.empty())
                saveWeightsNpz(t.layoutModel(), t.normalizer(), weights);
            return tau;
        };
        // The same four seeds in both precisions: the mean held-out tau of the bf16 runs lies within
        // the seed-to-seed spread of the fp32 runs around theirs (a slower-learning bf16 path would not).
        std::vector<double> fp32;
        std::vector<double> bf16;
        const std::string weights = testutil::str(m_dir.filePath("bf16.npz"));
        for (uint64_t seed : { 1, 2, 3, 4 }) {
            fp32.push_back(run(seed, false, {}));
            bf16.push_back(run(seed, true, seed == 4 ? weights : std::string()));
        }
        const double low = *std::min_element(fp32.begin(), fp32.end());
        const double high = *std::max_element(fp32.begin(), fp32.end());
        const double spread = std::max(high - low, 0.03);
        const double meanFp32 = std::accumulate(fp32.begin(), fp32.end(), 0.0) / double(fp32.size());
        const double meanBf16 = std::accumulate(bf16.begin(), bf16.end(), 0.0) / double(bf16.size());
        qInfo("held-out mean tau, seeds 1-4: fp32 %.4f %.4f %.4f %.4f (mean %.4f), bf16 %.4f %.4f %.4f %.4f (mean %.4f)",
            fp32[0], fp32[1], fp32[2], fp32[3], meanFp32, bf16[0], bf16[1], bf16[2], bf16[3], meanBf16);
        QVERIFY2(low > 0.1, "the fp32 runs did not learn: the comparison would say nothing");
        QVERIFY2(std::abs(meanBf16 - meanFp32) <= spread, qPrintable(QString::number(meanBf16)));
        for (double tau : bf16)
            QVERIFY2(tau >= low - spread, qPrintable(QString::number(tau)));

        // The weights file holds float32 arrays only (the model's own weights, never bf16 copies)
        // and loads in an fp32 process with the scores of a bf16 pass to bf16 rounding.
        NpzReader npz(weights);
        for (const std::string& key : npz.keys()) {
            const NpyHeader h = npz.header(key);
            if (key.rfind("normalizer.", 0) == 0) // float64, as in every weights file (docs/formats.md §12)
                QVERIFY2(h.dtype.scalar == ScalarType::Float64, qPrintable(QString::fromStdString(key)));
            else if (h.dtype.isFloat())
                QVERIFY2(h.dtype.scalar == ScalarType::Float32, qPrintable(QString::fromStdString(key)));
        }
        const ProductPrecisionScope fp32Process(false);
        LayoutWeights loaded = loadWeightsNpz(weights);
        loaded.model->eval();
        for (const auto& p : loaded.model->parameters())
            QCOMPARE(p.scalar_type(), torch::kFloat32);
        const LayoutGraph g = pruneToConfigurable(loadLayoutGraph(data.graphs[valid.front()].path)).graph;
        const LayoutBatch batch
            = makeLayoutBatch(g, loaded.normalizer, allRows(g.configCount()), loaded.model->options().opTableSize);
        torch::NoGradGuard noGrad;
        const auto inFp32 = loaded.model->forward(batch);
        torch::Tensor inBf16;
        {
            const ProductPrecisionScope precision(true);
            inBf16 = loaded.model->forward(batch);
        }
        const double tau = kendallTauB(doubles(inFp32), doubles(inBf16));
        qInfo("bf16-trained weights, %lld configs scored in fp32 and bf16: tau %.4f", (long long)g.configCount(), tau);
        QVERIFY2(tau > 0.98, qPrintable(QString::number(tau)));
    }
};

QTEST_GUILESS_MAIN(TestPrecision)
#include "tst_precision.moc"
