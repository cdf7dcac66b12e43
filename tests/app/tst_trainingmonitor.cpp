// SPDX-License-Identifier: Apache-2.0
// The training monitor: TensorBoard smoothing pinned, the runs table and curves from a real
// project, and runs started, stopped and resumed through the monitor as real `tgraph train`
// child processes (FINISHED, KILLED), plus unreadable projects shown in the banner.

#include "testutil.h"

#include "app/launcher/trainingprocess.h"
#include "app/studio/newrundialog.h"
#include "app/studio/runpoller.h"
#include "app/studio/trainingmonitor.h"
#include "core/project.h"
#include "core/runwriter.h"
#include "core/sqlitedb.h"
#include "widgets/errorbanner.h"
#include "widgets/runcurvesview.h"
#include "widgets/runtablemodel.h"
#include "widgets/smoothing.h"

#include <QChart>
#include <QLineSeries>
#include <QPlainTextEdit>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QTemporaryDir>

#include <cmath>

using namespace tgraph;

namespace {

QString tgraphExe() { return testutil::binDir() + "/tgraph"; }

RunStatus statusOf(const QString& project, const QString& runId)
{
    const Project p = Project::open(project.toStdString(), Project::Access::Read);
    const auto run = p.findRun(runId.toStdString());
    return run ? run->status : RunStatus::Pending;
}

} // namespace

class TestTrainingMonitor : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_data;

    QString path(const QString& name) const { return m_dir.filePath(name); }

    // Waits until the monitor's table shows `runId` with `status` (polling the real project).
    static bool waitForStatus(TrainingMonitor& monitor, const QString& runId, RunStatus status, int timeoutMs)
    {
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < timeoutMs) {
            monitor.pollNow();
            QSignalSpy shown(&monitor, &TrainingMonitor::snapshotShown);
            shown.wait(2000);
            const int row = monitor.runsModel()->rowOfRun(runId.toStdString());
            if (row >= 0 && monitor.runsModel()->runs()[size_t(row)].record.status == status)
                return true;
        }
        return false;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_data = path("coll");
        const auto r = testutil::run(tgraphExe(),
            { "synth", "--collection", "layout", "-o", m_data, "--graphs", "4", "--configs", "24", "--min-size", "200",
                "--max-size", "300", "--families", "mlp,resnet", "--seed", "5" });
        QVERIFY2(r.exitCode == 0, r.err.constData());
    }

    void smoothingIsTensorBoards()
    {
        // A constant stays constant (the debiasing removes the pull towards 0).
        for (const double v : debiasedEma({ 3, 3, 3, 3 }, 0.6))
            QCOMPARE(v, 3.0);
        // Worked out by hand, w = 0.5: last = 0.5, 0.25 + 1 = 1.25, 0.625 + 0.5 = 1.125; debias by
        // 1 - 0.5^k = 0.5, 0.75, 0.875.
        const std::vector<double> s = debiasedEma({ 1, 2, 1 }, 0.5);
        QCOMPARE(s[0], 1.0);
        QVERIFY(std::abs(s[1] - 1.25 / 0.75) < 1e-12);
        QVERIFY(std::abs(s[2] - 1.125 / 0.875) < 1e-12);
        // Weight 0 returns the input; NaN passes through and does not move the average.
        QCOMPARE(debiasedEma({ 1, 5, 2 }, 0.0), (std::vector<double> { 1, 5, 2 }));
        const std::vector<double> n = debiasedEma({ 1, NAN, 1 }, 0.6);
        QVERIFY(std::isnan(n[1]));
        QCOMPARE(n[2], 1.0);
    }

    void tableAndCurvesFromAProject()
    {
        const QString project = path("written.tgproj");
        {
            Project p = Project::create(project.toStdString());
            RunStart a;
            a.name = "alpha";
            const std::string ida = p.startRun(a);
            p.setParams(ida, { { "lr", "0.001" }, { "seed", "1" } });
            RunStart b;
            b.name = "beta";
            const std::string idb = p.startRun(b);
            p.setParams(idb, { { "lr", "0.002" }, { "seed", "1" } });
            RunWriter w(project.toStdString(), ida);
            for (int step = 1; step <= 10; ++step)
                w.logMetric("loss", step, 1.0 / step, "train");
            for (const auto& [step, tau] : { std::pair { 5, 0.3 }, std::pair { 10, 0.2 } }) {
                EvalMetrics e;
                e.step = step;
                e.meanTau = tau;
                e.meanTileScore = NAN;
                w.evalMetrics(e);
            }
            w.finish(RunStatus::Finished);
        }
        const RunSnapshot s = RunPoller::read(project, { "alpha" }, "train/loss");
        QVERIFY2(s.error.isEmpty(), qPrintable(s.error));
        QCOMPARE(s.runs.size(), size_t(2));
        RunTableModel model;
        model.setRuns(s.runs, s.nowMs);
        const int alpha = model.rowOfRun(s.curves.front().runId);
        QVERIFY(alpha >= 0);
        QCOMPARE(model.index(alpha, RunTableModel::Status).data().toString(), QString("finished"));
        QCOMPARE(model.index(alpha, RunTableModel::Step).data().toLongLong(), 10LL);
        QCOMPARE(model.index(alpha, RunTableModel::Tau).data(Qt::UserRole).toDouble(), 0.2); // latest
        QCOMPARE(model.index(alpha, RunTableModel::BestTau).data(Qt::UserRole).toDouble(), 0.3); // best
        QCOMPARE(model.index(alpha, RunTableModel::Loss).data(Qt::UserRole).toDouble(), 0.1);

        RunCurvesView view;
        view.setCurves(s.curves);
        int lines = 0, stars = 0;
        for (QAbstractSeries* series : view.chart()->series()) {
            lines += qobject_cast<QLineSeries*>(series) && !qobject_cast<QScatterSeries*>(series) ? 1 : 0;
            if (auto* best = qobject_cast<QScatterSeries*>(series)) {
                ++stars;
                QCOMPARE(best->at(0), QPointF(10, 0.1)); // the lowest loss
            }
        }
        QCOMPARE(lines, 2); // raw and smoothed
        QCOMPARE(stars, 1);
        QCOMPARE(RunCurvesView::bestIndex(s.curves.front()), int64_t(9));
        QVERIFY(RunCurvesView::higherIsBetter("tau"));

        const QStringList diff = TrainingMonitor::paramDifferences(s.runs[0].params, s.runs[1].params);
        QCOMPARE(diff.size(), 1);
        QVERIFY(diff.front().startsWith("lr:"));
    }

    void newRunDialogShowsTheCommand()
    {
        NewRunDialog dialog(path("p.tgproj"));
        dialog.setDataPath(m_data);
        const QStringList args = dialog.trainArguments();
        QCOMPARE(args.mid(0, 2), (QStringList { "--data", m_data }));
        QVERIFY(args.contains("--configs-per-step"));
        QVERIFY(dialog.commandLine().startsWith("tgraph train --data "));
        QVERIFY(dialog.commandLine().endsWith("--project " + path("p.tgproj")));
        // The arguments are ones `tgraph train` accepts: --help-free dry check via a real 1-step run.
        QStringList quick = args;
        const int steps = quick.indexOf("--steps");
        QVERIFY(steps >= 0);
        quick[steps + 1] = "1";
        const auto r = testutil::run(tgraphExe(),
            QStringList { "train" } + quick + QStringList { "--threads", "1", "--project", path("dialog.tgproj") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
    }

    void monitorFollowsRealRuns()
    {
        const QString project = path("live.tgproj");
        TrainingMonitor monitor;
        monitor.setConfirmations(false);
        monitor.resize(1100, 700);
        monitor.show();
        monitor.setProject(project);
        // A short run to the end: FINISHED, with its output in the log pane.
        QSignalSpy finished(monitor.process(), &app::TrainingProcess::finished);
        QVERIFY(monitor.startRun({ "--data", m_data, "--steps", "6", "--eval-every", "3", "--log-every", "1",
            "--configs-per-step", "16", "--threads", "1", "--run-name", "short" }));
        QVERIFY(finished.wait(120000));
        const QString shortId = monitor.process()->runId();
        QVERIFY(!shortId.isEmpty());
        QVERIFY(waitForStatus(monitor, shortId, RunStatus::Finished, 20000));
        QVERIFY(monitor.logPane()->toPlainText().contains("step 6/6"));
        monitor.selectRuns({ shortId });
        monitor.setMetric("valid/tau");
        QTRY_VERIFY_WITH_TIMEOUT(
            !monitor.curves()->curves().empty() && monitor.curves()->curves().front().series.points.size() == 2, 10000);

        // A long run stopped through the monitor: KILLED, then resumed and finished.
        finished.clear();
        QVERIFY(monitor.startRun({ "--data", m_data, "--steps", "400", "--eval-every", "2", "--log-every", "1",
            "--configs-per-step", "16", "--threads", "1", "--run-name", "long" }));
        QTRY_VERIFY_WITH_TIMEOUT(!monitor.process()->runId().isEmpty(), 60000);
        const QString longId = monitor.process()->runId();
        QVERIFY(waitForStatus(monitor, longId, RunStatus::Running, 30000));
        monitor.selectRuns({ longId });
        QTRY_VERIFY_WITH_TIMEOUT(!monitor.runsModel()->runs().empty(), 5000);
        // Wait for a checkpoint so that the run can be resumed.
        QTRY_VERIFY_WITH_TIMEOUT(!Project::open(project.toStdString(), Project::Access::Read)
                                      .findRun(longId.toStdString())
                                      ->checkpoint.empty(),
            60000);
        monitor.stopSelected(20000);
        QVERIFY(finished.wait(60000));
        QVERIFY(waitForStatus(monitor, longId, RunStatus::Killed, 20000));
        QCOMPARE(statusOf(project, longId), RunStatus::Killed);
        monitor.selectRuns({ longId });
        finished.clear();
        QVERIFY(monitor.resumeSelected());
        QVERIFY(waitForStatus(monitor, longId, RunStatus::Running, 30000));
        monitor.selectRuns({ longId });
        monitor.stopSelected(20000);
        QVERIFY(finished.wait(60000));
        QVERIFY(waitForStatus(monitor, longId, RunStatus::Killed, 20000));

        // TGRAPH_SCREENSHOT_DIR: keep a picture of the monitor for the documentation.
        if (const QString shots = testutil::env("TGRAPH_SCREENSHOT_DIR"); !shots.isEmpty()) {
            monitor.selectRuns({ shortId, longId });
            monitor.setMetric("train/loss");
            QTest::qWait(1500);
            monitor.grab().save(shots + "/training-monitor.png");
        }
        // The curves drawn offscreen by `tgraph render --view curves`.
        auto r = testutil::run(tgraphExe(),
            { "render", "--view", "curves", "--project", project, "--run", shortId + "," + longId, "--metric",
                "valid/tau", "-o", path("curves.png") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(!QImage(path("curves.png")).isNull());
        r = testutil::run(
            tgraphExe(), { "render", "--view", "curves", "--project", project, "--run", "nope", "-o", path("no.png") });
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains("nope"));

        // Delete the short run: gone from the project and the table.
        monitor.selectRuns({ shortId });
        QVERIFY(monitor.deleteSelected());
        monitor.pollNow();
        QTRY_VERIFY_WITH_TIMEOUT(monitor.runsModel()->rowOfRun(shortId.toStdString()) < 0, 10000);
    }

    void unreadableProjectsShowABanner()
    {
        // A project from a newer schema.
        const QString newer = path("newer.tgproj");
        {
            Project p = Project::create(newer.toStdString());
            p.db().exec("PRAGMA user_version=" + std::to_string(Project::kSchemaVersion + 1));
        }
        TrainingMonitor monitor;
        QSignalSpy shown(&monitor, &TrainingMonitor::snapshotShown);
        // A project not created yet (the first run creates it): no runs, no error.
        monitor.setProject(path("later.tgproj"));
        QVERIFY(shown.wait(10000));
        QVERIFY(monitor.banner()->messages().isEmpty());
        QVERIFY(monitor.runsModel()->runs().empty());
        shown.clear();
        monitor.setProject(newer);
        QVERIFY(shown.wait(10000));
        QVERIFY(monitor.banner()->isVisibleTo(&monitor) || !monitor.banner()->messages().isEmpty());
        QVERIFY(monitor.banner()->text().contains("newer.tgproj"));
        // Not a project at all.
        const QString junk = path("junk.tgproj");
        QFile f(junk);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("this is not sqlite");
        f.close();
        shown.clear();
        monitor.setProject(junk);
        QVERIFY(shown.wait(10000));
        QVERIFY(monitor.banner()->text().contains("junk.tgproj"));
        QVERIFY(monitor.runsModel()->runs().empty());
    }
};

QTEST_MAIN(TestTrainingMonitor)
#include "tst_trainingmonitor.moc"
