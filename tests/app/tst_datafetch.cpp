// SPDX-License-Identifier: Apache-2.0
// `tgraph data fetch` end to end (docs/formats.md §16): archives made from generated collections
// (tgraph synth) by tests/tools/dataset_archives.py, served by the loopback server
// tests/tools/range_server.py (Range requests, transfers cut on purpose, a log of every request)
// or read from a mirror folder. Nothing here touches the internet.

#include "rangeserver.h"
#include "testutil.h"

#include "core/data/fetch.h"
#include "core/util/error.h"

#include <QDirIterator>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QThread>

#include <csignal>

using namespace testutil;

namespace {

QString tgraphExe() { return binDir() + "/tgraph"; }

QStringList filesBelow(const QString& dir)
{
    QStringList files;
    QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext())
        files << QDir(dir).relativeFilePath(it.next());
    files.sort();
    return files;
}

} // namespace

class TestDataFetch : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_tile, m_layout, m_mirror;

    ProcessResult tgraph(const QStringList& args) { return run(tgraphExe(), args, 120000); }

    void makeHostile(const QString& kind, const QString& mirror)
    {
        QDir().mkpath(mirror);
        const ProcessResult r = run(python(),
            { toolsDir() + "/dataset_archives.py", "hostile", "--kind", kind, "--tile", m_tile, "--out",
                mirror + "/npz_tile_xla_train.tar" });
        QVERIFY2(r.exitCode == 0, r.err.constData());
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QString why;
        if (!havePythonModules({ "tarfile", "http.server" }, &why))
            QSKIP(qPrintable(why));
        m_tile = m_dir.filePath("synth-tile");
        m_layout = m_dir.filePath("synth-layout");
        m_mirror = m_dir.filePath("mirror");
        for (const auto& [kind, out] : { std::pair { QString("tile"), m_tile }, { QString("layout"), m_layout } }) {
            const ProcessResult r = tgraph({ "synth", "--collection", kind, "-o", out, "--graphs", "4", "--configs",
                "12", "--min-size", "60", "--max-size", "200" });
            QVERIFY2(r.exitCode == 0, r.err.constData());
        }
        const ProcessResult r = run(python(),
            { toolsDir() + "/dataset_archives.py", "mirror", "--tile", m_tile, "--layout", m_layout, "--out",
                m_mirror });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(QDir(m_mirror).entryList(QDir::Files).size(), 6);
    }

    // --mirror FOLDER: the archives read in place, the tree laid out as the dataset's, every npz
    // byte-identical to its source; a second call fetches nothing.
    void mirrorFolderAndIdempotence()
    {
        const QString out = m_dir.filePath("out-mirror");
        ProcessResult r = tgraph(
            { "data", "fetch", "--collections", "tile:xla,layout:xla:default", "--mirror", m_mirror, "-o", out });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.contains("fetched 6 archives"));
        for (const auto& [folder, src] :
            { std::pair { QString("npz/tile/xla"), m_tile }, { QString("npz/layout/xla/default"), m_layout } })
            for (const QString split : { "train", "valid", "test" }) {
                const QStringList want = QDir(src + "/" + split).entryList({ "*.npz" }, QDir::Files, QDir::Name);
                const QString dir = out + "/" + folder + "/" + split;
                QCOMPARE(QDir(dir).entryList({ "*.npz" }, QDir::Files, QDir::Name), want);
                for (const QString& f : want)
                    QCOMPARE(readAll(dir + "/" + f), readAll(src + "/" + split + "/" + f));
                QVERIFY(QFileInfo::exists(dir + "/.tgraph-fetch.json"));
            }
        QVERIFY(!QFileInfo::exists(out + "/.tgraph-download")); // nothing left behind
        const QStringList before = filesBelow(out);
        r = tgraph(
            { "data", "fetch", "--collections", "tile:xla,layout:xla:default", "--mirror", m_mirror, "-o", out });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("nothing to fetch: all 6 archives already present"), r.out.constData());
        QCOMPARE(filesBelow(out), before);
        // The fetched tree passes verify.
        r = tgraph({ "data", "verify", out });
        QVERIFY2(r.exitCode == 0, r.out.constData());
        QVERIFY(r.out.contains("tile:xla"));
        QVERIFY(r.out.contains("layout:xla:default"));
        // An unmeasured (test) graph among the valid ones: an error, exit 1, in the table and the JSON.
        const QString testDir = out + "/npz/tile/xla/test";
        const QString testFile = QDir(testDir).entryList({ "*.npz" }, QDir::Files).front();
        QVERIFY(QFile::copy(testDir + "/" + testFile, out + "/npz/tile/xla/valid/unmeasured.npz"));
        r = tgraph({ "data", "verify", out });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains("tile:xla: error: valid/unmeasured.npz: config_runtime: all"), r.out.constData());
        r = tgraph({ "data", "verify", out, "--json" });
        QCOMPARE(r.exitCode, 1);
        const QJsonObject j = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(j["errors"].toInt(), 1);
        QCOMPARE(j["collections"].toArray().size(), 2);
        QCOMPARE(j["collections"].toArray()[0].toObject()["graphs"].toObject()["valid"].toInt(), 2);
    }

    // A transfer cut in the middle is resumed from the byte it stopped at; a second call sends no
    // request at all.
    void resumeAfterCutTransfer()
    {
        RangeServer server(m_mirror, m_dir.path(), { "--cut", "npz_tile_xla_train.tar:3000" });
        QVERIFY(server.ok());
        const QString out = m_dir.filePath("out-http");
        ProcessResult r = tgraph(
            { "data", "fetch", "--collections", "tile:xla", "--splits", "train", "--mirror", server.url(), "-o", out });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QStringList requests = server.requests();
        QCOMPARE(requests,
            QStringList({ "HEAD /npz_tile_xla_train.tar -", "GET /npz_tile_xla_train.tar -",
                "GET /npz_tile_xla_train.tar bytes=3000-" }));
        const QString dir = out + "/npz/tile/xla/train";
        for (const QString& f : QDir(m_tile + "/train").entryList({ "*.npz" }, QDir::Files))
            QCOMPARE(readAll(dir + "/" + f), readAll(m_tile + "/train/" + f));
        r = tgraph(
            { "data", "fetch", "--collections", "tile:xla", "--splits", "train", "--mirror", server.url(), "-o", out });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.contains("nothing to fetch"));
        QCOMPARE(server.requests().size(), 3); // no request sent
    }

    // A part left by an interrupted run (Ctrl-C) is continued by the next run: Range from its size.
    void resumeAcrossRuns()
    {
        const QString out = m_dir.filePath("out-part");
        QDir().mkpath(out + "/.tgraph-download");
        const QByteArray archive = readAll(m_mirror + "/npz_layout_xla_default_valid.tar");
        writeAll(out + "/.tgraph-download/npz_layout_xla_default_valid.tar.part", archive.left(4096));
        RangeServer server(m_mirror, m_dir.path());
        QVERIFY(server.ok());
        const ProcessResult r = tgraph({ "data", "fetch", "--collections", "layout:xla:default", "--splits", "valid",
            "--mirror", server.url(), "-o", out });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("resumed at 4.00 KiB"), r.out.constData());
        QCOMPARE(server.requests(),
            QStringList(
                { "HEAD /npz_layout_xla_default_valid.tar -", "GET /npz_layout_xla_default_valid.tar bytes=4096-" }));
        QCOMPARE(QDir(out + "/npz/layout/xla/default/valid").entryList({ "*.npz" }, QDir::Files),
            QDir(m_layout + "/valid").entryList({ "*.npz" }, QDir::Files));
        QVERIFY(!QFileInfo::exists(out + "/.tgraph-download"));
    }

    // Ctrl-C during a download: exit 130, the part kept, no split folder; the next run sends
    // "Range: bytes=N-" with N the part's size and completes it.
    void interruptAndResume()
    {
        const QString out = m_dir.filePath("out-sigint");
        const QString part = out + "/.tgraph-download/npz_tile_xla_valid.tar.part";
        qint64 kept = 0;
        {
            RangeServer slow(m_mirror, m_dir.path(), { "--throttle", "2000" });
            QVERIFY(slow.ok());
            QProcess fetch;
            fetch.start(tgraphExe(),
                { "data", "fetch", "--collections", "tile:xla", "--splits", "valid", "--mirror", slow.url(), "-o",
                    out });
            QVERIFY(fetch.waitForStarted());
            QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(part).size() >= 2000, 20000);
            ::kill(pid_t(fetch.processId()), SIGINT);
            QVERIFY(fetch.waitForFinished(20000));
            QCOMPARE(fetch.exitCode(), 130);
            kept = QFileInfo(part).size();
            QVERIFY2(kept > 0 && kept < QFileInfo(m_mirror + "/npz_tile_xla_valid.tar").size(),
                qPrintable(QString::number(kept)));
            QVERIFY(!QFileInfo::exists(out + "/npz"));
        }
        RangeServer server(m_mirror, m_dir.path());
        QVERIFY(server.ok());
        const ProcessResult r = tgraph(
            { "data", "fetch", "--collections", "tile:xla", "--splits", "valid", "--mirror", server.url(), "-o", out });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(server.requests(),
            QStringList(
                { "HEAD /npz_tile_xla_valid.tar -", QString("GET /npz_tile_xla_valid.tar bytes=%1-").arg(kept) }));
        const QString dir = out + "/npz/tile/xla/valid";
        for (const QString& f : QDir(m_tile + "/valid").entryList({ "*.npz" }, QDir::Files))
            QCOMPARE(readAll(dir + "/" + f), readAll(m_tile + "/valid/" + f));
    }

    // A server that ignores Range (200 with the whole file): the part starts over, the file is whole.
    void serverWithoutRange()
    {
        const QString out = m_dir.filePath("out-norange");
        QDir().mkpath(out + "/.tgraph-download");
        writeAll(out + "/.tgraph-download/npz_tile_xla_test.tar.part", "stale bytes that the file does not begin with");
        RangeServer server(m_mirror, m_dir.path(), { "--no-range" });
        QVERIFY(server.ok());
        const ProcessResult r = tgraph(
            { "data", "fetch", "--collections", "tile:xla", "--splits", "test", "--mirror", server.url(), "-o", out });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        // Asked with Range, answered whole (200): libcurl refuses that answer and the part starts over.
        QCOMPARE(server.requests(),
            QStringList({ "HEAD /npz_tile_xla_test.tar -", "GET /npz_tile_xla_test.tar bytes=45-",
                "GET /npz_tile_xla_test.tar -" }));
        for (const QString& f : QDir(m_tile + "/test").entryList({ "*.npz" }, QDir::Files))
            QCOMPARE(readAll(out + "/npz/tile/xla/test/" + f), readAll(m_tile + "/test/" + f));
    }

    // Two fetches into one folder at once: the second is refused while the first holds the folder.
    void oneFetchPerFolder()
    {
        const QString out = m_dir.filePath("out-lock");
        RangeServer slow(m_mirror, m_dir.path(), { "--throttle", "4000" });
        QVERIFY(slow.ok());
        QProcess first;
        first.start(tgraphExe(),
            { "data", "fetch", "--collections", "tile:xla", "--splits", "valid", "--mirror", slow.url(), "-o", out });
        QVERIFY(first.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(out + "/.tgraph-download/npz_tile_xla_valid.tar.part"), 20000);
        const ProcessResult second = tgraph(
            { "data", "fetch", "--collections", "tile:xla", "--splits", "valid", "--mirror", m_mirror, "-o", out });
        QCOMPARE(second.exitCode, 1);
        QVERIFY2(second.err.contains("another tgraph data fetch"), second.err.constData());
        QVERIFY(first.waitForFinished(30000));
        QCOMPARE(first.exitCode(), 0);
        QVERIFY(QFileInfo::exists(out + "/npz/tile/xla/valid/.tgraph-fetch.json"));
    }

    // A missing archive on the server: HTTP 404 named, nothing created.
    void missingArchive()
    {
        const QString empty = m_dir.filePath("empty-mirror");
        QDir().mkpath(empty);
        RangeServer server(empty, m_dir.path());
        QVERIFY(server.ok());
        const QString out = m_dir.filePath("out-404");
        const ProcessResult r
            = tgraph({ "data", "fetch", "--collections", "tile:xla", "--mirror", server.url(), "-o", out });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("npz_tile_xla_train.tar") && r.err.contains("404"), r.err.constData());
        QVERIFY(!QFileInfo::exists(out)); // not even the folder it made for the tree
    }

    // A fetch that fails leaves nothing it made: no part without a byte, no empty work folder, not
    // the output folder (and its parents) it created; a folder that was there before stays as it
    // was. A part holding bytes stays to be resumed (interruptAndResume).
    void failedFetchLeavesNothing()
    {
        const QString empty = m_dir.filePath("empty-mirror-head");
        QDir().mkpath(empty);
        // HEAD refused, then GET 404: the part was opened before the refusal came.
        RangeServer server(empty, m_dir.path(), { "--no-head" });
        QVERIFY(server.ok());
        const QString made = m_dir.filePath("made-by-fetch");
        const QStringList args { "data", "fetch", "--collections", "tile:xla", "--splits", "train", "--mirror" };
        ProcessResult r = tgraph(args + QStringList { server.url(), "-o", made + "/deeper/tree" });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("404"), r.err.constData());
        QCOMPARE(server.requests(), QStringList({ "HEAD /npz_tile_xla_train.tar -", "GET /npz_tile_xla_train.tar -" }));
        QVERIFY(!QFileInfo::exists(made));
        const QString existing = m_dir.filePath("was-there");
        QVERIFY(QDir().mkpath(existing));
        writeAll(existing + "/notes.txt", "mine");
        r = tgraph(args + QStringList { server.url(), "-o", existing });
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(QDir(existing).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
            QStringList({ "notes.txt" }));
        // A server nobody answers at (the discard port, closed on a test machine): likewise.
        r = tgraph(args + QStringList { "http://127.0.0.1:9/", "-o", made + "/tree" });
        QCOMPARE(r.exitCode, 1);
        QVERIFY(!QFileInfo::exists(made));
    }

    // What the Fetch dialog shows before a fetch: the archives with what a fetch would find of each
    // (planFetch), and their sizes from the mirror folder or the server's HEAD answers
    // (archiveSizes): "unknown" when the server does not tell or does not have the archive.
    void planAndSizes()
    {
        std::vector<std::string> names;
        for (const QString& f : QDir(m_mirror).entryList({ "*.tar" }, QDir::Files, QDir::Name))
            names.push_back(f.toStdString());
        QCOMPARE(names.size(), size_t(6));
        names.push_back("npz_layout_nlp_random_train.tar"); // not in the mirror
        const auto expectSizes = [&](const std::vector<tgraph::ArchiveSize>& sizes, bool known) {
            QCOMPARE(sizes.size(), names.size());
            for (size_t i = 0; i + 1 < names.size(); ++i) {
                QCOMPARE(sizes[i].archive, names[i]);
                QCOMPARE(sizes[i].bytes,
                    known ? QFileInfo(m_mirror + "/" + QString::fromStdString(names[i])).size() : int64_t(-1));
            }
            QCOMPARE(sizes.back().bytes, int64_t(-1));
            QVERIFY(!sizes.back().problem.empty());
        };
        expectSizes(tgraph::archiveSizes(m_mirror.toStdString(), names), true);
        {
            RangeServer server(m_mirror, m_dir.path());
            QVERIFY(server.ok());
            expectSizes(tgraph::archiveSizes(server.url().toStdString(), names), true);
            const QStringList requests = server.requests();
            QCOMPARE(requests.size(), int(names.size()));
            for (const QString& request : requests)
                QVERIFY2(request.startsWith("HEAD /"), qPrintable(request)); // nothing downloaded
        }
        {
            RangeServer server(m_mirror, m_dir.path(), { "--no-head" });
            QVERIFY(server.ok());
            const auto sizes = tgraph::archiveSizes(server.url().toStdString(), names);
            for (const tgraph::ArchiveSize& size : sizes)
                QCOMPARE(size.bytes, int64_t(-1));
            QVERIFY(sizes.front().problem.empty()); // the server just does not tell
        }
        // Nobody answers: one attempt, then every size unknown for that reason.
        const auto unreachable = tgraph::archiveSizes("http://127.0.0.1:9/", names, 5);
        for (const tgraph::ArchiveSize& size : unreachable) {
            QCOMPARE(size.bytes, int64_t(-1));
            QCOMPARE(size.problem, unreachable.front().problem);
        }
        QVERIFY(!unreachable.front().problem.empty());

        // The plan: a split fetched before is skipped, a part is resumed, a kept archive extracted.
        const QString out = m_dir.filePath("out-plan");
        ProcessResult r = tgraph(
            { "data", "fetch", "--collections", "tile:xla", "--splits", "train", "--mirror", m_mirror, "-o", out });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(QDir().mkpath(out + "/.tgraph-download"));
        writeAll(out + "/.tgraph-download/npz_tile_xla_valid.tar.part", QByteArray(1000, 'x'));
        QVERIFY(QFile::copy(m_mirror + "/npz_tile_xla_test.tar", out + "/.tgraph-download/npz_tile_xla_test.tar"));
        tgraph::FetchOptions options;
        options.collections = { "tile:xla", "layout:xla:default" };
        options.output = out.toStdString();
        options.mirror = "http://127.0.0.1:9/";
        const std::vector<tgraph::FetchPlanItem> plan = tgraph::planFetch(options);
        QCOMPARE(plan.size(), size_t(6));
        QCOMPARE(plan[0].archive, std::string("npz_tile_xla_train.tar"));
        QVERIFY(plan[0].present);
        QCOMPARE(plan[1].partBytes, uint64_t(1000));
        QVERIFY(!plan[1].present && !plan[1].downloaded);
        QVERIFY(plan[2].downloaded);
        for (size_t i = 3; i < plan.size(); ++i)
            QVERIFY(!plan[i].present && !plan[i].downloaded && plan[i].partBytes == 0);
        QCOMPARE(plan[3].folder, std::string("npz/layout/xla/default/train"));
        // Planning writes nothing.
        QCOMPARE(filesBelow(out + "/.tgraph-download"),
            QStringList({ "npz_tile_xla_test.tar", "npz_tile_xla_valid.tar.part" }));
        options.splits = { "train", "weekly" };
        QVERIFY_THROWS_EXCEPTION(tgraph::InputError, tgraph::planFetch(options));
    }

    // Archives with a bad member: refused with the archive and the member named, nothing of the
    // split left (no folder, no temporary folder), nothing written outside the tree.
    void refusedArchives_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("member");
        QTest::addColumn<QString>("problem");
        QTest::newRow("corrupt") << "corrupt"
                                 << "broken.npz"
                                 << "broken.npz";
        QTest::newRow("absolute") << "absolute"
                                  << "/tmp/tgraph-absolute-member.npz"
                                  << "absolute path refused";
        QTest::newRow("dotdot") << "dotdot"
                                << "escaped.npz"
                                << "'..' in the path refused";
        QTest::newRow("symlink") << "symlink"
                                 << "link.npz"
                                 << "symbolic link refused";
        QTest::newRow("hardlink") << "hardlink"
                                  << "hard.npz"
                                  << "hard link refused";
        QTest::newRow("nested") << "nested"
                                << "sub/deeper.npz"
                                << "below a subfolder";
        QTest::newRow("truncated") << "truncated"
                                   << "second.npz"
                                   << "second.npz";
    }
    void refusedArchives()
    {
        QFETCH(QString, kind);
        QFETCH(QString, member);
        QFETCH(QString, problem);
        const QString mirror = m_dir.filePath("hostile-" + kind);
        makeHostile(kind, mirror);
        const QString out = m_dir.filePath("out-hostile-" + kind);
        const ProcessResult r = tgraph(
            { "data", "fetch", "--collections", "tile:xla", "--splits", "train", "--mirror", mirror, "-o", out });
        QCOMPARE(r.exitCode, 1);
        const QString err = QString::fromUtf8(r.err).trimmed();
        QVERIFY2(!err.contains('\n'), qPrintable(err));
        QVERIFY2(
            err.contains("npz_tile_xla_train.tar") && err.contains(member) && err.contains(problem), qPrintable(err));
        QVERIFY(!QFileInfo::exists(out + "/npz/tile/xla/train"));
        QCOMPARE(filesBelow(out), QStringList());
        QVERIFY(!QFileInfo::exists("/tmp/tgraph-absolute-member.npz"));
        QVERIFY(!QFileInfo::exists(m_dir.filePath("escaped.npz")));
        // The mirror folder's archive is never removed.
        QVERIFY(QFileInfo::exists(mirror + "/npz_tile_xla_train.tar"));
    }

    // A corrupt archive downloaded over HTTP: refused, and the download is not kept for reuse.
    void corruptDownloadNotKept()
    {
        const QString mirror = m_dir.filePath("hostile-http");
        makeHostile("corrupt", mirror);
        RangeServer server(mirror, m_dir.path());
        QVERIFY(server.ok());
        const QString out = m_dir.filePath("out-hostile-http");
        const ProcessResult r = tgraph(
            { "data", "fetch", "--collections", "tile:xla", "--splits", "train", "--mirror", server.url(), "-o", out });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("npz_tile_xla_train.tar") && r.err.contains("broken.npz"), r.err.constData());
        QCOMPARE(filesBelow(out), QStringList());
    }

    void usageErrors()
    {
        ProcessResult r = tgraph({ "data", "fetch", "--collections", "layout:xla:fast", "-o", m_dir.filePath("u") });
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("layout:xla:fast"));
        r = tgraph({ "data", "fetch", "--mirror", m_mirror });
        QCOMPARE(r.exitCode, 2);
        r = tgraph({ "data", "fetch", "--mirror", m_dir.filePath("no-such-folder"), "-o", m_dir.filePath("u") });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("no-such-folder"), r.err.constData());
        r = tgraph({ "data", "fetch", "--help" });
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("layout:nlp:random"));
    }
};

QTEST_GUILESS_MAIN(TestDataFetch)
#include "tst_datafetch.moc"
