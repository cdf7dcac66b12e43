// SPDX-License-Identifier: Apache-2.0
// `tgraph sweep` with real processes on a real project file (docs/store.md §9): a 2 x 1 grid x 2
// seeds with --parallel 2 ends with 4 finished child runs grouped by configuration and a report
// whose means and standard deviations are those of the runs' own last evaluations; a sweep killed
// with SIGKILL mid-way (one child killed with it) resumes without losing or repeating a run (the
// killed child continues from its checkpoint); bad
// specs are refused with exit status 2 before anything starts; stop stops a sweep and its runs.

#include "core/store/project.h"
#include "core/store/sweeps.h"
#include "core/util/json.h"
#include "testutil.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <map>
#include <set>
#include <thread>

using namespace tgraph;

namespace {

QString tgraphExe() { return testutil::binDir() + "/tgraph"; }

double lastValid(const Project& p, const std::string& run, const char* key)
{
    const MetricSeries s = p.metricHistory(run, key, "valid");
    return s.points.empty() ? std::nan("") : s.points.back().value;
}

// The children of the project's only sweep, by run id.
std::map<std::string, RunRecord> childRuns(const Project& p, const std::string& sweep)
{
    std::map<std::string, RunRecord> out;
    for (const RunRecord& r : p.runs())
        if (r.parentRun == sweep)
            out[r.id] = r;
    return out;
}

} // namespace

class TestSweep : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_data;

    QString path(const QString& name) const { return m_dir.filePath(name); }

    QStringList sweepArgs(const QString& project, int steps) const
    {
        return { "sweep", "--project", project, "--data", m_data, "--grid", "lr=1e-3,3e-4 hidden=16", "--seeds", "2",
            "--parallel", "2", "--steps", QString::number(steps), "--eval-every", "2", "--log-every", "1",
            "--configs-per-step", "16" };
    }

    // Waits until `count` child runs of the project's sweep are RUNNING, one of them with a loss
    // point at step >= 2 (so a kill lands mid-run); returns the sweep id ("" on timeout).
    std::string waitForRunning(const std::string& project, size_t count)
    {
        for (int i = 0; i < 1200; ++i) {
            try {
                const Project p = Project::open(project, Project::Access::Read);
                const auto ids = sweepIds(p);
                if (!ids.empty()) {
                    size_t running = 0, training = 0;
                    for (const auto& [id, r] : childRuns(p, ids.front())) {
                        const MetricSeries loss = p.metricHistory(id, "loss", "train");
                        running += r.status == RunStatus::Running;
                        training += r.status == RunStatus::Running && !loss.points.empty() && loss.points.back().step >= 2;
                    }
                    if (running >= count && training >= 1)
                        return ids.front();
                }
            } catch (const std::exception&) {
                // not created yet
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
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

    void gridRunsGroupedBySeed()
    {
        const QString project = path("grid.tgproj");
        const auto r = testutil::run(tgraphExe(), sweepArgs(project, 4), 300000);
        QVERIFY2(r.exitCode == 0, (r.out + r.err).constData());
        const Project p = Project::open(project.toStdString(), Project::Access::Read);
        const auto ids = sweepIds(p);
        QCOMPARE(ids.size(), size_t(1));
        const auto sweep = p.findRun(ids.front());
        QCOMPARE(sweep->status, RunStatus::Finished);
        const auto kids = childRuns(p, sweep->id);
        QCOMPARE(kids.size(), size_t(4));
        const auto rows = sweepRuns(p, sweep->id);
        QCOMPARE(rows.size(), size_t(4));
        std::set<std::pair<int64_t, int64_t>> pairs; // (config, seed)
        const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
        const std::string threads = "--threads " + std::to_string(std::max(1, cores / 2));
        for (const SweepRunRecord& row : rows) {
            const RunRecord& run = kids.at(row.runId);
            QCOMPARE(run.status, RunStatus::Finished);
            QCOMPARE(row.attempts, int64_t(1));
            pairs.insert({ row.config, row.seed });
            // the child recorded its own parameters: the swept value and the seed
            const auto params = p.params(row.runId);
            QCOMPARE(params.at("seed"), std::to_string(row.seed));
            QCOMPARE(params.at("lr"), row.config == 0 ? std::string("1e-3") : std::string("3e-4"));
            QVERIFY2(run.commandLine.find(threads) != std::string::npos, run.commandLine.c_str());
            QCOMPARE(run.lastStep, int64_t(4));
        }
        QCOMPARE(pairs, (std::set<std::pair<int64_t, int64_t>> { { 0, 42 }, { 0, 43 }, { 1, 42 }, { 1, 43 } }));
        // never more than 2 at once: at each run's start, fewer than 2 others were running
        for (const auto& [id, a] : kids) {
            int overlapping = 0;
            for (const auto& [other, b] : kids)
                if (other != id && b.startMs <= a.startMs && b.endMs > a.startMs)
                    ++overlapping;
            QVERIFY2(overlapping <= 1, id.c_str());
        }

        // The report: the mean and sample std of each configuration's runs' last evaluation.
        const auto rep = testutil::run(tgraphExe(),
            { "sweep", "report", QString::fromStdString(sweep->id.substr(0, 8)), "--project", project, "--json" });
        QVERIFY2(rep.exitCode == 0, rep.err.constData());
        const Json json = parseJson(rep.out.toStdString());
        QCOMPARE(json["configurations"].size(), size_t(2));
        double bestMean = -2;
        int64_t bestConfig = -1;
        for (const Json& c : json["configurations"]) {
            const int64_t config = c["config"].get<int64_t>();
            std::vector<double> taus;
            for (const SweepRunRecord& row : rows)
                if (row.config == config)
                    taus.push_back(lastValid(p, row.runId, "tau"));
            QCOMPARE(taus.size(), size_t(2));
            const double mean = (taus[0] + taus[1]) / 2;
            const double std = std::abs(taus[0] - taus[1]) / std::sqrt(2.0);
            QCOMPARE(c["finished"].get<int64_t>(), int64_t(2));
            QCOMPARE(c["tau"]["n"].get<int64_t>(), int64_t(2));
            QVERIFY(std::abs(c["tau"]["mean"].get<double>() - mean) < 1e-9);
            QVERIFY(std::abs(c["tau"]["std"].get<double>() - std) < 1e-9);
            QVERIFY(c["opa"]["mean"].is_number());
            QVERIFY(c["top5_slowdown"]["mean"].is_number());
            if (mean > bestMean) {
                bestMean = mean;
                bestConfig = config;
            }
        }
        QCOMPARE(json["best"]["config"].get<int64_t>(), bestConfig);
        // the table names the best configuration too
        const auto text = testutil::run(tgraphExe(),
            { "sweep", "report", QString::fromStdString(sweep->name), "--project", project });
        QVERIFY2(text.exitCode == 0, text.err.constData());
        QVERIFY(text.out.contains("best: configuration " + QByteArray::number(qint64(bestConfig))));
    }

    // --random N --space: N distinct draws inside the space, the same draws for the same
    // --sweep-seed (two sweeps of the same spec in one project).
    void randomSearchDrawsInsideTheSpace()
    {
        const QString project = path("random.tgproj");
        const QStringList args { "sweep", "--project", project, "--data", m_data, "--random", "3", "--space",
            "lr=log:1e-4..1e-2 hidden=16,32", "--sweep-seed", "7", "--parallel", "3", "--steps", "1", "--eval-every",
            "1", "--configs-per-step", "16" };
        for (int i = 0; i < 2; ++i) {
            const auto r = testutil::run(tgraphExe(), args, 300000);
            QVERIFY2(r.exitCode == 0, (r.out + r.err).constData());
        }
        const Project p = Project::open(project.toStdString(), Project::Access::Read);
        const auto ids = sweepIds(p);
        QCOMPARE(ids.size(), size_t(2));
        std::vector<std::string> texts[2];
        for (int k = 0; k < 2; ++k) {
            const auto rows = sweepRuns(p, ids[size_t(k)]);
            QCOMPARE(rows.size(), size_t(3));
            for (const SweepRunRecord& row : rows) {
                QCOMPARE(p.findRun(row.runId)->status, RunStatus::Finished);
                texts[k].push_back(row.configText);
                const double lr = std::stod(p.params(row.runId).at("lr"));
                QVERIFY2(lr >= 1e-4 && lr <= 1e-2, row.configText.c_str());
                const std::string hidden = row.configText.substr(row.configText.find("hidden=") + 7);
                QVERIFY(hidden == "16" || hidden == "32");
            }
            QCOMPARE(std::set<std::string>(texts[k].begin(), texts[k].end()).size(), size_t(3)); // distinct
        }
        QCOMPARE(texts[0], texts[1]);
    }

    // `tgraph render --view parallel-coordinates` draws the grid's sweep offscreen (GUI builds).
    void rendersParallelCoordinates()
    {
        if (!QFileInfo::exists(testutil::binDir() + "/tgraph-studio"))
            QSKIP("tgraph-studio is not built (-DTGRAPH_BUILD_GUI=OFF)");
        const QString project = path("grid.tgproj"); // made by gridRunsGroupedBySeed
        const QString svg = path("pc.svg"), png = path("pc.png");
        auto r = testutil::run(tgraphExe(),
            { "render", "--view", "parallel-coordinates", "--project", project, "--sweep", "sweep-1", "-o", svg });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QByteArray text = testutil::readAll(svg);
        QVERIFY(text.contains("<svg"));
        for (const char* label : { "lr", "hidden", "valid tau", "4 of 4 finished runs selected" })
            QVERIFY2(text.contains(label), label);
        r = testutil::run(tgraphExe(),
            { "render", "--view", "parallel-coordinates", "--project", project, "--sweep", "sweep-1", "-o", png });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QByteArray bytes = testutil::readAll(png);
        QVERIFY(bytes.startsWith("\x89PNG"));
        // a sweep that is not there, and no --sweep
        r = testutil::run(tgraphExe(),
            { "render", "--view", "parallel-coordinates", "--project", project, "--sweep", "nosuch", "-o", png });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("no such sweep"), r.err.constData());
        r = testutil::run(tgraphExe(), { "render", "--view", "parallel-coordinates", "--project", project, "-o", png });
        QCOMPARE(r.exitCode, 2);
    }

    void killedSweepResumes()
    {
        const QString project = path("killed.tgproj");
        QProcess proc;
        proc.start(tgraphExe(), sweepArgs(project, 40));
        QVERIFY(proc.waitForStarted());
        const std::string sweep = waitForRunning(project.toStdString(), 2);
        QVERIFY2(!sweep.empty(), proc.readAllStandardError().constData());
        std::string crashedRun;
        {
            // the sweep process and one of its children (one with a checkpoint) die; the other
            // child goes on alone
            const QString projectPath = project;
            QVERIFY(QTest::qWaitFor(
                [&] {
                    const Project p = Project::open(projectPath.toStdString(), Project::Access::Read);
                    for (const auto& [id, r] : childRuns(p, sweep))
                        if (r.status == RunStatus::Running && !sweepRunCheckpoint(p, id).empty()) {
                            crashedRun = id;
                            return true;
                        }
                    return false;
                },
                60000));
            const Project p = Project::open(project.toStdString(), Project::Access::Read);
            ::kill(pid_t(proc.processId()), SIGKILL);
            const auto run = p.findRun(crashedRun);
            ::kill(pid_t(run->pid), SIGKILL);
        }
        QVERIFY(proc.waitForFinished());
        QVERIFY(!crashedRun.empty());
        {
            // read as CRASHED as soon as the killed processes are gone (a signal takes a moment)
            const Project p = Project::open(project.toStdString(), Project::Access::Read);
            QTRY_COMPARE_WITH_TIMEOUT(p.findRun(crashedRun)->status, RunStatus::Crashed, 5000);
            QCOMPARE(p.findRun(sweep)->status, RunStatus::Crashed);
        }
        // --resume while the survivor runs: it is waited for, not started again
        const auto r = testutil::run(
            tgraphExe(), { "sweep", "--resume", QString::fromStdString(sweep), "--project", project }, 300000);
        QVERIFY2(r.exitCode == 0, (r.out + r.err).constData());
        QVERIFY2(r.out.contains("still running from before"), r.out.constData());
        QVERIFY2(r.out.contains("(1 to continue from their checkpoints)"), r.out.constData());
        const Project p = Project::open(project.toStdString(), Project::Access::Read);
        QCOMPARE(p.runs().size(), size_t(5)); // the sweep and its 4 runs, none added
        QCOMPARE(p.findRun(sweep)->status, RunStatus::Finished);
        for (const SweepRunRecord& row : sweepRuns(p, sweep)) {
            QCOMPARE(p.findRun(row.runId)->status, RunStatus::Finished);
            // started once, except the crashed one: queued again and continued from its checkpoint
            QCOMPARE(row.attempts, row.runId == crashedRun ? int64_t(2) : int64_t(1));
            QCOMPARE(p.findRun(row.runId)->resumedFrom, row.runId == crashedRun ? row.runId : std::string());
            // one history per run: every step once, 1..40
            const MetricSeries loss = p.metricHistory(row.runId, "loss", "train");
            QCOMPARE(loss.points.size(), size_t(40));
            for (size_t i = 0; i < loss.points.size(); ++i)
                QCOMPARE(loss.points[i].step, int64_t(i + 1));
        }
    }

    void stopStopsEveryRun()
    {
        const QString project = path("stopped.tgproj");
        QProcess proc;
        proc.start(tgraphExe(), sweepArgs(project, 400));
        QVERIFY(proc.waitForStarted());
        const std::string sweep = waitForRunning(project.toStdString(), 2);
        QVERIFY(!sweep.empty());
        const auto r = testutil::run(
            tgraphExe(), { "sweep", "stop", QString::fromStdString(sweep.substr(0, 8)), "--project", project });
        QVERIFY2(r.exitCode == 0, (r.out + r.err).constData());
        QVERIFY(proc.waitForFinished(60000));
        QCOMPARE(proc.exitCode(), 130);
        const Project p = Project::open(project.toStdString(), Project::Access::Read);
        QCOMPARE(p.findRun(sweep)->status, RunStatus::Killed);
        int killed = 0, queued = 0;
        for (const auto& [id, run] : childRuns(p, sweep)) {
            QVERIFY2(run.status == RunStatus::Killed || run.status == RunStatus::Pending,
                (std::string(runStatusName(run.status)) + ": " + run.message).c_str());
            killed += run.status == RunStatus::Killed;
            queued += run.status == RunStatus::Pending;
        }
        QCOMPARE(killed, 2);
        QCOMPARE(queued, 2);
    }

    void refusesBadSpecs_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown parameter") << QStringList { "--grid", "lr=1e-3 foo=1,2" } << "--foo";
        QTest::newRow("bad value") << QStringList { "--grid", "lr=fast" } << "--lr 'fast'";
        QTest::newRow("value the train command refuses") << QStringList { "--grid", "hidden=20" } << "multiple of 16";
        QTest::newRow("empty grid") << QStringList { "--grid", " " } << "no parameter";
        QTest::newRow("parameter without values") << QStringList { "--grid", "lr=" } << "lr has no value";
        QTest::newRow("repeated value") << QStringList { "--grid", "lr=1e-3,1e-3" } << "lists 1e-3 twice";
        QTest::newRow("the sweep's seed") << QStringList { "--grid", "seed=1,2" } << "seed cannot be swept";
        QTest::newRow("a range in a grid") << QStringList { "--grid", "lr=1e-4..1e-2" } << "ranges are for --random";
        QTest::newRow("no K") << QStringList { "--grid", "lr=1e-3", "--parallel", "0" } << "--parallel";
        QTest::newRow("an owned train option") << QStringList { "--grid", "lr=1e-3", "--out", "x" } << "--out";
        QTest::newRow("swept and given") << QStringList { "--grid", "lr=1e-3", "--lr", "1" } << "both swept";
        QTest::newRow("random without space") << QStringList { "--random", "3" } << "go together";
        QTest::newRow("small space") << QStringList { "--random", "3", "--space", "cross-attn=on,off" }
                                     << "only 2 distinct";
        QTest::newRow("log range at 0") << QStringList { "--random", "2", "--space", "lr=log:0..1" } << "LOW > 0";
        QTest::newRow("nothing to sweep") << QStringList {} << "nothing to sweep";
    }

    void refusesBadSpecs()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const QString project = path("refused.tgproj");
        const auto r = testutil::run(
            tgraphExe(), QStringList { "sweep", "--project", project, "--data", m_data } + args + QStringList { "--steps", "2" });
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
        QCOMPARE(r.err.count('\n'), 1); // one line
        QVERIFY(!QFileInfo::exists(project)); // nothing started
    }

    void refusesBadUse()
    {
        const QString project = path("grid.tgproj"); // made by gridRunsGroupedBySeed
        auto r = testutil::run(tgraphExe(), { "sweep", "report", "nosuch", "--project", project });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("grid.tgproj") && r.err.contains("no such sweep"), r.err.constData());
        r = testutil::run(tgraphExe(), { "sweep", "--resume", "nosuch", "--project", project });
        QCOMPARE(r.exitCode, 1);
        r = testutil::run(tgraphExe(), { "sweep", "report", "--project", project });
        QCOMPARE(r.exitCode, 2);
        r = testutil::run(tgraphExe(), { "sweep", "--resume", "x", "--project", project, "--steps", "3" });
        QCOMPARE(r.exitCode, 2);
        r = testutil::run(tgraphExe(), { "sweep", "--project", path("x.tgproj"), "--data", path("missing"), "--grid",
                                           "lr=1e-3" });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("missing"), r.err.constData());
        // a child run of a sweep is started only by its sweep
        const Project p = Project::open(project.toStdString(), Project::Access::Read);
        const std::string child = sweepRuns(p, sweepIds(p).front()).front().runId;
        r = testutil::run(tgraphExe(),
            { "train", "--data", m_data, "--steps", "2", "--project", project, "--queued-run",
                QString::fromStdString(child) });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("was not taken for this process"), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestSweep)
#include "tst_sweep.moc"
