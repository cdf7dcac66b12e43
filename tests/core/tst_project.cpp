// SPDX-License-Identifier: Apache-2.0
// The project file: schema, runs, write-once params, metric histories and downsampling, refused
// files left untouched, paths confined to the project folder, crash detection, concurrent writers
// in separate processes with a polling reader, kill -9 of a writing process, a full disk and a
// read-only folder. Real SQLite files and real processes (fork).

#include "core/util/error.h"
#include "core/view/graphdocument.h"
#include "core/store/project.h"
#include "core/store/sweeps.h"
#include "core/store/runwriter.h"
#include "testutil.h"

#include <QCryptographicHash>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <random>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace tgraph;
namespace fs = std::filesystem;

namespace {

QByteArray fileHash(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}

StepMetrics stepAt(int64_t step, double loss, int fold = -1)
{
    StepMetrics m;
    m.fold = fold;
    m.step = step;
    m.totalSteps = 1000;
    m.intervalSteps = 1;
    m.loss = loss;
    m.learningRate = 1e-3;
    m.gradNorm = 0.5;
    return m;
}

// Runs `body` in a forked child; returns its exit status (or 128 + signal). The child never
// returns into the test framework.
template <class F> int inChild(F body, pid_t* pidOut = nullptr, bool wait = true)
{
    const pid_t pid = fork();
    if (pid == 0) {
        int rc = 0;
        try {
            rc = body();
        } catch (const std::exception& e) {
            std::fprintf(stderr, "child: %s\n", e.what());
            rc = 99;
        }
        std::fflush(nullptr);
        _exit(rc);
    }
    if (pidOut)
        *pidOut = pid;
    if (!wait)
        return 0;
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// For forked children: plain files, no Qt Test macros.
void writeText(const QString& path, const std::string& text) { std::ofstream(path.toStdString()) << text; }

int64_t count(Project& p, const std::string& sql) { return p.db().queryInt(sql); }

} // namespace

class TestProject : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString path(const QString& name) const { return m_dir.filePath(name); }
    std::string spath(const QString& name) const { return testutil::str(m_dir.filePath(name)); }

private Q_SLOTS:
    void createAndReopen()
    {
        const std::string file = spath("a.tgproj");
        {
            Project p = Project::create(file);
            QCOMPARE(p.schemaVersion(), Project::kSchemaVersion);
            QCOMPARE(p.db().queryInt("PRAGMA application_id"), Project::kApplicationId);
            QCOMPARE(p.db().queryText("PRAGMA journal_mode"), std::string("wal"));
            QCOMPARE(p.db().queryInt("PRAGMA foreign_keys"), int64_t(1));
            QVERIFY(p.runs().empty());
            QCOMPARE(p.dataDir(), fs::absolute(file).string() + ".d");
        }
        testutil::expectInputError([&] { Project::create(file); }, { "a.tgproj", "already exists" });
        Project r = Project::open(file, Project::Access::Read);
        QCOMPARE(r.schemaVersion(), Project::kSchemaVersion);
        QVERIFY_THROWS_EXCEPTION(std::logic_error, r.startRun({}));
        // creation in a missing folder leaves nothing behind
        testutil::expectInputError(
            [&] { Project::create(spath("missing/b.tgproj")); }, { "b.tgproj", "does not exist" });
        QVERIFY(!QFile::exists(path("missing")));
    }

    // A version-1 project (no sweep_runs) is read as it is by readers and migrated to version 2 by
    // the first writer; the sweep queue works on it then (docs/store.md §2, §9).
    void migratesVersionOneToSweeps()
    {
        const std::string file = spath("v1.tgproj");
        std::string run;
        {
            Project p = Project::create(file);
            run = p.startRun({});
            p.db().exec("DROP TABLE sweep_runs");
            p.db().exec("PRAGMA user_version=1");
        }
        {
            const Project r = Project::open(file, Project::Access::Read);
            QCOMPARE(r.schemaVersion(), 1);
            QVERIFY(sweepIds(r).empty()); // no table yet: no sweeps, no error
            QVERIFY(!isSweep(r, run));
        }
        Project w = Project::open(file, Project::Access::Write);
        QCOMPARE(w.schemaVersion(), 2);
        QVERIFY(w.findRun(run));
        SweepRunPlan a;
        a.config = 0;
        a.configText = "lr=1e-3";
        a.seed = 42;
        a.arguments = { "--lr", "1e-3", "--seed", "42" };
        SweepRunPlan b = a;
        b.seed = 43;
        b.arguments.back() = "43";
        RunStart start;
        start.name = "sw";
        const std::string sweep = createSweep(w, start, { { "sweep.spec", "grid: lr=1e-3" } }, { a, b });
        QVERIFY(isSweep(w, sweep));
        QCOMPARE(sweepIds(w), std::vector<std::string> { sweep });
        const auto rows = sweepRuns(w, sweep);
        QCOMPARE(rows.size(), size_t(2));
        QCOMPARE(rows[1].arguments, b.arguments);
        QCOMPARE(w.findRun(rows[0].runId)->status, RunStatus::Pending);
        QCOMPARE(w.findRun(rows[0].runId)->parentRun, sweep);
        // the queue hands out each run once, in order
        QCOMPARE(nextQueuedRun(w, sweep), rows[0].runId);
        QVERIFY(claimSweepRun(w, rows[0].runId, int64_t(getpid()), "tgraph train"));
        QVERIFY(!claimSweepRun(w, rows[0].runId, int64_t(getpid()), "tgraph train"));
        QCOMPARE(nextQueuedRun(w, sweep), rows[1].runId);
        QCOMPARE(sweepRuns(w, sweep)[0].attempts, int64_t(1));
        // only an interrupted run goes back to the queue, without what it logged
        testutil::expectInputError([&] { requeueSweepRun(w, rows[0].runId); }, { "RUNNING", "interrupted" });
        w.setTag(rows[0].runId, "best_tau", "0.5");
        w.setRunStatus(rows[0].runId, RunStatus::Killed, "stopped");
        requeueSweepRun(w, rows[0].runId);
        QCOMPARE(w.findRun(rows[0].runId)->status, RunStatus::Pending);
        QVERIFY(w.tags(rows[0].runId).empty());
        QCOMPARE(nextQueuedRun(w, sweep), rows[0].runId);
        testutil::expectInputError([&] { requeueSweepRun(w, run); }, { "no child run of a sweep" });
        // deleting the sweep deletes its runs and their rows
        w.deleteRun(sweep);
        QCOMPARE(w.runs().size(), size_t(1));
        QCOMPARE(w.db().queryInt("SELECT count(*) FROM sweep_runs"), int64_t(0));
    }

    void runsParamsTags()
    {
        Project p = Project::create(spath("runs.tgproj"));
        RunStart s;
        s.experiment = "layout";
        s.commandLine = "tgraph train --data d";
        const std::string a = p.startRun(s);
        s.name = "baseline";
        const std::string b = p.startRun(s);
        QCOMPARE(a.size(), size_t(32));
        QVERIFY(a != b);
        const auto runs = p.runs("layout");
        QCOMPARE(runs.size(), size_t(2));
        QCOMPARE(runs[0].id, b); // newest first
        QCOMPARE(runs[1].name, std::string("run-1"));
        QCOMPARE(runs[0].status, RunStatus::Running);
        QCOMPARE(runs[0].pid, int64_t(getpid()));
        QCOMPARE(runs[0].commandLine, s.commandLine);
        QVERIFY(p.runs("other").empty());
        QCOMPARE(p.experiments(), std::vector<std::string> { "layout" });

        QCOMPARE(p.findRun(a.substr(0, 6))->id, a); // unique prefix
        QCOMPARE(p.findRun("baseline")->id, b); // name
        QVERIFY(!p.findRun("abc")); // too short to be a prefix, not a name
        QVERIFY(!p.findRun("nope"));

        p.setParams(a, { { "lr", "0.001" }, { "configs", "64" } });
        p.setParams(a, { { "lr", "0.001" } }); // same value: fine
        testutil::expectInputError(
            [&] {
                p.setParams(a, { { "lr", "0.01" } });
            },
            { "runs.tgproj", "param lr", "write-once" });
        QCOMPARE(p.params(a).at("lr"), std::string("0.001"));
        QCOMPARE(p.params(a).size(), size_t(2));
        p.setTag(a, "note", "x");
        p.setTag(a, "note", "y");
        QCOMPARE(p.tags(a).at("note"), std::string("y"));

        p.setRunStatus(a, RunStatus::Failed, "loss diverged");
        const RunRecord failed = *p.findRun(a);
        QCOMPARE(failed.status, RunStatus::Failed);
        QVERIFY(failed.endMs >= failed.startMs);
        QCOMPARE(failed.message, std::string("loss diverged"));
        p.adoptRun(a, getpid(), "tgraph train --resume");
        const RunRecord resumed = *p.findRun(a);
        QCOMPARE(resumed.status, RunStatus::Running);
        QCOMPARE(resumed.endMs, int64_t(0));
        QCOMPARE(resumed.resumedFrom, a);
        testutil::expectInputError([&] { p.setRunStatus("feedfeed", RunStatus::Killed); }, { "no such run" });

        // artifacts are confined to the project folder; deleting a run removes its folder and rows
        fs::create_directories(p.runDir(a));
        const std::string ckpt = p.runDir(a) + "/step-10.ckpt";
        std::ofstream(ckpt) << "x";
        p.setCheckpoint(a, ckpt, 10);
        QCOMPARE(p.findRun(a)->checkpoint, "runs.tgproj.d/runs/" + a + "/step-10.ckpt");
        QCOMPARE(p.absolutePath(p.findRun(a)->checkpoint), fs::path(ckpt).lexically_normal().string());
        testutil::expectInputError([&] { p.addArtifact(a, "log", spath("../outside.txt"), 0); },
            { "outside.txt", "outside the project folder" });
        fs::create_symlink("/tmp", testutil::str(path("escape")));
        testutil::expectInputError(
            [&] { p.addArtifact(a, "log", spath("escape/x.txt"), 0); }, { "outside the project folder" });
        QCOMPARE(p.artifacts(a).size(), size_t(1));
        p.deleteRun(a);
        QVERIFY(!p.findRun(a));
        QVERIFY(!fs::exists(p.runDir(a)));
        QCOMPARE(count(p, "SELECT count(*) FROM params"), int64_t(0)); // cascaded
        QCOMPARE(count(p, "SELECT count(*) FROM artifacts"), int64_t(0));
    }

    void writerRecordsMetricsEvaluationsPredictions()
    {
        const std::string file = spath("w.tgproj");
        std::string id;
        {
            Project p = Project::create(file);
            id = p.startRun({});
        }
        {
            RunWriter w(file, id, { 1000000, 60000 }); // flushes only when asked or at an evaluation
            for (int64_t step = 1; step <= 100; ++step)
                w.stepMetrics(stepAt(step, 1.0 / double(step)));
            Project reader = Project::open(file, Project::Access::Read);
            QCOMPARE(count(reader, "SELECT count(*) FROM metrics"), int64_t(0)); // still buffered
            EvalMetrics e;
            e.step = 100;
            e.graphs
                = { { "g1.npz", 50, 0.5, 0.7, 0.01, std::nan("") }, { "g2.npz", 40, 0.3, 0.6, 0.02, std::nan("") } };
            e.meanTau = 0.4;
            e.meanOpa = 0.65;
            e.meanTop5Slowdown = 0.015;
            e.meanTileScore = std::nan("");
            e.best = true;
            w.evalMetrics(e);
            QCOMPARE(reader.metricHistory(id, "loss", "train").totalPoints, int64_t(100));
            w.predictions(100, "g1.npz", { 0.5, -1.0, 2.0 }, { 30, 10, 50 });
            w.logMetric("loss", 101, std::numeric_limits<double>::infinity());
            w.finish(RunStatus::Finished);
        }
        Project p = Project::open(file, Project::Access::Read);
        const RunRecord r = *p.findRun(id);
        QCOMPARE(r.status, RunStatus::Finished);
        const MetricSeries loss = p.metricHistory(id, "loss", "train");
        QCOMPARE(loss.totalPoints, int64_t(101));
        QCOMPARE(loss.points[9].step, int64_t(10));
        QCOMPARE(loss.points[9].value, 0.1);
        QVERIFY(std::isnan(loss.points[100].value)); // a non-finite value is kept as "no value"
        const auto latest = p.latestMetrics({ id });
        bool sawTau = false;
        for (const LatestMetric& m : latest) {
            if (m.key == "tau") {
                QCOMPARE(m.context, std::string("valid"));
                QCOMPARE(m.value, 0.4);
                sawTau = true;
            }
            QVERIFY(m.key != "tile_score"); // undefined for layout data: not logged
        }
        QVERIFY(sawTau);
        const auto graphs = p.graphMetrics(id);
        QCOMPARE(graphs.size(), size_t(2));
        QCOMPARE(graphs[1].kendallTau, 0.3);
        QVERIFY(std::isnan(graphs[0].tileScore));
        QCOMPARE(p.tags(id).at("best_step"), std::string("100"));
        const auto preds = p.predictions(id, 100, "g1.npz");
        QCOMPARE(preds.size(), size_t(3));
        QCOMPARE(preds[2].score, 2.0);
        QCOMPARE(preds[1].runtimeNs, int64_t(10));
        QVERIFY(p.metricKeys(id).size() >= 7);
    }

    // A run resumed from a checkpoint drops what a crash left after it and logs those steps again.
    void resumedRunRewritesItsTail()
    {
        const std::string file = spath("resume.tgproj");
        std::string id;
        {
            Project p = Project::create(file);
            id = p.startRun({});
        }
        {
            RunWriter w(file, id);
            for (int64_t step = 1; step <= 50; ++step)
                w.stepMetrics(stepAt(step, 1.0));
            EvalMetrics e;
            e.step = 40;
            e.graphs = { { "g.npz", 5, 0.1, 0.5, 0.0, std::nan("") } };
            w.evalMetrics(e);
            e.step = 50;
            w.evalMetrics(e);
        } // "crash": no finish
        {
            Project p = Project::open(file, Project::Access::Write);
            p.truncateRun(id, 30); // the checkpoint was at step 30
            QCOMPARE(p.metricHistory(id, "loss", "train").totalPoints, int64_t(30));
            QVERIFY(p.graphMetrics(id).empty()); // evaluations after 30 are gone
            for (const LatestMetric& m : p.latestMetrics({ id }))
                QCOMPARE(m.step, int64_t(30));
            p.adoptRun(id, getpid(), "resume");
        }
        {
            RunWriter w(file, id);
            for (int64_t step = 31; step <= 60; ++step)
                w.stepMetrics(stepAt(step, 2.0));
            w.logMetric("loss", 10, 5.0); // an earlier step again replaces its value
            w.finish(RunStatus::Finished);
        }
        Project p = Project::open(file, Project::Access::Read);
        const MetricSeries loss = p.metricHistory(id, "loss", "train");
        QCOMPARE(loss.totalPoints, int64_t(60));
        QCOMPARE(int64_t(loss.points.size()), int64_t(60));
        QCOMPARE(loss.points[9].value, 5.0);
        QCOMPARE(loss.points[45].value, 2.0);
        for (const LatestMetric& m : p.latestMetrics({ id }))
            if (m.key == "loss")
                QCOMPARE(m.step, int64_t(60));
    }

    void downsamplingKeepsEnvelope()
    {
        const std::string file = spath("d.tgproj");
        std::string id;
        {
            Project p = Project::create(file);
            id = p.startRun({});
        }
        {
            RunWriter w(file, id);
            for (int64_t step = 0; step < 20000; ++step)
                w.logMetric("loss", step, step == 12345 ? 100.0 : std::sin(double(step) / 300.0));
        }
        Project p = Project::open(file, Project::Access::Read);
        const MetricSeries all = p.metricHistory(id, "loss", "train");
        QCOMPARE(all.totalPoints, int64_t(20000));
        QVERIFY(!all.downsampled);
        const MetricSeries few = p.metricHistory(id, "loss", "train", 400);
        QVERIFY(few.downsampled);
        QVERIFY2(few.points.size() <= 400 && few.points.size() >= 200, qPrintable(QString::number(few.points.size())));
        double top = -1, bottom = 1;
        for (size_t k = 0; k < few.points.size(); ++k) {
            if (k)
                QVERIFY(few.points[k].step > few.points[k - 1].step);
            top = std::max(top, few.points[k].value);
            bottom = std::min(bottom, few.points[k].value);
        }
        QCOMPARE(top, 100.0); // the spike survives
        QVERIFY(bottom < -0.999); // so do the minima
        QCOMPARE(few.points.front().step, int64_t(0));
        QCOMPARE(few.points.back().step, int64_t(19999));
    }

    // A series' stored point count is the file's word: negative is refused naming the run and the
    // series, a huge one is not used as an allocation size (found by fuzz_project: -1 became a
    // vector::reserve of 2^64 - 1 and ended the process).
    void storedPointCountsAreNotTrusted()
    {
        const std::string file = spath("counts.tgproj");
        std::string id;
        {
            Project p = Project::create(file);
            id = p.startRun({});
        }
        {
            RunWriter w(file, id);
            for (int64_t step = 0; step < 5; ++step)
                w.logMetric("loss", step, double(step));
        }
        {
            Project p = Project::open(file, Project::Access::Write);
            p.db().exec("UPDATE series SET points = 1000000000000000");
        }
        {
            Project p = Project::open(file, Project::Access::Read);
            const MetricSeries all = p.metricHistory(id, "loss", "train");
            QCOMPARE(all.points.size(), size_t(5)); // the rows there are, not the count claimed
        }
        {
            Project p = Project::open(file, Project::Access::Write);
            p.db().exec("UPDATE series SET points = -1");
        }
        Project p = Project::open(file, Project::Access::Read);
        testutil::expectInputError(
            [&] { p.metricHistory(id, "loss", "train"); }, { "counts.tgproj", QString::fromStdString("run " + id), "loss", "-1 points" });
    }

    void foldsBecomeChildRuns()
    {
        const std::string file = spath("cv.tgproj");
        std::string id;
        {
            Project p = Project::create(file);
            RunStart s;
            s.experiment = "cv";
            id = p.startRun(s);
        }
        {
            RunWriter w(file, id);
            for (int fold = 0; fold < 3; ++fold)
                w.stepMetrics(stepAt(10, 0.5 + fold, fold));
            RunEvent done;
            done.kind = RunEventKind::Finished;
            done.fold = 1;
            w.runEvent(done);
            w.finish(RunStatus::Killed, "stopped by the user");
        }
        Project p = Project::open(file, Project::Access::Read);
        std::map<std::string, RunStatus> folds;
        for (const RunRecord& r : p.runs("cv"))
            if (r.parentRun == id)
                folds[r.name] = r.status;
        QCOMPARE(folds.size(), size_t(3));
        QCOMPARE(folds["fold-1"], RunStatus::Finished); // finished before the stop
        QCOMPARE(folds["fold-0"], RunStatus::Killed);
        QCOMPARE(p.findRun(id)->status, RunStatus::Killed);
        QCOMPARE(p.metricHistory(p.findRun("fold-2")->id, "loss", "train").points.at(0).value, 2.5);
    }

    void refusedFilesStayUntouched_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("text file") << "text" << QStringList { "not an SQLite database" };
        QTest::newRow("empty file") << "empty" << QStringList { "not an SQLite database" };
        QTest::newRow("other application") << "foreign" << QStringList { "not a TGraph Studio project" };
        QTest::newRow("newer schema") << "newer" << QStringList { "newer TGraph Studio", "schema 7" };
        QTest::newRow("truncated") << "truncated" << QStringList { "truncated" };
        QTest::newRow("garbage pages") << "garbage" << QStringList { "damaged" };
        QTest::newRow("directory") << "directory" << QStringList { "is a directory" };
    }

    void refusedFilesStayUntouched()
    {
        QFETCH(QString, kind);
        QFETCH(QStringList, expected);
        const QString file = path("bad-" + kind + ".tgproj");
        const std::string f = testutil::str(file);
        if (kind == "text") {
            testutil::writeAll(file, "hello, not a database\n");
        } else if (kind == "empty") {
            testutil::writeAll(file, "");
        } else if (kind == "directory") {
            QDir().mkpath(file);
        } else if (kind == "foreign") {
            sqlite3* db = nullptr;
            sqlite3_open(f.c_str(), &db);
            sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES (1);", nullptr, nullptr, nullptr);
            sqlite3_close(db);
        } else {
            {
                Project p = Project::create(f);
                RunWriter w(f, p.startRun({}));
                for (int64_t step = 0; step < 5000; ++step)
                    w.logMetric("loss", step, double(step));
                w.finish(RunStatus::Finished);
                p.db().exec("PRAGMA wal_checkpoint(TRUNCATE)");
            }
            QFile::remove(file + "-wal");
            QFile::remove(file + "-shm");
            QByteArray bytes = testutil::readAll(file);
            if (kind == "newer") {
                sqlite3* db = nullptr;
                sqlite3_open(f.c_str(), &db);
                sqlite3_exec(db, "PRAGMA user_version=7", nullptr, nullptr, nullptr);
                sqlite3_close(db);
            } else if (kind == "truncated") {
                testutil::writeAll(file, bytes.left(bytes.size() / 2));
            } else if (kind == "garbage") {
                // scramble everything after the schema page: the tables' b-tree pages
                std::mt19937 rng(5);
                for (qsizetype i = 4096 * 2; i < bytes.size(); ++i)
                    bytes[i] = char(rng());
                testutil::writeAll(file, bytes);
            }
        }
        const QByteArray before = fileHash(file);
        QStringList want = expected;
        want.prepend(QFileInfo(file).fileName());
        auto openAndUse = [&](Project::Access access) {
            Project p = Project::open(f, access);
            for (const RunRecord& r : p.runs()) // reading the data finds damaged pages
                p.metricHistory(r.id, "loss", "train");
        };
        testutil::expectInputError([&] { openAndUse(Project::Access::Write); }, want);
        testutil::expectInputError([&] { openAndUse(Project::Access::Read); }, want);
        QCOMPARE(fileHash(file), before);
    }

    // markCrashedRuns: on this host the process decides at once (a gone, recycled or zombie pid),
    // whatever the heartbeat says; for another host only a stale heartbeat tells.
    void crashedRunsAreMarked()
    {
        Project p = Project::create(spath("crash.tgproj"));
        const std::string live = p.startRun({});
        pid_t gone = 0;
        inChild([] { return 0; }, &gone); // a pid that no longer runs
        RunStart s;
        s.pid = gone;
        const std::string dead = p.startRun(s);
        const std::string recycled = p.startRun({}); // our own pid, but another process start time
        p.db().exec("UPDATE runs SET pid_start = pid_start + 1 WHERE id = '" + recycled + "'");
        const std::string fresh = p.startRun(s); // dead pid, fresh heartbeat: this host's pid decides
        // A process that ended but was not reaped yet (a zombie) is gone too.
        pid_t zombie = 0;
        inChild([] { return 0; }, &zombie, false);
        siginfo_t info {};
        QCOMPARE(waitid(P_PID, id_t(zombie), &info, WEXITED | WNOWAIT), 0); // exited, left unreaped
        RunStart z;
        z.pid = zombie;
        const std::string unreaped = p.startRun(z);
        const std::string elsewhereFresh = p.startRun(s);
        const std::string elsewhereStale = p.startRun(s);
        p.db().exec("UPDATE runs SET host = 'another-host.invalid' WHERE id IN ('" + elsewhereFresh + "', '"
            + elsewhereStale + "')");
        p.db().exec("UPDATE runs SET heartbeat_ms = heartbeat_ms - 600000 WHERE id NOT IN ('" + fresh + "', '"
            + elsewhereFresh + "', '" + unreaped + "')");
        QCOMPARE(p.markCrashedRuns(), 5);
        waitpid(zombie, nullptr, 0);
        QCOMPARE(p.findRun(live)->status, RunStatus::Running); // stale heartbeat, but the process lives
        QCOMPARE(p.findRun(dead)->status, RunStatus::Crashed);
        QVERIFY2(p.findRun(dead)->message.find("(pid " + std::to_string(gone) + ") is gone") != std::string::npos,
            p.findRun(dead)->message.c_str());
        QVERIFY(p.findRun(dead)->endMs > 0);
        QVERIFY(!p.findRun(dead)->crashNotRecorded);
        QCOMPARE(p.findRun(recycled)->status, RunStatus::Crashed);
        QCOMPARE(p.findRun(fresh)->status, RunStatus::Crashed);
        QCOMPARE(p.findRun(unreaped)->status, RunStatus::Crashed);
        QCOMPARE(p.findRun(elsewhereFresh)->status, RunStatus::Running); // the heartbeat decides there
        QCOMPARE(p.findRun(elsewhereStale)->status, RunStatus::Crashed);
        QVERIFY2(p.findRun(elsewhereStale)->message.find("no heartbeat") != std::string::npos,
            p.findRun(elsewhereStale)->message.c_str());
        QCOMPARE(p.markCrashedRuns(), 0);
    }

    // A RUNNING row of this host whose pid is gone reads as CRASHED at once, on a read-only
    // connection too, without waiting for the heartbeat to go stale; the row itself changes when a
    // writer opens the project. A run of another host with a fresh heartbeat stays RUNNING.
    void deadProcessReadsAsCrashed()
    {
        const std::string file = spath("dead.tgproj");
        std::string dead, elsewhere;
        {
            Project p = Project::create(file);
            pid_t gone = 0;
            inChild([] { return 0; }, &gone);
            RunStart s;
            s.pid = gone;
            s.name = "dead";
            dead = p.startRun(s); // heartbeat: now
            s.name = "elsewhere";
            elsewhere = p.startRun(s);
            p.db().exec("UPDATE runs SET host = 'another-host.invalid' WHERE id = '" + elsewhere + "'");
        }
        {
            Project reader = Project::open(file, Project::Access::Read);
            const auto run = reader.findRun("dead");
            QVERIFY(run);
            QCOMPARE(run->status, RunStatus::Crashed);
            QVERIFY(run->crashNotRecorded);
            QVERIFY(run->endMs > 0);
            QVERIFY2(run->message.find("is gone") != std::string::npos, run->message.c_str());
            for (const RunRecord& r : reader.runs())
                QCOMPARE(r.status, r.id == dead ? RunStatus::Crashed : RunStatus::Running);
            QCOMPARE(reader.findRun("elsewhere")->status, RunStatus::Running);
            // reading changed nothing in the file
            QCOMPARE(
                reader.db().queryText("SELECT status FROM runs WHERE id = '" + dead + "'"), std::string("RUNNING"));
        }
        Project writer = Project::open(file, Project::Access::Write); // marks it
        QCOMPARE(writer.db().queryText("SELECT status FROM runs WHERE id = '" + dead + "'"), std::string("CRASHED"));
        QVERIFY(!writer.findRun(dead)->crashNotRecorded);
        QCOMPARE(writer.findRun(elsewhere)->status, RunStatus::Running);
    }

    // The step a run shows is the furthest the project records for it: any metric series (not
    // only the loss) and its checkpoints. A run stopped after an evaluation or a checkpoint that
    // came after its last loss point shows that step, not the loss's or 0.
    void stepOfAStoppedRun()
    {
        const std::string file = spath("steps.tgproj");
        std::string lossOnly, stopped, checkpointed, empty;
        {
            Project p = Project::create(file);
            lossOnly = p.startRun({});
            stopped = p.startRun({});
            checkpointed = p.startRun({});
            empty = p.startRun({});
        }
        {
            RunWriter w(file, lossOnly);
            for (int64_t step = 1; step <= 4; ++step)
                w.stepMetrics(stepAt(step, 1.0 / double(step)));
            w.finish(RunStatus::Finished);
        }
        {
            RunWriter w(file, stopped);
            for (int64_t step = 1; step <= 4; ++step)
                w.stepMetrics(stepAt(step, 1.0));
            w.logMetric("tau", 10, 0.4, "valid"); // an evaluation after the last loss interval
            w.finish(RunStatus::Killed, "stopped at step 10");
        }
        {
            RunWriter w(file, checkpointed);
            w.stepMetrics(stepAt(3, 1.0));
            w.flush();
            const std::string dir = w.project().runDir(checkpointed);
            fs::create_directories(dir);
            writeText(QString::fromStdString(dir + "/last.npz"), "x");
            w.project().setCheckpoint(checkpointed, dir + "/last.npz", 12);
            w.finish(RunStatus::Killed, "stopped at step 12");
        }
        const Project p = Project::open(file, Project::Access::Read);
        QCOMPARE(p.findRun(lossOnly)->lastStep, int64_t(4));
        QCOMPARE(p.findRun(stopped)->lastStep, int64_t(10));
        QCOMPARE(p.findRun(stopped)->status, RunStatus::Killed);
        QCOMPARE(p.findRun(checkpointed)->lastStep, int64_t(12));
        QCOMPARE(p.findRun(empty)->lastStep, int64_t(0));
        for (const RunRecord& r : p.runs())
            QCOMPARE(r.lastStep, p.findRun(r.id)->lastStep);
    }

    // Whether a run's recorded process still runs (what `tgraph runs stop` asks before signalling
    // it): a live pid with its start time, not a gone or recycled pid; another host's run cannot be
    // checked here and counts as alive.
    void runProcessAlive()
    {
        const std::string file = spath("alive.tgproj");
        Project p = Project::create(file);
        const std::string live = p.startRun({});
        pid_t gone = 0;
        inChild([] { return 0; }, &gone);
        RunStart s;
        s.pid = gone;
        const std::string dead = p.startRun(s);
        const std::string recycled = p.startRun({});
        p.db().exec("UPDATE runs SET pid_start = pid_start + 1 WHERE id = '" + recycled + "'");
        const std::string unknownStart = p.startRun({});
        p.db().exec("UPDATE runs SET pid_start = NULL WHERE id = '" + unknownStart + "'");
        const std::string noPid = p.startRun({});
        p.db().exec("UPDATE runs SET pid = 0 WHERE id = '" + noPid + "'");
        const std::string elsewhere = p.startRun(s);
        p.db().exec("UPDATE runs SET host = 'another-host.invalid' WHERE id = '" + elsewhere + "'");

        QVERIFY(p.runProcessAlive(live));
        QVERIFY(!p.runProcessAlive(dead));
        QVERIFY(!p.runProcessAlive(recycled));
        QVERIFY(p.runProcessAlive(unknownStart)); // no start time recorded: the live pid decides
        QVERIFY(!p.runProcessAlive(noPid));
        QVERIFY(p.runProcessAlive(elsewhere));
        QVERIFY(!p.runProcessAlive("0123456789abcdef0123456789abcdef"));
        // a read-only connection answers the same, and asking changes nothing (the run reads as
        // CRASHED, its row stays as it is)
        Project reader = Project::open(file, Project::Access::Read);
        QVERIFY(reader.runProcessAlive(live));
        QVERIFY(!reader.runProcessAlive(dead));
        QCOMPARE(reader.findRun(dead)->status, RunStatus::Crashed);
        QCOMPARE(reader.db().queryText("SELECT status FROM runs WHERE id = '" + dead + "'"), std::string("RUNNING"));
    }

    // Two processes write runs into one project while this process polls it: no "database is
    // locked", every row arrives, the reader never sees a torn interval.
    void concurrentWritersAndReader()
    {
        const std::string file = spath("concurrent.tgproj");
        std::string ids[2];
        {
            Project p = Project::create(file);
            ids[0] = p.startRun({});
            ids[1] = p.startRun({});
        }
        constexpr int64_t kSteps = 3000;
        pid_t pids[2];
        for (int k = 0; k < 2; ++k) {
            const std::string id = ids[k];
            inChild(
                [&file, id] {
                    RunWriter w(file, id, { 5, 1000 });
                    for (int64_t step = 1; step <= kSteps; ++step)
                        w.stepMetrics(stepAt(step, double(step)));
                    w.finish(RunStatus::Finished);
                    return 0;
                },
                &pids[k], false);
        }
        Project reader = Project::open(file, Project::Access::Read);
        int polls = 0;
        bool done = false;
        while (!done) {
            done = true;
            for (const std::string& id : ids) {
                // all 7 series of a step are committed together
                SqliteStatement s(reader.db(),
                    "SELECT count(*) FROM (SELECT m.step, count(*) AS n FROM metrics m JOIN series s ON s.id = "
                    "m.series WHERE s.run_id = ?1 GROUP BY m.step) WHERE n <> 7");
                s.bind(1, id).step();
                QCOMPARE(s.int64(0), int64_t(0));
                done = done && isTerminal(reader.findRun(id)->status);
            }
            ++polls;
        }
        for (pid_t pid : pids) {
            int status = 0;
            waitpid(pid, &status, 0);
            QVERIFY(WIFEXITED(status));
            QCOMPARE(WEXITSTATUS(status), 0);
        }
        for (const std::string& id : ids) {
            QCOMPARE(reader.metricHistory(id, "loss", "train").totalPoints, kSteps);
            QCOMPARE(reader.findRun(id)->status, RunStatus::Finished);
        }
        QVERIFY(polls > 1);
    }

    // This process keeps the project open (a monitor) and opens it again (each poll). Regression:
    // opening checked the header with a plain open/read/close of the file, and POSIX drops all of
    // a process's locks on a file when any of its descriptors closes: the kept connection lost
    // its SHARED lock, another process's writer could then take the file as its own, reset the
    // WAL and its index under this process, and runs written later stayed invisible here (a
    // --parallel-folds run's folds never appeared to a test polling the project).
    void reopeningKeepsTheProcessLocks()
    {
        const std::string file = spath("locks.tgproj");
        Project::create(file);
        const Project kept = Project::open(file, Project::Access::Read);
        QCOMPARE(kept.runs().size(), size_t(0));
        // Another process asks whether it could write-lock SQLite's shared-lock bytes of the file
        // (0x40000002, 510 bytes): not while this process's connection holds its SHARED lock.
        auto lockedByUs = [&file] {
            return inChild([&file] {
                const int fd = ::open(file.c_str(), O_RDONLY);
                struct flock probe { };
                probe.l_type = F_WRLCK;
                probe.l_whence = SEEK_SET;
                probe.l_start = 0x40000002;
                probe.l_len = 510;
                if (fd < 0 || ::fcntl(fd, F_GETLK, &probe) != 0)
                    return 2;
                return probe.l_type != F_UNLCK && probe.l_pid == ::getppid() ? 0 : 1;
            }) == 0;
        };
        QVERIFY(lockedByUs());
        for (int poll = 0; poll < 3; ++poll) {
            Project::open(file, Project::Access::Read); // opened and closed again
            QVERIFY2(lockedByUs(), "reopening the project dropped the kept connection's lock");
        }
        // opening it as a graph reads its header too, and refuses it
        QVERIFY_THROWS_EXCEPTION(InputError, openGraphDocuments(file));
        QVERIFY2(lockedByUs(), "reading the header dropped the kept connection's lock");
    }

    // kill -9 of a writing process at random moments: the file stays consistent, committed rows stay,
    // the run becomes CRASHED, a new writer continues the same run.
    void killNineWhileWriting()
    {
        const std::string file = spath("kill.tgproj");
        std::string id;
        {
            Project p = Project::create(file);
            id = p.startRun({});
        }
        std::mt19937 rng(11);
        int64_t lastStep = 0;
        for (int round = 0; round < 10; ++round) {
            pid_t pid = 0;
            const int64_t first = lastStep + 1;
            inChild(
                [&] {
                    {
                        Project p = Project::open(file, Project::Access::Write);
                        p.adoptRun(id, getpid(), "writer");
                    }
                    RunWriter w(file, id, { 2, 1000 });
                    for (int64_t step = first;; ++step)
                        w.stepMetrics(stepAt(step, double(step)));
                    return 0;
                },
                &pid, false);
            // Kill only once the child has taken the run over (under load, starting may take longer
            // than the random delay; killing before that would leave nothing to detect).
            for (int wait = 0; wait < 1000; ++wait) {
                const auto run = Project::open(file, Project::Access::Read).findRun(id);
                if (run && run->pid == int64_t(pid) && run->status == RunStatus::Running)
                    break;
                usleep(5000);
            }
            usleep(useconds_t(20000 + rng() % 150000));
            kill(pid, SIGKILL);
            int status = 0;
            waitpid(pid, &status, 0);
            QVERIFY(WIFSIGNALED(status));

            // CRASHED at the next read (this host: the pid decides, not the heartbeat), and recorded
            // by the next writer that opens the project.
            QCOMPARE(Project::open(file, Project::Access::Read).findRun(id)->status, RunStatus::Crashed);
            Project p = Project::open(file, Project::Access::Write);
            QCOMPARE(p.db().queryText("PRAGMA integrity_check"), std::string("ok"));
            QCOMPARE(p.db().queryText("SELECT status FROM runs WHERE id = '" + id + "'"), std::string("CRASHED"));
            QCOMPARE(p.markCrashedRuns(0), 0);
            // the committed steps are exactly first..last, each with all of its series
            SqliteStatement s(p.db(),
                "SELECT min(m.step), max(m.step), count(DISTINCT m.step), count(*) FROM metrics m JOIN series s ON "
                "s.id = m.series WHERE s.run_id = ?1 AND m.step >= ?2");
            s.bind(1, id).bind(2, first).step();
            const int64_t committed = s.int64(2);
            if (committed > 0) {
                QCOMPARE(s.int64(0), first);
                QCOMPARE(s.int64(1), first + committed - 1);
                QCOMPARE(s.int64(3), committed * 7);
                lastStep = s.int64(1);
            }
        }
        QVERIFY2(lastStep > 100, qPrintable(QString::number(lastStep))); // the writers made progress
        Project p = Project::open(file, Project::Access::Read);
        QCOMPARE(p.metricHistory(id, "loss", "train").totalPoints, lastStep); // no gaps, no duplicates
    }

    // The file system refuses more bytes (RLIMIT_FSIZE, like a full disk): the writer fails with a
    // clear message and the project stays valid and readable.
    void fullDiskFailsCleanly()
    {
        const std::string file = spath("full.tgproj");
        std::string id;
        {
            Project p = Project::create(file);
            id = p.startRun({});
        }
        const QString log = path("full.log");
        const int rc = inChild([&] {
            signal(SIGXFSZ, SIG_IGN);
            const rlimit limit { 256 * 1024, 256 * 1024 };
            setrlimit(RLIMIT_FSIZE, &limit);
            try {
                RunWriter w(file, id, { 0, 1000 });
                for (int64_t step = 1; step < 1000000; ++step)
                    w.stepMetrics(stepAt(step, double(step)));
            } catch (const InputError& e) {
                writeText(log, e.what());
                return 7;
            }
            return 0;
        });
        QCOMPARE(rc, 7);
        const QByteArray message = testutil::readAll(log);
        QVERIFY2(message.contains("full.tgproj") && (message.contains("full") || message.contains("I/O")),
            message.constData());
        Project p = Project::open(file, Project::Access::Write);
        QCOMPARE(p.db().queryText("PRAGMA integrity_check"), std::string("ok"));
        QVERIFY(p.metricHistory(id, "loss", "train").totalPoints > 0);
        p.setRunStatus(id, RunStatus::Failed, "disk full");
    }

    // A read-only project folder (a read-only bind mount in a private mount namespace when root,
    // whom permissions do not stop; chmod otherwise): opening for writing or writing fails with a
    // clear message, the file is unchanged.
    void readOnlyFolderFailsCleanly()
    {
        const QString folder = path("ro");
        QDir().mkpath(folder);
        const std::string file = testutil::str(folder + "/p.tgproj");
        {
            Project p = Project::create(file);
            p.startRun({});
            p.db().exec("PRAGMA wal_checkpoint(TRUNCATE)");
        }
        QFile::remove(QString::fromStdString(file) + "-wal");
        QFile::remove(QString::fromStdString(file) + "-shm");
        const QByteArray before = fileHash(QString::fromStdString(file));
        const QString log = path("ro.log");
        const int rc = inChild([&] {
            if (geteuid() == 0) {
                if (unshare(CLONE_NEWNS) != 0 || mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
                    return 5; // no mount namespace here: cannot make a folder read-only for root
                const std::string dir = testutil::str(folder);
                if (mount(dir.c_str(), dir.c_str(), nullptr, MS_BIND, nullptr) != 0
                    || mount(nullptr, dir.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) != 0)
                    return 5;
            } else {
                chmod(testutil::str(folder).c_str(), 0555);
                chmod(file.c_str(), 0444);
            }
            try {
                Project p = Project::open(file, Project::Access::Write);
                p.startRun({});
            } catch (const InputError& e) {
                writeText(log, e.what());
                return 7;
            }
            return 0;
        });
        if (geteuid() != 0) {
            chmod(testutil::str(folder).c_str(), 0755);
            chmod(file.c_str(), 0644);
        }
        if (rc == 5)
            QSKIP("cannot make a folder read-only for root here (no private mount namespace)");
        QCOMPARE(rc, 7);
        const QByteArray message = testutil::readAll(log);
        QVERIFY2(message.contains("p.tgproj") && message.contains("not writable"), message.constData());
        QCOMPARE(fileHash(QString::fromStdString(file)), before);
        Project p = Project::open(file, Project::Access::Read);
        QCOMPARE(p.runs().size(), size_t(1));
    }

    // Run ids name folders, so every id read from a file must have the form the store gives them
    // (32 lowercase hex digits); paths of run files must stay in the data folder. The crafted
    // cases through the command line are in tst_hostileproject.
    void runIdsAndPathsAreChecked()
    {
        QVERIFY(isRunId("0123456789abcdef0123456789abcdef"));
        for (const char* bad : { "", "0123456789ABCDEF0123456789ABCDEF", "0123456789abcdef0123456789abcde",
                 "0123456789abcdef0123456789abcdef0", "../../victim", "/etc", "0123456789abcdef/../456789abcdef" })
            QVERIFY2(!isRunId(bad), bad);

        const std::string file = spath("ids.tgproj");
        Project p = Project::create(file);
        const std::string id = p.startRun({});
        QVERIFY(isRunId(id));
        QCOMPARE(p.runDir(id), p.dataDir() + "/runs/" + id);
        QVERIFY(isRunId(p.runs().front().id));

        // a parent (fold) or resumed-from id of another form: refused as well, escaped on one line
        RunStart fold;
        fold.parentRun = id;
        fold.name = "fold-0";
        const std::string foldId = p.startRun(fold);
        p.db().exec("PRAGMA foreign_keys=OFF");
        p.db().exec("UPDATE runs SET parent_run = '..' || char(10) || char(27) || '[2J' WHERE id = '" + foldId + "'");
        testutil::expectInputError([&] { p.runs(); }, { "ids.tgproj", "run '..\\x0a\\x1b[2J'", "not a run id" });
        p.db().exec("UPDATE runs SET parent_run = '" + id + "', resumed_from = '/tmp' WHERE id = '" + foldId + "'");
        testutil::expectInputError([&] { p.findRun(foldId); }, { "ids.tgproj", "run '/tmp'", "not a run id" });
        p.db().exec("UPDATE runs SET resumed_from = NULL WHERE id = '" + foldId + "'");
        p.db().exec("PRAGMA foreign_keys=ON");
        QCOMPARE(p.runs().size(), size_t(2));

        // files of runs: inside the data folder only, links resolved
        const std::string data = p.dataDir();
        fs::create_directories(data + "/runs/" + id);
        std::ofstream(data + "/runs/" + id + "/last.npz") << "x";
        const std::string stored = p.relativePath(data + "/runs/" + id + "/last.npz");
        QCOMPARE(p.dataPath(stored, "ckpt"), fs::canonical(data + "/runs/" + id + "/last.npz").string());
        for (const std::string& outside : { std::string("ids.tgproj"), std::string("elsewhere/last.npz"),
                 std::string("ids.tgproj.d/../x.npz"), std::string("/etc/passwd"), std::string("ids.tgproj.d"),
                 std::string() })
            testutil::expectInputError([&] { p.dataPath(outside, "run " + id + " checkpoint"); },
                { "ids.tgproj", "run " + QString::fromStdString(id) + " checkpoint",
                    "leads outside the project's data folder" });
        fs::create_symlink(spath("."), data + "/runs/" + id + "/out");
        testutil::expectInputError([&] { p.dataPath(stored + "/../out/ids.tgproj", "artifact"); },
            { "ids.tgproj", "leads outside" });

        // runs/ itself a link out of the data folder: every run folder is refused
        const std::string other = spath("ids-other");
        fs::create_directories(other);
        fs::rename(data + "/runs", data + "/runs.real");
        fs::create_symlink(other, data + "/runs");
        testutil::expectInputError([&] { p.runDir(id); }, { "ids.tgproj", "outside the project's run folders" });
        testutil::expectInputError([&] { p.deleteRun(id); }, { "ids.tgproj", "outside the project's run folders" });
        QVERIFY(p.findRun(id)); // refused before any row went
        fs::remove(data + "/runs");
        fs::rename(data + "/runs.real", data + "/runs");
        // the data folder itself may be a link (to a larger disk): its runs are inside it
        const std::string moved = spath("ids-data-elsewhere");
        fs::rename(data, moved);
        fs::create_directory_symlink(moved, data);
        QCOMPARE(p.runDir(id), data + "/runs/" + id);
        QCOMPARE(p.dataPath(stored, "ckpt"), fs::canonical(moved + "/runs/" + id + "/last.npz").string());
        p.deleteRun(id);
        QVERIFY(!fs::exists(moved + "/runs/" + id));
        QVERIFY(fs::exists(spath("ids.tgproj"))); // the link "out" was removed, not followed
    }

    // Every connection distrusts the file it opens: SQLite's defensive mode (no writable_schema,
    // no shadow-table writes) and trusted_schema=OFF, for writers and readers.
    void connectionsDistrustTheFile()
    {
        const std::string file = spath("distrust.tgproj");
        Project::create(file);
        for (const Project::Access access : { Project::Access::Write, Project::Access::Read }) {
            Project p = Project::open(file, access);
            int defensive = -1;
            QCOMPARE(sqlite3_db_config(p.db().handle(), SQLITE_DBCONFIG_DEFENSIVE, -1, &defensive), SQLITE_OK);
            QCOMPARE(defensive, 1);
            QCOMPARE(p.db().queryInt("PRAGMA trusted_schema"), int64_t(0));
        }
        Project p = Project::open(file, Project::Access::Write);
        p.db().exec("PRAGMA writable_schema=ON"); // accepted, but without effect in defensive mode
        testutil::expectInputError(
            [&] { p.db().exec("UPDATE sqlite_master SET sql = 'CREATE TABLE runs(x)' WHERE name = 'runs'"); },
            { "distrust.tgproj" });
        QVERIFY(p.runs().empty()); // the schema is what it was
    }

    // A file with a damaged page in the middle is refused at open (PRAGMA quick_check, run at the
    // first open of a file this process did not create), naming the file and SQLite's finding; it
    // is not modified, and nothing crashes. The same file undamaged opens.
    void damagedPageIsRefusedAtOpen()
    {
        const std::string made = spath("intact.tgproj");
        {
            Project p = Project::create(made);
            const std::string id = p.startRun({});
            std::vector<std::pair<std::string, std::string>> params;
            for (int k = 0; k < 3000; ++k)
                params.emplace_back("param_" + std::to_string(k), std::string(40, char('a' + k % 26)));
            p.setParams(id, params);
            p.db().exec("PRAGMA wal_checkpoint(TRUNCATE)");
        }
        const QByteArray intact = testutil::readAll(QString::fromStdString(made));
        const qsizetype pages = intact.size() / 4096;
        QVERIFY2(pages >= 8, qPrintable(QString::number(pages)));
        // copies: files this process did not create (another inode), as a project from elsewhere
        const QString good = path("copy-intact.tgproj"), bad = path("copy-damaged.tgproj");
        testutil::writeAll(good, intact);
        QByteArray damaged = intact;
        for (qsizetype i = (pages / 2) * 4096; i < (pages / 2) * 4096 + 4096; ++i)
            damaged[i] = char(0xa5 ^ (i * 7));
        testutil::writeAll(bad, damaged);
        const QByteArray before = fileHash(bad);
        for (const Project::Access access : { Project::Access::Write, Project::Access::Read }) {
            testutil::expectInputError([&] { Project::open(testutil::str(bad), access); },
                { "copy-damaged.tgproj", "integrity", "damaged", "quick_check" });
            QCOMPARE(fileHash(bad), before);
            QCOMPARE(Project::open(testutil::str(good), access).runs().size(), size_t(1));
        }
    }

    // markCrashedRuns decides from rows read inside its write transaction. Here another connection
    // takes a stale run over (as adoptRun does: fresh heartbeat, a live pid) in a transaction that
    // commits while markCrashedRuns waits for the write lock: the run must stay RUNNING. Reading
    // before the transaction, as it used to, marked it CRASHED under its new process.
    void crashMarkingReadsInsideItsTransaction()
    {
        const std::string file = spath("crashrace.tgproj");
        Project p = Project::create(file);
        pid_t gone = 0;
        inChild([] { return 0; }, &gone);
        RunStart s;
        s.pid = gone;
        const std::string id = p.startRun(s);
        p.db().exec("UPDATE runs SET heartbeat_ms = heartbeat_ms - 600000 WHERE id = '" + id + "'");

        SqliteDb other(file, SqliteDb::Mode::ReadWrite);
        other.setBusyTimeout(10000);
        other.exec("BEGIN IMMEDIATE");
        other.exec("UPDATE runs SET heartbeat_ms = " + std::to_string(nowMs()) + ", pid = " + std::to_string(getpid())
            + ", pid_start = " + std::to_string(processStartTicks(getpid())) + ", host = '" + hostName()
            + "' WHERE id = '" + id + "'");
        int marked = -1;
        std::thread marker([&] { marked = p.markCrashedRuns(); });
        std::this_thread::sleep_for(std::chrono::milliseconds(300)); // it reads the stale row, then waits
        other.exec("COMMIT");
        marker.join();
        QCOMPARE(marked, 0);
        QCOMPARE(p.findRun(id)->status, RunStatus::Running);
    }

    void initTestCase() { QVERIFY(m_dir.isValid()); }
};

QTEST_GUILESS_MAIN(TestProject)
#include "tst_project.moc"
