// SPDX-License-Identifier: Apache-2.0
// The `tgraph` command line as a user runs it: help, usage errors, inspect/prune/synth, the
// bad-input list of the foundation issue, Ctrl-C, and outputs that numpy loads.

#include "core/graphio.h"
#include "core/npz.h"
#include "core/synthetic.h"
#include "testutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <csignal>

using namespace tgraph;

namespace {

QString tgraphExe() { return testutil::binDir() + "/tgraph"; }

testutil::ProcessResult tgraphRun(const QStringList& args) { return testutil::run(tgraphExe(), args); }

// The members of a valid small layout graph as npy bytes, so cases can replace one of them.
using Members = std::vector<std::pair<std::string, QByteArray>>;

template <class T> QByteArray npyBytes(const NdArray<T>& a, DType as = dtypeOf<T>())
{
    const NpyArray n = NpyArray::from(a, as);
    return QByteArray::fromStdString(makeNpyHeader(n.header.dtype, n.header.shape, false))
        + QByteArray(reinterpret_cast<const char*>(n.data.data()), qsizetype(n.data.size()));
}

QByteArray rawNpy(const std::string& dict, qsizetype dataBytes)
{
    std::string text = dict;
    text.append((64 - (10 + text.size() + 1) % 64) % 64, ' ');
    text += '\n';
    std::string out("\x93NUMPY\x01\x00", 8);
    out += char(text.size() & 0xff);
    out += char(text.size() >> 8);
    return QByteArray::fromStdString(out + text) + QByteArray(dataBytes, '\0');
}

Members membersOf(const LayoutGraph& g)
{
    return { { "node_feat", npyBytes(g.nodeFeat) },
        { "node_opcode", npyBytes(g.nodeOpcode, DType { ScalarType::UInt8, false }) },
        { "edge_index", npyBytes(g.edgeIndex) }, { "node_config_feat", npyBytes(g.nodeConfigFeat) },
        { "node_config_ids", npyBytes(g.nodeConfigIds) }, { "config_runtime", npyBytes(g.configRuntime) } };
}

void writeMembers(const QString& path, const Members& members, NpzCompression compression)
{
    NpzWriter w(testutil::str(path), compression);
    for (const auto& [name, bytes] : members)
        w.addFile(name + ".npy", bytes.constData(), size_t(bytes.size()));
    w.commit();
}

void replace(Members& m, const std::string& name, const QByteArray& bytes)
{
    for (auto& [n, b] : m)
        if (n == name)
            b = bytes;
}

LayoutGraph smallSynthetic(int64_t configs = 12)
{
    SyntheticLayoutSpec spec;
    spec.nodes = 200;
    spec.configurableNodes = 8;
    spec.configs = configs;
    spec.seed = 5;
    return makeSyntheticLayoutGraph(spec);
}

} // namespace

class TestCli : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString path(const QString& name) const { return m_dir.filePath(name); }

private Q_SLOTS:
    void initTestCase() { QVERIFY2(QFileInfo(tgraphExe()).isExecutable(), qPrintable(tgraphExe())); }

    void helpAndUsage()
    {
        auto r = tgraphRun({ "--help" });
        QCOMPARE(r.exitCode, 0);
        for (const char* cmd : { "inspect", "prune", "synth" })
            QVERIFY(r.out.contains(cmd));
        for (const char* cmd : { "inspect", "prune", "synth" }) {
            r = tgraphRun({ cmd, "--help" });
            QCOMPARE(r.exitCode, 0);
            QVERIFY2(r.out.startsWith("Usage: tgraph " + QByteArray(cmd)), r.out.constData());
        }
        QVERIFY(tgraphRun({ "prune", "--help" }).out.contains("keep-first"));
        QVERIFY(tgraphRun({ "inspect", "--help" }).out.contains("--json"));
        QCOMPARE(tgraphRun({}).exitCode, 2);
        QCOMPARE(tgraphRun({ "frobnicate" }).exitCode, 2);
        r = tgraphRun({ "inspect", "--bogus", "x.npz" });
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("unknown option --bogus"));
        QCOMPARE(tgraphRun({ "inspect" }).exitCode, 2);
        QCOMPARE(tgraphRun({ "prune", "in.npz" }).exitCode, 2); // no -o
        r = tgraphRun({ "prune", "in.npz", "-o", "out.npz", "--dedup", "keep-max" });
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("keep-max"));
        QCOMPARE(tgraphRun({ "synth", "-o", path("x.npz"), "--nodes", "ten" }).exitCode, 2);
        QVERIFY(tgraphRun({ "--version" }).out.startsWith("tgraph "));
    }

    void synthInspectPruneRoundTrip()
    {
        const QString in = path("synth.npz");
        auto r = tgraphRun(
            { "synth", "-o", in, "--nodes", "600", "--configurable", "20", "--configs", "150", "--seed", "9" });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = tgraphRun({ "inspect", in, "--json" });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject info = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(info["kind"].toString(), QString("layout"));
        QCOMPARE(info["nodes"].toInt(), 600);
        QCOMPARE(info["configurable_nodes"].toInt(), 20);
        QCOMPARE(info["configs"].toInt(), 150);
        const int duplicates = info["duplicate_configs"].toInt();
        QVERIFY(duplicates > 0);

        const QString out = path("pruned.npz");
        r = tgraphRun({ "prune", in, "-o", out, "--dedup", "keep-first", "--compress" });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.contains("600 -> "));
        QVERIFY(r.out.contains(QByteArray("150 -> ") + QByteArray::number(150 - duplicates)));
        // numpy loads the output: the same keys as the dataset, compressed int32 configs.
        const auto p = testutil::run(testutil::python(),
            { "-c",
                "import numpy as np,sys; d=np.load(sys.argv[1]); "
                "assert sorted(d.files)==sorted(['node_feat','node_opcode','edge_index','node_config_feat',"
                "'node_config_ids','config_runtime','node_splits']), d.files; "
                "c=d['node_config_feat']; assert c.dtype==np.int32 and c.shape==(int(sys.argv[2]),20,3), c.shape; "
                "assert d['node_opcode'].dtype==np.uint8; assert d['node_splits'].shape[0]==1; "
                "assert d['edge_index'].max() < d['node_feat'].shape[0]; print(d['node_feat'].shape[0])",
                out, QString::number(150 - duplicates) });
        QVERIFY2(p.exitCode == 0, p.err.constData());
        r = tgraphRun({ "inspect", out, "--json" });
        QCOMPARE(QDocumentNodes(r.out), p.out.trimmed().toInt());
        QCOMPARE(QJsonDocument::fromJson(r.out).object()["configs_compressed"].toBool(), true);

        // Several files: a JSON array.
        r = tgraphRun({ "inspect", in, out, "--json" });
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(r.out).array().size(), 2);
    }

    void pruneRefusesTileGraphs()
    {
        TileGraph t;
        t.nodeFeat = NdArray<float>({ 2, kNodeFeatures }, 0.0f);
        t.nodeOpcode = NdArray<int64_t>::fromVector({ 2 }, { 63, 75 });
        t.edgeIndex = NdArray<int64_t>::fromVector({ 1, 2 }, { 1, 0 });
        t.configFeat = NdArray<float>({ 2, kTileConfigFeatures }, 1.0f);
        t.configRuntime = NdArray<int64_t>::fromVector({ 2 }, { 10, 20 });
        t.configRuntimeNormalizers = NdArray<int64_t>({ 2 }, 20);
        saveTileGraph(t, testutil::str(path("tile.npz")));
        QCOMPARE(tgraphRun({ "inspect", path("tile.npz") }).exitCode, 0);
        const auto r = tgraphRun({ "prune", path("tile.npz"), "-o", path("tile_out.npz") });
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains("tile graph"));
        QVERIFY(!QFileInfo::exists(path("tile_out.npz")));
    }

    void badInputs_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QStringList>("expected"); // substrings of the one-line error besides the file name
        QTest::newRow("truncated zip") << "truncated" << QStringList { "not a zip archive" };
        QTest::newRow("CRC mismatch") << "crc" << QStringList { "node_feat", "CRC-32 mismatch" };
        QTest::newRow("npy header lies about size") << "lies" << QStringList { "node_feat", "lies about the size" };
        QTest::newRow("negative shape") << "negative" << QStringList { "node_opcode", "negative dimension" };
        QTest::newRow("overflowing shape") << "overflow" << QStringList { "node_feat", "overflows" };
        QTest::newRow("unknown dtype") << "dtype" << QStringList { "node_feat", "not supported" };
        QTest::newRow("object array") << "object" << QStringList { "config_runtime", "object arrays" };
        QTest::newRow("edge index out of range") << "edge" << QStringList { "edge_index[", "out of range" };
        QTest::newRow("config ids out of range") << "configids" << QStringList { "node_config_ids[3]", "out of range" };
        QTest::newRow("NaN runtimes") << "nan" << QStringList { "config_runtime[2]", "NaN runtime" };
        QTest::newRow("empty graph") << "empty" << QStringList { "node_feat", "empty graph" };
        QTest::newRow("one config") << "oneconfig" << QStringList { "config_runtime", "only 1 configuration" };
        QTest::newRow("not an npz") << "text" << QStringList { "not a zip archive" };
        QTest::newRow("missing file") << "missing" << QStringList { "cannot open" };
    }
    void badInputs()
    {
        QFETCH(QString, name);
        QFETCH(QStringList, expected);
        const LayoutGraph g = smallSynthetic();
        Members m = membersOf(g);
        NpzCompression compression = NpzCompression::Deflated;
        const QString file = path("bad_" + name + ".npz");
        QByteArray patchedFile;
        if (name == "truncated" || name == "crc") {
            compression = NpzCompression::Stored;
        } else if (name == "lies") {
            replace(m, "node_feat",
                rawNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (200, 140), }", 200 * 139 * 4));
        } else if (name == "negative") {
            replace(m, "node_opcode", rawNpy("{'descr': '|u1', 'fortran_order': False, 'shape': (-200,), }", 0));
        } else if (name == "overflow") {
            replace(m, "node_feat",
                rawNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (9223372036854775807, 140), }", 0));
        } else if (name == "dtype") {
            replace(m, "node_feat",
                rawNpy("{'descr': '<c8', 'fortran_order': False, 'shape': (200, 140), }", 200 * 140 * 8));
        } else if (name == "object") {
            replace(m, "config_runtime", rawNpy("{'descr': '|O', 'fortran_order': False, 'shape': (12,), }", 64));
        } else if (name == "edge") {
            LayoutGraph b = g;
            b.edgeIndex(b.edgeCount() - 1, 1) = 200;
            replace(m, "edge_index", npyBytes(b.edgeIndex));
        } else if (name == "configids") {
            LayoutGraph b = g;
            b.nodeConfigIds[3] = -1;
            replace(m, "node_config_ids", npyBytes(b.nodeConfigIds));
        } else if (name == "nan") {
            NdArray<double> runtime({ 12 }, 1e6);
            runtime[2] = std::nan("");
            replace(m, "config_runtime", npyBytes(runtime));
        } else if (name == "empty") {
            m = { { "node_feat", npyBytes(NdArray<float>({ 0, kNodeFeatures })) },
                { "node_opcode", npyBytes(NdArray<int64_t>({ 0 })) },
                { "edge_index", npyBytes(NdArray<int64_t>({ 0, 2 })) },
                { "node_config_feat", npyBytes(NdArray<float>({ 0, 0, 18 })) },
                { "node_config_ids", npyBytes(NdArray<int64_t>({ 0 })) },
                { "config_runtime", npyBytes(NdArray<int64_t>({ 0 })) } };
        } else if (name == "oneconfig") {
            m = membersOf(smallSynthetic(1));
        }
        if (name == "text") {
            testutil::writeAll(file, "this is not a numpy archive\n");
        } else if (name != "missing") {
            writeMembers(file, m, compression);
            QByteArray bytes = testutil::readAll(file);
            if (name == "truncated")
                bytes = bytes.left(bytes.size() / 2);
            if (name == "crc")
                bytes[300] = char(bytes[300] ^ 0x20); // inside node_feat's data (stored, first member)
            testutil::writeAll(file, bytes);
        }

        for (const QString& command : { QString("inspect"), QString("prune") }) {
            QDir outDir(path("out_" + name + "_" + command));
            QVERIFY(outDir.mkpath("."));
            const QString out = outDir.filePath("out.npz");
            const QStringList args
                = command == "inspect" ? QStringList { "inspect", file } : QStringList { "prune", file, "-o", out };
            const auto r = tgraphRun(args);
            QVERIFY2(!r.crashed, "crashed");
            QVERIFY2(r.exitCode == 1, qPrintable(command + " exit " + QString::number(r.exitCode) + ": " + r.err));
            const QString err = QString::fromUtf8(r.err).trimmed();
            QVERIFY2(!err.contains('\n'), qPrintable("more than one line: " + err));
            QVERIFY2(err.contains(file), qPrintable("no file name in: " + err));
            for (const QString& part : expected)
                QVERIFY2(err.contains(part), qPrintable("expected '" + part + "' in: " + err));
            QVERIFY(r.out.isEmpty());
            QCOMPARE(outDir.entryList(QDir::Files | QDir::Hidden | QDir::System).size(), 0); // no partial output
        }
    }

    void interruptRemovesPartialOutput()
    {
        // Big enough that loading takes well over a second: Ctrl-C arrives mid-way.
        SyntheticLayoutSpec spec;
        spec.nodes = 2000;
        spec.configurableNodes = 400;
        spec.configs = 6000;
        const QString in = path("big.npz");
        GraphWriteOptions w;
        w.compressed = true;
        saveLayoutGraph(makeSyntheticLayoutGraph(spec), testutil::str(in), w);
        QDir outDir(path("out_interrupt"));
        QVERIFY(outDir.mkpath("."));
        QProcess p;
        p.start(tgraphExe(), { "prune", in, "-o", outDir.filePath("out.npz"), "--dedup", "keep-min" });
        QVERIFY(p.waitForStarted());
        QTest::qWait(400);
        QVERIFY2(p.state() == QProcess::Running, "prune finished before it could be interrupted");
        ::kill(pid_t(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 130);
        QVERIFY(p.readAllStandardError().contains("cancelled"));
        QCOMPARE(outDir.entryList(QDir::Files | QDir::Hidden | QDir::System).size(), 0);
    }

private:
    static int QDocumentNodes(const QByteArray& json)
    {
        return QJsonDocument::fromJson(json).object()["nodes"].toInt();
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
