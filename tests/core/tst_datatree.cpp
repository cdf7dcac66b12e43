// SPDX-License-Identifier: Apache-2.0
// The checks of a TpuGraphs collection tree (core/data/treecheck.h, `tgraph data verify`,
// docs/formats.md §16.4): one crafted npz per anomaly, written by core/io's numpy-compatible writer.

#include "testutil.h"

#include "core/data/collections.h"
#include "core/data/treecheck.h"
#include "core/graph/configs.h"
#include "core/graph/graphio.h"
#include "core/synth/synthcollection.h"
#include "core/synth/synthetic.h"
#include "core/util/json.h"

#include <QTemporaryDir>

using namespace tgraph;

namespace {

LayoutGraph graph(uint64_t seed, int64_t nodes, double duplicates = 0)
{
    SyntheticLayoutSpec spec;
    spec.nodes = nodes;
    spec.configurableNodes = 5;
    spec.configs = 12;
    spec.duplicateFraction = duplicates;
    spec.seed = seed;
    LayoutGraph g = makeSyntheticLayoutGraph(spec);
    if (duplicates == 0) // random rows may still repeat: keep each once
        applyDedup(g, dedupConfigs(g.nodeConfigFeat, g.configRuntime, DedupPolicy::KeepFirst));
    setPublishedStorage(g);
    return g;
}

// A layout collection folder DIR/npz/layout/xla/random/{train,valid,test}, all clean; returns it.
QString cleanLayoutTree(const QString& root)
{
    const QString folder = root + "/npz/layout/xla/random";
    for (const QString split : { "train", "valid", "test" })
        QDir().mkpath(folder + "/" + split);
    saveLayoutGraph(graph(1, 60), testutil::str(folder + "/train/a.npz"));
    saveLayoutGraph(graph(2, 80), testutil::str(folder + "/train/b.npz"));
    saveLayoutGraph(graph(3, 100), testutil::str(folder + "/valid/c.npz"));
    LayoutGraph test = graph(4, 70);
    std::fill(test.configRuntime.data(), test.configRuntime.data() + test.configRuntime.size(), 0);
    saveLayoutGraph(test, testutil::str(folder + "/test/d.npz"));
    return folder;
}

const TreeProblem* findProblem(const CollectionCheck& c, const std::string& file)
{
    for (const auto& p : c.problems)
        if (p.file == file)
            return &p;
    return nullptr;
}

} // namespace

class TestDataTree : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void collectionNames()
    {
        QCOMPARE(tpuCollections().size(), size_t(5));
        const TpuCollection* c = findTpuCollection("layout:nlp:default");
        QVERIFY(c);
        QCOMPARE(QString::fromStdString(archiveName(*c, "valid")), QString("npz_layout_nlp_default_valid.tar"));
        QCOMPARE(QString::fromStdString(splitFolder(*c, "valid")), QString("npz/layout/nlp/default/valid"));
        QCOMPARE(QString::fromStdString(archiveName(*findTpuCollection("tile:xla"), "test")),
            QString("npz_tile_xla_test.tar"));
        QVERIFY(!findTpuCollection("layout:xla"));
        QCOMPARE(tpuCollectionOfPath("/d/npz/layout/xla/random/train/x.npz"), findTpuCollection("layout:xla:random"));
        QCOMPARE(tpuCollectionOfPath("/d/npz/tile/xla/"), findTpuCollection("tile:xla"));
        QVERIFY(!tpuCollectionOfPath("/d/layout/xla/random/train/x.npz"));
    }

    void cleanTree()
    {
        QTemporaryDir dir;
        cleanLayoutTree(dir.path());
        const TreeCheck check = checkDatasetTree(testutil::str(dir.path()), nullptr);
        QCOMPARE(check.collections.size(), size_t(1));
        const CollectionCheck& c = check.collections.front();
        QCOMPARE(QString::fromStdString(c.id), QString("layout:xla:random"));
        QCOMPARE(c.graphs[0], 2);
        QCOMPARE(c.graphs[1], 1);
        QCOMPARE(c.graphs[2], 1);
        QCOMPARE(c.nodesMin(), int64_t(60));
        QCOMPARE(c.nodesMedian(), int64_t(70));
        QCOMPARE(c.nodesMax(), int64_t(100));
        QCOMPARE(c.configs,
            graph(1, 60).configCount() + graph(2, 80).configCount() + graph(3, 100).configCount()
                + graph(4, 70).configCount());
        QVERIFY2(
            check.errors() == 0 && check.warnings() == 0, c.problems.empty() ? "" : c.problems.front().problem.c_str());
        // The same collection checked through its own folder.
        const TreeCheck again = checkDatasetTree(testutil::str(dir.path() + "/npz/layout/xla/random"), nullptr);
        QCOMPARE(QString::fromStdString(again.collections.front().id), QString("layout:xla:random"));
        const std::string table = treeCheckTable(check);
        QVERIFY(table.find("layout:xla:random") != std::string::npos);
        const Json j = parseJson(treeCheckJson(check));
        QCOMPARE(j["collections"][0]["nodes"]["median"].get<int64_t>(), int64_t(70));
        QCOMPARE(j["errors"].get<int>(), 0);
    }

    // Each anomaly, alone in a clean tree, is reported against its file with its severity.
    void anomalies_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<bool>("error");
        QTest::addColumn<QString>("problem");
        QTest::newRow("all equal runtimes") << "equal" << true << "runtimes are equal";
        QTest::newRow("zero runtimes in valid") << "zero" << true << "are 0 outside the test split";
        QTest::newRow("duplicate configs") << "duplicates" << false << "configurations repeat an earlier one";
        QTest::newRow("dtype") << "dtype" << true << "node_opcode stored as int64, published as uint8";
        QTest::newRow("schema") << "schema" << true << "edge_index";
        QTest::newRow("not an npz") << "garbage" << true << "zip";
        QTest::newRow("tile graph in a layout collection") << "tile" << true << "a tile graph in a layout collection";
        QTest::newRow("single config") << "single" << false << "a single configuration";
        QTest::newRow("measured test graph") << "labelledtest" << false << "test-split graph with measured runtimes";
    }
    void anomalies()
    {
        QFETCH(QString, kind);
        QFETCH(bool, error);
        QFETCH(QString, problem);
        QTemporaryDir dir;
        const QString folder = cleanLayoutTree(dir.path());
        QString file = "valid/bad.npz";
        const std::string path = testutil::str(folder + "/" + file);
        LayoutGraph g = graph(9, 90);
        if (kind == "equal") {
            std::fill(g.configRuntime.data(), g.configRuntime.data() + g.configRuntime.size(), 1234);
        } else if (kind == "zero") {
            std::fill(g.configRuntime.data(), g.configRuntime.data() + g.configRuntime.size(), 0);
        } else if (kind == "duplicates") {
            g = graph(9, 90, 0.3);
        } else if (kind == "dtype") {
            g.storage["node_opcode"].dtype = DType { ScalarType::Int64, false };
        } else if (kind == "schema") {
            g.edgeIndex(0, 0) = 5000;
        } else if (kind == "single") {
            g.nodeConfigFeat.reshape({ g.configCount(), g.nodeConfigFeat.size() / g.configCount() });
            NdArray<float> one({ 1, g.nodeConfigFeat.dim(1) });
            std::copy_n(g.nodeConfigFeat.row(0), one.size(), one.data());
            one.reshape({ 1, g.configurableCount(), kLayoutConfigFeatures });
            g.nodeConfigFeat = one;
            g.configRuntime = NdArray<int64_t>::fromVector({ 1 }, { 77 });
        } else if (kind == "labelledtest") {
            file = "test/bad.npz";
        }
        if (kind == "garbage") {
            testutil::writeAll(folder + "/" + file, "this is not a zip archive at all");
        } else if (kind == "tile") {
            SynthCollectionSpec spec;
            spec.kind = GraphKind::Tile;
            spec.graphs = 2;
            spec.configs = 6;
            spec.minInstructions = 60;
            spec.maxInstructions = 150;
            const QString tiles = dir.path() + "/tiles";
            const auto written = writeSynthCollection(spec, testutil::str(tiles), nullptr);
            QVERIFY(QFile::copy(tiles + "/" + QString::fromStdString(written.files.front()), folder + "/" + file));
        } else {
            saveLayoutGraph(g, testutil::str(folder + "/" + file));
        }
        const TreeCheck check = checkDatasetTree(testutil::str(dir.path()), nullptr);
        const CollectionCheck& c = check.collections.front();
        QCOMPARE(c.problems.size(), size_t(1));
        const TreeProblem* p = findProblem(c, testutil::str(file));
        QVERIFY2(p, c.problems.front().file.c_str());
        QVERIFY2(QString::fromStdString(p->problem).contains(problem), p->problem.c_str());
        QCOMPARE(p->severity == TreeProblem::Severity::Error, error);
        QCOMPARE(check.errors(), error ? 1 : 0);
        if (kind == "duplicates") {
            QVERIFY(c.duplicateConfigs > 0);
            QCOMPARE(QString::fromStdString(p->problem),
                QString("%1 of %2 configurations repeat an earlier one").arg(c.duplicateConfigs).arg(g.configCount()));
        }
    }

    // A folder with splits but no dataset path: named by its folder, kind from its files.
    void synthCollectionFolder()
    {
        QTemporaryDir dir;
        SynthCollectionSpec spec;
        spec.kind = GraphKind::Tile;
        spec.graphs = 3;
        spec.configs = 6;
        spec.minInstructions = 60;
        spec.maxInstructions = 150;
        writeSynthCollection(spec, testutil::str(dir.path() + "/mytiles"), nullptr);
        const TreeCheck check = checkDatasetTree(testutil::str(dir.path() + "/mytiles"), nullptr);
        QCOMPARE(QString::fromStdString(check.collections.front().id), QString("mytiles"));
        QVERIFY(check.collections.front().kind == GraphKind::Tile);
        QCOMPARE(check.errors(), 0);
    }

    void notATree()
    {
        QTemporaryDir dir;
        testutil::expectInputError(
            [&] { checkDatasetTree(testutil::str(dir.path()), nullptr); }, { dir.path(), "collection folder" });
        testutil::expectInputError(
            [&] { checkDatasetTree(testutil::str(dir.path() + "/missing"), nullptr); }, { "missing", "not a folder" });
    }
};

QTEST_GUILESS_MAIN(TestDataTree)
#include "tst_datatree.moc"
