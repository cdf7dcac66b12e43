// SPDX-License-Identifier: Apache-2.0
// The competition end to end on a TpuGraphs tree (docs/formats.md §16.5): `tgraph predict --tree`
// writes the submission (read back: header, the set of IDs, every layout row a permutation of the
// graph's configs, every tile row 5 distinct configs), `tgraph eval --tree` scores each collection
// as the competition does and averages them, matching per-collection `tgraph eval --data` runs.

#include "testutil.h"

#include "core/graph/graphio.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTemporaryDir>

#include <cmath>

using namespace testutil;

namespace {

QString tgraphExe() { return binDir() + "/tgraph"; }

ProcessResult tg(QStringList args)
{
    if (args.front() == "train" || args.front() == "predict" || args.front() == "eval")
        args << "--threads"
             << "1";
    return run(tgraphExe(), args, 300000);
}

const QStringList kLayoutCollections { "layout:xla:default", "layout:xla:random", "layout:nlp:default",
    "layout:nlp:random" };

QString folderOf(const QString& id)
{
    if (id == "tile:xla")
        return "npz/tile/xla";
    QStringList parts = id.split(':');
    return "npz/" + parts.join('/');
}

} // namespace

class TestCompetition : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_tree, m_layoutWeights, m_tileWeights;

    QStringList weightsFor(const QStringList& collections) const
    {
        QStringList args;
        for (const QString& id : collections)
            args << "--weights-for" << id + "=" + (id == "tile:xla" ? m_tileWeights : m_layoutWeights);
        return args;
    }

    QStringList npzIn(const QString& folder) const
    {
        return QDir(folder).entryList({ "*.npz" }, QDir::Files, QDir::Name);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const QString layout = m_dir.filePath("layout"), tile = m_dir.filePath("tile");
        ProcessResult r = tg({ "synth", "--collection", "layout", "-o", layout, "--graphs", "8", "--configs", "24",
            "--max-size", "400", "--seed", "3" });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = tg({ "synth", "--collection", "tile", "-o", tile, "--graphs", "8", "--configs", "16", "--max-size", "400",
            "--seed", "4" });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        // The tree as data fetch lays it out; the four layout collections share the generated graphs.
        m_tree = m_dir.filePath("tree");
        for (const QString& id : QStringList { "tile:xla" } + kLayoutCollections)
            for (const QString split : { "train", "valid", "test" }) {
                const QString src = (id == "tile:xla" ? tile : layout) + "/" + split;
                const QString dst = m_tree + "/" + folderOf(id) + "/" + split;
                QVERIFY(QDir().mkpath(dst));
                for (const QString& f : npzIn(src))
                    QVERIFY(QFile::copy(src + "/" + f, dst + "/" + f));
            }
        for (const auto& [data, out] :
            { std::pair { layout, m_dir.filePath("run-layout") }, std::pair { tile, m_dir.filePath("run-tile") } }) {
            r = tg({ "train", "--data", data, "--steps", "4", "--configs-per-step", "16", "--eval-every", "0",
                "--log-every", "4", "--out", out });
            QVERIFY2(r.exitCode == 0, r.err.constData());
        }
        m_layoutWeights = m_dir.filePath("run-layout/best.npz");
        m_tileWeights = m_dir.filePath("run-tile/best.npz");
    }

    void submission()
    {
        const QString csv = m_dir.filePath("submission.csv");
        const ProcessResult r = tg(QStringList { "predict", "--tree", m_tree, "--kaggle-csv", csv }
            + weightsFor(QStringList { "tile:xla" } + kLayoutCollections));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QStringList lines = QString::fromUtf8(readAll(csv)).split('\n', Qt::SkipEmptyParts);
        QVERIFY(!lines.isEmpty());
        QCOMPARE(lines.front(), QString("ID,TopConfigs"));
        QSet<QString> want, got;
        for (const QString& id : QStringList { "tile:xla" } + kLayoutCollections)
            for (const QString& f : npzIn(m_tree + "/" + folderOf(id) + "/test"))
                want.insert(id + ":" + QFileInfo(f).completeBaseName());
        QVERIFY(want.size() >= 5);
        for (const QString& line : lines.mid(1)) {
            const QStringList cells = line.split(',');
            QCOMPARE(cells.size(), 2);
            const QString id = cells[0];
            QVERIFY2(!got.contains(id), qPrintable("twice: " + id));
            got.insert(id);
            const QString collection = id.section(':', 0, id.startsWith("tile:") ? 1 : 2);
            const QString stem = id.mid(collection.size() + 1);
            const std::string file = str(m_tree + "/" + folderOf(collection) + "/test/" + stem + ".npz");
            const bool tile = collection == "tile:xla";
            const int64_t configs = tile ? tgraph::loadTileGraph(file, { 0 }).configCount()
                                         : tgraph::loadLayoutGraph(file, { 0 }).configCount();
            QSet<int64_t> seen;
            for (const QString& c : cells[1].split(';')) {
                bool ok = false;
                const int64_t v = c.toLongLong(&ok);
                QVERIFY2(ok && v >= 0 && v < configs, qPrintable(line));
                seen.insert(v);
            }
            const int64_t listed = cells[1].split(';').size();
            QCOMPARE(int64_t(seen.size()), listed); // distinct
            QCOMPARE(listed, tile ? std::min<int64_t>(5, configs) : configs); // tile: top 5; layout: a permutation
        }
        QCOMPARE(got, want);
    }

    void combinedScore()
    {
        const QStringList all = QStringList { "tile:xla" } + kLayoutCollections;
        const ProcessResult r = tg(QStringList { "eval", "--tree", m_tree, "--json" } + weightsFor(all));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject j = QJsonDocument::fromJson(r.out).object();
        const QJsonArray collections = j["collections"].toArray();
        QCOMPARE(collections.size(), 5);
        double sum = 0;
        for (const QJsonValue& v : collections) {
            const QJsonObject c = v.toObject();
            const QString id = c["collection"].toString();
            const bool tile = id == "tile:xla";
            QCOMPARE(c["metric"].toString(), QString(tile ? "tile_score" : "kendall_tau"));
            QCOMPARE(c["graphs"].toInt(), int(npzIn(m_tree + "/" + folderOf(id) + "/valid").size()));
            // The same number as a plain eval of that collection's valid split.
            const ProcessResult one = tg({ "eval", "--weights", tile ? m_tileWeights : m_layoutWeights, "--data",
                m_tree + "/" + folderOf(id) + "/valid", "--json" });
            QVERIFY2(one.exitCode == 0, one.err.constData());
            const QJsonObject mean = QJsonDocument::fromJson(one.out).object()["mean"].toObject();
            const double want = mean[tile ? "tile_score" : "kendall_tau"].toDouble();
            QVERIFY2(std::abs(c["score"].toDouble() - want) < 1e-12, qPrintable(id));
            sum += c["score"].toDouble();
        }
        QVERIFY(std::abs(j["combined_score"].toDouble() - sum / 5) < 1e-12);
        QCOMPARE(j["collections_scored"].toInt(), 5);
        // The table form names each collection and the combined score.
        const ProcessResult table = tg(QStringList { "eval", "--tree", m_tree } + weightsFor({ "tile:xla" }));
        QVERIFY2(table.exitCode == 0, table.err.constData());
        QVERIFY(table.out.contains("tile:xla"));
        QVERIFY(table.out.contains("combined"));
        QVERIFY(table.out.contains("the competition's score averages all five"));
    }

    void refused()
    {
        ProcessResult r = tg(QStringList { "predict", "--tree", m_tree, "--weights", m_layoutWeights });
        QCOMPARE(r.exitCode, 2);
        r = tg(QStringList { "predict", "--tree", m_tree, "--weights-for", "layout:xla:fast=" + m_layoutWeights });
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("layout:xla:fast"));
        const QString empty = m_dir.filePath("empty-tree");
        QDir().mkpath(empty + "/npz");
        r = tg(QStringList { "eval", "--tree", empty } + weightsFor({ "tile:xla" }));
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("npz/tile/xla/valid") && r.err.contains("data fetch"), r.err.constData());
        // A tile model for a layout collection: refused before anything is written.
        const QString csv = m_dir.filePath("wrong.csv");
        r = tg(QStringList {
            "predict", "--tree", m_tree, "--kaggle-csv", csv, "--weights-for", "layout:xla:default=" + m_tileWeights });
        QCOMPARE(r.exitCode, 1);
        QVERIFY(!QFileInfo::exists(csv));
    }
};

QTEST_GUILESS_MAIN(TestCompetition)
#include "tst_competition.moc"
