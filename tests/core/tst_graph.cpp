// SPDX-License-Identifier: Apache-2.0
// Graph structs: validation, load/save, pruning, config dedup and compression, normalizer.

#include "core/graph/configs.h"
#include "core/util/error.h"
#include "core/graph/graphio.h"
#include "core/graph/normalizer.h"
#include "core/io/npz.h"
#include "core/graph/prune.h"
#include "core/synth/synthetic.h"
#include "testutil.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <random>
#include <set>

using namespace tgraph;

namespace {

// 8 nodes in a chain 0 <- 1 <- ... <- 7 plus a long edge 7 -> 2; nodes 3 and 6 configurable.
// node_feat column 21 holds the node id so tests can see which rows survive.
LayoutGraph smallGraph(int64_t configs = 3)
{
    LayoutGraph g;
    g.nodeFeat = NdArray<float>({ 8, kNodeFeatures }, 0.0f);
    for (int i = 0; i < 8; ++i)
        g.nodeFeat(i, 21) = float(i);
    g.nodeOpcode = NdArray<int64_t>::fromVector({ 8 }, { 63, 2, 59, 26, 2, 59, 75, 100 });
    g.edgeIndex = NdArray<int64_t>::fromVector({ 8, 2 }, { 1, 0, 2, 1, 3, 2, 4, 3, 5, 4, 6, 5, 7, 6, 7, 2 });
    g.nodeConfigIds = NdArray<int64_t>::fromVector({ 2 }, { 3, 6 });
    g.nodeConfigFeat = NdArray<float>({ configs, 2, kLayoutConfigFeatures }, -1.0f);
    g.configRuntime = NdArray<int64_t>({ configs });
    for (int64_t c = 0; c < configs; ++c) {
        g.nodeConfigFeat(c, 0, 0) = float(c % 4);
        g.configRuntime[c] = 100 + c;
    }
    g.nodeSplits = NdArray<int64_t>::fromVector({ 3 }, { 0, 4, 8 });
    return g;
}

void compareGraphs(const LayoutGraph& a, const LayoutGraph& b)
{
    QVERIFY(a.nodeFeat == b.nodeFeat);
    QVERIFY(a.nodeOpcode == b.nodeOpcode);
    QVERIFY(a.edgeIndex == b.edgeIndex);
    QVERIFY(a.nodeConfigIds == b.nodeConfigIds);
    QVERIFY(a.nodeConfigFeat == b.nodeConfigFeat);
    QVERIFY(a.configRuntime == b.configRuntime);
    QCOMPARE(a.nodeSplits.values().size(), b.nodeSplits.values().size());
    QVERIFY(std::equal(a.nodeSplits.data(), a.nodeSplits.data() + a.nodeSplits.size(), b.nodeSplits.data()));
}

} // namespace

class TestGraph : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::string path(const char* name) const { return testutil::str(m_dir.filePath(name)); }

private Q_SLOTS:
    void pruneWorkedExample()
    {
        const LayoutGraph g = smallGraph();
        validate(g, "small");
        const PrunedGraph p = pruneToConfigurable(g);
        // Kept edges (3,2) (4,3) (6,5) (7,6); kept nodes 2..7; (7,2) and the chain below 2 dropped.
        QCOMPARE(p.newToOld, (std::vector<int64_t> { 2, 3, 4, 5, 6, 7 }));
        QCOMPARE(p.oldToNew, (std::vector<int64_t> { -1, -1, 0, 1, 2, 3, 4, 5 }));
        QCOMPARE(p.graph.edgeIndex, (NdArray<int64_t>::fromVector({ 4, 2 }, { 1, 0, 2, 1, 4, 3, 5, 4 })));
        QCOMPARE(p.graph.nodeConfigIds, (NdArray<int64_t>::fromVector({ 2 }, { 1, 4 })));
        QCOMPARE(p.graph.nodeCount(), int64_t(6));
        for (int64_t i = 0; i < 6; ++i) {
            QCOMPARE(p.graph.nodeFeat(i, 21), float(p.newToOld[size_t(i)]));
            QCOMPARE(p.graph.nodeOpcode[i], g.nodeOpcode[p.newToOld[size_t(i)]]);
        }
        QCOMPARE(p.graph.nodeSplits, (NdArray<int64_t>::fromVector({ 3 }, { 0, 2, 6 })));
        QVERIFY(p.graph.nodeConfigFeat == g.nodeConfigFeat);
        QVERIFY(p.graph.configRuntime == g.configRuntime);
        validate(p.graph, "pruned");
    }

    void pruneMatchesBruteForceOnSyntheticGraphs()
    {
        for (uint64_t seed = 1; seed <= 5; ++seed) {
            SyntheticLayoutSpec spec;
            spec.nodes = 300 + int64_t(seed) * 97;
            spec.configurableNodes = 10 + int64_t(seed);
            spec.configs = 20;
            spec.seed = seed;
            const LayoutGraph g = makeSyntheticLayoutGraph(spec);
            validate(g, "synthetic");
            const std::set<int64_t> config(g.nodeConfigIds.data(), g.nodeConfigIds.data() + g.nodeConfigIds.size());
            std::set<int64_t> keptNodes;
            std::vector<std::pair<int64_t, int64_t>> keptEdges;
            for (int64_t e = 0; e < g.edgeCount(); ++e) {
                const int64_t u = g.edgeIndex(e, 0), v = g.edgeIndex(e, 1);
                if (config.count(u) || config.count(v)) {
                    keptEdges.emplace_back(u, v);
                    keptNodes.insert(u);
                    keptNodes.insert(v);
                }
            }
            const PrunedGraph p = pruneToConfigurable(g);
            QCOMPARE(p.newToOld, std::vector<int64_t>(keptNodes.begin(), keptNodes.end()));
            QCOMPARE(p.graph.edgeCount(), int64_t(keptEdges.size()));
            for (size_t e = 0; e < keptEdges.size(); ++e) {
                QCOMPARE(p.newToOld[size_t(p.graph.edgeIndex(int64_t(e), 0))], keptEdges[e].first);
                QCOMPARE(p.newToOld[size_t(p.graph.edgeIndex(int64_t(e), 1))], keptEdges[e].second);
            }
        }
    }

    void pruneRefusesIsolatedConfigurableNode()
    {
        LayoutGraph g = smallGraph();
        g.nodeConfigIds[1] = 0; // configurable node 0 ...
        g.edgeIndex = NdArray<int64_t>::fromVector({ 2, 2 }, { 4, 3, 5, 4 }); // ... with no edge left
        testutil::expectInputError([&] { pruneToConfigurable(g, "iso.npz"); },
            { "iso.npz", "node_config_ids[1]", "configurable node 0 has no edges" });
    }

    void dedupPolicies()
    {
        LayoutGraph g = smallGraph(5);
        // rows A B A C B with runtimes 50 40 30 20 60
        const float values[5] = { 1, 2, 1, 3, 2 };
        const int64_t runtimes[5] = { 50, 40, 30, 20, 60 };
        for (int c = 0; c < 5; ++c) {
            g.nodeConfigFeat(c, 0, 0) = values[c];
            g.configRuntime[c] = runtimes[c];
        }
        QCOMPARE(countDuplicateConfigs(g.nodeConfigFeat), int64_t(2));
        const DedupResult first = dedupConfigs(g.nodeConfigFeat, g.configRuntime, DedupPolicy::KeepFirst);
        QCOMPARE(first.kept, (std::vector<int64_t> { 0, 1, 3 }));
        QCOMPARE(first.keptRuntime, (std::vector<int64_t> { 50, 40, 20 }));
        QCOMPARE(first.removed, int64_t(2));
        const DedupResult min = dedupConfigs(g.nodeConfigFeat, g.configRuntime, DedupPolicy::KeepMin);
        QCOMPARE(min.kept, (std::vector<int64_t> { 0, 1, 3 }));
        QCOMPARE(min.keptRuntime, (std::vector<int64_t> { 30, 40, 20 }));
        // The same groups from the compressed rows; the kept rows selected in compressed form.
        const NdArray<int32_t> compressed = compressConfigs(g.nodeConfigFeat);
        const DedupResult fromCompressed = dedupCompressedConfigs(compressed, g.configRuntime, DedupPolicy::KeepMin);
        QCOMPARE(fromCompressed.kept, min.kept);
        QCOMPARE(fromCompressed.keptRuntime, min.keptRuntime);
        QCOMPARE(fromCompressed.removed, int64_t(2));
        const NdArray<float> keptRows = decompressConfigs(keepConfigRows(compressed, fromCompressed));
        QCOMPARE(keptRows.dim(0), int64_t(3));
        QCOMPARE(keptRows(2, 0, 0), 3.0f);
        QCOMPARE(keptRows(1, 0, 0), 2.0f);
        const DedupResult none = dedupConfigs(g.nodeConfigFeat, g.configRuntime, DedupPolicy::None);
        QCOMPARE(none.kept.size(), size_t(5));
        applyDedup(g, min);
        QCOMPARE(g.configCount(), int64_t(3));
        QCOMPARE(g.configRuntime, (NdArray<int64_t>::fromVector({ 3 }, { 30, 40, 20 })));
        QCOMPARE(g.nodeConfigFeat(2, 0, 0), 3.0f);
        QCOMPARE(countDuplicateConfigs(g.nodeConfigFeat), int64_t(0));
        // A difference in the last value of a row is not a duplicate.
        LayoutGraph h = smallGraph(2);
        h.nodeConfigFeat(0, 0, 0) = h.nodeConfigFeat(1, 0, 0);
        QCOMPARE(countDuplicateConfigs(h.nodeConfigFeat), int64_t(1));
        h.nodeConfigFeat(1, 1, 17) = 5.0f;
        QCOMPARE(countDuplicateConfigs(h.nodeConfigFeat), int64_t(0));
        DedupPolicy p;
        QVERIFY(parseDedupPolicy("keep-min", &p) && p == DedupPolicy::KeepMin);
        QVERIFY(!parseDedupPolicy("keep-max", &p));
    }

    void base7Compression()
    {
        NdArray<float> one({ 1, 1, 18 }, -1.0f);
        for (int k = 0; k < 6; ++k)
            one(0, 0, k) = float(k); // digits 1..6
        one(0, 0, 12) = 5.0f; // kernel group: 6 * 7^0
        const NdArray<int32_t> c = compressConfigs(one);
        QCOMPARE(c.shape(), (std::vector<int64_t> { 1, 1, 3 }));
        QCOMPARE(c(0, 0, 0), 1 + 2 * 7 + 3 * 49 + 4 * 343 + 5 * 2401 + 6 * 16807);
        QCOMPARE(c(0, 0, 1), 0);
        QCOMPARE(c(0, 0, 2), 6);
        QVERIFY(decompressConfigs(c) == one);

        const LayoutGraph g = makeSyntheticLayoutGraph({});
        const NdArray<int32_t> all = compressConfigs(g.nodeConfigFeat);
        QVERIFY(decompressConfigs(all) == g.nodeConfigFeat);
        const NdArray<float> rows = decompressConfigRows(all, { 5, 0 });
        QCOMPARE(rows.dim(0), int64_t(2));
        QVERIFY(std::equal(rows.row(0), rows.row(0) + rows.rowSize(), g.nodeConfigFeat.row(5)));
        QVERIFY(std::equal(rows.row(1), rows.row(1) + rows.rowSize(), g.nodeConfigFeat.row(0)));

        NdArray<float> bad = one;
        bad(0, 0, 7) = 6.0f;
        testutil::expectInputError(
            [&] { compressConfigs(bad, "cfg.npz"); }, { "cfg.npz", "node_config_feat[0,0,7]", "-1..5" });
        bad(0, 0, 7) = 0.5f;
        testutil::expectInputError([&] { compressConfigs(bad, "cfg.npz"); }, { "node_config_feat[0,0,7]" });
        NdArray<int32_t> badCode = c;
        badCode(0, 0, 1) = 117649;
        testutil::expectInputError(
            [&] { decompressConfigs(badCode, "cfg.npz"); }, { "node_config_feat[0,0,1]", "117649" });
    }

    void normalizerMatchesNaiveStatistics()
    {
        std::mt19937 rng(3);
        std::normal_distribution<float> normal(5.0f, 3.0f);
        std::vector<NdArray<float>> graphs;
        for (int64_t n : { 50, 7, 123 }) {
            NdArray<float> f({ n, kNodeFeatures });
            for (int64_t i = 0; i < f.size(); ++i)
                f[i] = normal(rng) * float(1 + (i % kNodeFeatures));
            for (int64_t i = 0; i < n; ++i)
                f(i, 5) = 7.0f; // constant column
            graphs.push_back(f);
        }
        Normalizer norm;
        for (const auto& f : graphs)
            norm.add(f);
        norm.finish();
        QCOMPARE(norm.count(), int64_t(180));
        for (int c = 0; c < Normalizer::kColumns; ++c) {
            long double sum = 0, sq = 0;
            int64_t n = 0;
            for (const auto& f : graphs)
                for (int64_t i = 0; i < f.dim(0); ++i, ++n)
                    sum += f(i, c);
            const long double mean = sum / n;
            for (const auto& f : graphs)
                for (int64_t i = 0; i < f.dim(0); ++i)
                    sq += (f(i, c) - mean) * (f(i, c) - mean);
            const double stddev = c == 5 ? 1.0 : double(std::sqrt(sq / n));
            QVERIFY2(std::fabs(norm.mean()[size_t(c)] - double(mean)) <= 1e-9 * std::max(1.0, std::fabs(double(mean))),
                qPrintable(QString::number(c)));
            QVERIFY2(std::fabs(norm.stddev()[size_t(c)] - stddev) <= 1e-9 * stddev, qPrintable(QString::number(c)));
        }
        // Per-graph statistics merged (lazy loading, docs/model.md §2.4) give the same bits as add().
        Normalizer merged;
        for (const auto& f : graphs) {
            Normalizer one;
            one.add(f);
            merged.merge(one);
        }
        merged.merge(Normalizer()); // nothing added: no change
        merged.finish();
        QCOMPARE(merged.count(), norm.count());
        for (int c = 0; c < Normalizer::kColumns; ++c) {
            QCOMPARE(merged.mean()[size_t(c)], norm.mean()[size_t(c)]);
            QCOMPARE(merged.stddev()[size_t(c)], norm.stddev()[size_t(c)]);
        }
        NdArray<float> applied = graphs[0];
        norm.apply(applied);
        QCOMPARE(applied(3, 5), 0.0f); // (7 - 7) / 1
        QVERIFY(std::fabs(applied(2, 9) - float((graphs[0](2, 9) - norm.mean()[9]) / norm.stddev()[9])) < 1e-5f);
        QCOMPARE(applied(2, 134), graphs[0](2, 134)); // layout tokens untouched

        norm.save(path("norm.npz"));
        const Normalizer back = Normalizer::load(path("norm.npz"));
        QCOMPARE(back.mean(), norm.mean());
        QCOMPARE(back.stddev(), norm.stddev());
        QCOMPARE(back.count(), norm.count());

        const Normalizer given = Normalizer::fromStatistics(norm.mean(), norm.stddev(), 42);
        QVERIFY(given.isFinished());
        QCOMPARE(given.count(), int64_t(42));
        NdArray<float> again = graphs[0];
        given.apply(again);
        QCOMPARE(again(2, 9), applied(2, 9));
        auto zeroStd = norm.stddev();
        zeroStd[17] = 0;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Normalizer::fromStatistics(norm.mean(), zeroStd));
        auto nanMean = norm.mean();
        nanMean[3] = std::nan("");
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Normalizer::fromStatistics(nanMean, norm.stddev()));
    }

    void repadFromShapeRank()
    {
        NdArray<float> f({ 2, kNodeFeatures }, 0.0f);
        f(0, 21) = 8;
        f(0, 22) = 4; // rank 2
        f(0, 134) = 1;
        f(0, 135) = 0;
        repadLayoutColumns(f); // row 1: scalar, rank 0
        QCOMPARE(f(0, 134), 1.0f);
        QCOMPARE(f(0, 135), 0.0f);
        for (int c = 136; c < 140; ++c)
            QCOMPARE(f(0, c), -1.0f);
        for (int c = 134; c < 140; ++c)
            QCOMPARE(f(1, c), -1.0f);
    }

    void saveLoadRoundTrip()
    {
        SyntheticLayoutSpec spec;
        spec.seed = 11;
        const LayoutGraph g = makeSyntheticLayoutGraph(spec);
        for (bool deflate : { true, false }) {
            for (bool compressConfigs : { false, true }) {
                GraphWriteOptions w;
                w.compressed = deflate;
                w.compressConfigs = compressConfigs;
                saveLayoutGraph(g, path("rt.npz"), w);
                const LayoutGraph back = loadLayoutGraph(path("rt.npz"));
                compareGraphs(g, back);
                QCOMPARE(back.storage.at("node_opcode").dtype.descr(), std::string("|u1"));
                QCOMPARE(back.storage.at("node_splits").shape, (std::vector<int64_t> { 1, 3 }));
                QCOMPARE(back.storage.at("node_config_feat").dtype.isInteger(), compressConfigs);
                NpzReader npz(path("rt.npz"));
                QCOMPARE(npz.members().front().method, uint16_t(deflate ? 8 : 0));
            }
        }
    }

    void loadAcceptsDatasetVariants()
    {
        // node_splits as (k,), int32 indices, float64 runtimes: all load; writing keeps the forms.
        const LayoutGraph g = smallGraph();
        {
            NpzWriter w(path("variant.npz"), NpzCompression::Deflated);
            w.add("node_feat", g.nodeFeat);
            w.add("node_opcode", g.nodeOpcode, DType { ScalarType::Int32, false });
            w.add("edge_index", g.edgeIndex, DType { ScalarType::Int32, false });
            w.add("node_config_ids", g.nodeConfigIds, DType { ScalarType::UInt16, true });
            w.add("node_config_feat", g.nodeConfigFeat, DType { ScalarType::Float64, false });
            NdArray<double> runtime({ 3 });
            for (int i = 0; i < 3; ++i)
                runtime[i] = double(g.configRuntime[i]);
            w.add("config_runtime", runtime);
            w.add("node_splits", g.nodeSplits);
            w.commit();
        }
        const LayoutGraph back = loadLayoutGraph(path("variant.npz"));
        compareGraphs(g, back);
        QCOMPARE(back.storage.at("node_splits").shape, std::vector<int64_t> { 3 });
        saveLayoutGraph(back, path("variant2.npz"));
        NpzReader npz(path("variant2.npz"));
        QCOMPARE(npz.header("node_splits").shape, std::vector<int64_t> { 3 });
        QCOMPARE(npz.header("edge_index").dtype.descr(), std::string("<i4"));
        QCOMPARE(npz.header("node_config_ids").dtype.descr(), std::string(">u2"));
        QCOMPARE(npz.header("config_runtime").dtype.descr(), std::string("<f8"));
    }

    void validationErrorsNameArrayAndProblem_data()
    {
        QTest::addColumn<int>("mutation");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("edge out of range") << 0 << QStringList { "edge_index[7,1]", "node id 8 out of range [0, 8)" };
        QTest::newRow("config id out of range") << 1 << QStringList { "node_config_ids[1]", "node id 9 out of range" };
        QTest::newRow("duplicate config id") << 2 << QStringList { "node_config_ids[1]", "listed twice" };
        QTest::newRow("Nc mismatch") << 3 << QStringList { "node_config_feat", "node_config_ids lists 2" };
        QTest::newRow("layout value 7") << 4 << QStringList { "node_config_feat[2,1,5]", "not an integer in -1..5" };
        QTest::newRow("NaN feature") << 5 << QStringList { "node_feat[4,30]", "NaN" };
        QTest::newRow("negative runtime") << 6 << QStringList { "config_runtime[1]", "not positive" };
        QTest::newRow("mixed zero runtime") << 7 << QStringList { "config_runtime[0]", "not positive" };
        QTest::newRow("one config") << 8 << QStringList { "config_runtime", "only 1 configuration" };
        QTest::newRow("empty graph") << 9 << QStringList { "node_feat", "empty graph" };
        QTest::newRow("decreasing splits") << 10 << QStringList { "node_splits[2]", "non-decreasing" };
        QTest::newRow("opcode count") << 11 << QStringList { "node_opcode", "should be (8,)" };
        QTest::newRow("140 columns") << 12 << QStringList { "node_feat", "(N, 140)" };
        QTest::newRow("runtime count") << 13 << QStringList { "config_runtime", "should be (3,)" };
    }
    void validationErrorsNameArrayAndProblem()
    {
        QFETCH(int, mutation);
        QFETCH(QStringList, expected);
        LayoutGraph g = smallGraph(mutation == 8 ? 1 : 3);
        switch (mutation) {
        case 0:
            g.edgeIndex(7, 1) = 8;
            break;
        case 1:
            g.nodeConfigIds[1] = 9;
            break;
        case 2:
            g.nodeConfigIds[1] = 3;
            break;
        case 3:
            g.nodeConfigFeat = NdArray<float>({ 3, 3, 18 }, -1.0f);
            break;
        case 4:
            g.nodeConfigFeat(2, 1, 5) = 7.0f;
            break;
        case 5:
            g.nodeFeat(4, 30) = std::nanf("");
            break;
        case 6:
            g.configRuntime[1] = -5;
            break;
        case 7:
            g.configRuntime[0] = 0;
            break;
        case 9:
            g.nodeFeat = NdArray<float>({ 0, kNodeFeatures });
            break;
        case 10:
            g.nodeSplits[2] = 3;
            break;
        case 11:
            g.nodeOpcode = NdArray<int64_t>({ 7 }, 2);
            break;
        case 12:
            g.nodeFeat = NdArray<float>({ 8, 139 }, 0.0f);
            break;
        case 13:
            g.configRuntime = NdArray<int64_t>({ 4 }, 100);
            break;
        default:
            break;
        }
        testutil::expectInputError([&] { validate(g, "mutated.npz"); }, expected << "mutated.npz");
    }

    void unmeasuredGraphsAreValid()
    {
        LayoutGraph g = smallGraph();
        for (int i = 0; i < 3; ++i)
            g.configRuntime[i] = 0; // the unlabelled test split
        validate(g, "test.npz");
        QVERIFY(!g.hasRuntimes());
    }

    void nanRuntimeFileIsRefused()
    {
        const LayoutGraph g = smallGraph();
        {
            NpzWriter w(path("nan.npz"), NpzCompression::Deflated);
            w.add("node_feat", g.nodeFeat);
            w.add("node_opcode", g.nodeOpcode);
            w.add("edge_index", g.edgeIndex);
            w.add("node_config_ids", g.nodeConfigIds);
            w.add("node_config_feat", g.nodeConfigFeat);
            w.add("config_runtime", NdArray<double>::fromVector({ 3 }, { 1.0, std::nan(""), 3.0 }));
            w.commit();
        }
        testutil::expectInputError(
            [&] { loadLayoutGraph(path("nan.npz")); }, { "nan.npz", "config_runtime[1]", "NaN runtime" });
    }

    void tileGraphRoundTripAndValidation()
    {
        TileGraph t;
        t.nodeFeat = NdArray<float>({ 2, kNodeFeatures }, 1.0f);
        t.nodeOpcode = NdArray<int64_t>::fromVector({ 2 }, { 63, 75 });
        t.edgeIndex = NdArray<int64_t>::fromVector({ 1, 2 }, { 1, 0 });
        t.configFeat = NdArray<float>({ 3, kTileConfigFeatures }, 0.0f);
        t.configFeat(1, 0) = 4.0f;
        t.configRuntime = NdArray<int64_t>::fromVector({ 3 }, { 5578, 6788, 6000 });
        t.configRuntimeNormalizers = NdArray<int64_t>({ 3 }, 6788);
        validate(t, "tile");
        saveTileGraph(t, path("tile.npz"));
        NpzReader npz(path("tile.npz"));
        QCOMPARE(detectGraphKind(npz), GraphKind::Tile);
        const TileGraph back = loadTileGraph(path("tile.npz"));
        QVERIFY(back.configFeat == t.configFeat);
        QVERIFY(back.configRuntimeNormalizers == t.configRuntimeNormalizers);
        testutil::expectInputError([&] { loadLayoutGraph(path("tile.npz")); }, { "tile.npz", "tile graph" });
        t.configRuntimeNormalizers = NdArray<int64_t>({ 3 }, 0);
        testutil::expectInputError([&] { validate(t, "tile.npz"); }, { "config_runtime_normalizers", "all zero" });
        t.configFeat(2, 3) = std::nanf("");
        testutil::expectInputError([&] { validate(t, "tile.npz"); }, { "config_feat[2,3]" });
    }

    void neitherLayoutNorTile()
    {
        {
            NpzWriter w(path("other.npz"), NpzCompression::Stored);
            w.add("weights", NdArray<float>({ 2 }, 1.0f));
            w.commit();
        }
        NpzReader npz(path("other.npz"));
        testutil::expectInputError([&] { detectGraphKind(npz); }, { "other.npz", "neither", "weights" });
        // A layout graph missing a required array names it.
        const LayoutGraph g = smallGraph();
        {
            NpzWriter w(path("partial.npz"), NpzCompression::Stored);
            w.add("node_feat", g.nodeFeat);
            w.add("node_config_feat", g.nodeConfigFeat);
            w.commit();
        }
        testutil::expectInputError(
            [&] { loadLayoutGraph(path("partial.npz")); }, { "partial.npz", "node_opcode", "missing" });
    }
};

QTEST_GUILESS_MAIN(TestGraph)
#include "tst_graph.moc"
