// SPDX-License-Identifier: Apache-2.0
// The training monitor against real `tgraph train` child processes on a small generated layout
// collection: a run started from the New-run dialog's arguments ends FINISHED with its output in
// the log pane; a long run's curves grow while it writes (without new chart series), it is
// stopped (KILLED) and resumed (the steps continue) through the monitor; a run started in a
// "terminal" shows up by polling and is stopped through the monitor; curves render offscreen;
// runs are deleted; unreadable projects show the inline banner.

#include "testutil.h"

#include "app/studio/render/monitorrender.h"
#include "app/studio/runs/newrundialog.h"
#include "app/studio/runs/runprocesses.h"
#include "app/studio/runs/trainingmonitor.h"
#include "core/store/project.h"
#include "core/store/sqlitedb.h"
#include "widgets/common/errorbanner.h"
#include "widgets/runs/runcomparisonview.h"
#include "widgets/runs/runcomparisonwindow.h"
#include "widgets/runs/runcurvesview.h"
#include "widgets/runs/runparamsmodel.h"
#include "widgets/runs/runtablemodel.h"
#include "widgets/runs/parallelcoordinatesview.h"
#include "widgets/runs/sweepview.h"

#include <QChart>
#include <QImage>
#include <QLayout>
#include <QLineSeries>
#include <QPlainTextEdit>
#include <QProcess>
#include <QScatterSeries>
#include <QScopeGuard>
#include <QScreen>
#include <QSignalSpy>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>

using namespace tgraph::widgets;
using namespace tgraph::studio;

using namespace tgraph;

namespace {

QString tgraphExe() { return testutil::binDir() + "/tgraph"; }

// `args` with the value after `option` replaced (appended when missing).
QStringList withOption(QStringList args, const QString& option, const QString& value)
{
    const int at = args.indexOf(option);
    if (at >= 0)
        args[at + 1] = value;
    else
        args << option << value;
    return args;
}

RunStatus statusIn(const TrainingMonitor& monitor, const QString& runId)
{
    const RunRow* row = monitor.runsModel()->run(runId.toStdString());
    return row ? row->record.status : RunStatus::Pending;
}

// Polls until `done()` (each poll's result shown) or the timeout.
template <class Done> bool waitFor(TrainingMonitor& monitor, Done done, int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > timeoutMs)
            return false;
        QSignalSpy shown(&monitor, &TrainingMonitor::snapshotShown);
        monitor.pollNow();
        shown.wait(1000);
    }
    return true;
}

std::vector<int64_t> curveSteps(const TrainingMonitor& monitor)
{
    std::vector<int64_t> steps;
    if (!monitor.curves()->curves().empty())
        for (const MetricPoint& p : monitor.curves()->curves().front().series.points)
            steps.push_back(p.step);
    return steps;
}

} // namespace

class TestTrainingMonitor : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_data;
    QString m_project;
    QString m_finishedRun;
    QString m_stoppedRun;

    QString path(const QString& name) const { return m_dir.filePath(name); }
    QStringList quickArgs(const QString& name, int steps, const QString& family = "tgraph") const
    {
        NewRunDialog dialog(m_project);
        dialog.setDataPath(m_data);
        dialog.setModelFamily(family);
        QStringList args = dialog.trainArguments();
        args = withOption(args, "--steps", QString::number(steps));
        args = withOption(args, "--configs-per-step", "16");
        args = withOption(args, "--threads", "1");
        args = withOption(args, "--run-name", name);
        return args;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_data = path("coll");
        m_project = path("live.tgproj");
        const auto r = testutil::run(tgraphExe(),
            { "synth", "--collection", "layout", "-o", m_data, "--graphs", "4", "--configs", "24", "--min-size", "200",
                "--max-size", "300", "--families", "mlp,resnet", "--seed", "5" });
        QVERIFY2(r.exitCode == 0, r.err.constData());
    }

    void newRunDialogShowsTheCommand()
    {
        NewRunDialog dialog(m_project);
        QVERIFY(!dialog.problem().isEmpty()); // no data yet
        dialog.setRecentData({ m_data, path("elsewhere") });
        QCOMPARE(dialog.dataEntries(), QStringList { m_data }); // the newest is preselected
        QCOMPARE(dialog.dataKind(), QString("layout"));
        QVERIFY2(dialog.problem().isEmpty(), qPrintable(dialog.problem()));
        const QStringList args = dialog.trainArguments();
        QCOMPARE(args.mid(0, 2), (QStringList { "--data", m_data }));
        for (const char* option : { "--steps", "--configs-per-step", "--cross-attn", "--lr", "--weight-decay",
                 "--eval-every", "--threads", "--seed" })
            QVERIFY2(args.contains(option), option);
        QVERIFY(!args.contains("--folds")); // no cross-validation unless asked
        QVERIFY(dialog.commandLine().startsWith("tgraph train --data " + m_data + " --steps "));
        QVERIFY(dialog.commandLine().endsWith("--project " + m_project));
        QCOMPARE(NewRunDialog::shellQuote("a b'c"), QString("'a b'\\''c'"));
        QVERIFY(!args.contains("--kind")); // the data decide unless a kind is chosen
        // A chosen model kind goes on the command line; the other kind's data are refused.
        dialog.setModelKind("layout");
        QVERIFY(dialog.problem().isEmpty());
        QVERIFY(dialog.commandLine().contains("--kind layout"));
        dialog.setModelKind("tile");
        QVERIFY(dialog.problem().contains("layout graphs"));
        QVERIFY(dialog.commandLine().contains("--kind tile"));
        QVERIFY(!dialog.commandLine().contains("--configs-per-step")); // tile steps use all configs
        // Another model of the zoo: --model (and its reduction, a loss) instead of TGraph's flags.
        dialog.setModelKind("layout");
        dialog.setModelFamily("kaufman", "lstm", "mse");
        QVERIFY2(dialog.commandLine().contains("--model kaufman --reduction lstm --loss mse"),
            qPrintable(dialog.commandLine()));
        QVERIFY(!dialog.commandLine().contains("--cross-attn"));
        dialog.setModelFamily("tgraph");
        QVERIFY(dialog.commandLine().contains("--cross-attn"));
        QVERIFY(!dialog.commandLine().contains("--model"));
        dialog.setModelKind("tile");
        // The command refuses the same, naming the file.
        const auto refused = testutil::run(
            tgraphExe(), { "train", "--data", m_data, "--kind", "tile", "--steps", "1", "-o", path("kindrun") });
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains("is a layout graph, but a tile model was asked for"), refused.err.constData());
        QVERIFY(refused.err.contains(".npz"));
        // Several processes: data-parallel workers or the folds in parallel, sharing the cores.
        dialog.setModelKind("");
        QVERIFY(dialog.problem().isEmpty());
        dialog.setParallel("workers", 3);
        QVERIFY2(dialog.commandLine().contains("--launch-local 3"), qPrintable(dialog.commandLine()));
        QVERIFY(!dialog.trainArguments().contains("--threads")); // all cores: shared by the command
        dialog.setParallel("folds", 2);
        QVERIFY(dialog.problem().contains("cross-validation folds"));
        QVERIFY(dialog.commandLine().contains("--parallel-folds 2"));
        dialog.setParallel("");
        QVERIFY(!dialog.commandLine().contains("--launch-local") && !dialog.commandLine().contains("--parallel"));
        QVERIFY(dialog.trainArguments().contains("--threads"));
        dialog.setDataPath(path("missing"));
        QVERIFY(dialog.dataKind().isEmpty());
        QVERIFY(dialog.problem().contains("missing"));
    }

    // The dialog fits a 1366x768 laptop screen less a title bar and a task bar, in its widest
    // states: no data (the problem shown), the data's kind explained, every option enabled and
    // the longest problem.
    void newRunDialogFitsSmallScreens()
    {
        const QSize available(1366, 768 - 72);
        NewRunDialog dialog(m_project);
        const auto fits = [&](const char* state) {
            dialog.layout()->activate(); // the dialog grows to its new minimum now
            const QSize min = dialog.minimumSizeHint();
            qInfo("New-run dialog, %s: minimum %dx%d, shown %dx%d", state, min.width(), min.height(), dialog.width(),
                dialog.height());
            return min.width() <= available.width() && min.height() <= available.height()
                && dialog.width() <= available.width() && dialog.height() <= available.height();
        };
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QVERIFY(!dialog.problem().isEmpty());
        QVERIFY(fits("no data"));
        dialog.setRecentData({ m_data });
        dialog.setModelFamily("kaufman", "transformer", "listmle");
        dialog.setParallel("workers", 256);
        QVERIFY(dialog.problem().isEmpty());
        QVERIFY(fits("data, every option"));
        dialog.setModelFamily("tgraph");
        dialog.setParallel("");
        dialog.setModelKind("tile");
        QVERIFY(dialog.problem().contains("layout graphs"));
        QVERIFY(fits("data of the other kind"));
        if (const QString shots = testutil::env("TGRAPH_SCREENSHOT_DIR"); !shots.isEmpty())
            dialog.grab().save(shots + "/new-run-dialog.png");
    }

    void runStartedHereFinishes()
    {
        TrainingMonitor monitor;
        monitor.setConfirmations(false);
        monitor.setPollInterval(200);
        monitor.resize(1200, 800);
        monitor.show();
        monitor.setProject(m_project); // not created yet: the run creates it
        QSignalSpy finished(monitor.processes(), &RunProcesses::finished);
        QVERIFY(monitor.startRun(withOption(quickArgs("short", 6), "--eval-every", "3") << "--log-every"
                                                                                        << "1"));
        QVERIFY(finished.wait(60000));
        m_finishedRun = finished.front().at(0).toString();
        QCOMPARE(finished.front().at(1).toInt(), 0);
        QVERIFY(!m_finishedRun.isEmpty());
        QVERIFY(waitFor(
            monitor, [&] { return statusIn(monitor, m_finishedRun) == RunStatus::Finished; }, 10000));
        // Selected once known; its output streamed into the log pane.
        QCOMPARE(monitor.selectedRunIds(), QStringList { m_finishedRun });
        QVERIFY(monitor.logPane()->toPlainText().contains("step 6/6"));
        QVERIFY(monitor.logPane()->toPlainText().startsWith("$ tgraph train --data"));
        monitor.setMetric("valid/tau");
        QVERIFY(waitFor(
            monitor,
            [&] {
                return curveSteps(monitor) == std::vector<int64_t> { 3, 6 };
            },
            10000));
        QCOMPARE(monitor.curves()->bestSeries(0)->count(), 1);
        const RunRow* row = monitor.runsModel()->run(m_finishedRun.toStdString());
        QVERIFY(std::isfinite(row->bestTau));
        QCOMPARE(row->params.at("kind"), std::string("layout"));
        // Open weights: the run's best checkpoint, for the inference panel.
        QSignalSpy weights(&monitor, &TrainingMonitor::openWeightsRequested);
        monitor.openSelectedWeights();
        QCOMPARE(weights.size(), 1);
        const QString file = weights.front().front().toString();
        QVERIFY2(file.endsWith("best.npz") && QFileInfo::exists(file), qPrintable(file));
        QVERIFY(monitor.banner()->messages().isEmpty());
    }

    // Data-parallel workers and parallel folds started from the dialog's arguments: one run each,
    // rank 0's (or the cross-validation's) record with its workers or fold runs.
    void parallelRunsStartedHereFinish()
    {
        TrainingMonitor monitor;
        monitor.setConfirmations(false);
        monitor.setPollInterval(200);
        monitor.show();
        monitor.setProject(m_project);
        QSignalSpy finished(monitor.processes(), &RunProcesses::finished);
        QStringList workers = quickArgs("workers", 4) << "--launch-local" << "2";
        QVERIFY(monitor.startRun(workers));
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.back().at(1).toInt(), 0);
        const QString workersRun = finished.back().at(0).toString();
        QVERIFY(waitFor(
            monitor, [&] { return statusIn(monitor, workersRun) == RunStatus::Finished; }, 10000));
        const RunRow* row = monitor.runsModel()->run(workersRun.toStdString());
        QCOMPARE(row->params.at("workers"), std::string("2"));
        QCOMPARE(row->params.at("graphs_per_step"), std::string("2"));

        QStringList folds = withOption(quickArgs("folds", 4), "--eval-every", "2")
            << "--folds" << "3" << "--train-folds" << "2" << "--keep" << "1" << "--parallel-folds" << "2";
        QVERIFY(monitor.startRun(folds));
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.back().at(1).toInt(), 0);
        const QString foldsRun = finished.back().at(0).toString();
        QVERIFY(waitFor(
            monitor, [&] { return statusIn(monitor, foldsRun) == RunStatus::Finished; }, 10000));
        const Project p = Project::open(m_project.toStdString(), Project::Access::Read);
        int foldRuns = 0;
        for (const RunRecord& r : p.runs())
            foldRuns += r.parentRun == foldsRun.toStdString() && r.status == RunStatus::Finished;
        QCOMPARE(foldRuns, 2);
    }

    void stopAndResumeWhileTheCurvesGrow()
    {
        TrainingMonitor monitor;
        monitor.setConfirmations(false);
        monitor.setPollInterval(200);
        monitor.resize(1200, 800);
        monitor.show();
        monitor.setProject(m_project);
        QSignalSpy finished(monitor.processes(), &RunProcesses::finished);
        QVERIFY(monitor.startRun(withOption(quickArgs("long", 20000), "--eval-every", "25") << "--log-every"
                                                                                            << "1"));
        QVERIFY(waitFor(
            monitor, [&] { return monitor.selectedRunIds().size() == 1; }, 30000));
        m_stoppedRun = monitor.selectedRunIds().front();
        QCOMPARE(statusIn(monitor, m_stoppedRun), RunStatus::Running);

        // The loss curve grows while the child writes, in the same chart series (no flicker).
        QVERIFY(waitFor(
            monitor, [&] { return curveSteps(monitor).size() >= 3; }, 30000));
        const int rebuilds = monitor.curves()->rebuildCount();
        QLineSeries* line = monitor.curves()->smoothedSeries(0);
        const size_t before = curveSteps(monitor).size();
        QVERIFY(waitFor(
            monitor, [&] { return curveSteps(monitor).size() >= before + 3; }, 30000));
        QCOMPARE(monitor.curves()->rebuildCount(), rebuilds);
        QCOMPARE(monitor.curves()->smoothedSeries(0), line);
        QCOMPARE(line->count(), int(curveSteps(monitor).size()));

        // Stop: the child checkpoints and ends KILLED.
        monitor.stopSelected(20000);
        QVERIFY(finished.wait(30000));
        QCOMPARE(finished.back().at(1).toInt(), 130);
        QVERIFY(waitFor(
            monitor, [&] { return statusIn(monitor, m_stoppedRun) == RunStatus::Killed; }, 10000));
        const int64_t stoppedAt = monitor.runsModel()->run(m_stoppedRun.toStdString())->step;
        QVERIFY(stoppedAt > 0);
        QVERIFY(!monitor.runsModel()->run(m_stoppedRun.toStdString())->record.checkpoint.empty());

        // Resume: the same run continues after its checkpoint's step, without repeating steps.
        monitor.selectRuns({ m_stoppedRun });
        QVERIFY(monitor.resumeSelected());
        QVERIFY(waitFor(
            monitor, [&] { return statusIn(monitor, m_stoppedRun) == RunStatus::Running; }, 30000));
        QVERIFY(waitFor(
            monitor, [&] { return !curveSteps(monitor).empty() && curveSteps(monitor).back() > stoppedAt + 2; },
            30000));
        const std::vector<int64_t> steps = curveSteps(monitor);
        QVERIFY(std::adjacent_find(steps.begin(), steps.end(), std::greater_equal<int64_t>()) == steps.end());
        QVERIFY(monitor.logPane()->toPlainText().contains("tgraph train --resume " + m_stoppedRun));
        monitor.stopSelected(20000);
        QVERIFY(finished.wait(30000));
        QVERIFY(waitFor(
            monitor, [&] { return statusIn(monitor, m_stoppedRun) == RunStatus::Killed; }, 10000));

        // TGRAPH_SCREENSHOT_DIR: a picture of the monitor with both runs' curves.
        if (const QString shots = testutil::env("TGRAPH_SCREENSHOT_DIR"); !shots.isEmpty()) {
            monitor.selectRuns({ m_finishedRun, m_stoppedRun });
            monitor.setMetric("train/loss");
            QVERIFY(waitFor(
                monitor, [&] { return monitor.curves()->curves().size() == 2; }, 10000));
            QTest::qWait(100); // the chart lays its legend out
            monitor.grab().save(shots + "/training-monitor.png");
        }
    }

    void runStartedElsewhereShowsUpAndStops()
    {
        TrainingMonitor monitor;
        monitor.setPollInterval(200);
        monitor.show();
        monitor.setProject(m_project);
        // `tgraph train --project` as a user would type it in a terminal.
        QProcess terminal;
        const auto cleanup = qScopeGuard([&terminal] {
            if (terminal.state() != QProcess::NotRunning) {
                terminal.kill();
                terminal.waitForFinished();
            }
        });
        terminal.start(tgraphExe(), QStringList { "train" } + quickArgs("outside", 20000) << "--project" << m_project);
        QVERIFY(terminal.waitForStarted());
        const auto outside = [&monitor]() -> const RunRow* {
            for (const RunRow& r : monitor.runsModel()->runs())
                if (r.record.name == "outside")
                    return &r;
            return nullptr;
        };
        QVERIFY(waitFor(
            monitor, [&] { return outside() && outside()->step > 0; }, 30000));
        const QString id = QString::fromStdString(outside()->record.id);
        QCOMPARE(statusIn(monitor, id), RunStatus::Running);
        QCOMPARE(outside()->record.pid, int64_t(terminal.processId())); // tgraph execs tgraph-model
        // Its log is the run's train.log, followed by polling.
        monitor.selectRuns({ id });
        QVERIFY(waitFor(
            monitor, [&] { return monitor.logPane()->toPlainText().contains("step "); }, 10000));
        // Stopped through the monitor (`tgraph runs stop`, which checks the recorded pid).
        monitor.stopSelected(20000);
        QVERIFY(terminal.waitForFinished(30000));
        QCOMPARE(terminal.exitCode(), 130);
        QVERIFY(waitFor(
            monitor, [&] { return statusIn(monitor, id) == RunStatus::Killed; }, 10000));
        // The pane ends with what `tgraph runs stop` said.
        QTRY_VERIFY_WITH_TIMEOUT(monitor.logPane()->toPlainText().contains("stopped: KILLED"), 10000);
        QVERIFY(monitor.logPane()->toPlainText().contains("$ tgraph runs stop " + id));
    }

    void curvesRenderOffscreen()
    {
        RunCurvesRenderOptions options;
        options.metric = "train/loss";
        options.width = 640;
        options.height = 400;
        QString error;
        QVERIFY2(renderRunCurves(m_project, { "short", m_stoppedRun.left(8) }, path("curves.png"), &error, options),
            qPrintable(error));
        const QImage png(path("curves.png"));
        QCOMPARE(png.size(), QSize(640, 400));
        if (const QString shots = testutil::env("TGRAPH_SCREENSHOT_DIR"); !shots.isEmpty())
            png.save(shots + "/training-curves.png");
        options.metric = "valid/tau";
        options.logY = true;
        // "short" evaluates every 3 of its 6 steps; "long" (every 25) may be stopped before its first evaluation.
        QVERIFY2(renderRunCurves(m_project, { "short" }, path("curves.svg"), &error, options), qPrintable(error));
        QVERIFY(testutil::readAll(path("curves.svg")).contains("<svg"));
        QVERIFY(!renderRunCurves(m_project, { "nope" }, path("no.png"), &error));
        QVERIFY2(error.contains("nope") && error.contains("live.tgproj"), qPrintable(error));
        options.metric = "train/nothing";
        QVERIFY(!renderRunCurves(m_project, { "short" }, path("no.png"), &error, options));
        QVERIFY2(error.contains("train/nothing") && error.contains("train/loss"), qPrintable(error));
        QVERIFY(!renderRunCurves(m_project, { "short" }, path("curves.jpg"), &error));
        QVERIFY(error.contains(".png or .svg"));
        QVERIFY(!QFileInfo::exists(path("no.png")));
    }

    void compareShowsRunsSideBySide()
    {
        TrainingMonitor monitor;
        monitor.setConfirmations(false);
        monitor.setPollInterval(200);
        monitor.resize(1400, 900);
        monitor.show();
        monitor.setProject(m_project);
        // A run of another model of the zoo, beside the TGraph run "short".
        QSignalSpy finished(monitor.processes(), &RunProcesses::finished);
        QVERIFY(monitor.startRun(withOption(quickArgs("baseline", 6, "tpugraphs-baseline"), "--eval-every", "3")));
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.front().at(1).toInt(), 0);
        const QString baseline = finished.front().at(0).toString();
        QVERIFY(waitFor(
            monitor, [&] { return statusIn(monitor, baseline) == RunStatus::Finished; }, 10000));
        monitor.selectRuns({ m_finishedRun, baseline });
        QSignalSpy shown(&monitor, &TrainingMonitor::comparisonShown);
        monitor.compareSelected();
        QVERIFY(shown.wait(10000));
        // Compare opens a window of its own, not a tab of the side pane, sized to the screen it is
        // on; on a 1366x768 laptop screen less a title bar and a task bar it fits, and so does its
        // minimum size.
        RunComparisonWindow* window = monitor.comparisonWindow();
        QVERIFY(window->isVisible() && window->isWindow());
        QCOMPARE(window->view(), monitor.comparisonView());
        const QSize screen = window->screen()->availableGeometry().size();
        qInfo("Compare window: %dx%d on a %dx%d screen, minimum %dx%d", window->width(), window->height(),
            screen.width(), screen.height(), window->minimumSizeHint().width(), window->minimumSizeHint().height());
        QCOMPARE(window->size(), RunComparisonWindow::initialSize(screen));
        QVERIFY(window->width() <= screen.width() && window->height() <= screen.height());
        const QSize laptop(1366, 768 - 72);
        const QSize onLaptop = RunComparisonWindow::initialSize(laptop);
        QVERIFY(onLaptop.width() <= laptop.width() && onLaptop.height() <= laptop.height());
        QVERIFY(onLaptop.width() >= 1000 && onLaptop.height() >= 600); // far more than a side pane
        QVERIFY(window->minimumSizeHint().width() <= laptop.width()
            && window->minimumSizeHint().height() <= laptop.height());
        const RunComparisonView* view = monitor.comparisonView();
        const RunComparison& cmp = view->comparison();
        QCOMPARE(cmp.runs.size(), size_t(2));
        QStringList models;
        for (const ComparedRun& r : cmp.runs) {
            models << QString::fromStdString(r.model);
            QVERIFY2(r.step > 0 && r.graphs > 0 && std::isfinite(r.tau), r.id.c_str());
            QVERIFY(r.parameters > 0);
        }
        models.sort();
        QCOMPARE(models, QStringList({ "tgraph", "tpugraphs-baseline" }));
        QCOMPARE(view->metricsTable()->rowCount(), 2);
        QCOMPARE(view->pairsTable()->rowCount(), 1);
        const int decided = view->pairsTable()->item(0, 2)->text().toInt()
            + view->pairsTable()->item(0, 3)->text().toInt() + view->pairsTable()->item(0, 4)->text().toInt();
        QCOMPARE(decided, int(cmp.graphs.size()));
        // One marker series per run, one marker per evaluated graph.
        const auto series = view->chart()->series();
        QCOMPARE(series.size(), 2);
        for (int k = 0; k < 2; ++k)
            QCOMPARE(qobject_cast<QScatterSeries*>(series[k])->count(), cmp.runs[size_t(k)].graphs);
        QCOMPARE(view->graphOrder().size(), cmp.graphs.size());
        QVERIFY(monitor.banner()->messages().isEmpty());
        const QImage shot = window->grab().toImage();
        QVERIFY(!shot.isNull());
        if (const QString shots = testutil::env("TGRAPH_SCREENSHOT_DIR"); !shots.isEmpty())
            shot.save(shots + "/compare-runs.png");
        // Its Parameters tab lists what differs between the runs (the model at least).
        QVERIFY(window->paramsModel()->rowCount() > 0);
    }

    // A sweep made by `tgraph sweep` (real children): selecting one of its runs offers its Sweep
    // view, which opens in a window of its own that fits 1366x768; a configuration leads back to
    // its runs in the run table (docs/studio.md §2.8).
    void sweepWindowFromARun()
    {
        const QString project = path("sweep.tgproj");
        const auto r = testutil::run(tgraphExe(),
            { "sweep", "--project", project, "--data", m_data, "--grid", "lr=1e-3,3e-4", "--seeds", "1",
                "--parallel", "2", "--steps", "4", "--eval-every", "2", "--configs-per-step", "16" },
            300000);
        QVERIFY2(r.exitCode == 0, (r.out + r.err).constData());
        TrainingMonitor monitor;
        monitor.setPollInterval(200);
        monitor.resize(1300, 700);
        monitor.show();
        monitor.setProject(project);
        // the sweep is a row; its runs are drawn with it, as a cross-validation's folds are
        QVERIFY(waitFor(monitor, [&] { return monitor.runsModel()->rowCount() == 1; }, 10000));
        const RunRow& row = monitor.runsModel()->runs().front();
        QVERIFY(row.params.count("sweep.spec"));
        const QString sweep = QString::fromStdString(row.record.id);
        QCOMPARE(row.folds, 2);
        monitor.selectRuns({ sweep });
        QCOMPARE(monitor.sweepOfSelection(), sweep);
        QSignalSpy shown(&monitor, &TrainingMonitor::sweepShown);
        monitor.showSweep();
        QVERIFY(shown.wait(10000));
        SweepView* view = monitor.sweepView();
        QVERIFY(view->isVisible() && view->isWindow());
        // sized as Compare is (on its screen; on a 1366x768 laptop less its bars it fits whole)
        const QSize screen = view->screen()->availableGeometry().size();
        QCOMPARE(view->size(), RunComparisonWindow::initialSize(screen));
        const QSize laptop(1366, 768 - 72);
        QVERIFY(view->minimumSizeHint().width() <= laptop.width() && view->minimumSizeHint().height() <= laptop.height());
        qInfo("Sweep window: %dx%d on a %dx%d screen, minimum %dx%d", view->width(), view->height(), screen.width(),
            screen.height(), view->minimumSizeHint().width(), view->minimumSizeHint().height());
        QCOMPARE(view->configTable()->model()->rowCount(), 2);
        QCOMPARE(view->parallelCoordinates()->lineCount(), 2);
        // double-clicking configuration 1 selects its run in the table
        QTableView* table = view->configTable();
        const QModelIndex cell = table->model()->index(1, 0);
        QTest::mousePress(table->viewport(), Qt::LeftButton, {}, table->visualRect(cell).center());
        QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(cell).center());
        const QStringList runs = cell.data(Qt::UserRole + 2).toStringList();
        QCOMPARE(runs.size(), 1);
        // the sweep stays selected; the curves are now that configuration's run's alone
        QCOMPARE(monitor.selectedRunIds(), QStringList { sweep });
        QVERIFY(waitFor(
            monitor,
            [&] {
                const auto& curves = monitor.curves()->curves();
                return curves.size() == 1 && QString::fromStdString(curves.front().runId) == runs.front();
            },
            10000));
        if (const QString shots = testutil::env("TGRAPH_SCREENSHOT_DIR"); !shots.isEmpty())
            view->grab().save(shots + "/sweep-window.png");
    }

    // A sweep stopped mid-way (SIGTERM to `tgraph sweep`, as Ctrl+C) is resumable from the studio:
    // Resume runs `tgraph sweep --resume`, which queues its interrupted runs again and drives the
    // queue to the end (docs/store.md §9).
    void stoppedSweepResumesFromTheStudio()
    {
        const QString project = path("stopped-sweep.tgproj");
        QProcess sweep;
        sweep.start(tgraphExe(),
            { "sweep", "--project", project, "--data", m_data, "--grid", "lr=1e-3,3e-4", "--seeds", "1", "--parallel",
                "1", "--steps", "4", "--eval-every", "2", "--configs-per-step", "16" });
        QVERIFY(sweep.waitForStarted());
        // the queue is made before the first child starts; stop the sweep as soon as it is there
        QVERIFY(QTest::qWaitFor([&] { return sweep.waitForReadyRead(100) && sweep.peek(1 << 16).contains("sweep "); }, 60000));
        sweep.terminate();
        QVERIFY(sweep.waitForFinished(60000));
        QCOMPARE(sweep.exitCode(), 130);

        TrainingMonitor monitor;
        monitor.setPollInterval(200);
        monitor.show();
        monitor.setProject(project);
        QVERIFY(waitFor(monitor, [&] { return monitor.runsModel()->rowCount() == 1; }, 10000));
        const QString id = QString::fromStdString(monitor.runsModel()->runs().front().record.id);
        QCOMPARE(monitor.runsModel()->runs().front().record.status, RunStatus::Killed);
        monitor.selectRuns({ id });
        QVERIFY(monitor.canResumeSelection());
        QSignalSpy finished(monitor.processes(), &RunProcesses::finished);
        QVERIFY(monitor.resumeSelected());
        QVERIFY(!monitor.canResumeSelection()); // not twice at once
        QVERIFY(finished.wait(180000));
        QCOMPARE(finished.back().at(0).toString(), id);
        QCOMPARE(finished.back().at(1).toInt(), 0);
        QVERIFY(monitor.logPane()->toPlainText().contains("tgraph sweep --resume " + id));
        const Project p = Project::open(project.toStdString(), Project::Access::Read);
        QCOMPARE(p.findRun(id.toStdString())->status, RunStatus::Finished);
        int children = 0;
        for (const RunRecord& r : p.runs())
            if (r.parentRun == id.toStdString()) {
                ++children;
                QCOMPARE(r.status, RunStatus::Finished);
            }
        QCOMPARE(children, 2);
        QVERIFY(waitFor(monitor, [&] { return !monitor.canResumeSelection(); }, 10000)); // finished
    }

    void deleteRemovesARunAndItsFiles()
    {
        TrainingMonitor monitor;
        monitor.setConfirmations(false);
        monitor.show();
        monitor.setProject(m_project);
        QVERIFY(waitFor(
            monitor, [&] { return monitor.runsModel()->run(m_finishedRun.toStdString()); }, 10000));
        const QString dir = QString::fromStdString(
            Project::open(m_project.toStdString(), Project::Access::Read).runDir(m_finishedRun.toStdString()));
        QVERIFY(QFileInfo(dir).isDir());
        monitor.selectRuns({ m_finishedRun });
        QVERIFY(monitor.deleteSelected());
        QVERIFY(waitFor(
            monitor, [&] { return !monitor.runsModel()->run(m_finishedRun.toStdString()); }, 10000));
        QTRY_VERIFY_WITH_TIMEOUT(!QFileInfo::exists(dir), 10000); // the rows go first, then the folder
        QVERIFY(monitor.runsModel()->run(m_stoppedRun.toStdString())); // the others stay
    }

    void unreadableProjectsShowTheBanner()
    {
        const QString newer = path("newer.tgproj");
        {
            Project p = Project::create(newer.toStdString());
            p.db().exec("PRAGMA user_version=" + std::to_string(Project::kSchemaVersion + 1));
        }
        const QString junk = path("junk.tgproj");
        testutil::writeAll(junk, "this is not an SQLite database, just text");
        TrainingMonitor monitor;
        QSignalSpy shown(&monitor, &TrainingMonitor::snapshotShown);
        monitor.setProject(newer);
        QVERIFY(shown.wait(10000));
        QVERIFY(monitor.banner()->isVisibleTo(&monitor));
        QVERIFY2(monitor.banner()->text().contains("newer.tgproj"), qPrintable(monitor.banner()->text()));
        QVERIFY(monitor.runsModel()->runs().empty());
        shown.clear();
        monitor.setProject(junk);
        QVERIFY(shown.wait(10000));
        QVERIFY2(monitor.banner()->text().contains("junk.tgproj"), qPrintable(monitor.banner()->text()));
        QVERIFY(!monitor.banner()->text().contains("newer.tgproj")); // a new project starts clean
        QVERIFY(monitor.runsModel()->runs().empty());
        // A readable project clears it.
        shown.clear();
        monitor.setProject(m_project);
        QVERIFY(shown.wait(10000));
        QVERIFY(!monitor.banner()->isVisibleTo(&monitor));
        QVERIFY(!monitor.runsModel()->runs().empty());
        // A run that cannot start (its data are missing) says why in the banner.
        QSignalSpy finished(monitor.processes(), &RunProcesses::finished);
        QVERIFY(monitor.startRun({ "--data", path("no-such-data"), "--steps", "5" }));
        QVERIFY(finished.wait(30000));
        QCOMPARE(finished.front().at(1).toInt(), 1);
        const QString text = monitor.banner()->text();
        QVERIFY2(text.contains("did not start") && text.contains("no-such-data"), qPrintable(text));
    }
};

QTEST_MAIN(TestTrainingMonitor)
#include "tst_trainingmonitor.moc"
