// SPDX-License-Identifier: Apache-2.0
// compareRuns (core/store/runcomparison.h): runs recorded through RunWriter into a real project file are
// read back side by side: the evaluation at the best step (else the latest), per-graph tau, the
// pairwise wins, timing and memory figures, the text and JSON reports, and refused run keys.

#include "core/util/error.h"
#include "core/store/project.h"
#include "core/store/runcomparison.h"
#include "core/store/runwriter.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace tgraph;

namespace {

GraphEvalMetrics graphEval(const std::string& graph, double tau, int64_t configs = 64)
{
    GraphEvalMetrics g;
    g.graph = graph;
    g.configs = configs;
    g.kendallTau = tau;
    g.opa = 0.5 + tau / 2;
    g.top5Slowdown = 0.1 - tau / 10;
    g.tileScore = std::nan("");
    return g;
}

EvalMetrics evalAt(int64_t step, const std::vector<GraphEvalMetrics>& graphs, bool best, double seconds)
{
    EvalMetrics m;
    m.step = step;
    m.graphs = graphs;
    double sum = 0;
    for (const auto& g : graphs)
        sum += g.kendallTau;
    m.meanTau = sum / double(graphs.size());
    m.meanOpa = 0.5 + m.meanTau / 2;
    m.meanTop5Slowdown = 0.05;
    m.meanTop1Slowdown = 0.2;
    m.meanTileScore = std::nan("");
    m.best = best;
    m.seconds = seconds;
    return m;
}

StepMetrics stepAt(int64_t step, double stepsPerSecond)
{
    StepMetrics m;
    m.step = step;
    m.totalSteps = 100;
    m.intervalSteps = 10;
    m.loss = 1;
    m.stepsPerSecond = stepsPerSecond;
    return m;
}

} // namespace

class TestRunComparison : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void comparesRecordedRuns()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("c.tgproj").toStdString();
        std::string a, b, c;
        {
            Project p = Project::create(path);
            RunStart s;
            s.name = "alpha";
            a = p.startRun(s);
            s.name = "beta";
            b = p.startRun(s);
            s.name = "gamma";
            c = p.startRun(s);
            p.setParams(
                a, { { "model", "kaufman" }, { "loss", "mse" }, { "kind", "layout" }, { "parameters", "1234" } });
            p.setParams(b, { { "model", "tpugraphs-baseline" }, { "kind", "layout" } });
            // c: recorded before the zoo (no model param), never evaluated.
        }
        const std::string g1 = dir.filePath("g1.npz").toStdString(), g2 = dir.filePath("g2.npz").toStdString(),
                          g3 = dir.filePath("g3.npz").toStdString();
        {
            RunWriter w(path, a);
            w.stepMetrics(stepAt(10, 4.0)); // 250 ms
            w.stepMetrics(stepAt(20, 5.0)); // 200 ms
            w.stepMetrics(stepAt(30, 2.0)); // 500 ms -> median 250
            // Best at step 20, a worse evaluation later: the comparison shows step 20.
            w.evalMetrics(evalAt(10, { graphEval(g1, 0.1), graphEval(g2, 0.1) }, true, 1.0));
            w.evalMetrics(evalAt(20, { graphEval(g1, 0.6), graphEval(g2, 0.2), graphEval(g3, 0.3) }, true, 0.75));
            w.evalMetrics(evalAt(30, { graphEval(g1, 0.0), graphEval(g2, 0.0), graphEval(g3, 0.0) }, false, 1.0));
            w.finish(RunStatus::Finished);
            w.project().setTag(a, "peak_rss_mb", "321.5");
        }
        {
            RunWriter w(path, b);
            w.evalMetrics(evalAt(5, { graphEval(g1, 0.4), graphEval(g2, 0.5), graphEval(g3, 0.3) }, false, 0.5));
            w.finish(RunStatus::Finished);
        }
        const Project p = Project::open(path, Project::Access::Read);
        const RunComparison cmp = compareRuns(p, { "alpha", b.substr(0, 6), c });
        QCOMPARE(cmp.runs.size(), size_t(3));
        const ComparedRun& ra = cmp.runs[0];
        QCOMPARE(ra.model, std::string("kaufman"));
        QCOMPARE(ra.loss, std::string("mse"));
        QCOMPARE(ra.parameters, int64_t(1234));
        QCOMPARE(ra.step, int64_t(20));
        QCOMPARE(ra.graphs, 3);
        QVERIFY(std::abs(ra.tau - (0.6 + 0.2 + 0.3) / 3) < 1e-9);
        QVERIFY(std::abs(ra.top1Slowdown - 0.2) < 1e-9);
        QVERIFY(std::isnan(ra.ape));
        QVERIFY(std::abs(ra.trainMsPerStep - 250.0) < 1e-6);
        // 0.75 s for 3 x 64 configs -> 0.5 s per 128.
        QVERIFY(std::abs(ra.inferMsPer128 - 500.0) < 1e-6);
        QVERIFY(std::abs(ra.peakRssMb - 321.5) < 1e-9);

        const ComparedRun& rb = cmp.runs[1];
        QCOMPARE(rb.model, std::string("tpugraphs-baseline"));
        QCOMPARE(rb.step, int64_t(5)); // no best tag: the latest evaluation
        QCOMPARE(rb.parameters, int64_t(-1));
        QVERIFY(std::isnan(rb.trainMsPerStep));

        const ComparedRun& rc = cmp.runs[2];
        QCOMPARE(rc.model, std::string("tgraph"));
        QCOMPARE(rc.loss, std::string("hinge"));
        QCOMPARE(rc.step, int64_t(-1));
        QCOMPARE(rc.graphs, 0);
        QVERIFY(std::isnan(rc.tau));

        QCOMPARE(cmp.graphs.size(), size_t(3));
        QCOMPARE(cmp.pairs.size(), size_t(3));
        // alpha vs beta: g1 0.6 > 0.4, g2 0.2 < 0.5, g3 0.3 = 0.3.
        const PairwiseWins& ab = cmp.pairs[0];
        QCOMPARE(ab.a, size_t(0));
        QCOMPARE(ab.b, size_t(1));
        QCOMPARE(ab.aBetter, 1);
        QCOMPARE(ab.bBetter, 1);
        QCOMPARE(ab.ties, 1);
        QCOMPARE(ab.graphsABetter.size(), size_t(1));
        QVERIFY(QString::fromStdString(ab.graphsABetter[0]).endsWith("g1.npz"));
        QVERIFY(QString::fromStdString(ab.graphsBBetter[0]).endsWith("g2.npz"));
        // Against the run that never evaluated: nothing in common.
        QCOMPARE(cmp.pairs[1].aBetter + cmp.pairs[1].bBetter + cmp.pairs[1].ties, 0);

        const QString text = QString::fromStdString(comparisonText(cmp));
        QVERIFY2(text.contains("alpha") && text.contains("beta") && text.contains("kaufman"), qPrintable(text));
        QVERIFY2(text.contains("0.3667"), qPrintable(text)); // alpha's mean tau at its best step
        QVERIFY2(text.contains("alpha vs beta: alpha better on 1, beta better on 1, ties 1"), qPrintable(text));
        QVERIFY2(text.contains("gamma has no validation evaluation"), qPrintable(text));
        QVERIFY2(text.contains("g1") && text.contains("0.6000") && text.contains("0.4000"), qPrintable(text));

        const QByteArray json = QByteArray::fromStdString(comparisonJson(cmp));
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        const QJsonArray runs = doc.object().value("runs").toArray();
        QCOMPARE(runs.size(), 3);
        QCOMPARE(runs[0].toObject().value("step").toInt(), 20);
        QCOMPARE(runs[0].toObject().value("graph_tau").toObject().size(), 3);
        QVERIFY(runs[2].toObject().value("tau").isNull());
        QCOMPARE(doc.object().value("pairs").toArray()[0].toObject().value("ties").toInt(), 1);
    }

    void refusesUnknownAndRepeatedRuns()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("r.tgproj").toStdString();
        std::string a;
        {
            Project p = Project::create(path);
            RunStart s;
            s.name = "only";
            a = p.startRun(s);
        }
        const Project p = Project::open(path, Project::Access::Read);
        const auto refused = [&](const std::vector<std::string>& keys, const QString& part) {
            try {
                compareRuns(p, keys);
                QFAIL("accepted");
            } catch (const InputError& e) {
                const QString what = QString::fromUtf8(e.what());
                QVERIFY2(what.contains("r.tgproj") && what.contains(part), qPrintable(what));
            }
        };
        refused({ "nosuchrun" }, "nosuchrun");
        refused({ "only", a }, "twice");
        refused({}, "at least one run");
    }
};

QTEST_GUILESS_MAIN(TestRunComparison)
#include "tst_runcomparison.moc"
