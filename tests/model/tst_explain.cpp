// SPDX-License-Identifier: Apache-2.0
// Explaining a ranking (model/infer/explain.h, model/attribution.h, `tgraph explain`): the per-node
// decomposition sums to score - bias in the batch the score comes from (cross-attn on and off),
// counterfactuals are consistent with plain scoring and batched in few passes, gradient x input
// agrees with finite differences, a model trained on a simulated graph where one node's layout
// dominates the runtime names that node first, and the command line's table, JSON and refusals.

#include "model/infer/explain.h"
#include "model/infer/explainsimulator.h"
#include "model/runtime/torchruntime.h"
#include "model/train/trainer.h"
#include "model/nn/weights.h"

#include "core/hlo/featurizer.h"
#include "core/util/format.h"
#include "core/graph/graphio.h"
#include "core/synth/hlogen.h"
#include "core/hlo/hlotext.h"
#include "core/sim/layoutcandidates.h"
#include "core/sim/simulator.h"
#include "core/synth/synthcollection.h"
#include "core/train/trainingset.h"
#include "modeltestutil.h"
#include "testutil.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>

using namespace tgraph;
using namespace tgraph::model;

namespace {

namespace fs = std::filesystem;

// A simulated layout graph whose runtime is dominated by one configurable node's layout, with the
// HLO module it was made from.
struct DominatedGraph
{
    std::string npz;
    std::string hlo;
    int64_t dominantNode = -1; // node position (= instruction position) in the file
    std::string dominantName;
    double ratio = 0; // the dominant node's mean simulated effect over the next largest
};

// Mean over the rows of |runtime(row) - runtime(row with node k at the compiler default)|, per k.
std::vector<double> simulatedNodeEffects(const LayoutSimulator& sim, const NdArray<float>& configs)
{
    const int64_t nc = configs.dim(1);
    std::vector<double> effect(size_t(nc), 0.0);
    std::vector<float> row(size_t(configs.rowSize()));
    for (int64_t c = 0; c < configs.dim(0); ++c) {
        const double base = sim.runtime(configs.row(c));
        for (int64_t k = 0; k < nc; ++k) {
            std::copy_n(configs.row(c), row.size(), row.begin());
            std::fill_n(row.begin() + k * kLayoutConfigFeatures, kLayoutConfigFeatures, -1.0f);
            effect[size_t(k)] += std::abs(base - sim.runtime(row.data())) / double(configs.dim(0));
        }
    }
    return effect;
}

// The first generated module (fixed list of families and seeds) whose random configs have one node
// at least `minRatio` times as influential as any other, written as DIR/train/g.npz and DIR/g.hlo.
DominatedGraph writeDominatedGraph(const std::string& dir, double minRatio)
{
    fs::create_directories(fs::path(dir) / "train");
    for (const char* family : { "resnet", "mlp", "transformer" }) {
        for (uint64_t seed = 1; seed <= 12; ++seed) {
            HloGenSpec gen;
            gen.family = family;
            gen.instructions = 160;
            gen.seed = seed;
            gen.metadata = false;
            const std::string text = generateHloText(gen);
            // As `tgraph gen-hlo` + `tgraph simulate` do: attributes kept (backend_config trip counts).
            HloModule module = parseHloText(text, "<generated>");
            const std::vector<int64_t> configurable = defaultConfigurableNodes(module);
            if (configurable.size() < 4)
                continue;
            const NdArray<float> configs
                = sampleLayoutConfigs(layoutChoices(module, configurable), 160, LayoutSampler::Random, seed, "g.npz");
            std::vector<double> effects;
            {
                const LayoutSimulator sim(module, configurable, {});
                effects = simulatedNodeEffects(sim, configs);
            }
            const size_t best = size_t(std::max_element(effects.begin(), effects.end()) - effects.begin());
            double second = 0;
            for (size_t k = 0; k < effects.size(); ++k)
                if (k != best)
                    second = std::max(second, effects[k]);
            if (effects[best] < minRatio * second)
                continue;
            DominatedGraph out;
            out.dominantNode = configurable[best];
            out.dominantName = std::string(module.instructions[size_t(out.dominantNode)].name);
            out.ratio = effects[best] / second;
            out.npz = (fs::path(dir) / "train" / "g.npz").string();
            out.hlo = (fs::path(dir) / "g.hlo").string();
            std::ofstream(out.hlo) << text;
            const ModuleTuningData data = simulateLayoutRuns(std::move(module), configurable, configs, {}, seed);
            LayoutGraph graph = featurizeLayout(data, out.npz);
            graph.syntheticMeta = syntheticMetaJson("tst_explain", family, "random", seed, {});
            saveLayoutGraph(graph, out.npz);
            return out;
        }
    }
    return {};
}

// A pruned synthetic graph with 64 configurable nodes where configs 1 and 4 differ in exactly
// `differing` of them (config 4 = config 1 with the first output value of those nodes changed).
PrunedGraph wideGraph(int64_t differing, uint64_t seed)
{
    SyntheticLayoutSpec spec;
    spec.nodes = 6 * 64;
    spec.configurableNodes = 64;
    spec.configs = 6;
    spec.duplicateFraction = 0;
    spec.seed = seed;
    PrunedGraph pruned = pruneToConfigurable(makeSyntheticLayoutGraph(spec));
    NdArray<float>& feat = pruned.graph.nodeConfigFeat;
    std::copy_n(feat.row(1), feat.rowSize(), feat.row(4));
    for (int64_t k = 0; k < differing; ++k)
        feat(4, k, 0) = feat(1, k, 0) == 0.0f ? 1.0f : 0.0f;
    return pruned;
}

EnsembleMember memberOf(const TGraphModel& model, const Normalizer& normalizer)
{
    EnsembleMember m;
    m.path = "<memory>";
    m.kind = GraphKind::Layout;
    m.layout = model;
    m.normalizer = normalizer;
    return m;
}

TGraphModel randomModel(bool cross, int64_t hidden = 64)
{
    ModelOptions o = modeltest::options(cross);
    o.hidden = hidden;
    TGraphModel m(o);
    modeltest::randomize(*m);
    m->eval();
    return m;
}

LayoutBatch batchOf(const LayoutGraph& g, const GraphTensors& t, const std::vector<int64_t>& rows)
{
    LayoutBatch b;
    b.graph = t;
    b.configTokens = makeConfigTokens(g.nodeConfigFeat, rows, "g");
    return b;
}

std::vector<int64_t> range(int64_t first, int64_t count)
{
    std::vector<int64_t> rows(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i)
        rows[size_t(i)] = first + i;
    return rows;
}

QString tgraphExe() { return testutil::binDir() + "/tgraph"; }

} // namespace

class TestExplain : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    DominatedGraph m_dominated;
    std::string m_weights; // a model trained on m_dominated's graph
    std::string m_tileWeights;

    std::string path(const std::string& name) const
    {
        return testutil::str(m_dir.filePath(QString::fromStdString(name)));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        initTorchRuntime(1); // ctest runs two tests at once on this 2-core machine
        torch::manual_seed(20240917);
    }

    // score(c) = b + sum_n share_n(c), share = w . h_n(c) / N, for every config of a batch; forward()
    // itself is unchanged (classifier over the mean of nodeEmbeddings); explainConfigs reports A's and
    // B's shares of the chunks `predict` scores them in, so its scores are predict's.
    void decompositionSumsToScore_data()
    {
        QTest::addColumn<bool>("cross");
        QTest::newRow("cross-attn on") << true;
        QTest::newRow("cross-attn off") << false;
    }
    void decompositionSumsToScore()
    {
        QFETCH(bool, cross);
        const LayoutGraph g = modeltest::smallSyntheticGraph(300, 5);
        const Normalizer norm = modeltest::fitNormalizer(g.nodeFeat);
        TGraphModel model = randomModel(cross);
        const GraphTensors t = makeGraphTensors(g, norm, kDefaultOpTableSize, "g");
        const LayoutBatch batch = batchOf(g, t, range(0, 100));

        const BatchDecomposition dec = decomposeBatch(model, batch);
        torch::Tensor forward;
        {
            torch::NoGradGuard noGrad;
            forward = model->forward(batch);
        }
        QCOMPARE(dec.scores.size(0), int64_t(100));
        QCOMPARE(dec.shares.sizes(), torch::IntArrayRef({ g.nodeCount(), 100 }));
        QCOMPARE(modeltest::maxAbs(dec.scores - forward), 0.0); // the same pass, bit for bit
        QCOMPARE(dec.bias, model->classifier->bias.item<double>());
        const auto sums = dec.shares.sum(0); // (C,)
        double worst = 0;
        for (int64_t c = 0; c < 100; ++c) {
            // Relative to |score - bias|; scores of a random model can cross the bias, and a float32
            // score near it carries the rounding of terms ~100x larger, so below 1e-2 the bound is 1e-7
            // absolute. The float64 check below has no such floor.
            const double target = forward[c].item<double>() - dec.bias;
            worst = std::max(worst, std::abs(sums[c].item<double>() - target) / std::max(std::abs(target), 1e-2));
        }
        qInfo("largest relative error of sum(shares) vs score - bias: %.3g", worst);
        QVERIFY2(worst < 1e-5, qPrintable(QString::number(worst)));

        // The decomposition is exact, not approximate: the same model in float64 sums to 1e-10 relative.
        {
            TGraphModel wide(model->options());
            torch::NoGradGuard noGrad;
            const auto from = model->named_parameters();
            for (auto& p : wide->named_parameters())
                p.value().copy_(from[p.key()]);
            wide->to(torch::kFloat64);
            wide->eval();
            LayoutBatch batch64 = batch;
            batch64.graph.numeric = batch.graph.numeric.to(torch::kFloat64);
            const BatchDecomposition dec64 = decomposeBatch(wide, batch64);
            const auto target = wide->forward(batch64).to(torch::kFloat64) - dec64.bias;
            const double error = modeltest::maxAbs((dec64.shares.sum(0) - target) / target.abs());
            qInfo("float64 model: largest relative error %.3g", error);
            QVERIFY2(error < 1e-10, qPrintable(QString::number(error)));
        }

        // Batch dependence: the same config in another batch has other shares exactly when cross-attn is on.
        const BatchDecomposition alone = decomposeBatch(model, batchOf(g, t, range(0, 10)));
        const double moved = modeltest::maxAbs(alone.shares.select(1, 3) - dec.shares.select(1, 3));
        if (cross)
            QVERIFY2(moved > 1e-6, qPrintable(QString::number(moved)));
        else
            QVERIFY2(moved < 1e-6, qPrintable(QString::number(moved)));

        // explainConfigs: A in chunk 0 and B in chunk 2 of array_split(300, 128) = 100 + 100 + 100.
        std::vector<EnsembleMember> members { memberOf(model, norm) };
        PrunedGraph pruned;
        pruned.graph = g;
        ExplainOptions options;
        options.batchConfigs = 128;
        const Attribution a = explainConfigs(members, pruned, 7, 250, "g", options);
        const GraphScores predicted = scoreLayoutGraph(members, g, "g", InferenceOptions {});
        QCOMPARE(a.passes.shares, int64_t(2));
        QVERIFY(std::abs(a.scoreA - predicted.scores[7]) <= 1e-6 * std::max(1.0, std::abs(a.scoreA)));
        QVERIFY(std::abs(a.scoreB - predicted.scores[250]) <= 1e-6 * std::max(1.0, std::abs(a.scoreB)));
        QVERIFY(std::abs(a.shareSumA() - (a.scoreA - a.bias)) <= 1e-5 * std::abs(a.scoreA - a.bias));
        QVERIFY(std::abs(a.shareSumB() - (a.scoreB - a.bias)) <= 1e-5 * std::abs(a.scoreB - a.bias));
        QCOMPARE(a.nodeCount(), g.nodeCount());
    }

    // Counterfactuals: B with all differing nodes from A is A (same score in the same pass); effects
    // are in-pass differences, equal to plain scoring without cross-attn; 60+ differing nodes take one
    // pass of at most 128 configs; non-differing nodes get none.
    void counterfactualConsistency_data()
    {
        QTest::addColumn<bool>("cross");
        QTest::newRow("cross-attn on") << true;
        QTest::newRow("cross-attn off") << false;
    }
    void counterfactualConsistency()
    {
        QFETCH(bool, cross);
        const PrunedGraph pruned = wideGraph(60, 17);
        const LayoutGraph& g = pruned.graph;
        const Normalizer norm = modeltest::fitNormalizer(g.nodeFeat);
        TGraphModel model = randomModel(cross);
        std::vector<EnsembleMember> members { memberOf(model, norm) };
        ExplainOptions options;
        options.batchConfigs = 128;
        const auto started = std::chrono::steady_clock::now();
        const Attribution a = explainConfigs(members, pruned, 1, 4, "wide", options);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
        qInfo("%lld differing nodes of %lld: %zu counterfactual pass(es) of %lld configs, explained in %.0f ms "
              "(%lld nodes)",
            (long long)a.differingNodes, (long long)g.configurableCount(), a.counterfactualBatchSizes.size(),
            (long long)a.counterfactualBatchSizes.front(), ms, (long long)g.nodeCount());
        QCOMPARE(a.differingNodes, int64_t(60));
        QVERIFY(a.counterfactualBatchSizes.size() <= 2);
        QCOMPARE(a.passes.counterfactual, int64_t(a.counterfactualBatchSizes.size()));
        QCOMPARE(a.counterfactualBatchSizes.front(), 2 + 2 * a.differingNodes); // 1 pass: every variant plus A and B
        QVERIFY(a.counterfactualBatchSizes.front() <= 128);
        int64_t withEffect = 0;
        for (const NodeAttribution& n : a.nodes) {
            QCOMPARE(std::isfinite(n.effectOnB), n.layoutDiffers());
            QCOMPARE(std::isfinite(n.effectOnA), n.layoutDiffers());
            withEffect += n.layoutDiffers();
        }
        QCOMPARE(withEffect, a.differingNodes);

        // All differing nodes swapped at once: B becomes A, scored as A in the same pass.
        const GraphTensors t = makeGraphTensors(g, norm, kDefaultOpTableSize, "wide");
        const auto tokensA = makeConfigTokens(g.nodeConfigFeat, { 1 }, "wide")[0];
        const auto tokensB = makeConfigTokens(g.nodeConfigFeat, { 4 }, "wide")[0];
        std::vector<int64_t> differing;
        for (const NodeAttribution& n : a.nodes)
            if (n.layoutDiffers())
                differing.push_back(n.configurable);
        const auto all = withNodeLayouts(tokensB, tokensA, differing);
        QCOMPARE(modeltest::maxAbs((all - tokensA).to(torch::kFloat32)), 0.0);
        const auto one = withNodeLayouts(tokensB, tokensA, { differing.front() });
        const VariantScores v
            = scoreVariants(model, t, torch::stack({ tokensA, tokensB }), torch::stack({ one, all, tokensB }), 128);
        QCOMPARE(v.passSizes, std::vector<int64_t> { 5 });
        const double scoreA = v.anchorScores[0][0];
        const double scoreB = v.anchorScores[0][1];
        QVERIFY2(std::abs(v.scores[1] - scoreA) <= 1e-5 * std::max(1.0, std::abs(scoreA)),
            qPrintable(QString("%1 vs %2").arg(v.scores[1]).arg(scoreA)));
        QVERIFY(std::abs(v.scores[2] - scoreB) <= 1e-5 * std::max(1.0, std::abs(scoreB)));
        QVERIFY(std::abs(v.scores[0] - scoreB) > 1e-7); // one node's layout changes the score

        // Chunking of the variants: with a small batch they spread over passes, each with the anchors.
        QCOMPARE(variantPasses(2 * a.differingNodes, 2, 128), int64_t(1));
        QCOMPARE(variantPasses(2 * a.differingNodes, 2, 34), (2 * a.differingNodes + 31) / 32);
        ExplainOptions small = options;
        small.batchConfigs = 34;
        small.gradients = false;
        const Attribution b = explainConfigs(members, pruned, 1, 4, "wide", small);
        QCOMPARE(int64_t(b.counterfactualBatchSizes.size()), (2 * a.differingNodes + 31) / 32);
        for (int64_t size : b.counterfactualBatchSizes)
            QVERIFY(size <= 34);
        const NodeAttribution& first = a.nodes[size_t(g.nodeConfigIds[differing.front()])];
        const NodeAttribution& firstSmall = b.nodes[size_t(g.nodeConfigIds[differing.front()])];
        // Without cross-attn an effect does not depend on the batch: it equals plain scoring of B and
        // of B with the node's layout from A, each alone.
        const auto alone = [&](const torch::Tensor& tokens) {
            torch::NoGradGuard noGrad;
            LayoutBatch batch;
            batch.graph = t;
            batch.configTokens = tokens.unsqueeze(0);
            return model->forward(batch)[0].item<double>();
        };
        const double plain = alone(one) - alone(tokensB);
        if (!cross) {
            // float32 scores of different batch sizes agree to rounding of the scores themselves.
            const double tolerance = 1e-5 * std::max({ std::abs(scoreA), std::abs(scoreB), 1e-2 });
            QVERIFY2(std::abs(first.effectOnB - plain) <= tolerance,
                qPrintable(QString("%1 vs %2").arg(first.effectOnB).arg(plain)));
            QVERIFY(std::abs(firstSmall.effectOnB - first.effectOnB) <= tolerance);
        } else {
            // With cross-attn the batch is part of the input: another batch, another effect.
            QVERIFY(std::abs(firstSmall.effectOnB - first.effectOnB) > 1e-9);
        }
        QVERIFY(std::abs(first.effect() - (first.effectOnA - first.effectOnB) / 2) < 1e-12);

        // What-if (scoreEditedLayout): B with the first differing node's layout from A. Without
        // cross-attn it is the counterfactual effectOnB; the unchanged layout leaves the score as is.
        std::array<float, 18> fromA {};
        std::array<float, 18> own {};
        for (int s = 0; s < 18; ++s) {
            fromA[size_t(s)] = g.nodeConfigFeat(1, differing.front(), s);
            own[size_t(s)] = g.nodeConfigFeat(4, differing.front(), s);
        }
        const EditedScore edited = scoreEditedLayout(members, pruned, 4, differing.front(), fromA, 128, "wide");
        const EditedScore same = scoreEditedLayout(members, pruned, 4, differing.front(), own, 128, "wide");
        QVERIFY2(std::abs(same.effect()) <= 1e-6 * std::max(1.0, std::abs(same.base)),
            qPrintable(QString::number(same.effect())));
        QVERIFY(std::abs(edited.effect()) > 1e-7);
        if (!cross) {
            const double tolerance = 1e-5 * std::max({ std::abs(scoreA), std::abs(scoreB), 1e-2 });
            QVERIFY2(std::abs(edited.effect() - first.effectOnB) <= tolerance,
                qPrintable(QString("%1 vs %2").arg(edited.effect()).arg(first.effectOnB)));
            QVERIFY(std::abs(edited.base - a.scoreB) <= tolerance); // B scored as predict scores it
        }
        std::array<float, 18> bad = own;
        bad[0] = 7;
        QVERIFY_THROWS_EXCEPTION(
            InputError, scoreEditedLayout(members, pruned, 4, differing.front(), bad, 128, "wide"));
        QVERIFY_THROWS_EXCEPTION(InputError, scoreEditedLayout(members, pruned, 4, 64, own, 128, "wide"));
        QVERIFY_THROWS_EXCEPTION(InputError, scoreEditedLayout(members, pruned, 6, 0, own, 128, "wide"));
    }

    // Gradient x input: (Nc, 18), and its sums match finite differences of the score when row A's
    // config embeddings are scaled (all of them, and one slot alone).
    void gradientTimesInputMatchesFiniteDifferences()
    {
        const LayoutGraph g = modeltest::smallSyntheticGraph(40, 9);
        const Normalizer norm = modeltest::fitNormalizer(g.nodeFeat);
        for (const bool cross : { true, false }) {
            TGraphModel model = randomModel(cross);
            const GraphTensors t = makeGraphTensors(g, norm, kDefaultOpTableSize, "g");
            const LayoutBatch batch = batchOf(g, t, range(0, 16));
            const int64_t row = 5;
            const auto gi = gradientTimesInput(model, batch, row);
            QCOMPARE(gi.sizes(), torch::IntArrayRef({ g.configurableCount(), 18 }));
            QVERIFY(torch::isfinite(gi).all().item<bool>());
            QVERIFY(modeltest::maxAbs(gi) > 0);

            torch::NoGradGuard noGrad;
            const auto embeddings = model->configEmbeddings(batch);
            // The given-embeddings path is the token path.
            QVERIFY(modeltest::relativeError(model->inputProjection(batch, embeddings), model->inputProjection(batch))
                < 1e-5);
            auto scoreWith = [&](const torch::Tensor& scale) {
                auto e = embeddings.clone();
                e[row].mul_(scale);
                const auto h = model->nodeEmbeddings(batch, e);
                return model->classifier(h.mean(0)).squeeze(1)[row].item<double>();
            };
            const double eps = 1e-2;
            const auto ones = torch::ones({ g.configurableCount(), 18, 1 });
            const double total = (scoreWith(ones * (1 + eps)) - scoreWith(ones * (1 - eps))) / (2 * eps);
            const double sum = gi.sum().item<double>();
            QVERIFY2(std::abs(total - sum) <= 2e-2 * std::max(std::abs(sum), 1e-3),
                qPrintable(QString("finite difference %1 vs gradient x input %2").arg(total).arg(sum)));
            // The slot with the largest |gradient x input| alone.
            const int64_t flat = gi.abs().argmax().item<int64_t>();
            const int64_t k = flat / 18, s = flat % 18;
            auto slot = ones.clone();
            auto only = [&](double f) {
                auto scale = slot.clone();
                scale[k][s][0] = f;
                return scale;
            };
            const double one = (scoreWith(only(1 + eps)) - scoreWith(only(1 - eps))) / (2 * eps);
            QVERIFY2(std::abs(one - gi[k][s].item<double>()) <= 2e-2 * std::abs(gi[k][s].item<double>()),
                qPrintable(QString("slot %1,%2: %3 vs %4").arg(k).arg(s).arg(one).arg(gi[k][s].item<double>())));
        }
    }

    // An ensemble's explanation is the mean of its members' (so shares still sum to score - bias).
    void ensembleIsTheMeanOfMembers()
    {
        const PrunedGraph pruned = wideGraph(12, 23);
        const Normalizer norm = modeltest::fitNormalizer(pruned.graph.nodeFeat);
        std::vector<EnsembleMember> first { memberOf(randomModel(true), norm) };
        std::vector<EnsembleMember> second { memberOf(randomModel(false, 32), norm) };
        std::vector<EnsembleMember> both { first.front(), second.front() };
        const Attribution x = explainConfigs(first, pruned, 1, 4, "wide", {});
        const Attribution y = explainConfigs(second, pruned, 1, 4, "wide", {});
        const Attribution m = explainConfigs(both, pruned, 1, 4, "wide", {});
        QCOMPARE(m.members, 2);
        auto mean = [](double p, double q) { return (p + q) / 2; };
        auto close = [](double p, double q) { return std::abs(p - q) <= 1e-9 * std::max(1.0, std::abs(q)); };
        QVERIFY(close(m.scoreA, mean(x.scoreA, y.scoreA)));
        QVERIFY(close(m.bias, mean(x.bias, y.bias)));
        QVERIFY(std::abs(m.shareSumA() - (m.scoreA - m.bias)) <= 1e-5 * std::max(std::abs(m.scoreA - m.bias), 1e-2));
        for (size_t i = 0; i < m.nodes.size(); ++i) {
            QVERIFY(close(m.nodes[i].shareB, mean(x.nodes[i].shareB, y.nodes[i].shareB)));
            if (m.nodes[i].layoutDiffers()) {
                QVERIFY(close(m.nodes[i].effectOnB, mean(x.nodes[i].effectOnB, y.nodes[i].effectOnB)));
                QVERIFY(close(m.nodes[i].gradInputA[0], mean(x.nodes[i].gradInputA[0], y.nodes[i].gradInputA[0])));
            }
        }
    }

    // The compiler default is the all -1 row; selectors parse.
    void configSelectors()
    {
        ConfigSelector s;
        QVERIFY(parseConfigSelector("12", &s) && s.role == ConfigRole::Index && s.index == 12);
        QVERIFY(parseConfigSelector("fastest", &s) && s.role == ConfigRole::PredictedFastest);
        QVERIFY(parseConfigSelector("slowest", &s) && s.role == ConfigRole::PredictedSlowest);
        QVERIFY(parseConfigSelector("default", &s) && s.role == ConfigRole::CompilerDefault);
        QVERIFY(!parseConfigSelector("-1", &s));
        QVERIFY(!parseConfigSelector("3x", &s));
        LayoutGraph g = modeltest::smallSyntheticGraph(5, 3);
        for (int64_t c = 0; c < g.configCount(); ++c)
            g.nodeConfigFeat(c, 1, 0) = 2.0f; // no config is the default
        QCOMPARE(compilerDefaultConfig(g), int64_t(-1));
        std::fill_n(g.nodeConfigFeat.row(3), g.nodeConfigFeat.rowSize(), -1.0f);
        QCOMPARE(compilerDefaultConfig(g), int64_t(3));
        std::fill_n(g.nodeConfigFeat.row(1), g.nodeConfigFeat.rowSize(), -1.0f);
        QCOMPARE(compilerDefaultConfig(g), int64_t(1)); // the first one
        g.nodeConfigFeat(1, 0, 17) = 0.0f;
        QCOMPARE(compilerDefaultConfig(g), int64_t(3));
    }

    // THE DOMINANT NODE. A generated module whose random layout configs are dominated (in the
    // simulator) by one configurable node; a model trained briefly on that graph ranks that node first
    // by counterfactual effect when explaining its predicted fastest against its predicted slowest
    // config, and so does the simulator's side of the explanation (the module via --module).
    void dominantNodeRanksFirst()
    {
        m_dominated = writeDominatedGraph(path("dominated"), 3.0);
        QVERIFY2(!m_dominated.npz.empty(), "no generated module with a dominant node");
        qInfo("dominant node %lld (%s): %.1fx the mean simulated effect of any other",
            (long long)m_dominated.dominantNode, m_dominated.dominantName.c_str(), m_dominated.ratio);

        const TrainingData data = loadTrainingData(listDataFiles({ path("dominated") }));
        QCOMPARE(data.graphs.size(), size_t(1));
        TrainOptions o;
        o.steps = 150;
        o.model.hidden = 64;
        o.configsPerStep = 32;
        o.evalEvery = 0;
        o.logEvery = 1000;
        o.seed = 5;
        const auto started = std::chrono::steady_clock::now();
        Trainer trainer(data, data.indicesOf(DataSplit::Train), {}, o);
        trainer.run();
        qInfo("trained %lld steps in %.1f s", (long long)trainer.stepsDone(),
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
        m_weights = path("dominated.npz");
        saveWeightsNpz(trainer.layoutModel(), trainer.normalizer(), m_weights);

        std::vector<EnsembleMember> members = loadEnsemble({ m_weights });
        ExplainFileOptions options;
        options.moduleFile = m_dominated.hlo;
        std::string note;
        const Attribution a = explainFile(members, m_dominated.npz, { ConfigRole::PredictedFastest, -1 },
            { ConfigRole::PredictedSlowest, -1 }, options, &note);
        QCOMPARE(a.rankA, int64_t(1));
        QCOMPARE(a.rankB, a.configs);
        QVERIFY(a.scoreA < a.scoreB);
        QVERIFY(note.empty());
        QCOMPARE(a.moduleSource, m_dominated.hlo);
        const std::vector<size_t> ranked = rankedNodes(a, AttributionOrder::Effect);
        const NodeAttribution& top = a.nodes[ranked.front()];
        qInfo("A = config %lld (%s), B = config %lld (%s); top node %lld %s effect %+.4f (next %+.4f), simulated "
              "effect %s",
            (long long)a.configA, formatDuration(a.runtimeA).c_str(), (long long)a.configB,
            formatDuration(a.runtimeB).c_str(), (long long)top.fileNode, top.name.c_str(), top.effect(),
            a.nodes[ranked[1]].effect(), formatDuration(int64_t(top.simulatedEffect())).c_str());
        QVERIFY(top.layoutDiffers());
        QCOMPARE(top.fileNode, m_dominated.dominantNode);
        QCOMPARE(top.name, m_dominated.dominantName);
        QVERIFY(top.effect() > 0); // A's layout of the dominant node is the faster one
        // The simulator agrees: the dominant node has the largest simulated effect.
        double best = 0;
        int64_t bestNode = -1;
        for (const NodeAttribution& n : a.nodes)
            if (n.layoutDiffers() && std::abs(n.simulatedEffect()) > best) {
                best = std::abs(n.simulatedEffect());
                bestNode = n.fileNode;
            }
        QCOMPARE(bestNode, m_dominated.dominantNode);
        // The simulator's totals are the file's runtimes up to the simulated measurement noise.
        QVERIFY(std::abs(a.simulatedTotalA / double(a.runtimeA) - 1) < 0.03);
        QVERIFY(std::abs(a.simulatedTotalB / double(a.runtimeB) - 1) < 0.03);
        QVERIFY(!a.simulated.empty());
        // Gradient x input is there for configurable nodes.
        double gradient = 0;
        for (float v : top.gradInputA)
            gradient += std::abs(v);
        QVERIFY(gradient > 0);
    }

    // A `tgraph synth` graph: its module is regenerated from meta_synthetic and verified; the
    // simulator's totals match the file's simulated measurements. The compiler default is row 0.
    void synthCollectionModuleIsRegenerated()
    {
        SynthCollectionSpec spec;
        spec.graphs = 1;
        spec.configs = 24;
        spec.seed = 8;
        spec.families = { "mlp" };
        spec.minInstructions = 100;
        spec.maxInstructions = 250;
        spec.validShare = 0;
        spec.testShare = 0;
        const SynthCollectionResult r = writeSynthCollection(spec, path("synth"), nullptr);
        const std::string file = path("synth/" + r.files.front());
        const LayoutGraph g = loadLayoutGraph(file);
        QCOMPARE(compilerDefaultConfig(g), int64_t(0));
        std::string why;
        const std::optional<LinkedModule> link = regenerateSynthModule(g, &why);
        QVERIFY2(link.has_value(), why.c_str());
        QCOMPARE(int64_t(link->module->instructions.size()), g.nodeCount());

        std::vector<EnsembleMember> members { memberOf(randomModel(true, 32), modeltest::fitNormalizer(g.nodeFeat)) };
        ExplainFileOptions options;
        options.rankAll = false;
        std::string note;
        const Attribution a
            = explainFile(members, file, { ConfigRole::Index, 5 }, { ConfigRole::CompilerDefault, -1 }, options, &note);
        QCOMPARE(a.configB, int64_t(0));
        QCOMPARE(a.rankA, int64_t(-1));
        QCOMPARE(a.passes.ranking, int64_t(0));
        QVERIFY2(a.moduleSource.find("regenerated") != std::string::npos, a.moduleSource.c_str());
        QVERIFY(std::abs(a.simulatedTotalA / double(a.runtimeA) - 1) < 0.03);
        QVERIFY(std::abs(a.simulatedTotalB / double(a.runtimeB) - 1) < 0.03);

        // A graph that is not from tgraph synth: no module, and the note says why in words the studio
        // shows as they are (no command-line option; `tgraph explain` adds how to give one).
        LayoutGraph other = g;
        other.syntheticMeta.clear();
        QVERIFY(!regenerateSynthModule(other, &why));
        QVERIFY2(why.find("HLO module") != std::string::npos && why.find("--") == std::string::npos, why.c_str());
    }

    // `tgraph explain` end to end (tgraph hands it to tgraph-model): the table, --json, and bad input.
    // The real layout tuning record: its module is read with the graph, so the simulator's side is
    // there without --module, and "default" is the record's is_default run (run 0 there, docs/formats.md §5.1).
    void realTuningRecord()
    {
        const QString data = testutil::sharedDataDir();
        const std::string record = testutil::str(data + "/tpu_graphs/module_tuning_data_layout.pb");
        if (data.isEmpty() || !QFileInfo::exists(QString::fromStdString(record)))
            QSKIP("../shared/data/tpu_graphs/module_tuning_data_layout.pb is absent (set TGRAPH_SHARED_DIR)");
        std::vector<EnsembleMember> models;
        {
            TGraphModel m = randomModel(true, 32);
            LayoutGraph g = modeltest::smallSyntheticGraph(6, 4);
            models.push_back(memberOf(m, modeltest::fitNormalizer(g.nodeFeat)));
        }
        ExplainFileOptions options;
        options.explain.gradients = false;
        ConfigSelector fastest, byDefault;
        QVERIFY(parseConfigSelector("fastest", &fastest) && parseConfigSelector("default", &byDefault));
        std::string note;
        const Attribution a = explainFile(models, record, fastest, byDefault, options, &note);
        QCOMPARE(a.configs, int64_t(112));
        QCOMPARE(a.nodesBeforePruning, int64_t(3163));
        QCOMPARE(a.configB, int64_t(0)); // the is_default run, not an all -1 row (there is none)
        QCOMPARE(a.rankA, int64_t(1));
        QVERIFY(a.configA != a.configB);
        QVERIFY2(note.empty(), note.c_str());
        QCOMPARE(a.moduleSource, record);
        QVERIFY(std::isfinite(a.simulatedTotalA) && std::isfinite(a.simulatedTotalB));
        QVERIFY(a.differingNodes > 0 && a.differingNodes <= 62);
        QVERIFY(std::abs(a.shareSumB() - (a.scoreB - a.bias)) <= 1e-5 * std::max(std::abs(a.scoreB - a.bias), 1e-2));
        int64_t named = 0;
        for (const NodeAttribution& n : a.nodes)
            named += !n.name.empty();
        QCOMPARE(named, a.nodeCount()); // instruction names from the record's module
    }

    void commandLine()
    {
        if (m_weights.empty())
            QSKIP("needs the model of dominantNodeRanksFirst");
        const QString graph = QString::fromStdString(m_dominated.npz);
        const QString weights = QString::fromStdString(m_weights);
        // fp32 products, as the in-process cases above (`auto` would be bf16 on CPUs with bf16 units).
        const QStringList common { "explain", graph, "--weights", weights, "--threads", "1", "--precision", "fp32" };

        // The table's first row names the dominant node, in fp32 and in bf16 (docs/model.md §10.12:
        // explain's gradients go through the bf16 products too).
        for (const char* precision : { "fp32", "bf16" }) {
            QStringList args = common
                + QStringList { "--config", "fastest", "--vs", "slowest", "--module",
                      QString::fromStdString(m_dominated.hlo), "--top", "5" };
            args.replace(args.indexOf("--precision") + 1, precision);
            const testutil::ProcessResult r = testutil::run(tgraphExe(), args);
            QVERIFY2(r.exitCode == 0 && !r.crashed, r.err.constData());
            const QString text = QString::fromUtf8(r.out);
            QVERIFY2(text.contains("share A") && text.contains("effect") && text.contains("predicted fastest"),
                qPrintable(text));
            const QStringList lines = text.split('\n');
            qsizetype header = -1;
            for (qsizetype i = 0; i < lines.size(); ++i)
                if (lines[i].startsWith("rank"))
                    header = i;
            QVERIFY(header >= 0 && header + 1 < lines.size());
            QVERIFY2(lines[header + 1].contains(QString::fromStdString(m_dominated.dominantName)),
                qPrintable(QString(precision) + ": " + lines[header + 1]));
            QVERIFY(text.contains("simulator (module"));
        }

        testutil::ProcessResult r;

        r = testutil::run(tgraphExe(), common + QStringList { "--config", "slowest", "--vs", "default", "--json" });
        QVERIFY2(r.exitCode == 0 && !r.crashed, r.err.constData());
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(r.out, &error);
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        const QJsonObject o = doc.object();
        const QJsonObject a = o["config_a"].toObject();
        const QJsonObject b = o["config_b"].toObject();
        QCOMPARE(a["predicted_rank"].toInt(), o["configs"].toInt());
        QCOMPARE(b["index"].toInt(), 0); // the compiler default of a simulated graph is row 0
        for (const QJsonObject& c : { a, b })
            QVERIFY(std::abs(c["share_sum"].toDouble() + o["bias"].toDouble() - c["score"].toDouble())
                <= 1e-5 * std::max(1.0, std::abs(c["score"].toDouble())));
        const QJsonArray rows = o["rows"].toArray();
        QCOMPARE(rows.size(), qsizetype(20));
        QCOMPARE(rows[0].toObject()["rank"].toInt(), 1);
        QCOMPARE(rows[0].toObject()["layout_a"].toArray().size(), qsizetype(18));
        QVERIFY(o["simulator"].isNull()); // no --module, and the graph is not from tgraph synth

        // A config index beyond the file: exit 1, one line naming the file and the problem.
        r = testutil::run(tgraphExe(), common + QStringList { "--config", "100000", "--vs", "0" });
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY2(r.err.contains(graph.toUtf8()) && r.err.contains("out of range"), r.err.constData());
        QVERIFY(r.out.isEmpty());

        // Weights of a tile model: exit 1 naming the weights file.
        {
            ModelOptions tileOptions;
            tileOptions.hidden = 32;
            TileModel tile(tileOptions);
            const TileGraph kernel = modeltest::smallTileGraph(4);
            m_tileWeights = path("tile.npz");
            saveTileWeightsNpz(tile, modeltest::fitNormalizer(kernel.nodeFeat), m_tileWeights);
        }
        r = testutil::run(tgraphExe(),
            { "explain", graph, "--weights", QString::fromStdString(m_tileWeights), "--threads", "1", "--precision",
                "fp32" });
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY2(r.err.contains(QString::fromStdString(m_tileWeights).toUtf8()) && r.err.contains("tile-model"),
            r.err.constData());

        // Usage errors: exit 2.
        r = testutil::run(tgraphExe(), common + QStringList { "--vs", "fastestish" });
        QCOMPARE(r.exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestExplain)
#include "tst_explain.moc"
