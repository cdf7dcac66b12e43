// SPDX-License-Identifier: Apache-2.0
// `tgraph tune`'s plan (app/modelcli/tuneplan.h): every option read into its field, the defaults,
// and every refused combination with the flags its message names. No model is loaded.

#include "app/modelcli/tuneplan.h"

#include <QtTest>

using namespace tgraph;
using namespace tgraph::cli;

namespace {

TunePlan resolveWith(const std::vector<std::string>& args)
{
    ArgParser parser = tuneArgumentParser();
    std::string error;
    if (!parser.parse(args, &error))
        throw std::runtime_error("the parser refused the arguments: " + error);
    return resolveTunePlan(parser);
}

} // namespace

class TestTunePlan : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyOptionReachesThePlan()
    {
        const TunePlan plan = resolveWith({ "m.hlo", "-w", "a.npz", "--weights", "b.npz", "--strategy", "evolutionary",
            "--budget", "77", "--batch", "9", "--top-k", "3", "--measure", "run {config_file}", "--measure-timeout",
            "5", "--space", "file", "--module", "m.pb", "--seed", "11", "-o", "out", "--project", "p.tgproj",
            "--experiment", "e", "--run-name", "n", "--threads", "2", "--precision", "fp32" });
        QVERIFY2(plan.ok(), plan.error.c_str());
        QCOMPARE(plan.input, std::string("m.hlo"));
        QCOMPARE(plan.weights, (std::vector<std::string> { "a.npz", "b.npz" }));
        QCOMPARE(plan.search.strategy, TuneStrategy::Evolutionary);
        QCOMPARE(plan.search.budget, int64_t(77));
        QCOMPARE(plan.search.batch, int64_t(9));
        QCOMPARE(plan.search.seed, uint64_t(11));
        QCOMPARE(plan.topK, int64_t(3));
        QVERIFY(!plan.simulate);
        QCOMPARE(plan.measureCommand, std::string("run {config_file}"));
        QCOMPARE(plan.measureTimeout, std::chrono::milliseconds(5000));
        QCOMPARE(plan.space, std::string("file"));
        QCOMPARE(plan.moduleFile, std::string("m.pb"));
        QCOMPARE(plan.outputDir, std::string("out"));
        QCOMPARE(plan.projectPath, std::string("p.tgproj"));
        QCOMPARE(plan.experiment, std::string("e"));
        QCOMPARE(plan.runName, std::string("n"));
        QCOMPARE(plan.threads, 2);
        QCOMPARE(plan.precision, tgraph::Precision::Fp32);
    }

    void defaults()
    {
        const TunePlan plan = resolveWith({ "g.npz", "-w", "w.npz", "--simulate" });
        QVERIFY2(plan.ok(), plan.error.c_str());
        QVERIFY(plan.simulate);
        QCOMPARE(plan.search.strategy, TuneStrategy::Annealing);
        QCOMPARE(plan.search.budget, int64_t(2000));
        QCOMPARE(plan.search.batch, int64_t(64));
        QCOMPARE(plan.search.seed, uint64_t(1));
        QCOMPARE(plan.topK, int64_t(0)); // the kind's own
        QCOMPARE(plan.space, std::string("auto"));
        QCOMPARE(plan.outputDir, std::string("tgraph-tune"));
        QVERIFY(plan.projectPath.empty());
        QCOMPARE(plan.experiment, std::string("Tune"));
        QCOMPARE(plan.measureTimeout, std::chrono::milliseconds(600000));
        QCOMPARE(plan.precision, tgraph::Precision::Auto);
    }

    void refused_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("error");
        QTest::newRow("no input") << QStringList { "-w", "w.npz" } << "missing MODULE|GRAPH";
        QTest::newRow("two inputs") << QStringList { "a.hlo", "b.hlo", "-w", "w.npz" } << "exactly one input expected";
        QTest::newRow("no weights") << QStringList { "a.hlo" } << "missing --weights W";
        QTest::newRow("simulate+measure") << QStringList { "a.hlo", "-w", "w", "--simulate", "--measure", "x" }
                                          << "--simulate and --measure exclude each other";
        QTest::newRow("empty measure") << QStringList { "a.hlo", "-w", "w", "--measure", "" }
                                       << "--measure needs a command";
    }

    void refused()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, error);
        std::vector<std::string> argv;
        for (const QString& a : args)
            argv.push_back(a.toStdString());
        const TunePlan plan = resolveWith(argv);
        QCOMPARE(QString::fromStdString(plan.error), error);
        QVERIFY(plan.input.empty()); // nothing resolved past the error
    }
};

QTEST_GUILESS_MAIN(TestTunePlan)
#include "tst_tuneplan.moc"
