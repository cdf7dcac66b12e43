// SPDX-License-Identifier: Apache-2.0
// The training monitor's reusable views: TensorBoard's smoothing pinned by hand-worked numbers, the
// curves' y ranges and best points, the runs table over a real project written with
// core::Project / RunWriter (contents, sorting, filtering, rows kept across polls), the curves
// chart (series per run, best star, refresh without new series) and the parameter comparer.

#include "app/studio/runs/runpoller.h"
#include "core/store/project.h"
#include "core/store/runwriter.h"
#include "core/store/sweeps.h"
#include "core/util/json.h"
#include "widgets/common/formatting.h"
#include "widgets/common/legendnames.h"
#include "widgets/common/windowplacement.h"
#include "widgets/runs/parallelcoordinatesview.h"
#include "widgets/runs/runcomparisonwindow.h"
#include "widgets/runs/runcurvedata.h"
#include "widgets/runs/runcurvesview.h"
#include "widgets/runs/runparamsmodel.h"
#include "widgets/runs/runparamsview.h"
#include "widgets/runs/runtablemodel.h"
#include "widgets/runs/smoothing.h"
#include "widgets/runs/sweepcurvesview.h"
#include "widgets/runs/sweepview.h"

#include <QAbstractItemModelTester>
#include <QAreaSeries>
#include <QChart>
#include <QCheckBox>
#include <QDialog>
#include <QFontMetrics>
#include <QGuiApplication>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QScreen>
#include <QSet>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <clocale>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <sys/wait.h>
#include <unistd.h>

using namespace tgraph::widgets;
using namespace tgraph::studio;

using namespace tgraph;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

MetricSeries series(const std::string& key, const std::vector<std::pair<int64_t, double>>& points)
{
    MetricSeries s;
    s.key = key;
    s.context = key == "loss" ? "train" : "valid";
    for (const auto& [step, value] : points)
        s.points.push_back({ step, 1000 * step, value });
    return s;
}

RunCurve curve(const QString& label, MetricSeries s)
{
    RunCurve c;
    c.label = label;
    c.runId = label.toStdString();
    c.series = std::move(s);
    return c;
}

int visibleLegendEntries(QChart* chart)
{
    int n = 0;
    for (QLegendMarker* m : chart->legend()->markers())
        n += m->isVisible() ? 1 : 0;
    return n;
}

} // namespace

class TestRunWidgets : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_project;
    std::string m_alpha, m_beta, m_gamma;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // Three runs: alpha finished (loss 1/step, tau 0.3 then 0.2), beta running (loss only),
        // gamma killed after one evaluation at step 10, before its first loss interval was logged.
        m_project = m_dir.filePath("runs.tgproj");
        Project p = Project::create(m_project.toStdString());
        const auto start = [&p](const char* name, const char* lr, const char* seed) {
            RunStart s;
            s.name = name;
            const std::string id = p.startRun(s);
            p.setParams(id,
                { { "kind", "layout" }, { "lr", lr }, { "seed", seed }, { "steps", "10" },
                    { "hparams", std::string("{\"lr\": ") + lr + ", \"model\": {\"hidden\": 128}}" } });
            return id;
        };
        m_alpha = start("alpha", "0.001", "1");
        m_beta = start("beta", "0.002", "1");
        m_gamma = start("gamma", "0.004", "2");
        {
            RunWriter w(m_project.toStdString(), m_alpha);
            for (int step = 1; step <= 10; ++step)
                w.logMetric("loss", step, 1.0 / step, "train");
            for (const auto& [step, tau] : { std::pair { 5, 0.3 }, std::pair { 10, 0.2 } }) {
                EvalMetrics e;
                e.step = step;
                e.meanTau = tau;
                e.meanTileScore = kNaN;
                w.evalMetrics(e);
            }
            w.finish(RunStatus::Finished);
        }
        {
            RunWriter w(m_project.toStdString(), m_beta);
            for (int step = 1; step <= 4; ++step)
                w.logMetric("loss", step, 2.0 - 0.1 * step, "train");
            w.flush();
        } // beta stays RUNNING (this process, fresh heartbeat)
        {
            RunWriter w(m_project.toStdString(), m_gamma);
            w.logMetric("tau", 10, 0.25, "valid");
            w.flush();
        }
        p.setRunStatus(m_gamma, RunStatus::Killed, "stopped");
    }

    void smoothingLeavesAConstantAsItIs()
    {
        for (const double w : { 0.0, 0.6, 0.9, 0.999 })
            for (const double v : debiasedEma({ 3, 3, 3, 3, 3 }, w))
                QCOMPARE(v, 3.0);
        QVERIFY(debiasedEma({}, 0.6).empty());
    }

    void smoothingIsTheDebiasedEma()
    {
        // w = 0.6 by hand: last = 0.4, 1.04, 2.224; divided by 1 - 0.6^k = 0.4, 0.64, 0.784.
        const std::vector<double> s = debiasedEma({ 1, 2, 4 }, 0.6);
        QCOMPARE(s.size(), size_t(3));
        QVERIFY(std::abs(s[0] - 1.0) < 1e-12);
        QVERIFY(std::abs(s[1] - 1.625) < 1e-12);
        QVERIFY(std::abs(s[2] - 2.224 / 0.784) < 1e-12);
        // w = 0 (and a NaN weight) returns the input; weights above 1 are clamped, not diverging.
        QCOMPARE(debiasedEma({ 1, 5, 2 }, 0.0), (std::vector<double> { 1, 5, 2 }));
        QCOMPARE(debiasedEma({ 1, 5, 2 }, kNaN), (std::vector<double> { 1, 5, 2 }));
        for (const double v : debiasedEma({ 1, 5, 2 }, 7.0))
            QVERIFY(std::isfinite(v) && v >= 1 && v <= 5);
    }

    void smoothingPassesNonFiniteValuesThrough()
    {
        // The NaN neither counts nor moves the average: the third value is smoothed as the second.
        const std::vector<double> s = debiasedEma({ 1, kNaN, 2, INFINITY }, 0.6);
        QCOMPARE(s[0], 1.0);
        QVERIFY(std::isnan(s[1]));
        QVERIFY(std::abs(s[2] - 1.625) < 1e-12);
        QVERIFY(std::isinf(s[3]));
        // A series with a NaN is not "constant": its finite values still smooth to themselves.
        const std::vector<double> c = debiasedEma({ kNaN, 5, 5 }, 0.6);
        QVERIFY(std::isnan(c[0]));
        QVERIFY(std::abs(c[1] - 5) < 1e-12 && std::abs(c[2] - 5) < 1e-12);
    }

    void curveDataBestAndRanges()
    {
        QVERIFY(RunCurveData::higherIsBetter("tau"));
        QVERIFY(RunCurveData::higherIsBetter("opa"));
        QVERIFY(!RunCurveData::higherIsBetter("loss"));
        QVERIFY(!RunCurveData::higherIsBetter("top5_slowdown"));
        QCOMPARE(RunCurveData::bestIndex(series("loss", { { 1, 3 }, { 2, kNaN }, { 3, 1 }, { 4, 1 }, { 5, 2 } })),
            int64_t(2)); // lowest, the earliest of equal ones, NaN skipped
        QCOMPARE(RunCurveData::bestIndex(series("tau", { { 1, 0.1 }, { 2, 0.5 }, { 3, 0.4 } })), int64_t(1));
        QCOMPARE(RunCurveData::bestIndex(series("tau", { { 1, kNaN } })), int64_t(-1));

        std::vector<double> values;
        for (int i = 100; i >= 0; --i)
            values.push_back(i);
        values.push_back(kNaN);
        const auto all = RunCurveData::valueRange(values, false, false);
        QVERIFY(all.valid);
        QCOMPARE(all.lo, 0.0);
        QCOMPARE(all.hi, 100.0);
        // 101 values 0..100: the 5th and 95th percentiles are 5 and 95.
        const auto inner = RunCurveData::valueRange(values, true, false);
        QVERIFY(std::abs(inner.lo - 5) < 1e-12 && std::abs(inner.hi - 95) < 1e-12);
        const auto positive = RunCurveData::valueRange({ -1, 0, 0.5, 2 }, false, true);
        QCOMPARE(positive.lo, 0.5);
        QVERIFY(!RunCurveData::valueRange({ kNaN }, false, false).valid);
        QCOMPARE(RunCurveData::xOf({ 7, 5000, 1 }, CurveXAxis::RelativeTime, 2000), 3.0);
        QCOMPARE(RunCurveData::xOf({ 7, 5000, 1 }, CurveXAxis::Step, 2000), 7.0);
    }

    void runsTableFromAProject()
    {
        const RunSnapshot s = RunPoller::read(m_project, {}, "train/loss");
        QVERIFY2(s.error.isEmpty(), qPrintable(s.error));
        RunTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRuns(s.runs, s.nowMs);
        QCOMPARE(model.rowCount(), 3);
        const int alpha = model.rowOfRun(m_alpha);
        const int beta = model.rowOfRun(m_beta);
        const int gamma = model.rowOfRun(m_gamma);
        QVERIFY(alpha >= 0 && beta >= 0 && gamma >= 0);
        const auto cell
            = [&model](int row, int column, int role = Qt::DisplayRole) { return model.index(row, column).data(role); };
        QCOMPARE(cell(alpha, RunTableModel::Name).toString(), QString("alpha"));
        QCOMPARE(cell(alpha, RunTableModel::Status).toString(), QString("finished"));
        QCOMPARE(cell(beta, RunTableModel::Status).toString(), QString("running"));
        QCOMPARE(cell(gamma, RunTableModel::Status).toString(), QString("killed"));
        QCOMPARE(cell(alpha, RunTableModel::Kind).toString(), QString("layout"));
        QCOMPARE(cell(alpha, RunTableModel::Step).toLongLong(), 10LL);
        QCOMPARE(cell(alpha, RunTableModel::Loss, Qt::UserRole).toDouble(), 0.1);
        QCOMPARE(cell(alpha, RunTableModel::Tau, Qt::UserRole).toDouble(), 0.2); // the latest
        QCOMPARE(cell(alpha, RunTableModel::BestTau, Qt::UserRole).toDouble(), 0.3); // the best
        QCOMPARE(cell(alpha, RunTableModel::BestTau).toString(), QString("0.3000"));
        QCOMPARE(cell(gamma, RunTableModel::Loss).toString(), Formatting::missing());
        QVERIFY(!cell(gamma, RunTableModel::Loss, Qt::UserRole).isValid()); // sorts last
        QCOMPARE(cell(beta, RunTableModel::Step).toLongLong(), 4LL);
        // A stopped run shows the step the project records for it (its evaluation), not 0 for
        // want of a loss point.
        QCOMPARE(cell(gamma, RunTableModel::Step).toLongLong(), 10LL);
        QVERIFY(cell(alpha, RunTableModel::Params).toString().contains("10 steps"));
        QVERIFY(cell(alpha, RunTableModel::Params).toString().contains("seed 1"));
        QCOMPARE(cell(gamma, RunTableModel::Id, RunTableModel::RunIdRole).toString(), QString::fromStdString(m_gamma));
        QCOMPARE(cell(alpha, RunTableModel::Status, Qt::ForegroundRole).value<QBrush>().color(),
            RunTableModel::statusColor(model.runs()[size_t(alpha)]));
        QVERIFY(RunTableModel::durationMs(model.runs()[size_t(beta)], s.nowMs + 5000) >= 5000); // still counting

        // Sorting and filtering through a proxy, as the monitor shows it.
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(Qt::UserRole);
        proxy.setFilterKeyColumn(-1);
        const auto names = [&proxy] {
            QStringList n;
            for (int r = 0; r < proxy.rowCount(); ++r)
                n << proxy.index(r, RunTableModel::Name).data().toString();
            return n;
        };
        proxy.sort(RunTableModel::Loss, Qt::AscendingOrder);
        QCOMPARE(names(), (QStringList { "alpha", "beta", "gamma" })); // 0.1, 1.6, none last
        proxy.sort(RunTableModel::LearningRate, Qt::DescendingOrder);
        QCOMPARE(names(), (QStringList { "gamma", "beta", "alpha" }));
        proxy.setFilterRegularExpression(QRegularExpression("kill|fin"));
        QCOMPARE(names(), (QStringList { "gamma", "alpha" }));
        proxy.setFilterRegularExpression(QRegularExpression());

        // A poll with one more run and one fewer keeps the rows (and selections) of the others.
        const QPersistentModelIndex kept = model.index(alpha, RunTableModel::Name);
        std::vector<RunRow> next = s.runs;
        std::erase_if(next, [this](const RunRow& r) { return r.record.id == m_gamma; });
        RunRow added = next.front();
        added.record.id = std::string(32, 'f');
        added.record.name = "delta";
        next.push_back(added);
        model.setRuns(next, s.nowMs);
        QCOMPARE(model.rowCount(), 3);
        QVERIFY(kept.isValid());
        QCOMPARE(kept.data().toString(), QString("alpha"));
        QCOMPARE(model.rowOfRun(m_gamma), -1);
        QVERIFY(model.rowOfRun(added.record.id) >= 0);
    }

    void curvesOfRealRuns()
    {
        const RunSnapshot s = RunPoller::read(m_project, { "alpha", "beta" }, "train/loss");
        QVERIFY2(s.error.isEmpty(), qPrintable(s.error));
        QCOMPARE(s.curves.size(), size_t(2));
        RunCurvesView view;
        view.resize(800, 500);
        view.show(); // empty first, as in the monitor before a run is selected
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setCurves(s.curves);
        QTest::qWait(50); // the legend lays its markers out
        // Per run: the faint raw series, the smoothed line and the best star; one legend entry.
        QCOMPARE(view.chart()->series().size(), 6);
        QCOMPARE(visibleLegendEntries(view.chart()), 2);
        for (size_t k = 0; k < 2; ++k) {
            const RunCurve& c = s.curves[k];
            QLineSeries* raw = view.rawSeries(k);
            QLineSeries* smooth = view.smoothedSeries(k);
            QCOMPARE(raw->count(), int(c.series.points.size()));
            std::vector<double> values;
            for (const MetricPoint& p : c.series.points)
                values.push_back(p.value);
            const std::vector<double> expected = debiasedEma(values, 0.6);
            for (int i = 0; i < smooth->count(); ++i) {
                QCOMPARE(smooth->at(i).x(), double(c.series.points[size_t(i)].step));
                QVERIFY(std::abs(smooth->at(i).y() - expected[size_t(i)]) < 1e-12);
            }
            QVERIFY(raw->pen().color().alpha() < smooth->pen().color().alpha()); // raw drawn faintly
        }
        // The best loss of alpha is its last point (0.1 at step 10), of beta its step 4 (1.6).
        QCOMPARE(view.bestSeries(0)->count(), 1);
        QCOMPARE(view.bestSeries(0)->at(0), QPointF(10, 0.1));
        QVERIFY(std::abs(view.bestSeries(1)->at(0).y() - 1.6) < 1e-12);
        // The legend entry reads the run's name and its best, whole in the tooltip (LegendNames).
        QVERIFY(LegendNames::fullName(view.smoothedSeries(0)).contains("best 0.1 at step 10"));
        QVERIFY(view.smoothedSeries(0)->name().startsWith("alpha"));
        QVERIFY(view.smoothedSeries(0)->name().contains("best 0.1 at step 10")); // 800 pixels: room for it

        // Validation tau: the best is the highest (0.3 at step 5).
        const RunSnapshot tau = RunPoller::read(m_project, { "alpha" }, "valid/tau");
        view.setCurves(tau.curves);
        QCOMPARE(view.chart()->series().size(), 3);
        QCOMPARE(view.bestSeries(0)->at(0), QPointF(5, 0.3));
    }

    // A sweep's runs in a narrow chart: Qt cut each legend entry at its end ("sweep-a / c0-s4…" for
    // seeds 42 and 43); each entry now fits its room and keeps its configuration and seed.
    void sweepRunLegendsStayDistinct()
    {
        std::vector<RunCurve> curves;
        for (const char* name : { "c0-s42", "c0-s43", "c1-s42", "c1-s43" }) {
            RunCurve c;
            c.label = QStringLiteral("sweep-a / ") + QLatin1String(name);
            c.runId = name;
            c.series.key = "loss";
            c.series.context = "train";
            for (int64_t step = 1; step <= 5; ++step)
                c.series.points.push_back({ step, 0, 1.0 / double(step + curves.size()) });
            curves.push_back(std::move(c));
        }
        RunCurvesView view;
        view.resize(480, 320);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setCurves(curves);
        QTest::qWait(50); // the chart lays its legend out, the entries are fitted again
        const QFontMetrics metrics(view.chart()->legend()->font());
        const int room = LegendNames::roomPerEntry(view.chart(), int(curves.size()));
        QSet<QString> names;
        for (size_t k = 0; k < curves.size(); ++k) {
            const QString shown = view.smoothedSeries(k)->name();
            names.insert(shown);
            QVERIFY2(shown.contains(curves[k].label.mid(10)), qPrintable(shown)); // "c0-s42" whole
            QVERIFY2(metrics.horizontalAdvance(shown) <= room,
                qPrintable(QStringLiteral("%1 in %2 px").arg(shown).arg(room)));
            QVERIFY(LegendNames::fullName(view.smoothedSeries(k)).startsWith(curves[k].label));
        }
        QCOMPARE(names.size(), int(curves.size()));
    }

    void curvesRefreshWithoutNewSeries()
    {
        RunCurvesView view;
        view.setCurves({ curve("a", series("loss", { { 1, 4 }, { 2, 3 } })) });
        const int rebuilds = view.rebuildCount();
        QLineSeries* smooth = view.smoothedSeries(0);
        // The run wrote more points: same series objects, more points, the star moved.
        view.setCurves({ curve("a", series("loss", { { 1, 4 }, { 2, 3 }, { 3, 2 }, { 4, 1 } })) });
        QCOMPARE(view.rebuildCount(), rebuilds);
        QCOMPARE(view.smoothedSeries(0), smooth);
        QCOMPARE(smooth->count(), 4);
        QCOMPARE(view.bestSeries(0)->at(0), QPointF(4, 1));
        // Smoothing applies to the shown series at once, also without new series.
        view.setSmoothing(0);
        QCOMPARE(view.rebuildCount(), rebuilds);
        QCOMPARE(smooth->at(1).y(), 3.0);
        // Another run set or metric builds new series.
        view.setCurves({ curve("b", series("loss", { { 1, 4 } })) });
        QCOMPARE(view.rebuildCount(), rebuilds + 1);
        // Log-y leaves out values <= 0 (and their stars), NaN is never drawn.
        view.setLogY(true);
        view.setCurves({ curve("b", series("loss", { { 1, 0 }, { 2, kNaN }, { 3, 0.5 }, { 4, 2 } })) });
        QCOMPARE(view.rawSeries(0)->count(), 2);
        QCOMPARE(view.bestSeries(0)->count(), 0); // the best (0) cannot be drawn on a log axis
        QVERIFY(view.chart()->title().contains("train/loss"));
        view.setCurves({ curve("c", series("loss", {})) });
        QVERIFY(view.chart()->title().startsWith("No train/loss"));
        view.setCurves({});
        QCOMPARE(view.chart()->series().size(), 0);
    }

    void crossValidationRunShowsItsFolds()
    {
        // A CV run logs through fold runs (RunWriter's fold argument): one table row with the
        // folds' best tau and latest step, one curve per fold.
        const QString path = m_dir.filePath("cv.tgproj");
        std::string cv;
        {
            Project p = Project::create(path.toStdString());
            RunStart s;
            s.name = "cv";
            cv = p.startRun(s);
            RunWriter w(path.toStdString(), cv);
            for (int fold = 0; fold < 2; ++fold)
                for (int step = 1; step <= 3; ++step) {
                    w.logMetric("loss", step + fold, 1.0 - 0.1 * step, "train", fold);
                    w.logMetric("tau", step, 0.1 * step + 0.2 * fold, "valid", fold);
                }
            w.finish(RunStatus::Finished);
        }
        const RunSnapshot s = RunPoller::read(path, { "cv" }, "valid/tau");
        QVERIFY2(s.error.isEmpty(), qPrintable(s.error));
        QCOMPARE(s.runs.size(), size_t(1)); // the folds are not rows of their own
        QCOMPARE(s.runs.front().folds, 2);
        QVERIFY(std::abs(s.runs.front().bestTau - 0.5) < 1e-12); // fold 1 at step 3
        QCOMPARE(s.runs.front().step, int64_t(4)); // fold 1 logged last
        QCOMPARE(s.curves.size(), size_t(2)); // the run itself logged nothing: only its folds
        QCOMPARE(s.curves[0].label, QString("cv / fold-0"));
        QCOMPARE(s.curves[1].label, QString("cv / fold-1"));
        QVERIFY(s.metricKeys.contains("valid/tau") && s.metricKeys.contains("train/loss"));
        QVERIFY(RunPoller::read(path, { "nope" }, "valid/tau").missingRuns == QStringList { "nope" });
    }

    void paramsComparer()
    {
        RunParamsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const RunSnapshot s = RunPoller::read(m_project, {}, "train/loss");
        std::map<std::string, std::map<std::string, std::string>> params;
        for (const RunRow& r : s.runs)
            params[r.record.name] = r.params;
        model.setRuns({ { "alpha", params["alpha"] }, { "beta", params["beta"] } });
        QCOMPARE(model.columnCount(), 3);
        QCOMPARE(model.headerData(2, Qt::Horizontal, Qt::DisplayRole).toString(), QString("beta"));
        // The JSON hparams are flattened; lr differs (twice: the param and hparams.lr), seed does not.
        const auto& keys = model.keys();
        QVERIFY(std::find(keys.begin(), keys.end(), "hparams.model.hidden") != keys.end());
        const auto rowOf
            = [&keys](const std::string& key) { return int(std::find(keys.begin(), keys.end(), key) - keys.begin()); };
        QCOMPARE(model.index(rowOf("hparams.model.hidden"), 1).data().toString(), QString("128"));
        QCOMPARE(model.index(rowOf("lr"), 2).data().toString(), QString("0.002"));
        QVERIFY(model.index(rowOf("lr"), 0).data(RunParamsModel::DifferentRole).toBool());
        QVERIFY(!model.index(rowOf("seed"), 0).data(RunParamsModel::DifferentRole).toBool());
        model.setOnlyDifferences(true);
        QCOMPARE(model.keys(), (std::vector<std::string> { "hparams.lr", "lr" }));
        QVERIFY(model.emptyText().isEmpty());
        // Runs with the same parameters: no empty table, a line that says there are no differences.
        RunParamsView view(&model);
        view.resize(500, 300);
        view.show();
        QVERIFY(view.onlyDifferences()->isChecked());
        QVERIFY(view.table()->isVisibleTo(&view) && !view.note()->isVisibleTo(&view));
        model.setRuns({ { "alpha", params["alpha"] }, { "alpha again", params["alpha"] } });
        QCOMPARE(model.rowCount(), 0);
        QVERIFY2(model.emptyText().startsWith("No differences"), qPrintable(model.emptyText()));
        QVERIFY(view.note()->isVisibleTo(&view) && !view.table()->isVisibleTo(&view));
        QCOMPARE(view.note()->text(), model.emptyText());
        view.onlyDifferences()->setChecked(false); // all parameters again
        QVERIFY(!model.onlyDifferences());
        QVERIFY(model.rowCount() > 0 && view.table()->isVisibleTo(&view) && !view.note()->isVisibleTo(&view));
        model.setOnlyDifferences(true);
        model.setRuns({ { "alpha", params["alpha"] } });
        QVERIFY2(model.emptyText().contains("two or more"), qPrintable(model.emptyText()));
        QVERIFY(view.onlyDifferences()->isChecked());
        // A run without a key differs on it.
        const auto diff = RunParamsModel::differingKeys({ { { "a", "1" }, { "b", "2" } }, { { "a", "1" } } });
        QCOMPARE(diff, (std::set<std::string> { "b" }));
    }

    // The poller reads a RUNNING run of this host whose process is gone as CRASHED at once (the
    // heartbeat is fresh) and records it in the file; a run of another host with a fresh heartbeat
    // is RUNNING.
    void pollerMarksRunsWhoseProcessIsGone()
    {
        const QString path = m_dir.filePath("gone.tgproj");
        std::string dead, elsewhere;
        {
            Project p = Project::create(path.toStdString());
            const pid_t gone = fork();
            if (gone == 0)
                _exit(0);
            waitpid(gone, nullptr, 0);
            RunStart s;
            s.pid = gone;
            s.name = "dead";
            dead = p.startRun(s);
            s.name = "elsewhere";
            elsewhere = p.startRun(s);
            p.db().exec("UPDATE runs SET host = 'another-host.invalid' WHERE id = '" + elsewhere + "'");
        }
        const RunSnapshot snap = RunPoller::read(path, {}, "train/loss");
        QVERIFY2(snap.error.isEmpty(), qPrintable(snap.error));
        RunTableModel model;
        model.setRuns(snap.runs, snap.nowMs);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(model.rowOfRun(dead), RunTableModel::Status).data().toString(), QString("crashed"));
        QCOMPARE(model.index(model.rowOfRun(elsewhere), RunTableModel::Status).data().toString(), QString("running"));
        Project reader = Project::open(path.toStdString(), Project::Access::Read);
        QCOMPARE(reader.db().queryText("SELECT status FROM runs WHERE id = '" + dead + "'"), std::string("CRASHED"));
        QCOMPARE(
            reader.db().queryText("SELECT status FROM runs WHERE id = '" + elsewhere + "'"), std::string("RUNNING"));
    }

    // CTest runs this again as tst_runwidgets_locale with LC_ALL=de_DE.UTF-8, which QApplication
    // adopts: the run parameters' JSON is still written and shown with a decimal point.
    // The Sweep view over a real project (docs/studio.md §2.8): a 2 x 2 grid x 2 seeds written
    // through the store's own sweep queue and run writer, tau = 0.1 x configuration + 0.01 x seed
    // offset (so lr matters twice as much as hidden), one run left queued.
    void sweepViewGroupsBrushesAndFits()
    {
        const std::string file = m_dir.filePath("sweep.tgproj").toStdString();
        std::vector<tgraph::SweepRunPlan> plans;
        const char* texts[] = { "lr=1e-3 hidden=16", "lr=1e-3 hidden=32", "lr=1e-2 hidden=16", "lr=1e-2 hidden=32" };
        for (int seed = 0; seed < 2; ++seed)
            for (int c = 0; c < 4; ++c)
                plans.push_back({ c, texts[c], 42 + seed, { "--steps", "4" } });
        std::string sweep;
        std::map<std::string, double> tauOf;
        std::map<int64_t, QStringList> runsOf;
        {
            tgraph::Project p = tgraph::Project::create(file);
            tgraph::RunStart start;
            start.name = "grid";
            sweep = tgraph::createSweep(p, start, { { "sweep.spec", "grid" } }, plans);
            p.setRunStatus(sweep, tgraph::RunStatus::Finished);
            const auto rows = tgraph::sweepRuns(p, sweep);
            for (const tgraph::SweepRunRecord& row : rows) {
                runsOf[row.config] << QString::fromStdString(row.runId);
                if (row.position == 7)
                    continue; // stays queued
                QVERIFY(tgraph::claimSweepRun(p, row.runId, int64_t(::getpid()), "tgraph train"));
                tgraph::RunWriter w(file, row.runId);
                for (int64_t step : { 2, 4 }) {
                    tgraph::EvalMetrics e;
                    e.step = step;
                    e.meanTau = 0.1 * double(row.config) + 0.01 * double(row.seed - 42) + 0.001 * double(step);
                    e.meanOpa = 0.5 + e.meanTau / 2;
                    e.meanTop5Slowdown = 0.2 - e.meanTau / 10;
                    w.evalMetrics(e);
                    tauOf[row.runId] = e.meanTau;
                }
                w.finish(tgraph::RunStatus::Finished);
            }
        }
        const SweepViewData data = readSweepView(QString::fromStdString(file), QStringLiteral("grid"), "valid/tau");
        SweepView view;
        QSignalSpy requested(&view, &SweepView::runsRequested);
        view.setData(data);
        view.resize(1366, 740);
        view.setAttribute(Qt::WA_DontShowOnScreen);
        view.show();
        QCoreApplication::processEvents();
        // fits a 1366x768 screen
        QVERIFY(view.minimumSizeHint().width() <= 1366 && view.minimumSizeHint().height() <= 700);

        // one row per configuration; the best is configuration 3 (lr=1e-2 hidden=32, one seed done)
        QCOMPARE(view.configTable()->model()->rowCount(), 4);
        QCOMPARE(data.summary.best, 3);
        QCOMPARE(data.summary.configs[3].finished, int64_t(1));
        QCOMPARE(data.summary.configs[3].runs, int64_t(2));
        QVERIFY(std::abs(data.summary.configs[1].tau.mean - (0.1 + 0.005 + 0.004)) < 1e-12);
        QVERIFY(std::abs(data.summary.configs[1].tau.std - 0.01 / std::sqrt(2.0)) < 1e-12);

        // parallel coordinates: lr, hidden and the metric; one line per finished run
        ParallelCoordinatesView* plot = view.parallelCoordinates();
        QCOMPARE(plot->axisCount(), 3);
        QCOMPARE(plot->axisName(0), QStringLiteral("lr"));
        QCOMPARE(plot->axisName(2), QStringLiteral("valid tau"));
        QCOMPARE(plot->lineCount(), 7);
        QCOMPARE(view.visibleConfigurations(), 4);
        // brushing the top of the metric axis keeps the runs there, and their configurations
        double lo = 1e9, hi = -1e9;
        for (const auto& [run, tau] : tauOf) {
            lo = std::min(lo, tau);
            hi = std::max(hi, tau);
        }
        plot->setBrush(2, 0.6, 1.0);
        QStringList expected;
        for (const tgraph::SweepRunSummary& r : data.summary.runs)
            if (tauOf.count(r.runId) && (tauOf[r.runId] - lo) / (hi - lo) >= 0.6)
                expected << QString::fromStdString(r.runId);
        QCOMPARE(plot->selectedRuns(), expected);
        QCOMPARE(view.visibleConfigurations(), 2); // configurations 2 and 3
        plot->clearBrushes();
        QCOMPARE(view.visibleConfigurations(), 4);

        // a configuration leads to its runs
        QTableView* table = view.configTable();
        const QModelIndex cell = table->model()->index(2, 0);
        QTest::mousePress(table->viewport(), Qt::LeftButton, {}, table->visualRect(cell).center());
        QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(cell).center());
        QCOMPARE(requested.count(), 1);
        QCOMPARE(requested.front().front().toStringList(),
            runsOf[table->model()->index(2, 0).data(Qt::UserRole + 1).toLongLong()]);

        // importance: lr explains more of tau than hidden does
        QCOMPARE(data.importance.size(), size_t(2));
        QCOMPARE(data.importance[0].parameter, std::string("lr"));
        QVERIFY(data.importance[0].varianceExplained > data.importance[1].varianceExplained);
        QVERIFY(data.importance[0].correlation > 0.8);

        // the curves: one mean per configuration, the mean over seeds at each step
        SweepCurvesView* curves = view.curves();
        QCOMPARE(curves->meanSeriesCount(), 4);
        const QList<QPointF> points = curves->meanSeries(0)->points();
        QCOMPARE(points.size(), 2);
        QCOMPARE(points[0].x(), 2.0);
        QVERIFY(std::abs(points[1].y() - (0.005 + 0.004)) < 1e-12);
        QCOMPARE(curves->bandSeries(0)->upperSeries()->count(), 2);
        // the band: mean ± sample std, or min..max on request (seeds 42 and 43 differ by 0.01)
        QVERIFY(std::abs(curves->bandSeries(0)->upperSeries()->at(1).y() - (0.009 + 0.01 / std::sqrt(2.0))) < 1e-12);
        view.minMaxBand()->setChecked(true);
        QCOMPARE(curves->band(), SweepCurvesView::Band::MinMax);
        QVERIFY(std::abs(curves->bandSeries(0)->upperSeries()->at(1).y() - 0.014) < 1e-12);
        QVERIFY(std::abs(curves->bandSeries(0)->lowerSeries()->at(1).y() - 0.004) < 1e-12);
        view.minMaxBand()->setChecked(false);

        const QString shot = m_dir.filePath("sweepview.png");
        QVERIFY(view.grab().save(shot));
        if (!qEnvironmentVariableIsEmpty("TGRAPH_SCREENSHOT_DIR"))
            view.grab().save(qEnvironmentVariable("TGRAPH_SCREENSHOT_DIR") + "/sweepview.png");
    }

    // The studio's windows open inside the available geometry of their parent's screen, centred on
    // the parent's window where the screen allows, never larger than it (docs/studio.md §9): the
    // geometry on its own on a 1366x768 screen less a task bar, then the Compare window and a dialog
    // beside a parent window near the screen's edges. tst_runwidgets_laptop runs it on an offscreen
    // screen of 1366x768 (tests/tools/laptop-screen.json).
    void windowsOpenOnTheScreen()
    {
        using WindowPlacement::placedFrame;
        const QRect laptop(0, 0, 1366, 768 - 40);
        const QSize compareFrame(1229 + 2, 655 + 30); // Compare's first size, with a title bar
        // A parent in the bottom-right corner: pulled inside, whole.
        QRect f = placedFrame(compareFrame, QRect(1100, 600, 300, 200), laptop);
        QCOMPARE(f.size(), compareFrame);
        QVERIFY(laptop.contains(f));
        QCOMPARE(f.bottomRight(), laptop.bottomRight());
        // A parent partly above and left of the screen: the title bar stays on it.
        f = placedFrame(QSize(800, 600), QRect(-300, -200, 400, 300), laptop);
        QCOMPARE(f.topLeft(), laptop.topLeft());
        // Larger than the screen: the screen's size, on it.
        QCOMPARE(placedFrame(QSize(1600, 900), QRect(500, 300, 200, 100), laptop), laptop);
        // Room around the parent: centred on it.
        const QRect parentFrame(300, 200, 800, 400);
        f = placedFrame(QSize(400, 300), parentFrame, laptop);
        QCOMPARE(f.center(), parentFrame.center());
        // No parent: the screen's centre.
        QCOMPARE(placedFrame(QSize(400, 300), QRect(), laptop).center(), laptop.center());

        // Real windows on this run's screen.
        const QScreen* screen = QGuiApplication::primaryScreen();
        QVERIFY(screen);
        const QRect available = screen->availableGeometry();
        if (const QByteArray expected = qgetenv("TGRAPH_EXPECT_SCREEN"); !expected.isEmpty())
            QCOMPARE(QStringLiteral("%1x%2").arg(screen->geometry().width()).arg(screen->geometry().height()),
                QString::fromLatin1(expected));
        const auto onScreen = [&](const QWidget& w) {
            return available.contains(w.frameGeometry()) && w.width() <= available.width()
                && w.height() <= available.height();
        };
        QWidget monitor;
        monitor.setWindowTitle("monitor");
        monitor.resize(360, 240);
        monitor.move(available.right() - 180, available.bottom() - 100); // partly off the screen
        monitor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&monitor));
        RunComparisonWindow compare(&monitor);
        compare.showInFront();
        QVERIFY(QTest::qWaitForWindowExposed(&compare));
        QVERIFY2(onScreen(compare),
            qPrintable(QStringLiteral("%1,%2 %3x%4 on %5x%6")
                           .arg(compare.frameGeometry().x())
                           .arg(compare.frameGeometry().y())
                           .arg(compare.frameGeometry().width())
                           .arg(compare.frameGeometry().height())
                           .arg(available.width())
                           .arg(available.height())));
        // Moved off the screen by the user and shown again: brought back whole.
        compare.hide();
        compare.move(available.right() - 100, available.top() - 200);
        compare.showInFront();
        QVERIFY(QTest::qWaitForWindowExposed(&compare));
        QVERIFY(onScreen(compare));
        // A dialog of the studio beside the same parent: whole on the screen, as near its centre as it can be.
        QDialog dialog(&monitor);
        WindowPlacement::placeWhenShown(&dialog);
        dialog.resize(420, 300);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QVERIFY(onScreen(dialog));
        QCOMPARE(dialog.frameGeometry().right(), available.right());
        QCOMPARE(dialog.frameGeometry().bottom(), available.bottom());
        dialog.hide();
        // With room around the parent: centred on it.
        monitor.move(available.center() - QPoint(180, 120));
        QDialog centred(&monitor);
        WindowPlacement::placeWhenShown(&centred);
        centred.resize(200, 120);
        centred.show();
        QVERIFY(QTest::qWaitForWindowExposed(&centred));
        QVERIFY(onScreen(centred));
        QVERIFY2((centred.frameGeometry().center() - monitor.frameGeometry().center()).manhattanLength() <= 2,
            qPrintable(QStringLiteral("%1,%2 vs %3,%4")
                           .arg(centred.frameGeometry().center().x())
                           .arg(centred.frameGeometry().center().y())
                           .arg(monitor.frameGeometry().center().x())
                           .arg(monitor.frameGeometry().center().y())));
    }

    void paramsUnderTheUserLocale()
    {
        if (qgetenv("LC_ALL").startsWith("de_DE"))
            QVERIFY2(std::strcmp(std::localeconv()->decimal_point, ",") == 0, "QApplication did not adopt LC_ALL");
        tgraph::Json hparams;
        hparams["lr"] = 0.001;
        hparams["model"]["dropout"] = 0.1;
        hparams["seed"] = uint64_t(12345678901234567890ull);
        const std::string text = tgraph::jsonText(hparams, true);
        QCOMPARE(text, std::string(R"({"lr":0.001,"model":{"dropout":0.1},"seed":12345678901234567890})"));
        QVERIFY(tgraph::parseJson(text, "hparams") == hparams);
        const auto flat = RunParamsModel::flatten({ { "hparams", text } });
        QCOMPARE(flat.at("hparams.lr"), std::string("0.001"));
        QCOMPARE(flat.at("hparams.model.dropout"), std::string("0.1"));
        QCOMPARE(flat.at("hparams.seed"), std::string("12345678901234567890"));
    }
};

QTEST_MAIN(TestRunWidgets)
#include "tst_runwidgets.moc"
