// SPDX-License-Identifier: Apache-2.0
// Hostile project files through the real command lines: a crafted .tgproj whose run id is
// "../../victim" or an absolute path, a run folder that is a symbolic link leading out of the
// project, a checkpoint path leading out, and a damaged page. `tgraph runs delete|export|resume|list`
// must refuse with a clear error naming the project file, the run and the problem, and leave the
// victim folder (and the damaged file) as they were (docs/store.md §6, §2).

#include "core/store/project.h"
#include "testutil.h"

#include <QCryptographicHash>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

#include <filesystem>

using namespace tgraph;
namespace fs = std::filesystem;

namespace {

QString tgraphExe() { return testutil::binDir() + "/tgraph"; }

testutil::ProcessResult tgraphRun(const QStringList& args) { return testutil::run(tgraphExe(), args); }

QByteArray fileHash(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256)
                                       : QByteArray();
}

// Runs SQL on the file with the plain sqlite3 C API (not the store), as a crafter would.
void craft(const std::string& file, const std::string& sql)
{
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(file.c_str(), &db), SQLITE_OK);
    char* error = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
    const QString message = error ? QString::fromUtf8(error) : QString();
    sqlite3_free(error);
    sqlite3_close(db);
    QVERIFY2(rc == SQLITE_OK, qPrintable(message));
}

} // namespace

class TestHostileProject : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    // A folder `name` holding a project p.tgproj with one finished run, and a victim folder
    // victim/ beside the project with a file in it. Returns the run's id.
    std::string makeProject(const QString& name, QString* projectPath, QString* victim)
    {
        const QString folder = m_dir.filePath(name);
        QDir().mkpath(folder + "/victim");
        testutil::writeAll(folder + "/victim/keep.txt", "do not delete\n");
        *projectPath = folder + "/p.tgproj";
        *victim = folder + "/victim";
        QDir().mkpath(folder + "/p.tgproj.d/runs"); // as any project that ran something has it
        Project p = Project::create(testutil::str(*projectPath));
        RunStart start;
        start.status = RunStatus::Finished;
        return p.startRun(start);
    }

    static void expectVictimIntact(const QString& victim)
    {
        QVERIFY2(QFileInfo::exists(victim + "/keep.txt"), qPrintable(victim + "/keep.txt is gone"));
        QCOMPARE(testutil::readAll(victim + "/keep.txt"), QByteArray("do not delete\n"));
        QCOMPARE(QDir(victim).entryList(QDir::AllEntries | QDir::NoDotAndDotDot), QStringList { "keep.txt" });
    }

    // The command failed as bad input (exit 1, no crash) with one error line holding every part.
    static void expectRefused(const testutil::ProcessResult& r, const QStringList& parts)
    {
        QVERIFY2(!r.crashed, r.err.constData());
        QCOMPARE(r.exitCode, 1);
        const QString err = QString::fromUtf8(r.err).trimmed();
        QVERIFY2(!err.contains('\n'), qPrintable(err));
        for (const QString& p : parts)
            QVERIFY2(err.contains(p), qPrintable("expected '" + p + "' in: " + err));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(QFileInfo(tgraphExe()).isExecutable(), qPrintable(tgraphExe()));
    }

    // runs.id = "../../victim" (the run folder p.tgproj.d/runs/../../victim is the victim) or the
    // victim's absolute path: delete, export and resume refuse by the id's form, before any path.
    void craftedRunIdIsRefused_data()
    {
        QTest::addColumn<bool>("absolute");
        QTest::newRow("../../victim") << false;
        QTest::newRow("absolute path") << true;
    }

    void craftedRunIdIsRefused()
    {
        QFETCH(bool, absolute);
        QString project, victim;
        const std::string id = makeProject(absolute ? "absolute" : "relative", &project, &victim);
        const std::string crafted = absolute ? testutil::str(victim) : std::string("../../victim");
        craft(testutil::str(project), "UPDATE runs SET id = '" + crafted + "' WHERE id = '" + id + "'");
        // Without the check, the run's folder would be the victim.
        QCOMPARE(fs::weakly_canonical(fs::path(testutil::str(project) + ".d") / "runs" / crafted),
            fs::weakly_canonical(testutil::str(victim)));

        const QStringList refused { "p.tgproj", QString::fromStdString("run '" + crafted + "'"), "not a run id" };
        const QString key = QString::fromStdString(crafted);
        expectRefused(tgraphRun({ "runs", "delete", key, "--project", project }), refused);
        expectVictimIntact(victim);
        expectRefused(tgraphRun({ "runs", "delete", key, "--force", "--project", project }), refused);
        expectVictimIntact(victim);
        expectRefused(
            tgraphRun({ "runs", "export", key, "--weights", m_dir.filePath("w.npz"), "--project", project }), refused);
        QVERIFY(!QFileInfo::exists(m_dir.filePath("w.npz")));
        expectRefused(tgraphRun({ "runs", "list", "--project", project }), refused);
        // Resume goes through tgraph-model train --resume.
        const testutil::ProcessResult resume = tgraphRun({ "runs", "resume", key, "--project", project });
        QVERIFY2(!resume.crashed && resume.exitCode == 1, resume.err.constData());
        QVERIFY2(resume.err.contains("p.tgproj") && resume.err.contains("not a run id"), resume.err.constData());
        expectVictimIntact(victim);

        // The store's API says the same.
        Project p = Project::open(testutil::str(project), Project::Access::Write);
        testutil::expectInputError([&] { p.deleteRun(crafted); }, refused);
        testutil::expectInputError([&] { p.runDir(crafted); }, refused);
        testutil::expectInputError([&] { p.runs(); }, refused);
        testutil::expectInputError([&] { p.findRun(crafted); }, refused);
        expectVictimIntact(victim);
    }

    // A well-formed run whose folder p.tgproj.d/runs/<id> is a symbolic link to the victim: delete
    // does not follow it, export and resume neither read nor write there.
    void symlinkedRunFolderIsRefused()
    {
        QString project, victim;
        const std::string id = makeProject("symlink", &project, &victim);
        const QString runs = project + ".d/runs";
        QVERIFY(QDir().mkpath(runs));
        QVERIFY(QFile::link(victim, runs + "/" + QString::fromStdString(id)));
        craft(testutil::str(project), "UPDATE runs SET checkpoint = 'p.tgproj.d/runs/" + id + "/last.npz' WHERE id = '" + id + "'");

        const QString key = QString::fromStdString(id);
        const QStringList refused { "p.tgproj", QString::fromStdString("run " + id), "outside the project's run folders" };
        expectRefused(tgraphRun({ "runs", "delete", key, "--project", project }), refused);
        expectVictimIntact(victim);
        expectRefused(tgraphRun({ "runs", "export", key, "--weights", m_dir.filePath("w.npz"), "--project", project }),
            refused);
        QVERIFY(!QFileInfo::exists(m_dir.filePath("w.npz")));
        const testutil::ProcessResult resume = tgraphRun({ "runs", "resume", key, "--project", project });
        QVERIFY2(!resume.crashed && resume.exitCode == 1, resume.err.constData());
        QVERIFY2(resume.err.contains("p.tgproj") && resume.err.contains("outside the project's run folders"),
            resume.err.constData());
        expectVictimIntact(victim); // no train.log, no last.npz written there

        Project p = Project::open(testutil::str(project), Project::Access::Write);
        testutil::expectInputError([&] { p.deleteRun(id); }, refused);
        testutil::expectInputError([&] { p.runDir(id); }, refused);
        QVERIFY(p.findRun(id)); // refused before its rows were deleted
        expectVictimIntact(victim);
        QVERIFY(QFileInfo(runs + "/" + key).isSymLink());

        // With the link gone, the run deletes normally.
        QVERIFY(QFile::remove(runs + "/" + key));
        p.deleteRun(id);
        QVERIFY(!p.findRun(id));
        expectVictimIntact(victim);
    }

    // A run folder holding a link to the victim: deleting the run removes the link, not what it
    // points to.
    void linksInsideARunFolderAreNotFollowed()
    {
        QString project, victim;
        const std::string id = makeProject("inner-link", &project, &victim);
        const QString dir = project + ".d/runs/" + QString::fromStdString(id);
        QVERIFY(QDir().mkpath(dir));
        testutil::writeAll(dir + "/train.log", "log\n");
        QVERIFY(QFile::link(victim, dir + "/data"));
        QVERIFY(QFile::link(victim + "/keep.txt", dir + "/best.npz"));
        const testutil::ProcessResult r = tgraphRun({ "runs", "delete", QString::fromStdString(id), "--project", project });
        QVERIFY2(r.exitCode == 0 && !r.crashed, r.err.constData());
        QVERIFY(!QFileInfo::exists(dir));
        expectVictimIntact(victim);
    }

    // A checkpoint path stored outside the project's data folder (absolute, or climbing out with
    // ..): export refuses it instead of reading it; show says it is not used.
    void checkpointOutsideTheDataFolderIsRefused_data()
    {
        QTest::addColumn<bool>("absolute");
        QTest::newRow("absolute") << true;
        QTest::newRow("..") << false;
    }

    void checkpointOutsideTheDataFolderIsRefused()
    {
        QFETCH(bool, absolute);
        QString project, victim;
        const QString name = absolute ? "ckpt-absolute" : "ckpt-relative";
        const std::string id = makeProject(name, &project, &victim);
        // "victim/keep.txt" is inside the project's folder, but not inside its data folder.
        const std::string stored = absolute ? testutil::str(victim + "/keep.txt") : std::string("victim/keep.txt");
        craft(testutil::str(project),
            "UPDATE runs SET checkpoint = '" + stored + "' WHERE id = '" + id + "';"
            "INSERT INTO artifacts(run_id, kind, path, step, created_ms) VALUES ('" + id + "', 'weights', '../"
                + testutil::str(name) + "/victim/keep.txt', 0, 0);");
        const QString key = QString::fromStdString(id);
        expectRefused(tgraphRun({ "runs", "export", key, "--weights", m_dir.filePath("w.npz"), "--project", project }),
            { "p.tgproj", QString::fromStdString("run " + id + " checkpoint"),
                QString::fromStdString("'" + stored + "' leads outside the project's data folder") });
        QVERIFY(!QFileInfo::exists(m_dir.filePath("w.npz")));
        const testutil::ProcessResult show = tgraphRun({ "runs", "show", key, "--project", project });
        QVERIFY2(show.exitCode == 0, show.err.constData());
        QVERIFY2(show.out.contains("checkpoint   (not used: the stored path"), show.out.constData());
        QVERIFY2(show.out.contains("artifact     weights    step 0        (not used:"), show.out.constData());
        expectVictimIntact(victim);
        const Project p = Project::open(testutil::str(project), Project::Access::Read);
        testutil::expectInputError([&] { p.dataPath(p.findRun(id)->checkpoint, "run " + id + " checkpoint"); },
            { "p.tgproj", "checkpoint", "leads outside the project's data folder" });
    }

    // A page in the middle of the file overwritten: every command refuses the file with SQLite's
    // finding, and the file stays byte for byte what it was.
    void damagedPageIsRefused()
    {
        QString project, victim;
        const std::string id = makeProject("damaged", &project, &victim);
        {
            Project p = Project::open(testutil::str(project), Project::Access::Write);
            std::vector<std::pair<std::string, std::string>> params;
            for (int k = 0; k < 3000; ++k)
                params.emplace_back("param_" + std::to_string(k), std::string(40, char('a' + k % 26)));
            p.setParams(id, params);
            p.db().exec("PRAGMA wal_checkpoint(TRUNCATE)");
        }
        QByteArray bytes = testutil::readAll(project);
        const qsizetype pages = bytes.size() / 4096;
        QVERIFY2(pages >= 8, qPrintable(QString::number(pages)));
        for (qsizetype i = (pages / 2) * 4096; i < (pages / 2) * 4096 + 4096; ++i)
            bytes[i] = char(0xa5 ^ (i * 7));
        testutil::writeAll(project, bytes);
        QFile::remove(project + "-wal");
        QFile::remove(project + "-shm");
        const QByteArray before = fileHash(project);
        for (const QStringList& args : { QStringList { "runs", "list", "--project", project },
                 QStringList { "runs", "delete", QString::fromStdString(id), "--project", project },
                 QStringList { "runs", "show", QString::fromStdString(id), "--project", project } })
            expectRefused(tgraphRun(args), { "p.tgproj", "damaged", "quick_check" });
        QCOMPARE(fileHash(project), before);
    }
};

QTEST_GUILESS_MAIN(TestHostileProject)
#include "tst_hostileproject.moc"
