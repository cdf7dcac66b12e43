// SPDX-License-Identifier: Apache-2.0
// Training (docs/model.md §4, §5): the hinge loss, the schedule, AdamW and clipping against
// LibTorch's own, the non-finite guard, checkpoints (round trip, refusals, exact resume), k-fold
// assignment against numpy, data loading filters, learning on simulated collections, and (report
// only, external) a 5-fold-over-configs run on the real tuning record.

#include "bench/realrecord.h"
#include "model/train/adamw.h"
#include "model/nn/fusedops.h"
#include "model/train/checkpoint.h"
#include "model/train/crossvalidation.h"
#include "model/infer/explainsimulator.h"
#include "model/train/pretrain.h"
#include "model/train/recipe.h"
#include "model/train/rankloss.h"
#include "model/runtime/torchruntime.h"
#include "model/train/trainer.h"
#include "model/train/trainoptions.h"
#include "model/nn/weights.h"

#include "core/graph/configs.h"
#include "core/graph/graphio.h"
#include "core/hlo/featurizer.h"
#include "core/hlo/hloproto.h"
#include "core/hlo/hlotextwriter.h"
#include "core/io/npz.h"
#include "core/metrics/metrics.h"
#include "core/sim/simulator.h"
#include "core/synth/simulatedlayouts.h"
#include "core/synth/synthcollection.h"
#include "core/train/graphcache.h"
#include "core/train/kfold.h"
#include "core/train/trainingevents.h"
#include "core/train/trainingset.h"
#include "core/util/error.h"
#include "core/util/json.h"
#include "modeltestutil.h"
#include "testutil.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <set>

using namespace tgraph;
using namespace tgraph::model;
using modeltest::rewriteNpz;

namespace {

namespace fs = std::filesystem;

// A simulated layout collection DIR/{train,valid}/*.npz (no test split): small modules so a step
// takes milliseconds. The unet family is left out (its 3-D variants make larger graphs).
SynthCollectionResult writeLayoutCollection(
    const std::string& dir, int graphs, int64_t configs, uint64_t seed, double validShare = 0.25)
{
    SynthCollectionSpec spec;
    spec.kind = GraphKind::Layout;
    spec.graphs = graphs;
    spec.configs = configs;
    spec.seed = seed;
    spec.families = { "mlp", "resnet", "transformer", "gnn" };
    spec.minInstructions = 100;
    spec.maxInstructions = 300;
    spec.validShare = validShare;
    spec.testShare = 0;
    return writeSynthCollection(spec, dir, nullptr);
}

TrainOptions smallOptions(int64_t steps)
{
    TrainOptions o;
    o.steps = steps;
    o.model.hidden = 64; // the architecture of docs/model.md §3 at a quarter of the width: fast enough for tests
    o.configsPerStep = 32;
    o.evalEvery = 0;
    o.logEvery = 1000;
    return o;
}

std::map<std::string, torch::Tensor> parameters(const torch::nn::Module& m)
{
    std::map<std::string, torch::Tensor> out;
    for (const auto& p : m.named_parameters())
        out[p.key()] = p.value().detach().clone();
    return out;
}

double maxDifference(const std::map<std::string, torch::Tensor>& a, const std::map<std::string, torch::Tensor>& b)
{
    double worst = 0;
    for (const auto& [name, t] : a)
        worst = std::max(worst, (t - b.at(name)).abs().max().item<double>());
    return worst;
}

template <class T> NpyArray rawArray(const std::vector<int64_t>& shape, const std::vector<T>& values)
{
    NdArray<T> a(shape);
    std::copy(values.begin(), values.end(), a.data());
    return NpyArray::from(a);
}

NpyArray textArray(const std::string& text)
{
    return rawArray<uint8_t>({ int64_t(text.size()) }, std::vector<uint8_t>(text.begin(), text.end()));
}

// Mean Kendall tau of uniformly random scores over the configs of `graphs`, and its standard
// deviation across `repeats` draws: what "no better than random ranking" looks like here.
std::pair<double, double> randomRankingTau(const TrainingData& data, const std::vector<size_t>& graphs, int repeats)
{
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> uniform;
    std::vector<double> means;
    for (int r = 0; r < repeats; ++r) {
        double sum = 0;
        for (size_t i : graphs) {
            const TrainingGraph& g = data.graphs[i];
            std::vector<double> runtimes, scores;
            for (int64_t c = 0; c < g.configCount(); ++c) {
                runtimes.push_back(double(g.runtimes()[c]));
                scores.push_back(uniform(rng));
            }
            sum += kendallTauB(runtimes, scores);
        }
        means.push_back(sum / double(graphs.size()));
    }
    const double mean = std::accumulate(means.begin(), means.end(), 0.0) / double(means.size());
    double var = 0;
    for (double m : means)
        var += (m - mean) * (m - mean);
    return { mean, std::sqrt(var / double(means.size() - 1)) };
}

// Records every event, for assertions.
class RecordingSink final : public TrainingSink
{
public:
    void stepMetrics(const StepMetrics& m) override { steps.push_back(m); }
    void evalMetrics(const EvalMetrics& m) override { evals.push_back(m); }
    void runEvent(const RunEvent& e) override { events.push_back(e); }
    std::vector<StepMetrics> steps;
    std::vector<EvalMetrics> evals;
    std::vector<RunEvent> events;
};

std::shared_ptr<const HloModule> regenerateModuleForTest(const LayoutGraph& graph, std::string* why)
{
    // The synth graph's module as moduleOfGraphFile finds it (regenerated from meta_synthetic).
    std::string source;
    return moduleOfGraphFile(graph, "/nonexistent/g.npz", &source, why);
}

} // namespace

class TestTraining : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::string m_collection; // 8 train + 3 valid graphs, 48 configs each
    std::string path(const std::string& name) const
    {
        return testutil::str(m_dir.filePath(QString::fromStdString(name)));
    }
    TrainingData loadCollection() const { return loadTrainingData(listDataFiles({ m_collection })); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // One thread: ctest runs two tests at once on this 2-core machine, and oversubscribed OpenMP
        // threads spin-wait (a 9 s test took over 300 s with 2 threads each).
        initTorchRuntime(1);
        m_collection = path("collection");
        const SynthCollectionResult r = writeLayoutCollection(m_collection, 11, 48, 21, 0.25);
        QVERIFY(r.train >= 6 && r.valid >= 2);
    }

    // docs/model.md §4.1 by hand: scores s = (0.5, 2.0, -1.0), runtimes r = (30, 10, 20). Pairs with
    // r_i > r_j: (0,1): 1 - (0.5 - 2) = 2.5; (0,2): 1 - (0.5 + 1) < 0 -> 0; (2,1): 1 - (-1 - 2) = 4.
    // L = 6.5 / 9. Gradient: dL/ds_0 = -(1 + 1[(0,2) active: no]) / 9 = -1/9; ds_1 = +2/9; ds_2 = -1/9.
    void hingeLossByHand()
    {
        auto s = torch::tensor({ 0.5f, 2.0f, -1.0f }, torch::requires_grad());
        const auto loss = pairwiseHingeLoss(s, slowerMask({ 30, 10, 20 }));
        QVERIFY(std::abs(loss.item<double>() - 6.5 / 9.0) < 1e-6);
        loss.backward();
        const auto g = s.grad();
        QVERIFY(std::abs(g[0].item<double>() + 1.0 / 9) < 1e-6);
        QVERIFY(std::abs(g[1].item<double>() - 2.0 / 9) < 1e-6);
        QVERIFY(std::abs(g[2].item<double>() + 1.0 / 9) < 1e-6);
        // Ties contribute nothing; margin satisfied -> 0.
        QCOMPARE(pairwiseHingeLoss(torch::tensor({ 0.0f, 5.0f }), slowerMask({ 10, 10 })).item<double>(), 0.0);
        QCOMPARE(pairwiseHingeLoss(torch::tensor({ 3.0f, 1.0f }), slowerMask({ 20, 10 })).item<double>(), 0.0);
        // Raw integer ordering: 1 ns apart at 1 s is still ordered (float32 would merge them).
        QCOMPARE(float(1000000001), float(1000000000));
        const auto m = slowerMask({ 1000000001, 1000000000 });
        QCOMPARE(m[0][1].item<float>(), 1.0f);
        QCOMPARE(m[1][0].item<float>(), 0.0f);
        // Tile: runtime / normalizer = 10 and 5, so config 0 is slower although its runtime is lower.
        const auto t = slowerMask({ 100, 200 }, { 10, 40 });
        QCOMPARE(t[0][1].item<float>(), 1.0f);
        QCOMPARE(t[1][0].item<float>(), 0.0f);
        QCOMPARE(slowerMask({ 100, 200 }, { 10, 20 }).sum().item<float>(), 0.0f); // equal ratios: a tie
    }

    // HF cosine-with-warm-up, values written out by hand.
    void scheduleAtKeySteps()
    {
        TrainOptions o;
        o.steps = 200;
        QCOMPARE(totalSteps(o, 7), int64_t(200));
        QCOMPARE(warmupSteps(o, 200), int64_t(10)); // ceil(0.05 * 200)
        QCOMPARE(warmupSteps(o, 101), int64_t(6)); // ceil(5.05)
        QCOMPARE(warmupSteps(o, 19), int64_t(1)); // ceil(0.95)
        o.steps = 0;
        o.epochs = 2.5;
        QCOMPARE(totalSteps(o, 7), int64_t(18)); // ceil(17.5)
        const double lr = 1e-3;
        QCOMPARE(learningRateAt(0, 200, 10, lr), 0.0); // the first step runs at 0, as HF's LambdaLR
        QVERIFY(std::abs(learningRateAt(1, 200, 10, lr) - 1e-4) < 1e-15);
        QVERIFY(std::abs(learningRateAt(5, 200, 10, lr) - 5e-4) < 1e-15);
        QVERIFY(std::abs(learningRateAt(10, 200, 10, lr) - 1e-3) < 1e-15); // peak
        QVERIFY(std::abs(learningRateAt(105, 200, 10, lr) - 5e-4) < 1e-12); // half-way through the cosine
        QVERIFY(std::abs(learningRateAt(200 - 1, 200, 10, lr) - lr * 0.5 * (1 + std::cos(M_PI * 189 / 190))) < 1e-15);
        QCOMPARE(learningRateAt(200, 200, 10, lr), 0.0);
        QCOMPARE(learningRateAt(3, 5, 0, lr) > 0, true); // no warm-up: starts at the peak
        QCOMPARE(learningRateAt(0, 5, 0, lr), lr);
    }

    // Our AdamW against torch::optim::AdamW (same algorithm as PyTorch's), several steps.
    void adamwMatchesLibTorch()
    {
        torch::manual_seed(3);
        auto w1 = torch::randn({ 4, 3 }, torch::requires_grad());
        auto b1 = torch::randn({ 4 }, torch::requires_grad());
        auto w2 = w1.detach().clone().requires_grad_(true);
        auto b2 = b1.detach().clone().requires_grad_(true);
        AdamW ours({ { "w.weight", w1 }, { "w.bias", b1 } }, AdamWOptions { 0.9, 0.999, 1e-8, 0.05 },
            [](const std::string&) { return true; });
        torch::optim::AdamW theirs(
            std::vector<torch::Tensor> { w2, b2 }, torch::optim::AdamWOptions(0.01).weight_decay(0.05));
        const auto x = torch::randn({ 5, 3 });
        for (int step = 0; step < 5; ++step) {
            const auto l1 = (torch::mm(x, w1.t()) + b1).pow(2).sum();
            l1.backward();
            ours.step(0.01);
            ours.zeroGrad();
            const auto l2 = (torch::mm(x, w2.t()) + b2).pow(2).sum();
            l2.backward();
            theirs.step();
            theirs.zero_grad();
            QVERIFY2((w1 - w2).abs().max().item<double>() < 1e-6, qPrintable(QString::number(step)));
            QVERIFY((b1 - b2).abs().max().item<double>() < 1e-6);
        }
        QCOMPARE(ours.stepCount(), int64_t(5));
        // Paper mode: no decay on biases. With a zero gradient the update is 0, so only decay moves a value.
        auto w = torch::ones({ 2 }, torch::requires_grad());
        auto b = torch::ones({ 2 }, torch::requires_grad());
        AdamW paper({ { "l.weight", w }, { "l.bias", b } }, AdamWOptions { 0.9, 0.999, 1e-8, 0.1 },
            [](const std::string& name) { return name.find(".bias") == std::string::npos; });
        (w.sum() * 0 + b.sum() * 0).backward();
        paper.step(0.5);
        QVERIFY(std::abs(w[0].item<double>() - 0.95) < 1e-7); // 1 - lr * wd
        QCOMPARE(b[0].item<float>(), 1.0f);
    }

    void gradientClipping()
    {
        auto a = torch::zeros({ 2 }, torch::requires_grad());
        auto b = torch::zeros({ 1 }, torch::requires_grad());
        (a * torch::tensor({ 3.0f, 4.0f })).sum().add((b * 12).sum()).backward(); // grads (3, 4), (12): norm 13
        const double norm = clipGradNorm({ a, b }, 1.0);
        QVERIFY(std::abs(norm - 13.0) < 1e-5);
        const double after = std::sqrt(a.grad().pow(2).sum().item<double>() + b.grad().pow(2).sum().item<double>());
        QVERIFY(std::abs(after - 1.0) < 1e-5);
        QVERIFY(std::abs(a.grad()[0].item<double>() / a.grad()[1].item<double>() - 0.75) < 1e-6); // direction kept
        // Below the limit: untouched.
        const auto before = a.grad().clone();
        QVERIFY(std::abs(clipGradNorm({ a, b }, 5.0) - 1.0) < 1e-5);
        QVERIFY(torch::equal(before, a.grad()));
        // Non-finite: reported, nothing scaled.
        b.grad().fill_(std::numeric_limits<float>::quiet_NaN());
        QVERIFY(std::isnan(clipGradNorm({ a, b }, 1.0)));
        QVERIFY(torch::equal(before, a.grad()));
    }

    void samplingAndChunks()
    {
        std::mt19937_64 rng(5);
        for (int trial = 0; trial < 50; ++trial) {
            const auto rows = sampleWithoutReplacement(100, 64, rng);
            QCOMPARE(rows.size(), size_t(64));
            QCOMPARE(std::set<int64_t>(rows.begin(), rows.end()).size(), size_t(64));
            QVERIFY(*std::min_element(rows.begin(), rows.end()) >= 0);
            QVERIFY(*std::max_element(rows.begin(), rows.end()) < 100);
        }
        QCOMPARE(sampleWithoutReplacement(40, 64, rng), allRows(40)); // fewer configs than K: all of them
        // Roughly uniform: each of 10 items drawn ~ 5/10 of 4000 trials.
        std::vector<int> hits(10, 0);
        for (int trial = 0; trial < 4000; ++trial)
            for (int64_t r : sampleWithoutReplacement(10, 5, rng))
                ++hits[size_t(r)];
        for (int h : hits)
            QVERIFY2(h > 1800 && h < 2200, qPrintable(QString::number(h)));
        // numpy.array_split(range(300), 3) -> 100, 100, 100; (range(257), 3) -> 86, 86, 85.
        QCOMPARE(arraySplitChunks(257, 128),
            (std::vector<std::pair<int64_t, int64_t>> { { 0, 86 }, { 86, 172 }, { 172, 257 } }));
        QCOMPARE(arraySplitChunks(128, 128), (std::vector<std::pair<int64_t, int64_t>> { { 0, 128 } }));
        QCOMPARE(arraySplitChunks(5, 2), (std::vector<std::pair<int64_t, int64_t>> { { 0, 2 }, { 2, 4 }, { 4, 5 } }));
    }

    // Every graph in exactly one fold; fold sizes as sklearn; the permutation is numpy's.
    void kfoldAssignmentMatchesNumpy()
    {
        for (const auto& [n, folds] : { std::pair { 23, 5 }, std::pair { 20, 20 }, std::pair { 84, 20 } }) {
            const std::vector<int> a = kfoldAssignment(n, folds, 123);
            std::vector<int> sizes(size_t(folds), 0);
            for (int f : a) {
                QVERIFY(f >= 0 && f < folds);
                ++sizes[size_t(f)];
            }
            for (int f = 0; f < folds; ++f)
                QCOMPARE(sizes[size_t(f)], n / folds + (f < n % folds ? 1 : 0));
            QCOMPARE(kfoldAssignment(n, folds, 123), a); // deterministic
            QVERIFY(kfoldAssignment(n, folds, 124) != a || folds == n);
        }
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, kfoldAssignment(12, 20, 123));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, kfoldAssignment(12, 1, 123));

        // Best-K selection: highest first, ties by index, NaN (no defined tau) last.
        const double nan = std::numeric_limits<double>::quiet_NaN();
        QCOMPARE(selectBest({ 0.3, nan, 0.5, 0.5, 0.1 }, 4), (std::vector<int> { 2, 3, 0, 4 }));
        QCOMPARE(selectBest({ 0.3, nan, 0.5 }, 5), (std::vector<int> { 2, 0, 1 }));

        QString why;
        if (!testutil::havePythonModules({ "numpy" }, &why))
            QSKIP(qPrintable(why));
        const auto r = testutil::run(testutil::python(),
            { "-c",
                "import numpy as np\n"
                "for n, seed in ((23, 123), (84, 123), (300, 7), (1, 5)):\n"
                "    print(' '.join(map(str, np.random.RandomState(seed).permutation(n))))\n" });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QList<QByteArray> lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 4);
        const std::pair<int64_t, uint32_t> cases[] = { { 23, 123 }, { 84, 123 }, { 300, 7 }, { 1, 5 } };
        for (int k = 0; k < 4; ++k) {
            QStringList expected;
            for (int64_t v : numpyPermutation(cases[k].first, cases[k].second))
                expected << QString::number(v);
            QCOMPARE(QString::fromLatin1(lines[k]), expected.join(' '));
        }
    }

    void foldSetsAreGraphLevel()
    {
        const TrainingData data = loadCollection();
        const size_t n = data.graphs.size();
        const auto sets = foldValidationSets(data, 5, 123);
        QCOMPARE(sets.size(), size_t(5));
        std::vector<int> seen(n, 0);
        for (const auto& s : sets)
            for (size_t i : s)
                ++seen[i];
        for (int c : seen)
            QCOMPARE(c, 1); // every graph (train and valid files alike) held out exactly once
        QCOMPARE(foldValidationSets(data, 5, 123), sets);
        // Independent of the listing order: the folds follow sorted file names.
        TrainingData reversed = data;
        std::reverse(reversed.graphs.begin(), reversed.graphs.end());
        const auto again = foldValidationSets(reversed, 5, 123);
        for (size_t f = 0; f < sets.size(); ++f) {
            std::set<std::string> a, b;
            for (size_t i : sets[f])
                a.insert(data.graphs[i].name);
            for (size_t i : again[f])
                b.insert(reversed.graphs[i].name);
            QCOMPARE(a, b);
        }
        try {
            foldValidationSets(data, int(n) + 1, 123);
            QFAIL("more folds than graphs accepted");
        } catch (const InputError& e) {
            QVERIFY(QString(e.what()).contains("--folds"));
        }
    }

    // docs/model.md §2: prune, de-duplicate train files only, compress; filters for unrankable files.
    void loadingPipeline()
    {
        const TrainingData data = loadCollection();
        QVERIFY(!data.indicesOf(DataSplit::Train).empty());
        QVERIFY(!data.indicesOf(DataSplit::Valid).empty());
        for (const TrainingGraph& g : data.graphs) {
            const LayoutGraph original = loadLayoutGraph(g.path);
            QVERIFY(g.nodeCount() < original.nodeCount()); // pruned
            QCOMPARE(g.configs.dim(0), g.configCount());
            QCOMPARE(g.configs.dim(2), int64_t(3)); // base-7 compressed
            QVERIFY(g.layout.nodeConfigFeat.empty());
            QCOMPARE(decompressConfigs(g.configs).dim(1), original.configurableCount());
        }
        // A train file with duplicated configs loses them (keep-first); the same file under valid/ keeps them.
        const std::string dir = path("dups");
        fs::create_directories(dir + "/train");
        fs::create_directories(dir + "/valid");
        LayoutGraph g = loadLayoutGraph(data.graphs.front().path);
        const int64_t c = g.configCount();
        NdArray<float> feat({ c + 2, g.configurableCount(), kLayoutConfigFeatures });
        NdArray<int64_t> runtime({ c + 2 });
        for (int64_t i = 0; i < c + 2; ++i) {
            std::copy_n(g.nodeConfigFeat.row(i < c ? i : i - c), g.nodeConfigFeat.rowSize(), feat.row(i));
            runtime[i] = i < c ? g.configRuntime[i] : g.configRuntime[i - c] + 3;
        }
        g.nodeConfigFeat = feat;
        g.configRuntime = runtime;
        saveLayoutGraph(g, dir + "/train/a.npz");
        saveLayoutGraph(g, dir + "/valid/b.npz");
        const TrainingData d = loadTrainingData(listDataFiles({ dir }));
        QCOMPARE(d.graphs.size(), size_t(2));
        QCOMPARE(d.graphs[0].configCount(), c);
        QCOMPARE(d.graphs[0].duplicatesRemoved, int64_t(2));
        QCOMPARE(d.graphs[1].configCount(), c + 2);
        // Unrankable files: skipped inside a directory, an error when named.
        LayoutGraph one = loadLayoutGraph(data.graphs.front().path);
        one.nodeConfigFeat = NdArray<float>({ 1, one.configurableCount(), kLayoutConfigFeatures }, -1.0f);
        one.configRuntime = NdArray<int64_t>({ 1 }, 100);
        saveLayoutGraph(one, dir + "/train/single.npz");
        const TrainingData skipped = loadTrainingData(listDataFiles({ dir }));
        QCOMPARE(skipped.graphs.size(), size_t(2));
        QCOMPARE(skipped.skipped.size(), size_t(1));
        QVERIFY(QString::fromStdString(skipped.skipped[0]).contains("single.npz"));
        testutil::expectInputError([&] { loadTrainingData(listDataFiles({ dir + "/train/single.npz" })); },
            { "single.npz", "config_runtime", "1 configuration" });
        testutil::expectInputError([&] { listDataFiles({ path("no-such-dir") }); }, { "no-such-dir", "no such" });
        fs::create_directories(path("empty"));
        testutil::expectInputError([&] { listDataFiles({ path("empty") }); }, { "empty", "no .npz files" });
        testutil::expectInputError([&] { listDataFiles({ dir, dir + "/train/a.npz" }); }, { "a.npz", "listed twice" });
    }

    // docs/model.md §2.4: a lazily read collection (at most 1 or 2 prepared graphs in memory) trains
    // exactly as the same collection held in memory: same losses at every step, same validation
    // metrics, same weights, with graphs read again and again from their files.
    void lazyLoadingTrainsAsEager()
    {
        const TrainingData eager = loadCollection();
        const std::vector<size_t> train = eager.indicesOf(DataSplit::Train);
        const std::vector<size_t> valid = eager.indicesOf(DataSplit::Valid);
        for (const int64_t resident : { int64_t(1), int64_t(2) }) {
            for (const int64_t graphsPerStep : { int64_t(1), int64_t(2) }) {
                TrainingDataOptions lazyOptions;
                lazyOptions.residentGraphs = resident;
                const TrainingData lazy = loadTrainingData(listDataFiles({ m_collection }), lazyOptions);
                QVERIFY(lazy.cache);
                QCOMPARE(lazy.graphs.size(), eager.graphs.size());
                for (size_t i = 0; i < lazy.graphs.size(); ++i) {
                    const TrainingGraph& l = lazy.graphs[i];
                    QVERIFY(!l.resident);
                    QVERIFY(l.configs.empty() && l.layout.nodeFeat.empty()); // only counts and runtimes held
                    QCOMPARE(l.nodeCount(), eager.graphs[i].nodeCount());
                    QCOMPARE(l.configCount(), eager.graphs[i].configCount());
                }
                TrainOptions o = smallOptions(2 * int64_t(train.size()));
                o.graphsPerStep = graphsPerStep;
                o.evalEvery = int64_t(train.size());
                // One trainer after the other: dropout draws from torch's global generator.
                Trainer a(eager, train, valid, o);
                std::vector<StepOutcome> stepsA;
                for (int64_t s = 0; s < o.steps; ++s)
                    stepsA.push_back(a.step());
                const EvalMetrics ea = a.evaluate();
                Trainer b(lazy, train, valid, o);
                for (int c = 0; c < Normalizer::kColumns; ++c) {
                    QCOMPARE(b.normalizer().mean()[size_t(c)], a.normalizer().mean()[size_t(c)]);
                    QCOMPARE(b.normalizer().stddev()[size_t(c)], a.normalizer().stddev()[size_t(c)]);
                }
                for (int64_t s = 0; s < o.steps; ++s) {
                    const StepOutcome& x = stepsA[size_t(s)];
                    const StepOutcome y = b.step();
                    QCOMPARE(y.graph, x.graph);
                    QCOMPARE(y.configs, x.configs);
                    QCOMPARE(y.nodes, x.nodes);
                    QCOMPARE(y.loss, x.loss); // bit for bit
                    QCOMPARE(y.gradNorm, x.gradNorm);
                }
                const EvalMetrics eb = b.evaluate();
                QCOMPARE(eb.graphs.size(), ea.graphs.size());
                for (size_t i = 0; i < ea.graphs.size(); ++i)
                    QCOMPARE(eb.graphs[i].kendallTau, ea.graphs[i].kendallTau);
                QCOMPARE(maxDifference(parameters(b.module()), parameters(a.module())), 0.0);
                // The graphs really were read again: more reads than graphs, as the cache holds fewer.
                QVERIFY(lazy.cache->reads() > int64_t(lazy.graphs.size()));
                const auto full = lazy.acquire(train.front());
                QVERIFY(full->resident);
                const NdArray<int32_t>& want = eager.graphs[train.front()].configs;
                QCOMPARE(full->configs.shape(), want.shape());
                QVERIFY(std::equal(want.data(), want.data() + want.size(), full->configs.data()));
            }
        }
    }

    // A lazily read file replaced after loading is refused when it is read again, naming it.
    void lazyLoadingRefusesChangedFiles()
    {
        const TrainingData eager = loadCollection();
        const std::string dir = path("lazy-changed");
        fs::create_directories(dir);
        const std::string a = dir + "/a.npz";
        const std::string b = dir + "/b.npz";
        fs::copy_file(eager.graphs[0].path, a);
        fs::copy_file(eager.graphs[1].path, b);
        TrainingDataOptions lazyOptions;
        lazyOptions.residentGraphs = 1;
        const TrainingData lazy = loadTrainingData(listDataFiles({ dir }), lazyOptions);
        QVERIFY(lazy.acquire(0)->configCount() == lazy.graphs[0].configCount());
        LayoutGraph g = loadLayoutGraph(a);
        g.configRuntime[0] += 1;
        saveLayoutGraph(g, a);
        lazy.acquire(1); // evicts a
        testutil::expectInputError([&] { lazy.acquire(0); }, { "a.npz", "changed since it was loaded" });
    }

    void checkpointRoundTrip()
    {
        const TrainingData data = loadCollection();
        TrainOptions o = smallOptions(6);
        o.seed = 9;
        Trainer t(data, data.indicesOf(DataSplit::Train), data.indicesOf(DataSplit::Valid), o);
        t.run(4);
        const std::string file = path("roundtrip.npz");
        t.saveCheckpoint(file);
        QVERIFY(isCheckpoint(file));
        QCOMPARE(weightsKind(file), GraphKind::Layout);
        const Checkpoint now = t.checkpoint(); // before loading: building a model draws from the generator
        const Checkpoint c = loadCheckpoint(file);
        QCOMPARE(maxDifference(parameters(c.module()), parameters(t.module())), 0.0);
        QCOMPARE(c.counters.step, int64_t(4));
        QCOMPARE(c.optimizerStep, int64_t(4));
        QCOMPARE(c.totalSteps, int64_t(6));
        QCOMPARE(c.warmupSteps, int64_t(1));
        QCOMPARE(toJson(c.options), toJson(t.options()));
        QVERIFY(std::isnan(c.counters.bestTau));
        QVERIFY(torch::equal(c.torchRng, now.torchRng));
        QCOMPARE(c.samplerRng, now.samplerRng);
        for (const auto& [name, m] : now.moments) {
            QVERIFY(torch::equal(c.moments.at(name).expAvg, m.expAvg));
            QVERIFY(torch::equal(c.moments.at(name).expAvgSq, m.expAvgSq));
            // Moments were really updated -- except the head's bias: a pairwise loss sees only score
            // differences, so its gradient is exactly zero.
            if (name != "classifier.bias")
                QVERIFY2(m.expAvgSq.abs().sum().item<double>() > 0, name.c_str());
        }
        QCOMPARE(c.dataFiles.size(), data.graphs.size());
        QCOMPARE(c.normalizer.mean(), t.normalizer().mean());
        // A checkpoint is a weights file: the weights loader reads it and scores as the trainer does.
        const LayoutWeights w = loadWeightsNpz(file);
        QCOMPARE(maxDifference(parameters(*w.model), parameters(t.module())), 0.0);
        // numpy sees the documented keys.
        QString why;
        if (!testutil::havePythonModules({ "numpy" }, &why))
            QSKIP(qPrintable(why));
        const auto r = testutil::run(testutil::python(),
            { "-c",
                "import numpy as np, json, sys\n"
                "d = np.load(sys.argv[1])\n"
                "assert int(d['checkpoint.version']) == 1 and d['checkpoint.version'].dtype == np.int64\n"
                "assert int(d['train.step']) == 4 and int(d['optimizer.step']) == 4\n"
                "h = json.loads(bytes(d['train.hparams']))\n"
                "assert h['steps'] == 6 and h['seed'] == 9 and h['model']['hidden'] == 64, h\n"
                "assert d['optimizer.exp_avg.classifier.weight'].shape == d['classifier.weight'].shape\n"
                "files = json.loads(bytes(d['train.data_files']))\n"
                "assert all(f['split'] in ('train', 'valid') for f in files)\n"
                "print(len(d.files))\n",
                QString::fromStdString(file) });
        QVERIFY2(r.exitCode == 0, r.err.constData());
    }

    void checkpointRefusals()
    {
        const TrainingData data = loadCollection();
        Trainer t(data, data.indicesOf(DataSplit::Train), {}, smallOptions(3));
        t.run(2);
        const std::string good = path("good.npz");
        t.saveCheckpoint(good);
        const std::string bad = path("bad.npz");
        auto refused = [&](const std::set<std::string>& drop, const std::map<std::string, NpyArray>& put,
                           const QStringList& parts) {
            rewriteNpz(good, bad, drop, put);
            testutil::expectInputError([&] { loadCheckpoint(bad); }, QStringList { "bad.npz" } + parts);
        };
        refused({ "optimizer.exp_avg.classifier.bias" }, {}, { "optimizer.exp_avg.classifier.bias", "missing" });
        refused({}, { { "train.bogus", rawArray<int64_t>({}, { 1 }) } }, { "train.bogus", "unexpected key" });
        refused({}, { { "bogus.weight", rawArray<float>({ 1 }, { 1 }) } }, { "bogus.weight", "unexpected key" });
        refused({}, { { "optimizer.exp_avg.classifier.bias", rawArray<float>({ 2 }, { 0, 0 }) } },
            { "optimizer.exp_avg.classifier.bias", "shape" });
        refused({}, { { "optimizer.exp_avg_sq.classifier.bias", rawArray<float>({ 1 }, { -1 }) } },
            { "optimizer.exp_avg_sq.classifier.bias", ">= 0" });
        refused({}, { { "checkpoint.version", rawArray<int64_t>({}, { 7 }) } }, { "checkpoint.version", "version 7" });
        refused({}, { { "train.hparams", textArray("{\"model\": 3") } }, { "train.hparams", "JSON" });
        refused({}, { { "train.step", rawArray<int64_t>({}, { 99 }) } }, { "train.step", "beyond" });
        refused({}, { { "rng.torch", rawArray<uint8_t>({ 3 }, { 1, 2, 3 }) } }, { "rng.torch", "bytes" });
        refused({ "checkpoint.version" }, {}, { "checkpoint.version", "weights file" });
        testutil::expectInputError(
            [&] { loadWeightsNpz(bad); }, { "bad.npz", "unexpected key" }); // no longer a checkpoint
        // The model part is checked by the weights loader: a mis-shaped parameter is named.
        refused({}, { { "classifier.bias", rawArray<float>({ 2 }, { 0, 0 }) } }, { "classifier.bias", "shape" });
        // A plain weights file is not a checkpoint, and refuses training keys.
        const std::string weights = path("plain-weights.npz");
        saveWeightsNpz(t.layoutModel(), t.normalizer(), weights);
        testutil::expectInputError([&] { loadCheckpoint(weights); }, { "plain-weights.npz", "checkpoint.version" });
        rewriteNpz(weights, bad, {}, { { "optimizer.step", rawArray<int64_t>({}, { 0 }) } });
        testutil::expectInputError([&] { loadWeightsNpz(bad); }, { "bad.npz", "optimizer.step", "unexpected" });
        // Truncated and corrupted files.
        const QByteArray bytes = testutil::readAll(QString::fromStdString(good));
        testutil::writeAll(QString::fromStdString(bad), bytes.left(bytes.size() / 2));
        testutil::expectInputError([&] { loadCheckpoint(bad); }, { "bad.npz" });
        QByteArray flipped = bytes;
        for (int k = 0; k < 64; ++k)
            flipped[bytes.size() / 3 + k] = char(flipped[bytes.size() / 3 + k] ^ 0x5a);
        testutil::writeAll(QString::fromStdString(bad), flipped);
        testutil::expectInputError([&] { loadCheckpoint(bad); }, { "bad.npz" });
        // A failed save leaves nothing behind.
        const std::string blocked = path("not-a-dir");
        testutil::writeAll(QString::fromStdString(blocked), "x");
        try {
            t.saveCheckpoint(blocked + "/c.npz");
            QFAIL("saved under a regular file");
        } catch (const InputError&) { }
        QVERIFY(!fs::exists(blocked + "/c.npz"));
    }

    // N steps, checkpoint file, resume, M steps == N + M steps in one go (dropout, sampling,
    // graph order and AdamW state included), in deterministic mode.
    void resumeContinuesExactly()
    {
        const TrainingData data = loadCollection();
        const auto train = data.indicesOf(DataSplit::Train);
        const auto valid = data.indicesOf(DataSplit::Valid);
        TrainOptions o = smallOptions(14); // > one epoch, warm-up and cosine both crossed
        o.deterministic = true;
        o.seed = 5;
        Trainer once(data, train, valid, o);
        once.run();
        Trainer first(data, train, valid, o);
        first.run(6);
        const std::string file = path("resume.npz");
        first.saveCheckpoint(file);
        torch::manual_seed(12345); // a resumed process starts with other generator states
        const Checkpoint c = loadCheckpoint(file);
        Trainer resumed(data, train, valid, c.options, &c);
        QCOMPARE(resumed.stepsDone(), int64_t(6));
        const TrainResult r = resumed.run();
        QVERIFY(r.finished);
        QCOMPARE(r.steps, int64_t(14));
        const double diff = maxDifference(parameters(resumed.module()), parameters(once.module()));
        QVERIFY2(diff <= 1e-6, qPrintable(QString::number(diff)));
        qInfo("resume: max parameter difference after 6 + 8 vs 14 steps: %g", diff);
        // ... and it is not trivially equal: the run changed the weights.
        Trainer fresh(data, train, valid, o);
        QVERIFY(maxDifference(parameters(fresh.module()), parameters(once.module())) > 1e-4);
        const auto a = resumed.checkpoint().moments;
        const auto b = once.checkpoint().moments;
        for (const auto& [name, m] : a)
            QVERIFY((m.expAvgSq - b.at(name).expAvgSq).abs().max().item<double>() <= 1e-9);
    }

    // Config chunks (docs/model.md §11): without cross-attention and with dropout on, a step done in
    // chunks of configs (scores without gradients, dLoss/dscores, then forward and backward chunk
    // by chunk) has the loss and every parameter gradient of the whole step, for chunks of 1, 3
    // (sizes 3 and 2) and 15 of 16 configs; a chunk of all configs is no chunking; a few steps'
    // trajectories match, with one and with two graphs per step. Dropout matters here (the loss
    // differs without it), so chunks drawing other masks than the whole step would fail.
    void configChunksGiveTheWholeStepsGradients()
    {
        const TrainingData data = loadCollection();
        const auto train = data.indicesOf(DataSplit::Train);
        const size_t graph = train[0];
        QVERIFY(data.graphs[graph].configCount() >= 20);
        const std::vector<int64_t> rows { 19, 3, 0, 7, 12, 1, 5, 18, 9, 2, 14, 6, 11, 4, 16, 8 };
        const int64_t configs = int64_t(rows.size());
        TrainOptions o = smallOptions(5);
        o.model.useCrossAttn = false;
        o.model.dropout = 0.3;
        o.configsPerStep = configs;
        auto lossAndGradients = [&](int64_t chunk, double dropout) {
            TrainOptions oc = o;
            oc.configChunk = chunk;
            oc.model.dropout = dropout;
            Trainer t(data, train, {}, oc);
            t.module().train();
            torch::manual_seed(77);
            const double loss = t.lossAndGradients(graph, rows);
            std::map<std::string, torch::Tensor> grads;
            for (const auto& p : t.module().named_parameters())
                grads[p.key()] = p.value().grad().defined() ? p.value().grad().clone() : torch::zeros_like(p.value());
            return std::make_tuple(loss, grads, t.configChunkFor(data.graphs[graph].nodeCount(), configs));
        };
        const auto [wholeLoss, wholeGrads, wholeChunk] = lossAndGradients(kConfigChunkOff, 0.3);
        QCOMPARE(wholeChunk, int64_t(0));
        QVERIFY(std::isfinite(wholeLoss) && wholeLoss > 0);
        // Gradients below 1e-6 of the largest are rounding noise around an exact zero: the f_in
        // Linears' biases, which the instance norm cancels.
        double largestGradient = 0;
        for (const auto& [name, grad] : wholeGrads)
            largestGradient = std::max(largestGradient, grad.abs().max().item<double>());
        const auto [plainLoss, plainGrads, plainChunk] = lossAndGradients(kConfigChunkOff, 0.0);
        QVERIFY2(std::abs(plainLoss - wholeLoss) > 1e-3 * wholeLoss, "dropout does not change the loss");
        for (const int64_t chunk : { int64_t(1), int64_t(3), int64_t(15), configs }) {
            const auto [loss, grads, used] = lossAndGradients(chunk, 0.3);
            QCOMPARE(used, chunk < configs ? chunk : int64_t(0));
            const QString label = QStringLiteral("chunks of %1").arg(chunk);
            QVERIFY2(std::abs(loss - wholeLoss) <= 1e-5 * wholeLoss,
                qPrintable(label + QStringLiteral(": loss %1 vs %2").arg(loss).arg(wholeLoss)));
            double worst = 0;
            for (const auto& [name, grad] : wholeGrads) {
                // Zero in exact arithmetic (below 1e-6 of the largest): may differ by 1e-6 of the largest.
                const double own = grad.abs().max().item<double>();
                const double scale = own < 1e-6 * largestGradient ? 0.1 * largestGradient : own;
                const double e = (grads.at(name) - grad).abs().max().item<double>() / scale;
                worst = std::max(worst, e);
                QVERIFY2(e <= 1e-5, qPrintable(label + ": " + QString::fromStdString(name) + " off by " + QString::number(e)));
            }
            qInfo("config chunks of %lld: loss %.9g (whole %.9g), worst relative gradient difference %.3g",
                (long long)chunk, loss, wholeLoss, worst);
        }

        // Trajectories: 5 steps (the first at learning rate 0), chunks of 3 against none.
        for (const int64_t graphsPerStep : { int64_t(1), int64_t(2) }) {
            auto run = [&](int64_t chunk, bool train_) {
                TrainOptions oc = o;
                oc.configChunk = chunk;
                oc.graphsPerStep = graphsPerStep;
                oc.logEvery = 1;
                Trainer t(data, train, {}, oc);
                RecordingSink sink;
                t.setSink(&sink);
                if (train_)
                    t.run();
                std::vector<double> losses;
                for (const StepMetrics& m : sink.steps)
                    losses.push_back(m.loss);
                std::vector<double> scores;
                for (const size_t i : { train[0], train[1] })
                    for (const double v : t.scoreAllConfigs(i))
                        scores.push_back(v);
                return std::make_tuple(losses, scores, parameters(t.module()));
            };
            const auto [wholeLosses, wholeScores, wholeParameters] = run(kConfigChunkOff, true);
            const auto [losses, scores, chunkedParameters] = run(3, true);
            const auto [noLosses, initialScores, initialParameters] = run(kConfigChunkOff, false);
            QCOMPARE(losses.size(), size_t(5));
            for (size_t k = 0; k < losses.size(); ++k)
                QVERIFY2(std::abs(losses[k] - wholeLosses[k]) <= 1e-5 * std::abs(wholeLosses[k]),
                    qPrintable(QStringLiteral("step %1: %2 vs %3").arg(k).arg(losses[k]).arg(wholeLosses[k])));
            // The trained models score alike: a few 1e-5 of the scores apart, against the change the
            // 5 steps made. (Gradients that are rounding noise around zero, such as those the
            // instance norm cancels, become learning-rate-sized AdamW steps that differ between the
            // runs; they barely change a score.)
            QVERIFY(maxDifference(chunkedParameters, wholeParameters) > 0); // two runs, not one
            double scale = 0, diff = 0, moved = 0;
            for (size_t k = 0; k < scores.size(); ++k) {
                scale = std::max(scale, std::abs(wholeScores[k]));
                diff = std::max(diff, std::abs(scores[k] - wholeScores[k]));
                moved = std::max(moved, std::abs(initialScores[k] - wholeScores[k]));
            }
            qInfo("config chunks, %lld graph(s) per step: after 5 steps, scores of %zu configs differ by at most %g "
                  "(largest %g; the steps moved them by up to %g)",
                (long long)graphsPerStep, scores.size(), diff, scale, moved);
            QVERIFY2(diff <= 1e-4 * scale && diff <= 1e-3 * moved, qPrintable(QString::number(diff)));
        }

        // Auto chunks only from kRecomputeAutoBytes on (never at this size), in chunks below
        // kConfigChunkAutoBytes; never with dropout on the composed ATen path, whose masks are not
        // keyed by config; refused with cross-attention.
        {
            TrainOptions oc = o;
            oc.configChunk = kConfigChunkAuto;
            Trainer t(data, train, {}, oc);
            QCOMPARE(t.configChunkFor(data.graphs[graph].nodeCount(), configs), int64_t(0));
            QCOMPARE(t.configChunkFor(4096, 32), int64_t(0)); // hidden 64: 32 MiB
            QCOMPARE(t.configChunkFor(16384, 32), int64_t(23)); // 128 MiB: chunks below 96 MiB
        }
        {
            TrainOptions oc = o;
            oc.configChunk = 4;
            Trainer t(data, train, {}, oc);
            QCOMPARE(t.configChunkFor(100, 16), int64_t(4));
            setFusedKernelsEnabled(false);
            const int64_t composed = t.configChunkFor(100, 16);
            setFusedKernelsEnabled(true);
            QCOMPARE(composed, int64_t(0));
            oc.model.useCrossAttn = true;
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Trainer(data, train, {}, oc));
        }
        for (const int64_t chunk : { kConfigChunkAuto, kConfigChunkOff, int64_t(8) }) {
            int64_t parsed = 99;
            QVERIFY(parseConfigChunk(configChunkName(chunk), &parsed) && parsed == chunk);
        }
        int64_t parsed = 99;
        QVERIFY(parseConfigChunk("0", &parsed) && parsed == kConfigChunkOff);
        for (const char* bad : { "", "-1", "8x", "yes", " 8", "99999999999" })
            QVERIFY2(!parseConfigChunk(bad, &parsed), bad);
    }

    // Non-finite steps are skipped and counted; a run of them stops training with a message. (NaN
    // features never reach a step: loading and batching refuse them. The poison here is a NaN row
    // of the opcode embedding, which makes the loss NaN exactly on graphs that use that opcode.)
    void nonFiniteGuard()
    {
        const TrainingData data = loadCollection();
        const auto train = data.indicesOf(DataSplit::Train);
        // An opcode used by some training graphs but not all.
        std::map<int64_t, std::set<size_t>> users;
        for (size_t i : train)
            for (int64_t k = 0; k < data.graphs[i].nodeCount(); ++k)
                users[data.graphs[i].layout.nodeOpcode[k]].insert(i);
        int64_t opcode = -1;
        for (const auto& [op, graphs] : users)
            if (graphs.size() * 2 <= train.size() && (opcode < 0 || graphs.size() > users[opcode].size()))
                opcode = op;
        QVERIFY2(opcode >= 0, "every opcode is used by more than half of the graphs");
        TrainOptions o = smallOptions(2 * int64_t(train.size()));
        o.maxNonFiniteRun = 2 * int64_t(train.size()); // does not stop here
        RecordingSink sink;
        Trainer a(data, train, {}, o);
        a.setSink(&sink);
        {
            torch::NoGradGuard noGrad;
            a.layoutModel()->embedding_op->weight[opcode].fill_(std::numeric_limits<float>::quiet_NaN());
        }
        int64_t visits = 0;
        for (int64_t s = 0; s < o.steps; ++s)
            visits += users[opcode].count(a.graphAtStep(s));
        QVERIFY(visits > 0 && visits < o.steps);
        const auto before = parameters(a.module());
        const TrainResult ra = a.run();
        QVERIFY(ra.finished && !ra.diverged);
        QCOMPARE(ra.counters.nonFiniteTotal, visits);
        for (const auto& [name, p] : parameters(a.module()))
            if (name != "embedding_op.weight")
                QVERIFY2(torch::isfinite(p).all().item<bool>(), name.c_str());
        QVERIFY(
            (before.at("classifier.weight") - parameters(a.module()).at("classifier.weight")).abs().max().item<double>()
            > 0); // the finite steps trained
        int64_t reported = 0;
        for (const StepMetrics& m : sink.steps)
            reported += m.skippedSteps;
        QCOMPARE(reported, visits);

        // Every step non-finite (a NaN head bias): stops after maxNonFiniteRun with a message, no update applied.
        o.maxNonFiniteRun = 3;
        Trainer b(data, train, {}, o);
        {
            torch::NoGradGuard noGrad;
            b.layoutModel()->classifier->bias.fill_(std::numeric_limits<float>::quiet_NaN());
        }
        const auto initial = parameters(b.module());
        RecordingSink stopSink;
        b.setSink(&stopSink);
        const TrainResult rb = b.run();
        QVERIFY(rb.diverged && !rb.finished);
        QCOMPARE(rb.steps, int64_t(3));
        QCOMPARE(rb.counters.nonFiniteRun, int64_t(3));
        QVERIFY2(QString::fromStdString(rb.message).contains("3 consecutive steps with a non-finite loss"),
            rb.message.c_str());
        for (const auto& [name, p] : initial)
            if (name != "classifier.bias")
                QVERIFY(torch::equal(p, parameters(b.module()).at(name)));
        QVERIFY(!stopSink.events.empty() && stopSink.events.back().kind == RunEventKind::Stopped);
    }

    // Metrics through the sink: intervals, evaluation with per-graph figures, best/last files, JSON lines.
    void eventsAndCheckpointFiles()
    {
        const TrainingData data = loadCollection();
        TrainOptions o = smallOptions(8);
        o.logEvery = 3;
        o.evalEvery = 4;
        RecordingSink rec;
        const std::string jsonl = path("metrics.jsonl");
        JsonLinesTrainingSink lines(jsonl);
        TrainingSinks both({ &rec, &lines });
        const std::string out = path("run-events");
        fs::create_directories(out);
        Trainer t(data, data.indicesOf(DataSplit::Train), data.indicesOf(DataSplit::Valid), o);
        t.setSink(&both);
        t.setOutputDir(out);
        const TrainResult r = t.run();
        QVERIFY(r.finished);
        QCOMPARE(rec.steps.size(), size_t(3)); // steps 3, 6, 8
        QCOMPARE(rec.steps[0].step, int64_t(3));
        QCOMPARE(rec.steps[2].intervalSteps, int64_t(2));
        for (const StepMetrics& m : rec.steps) {
            QVERIFY(std::isfinite(m.loss) && m.loss > 0);
            QVERIFY(m.tokensPerSecond > 0 && m.gradNorm > 0);
        }
        QCOMPARE(rec.evals.size(), size_t(2)); // steps 4 and 8
        QCOMPARE(rec.evals[1].graphs.size(), data.indicesOf(DataSplit::Valid).size());
        QVERIFY(rec.evals[0].best);
        for (const GraphEvalMetrics& g : rec.evals[1].graphs) {
            QVERIFY(g.kendallTau >= -1 && g.kendallTau <= 1);
            QVERIFY(g.opa >= 0 && g.opa <= 1 && g.top5Slowdown >= 0);
        }
        QVERIFY(fs::exists(out + "/best.npz") && fs::exists(out + "/last.npz"));
        const Checkpoint last = loadCheckpoint(out + "/last.npz");
        QCOMPARE(last.counters.step, int64_t(8));
        QCOMPARE(last.counters.bestTau, r.counters.bestTau);
        // JSON lines: one object per line, parseable.
        std::ifstream in(jsonl);
        std::string line;
        int steps = 0, evals = 0;
        while (std::getline(in, line)) {
            const Json v = parseJson(line, jsonl);
            steps += jsonString(v, "event") == "step";
            if (jsonString(v, "event") == "eval") {
                ++evals;
                QCOMPARE(jsonArray(v, "graphs").size(), rec.evals[0].graphs.size());
            }
        }
        QCOMPARE(steps, 3);
        QCOMPARE(evals, 2);
    }

    // Tile collections: all configs of a kernel per step, ordering by runtime / normalizer.
    void tileTraining()
    {
        const std::string dir = path("tiles");
        SynthCollectionSpec spec;
        spec.kind = GraphKind::Tile;
        spec.graphs = 8;
        spec.configs = 24;
        spec.seed = 4;
        spec.minInstructions = 100;
        spec.maxInstructions = 300;
        spec.testShare = 0;
        spec.validShare = 0.25;
        writeSynthCollection(spec, dir, nullptr);
        const TrainingData data = loadTrainingData(listDataFiles({ dir }));
        QCOMPARE(data.kind, GraphKind::Tile);
        TrainOptions o = smallOptions(6);
        Trainer t(data, data.indicesOf(DataSplit::Train), data.indicesOf(DataSplit::Valid), o);
        const StepOutcome s = t.step();
        QCOMPARE(s.configs, data.graphs[s.graph].configCount()); // all configs, no sampling
        QVERIFY(std::isfinite(s.loss));
        t.run();
        const EvalMetrics e = t.evaluate();
        QVERIFY(!e.graphs.empty());
        QVERIFY(std::isfinite(e.meanTileScore));
        const std::string file = path("tile-ckpt.npz");
        t.saveCheckpoint(file);
        QCOMPARE(weightsKind(file), GraphKind::Tile);
        const Checkpoint c = loadCheckpoint(file);
        QCOMPARE(c.kind, GraphKind::Tile);
        QCOMPARE(maxDifference(parameters(c.module()), parameters(t.module())), 0.0);
        QCOMPARE(c.tile->configStats().mean, t.tileModel()->configStats().mean);
    }

    // LEARNING SANITY. Measured on this collection (writeLayoutCollection(.., 20 graphs, 96
    // configs, seed 31), hidden 64, 32 configs per step, 240 steps; see the report in the issue):
    // held-out mean tau over 5 seeds ... ; random scores give mean tau ~0 with a standard deviation
    // of ~0.03 over the held-out graphs. The threshold below is far above random and far below what
    // training reaches.
    void learnsBetterThanRandom()
    {
        const std::string dir = path("sanity");
        writeLayoutCollection(dir, 20, 96, 31, 0.3);
        const TrainingData data = loadTrainingData(listDataFiles({ dir }));
        const auto train = data.indicesOf(DataSplit::Train);
        const auto valid = data.indicesOf(DataSplit::Valid);
        QVERIFY(valid.size() >= 4);
        const auto [randomMean, randomStd] = randomRankingTau(data, valid, 200);
        TrainOptions o = smallOptions(240);
        Trainer t(data, train, valid, o);
        t.run();
        const EvalMetrics e = t.evaluate();
        qInfo("learning sanity: held-out mean tau %.4f (OPA %.4f) vs random %.4f +- %.4f over %zu graphs", e.meanTau,
            e.meanOpa, randomMean, randomStd, valid.size());
        QVERIFY2(e.meanTau > randomMean + 5 * randomStd, qPrintable(QString::number(e.meanTau)));
        QVERIFY2(e.meanTau > 0.15, qPrintable(QString::number(e.meanTau)));
    }

    // docs/model.md §4.7: the simulated layouts of a graph's own module keep the graph's nodes and
    // configurable nodes; their runtimes are the simulator's noise-free price of each row.
    void simulatedLayoutsOfTheGraphsModule()
    {
        const std::string file = listDataFiles({ m_collection }).front().path;
        const LayoutGraph graph = loadLayoutGraph(file);
        std::string source, why;
        const auto module = moduleOfGraphFile(graph, file, &source, &why);
        QVERIFY2(module, why.c_str());
        QVERIFY(source.find("regenerated") != std::string::npos);
        const LayoutGraph sim = simulatedLayouts(graph, *module, "g.npz", 40, LayoutSampler::Default, 5);
        QCOMPARE(sim.nodeCount(), graph.nodeCount());
        QVERIFY(sim.nodeOpcode == graph.nodeOpcode);
        QVERIFY(sim.nodeConfigIds == graph.nodeConfigIds);
        QVERIFY(sim.configCount() >= 2 && sim.configCount() <= 40);
        QVERIFY(sim.syntheticMeta.find("pretrain-sim") != std::string::npos);
        const std::vector<int64_t> ids(graph.nodeConfigIds.data(), graph.nodeConfigIds.data() + graph.configurableCount());
        const LayoutSimulator simulator(*module, ids);
        std::set<int64_t> distinct;
        for (int64_t c = 0; c < sim.configCount(); ++c) {
            QCOMPARE(sim.configRuntime[c], std::max<int64_t>(1, std::llround(simulator.runtime(sim.nodeConfigFeat.row(c)))));
            distinct.insert(sim.configRuntime[c]);
        }
        QVERIFY(distinct.size() > 1); // layouts that the simulator prices differently
        // Another seed samples other layouts.
        const LayoutGraph other = simulatedLayouts(graph, *module, "g.npz", 40, LayoutSampler::Default, 6);
        QVERIFY(!(other.nodeConfigFeat == sim.nodeConfigFeat));
    }

    // A file beside the graph that is not its module is an error naming it; no module at all is
    // an explanation, and pretraining without any module names the files.
    void pretrainingFindsModulesOrSaysWhy()
    {
        const std::string dir = path("pretrain-modules");
        fs::create_directories(dir);
        const std::string graphFile = listDataFiles({ m_collection }).front().path;
        LayoutGraph graph = loadLayoutGraph(graphFile);
        graph.syntheticMeta.clear(); // a graph whose module cannot be regenerated
        saveLayoutGraph(graph, dir + "/plain.npz");
        std::string source, why;
        QVERIFY(!moduleOfGraphFile(graph, dir + "/plain.npz", &source, &why));
        QVERIFY2(why.find("plain.pb") != std::string::npos, why.c_str());
        const TrainingData data = loadTrainingData(listDataFiles({ dir }));
        TrainOptions o = smallOptions(3);
        PretrainOptions pre;
        pre.simLayouts = 20;
        try {
            pretrainOnSimulator(data, data.indicesOf(DataSplit::Train), o, pre, dir + "/out", nullptr, nullptr);
            QFAIL("pretraining without any module did not fail");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("plain.npz") != std::string::npos, e.what());
        }
        // The module of another graph beside it.
        const LayoutGraph other = loadLayoutGraph(listDataFiles({ m_collection })[1].path);
        std::string otherWhy;
        const auto otherModule = regenerateModuleForTest(other, &otherWhy);
        QVERIFY2(otherModule, otherWhy.c_str());
        {
            std::ofstream f(dir + "/plain.hlo");
            f << writeHloText(*otherModule);
        }
        try {
            moduleOfGraphFile(graph, dir + "/plain.npz", &source, &why);
            QFAIL("a module that is not the graph's was accepted");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("plain.hlo") != std::string::npos, e.what());
        }
        // Its own module as HLO text beside it is found.
        std::string ownWhy;
        const LayoutGraph synthGraph = loadLayoutGraph(graphFile);
        const auto own = regenerateModuleForTest(synthGraph, &ownWhy);
        QVERIFY2(own, ownWhy.c_str());
        {
            std::ofstream f(dir + "/plain.hlo");
            f << writeHloText(*own);
        }
        const auto found = moduleOfGraphFile(graph, dir + "/plain.npz", &source, &why);
        QVERIFY(found);
        QCOMPARE(source, dir + "/plain.hlo");
    }

    // `--pretrain-sim`: after the pretraining phase the weights equal those of a separate run on
    // the simulated files with the same seed and steps, and the measured run starts from them.
    void pretrainedRunStartsFromTheSimulatorTrainedWeights()
    {
        const TrainingData data = loadCollection();
        const auto train = data.indicesOf(DataSplit::Train);
        const auto valid = data.indicesOf(DataSplit::Valid);
        TrainOptions o = smallOptions(6);
        PretrainOptions pre;
        pre.simLayouts = 30;
        pre.steps = 5;
        const std::string out = path("pretrained");
        RecordingSink events;
        const PretrainResult r = pretrainOnSimulator(data, train, o, pre, out, &events, nullptr);
        QCOMPARE(r.simulatedFiles.size(), train.size());
        QVERIFY(r.withoutModule.empty());
        QCOMPARE(r.steps, int64_t(5));
        QVERIFY(fs::exists(r.checkpoint));
        const auto pretrained = parameters(*r.start.layout);

        // A separate run on the simulated files, same seed and steps.
        const TrainingData simData = loadTrainingData(listDataFiles({ out + "/pretrain/sim" }));
        QCOMPARE(simData.graphs.size(), train.size());
        TrainOptions separate = o;
        separate.steps = 5;
        Trainer alone(simData, simData.allIndices(), {}, separate);
        alone.run();
        QVERIFY2(maxDifference(pretrained, parameters(alone.module())) < 1e-6,
            qPrintable(QString::number(maxDifference(pretrained, parameters(alone.module())))));
        // ... and not those of a fresh model (the phase trained).
        Trainer fresh(data, train, valid, o);
        QVERIFY(maxDifference(pretrained, parameters(fresh.module())) > 1e-4);

        // The measured run starts from the pretrained weights, with its own schedule.
        Trainer tuned(data, train, valid, o, &r.start);
        QCOMPARE(maxDifference(pretrained, parameters(tuned.module())), 0.0);
        QCOMPARE(tuned.stepsDone(), int64_t(0));
        QCOMPARE(tuned.totalSteps(), int64_t(6));
        tuned.run();
        QVERIFY(maxDifference(pretrained, parameters(tuned.module())) > 0);

        // --init-from the phase's weights file gives the same start; shapes are checked.
        const Checkpoint init = initFromWeights(r.checkpoint, GraphKind::Layout, o.model);
        QCOMPARE(maxDifference(pretrained, parameters(*init.layout)), 0.0);
        QCOMPARE(init.totalSteps, int64_t(0));
        ModelOptions wider = o.model;
        wider.hidden = 128;
        try {
            initFromWeights(r.checkpoint, GraphKind::Layout, wider);
            QFAIL("weights of another width were accepted");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("--hidden") != std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find("last.npz") != std::string::npos, e.what());
        }
        try {
            initFromWeights(r.checkpoint, GraphKind::Tile, o.model);
            QFAIL("layout weights were accepted for tile data");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("tile") != std::string::npos, e.what());
        }
    }

    // docs/model.md §4.8: the recipe is a function of the data's description.
    void recipeFollowsTheData()
    {
        DataDescription record { GraphKind::Layout, 2, 681, 1 };
        const Recipe few = chooseRecipe(record);
        QCOMPARE(few.name, std::string("tuning-record"));
        QCOMPARE(few.learningRate, 3e-3);
        QVERIFY(few.epochs > 0);
        QVERIFY(few.why.find("2 training graphs") != std::string::npos);
        QCOMPARE(few.seeds, 3); // §17: the 3-seed ensemble beat every single run
        QVERIFY(few.why.find("3 seeds") != std::string::npos);
        // §4.9: a module known, the simulator's estimates are inputs, and the line says so; none
        // known, or the graphs not in memory (--resident-graphs), they are not.
        QVERIFY(few.simInputs);
        QVERIFY2(few.why.find("simulator inputs (1 of 2 graphs' modules known)") != std::string::npos, few.why.c_str());
        QVERIFY(!chooseRecipe({ GraphKind::Layout, 2, 681, 0 }).simInputs);
        QVERIFY(chooseRecipe({ GraphKind::Layout, 2, 681, 0 }).why.find("simulator") == std::string::npos);
        QVERIFY(!chooseRecipe({ GraphKind::Layout, 2, 681, 2, false }).simInputs);
        DataDescription collection { GraphKind::Layout, 61, 10000, 0 };
        const Recipe many = chooseRecipe(collection);
        QCOMPARE(many.name, std::string("collection"));
        QCOMPARE(many.learningRate, 1e-3);
        QCOMPARE(many.epochs, 0.0);
        QCOMPARE(many.pretrainSim, int64_t(0));
        QCOMPARE(many.seeds, 1);
        QVERIFY(!many.simInputs);
        // One graph with a huge number of configurations is a collection's graph, not a tuning run.
        QCOMPARE(chooseRecipe({ GraphKind::Layout, 1, kFewConfigs + 1, 1 }).name, std::string("collection"));
        QCOMPARE(chooseRecipe({ GraphKind::Layout, kFewGraphs + 1, 100, 0 }).name, std::string("collection"));
        QCOMPARE(chooseRecipe({ GraphKind::Tile, 2, 100, 0 }).name, std::string("collection"));
        // A module-less record still gets the tuning-record recipe, never simulated layouts.
        QCOMPARE(chooseRecipe({ GraphKind::Layout, 1, 112, 0 }).pretrainSim, int64_t(0));
        TrainOptions o;
        PretrainOptions pre;
        applyRecipe(few, &o, &pre);
        QCOMPARE(o.learningRate, 3e-3);
        QCOMPARE(o.epochs, few.epochs);
        QCOMPARE(pre.simLayouts, few.pretrainSim);
        QVERIFY(o.model.simInputs);
        // describeData on a synth collection: its graphs' modules are regenerated.
        const TrainingData data = loadCollection();
        const DataDescription d = describeData(data);
        QCOMPARE(d.trainGraphs, int64_t(data.indicesOf(DataSplit::Train).size()));
        QCOMPARE(d.maxConfigs, int64_t(48));
        QCOMPARE(d.graphsWithModule, d.trainGraphs <= kFewGraphs ? d.trainGraphs : int64_t(0));
    }

    // Report only (issue 6): the real module's 112 measured configurations, 5 folds over configs:
    // train on 4/5 of the configs, rank the held-out 1/5; compared with the simulator's ranking of
    // the same held-out configs. A short run here (the pipeline end to end on real data, ~10 s per
    // fold); `tgraph-bench realrecord` trains 150 steps per fold for the reported figures.
    void realRecordFiveFoldOverConfigs()
    {
        const QString shared = testutil::sharedDataDir();
        if (shared.isEmpty())
            QSKIP("../shared/data is absent: the real tuning record is not available");
        const std::string record = testutil::str(shared + "/tpu_graphs/module_tuning_data_layout.pb");
        bench::RealRecordOptions options;
        options.steps = 20;
        const std::vector<bench::RealRecordFold> folds = bench::runRealRecordFolds(
            record, testutil::str(m_dir.path()), options, [](const bench::RealRecordFold& f) {
                qInfo("real record fold %d: %lld held-out configs, model tau %.4f top-5 slowdown %.4f%%; simulator "
                      "tau %.4f top-5 slowdown %.4f%%",
                    f.fold, (long long)f.heldOutConfigs, f.modelTau, 100 * f.modelTop5Slowdown, f.simulatorTau,
                    100 * f.simulatorTop5Slowdown);
            });
        QCOMPARE(folds.size(), size_t(5));
        double tauSum = 0, simTauSum = 0, slowSum = 0, simSlowSum = 0;
        int64_t heldOut = 0;
        for (const bench::RealRecordFold& f : folds) {
            QVERIFY(std::isfinite(f.modelTau));
            QVERIFY(std::isfinite(f.simulatorTau));
            heldOut += f.heldOutConfigs;
            tauSum += f.modelTau;
            slowSum += f.modelTop5Slowdown;
            simTauSum += f.simulatorTau;
            simSlowSum += f.simulatorTop5Slowdown;
        }
        QCOMPARE(heldOut, int64_t(112)); // every measured config is held out once
        qInfo("real record, 5 folds over configs: model mean tau %.4f, top-5 slowdown %.4f%%; simulator mean tau "
              "%.4f, top-5 slowdown %.4f%%",
            tauSum / 5, 100 * slowSum / 5, simTauSum / 5, 100 * simSlowSum / 5);
    }
};

QTEST_GUILESS_MAIN(TestTraining)
#include "tst_training.moc"
