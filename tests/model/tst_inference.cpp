// SPDX-License-Identifier: Apache-2.0
// Inference (docs/model.md §6): array_split chunking checked against numpy, chunked vs
// one-pass scores, TTA permutations and their inversion, ensemble mean, stable ranking, attention
// maps per config, tile graphs, refusals, files and the score writers.

#include "model/infer/inference.h"
#include "core/results/scores.h"
#include "model/runtime/torchruntime.h"
#include "model/nn/weights.h"

#include "core/util/error.h"
#include "core/graph/graphio.h"
#include "core/metrics/metrics.h"
#include "core/io/npz.h"
#include "modeltestutil.h"
#include "testutil.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <numeric>
#include <set>

using namespace tgraph;
using namespace tgraph::model;
using namespace modeltest;

namespace {

EnsembleMember member(bool cross, const Normalizer& normalizer, const std::string& name = "m.npz")
{
    EnsembleMember m;
    m.path = name;
    m.kind = GraphKind::Layout;
    m.layout = TGraphModel(options(cross));
    randomize(*m.layout);
    m.layout->eval();
    m.normalizer = normalizer;
    return m;
}

torch::Tensor forwardRows(EnsembleMember& m, const LayoutGraph& g, const std::vector<int64_t>& rows)
{
    c10::InferenceMode guard;
    return m.layout->forward(makeLayoutBatch(g, m.normalizer, rows, kDefaultOpTableSize, "g")).clone();
}

torch::Tensor tensorOf(const std::vector<float>& v) { return torch::tensor(v); }

torch::Tensor scoresOf(EnsembleMember& m, const LayoutGraph& g, const std::vector<int64_t>& order, int64_t batch,
    AttentionMaps* maps = nullptr)
{
    c10::InferenceMode guard;
    const GraphTensors t = makeGraphTensors(g, m.normalizer, kDefaultOpTableSize, "g");
    return scoreLayoutConfigs(m.layout, t, g.nodeConfigFeat, g.simInputs, order, batch, "g", maps);
}

std::string readText(const std::string& path) { return testutil::readAll(QString::fromStdString(path)).toStdString(); }

} // namespace

class TestInference : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::string path(const std::string& name) const
    {
        return testutil::str(m_dir.filePath(QString::fromStdString(name)));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // One thread: ctest runs two tests at once on this 2-core machine, and oversubscribed OpenMP
        // threads spin-wait (a 9 s test took over 300 s with 2 threads each).
        initTorchRuntime(1);
        torch::manual_seed(20240611);
    }

    void arraySplitChunks()
    {
        QCOMPARE(arraySplitSizes(1000, 128), std::vector<int64_t>(8, 125));
        QCOMPARE(arraySplitSizes(129, 128), (std::vector<int64_t> { 65, 64 }));
        QCOMPARE(arraySplitSizes(257, 128), (std::vector<int64_t> { 86, 86, 85 }));
        QCOMPARE(arraySplitSizes(256, 128), (std::vector<int64_t> { 128, 128 }));
        QCOMPARE(arraySplitSizes(5, 128), (std::vector<int64_t> { 5 }));
        QCOMPARE(arraySplitSizes(3, 1), (std::vector<int64_t> { 1, 1, 1 }));
        QVERIFY(arraySplitSizes(0, 128).empty());
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, arraySplitSizes(10, 0));
        const std::vector<int64_t> batches { 1, 2, 3, 7, 64, 100, 128, 256, 512 };
        std::map<std::pair<int64_t, int64_t>, std::vector<int64_t>> ours;
        for (int64_t c = 1; c <= 600; ++c) {
            for (const int64_t b : batches) {
                const auto sizes = arraySplitSizes(c, b);
                QCOMPARE(int64_t(sizes.size()), (c + b - 1) / b);
                QCOMPARE(std::accumulate(sizes.begin(), sizes.end(), int64_t(0)), c);
                QVERIFY(*std::max_element(sizes.begin(), sizes.end()) <= b);
                QVERIFY(
                    *std::max_element(sizes.begin(), sizes.end()) - *std::min_element(sizes.begin(), sizes.end()) <= 1);
                QVERIFY(std::is_sorted(sizes.rbegin(), sizes.rend())); // larger chunks first
                ours[{ c, b }] = sizes;
            }
        }
        // numpy itself, when Debian's python3-numpy is there.
        QString why;
        if (!testutil::havePythonModules({ "numpy" }, &why))
            QSKIP(qPrintable("numpy cross-check skipped: " + why));
        const QString script = "import numpy as np\n"
                               "for c in range(1, 601):\n"
                               "    for b in (1, 2, 3, 7, 64, 100, 128, 256, 512):\n"
                               "        parts = np.array_split(np.arange(c), -(-c // b))\n"
                               "        print(c, b, *[len(p) for p in parts])\n";
        const auto r = testutil::run(testutil::python(), { "-c", script });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        int lines = 0;
        for (const QByteArray& line : r.out.split('\n')) {
            const auto fields = line.split(' ');
            if (fields.size() < 3)
                continue;
            std::vector<int64_t> sizes;
            for (qsizetype i = 2; i < fields.size(); ++i)
                sizes.push_back(fields[i].toLongLong());
            QCOMPARE(ours.at({ fields[0].toLongLong(), fields[1].toLongLong() }), sizes);
            ++lines;
        }
        QCOMPARE(lines, 600 * int(batches.size()));
    }

    void chunkedScores()
    {
        const LayoutGraph g = smallSyntheticGraph(40, 21);
        const Normalizer norm = fitNormalizer(g.nodeFeat);
        for (const bool cross : { false, true }) {
            EnsembleMember m = member(cross, norm);
            const auto onePass = forwardRows(m, g, allRows(40));
            const auto chunked = scoresOf(m, g, allRows(40), 7); // chunks 6,6,6,6,6,5,5
            QCOMPARE(chunked.sizes().vec(), (std::vector<int64_t> { 40 }));
            QVERIFY(torch::isfinite(chunked).all().item<bool>());
            const double error = relativeError(chunked, onePass);
            if (cross)
                QVERIFY2(error > 1e-3, qPrintable(QString::number(error))); // the softmax sees 6 configs, not 40
            else
                QVERIFY2(error < 1e-5, qPrintable(QString::number(error)));
            // Each chunk is exactly one forward pass over its array_split rows.
            int64_t first = 0;
            for (const int64_t size : arraySplitSizes(40, 7)) {
                std::vector<int64_t> rows(static_cast<size_t>(size));
                std::iota(rows.begin(), rows.end(), first);
                const auto expected = forwardRows(m, g, rows);
                QVERIFY(maxAbs(chunked.narrow(0, first, size) - expected) <= 1e-6 * std::max(1.0, maxAbs(expected)));
                first += size;
            }
        }
    }

    void permutationsAndTta()
    {
        const auto perms = ttaPermutations(50, 4, 101);
        QCOMPARE(perms.size(), size_t(4));
        std::set<std::vector<int64_t>> distinct;
        for (const auto& p : perms) {
            std::vector<int64_t> sorted = p;
            std::sort(sorted.begin(), sorted.end());
            QCOMPARE(sorted, allRows(50));
            distinct.insert(p);
        }
        QCOMPARE(distinct.size(), size_t(4));
        QCOMPARE(ttaPermutations(50, 4, 101), perms); // seeded
        QVERIFY(ttaPermutations(50, 1, 102).front() != perms.front());

        const LayoutGraph g = smallSyntheticGraph(30, 22);
        const Normalizer norm = fitNormalizer(g.nodeFeat);
        InferenceOptions tta;
        tta.batchConfigs = 8;
        tta.tta = 3;
        InferenceOptions plain = tta;
        plain.tta = 0;
        for (const bool cross : { false, true }) {
            std::vector<EnsembleMember> models { member(cross, norm) };
            // Inversion: a config's score is the one its chunk of the permuted order gave it.
            const auto p = ttaPermutations(30, 1, 7).front();
            const auto permuted = scoresOf(models[0], g, p, 8);
            // Same rows in the same order as a direct forward pass: the same arithmetic.
            int64_t first = 0;
            double worst = 0;
            for (const int64_t size : arraySplitSizes(30, 8)) {
                const std::vector<int64_t> rows(p.begin() + first, p.begin() + first + size);
                const auto expected = forwardRows(models[0], g, rows);
                for (int64_t j = 0; j < size; ++j)
                    worst = std::max(worst,
                        double(std::abs(permuted[rows[size_t(j)]].item<float>() - expected[j].item<float>()))
                            / std::max(1.0, double(std::abs(expected[j].item<float>()))));
                first += size;
            }
            qInfo("cross-attn %d: chunked vs direct scores differ by at most %.3g (relative)", int(cross), worst);
            QVERIFY2(worst <= 1e-6, qPrintable(QString::number(worst)));
            const GraphScores withTta = scoreLayoutGraph(models, g, "g.npz", tta);
            const GraphScores without = scoreLayoutGraph(models, g, "g.npz", plain);
            const double error = relativeError(tensorOf(withTta.scores), tensorOf(without.scores));
            if (!cross) {
                QVERIFY2(error < 1e-5, qPrintable(QString::number(error))); // no batch dependence
                continue;
            }
            QVERIFY2(error > 1e-4, qPrintable(QString::number(error)));
            // TTA = mean over the seeded permutations of the inverted scores.
            torch::Tensor sum = torch::zeros({ 30 }, torch::kFloat64);
            for (const auto& order : ttaPermutations(30, 3, tta.ttaSeed))
                sum += scoresOf(models[0], g, order, 8).to(torch::kFloat64);
            QVERIFY(relativeError(tensorOf(withTta.scores).to(torch::kFloat64), sum / 3) < 1e-6);
        }
    }

    void ensembleAndRanking()
    {
        QCOMPARE(rankingOf({ 0.5f, -1.0f, 0.5f, 2.0f, -1.0f }), (std::vector<int64_t> { 1, 4, 0, 2, 3 }));
        const LayoutGraph g = smallSyntheticGraph(24, 23);
        const Normalizer norm = fitNormalizer(g.nodeFeat);
        std::vector<EnsembleMember> models { member(true, norm, "a.npz"), member(false, norm, "b.npz") };
        InferenceOptions o;
        o.batchConfigs = 10;
        const GraphScores both = scoreLayoutGraph(models, g, "dir/g.npz", o);
        std::vector<EnsembleMember> a { models[0] }, b { models[1] };
        const auto sa = tensorOf(scoreLayoutGraph(a, g, "g.npz", o).scores);
        const auto sb = tensorOf(scoreLayoutGraph(b, g, "g.npz", o).scores);
        QVERIFY(relativeError(tensorOf(both.scores), (sa + sb) / 2) < 1e-6);
        QCOMPARE(both.name, std::string("g"));
        QCOMPARE(both.configs(), int64_t(24));
        QCOMPARE(both.runtimes, std::vector<int64_t>(g.configRuntime.data(), g.configRuntime.data() + 24));
        QCOMPARE(both.ranking, rankingOf(both.scores));
        for (size_t r = 1; r < both.ranking.size(); ++r)
            QVERIFY(both.scores[size_t(both.ranking[r - 1])] <= both.scores[size_t(both.ranking[r])]);
    }

    void attentionPerConfig()
    {
        const LayoutGraph g = smallSyntheticGraph(40, 24);
        const Normalizer norm = fitNormalizer(g.nodeFeat);
        InferenceOptions o;
        o.batchConfigs = 16; // chunks 14, 13, 13
        o.attention = true;
        for (const bool cross : { true, false }) {
            std::vector<EnsembleMember> models { member(cross, norm), member(cross, norm) };
            const GraphScores s = scoreLayoutGraph(models, g, "g.npz", o);
            QCOMPARE(s.attention.size(), size_t(2));
            for (const AttentionMaps& maps : s.attention) {
                QCOMPARE(maps.layers.size(), size_t(4));
                for (const LayerAttention& layer : maps.layers) {
                    QCOMPARE(layer.configs, int64_t(40));
                    QCOMPARE(layer.channels, int64_t(cross ? 128 : 256));
                    QCOMPARE(layer.gate.size(), size_t(40 * layer.channels));
                    for (float v : layer.gate)
                        QVERIFY(v > 0 && v < 1);
                    if (!cross) {
                        QVERIFY(layer.cross.empty());
                        continue;
                    }
                    // Softmax over the configs of each chunk: a chunk's rows sum to 1 per channel.
                    int64_t first = 0;
                    for (const int64_t size : arraySplitSizes(40, 16)) {
                        for (int64_t f = 0; f < layer.channels; ++f) {
                            double sum = 0;
                            for (int64_t c = first; c < first + size; ++c)
                                sum += layer.crossAt(c, f);
                            QVERIFY2(std::abs(sum - 1) < 1e-4, qPrintable(QString::number(sum)));
                        }
                        first += size;
                    }
                }
            }
            // The first chunk's rows are that forward pass's own maps.
            AttentionMaps direct;
            {
                c10::InferenceMode guard;
                models[0].layout->forward(makeLayoutBatch(g, norm, allRows(14), kDefaultOpTableSize, "g"), &direct);
            }
            const LayerAttention& a = s.attention[0].layers[2];
            const LayerAttention& d = direct.layers[2];
            for (int64_t c = 0; c < 14; ++c)
                for (int64_t f = 0; f < a.channels; f += 17)
                    QVERIFY(std::abs(a.gateAt(c, f) - d.gateAt(c, f)) < 1e-6);
        }
        // TTA averages the maps of the passes: gates stay in (0, 1), cross columns sum to 1 over all configs.
        o.tta = 2;
        std::vector<EnsembleMember> models { member(true, norm) };
        o.batchConfigs = 40;
        const GraphScores s = scoreLayoutGraph(models, g, "g.npz", o);
        const LayerAttention& layer = s.attention[0].layers[1];
        for (int64_t f = 0; f < layer.channels; f += 11) {
            double sum = 0;
            for (int64_t c = 0; c < 40; ++c)
                sum += layer.crossAt(c, f);
            QVERIFY(std::abs(sum - 1) < 1e-4);
        }
    }

    void tileGraphs()
    {
        const TileGraph g = smallTileGraph(9);
        const Normalizer norm = fitNormalizer(g.nodeFeat);
        EnsembleMember m;
        m.path = "tile.npz";
        m.kind = GraphKind::Tile;
        m.tile = TileModel(options(true));
        randomize(*m.tile);
        m.tile->setConfigStats(computeConfigStats({ &g }));
        m.tile->eval();
        m.normalizer = norm;
        std::vector<EnsembleMember> models { m };
        InferenceOptions o;
        o.attention = true;
        o.batchConfigs = 4; // no effect on tile scores
        const GraphScores s = scoreTileGraph(models, g, "k.npz", o);
        torch::Tensor expected;
        {
            c10::InferenceMode guard;
            expected = m.tile->forward(makeTileBatch(g, norm, allRows(9), kDefaultOpTableSize, "k"));
        }
        QVERIFY(relativeError(tensorOf(s.scores), expected) < 1e-6);
        QCOMPARE(s.kind, GraphKind::Tile);
        QCOMPARE(s.runtimeNormalizers.size(), size_t(9));
        QCOMPARE(s.attention.front().layers.front().configs, int64_t(1));
        QCOMPARE(inferencePasses(models, 9, o), int64_t(1));
        // A layout model refuses a tile graph and vice versa.
        std::vector<EnsembleMember> layout { member(true, norm) };
        testutil::expectInputError([&] { scoreTileGraph(layout, g, "k.npz", o); }, { "k.npz", "tile graph" });
        const LayoutGraph lg = smallSyntheticGraph(5, 3);
        testutil::expectInputError([&] { scoreLayoutGraph(models, lg, "l.npz", o); }, { "l.npz", "tile-model" });
        // Metrics: raw or normalized runtimes.
        GraphScores t = s;
        t.runtimeNormalizers[0] = 0;
        const GraphMetrics raw = evaluate(t, TileTarget::Raw);
        std::vector<double> r(t.runtimes.begin(), t.runtimes.end()), sc(t.scores.begin(), t.scores.end());
        QCOMPARE(raw.tileScore, tileScore(r, sc, 5));
        testutil::expectInputError(
            [&] { evaluate(t, TileTarget::Normalized); }, { "k.npz", "config_runtime_normalizers[0]", "> 0" });
    }

    void refusals()
    {
        LayoutGraph g = smallSyntheticGraph(6, 25);
        const Normalizer norm = fitNormalizer(g.nodeFeat);
        std::vector<EnsembleMember> models { member(true, norm) };
        const InferenceOptions o;
        LayoutGraph bad = g;
        bad.nodeFeat(3, 7) = std::nanf("");
        testutil::expectInputError(
            [&] { scoreLayoutGraph(models, bad, "g.npz", o); }, { "g.npz", "node_feat[3,7]", "not finite" });
        bad = g;
        bad.nodeFeat(2, 100) = std::numeric_limits<float>::infinity();
        testutil::expectInputError([&] { makeGraphTensors(bad, norm, 121, "g.npz"); }, { "node_feat[2,100]", "inf" });
        bad = g;
        bad.nodeConfigFeat(4, 1, 3) = std::nanf("");
        testutil::expectInputError([&] { scoreLayoutGraph(models, bad, "g.npz", o); }, { "node_config_feat[4,1,3]" });
        LayoutGraph one = smallSyntheticGraph(1, 25);
        testutil::expectInputError(
            [&] { scoreLayoutGraph(models, one, "one.npz", o); }, { "one.npz", "single configuration" });
        bad = g;
        bad.nodeConfigIds = NdArray<int64_t>({ 0 });
        bad.nodeConfigFeat = NdArray<float>({ 6, 0, 18 });
        testutil::expectInputError(
            [&] { scoreLayoutGraph(models, bad, "g.npz", o); }, { "g.npz", "no configurable nodes" });
        // Evaluation needs measured runtimes.
        GraphScores s = scoreLayoutGraph(models, g, "test/g.npz", o);
        s.runtimes.assign(s.runtimes.size(), 0);
        testutil::expectInputError([&] { evaluate(s); }, { "test/g.npz", "config_runtime", "all zero" });
    }

    void filesAndEnsembles()
    {
        SyntheticLayoutSpec spec;
        spec.nodes = 160;
        spec.configurableNodes = 7;
        spec.configs = 20;
        spec.seed = 31;
        const LayoutGraph full = makeSyntheticLayoutGraph(spec);
        const PrunedGraph pruned = pruneToConfigurable(full);
        QVERIFY(pruned.graph.nodeCount() < full.nodeCount());
        std::filesystem::create_directories(path("layout/xla/default/test"));
        const std::string file = path("layout/xla/default/test/g.npz");
        GraphWriteOptions w;
        w.compressConfigs = true;
        saveLayoutGraph(full, file, w);

        const Normalizer norm = fitNormalizer(pruned.graph.nodeFeat);
        TGraphModel a(options(true)), b(options(false));
        randomize(*a);
        randomize(*b);
        saveWeightsNpz(a, norm, path("a.npz"));
        saveWeightsNpz(b, norm, path("b.npz"));
        testutil::writeAll(m_dir.filePath("ensemble.json"), R"({"folds": 20, "ensemble": ["b.npz", "a.npz"]})");
        const auto paths = expandWeightsArguments({ path("ensemble.json"), path("a.npz") });
        QCOMPARE(paths, (std::vector<std::string> { path("b.npz"), path("a.npz"), path("a.npz") }));
        std::vector<EnsembleMember> models = loadEnsemble(paths);
        QCOMPARE(models.size(), size_t(3));
        QVERIFY(!models[0].options().useCrossAttn && models[1].options().useCrossAttn);

        PredictFileOptions o;
        o.inference.batchConfigs = 9;
        const GraphScores fromFile = predictFile(models, file, o);
        QCOMPARE(fromFile.nodesBeforePruning, full.nodeCount());
        QCOMPARE(fromFile.nodes, pruned.graph.nodeCount());
        const GraphScores direct = scoreLayoutGraph(models, pruned.graph, file, o.inference);
        QCOMPARE(fromFile.scores, direct.scores);
        QCOMPARE(collectionIdFromPath(file), std::string("layout:xla:default"));
        QCOMPARE(collectionIdFromPath("/data/npz/tile/xla/valid/k.npz"), std::string("tile:xla"));
        QCOMPARE(collectionIdFromPath("/tmp/g.npz"), std::string());
        GraphKind kind;
        QCOMPARE(configCountOfFile(file, &kind), int64_t(20));
        QCOMPARE(kind, GraphKind::Layout);

        testutil::writeAll(m_dir.filePath("bad.json"), R"({"ensemble": []})");
        testutil::expectInputError([&] { expandWeightsArguments({ path("bad.json") }); }, { "bad.json", "empty" });
        testutil::writeAll(m_dir.filePath("other.json"), R"({"folds": 3})");
        testutil::expectInputError(
            [&] { expandWeightsArguments({ path("other.json") }); }, { "other.json", "ensemble" });
        TileModel t(options(true));
        saveTileWeightsNpz(t, norm, path("tile.npz"));
        testutil::expectInputError(
            [&] {
                loadEnsemble({ path("a.npz"), path("tile.npz") });
            },
            { "tile.npz", "tile-model", "one kind" });
        testutil::expectInputError([&] { loadEnsemble({ path("missing.npz") }); }, { "missing.npz" });

        std::filesystem::create_directories(path("empty"));
        testutil::expectInputError([&] { listGraphFiles({ path("empty") }); }, { "empty", "no .npz files" });
        testutil::expectInputError([&] { listGraphFiles({ path("layout/xla") }); }, { "default/", "point --data" });
        QCOMPARE(listGraphFiles({ path("layout/xla/default/test") }), std::vector<std::string> { file });

        // Writers.
        GraphScores s = fromFile;
        {
            ScoresWriter csv(path("s.csv"), ScoresWriter::Format::Csv);
            ScoresWriter npz(path("s.npz"), ScoresWriter::Format::Npz);
            ScoresWriter kaggle(path("k.csv"), ScoresWriter::Format::Kaggle);
            for (ScoresWriter* writer : { &csv, &npz, &kaggle })
                writer->add(s);
            testutil::expectInputError([&] { npz.add(s); }, { "a second graph named 'g'" });
            QVERIFY(!std::filesystem::exists(path("s.csv"))); // written on commit only
            for (ScoresWriter* writer : { &csv, &npz, &kaggle })
                writer->commit();
        }
        const std::string csv = readText(path("s.csv"));
        QVERIFY(csv.starts_with("graph,config,score,rank\ng,0,"));
        QCOMPARE(std::count(csv.begin(), csv.end(), '\n'), std::ptrdiff_t(21));
        const std::string fastestRow = "g," + std::to_string(s.ranking[0]) + ",";
        QVERIFY(csv.find(fastestRow) != std::string::npos);
        QVERIFY(csv.find(fastestRow) < csv.size() && csv.find(",1\n", csv.find(fastestRow)) != std::string::npos);
        NpzReader npz(path("s.npz"));
        QCOMPARE(npz.keys(), std::vector<std::string> { "g" });
        const NdArray<float> stored = npz.read<float>("g");
        QCOMPARE(std::vector<float>(stored.data(), stored.data() + stored.size()), s.scores);
        std::string expectedKaggle = "ID,TopConfigs\nlayout:xla:default:g,";
        for (size_t r = 0; r < s.ranking.size(); ++r)
            expectedKaggle += (r ? ";" : "") + std::to_string(s.ranking[r]);
        QCOMPARE(readText(path("k.csv")), expectedKaggle + "\n");

        // Unknown collection, bad id, no commit, unwritable target.
        s.file = path("g.npz");
        {
            ScoresWriter kaggle(path("k2.csv"), ScoresWriter::Format::Kaggle);
            testutil::expectInputError([&] { kaggle.add(s); }, { "g.npz", "--collection-id" });
            ScoresWriter tile(path("k3.csv"), ScoresWriter::Format::Kaggle, "tile:xla");
            testutil::expectInputError([&] { tile.add(s); }, { "layout graph", "tile:xla" });
        }
        QVERIFY(std::filesystem::is_empty(path("layout/xla/default/test")) == false);
        for (const char* leftover : { "k2.csv", "k3.csv" })
            QVERIFY(!std::filesystem::exists(path(leftover)));
        testutil::expectInputError(
            [&] { ScoresWriter(path("k4.csv"), ScoresWriter::Format::Kaggle, "layout:tpu:default"); },
            { "layout:tpu" });
        testutil::expectInputError(
            [&] { ScoresWriter(path("no/such/dir/s.csv"), ScoresWriter::Format::Csv); }, { "no/such/dir/s.csv" });
        for (const auto& entry : std::filesystem::directory_iterator(m_dir.path().toStdString()))
            QVERIFY2(entry.path().string().find(".tmp-") == std::string::npos, entry.path().c_str());
    }
};

QTEST_GUILESS_MAIN(TestInference)
#include "tst_inference.moc"
