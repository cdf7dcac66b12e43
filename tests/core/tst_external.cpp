// SPDX-License-Identifier: Apache-2.0
// Real public TpuGraphs files from ../shared/data (label `external`; skipped when absent).

#include "core/graph/configs.h"
#include "core/graph/graphio.h"
#include "core/io/npz.h"
#include "core/graph/prune.h"
#include "core/inspect/summary.h"
#include "testutil.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace tgraph;

class TestExternal : public QObject
{
    Q_OBJECT

private:
    QString m_data;
    QTemporaryDir m_dir;
    bool m_haveNumpy = false;
    QString m_whyNot;

    std::string npz(const char* name) const { return testutil::str(m_data + "/tpu_graphs/npz/" + name); }

private Q_SLOTS:
    void initTestCase()
    {
        m_data = testutil::sharedDataDir();
        if (m_data.isEmpty())
            QSKIP("../shared/data is absent: real TpuGraphs inputs not available (set TGRAPH_SHARED_DIR)");
        m_haveNumpy = testutil::havePythonModules({ "numpy" }, &m_whyNot);
    }

    void layoutFilesMatchTheirDescription_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<qint64>("nodes");
        QTest::addColumn<qint64>("configurable");
        QTest::addColumn<qint64>("configs");
        QTest::addColumn<qint64>("minRuntime");
        QTest::addColumn<qint64>("maxRuntime");
        QTest::newRow("unet3d") << "layout_xla_default_train_unet3d.npz" << qint64(2774) << qint64(56) << qint64(1159)
                                << qint64(23270598358) << qint64(70950843334);
        QTest::newRow("rnn") << "layout_xla_random_train_openai_v0_rnn_optimized.npz" << qint64(1277) << qint64(62)
                             << qint64(20) << qint64(461340764) << qint64(461436372);
    }
    void layoutFilesMatchTheirDescription()
    {
        QFETCH(QString, file);
        QFETCH(qint64, nodes);
        QFETCH(qint64, configurable);
        QFETCH(qint64, configs);
        QFETCH(qint64, minRuntime);
        QFETCH(qint64, maxRuntime);
        const std::string path = npz(qPrintable(file));
        const LayoutGraph g = loadLayoutGraph(path);
        QCOMPARE(g.nodeCount(), nodes);
        QCOMPARE(g.configurableCount(), configurable);
        QCOMPARE(g.configCount(), configs);
        QCOMPARE(g.storage.at("node_splits").shape.size(), size_t(2)); // published as (1, k)
        QCOMPARE(g.storage.at("node_opcode").dtype.descr(), std::string("|u1"));
        const GraphSummary s = summarizeGraphFile(path);
        QCOMPARE(s.runtimeMin, minRuntime);
        QCOMPARE(s.runtimeMax, maxRuntime);
        QVERIFY(s.hasRuntimes);
    }

    void tileFilesLoad_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<qint64>("configs");
        QTest::newRow("retinanet") << "tile_xla_train_retinanet.2x2.fp32_-342c949e14733d96.npz" << qint64(2);
        QTest::newRow("inception") << "tile_xla_valid_inception_v3_batch_128_train_426e203f19335d17.npz" << qint64(9);
    }
    void tileFilesLoad()
    {
        QFETCH(QString, file);
        QFETCH(qint64, configs);
        const TileGraph t = loadTileGraph(npz(qPrintable(file)));
        QCOMPARE(t.nodeCount(), int64_t(2));
        QCOMPARE(t.configCount(), configs);
        QCOMPARE(t.configFeat.dim(1), int64_t(kTileConfigFeatures));
        QVERIFY(t.hasRuntimes());
    }

    void pruneAndDedupMatchNumpyReference_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("unet3d") << "layout_xla_default_train_unet3d.npz";
        QTest::newRow("rnn") << "layout_xla_random_train_openai_v0_rnn_optimized.npz";
    }
    void pruneAndDedupMatchNumpyReference()
    {
        if (!m_haveNumpy)
            QSKIP(qPrintable(m_whyNot));
        QFETCH(QString, file);
        const std::string path = npz(qPrintable(file));
        const QString ref = m_dir.filePath(file + ".ref.npz");
        const auto r = testutil::run(
            testutil::python(), { testutil::toolsDir() + "/prune_reference.py", QString::fromStdString(path), ref });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        NpzReader want(testutil::str(ref));

        const LayoutGraph g = loadLayoutGraph(path);
        const PrunedGraph p = pruneToConfigurable(g, path);
        QVERIFY(p.graph.nodeFeat == want.read<float>("node_feat"));
        QVERIFY(p.graph.nodeOpcode == want.read<int64_t>("node_opcode"));
        QVERIFY(p.graph.edgeIndex == want.read<int64_t>("edge_index"));
        QVERIFY(p.graph.nodeConfigIds == want.read<int64_t>("node_config_ids"));
        const DedupResult d = dedupConfigs(g.nodeConfigFeat, g.configRuntime, DedupPolicy::KeepFirst);
        QCOMPARE(d.groups, want.read<int64_t>("unique_configs")[0]);
        const NdArray<int64_t> first = want.read<int64_t>("first_of_group");
        QCOMPARE(d.kept, std::vector<int64_t>(first.data(), first.data() + first.size()));
    }

    void rewrittenFilesAreIdenticalInNumpy()
    {
        if (!m_haveNumpy)
            QSKIP(qPrintable(m_whyNot));
        for (const char* file :
            { "layout_xla_default_train_unet3d.npz", "tile_xla_train_retinanet.2x2.fp32_-342c949e14733d96.npz" }) {
            const QString out = m_dir.filePath(QString(file) + ".rewritten.npz");
            NpzReader in(npz(file));
            if (detectGraphKind(in) == GraphKind::Layout)
                saveLayoutGraph(readLayoutGraph(in), testutil::str(out));
            else
                saveTileGraph(readTileGraph(in), testutil::str(out));
            const auto r = testutil::run(testutil::python(),
                { testutil::toolsDir() + "/npz_compare.py", QString::fromStdString(npz(file)), out });
            QVERIFY2(r.exitCode == 0, (r.out + r.err).constData());
        }
    }
};

QTEST_GUILESS_MAIN(TestExternal)
#include "tst_external.moc"
