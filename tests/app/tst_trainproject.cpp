// SPDX-License-Identifier: Apache-2.0
// `tgraph train --project` and `tgraph runs` with real processes on a real project file: a run's
// whole history lands in the project, SIGTERM stops it with a checkpoint (KILLED), --resume RUN
// continues the same run's step count, kill -9 at random moments leaves a consistent file and a
// CRASHED run that resumes, and the runs command lists, shows, exports and deletes.

#include "app/launcher/trainingprocess.h"
#include "core/io/npz.h"
#include "core/store/project.h"
#include "core/store/sqlitedb.h"
#include "testutil.h"

#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <QDir>

#include <csignal>
#include <random>
#include <thread>
#include <unistd.h>

using namespace tgraph;

namespace {

QString tgraphExe() { return testutil::binDir() + "/tgraph"; }

// Steps of the "train/loss" history, in order.
std::vector<int64_t> lossSteps(const std::string& project, const std::string& run)
{
    const Project p = Project::open(project, Project::Access::Read);
    std::vector<int64_t> steps;
    for (const MetricPoint& m : p.metricHistory(run, "loss", "train").points)
        steps.push_back(m.step);
    return steps;
}

} // namespace

class TestTrainProject : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_data;

    QString path(const QString& name) const { return m_dir.filePath(name); }

    // Common arguments of a small, slow-enough run: checkpoints every 2 steps, a loss point every step.
    QStringList trainArgs(const QString& project, int steps) const
    {
        return { "train", "--data", m_data, "--steps", QString::number(steps), "--eval-every", "2", "--log-every", "1",
            "--configs-per-step", "16", "--threads", "1", "--project", project };
    }

    // Waits until run `key` of `project` is owned by `proc` (RUNNING with its pid: tgraph execs
    // tgraph-model, so the pid stays) and has a loss point at a step >= minStep. Returns the run id
    // ("" on timeout or when the process ended).
    std::string waitForProgress(QProcess& proc, const std::string& project, const std::string& key, int64_t minStep)
    {
        for (int i = 0; i < 1200; ++i) {
            if (QFileInfo::exists(QString::fromStdString(project))) {
                try {
                    const Project p = Project::open(project, Project::Access::Read);
                    const auto run = p.findRun(key);
                    if (run && run->pid == int64_t(proc.processId()) && run->status == RunStatus::Running) {
                        const auto steps = lossSteps(project, run->id);
                        if (!steps.empty() && steps.back() >= minStep)
                            return run->id;
                    }
                } catch (const std::exception&) {
                    // not created yet, or being created
                }
            }
            if (proc.state() == QProcess::NotRunning)
                return {};
            QThread::msleep(50);
        }
        return {};
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_data = path("coll");
        const auto r = testutil::run(tgraphExe(),
            { "synth", "--collection", "layout", "-o", m_data, "--graphs", "4", "--configs", "24", "--min-size", "300",
                "--max-size", "400", "--families", "mlp,resnet", "--seed", "5" });
        QVERIFY2(r.exitCode == 0, r.err.constData());
    }

    void runLandsInProject()
    {
        const QString project = path("a.tgproj");
        const auto r = testutil::run(tgraphExe(), trainArgs(project, 6) + QStringList { "--run-name", "first" });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const Project p = Project::open(project.toStdString(), Project::Access::Read);
        const auto run = p.findRun("first");
        QVERIFY(run);
        QCOMPARE(run->status, RunStatus::Finished);
        QCOMPARE(run->experiment, std::string("Default"));
        QVERIFY(run->commandLine.find("--run-name first") != std::string::npos);
        QCOMPARE(lossSteps(project.toStdString(), run->id), (std::vector<int64_t> { 1, 2, 3, 4, 5, 6 }));
        const MetricSeries tau = p.metricHistory(run->id, "tau", "valid");
        QCOMPARE(tau.totalPoints, int64_t(3)); // steps 2, 4, 6
        QVERIFY(!p.graphMetrics(run->id).empty());
        QCOMPARE(p.params(run->id).at("steps"), std::string("6"));
        // checkpoints and the log in the run's folder, registered as artifacts
        const std::string dir = p.runDir(run->id);
        QVERIFY(QFileInfo::exists(QString::fromStdString(dir + "/last.npz")));
        QVERIFY(QFileInfo::exists(QString::fromStdString(dir + "/best.npz")));
        const QByteArray log = testutil::readAll(QString::fromStdString(dir + "/train.log"));
        QVERIFY2(log.contains("eval at step 6"), log.constData());
        bool haveLog = false, haveCheckpoint = false;
        for (const ArtifactRecord& a : p.artifacts(run->id)) {
            haveLog |= a.kind == "log";
            haveCheckpoint |= a.kind == "checkpoint";
        }
        QVERIFY(haveLog && haveCheckpoint);
        QVERIFY(run->checkpoint.find("runs/" + run->id) != std::string::npos);
    }

    void runsCommand()
    {
        const QString project = path("a.tgproj");
        auto r = testutil::run(tgraphExe(), { "runs", "list", "--project", project });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.contains("first") && r.out.contains("FINISHED"));
        r = testutil::run(tgraphExe(), { "runs", "show", "first", "--project", project });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.contains("configs_per_step") && r.out.contains("tau"));
        // export: the metrics as CSV and the weights without the training state
        const QString csv = path("first.csv");
        const QString weights = path("first-weights.npz");
        r = testutil::run(
            tgraphExe(), { "runs", "export", "first", "--project", project, "-o", csv, "--weights", weights });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QList<QByteArray> lines = testutil::readAll(csv).trimmed().split('\n');
        QVERIFY(lines.size() > 6);
        int lossRows = 0;
        for (const QByteArray& line : lines)
            lossRows += line.contains(",loss,") ? 1 : 0;
        QCOMPARE(lossRows, 6);
        NpzReader npz(weights.toStdString());
        QVERIFY(npz.contains("classifier.weight"));
        QVERIFY(npz.contains("normalizer.mean"));
        for (const std::string& name : npz.keys())
            QVERIFY2(name.rfind("optimizer.", 0) != 0 && name.rfind("train.", 0) != 0, name.c_str());
        // bad inputs: no such run, a file that is not a project
        r = testutil::run(tgraphExe(), { "runs", "show", "nosuchrun", "--project", project });
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains("nosuchrun"));
        testutil::writeAll(path("text.tgproj"), "this is not a project\n");
        r = testutil::run(tgraphExe(), { "runs", "list", "--project", path("text.tgproj") });
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains("text.tgproj"));
        QCOMPARE(testutil::readAll(path("text.tgproj")), QByteArray("this is not a project\n"));
        // --out and --project together are a usage error
        r = testutil::run(tgraphExe(), trainArgs(project, 2) + QStringList { "--out", path("elsewhere") });
        QCOMPARE(r.exitCode, 2);
        // delete removes the run and its folder
        const std::string dir
            = Project::open(project.toStdString(), Project::Access::Read)
                  .runDir(Project::open(project.toStdString(), Project::Access::Read).findRun("first")->id);
        r = testutil::run(tgraphExe(), { "runs", "delete", "first", "--project", project });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(!Project::open(project.toStdString(), Project::Access::Read).findRun("first"));
        QVERIFY(!QFileInfo::exists(QString::fromStdString(dir)));
    }

    void stopAndResume()
    {
        const std::string project = testutil::str(path("b.tgproj"));
        QProcess proc;
        proc.start(tgraphExe(), trainArgs(QString::fromStdString(project), 500) + QStringList { "--run-name", "long" });
        const std::string id = waitForProgress(proc, project, "long", 3);
        QVERIFY2(!id.empty(), proc.readAllStandardError().constData());
        auto r = testutil::run(
            tgraphExe(), { "runs", "stop", "long", "--project", QString::fromStdString(project), "--timeout", "2m" });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("waiting up to 120 s"), r.out.constData()); // the timeout as given, with its unit
        QVERIFY(proc.waitForFinished(60000));
        QCOMPARE(proc.exitCode(), 130);
        int64_t stoppedAt = 0;
        {
            const Project p = Project::open(project, Project::Access::Read);
            const auto run = p.findRun(id);
            QCOMPARE(run->status, RunStatus::Killed);
            QVERIFY2(run->message.find("resume with") != std::string::npos, run->message.c_str());
            stoppedAt = lossSteps(project, id).back();
            QVERIFY(stoppedAt >= 3);
        }
        // the same run continues from its checkpoint: the step count goes on, no step twice
        proc.start(tgraphExe(), { "train", "--resume", "long", "--project", QString::fromStdString(project) });
        QCOMPARE(waitForProgress(proc, project, id, stoppedAt + 2), id);
        ::kill(pid_t(proc.processId()), SIGTERM);
        QVERIFY(proc.waitForFinished(60000));
        const QByteArray out = proc.readAllStandardOutput();
        QVERIFY2(out.contains("resumed at step " + QByteArray::number(qlonglong(stoppedAt))), out.constData());
        const auto steps = lossSteps(project, id);
        for (size_t i = 0; i < steps.size(); ++i)
            QCOMPARE(steps[i], int64_t(i + 1)); // 1, 2, ..., without a gap or a repeat
        QVERIFY(steps.back() >= stoppedAt + 2);
        const Project p = Project::open(project, Project::Access::Read);
        QCOMPARE(p.findRun(id)->status, RunStatus::Killed);
        QCOMPARE(int(p.runs().size()), 1); // appended to the same run
    }

    // A run stopped between two logging intervals (--log-every larger than the run) records the
    // steps since its last interval when it stops: its loss history and its step reach the step it
    // stopped at, as its log says, instead of ending earlier (or being empty: "Step 0").
    void stoppedRunRecordsItsLastStep()
    {
        const std::string project = testutil::str(path("s.tgproj"));
        QStringList args = trainArgs(QString::fromStdString(project), 500);
        args[args.indexOf("--log-every") + 1] = "1000";
        args[args.indexOf("--eval-every") + 1] = "3";
        QProcess proc;
        proc.start(tgraphExe(), args + QStringList { "--run-name", "quiet" });
        std::string id;
        for (int i = 0; i < 1200 && id.empty() && proc.state() != QProcess::NotRunning; ++i) {
            QThread::msleep(50);
            try {
                const Project p = Project::open(project, Project::Access::Read);
                const auto run = p.findRun("quiet");
                if (run && run->status == RunStatus::Running
                    && p.metricHistory(run->id, "tau", "valid").totalPoints > 0)
                    id = run->id; // evaluated once: a few steps done, none logged
            } catch (const std::exception&) {
                // not created yet
            }
        }
        QVERIFY2(!id.empty(), proc.readAllStandardError().constData());
        ::kill(pid_t(proc.processId()), SIGTERM);
        QVERIFY(proc.waitForFinished(60000));
        QCOMPARE(proc.exitCode(), 130);
        const QByteArray out = proc.readAllStandardOutput();
        const Project p = Project::open(project, Project::Access::Read);
        const auto run = p.findRun(id);
        QCOMPARE(run->status, RunStatus::Killed);
        const std::string prefix = "stopped at step ";
        QVERIFY2(run->message.rfind(prefix, 0) == 0, run->message.c_str());
        const int64_t stoppedAt = std::stoll(run->message.substr(prefix.size()));
        QVERIFY2(out.contains("interrupted at step " + QByteArray::number(qlonglong(stoppedAt))), out.constData());
        QVERIFY(stoppedAt >= 3);
        const auto steps = lossSteps(project, id);
        QVERIFY2(!steps.empty(), "the steps before the stop were not recorded");
        QCOMPARE(steps.back(), stoppedAt);
        QCOMPARE(run->lastStep, stoppedAt);
    }

    // The GUI's way: a run launched through the child-process API lands in the project, streams
    // its lines, and stops gracefully.
    void launchedThroughChildProcessApi()
    {
        const QString project = path("d.tgproj");
        app::TrainingProcess launcher;
        launcher.setProgram(tgraphExe());
        QSignalSpy ids(&launcher, &app::TrainingProcess::runIdKnown);
        QSignalSpy lines(&launcher, &app::TrainingProcess::outputLine);
        QSignalSpy done(&launcher, &app::TrainingProcess::finished);
        QStringList args = trainArgs(project, 500);
        args = args.mid(1, args.size() - 3); // without "train" and "--project P": the launcher adds them
        QVERIFY(launcher.start(project, args + QStringList { "--run-name", "gui" }));
        QVERIFY(!launcher.start(project, args)); // one run per launcher
        QTRY_VERIFY_WITH_TIMEOUT(ids.count() == 1, 120000);
        const std::string id = launcher.runId().toStdString();
        QCOMPARE(id.size(), size_t(32));
        QTRY_VERIFY_WITH_TIMEOUT(lossSteps(project.toStdString(), id).size() >= 3, 120000);
        launcher.stop(30000);
        QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, 60000);
        QCOMPARE(done.at(0).at(0).toInt(), 130);
        QCOMPARE(done.at(0).at(1).toBool(), false);
        bool sawStep = false, sawInterrupted = false;
        for (const auto& l : lines) {
            sawStep |= l.at(0).toString().startsWith("step ");
            sawInterrupted |= l.at(0).toString().startsWith("interrupted at step");
        }
        QVERIFY(sawStep && sawInterrupted);
        const Project p = Project::open(project.toStdString(), Project::Access::Read);
        const auto run = p.findRun("gui");
        QVERIFY(run && run->id == id);
        QCOMPARE(run->status, RunStatus::Killed);
        QVERIFY(QFileInfo::exists(QString::fromStdString(p.runDir(id) + "/last.npz")));
    }

    // A full disk (a 3 MiB tmpfs in a private mount namespace: the first checkpoints do not fit):
    // the run fails with the file and the reason, ends FAILED in a project that still opens, and
    // no partial checkpoint is left behind.
    void diskFullFailsCleanly()
    {
        if (::geteuid() != 0)
            QSKIP("needs root for a private tmpfs mount");
        const QString dir = path("full");
        QVERIFY(QDir().mkpath(dir));
        const QString script = QString("mount -t tmpfs -o size=3m tmpfs '%1' || exit 77; "
                                       "'%2' train --data '%3' --steps 30 --eval-every 5 --log-every 5 "
                                       "--configs-per-step 16 --threads 1 --project '%1/p.tgproj' --run-name full; "
                                       "echo TRAIN_RC=$?; '%2' runs show full --project '%1/p.tgproj'; "
                                       "find '%1' -name '*.tmp*' -printf 'LEFTOVER %p\\n'")
                                   .arg(dir, tgraphExe(), m_data);
        const auto r = testutil::run("unshare", { "-m", "sh", "-c", script }, 300000);
        if (r.exitCode == 77 || r.err.contains("unshare failed"))
            QSKIP("no private mount namespace here");
        QVERIFY2(r.out.contains("TRAIN_RC=1"), (r.out + r.err).constData());
        QVERIFY2(r.err.contains("No space left on device") && r.err.contains("p.tgproj.d/runs/"), r.err.constData());
        QVERIFY2(r.out.contains("FAILED") && r.out.contains("No space left on device"), r.out.constData());
        QVERIFY2(!r.out.contains("LEFTOVER"), r.out.constData());
    }

    // kill -9 at random moments: the file stays consistent, committed rows stay, the run is
    // CRASHED once checked, and --resume continues it from its last checkpoint.
    void killNineLoop()
    {
        const std::string project = testutil::str(path("c.tgproj"));
        std::mt19937 rng(7);
        std::string id;
        int resumed = 0;
        for (int round = 0; round < 10; ++round) {
            QProcess proc;
            std::error_code ec;
            const bool canResume = !id.empty()
                && std::filesystem::exists(Project::open(project, Project::Access::Read).runDir(id) + "/last.npz", ec);
            if (canResume)
                proc.start(tgraphExe(),
                    { "train", "--resume", QString::fromStdString(id), "--project", QString::fromStdString(project) });
            else
                proc.start(tgraphExe(),
                    trainArgs(QString::fromStdString(project), 500)
                        + QStringList { "--run-name", QString("k%1").arg(round) });
            const std::string key = canResume ? id : "k" + std::to_string(round);
            // a resumed run has its old history: wait for a step of this process
            const int64_t minStep = canResume ? lossSteps(project, id).back() + 1 : 1;
            const std::string got = waitForProgress(proc, project, key, minStep);
            QVERIFY2(!got.empty(), proc.readAllStandardError().constData());
            std::this_thread::sleep_for(std::chrono::milliseconds(200 + rng() % 1500));
            const int64_t committedBefore = int64_t(lossSteps(project, got).size());
            ::kill(pid_t(proc.processId()), SIGKILL);
            QVERIFY(proc.waitForFinished(10000));
            QCOMPARE(proc.exitStatus(), QProcess::CrashExit);

            // The pid is gone on this host: CRASHED at the next read (no 30 s for the heartbeat),
            // and in the file once a writer opens it.
            QCOMPARE(Project::open(project, Project::Access::Read).findRun(got)->status, RunStatus::Crashed);
            Project p = Project::open(project, Project::Access::Write);
            QCOMPARE(p.db().queryText("PRAGMA integrity_check"), std::string("ok"));
            QCOMPARE(p.db().queryText("SELECT status FROM runs WHERE id = '" + got + "'"), std::string("CRASHED"));
            const auto steps = lossSteps(project, got);
            QVERIFY(int64_t(steps.size()) >= committedBefore);
            for (size_t i = 0; i < steps.size(); ++i)
                QCOMPARE(steps[i], int64_t(i + 1));
            resumed += canResume ? 1 : 0;
            id = got;
        }
        qInfo("kill -9 loop: 10 kills, %d of the rounds resumed the previous run", resumed);
        QVERIFY(resumed >= 3);
    }
};

QTEST_GUILESS_MAIN(TestTrainProject)
#include "tst_trainproject.moc"
