// SPDX-License-Identifier: Apache-2.0
// The `tgraph` command line as a user runs it: help, usage errors, inspect/prune/synth, the
// bad-input list of the foundation issue, Ctrl-C, and outputs that numpy loads.

#include "core/graph/graphio.h"
#include "core/hlo/hloproto.h"
#include "core/hlo/hlotext.h"
#include "core/io/npz.h"
#include "core/store/project.h"
#include "core/store/runwriter.h"
#include "core/synth/hlogen.h"
#include "core/synth/synthetic.h"
#include "core/util/terminaltext.h"
#include "testutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

using namespace tgraph;

namespace {

QString tgraphExe() { return testutil::binDir() + "/tgraph"; }

testutil::ProcessResult tgraphRun(const QStringList& args) { return testutil::run(tgraphExe(), args); }

// The members of a valid small layout graph as npy bytes, so cases can replace one of them.
using Members = std::vector<std::pair<std::string, QByteArray>>;

template <class T> QByteArray npyBytes(const NdArray<T>& a, DType as = dtypeOf<T>())
{
    const NpyArray n = NpyArray::from(a, as);
    return QByteArray::fromStdString(makeNpyHeader(n.header.dtype, n.header.shape, false))
        + QByteArray(reinterpret_cast<const char*>(n.data.data()), qsizetype(n.data.size()));
}

QByteArray rawNpy(const std::string& dict, qsizetype dataBytes)
{
    std::string text = dict;
    text.append((64 - (10 + text.size() + 1) % 64) % 64, ' ');
    text += '\n';
    std::string out("\x93NUMPY\x01\x00", 8);
    out += char(text.size() & 0xff);
    out += char(text.size() >> 8);
    return QByteArray::fromStdString(out + text) + QByteArray(dataBytes, '\0');
}

Members membersOf(const LayoutGraph& g)
{
    return { { "node_feat", npyBytes(g.nodeFeat) },
        { "node_opcode", npyBytes(g.nodeOpcode, DType { ScalarType::UInt8, false }) },
        { "edge_index", npyBytes(g.edgeIndex) }, { "node_config_feat", npyBytes(g.nodeConfigFeat) },
        { "node_config_ids", npyBytes(g.nodeConfigIds) }, { "config_runtime", npyBytes(g.configRuntime) } };
}

void writeMembers(const QString& path, const Members& members, NpzCompression compression)
{
    NpzWriter w(testutil::str(path), compression);
    for (const auto& [name, bytes] : members)
        w.addFile(name + ".npy", bytes.constData(), size_t(bytes.size()));
    w.commit();
}

void replace(Members& m, const std::string& name, const QByteArray& bytes)
{
    for (auto& [n, b] : m)
        if (n == name)
            b = bytes;
}

// A layout tuning record whose runs configure 2 nodes while config_index_to_node lists 1.
ModuleTuningData mismatchedRuns()
{
    ModuleTuningData d;
    d.hasModule = true;
    d.module = parseHloText(
        "HloModule mm\nENTRY e {\n  p = f32[2]{0} parameter(0)\n  ROOT r = f32[1,2]{1,0} reshape(p)\n}\n", "mm.hlo");
    d.configIndexToNode = { 1 };
    for (int r = 0; r < 2; ++r) {
        TuningRun run;
        run.config = TuningRun::Config::Module;
        run.hasProfile = true;
        run.computeTimeNs = 100 + r;
        run.isDefault = r == 0;
        run.layoutNodes = { { { 1, 0 } }, { { 0 } } };
        d.runs.push_back(run);
    }
    return d;
}

LayoutGraph smallSynthetic(int64_t configs = 12)
{
    SyntheticLayoutSpec spec;
    spec.nodes = 200;
    spec.configurableNodes = 8;
    spec.configs = configs;
    spec.seed = 5;
    return makeSyntheticLayoutGraph(spec);
}

} // namespace

class TestCli : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString path(const QString& name) const { return m_dir.filePath(name); }
    // The sanitizer build (TGRAPH_SANITIZE, docs/testing.md §4) has no LibTorch, so no tgraph-model.
    static bool haveModelCommands() { return QFileInfo(testutil::binDir() + "/tgraph-model").isExecutable(); }

private Q_SLOTS:
    void initTestCase() { QVERIFY2(QFileInfo(tgraphExe()).isExecutable(), qPrintable(tgraphExe())); }

    // `tgraph render` hands over to tgraph-studio --render (GUI builds only).
    void renderHandsOverToStudio()
    {
        if (!QFileInfo(testutil::binDir() + "/tgraph-studio").isExecutable())
            QSKIP("built without the GUI (-DTGRAPH_BUILD_GUI=OFF)");
        const QString hlo = path("render.hlo");
        auto r = testutil::run(tgraphExe(), { "gen-hlo", "--family", "mlp", "--size", "300", "-o", hlo });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QString png = path("render.png");
        r = testutil::run(tgraphExe(), { "render", hlo, "--view", "split", "-o", png });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(testutil::readAll(png).startsWith("\x89PNG\r\n\x1a\n"));
        const QString svg = path("render.svg");
        r = testutil::run(tgraphExe(), { "render", hlo, "--node", "#5", "--radius", "1", "-o", svg });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(testutil::readAll(svg).contains("<svg"));
        testutil::writeAll(path("broken.hlo"), "HloModule broken\n\nENTRY %e {\n  %p = f32[2] parameter(0\n}\n");
        r = testutil::run(tgraphExe(), { "render", path("broken.hlo"), "-o", path("broken.png") });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("broken.hlo"), r.err.constData());
        QVERIFY(!QFileInfo::exists(path("broken.png")));
        r = testutil::run(tgraphExe(), { "render", hlo });
        QCOMPARE(r.exitCode, 2); // no -o
    }

    void helpAndUsage()
    {
        auto r = tgraphRun({ "--help" });
        QCOMPARE(r.exitCode, 0);
        for (const char* cmd : { "inspect", "prune", "synth" })
            QVERIFY(r.out.contains(cmd));
        for (const char* cmd : { "inspect", "prune", "synth" }) {
            r = tgraphRun({ cmd, "--help" });
            QCOMPARE(r.exitCode, 0);
            QVERIFY2(r.out.startsWith("Usage: tgraph " + QByteArray(cmd)), r.out.constData());
        }
        QVERIFY(tgraphRun({ "prune", "--help" }).out.contains("keep-first"));
        QVERIFY(tgraphRun({ "inspect", "--help" }).out.contains("--json"));
        QCOMPARE(tgraphRun({}).exitCode, 2);
        QCOMPARE(tgraphRun({ "frobnicate" }).exitCode, 2);
        r = tgraphRun({ "inspect", "--bogus", "x.npz" });
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("unknown option --bogus"));
        QCOMPARE(tgraphRun({ "inspect" }).exitCode, 2);
        QCOMPARE(tgraphRun({ "prune", "in.npz" }).exitCode, 2); // no -o
        r = tgraphRun({ "prune", "in.npz", "-o", "out.npz", "--dedup", "keep-max" });
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("keep-max"));
        QCOMPARE(tgraphRun({ "synth", "-o", path("x.npz"), "--nodes", "ten" }).exitCode, 2);
        // --help shows the ranges and defaults of typed options
        const QByteArray genHelp = tgraphRun({ "gen-hlo", "--help" }).out;
        QVERIFY2(
            genHelp.contains("approximate number of instructions (50..2000000; default: 2000)"), genHelp.constData());
        QVERIFY2(genHelp.contains("random seed (default: 1)"), genHelp.constData());
        QVERIFY(tgraphRun({ "runs", "--help" }).out.contains("before SIGKILL (0..86400 s; default: 60)"));
        QVERIFY(tgraphRun({ "synth", "--help" }).out.contains("repeating an earlier one ([0, 1]; default: 0.05)"));
        QVERIFY(tgraphRun({ "--version" }).out.startsWith("tgraph "));
        r = tgraphRun({ "synth", "--explain", "--params", "copyEfficiency=0.25" });
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("copyEfficiency       = 0.25"));
        r = tgraphRun({ "simulate", "in.hlo", "--params", "copyEfficiency=0.25,warp=9" });
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("unknown simulator parameter 'warp'"));
    }

    // The LibTorch commands live in tgraph-model; `tgraph` lists them from its own table and hands
    // them over. Both tables must agree, and each listed command must reach its own --help.
    // `runs stop --timeout` used to fall back to 60 s on any text it could not read; now a bad
    // value is refused before anything happens, and a good one (units too) is used.
    void runsStopTimeout()
    {
        const std::string project = testutil::str(path("stop.tgproj"));
        pid_t gone = fork(); // a pid that no longer runs
        if (gone == 0)
            _exit(0);
        waitpid(gone, nullptr, 0);
        std::string id;
        {
            Project p = Project::create(project);
            RunStart start;
            start.pid = gone;
            start.name = "orphan";
            id = p.startRun(start);
        }
        const QString file = QString::fromStdString(project);
        const auto rowStatus
            = [&] { return Project::open(project, Project::Access::Read).db().queryText("SELECT status FROM runs"); };
        for (const char* bad : { "abc", "5x", "-1", "nan", "inf", "1e999", "86401", "1,5", "" }) {
            const auto r = tgraphRun({ "runs", "stop", "orphan", "--project", file, "--timeout", bad });
            QVERIFY2(r.exitCode == 2, qPrintable(QString(bad) + ": " + r.err));
            QVERIFY2(r.err.contains("--timeout '" + QByteArray(bad) + "'") && r.err.contains("0..86400 s"),
                r.err.constData());
            QCOMPARE(rowStatus(), std::string("RUNNING")); // refused before anything happened
        }
        // The run's pid is gone on this host: CRASHED at the next read, 30 s of heartbeat or not,
        // and `runs show` (like `runs list`) records it in the file.
        auto r = tgraphRun({ "runs", "show", "orphan", "--project", file });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(
            r.out.contains("CRASHED - its process (pid " + QByteArray::number(gone) + ") is gone"), r.out.constData());
        QCOMPARE(rowStatus(), std::string("CRASHED"));
        r = tgraphRun({ "runs", "list", "--project", file });
        QVERIFY2(r.exitCode == 0 && r.out.contains("CRASHED") && !r.out.contains("RUNNING"), r.out.constData());
        // a good value goes through; there is nothing to stop
        r = tgraphRun({ "runs", "stop", "orphan", "--project", file, "--timeout", "1.5m" });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("is not running (CRASHED: its process"), r.out.constData());
        QCOMPARE(Project::open(project, Project::Access::Read).findRun(id)->status, RunStatus::Crashed);
    }

    // A project may come from someone else: the names and messages it stores are printed escaped,
    // so that they cannot rewrite the terminal (escape sequences, carriage returns, bidirectional
    // overrides) or add rows to a listing (newlines). Valid UTF-8 stays readable.
    void storedTextIsEscapedOnTheTerminal()
    {
        QCOMPARE(terminalText("plain name-1"), std::string("plain name-1"));
        QCOMPARE(terminalText("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac"), std::string("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac"));
        QCOMPARE(terminalText("a\nb\rc\td\x1b[31me\x07" "f\x7f"), std::string("a\\nb\\rc\\td\\e[31me\\x07f\\x7f"));
        QCOMPARE(terminalText(std::string("nul\0end", 7)), std::string("nul\\x00end"));
        QCOMPARE(terminalText("back\\slash"), std::string("back\\\\slash"));
        QCOMPARE(terminalText("\xc2\x9b" "2J"), std::string("\\u009b2J")); // C1 CSI
        QCOMPARE(terminalText("\xe2\x80\xae" "txt.exe"), std::string("\\u202etxt.exe")); // right-to-left override
        QCOMPARE(terminalText("\xff\xc3"), std::string("\\xff\\xc3")); // not UTF-8, truncated sequence
        QCOMPARE(terminalText("\xed\xa0\x80"), std::string("\\xed\\xa0\\x80")); // a surrogate
        QCOMPARE(terminalText("\xc0\xaf"), std::string("\\xc0\\xaf")); // overlong '/'

        const std::string project = testutil::str(path("escape.tgproj"));
        const std::string evil = "evil\n0123abcd FAKE     Default  FINISHED\x1b[2J\x1b]0;title\x07\r\xe2\x80\xaeok";
        {
            Project p = Project::create(project);
            RunStart start;
            start.name = evil;
            start.experiment = "exp\x1b[31m";
            start.status = RunStatus::Pending;
            const std::string id = p.startRun(start);
            p.setRunStatus(id, RunStatus::Failed, "failed\n\x1b[1mbold");
            p.setParams(id, { { "key\x1b", "value\nnext" } });
        }
        const QString file = QString::fromStdString(project);
        for (const QStringList& args :
            { QStringList { "runs", "list", "--project", file }, QStringList { "runs", "show", evil.c_str(), "--project", file },
                QStringList { "compare", "--project", file } }) {
            const auto r = tgraphRun(args);
            QVERIFY2(r.exitCode == 0, qPrintable(args.join(' ') + ": " + r.err));
            for (const char c : r.out)
                QVERIFY2(c == '\n' || (uint8_t(c) >= 0x20 && c != 0x7f), qPrintable(args.join(' ') + ": " + r.out.toPercentEncoding()));
            QVERIFY2(!r.out.contains("\xe2\x80\xae"), r.out.constData());
            QVERIFY2(r.out.contains("\\e[2J") || args[1] == "list", r.out.constData());
        }
        const auto list = tgraphRun({ "runs", "list", "--project", file });
        QCOMPARE(list.out.count('\n'), 2); // the header and one row: the name's newline is no row
        QVERIFY2(list.out.contains("evil\\n0123abcd"), list.out.constData());
        QVERIFY2(list.out.contains("exp\\e[31m"), list.out.constData());
        const auto show = tgraphRun({ "runs", "show", evil.c_str(), "--project", file });
        QVERIFY2(show.out.contains("failed\\n\\e[1mbold"), show.out.constData());
        QVERIFY2(show.out.contains("key\\e") && show.out.contains("value\\nnext"), show.out.constData());
        QVERIFY2(show.out.contains("\\u202eok"), show.out.constData());
    }

    // `tgraph compare --project P` and `tgraph render --view curves --project P` without runs named
    // take every run of the project (fold runs through their run); a project without runs is refused.
    void compareAndCurvesTakeAllRuns()
    {
        const std::string project = testutil::str(path("all.tgproj"));
        const QString file = QString::fromStdString(project);
        {
            Project p = Project::create(project);
            const std::vector<std::pair<std::string, std::vector<double>>> runs { { "alpha", { 0.2, 0.6 } },
                { "beta", { 0.4, 0.1 } }, { "gamma", { 0.5, 0.5 } } };
            for (const auto& [name, taus] : runs) {
                RunStart start;
                start.name = name;
                const std::string id = p.startRun(start);
                RunWriter w(project, id);
                for (int64_t step = 1; step <= 5; ++step)
                    w.logMetric("loss", step, 1.0 / double(step), "train");
                EvalMetrics e;
                e.step = 5;
                e.meanTau = (taus[0] + taus[1]) / 2;
                e.meanTileScore = std::nan("");
                e.graphs = { { "g1.npz", 10, taus[0], 0.5, 0.1, std::nan("") },
                    { "g2.npz", 10, taus[1], 0.5, 0.1, std::nan("") } };
                w.evalMetrics(e);
                w.finish(RunStatus::Finished);
            }
            RunStart fold;
            fold.name = "fold-0";
            fold.parentRun = p.findRun("alpha")->id;
            p.setRunStatus(p.startRun(fold), RunStatus::Finished);
        }
        auto r = tgraphRun({ "compare", "--project", file, "--json" });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject report = QJsonDocument::fromJson(r.out).object();
        const QJsonArray compared = report.value("runs").toArray();
        QStringList names;
        for (const QJsonValue& run : compared)
            names << run.toObject().value("name").toString();
        QCOMPARE(names, (QStringList { "alpha", "beta", "gamma" })); // every run, oldest first, no fold
        QCOMPARE(report.value("pairs").toArray().size(), 3);
        r = tgraphRun({ "compare", "--project", file });
        QVERIFY2(r.exitCode == 0 && r.out.contains("alpha vs gamma"), r.out.constData());
        const QString empty = path("empty.tgproj");
        Project::create(testutil::str(empty));
        r = tgraphRun({ "compare", "--project", empty });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("empty.tgproj") && r.err.contains("no runs"), r.err.constData());

        if (!QFileInfo(testutil::binDir() + "/tgraph-studio").isExecutable())
            QSKIP("built without the GUI (-DTGRAPH_BUILD_GUI=OFF): no tgraph render");
        const QString svg = path("all-curves.svg");
        r = tgraphRun({ "render", "--view", "curves", "--project", file, "-o", svg });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QByteArray drawing = testutil::readAll(svg);
        for (const char* name : { "alpha", "beta", "gamma" }) // one legend entry per run
            QVERIFY2(drawing.contains(QByteArray(">") + name), name);
        const QString png = path("all-curves.png");
        r = tgraphRun({ "render", "--view", "curves", "--project", file, "-o", png });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(testutil::readAll(png).startsWith("\x89PNG\r\n\x1a\n"));
        r = tgraphRun({ "render", "--view", "curves", "--project", empty, "-o", path("none.png") });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("no runs"), r.err.constData());
        // The stored views still need their run.
        r = tgraphRun({ "render", "--view", "scatter", "--project", file, "-o", path("s.png") });
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--run"), r.err.constData());
    }

    // The model commands (tgraph-model) check option values before any work, so no file is needed:
    // a usage error that names the option, the value and the range. Several were unchecked or
    // weaker before (marked).
    void badModelOptionValues_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("expected");
        const QStringList train { "train", "--data", "DATA", "--steps", "2", "--out", "OUT" };
        QTest::newRow("lr with a decimal comma")
            << train + QStringList { "--lr", "0,001" } << "--lr '0,001': not a number (allowed: a number > 0)";
        QTest::newRow("lr zero") << train + QStringList { "--lr", "0" } << "--lr '0': out of range";
        QTest::newRow("epochs infinite (was accepted)")
            << QStringList { "train", "--data", "DATA", "--epochs", "inf", "--out", "OUT" } << "--epochs 'inf'";
        QTest::newRow("clip infinite (was accepted)") << train + QStringList { "--clip", "inf" } << "--clip 'inf'";
        QTest::newRow("dropout 1") << train + QStringList { "--dropout", "1" } << "(allowed: a number in [0, 1))";
        QTest::newRow("threads above 1024 (was unbounded)")
            << train + QStringList { "--threads", "5000" }
            << "--threads '5000': out of range (allowed: an integer in 0..1024)";
        QTest::newRow("configs per step")
            << train + QStringList { "--configs-per-step", "1" } << "(allowed: an integer >= 2)";
        QTest::newRow("fold seed above 32 bits")
            << train + QStringList { "--folds", "3", "--fold-seed", "4294967296" } << "an integer in 0..4294967295";
        QTest::newRow("config fold outside the config folds")
            << train + QStringList { "--config-folds", "3", "--config-fold", "3" }
            << "--config-fold must be an integer in 0..--config-folds - 1";
        QTest::newRow("config fold without config folds")
            << train + QStringList { "--config-fold", "1" } << "--config-fold needs --config-folds";
        QTest::newRow("config folds and graph folds")
            << train + QStringList { "--config-folds", "3", "--folds", "5" } << "exclude each other";
        QTest::newRow("config folds of lazily read graphs")
            << train + QStringList { "--config-folds", "3", "--resident-graphs", "2" } << "no --resident-graphs with it";
        QTest::newRow("one config fold") << train + QStringList { "--config-folds", "1" } << "--config-folds '1': out of range";
        QTest::newRow("dist timeout below a second")
            << train + QStringList { "--dist-timeout", "500ms" } << "--dist-timeout '500ms': out of range";
        QTest::newRow("master port") << train + QStringList { "--world-size", "2", "--master", "h:0" }
                                     << "--master 'h:0'";
        QTest::newRow("kind") << train + QStringList { "--kind", "graph" } << "(allowed: layout or tile)";
        const QStringList predict { "predict", "--weights", "W", "--data", "DATA", "-o", "OUT.csv" };
        QTest::newRow("tta above its range") << predict + QStringList { "--tta", "10001" }
                                             << "--tta '10001': out of range (allowed: an integer in 0..10000)";
        QTest::newRow("batch configs 0") << predict + QStringList { "--batch-configs", "0" } << "--batch-configs '0'";
        QTest::newRow("negative tta seed") << predict + QStringList { "--tta-seed", "-1" } << "--tta-seed '-1'";
        QTest::newRow("tile runtime") << QStringList { "eval", "--weights", "W", "--data", "DATA", "--tile-runtime",
            "scaled" } << "(allowed: raw or normalized)";
        QTest::newRow("explain config") << QStringList { "explain", "G", "--weights", "W", "--vs", "middle" }
                                        << "--vs 'middle': not a config";
        QTest::newRow("explain top") << QStringList { "explain", "G", "--weights", "W", "--top", "-1" }
                                     << "--top '-1': out of range";
        const QStringList tune { "tune", "G", "--weights", "W", "-o", "OUT" };
        QTest::newRow("measure timeout above a day (overflowed before)")
            << tune + QStringList { "--measure", "true", "--measure-timeout", "3000000" }
            << "--measure-timeout '3000000': out of range";
        QTest::newRow("tune strategy") << tune + QStringList { "--strategy", "annealed" }
                                       << "(allowed: sa, evo, random or exhaustive)";
        QTest::newRow("tune space") << tune + QStringList { "--space", "disk" } << "(allowed: auto, module or file)";
    }

    void badModelOptionValues()
    {
        if (!haveModelCommands())
            QSKIP("built without LibTorch (the sanitizer build): no tgraph-model");
        QFETCH(QStringList, args);
        QFETCH(QString, expected);
        const QString out = path("bad-option-out");
        for (QString& a : args) {
            if (a == "DATA" || a == "W" || a == "G")
                a = path("no-such-" + a.toLower()); // never read: the option is refused first
            else if (a.startsWith("OUT"))
                a.replace(0, 3, out);
        }
        const auto r = tgraphRun(args);
        QVERIFY2(!r.crashed && r.exitCode == 2, qPrintable(QString("exit %1: %2").arg(r.exitCode).arg(QString(r.err))));
        QVERIFY2(r.err.contains(expected.toUtf8()), r.err.constData());
        QVERIFY(!QFileInfo::exists(out) && !QFileInfo::exists(out + ".csv"));
    }

    // Folds over configurations (docs/model.md §4.4.1): the held-out configs become the validation
    // graph the run evaluates; a graph with too few configs for the folds is bad input naming it.
    void trainConfigFolds()
    {
        if (!haveModelCommands())
            QSKIP("built without LibTorch (the sanitizer build): no tgraph-model");
        const QString in = path("config-folds.npz");
        saveLayoutGraph(smallSynthetic(30), testutil::str(in));
        const QString out = path("config-folds-out");
        auto r = tgraphRun({ "train", "--data", in, "--config-folds", "3", "--config-fold", "1", "--steps", "2",
            "--hidden", "16", "--threads", "1", "--no-progress", "--out", out });
        QVERIFY2(!r.crashed && r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("1 train and 1 valid graphs"), r.out.constData());
        QVERIFY2(r.out.contains("config-folds.npz [held-out fold 1/3]"), r.out.constData());
        QVERIFY(QFileInfo::exists(out + "/best.npz"));
        const QString out2 = path("config-folds-out2");
        r = tgraphRun({ "train", "--data", in, "--config-folds", "16", "--steps", "2", "--hidden", "16", "--threads",
            "1", "--no-progress", "--out", out2 });
        QVERIFY2(!r.crashed && r.exitCode == 1, r.err.constData());
        const QString err = QString::fromUtf8(r.err).trimmed();
        QVERIFY2(!err.contains('\n') && err.contains(in) && err.contains("--config-folds 16 needs at least 32"),
            qPrintable(err));
        QVERIFY(!QFileInfo::exists(out2));
    }

    void modelCommandsHandedOver()
    {
        if (!haveModelCommands())
            QSKIP("built without LibTorch (the sanitizer build): no tgraph-model");
        auto commandLines = [](const QByteArray& help) {
            QSet<QByteArray> lines;
            for (const QByteArray& line : help.split('\n'))
                if (line.startsWith("  ") && !line.startsWith("   ") && !line.trimmed().startsWith("-"))
                    lines.insert(line.trimmed());
            return lines;
        };
        const auto model = testutil::run(testutil::binDir() + "/tgraph-model", { "--help" });
        QCOMPARE(model.exitCode, 0);
        const QSet<QByteArray> modelLines = commandLines(model.out);
        const QSet<QByteArray> all = commandLines(tgraphRun({ "--help" }).out);
        for (const QByteArray& line : modelLines)
            QVERIFY2(all.contains(line), line.constData());
        QSet<QByteArray> coreLines;
        for (const char* cmd :
            { "compare", "convert", "data", "diff", "dump", "gen-hlo", "inspect", "prune", "render", "runs", "simulate",
                "sweep", "synth" })
            for (const QByteArray& line : all)
                if (line.startsWith(QByteArray(cmd) + " "))
                    coreLines.insert(line);
        QCOMPARE(coreLines.size(), 13);
        QCOMPARE(all.size(), coreLines.size() + modelLines.size()); // nothing listed by tgraph alone
        for (const QByteArray& line : modelLines) {
            const QByteArray name = line.left(line.indexOf(' '));
            const auto r = tgraphRun({ QString::fromLatin1(name), "--help" });
            QCOMPARE(r.exitCode, 0);
            QVERIFY2(r.out.startsWith("Usage: tgraph " + name), r.out.constData());
            QCOMPARE(tgraphRun({ "help", QString::fromLatin1(name) }).out, r.out);
        }
        QVERIFY(testutil::run(testutil::binDir() + "/tgraph-model", { "--version" }).out.contains("LibTorch"));
    }

    void synthInspectPruneRoundTrip()
    {
        const QString in = path("synth.npz");
        auto r = tgraphRun(
            { "synth", "-o", in, "--nodes", "600", "--configurable", "20", "--configs", "150", "--seed", "9" });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = tgraphRun({ "inspect", in, "--json" });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject info = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(info["kind"].toString(), QString("layout"));
        QCOMPARE(info["nodes"].toInt(), 600);
        QCOMPARE(info["configurable_nodes"].toInt(), 20);
        QCOMPARE(info["configs"].toInt(), 150);
        const int duplicates = info["duplicate_configs"].toInt();
        QVERIFY(duplicates > 0);

        const QString out = path("pruned.npz");
        r = tgraphRun({ "prune", in, "-o", out, "--dedup", "keep-first", "--compress" });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.contains("600 -> "));
        QVERIFY(r.out.contains(QByteArray("150 -> ") + QByteArray::number(150 - duplicates)));
        // numpy loads the output: the same keys as the dataset, compressed int32 configs.
        const auto p = testutil::run(testutil::python(),
            { "-c",
                "import numpy as np,sys; d=np.load(sys.argv[1]); "
                "assert sorted(d.files)==sorted(['node_feat','node_opcode','edge_index','node_config_feat',"
                "'node_config_ids','config_runtime','node_splits']), d.files; "
                "c=d['node_config_feat']; assert c.dtype==np.int32 and c.shape==(int(sys.argv[2]),20,3), c.shape; "
                "assert d['node_opcode'].dtype==np.uint8; assert d['node_splits'].shape[0]==1; "
                "assert d['edge_index'].max() < d['node_feat'].shape[0]; print(d['node_feat'].shape[0])",
                out, QString::number(150 - duplicates) });
        QVERIFY2(p.exitCode == 0, p.err.constData());
        r = tgraphRun({ "inspect", out, "--json" });
        QCOMPARE(QDocumentNodes(r.out), p.out.trimmed().toInt());
        QCOMPARE(QJsonDocument::fromJson(r.out).object()["configs_compressed"].toBool(), true);

        // Several files: a JSON array.
        r = tgraphRun({ "inspect", in, out, "--json" });
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(r.out).array().size(), 2);
    }

    void pruneRefusesTileGraphs()
    {
        TileGraph t;
        t.nodeFeat = NdArray<float>({ 2, kNodeFeatures }, 0.0f);
        t.nodeOpcode = NdArray<int64_t>::fromVector({ 2 }, { 63, 75 });
        t.edgeIndex = NdArray<int64_t>::fromVector({ 1, 2 }, { 1, 0 });
        t.configFeat = NdArray<float>({ 2, kTileConfigFeatures }, 1.0f);
        t.configRuntime = NdArray<int64_t>::fromVector({ 2 }, { 10, 20 });
        t.configRuntimeNormalizers = NdArray<int64_t>({ 2 }, 20);
        saveTileGraph(t, testutil::str(path("tile.npz")));
        QCOMPARE(tgraphRun({ "inspect", path("tile.npz") }).exitCode, 0);
        const auto r = tgraphRun({ "prune", path("tile.npz"), "-o", path("tile_out.npz") });
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains("tile graph"));
        QVERIFY(!QFileInfo::exists(path("tile_out.npz")));
    }

    void badInputs_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QStringList>("expected"); // substrings of the one-line error besides the file name
        QTest::newRow("truncated zip") << "truncated" << QStringList { "not a zip archive" };
        QTest::newRow("CRC mismatch") << "crc" << QStringList { "node_feat", "CRC-32 mismatch" };
        QTest::newRow("npy header lies about size") << "lies" << QStringList { "node_feat", "lies about the size" };
        QTest::newRow("negative shape") << "negative" << QStringList { "node_opcode", "negative dimension" };
        QTest::newRow("overflowing shape") << "overflow" << QStringList { "node_feat", "overflows" };
        QTest::newRow("unknown dtype") << "dtype" << QStringList { "node_feat", "not supported" };
        QTest::newRow("object array") << "object" << QStringList { "config_runtime", "object arrays" };
        QTest::newRow("edge index out of range") << "edge" << QStringList { "edge_index[", "out of range" };
        QTest::newRow("config ids out of range") << "configids" << QStringList { "node_config_ids[3]", "out of range" };
        QTest::newRow("NaN runtimes") << "nan" << QStringList { "config_runtime[2]", "NaN runtime" };
        QTest::newRow("empty graph") << "empty" << QStringList { "node_feat", "empty graph" };
        QTest::newRow("one config") << "oneconfig" << QStringList { "config_runtime", "only 1 configuration" };
        QTest::newRow("not an npz") << "text" << QStringList { "not a", ".npz" };
        QTest::newRow("missing file") << "missing" << QStringList { "cannot open" };
    }
    void badInputs()
    {
        QFETCH(QString, name);
        QFETCH(QStringList, expected);
        const LayoutGraph g = smallSynthetic();
        Members m = membersOf(g);
        NpzCompression compression = NpzCompression::Deflated;
        const QString file = path("bad_" + name + ".npz");
        QByteArray patchedFile;
        if (name == "truncated" || name == "crc") {
            compression = NpzCompression::Stored;
        } else if (name == "lies") {
            replace(m, "node_feat",
                rawNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (200, 140), }", 200 * 139 * 4));
        } else if (name == "negative") {
            replace(m, "node_opcode", rawNpy("{'descr': '|u1', 'fortran_order': False, 'shape': (-200,), }", 0));
        } else if (name == "overflow") {
            replace(m, "node_feat",
                rawNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (9223372036854775807, 140), }", 0));
        } else if (name == "dtype") {
            replace(m, "node_feat",
                rawNpy("{'descr': '<c8', 'fortran_order': False, 'shape': (200, 140), }", 200 * 140 * 8));
        } else if (name == "object") {
            replace(m, "config_runtime", rawNpy("{'descr': '|O', 'fortran_order': False, 'shape': (12,), }", 64));
        } else if (name == "edge") {
            LayoutGraph b = g;
            b.edgeIndex(b.edgeCount() - 1, 1) = 200;
            replace(m, "edge_index", npyBytes(b.edgeIndex));
        } else if (name == "configids") {
            LayoutGraph b = g;
            b.nodeConfigIds[3] = -1;
            replace(m, "node_config_ids", npyBytes(b.nodeConfigIds));
        } else if (name == "nan") {
            NdArray<double> runtime({ 12 }, 1e6);
            runtime[2] = std::nan("");
            replace(m, "config_runtime", npyBytes(runtime));
        } else if (name == "empty") {
            m = { { "node_feat", npyBytes(NdArray<float>({ 0, kNodeFeatures })) },
                { "node_opcode", npyBytes(NdArray<int64_t>({ 0 })) },
                { "edge_index", npyBytes(NdArray<int64_t>({ 0, 2 })) },
                { "node_config_feat", npyBytes(NdArray<float>({ 0, 0, 18 })) },
                { "node_config_ids", npyBytes(NdArray<int64_t>({ 0 })) },
                { "config_runtime", npyBytes(NdArray<int64_t>({ 0 })) } };
        } else if (name == "oneconfig") {
            m = membersOf(smallSynthetic(1));
        }
        if (name == "text") {
            testutil::writeAll(file, "this is not a numpy archive\n");
        } else if (name != "missing") {
            writeMembers(file, m, compression);
            QByteArray bytes = testutil::readAll(file);
            if (name == "truncated")
                bytes = bytes.left(bytes.size() / 2);
            if (name == "crc")
                bytes[300] = char(bytes[300] ^ 0x20); // inside node_feat's data (stored, first member)
            testutil::writeAll(file, bytes);
        }

        for (const QString& command : { QString("inspect"), QString("prune") }) {
            QDir outDir(path("out_" + name + "_" + command));
            QVERIFY(outDir.mkpath("."));
            const QString out = outDir.filePath("out.npz");
            const QStringList args
                = command == "inspect" ? QStringList { "inspect", file } : QStringList { "prune", file, "-o", out };
            const auto r = tgraphRun(args);
            QVERIFY2(!r.crashed, "crashed");
            QVERIFY2(r.exitCode == 1, qPrintable(command + " exit " + QString::number(r.exitCode) + ": " + r.err));
            const QString err = QString::fromUtf8(r.err).trimmed();
            QVERIFY2(!err.contains('\n'), qPrintable("more than one line: " + err));
            QVERIFY2(err.contains(file), qPrintable("no file name in: " + err));
            for (const QString& part : expected)
                QVERIFY2(err.contains(part), qPrintable("expected '" + part + "' in: " + err));
            QVERIFY(r.out.isEmpty());
            QCOMPARE(outDir.entryList(QDir::Files | QDir::Hidden | QDir::System).size(), 0); // no partial output
        }
    }

    void interruptRemovesPartialOutput()
    {
        // Big enough that loading takes well over a second: Ctrl-C arrives mid-way.
        SyntheticLayoutSpec spec;
        spec.nodes = 2000;
        spec.configurableNodes = 400;
        spec.configs = 6000;
        const QString in = path("big.npz");
        GraphWriteOptions w;
        w.compressed = true;
        saveLayoutGraph(makeSyntheticLayoutGraph(spec), testutil::str(in), w);
        QDir outDir(path("out_interrupt"));
        QVERIFY(outDir.mkpath("."));
        QProcess p;
        p.start(tgraphExe(), { "prune", in, "-o", outDir.filePath("out.npz"), "--dedup", "keep-min" });
        QVERIFY(p.waitForStarted());
        QTest::qWait(400);
        QVERIFY2(p.state() == QProcess::Running, "prune finished before it could be interrupted");
        ::kill(pid_t(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 130);
        QVERIFY(p.readAllStandardError().contains("cancelled"));
        QCOMPARE(outDir.entryList(QDir::Files | QDir::Hidden | QDir::System).size(), 0);
    }

    void convertRealInputs_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("nodes");
        QTest::addColumn<int>("edges"); // -1: not checked
        QTest::addColumn<int>("configs");
        QTest::addColumn<int>("configurable"); // -1: not checked
        QTest::newRow("ssd_mobilenet text") << "hlo/ssd_mobilenet_tf.hlo" << 508 << -1 << 0 << -1;
        QTest::newRow("graphsage text") << "hlo/graphsage_tf.hlo" << 138 << -1 << 0 << -1;
        QTest::newRow("tuning record") << "tpu_graphs/module_tuning_data_layout.pb" << 3163 << 5112 << 112 << 62;
    }
    void convertRealInputs()
    {
        const QString data = testutil::sharedDataDir();
        if (data.isEmpty())
            QSKIP("../shared/data is absent: real inputs not available");
        QFETCH(QString, file);
        QFETCH(int, nodes);
        QFETCH(int, edges);
        QFETCH(int, configs);
        QFETCH(int, configurable);
        const QString out = path(QFileInfo(file).baseName() + ".npz");
        const auto r = tgraphRun({ "convert", data + "/" + file, "-o", out });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.contains("layout graph"));
        const auto p = testutil::run(testutil::python(),
            { "-c",
                "import numpy as np,sys\n"
                "d=np.load(sys.argv[1]); n,e,c,nc=map(int,sys.argv[2:6])\n"
                "want={'node_feat':np.float32,'node_opcode':np.uint8,'edge_index':np.int64,'node_config_feat':np."
                "float32,"
                "'node_config_ids':np.int64,'config_runtime':np.int64,'node_splits':np.int64}\n"
                "assert sorted(d.files)==sorted(want), d.files\n"
                "for k,t in want.items(): assert d[k].dtype==t, (k, d[k].dtype)\n"
                "assert d['node_feat'].shape==(n,140), d['node_feat'].shape\n"
                "assert d['node_opcode'].shape==(n,)\n"
                "assert d['edge_index'].shape[1]==2 and (e<0 or d['edge_index'].shape[0]==e), d['edge_index'].shape\n"
                "k=d['node_config_ids'].shape[0]; assert nc<0 or k==nc, k\n"
                "assert d['node_config_feat'].shape==(c,k,18) and d['config_runtime'].shape==(c,)\n"
                "assert d['node_splits'].shape[0]==1 and d['node_splits'][0,-1]==n\n"
                "assert np.all(np.isin(d['node_opcode'][d['node_config_ids']],[26,34,75]))\n"
                "u=d['edge_index']; assert np.all(np.diff(u[:,0])>=0)\n",
                out, QString::number(nodes), QString::number(edges), QString::number(configs),
                QString::number(configurable) });
        QVERIFY2(p.exitCode == 0, p.err.constData());
        // inspect reads HLO inputs directly and agrees with the converted file
        const auto direct = QJsonDocument::fromJson(tgraphRun({ "inspect", data + "/" + file, "--json" }).out).object();
        const auto converted = QJsonDocument::fromJson(tgraphRun({ "inspect", out, "--json" }).out).object();
        QCOMPARE(direct["nodes"].toInt(), nodes);
        QCOMPARE(converted["nodes"].toInt(), nodes);
        QCOMPARE(direct["edges"].toInt(), converted["edges"].toInt());
        QVERIFY(direct["module"].toObject()["instructions"].toInt() == nodes);
    }

    void convertOptions()
    {
        const QString hlo = path("gen.hlo");
        auto r = tgraphRun({ "gen-hlo", "--family", "transformer", "--size", "800", "--seed", "3", "-o", hlo });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.contains("transformer module"));
        const QString sorted = path("gen_sorted.npz"), inserted = path("gen_inserted.npz"),
                      repad = path("gen_repad.npz");
        QCOMPARE(tgraphRun({ "convert", hlo, "-o", sorted }).exitCode, 0);
        QCOMPARE(tgraphRun({ "convert", hlo, "-o", inserted, "--insertion-order" }).exitCode, 0);
        QCOMPARE(tgraphRun({ "convert", hlo, "-o", repad, "--repad", "--stored" }).exitCode, 0);
        const auto p = testutil::run(testutil::python(),
            { "-c",
                "import numpy as np,sys\n"
                "s,i,r=(np.load(f) for f in sys.argv[1:4])\n"
                "a,b=s['edge_index'],i['edge_index']\n"
                "assert sorted(map(tuple,a))==sorted(map(tuple,b)), 'same edge set'\n"
                "assert [tuple(x) for x in a]==sorted(map(tuple,a)), 'default is sorted by (u, v)'\n"
                "assert [tuple(x) for x in b]!=[tuple(x) for x in a], 'insertion order differs somewhere'\n"
                "f,g=s['node_feat'],r['node_feat']\n"
                "scalars=f[:,21]==0\n"
                "assert np.all(g[scalars,134:140]==-1) and np.all(f[scalars,134:140]==0)\n"
                "assert np.all(g[:,:31]==f[:,:31])\n",
                sorted, inserted, repad });
        QVERIFY2(p.exitCode == 0, p.err.constData());
    }

    void convertErrors_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QStringList>("args"); // after IN -o OUT
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("undefined operand")
            << "bad.hlo" << QStringList {} << QStringList { "line 4, column 29", "operand 'q'" };
        QTest::newRow("operand cycle") << "cycle.hlo" << QStringList {}
                                       << QStringList { "line 4, column 3", "instructions form a cycle",
                                              "'a' (line 4) -> 'b' (line 5) -> 'a' (line 4)" };
        QTest::newRow("recursive call")
            << "recursive.hlo" << QStringList {} << QStringList { "line 4, column 3", "computation 'c' calls itself" };
        QTest::newRow("truncated proto") << "cut.pb" << QStringList {} << QStringList { "byte ", "HloModuleProto" };
        QTest::newRow("npz input") << "graph.npz" << QStringList {} << QStringList { "already a TpuGraphs .npz" };
        QTest::newRow("tile without runs")
            << "ok.hlo" << QStringList { "--collection", "tile" } << QStringList { "more than one tuning run" };
        QTest::newRow("runs do not match the nodes")
            << "mismatch.pb" << QStringList {}
            << QStringList { "runs[0].module_config.layout_config", "configures 2 nodes" };
    }
    void convertErrors()
    {
        QFETCH(QString, name);
        QFETCH(QStringList, args);
        QFETCH(QStringList, expected);
        const QString in = path("in_" + name);
        if (name == "bad.hlo") {
            testutil::writeAll(
                in, "HloModule m\nENTRY e {\n  p = f32[2]{0} parameter(0)\n  ROOT n = f32[2]{0} negate(q)\n}\n");
        } else if (name == "cycle.hlo") {
            testutil::writeAll(in,
                "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  a = f32[] add(b, b)\n  b = f32[] add(a, a)\n"
                "  ROOT r = f32[] add(a, p)\n}\n");
        } else if (name == "recursive.hlo") {
            testutil::writeAll(in,
                "HloModule m\nc {\n  x = f32[] parameter(0)\n  ROOT y = f32[] call(x), to_apply=c\n}\n"
                "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c\n}\n");
        } else if (name == "ok.hlo") {
            testutil::writeAll(
                in, "HloModule m\nENTRY e {\n  p = f32[2]{0} parameter(0)\n  ROOT r = f32[1,2]{1,0} reshape(p)\n}\n");
        } else if (name == "mismatch.pb") {
            testutil::writeAll(in, QByteArray::fromStdString(encodeModuleTuningData(mismatchedRuns())));
        } else if (name == "cut.pb") {
            HloGenSpec spec;
            spec.instructions = 300;
            const std::string proto = encodeHloModuleProto(parseHloText(generateHloText(spec), "gen.hlo"));
            testutil::writeAll(in, QByteArray::fromStdString(proto.substr(0, proto.size() / 2)));
        } else {
            saveLayoutGraph(smallSynthetic(), testutil::str(in));
        }
        QDir outDir(path("convert_out_" + QString(name).replace('.', '_')));
        QVERIFY(outDir.mkpath("."));
        const auto r = tgraphRun(QStringList { "convert", in, "-o", outDir.filePath("out.npz") } + args);
        QVERIFY2(!r.crashed && r.exitCode == 1, qPrintable(QString::number(r.exitCode) + ": " + r.err));
        const QString err = QString::fromUtf8(r.err).trimmed();
        QVERIFY2(!err.contains('\n'), qPrintable(err));
        QVERIFY2(err.contains(in), qPrintable(err));
        for (const QString& part : expected)
            QVERIFY2(err.contains(part), qPrintable("expected '" + part + "' in: " + err));
        QCOMPARE(outDir.entryList(QDir::Files | QDir::Hidden | QDir::System).size(), 0);
    }

    void convertTuningDataWithSeveralModules()
    {
        auto moduleOf = [](const std::string& family, int64_t size) {
            HloGenSpec spec;
            spec.family = family;
            spec.instructions = size;
            ModuleTuningData d;
            d.hasModule = true;
            d.module = parseHloText(generateHloText(spec), family + ".hlo");
            return d;
        };
        const ModuleTuningData a = moduleOf("mlp", 200), b = moduleOf("resnet", 300);
        const ModuleTuningData* both[] = { &a, &b };
        const QString in = path("two.pb");
        testutil::writeAll(in, QByteArray::fromStdString(encodeTuningData(both)));
        const QString dir = path("two_out") + "/";
        auto r = tgraphRun({ "convert", in, "-o", dir });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QStringList files = QDir(dir).entryList({ "*.npz" }, QDir::Files, QDir::Name);
        QCOMPARE(files, (QStringList { "mlp_1.npz", "resnet_1.npz" }));
        const auto p = testutil::run(testutil::python(),
            { "-c", "import numpy as np,sys\nfor f in sys.argv[1:]: d=np.load(f); assert d['node_feat'].shape[1]==140",
                dir + files[0], dir + files[1] });
        QVERIFY2(p.exitCode == 0, p.err.constData());
        QCOMPARE(QJsonDocument::fromJson(tgraphRun({ "inspect", in, "--json" }).out).array().size(), 2);

        // A later module that cannot be featurized removes the files written before it.
        const ModuleTuningData broken = mismatchedRuns();
        const ModuleTuningData* withBad[] = { &a, &broken };
        const QString bad = path("bad_two.pb");
        testutil::writeAll(bad, QByteArray::fromStdString(encodeTuningData(withBad)));
        const QString badDir = path("bad_two_out") + "/";
        r = tgraphRun({ "convert", bad, "-o", badDir });
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains("configures 2 nodes"));
        QCOMPARE(QDir(badDir).entryList(QDir::Files | QDir::Hidden).size(), 0);
    }

    // docs/formats.md §8.2: a text file of modules separated by `// -----` lines (XLA's test files)
    // converts as a TuningData of several modules does: one npz per module, each listed by inspect.
    void convertSplitTextFile()
    {
        const QString in = path("split.hlo");
        testutil::writeAll(in,
            "HloModule first\nENTRY e {\n  p = f32[2]{0} parameter(0)\n  ROOT n = f32[2]{0} negate(p)\n}\n"
            "// -----\n"
            "ENTRY main {\n  p = f32[3]{0} parameter(0)\n  ROOT r = f32[1,3]{1,0} reshape(p)\n}\n"
            "// -----\n"
            "HloModule first\nENTRY e {\n  p = f32[4]{0} parameter(0)\n  ROOT a = f32[4]{0} abs(p)\n}\n");
        const QString dir = path("split_out") + "/";
        auto r = tgraphRun({ "convert", in, "-o", dir });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(QDir(dir).entryList({ "*.npz" }, QDir::Files, QDir::Name),
            (QStringList { "first-2.npz", "first.npz", "module_main.npz" }));
        const auto p = testutil::run(testutil::python(),
            { "-c",
                "import numpy as np,sys\n"
                "for f,n in zip(sys.argv[1:4],(2,2,2)): d=np.load(f); assert d['node_feat'].shape==(n,140), f\n"
                "assert np.load(sys.argv[2])['node_config_ids'].shape==(1,)\n", // the reshape is configurable
                dir + "first.npz", dir + "module_main.npz", dir + "first-2.npz" });
        QVERIFY2(p.exitCode == 0, p.err.constData());
        const QJsonArray modules = QJsonDocument::fromJson(tgraphRun({ "inspect", in, "--json" }).out).array();
        QCOMPARE(modules.size(), 3);
        QCOMPARE(modules[1].toObject()["module"].toObject()["name"].toString(), QString("module_main"));
        r = tgraphRun({ "inspect", in });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.contains("HLO text, module 2 of 3"));

        // An error in a later module names its line in the file; nothing is left behind.
        const QString bad = path("split_bad.hlo");
        testutil::writeAll(bad,
            "HloModule ok\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n// -----\n"
            "HloModule bad\nENTRY e {\n  p = f32[] parameter(0)\n  n = f32[] negate(q)\n  q = f32[] negate(p)\n"
            "  ROOT r = f32[] add(n, q)\n}\n");
        const QString badDir = path("split_bad_out") + "/";
        r = tgraphRun({ "convert", bad, "-o", badDir });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("split_bad.hlo: line 9, column 3: operand 'q' (line 10) of 'n' is defined after its use"),
            r.err.constData());
        QCOMPARE(QDir(badDir).entryList(QDir::Files | QDir::Hidden).size(), 0);

        // A module without its HloModule line converts like any other.
        const QString headerless = path("headerless.hlo");
        testutil::writeAll(headerless, "ENTRY main {\n  p = f32[2]{0} parameter(0)\n  ROOT n = f32[2]{0} negate(p)\n}\n");
        r = tgraphRun({ "convert", headerless, "-o", path("headerless.npz") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.contains("module module_main (HLO text)"));
    }

    void synthCollectionsAndSimulate()
    {
        // --explain prints every simulator parameter
        auto r = tgraphRun({ "synth", "--explain" });
        QCOMPARE(r.exitCode, 0);
        for (const char* p : { "matrixFlops", "hbmBandwidth", "laneTile", "noiseSigma", "failureRate", "vmemBytes" })
            QVERIFY2(r.out.contains(p), p);
        // a small layout collection, then inspect one of its files
        const QString dir = path("synth_layout");
        r = tgraphRun({ "synth", "--collection", "layout", "--sampler", "default", "--graphs", "4", "--configs", "30",
            "--min-size", "200", "--max-size", "400", "--seed", "5", "-o", dir });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.contains("layout collection (default sampler)"));
        const QStringList train = QDir(dir + "/train").entryList({ "*.npz" });
        QVERIFY(!train.isEmpty());
        const auto info
            = QJsonDocument::fromJson(tgraphRun({ "inspect", dir + "/train/" + train[0], "--json" }).out).object();
        QCOMPARE(info["synthetic"].toBool(), true);
        QVERIFY(info["synthetic_meta"].toString().contains("\"sampler\": \"default\""));
        QVERIFY(info["runtimes_measured"].toBool());
        // simulate a module without measurements
        const QString hlo = path("sim.hlo");
        QCOMPARE(tgraphRun({ "gen-hlo", "--family", "resnet", "--size", "600", "-o", hlo }).exitCode, 0);
        r = tgraphRun({ "simulate", hlo, "--configs", "50", "-o", path("sim.npz") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.contains("50 configurations sampled (random) and simulated"));
        const auto sim = QJsonDocument::fromJson(tgraphRun({ "inspect", path("sim.npz"), "--json" }).out).object();
        QVERIFY(sim["configs"].toInt() >= 45); // a few may have failed
        QVERIFY(sim["synthetic"].toBool());
    }

    void synthAndSimulateBadInput_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("expected");
        // a bad option value is a usage error (exit 2) naming the option, the value and what is allowed
        QTest::newRow("unknown family") << QStringList { "gen-hlo", "--family", "vgg", "-o", "x.hlo" } << 2
                                        << "--family 'vgg': unknown (allowed: mlp, resnet";
        QTest::newRow("size out of range") << QStringList { "gen-hlo", "--family", "mlp", "--size", "10", "-o",
            "x.hlo" } << 2 << "--size '10': out of range (allowed: an integer in 50..2000000)";
        QTest::newRow("size with trailing characters")
            << QStringList { "gen-hlo", "--size", "600x", "-o", "x.hlo" } << 2 << "--size '600x': not an integer";
        QTest::newRow("negative seed") << QStringList { "gen-hlo", "--seed", "-1", "-o", "x.hlo" } << 2
                                       << "--seed '-1': out of range";
        QTest::newRow("seed overflow") << QStringList { "synth", "--seed", "18446744073709551616", "-o", "out" } << 2
                                       << "out of range (allowed: an integer in 0..18446744073709551615)";
        QTest::newRow("unknown family in synth") << QStringList { "synth", "--collection", "layout", "--families",
            "mlp,vgg", "-o", "out" } << 2 << "--families 'mlp,vgg': item 'vgg' is unknown";
        QTest::newRow("min-size below its range") << QStringList { "synth", "--collection", "layout", "--min-size",
            "10", "-o", "out" } << 2 << "--min-size '10': out of range (allowed: an integer in 50..1000000)";
        QTest::newRow("duplicates not finite") << QStringList { "synth", "--duplicates", "nan", "-o", "out" } << 2
                                               << "--duplicates 'nan': not a finite number";
        QTest::newRow("duplicates above 1")
            << QStringList { "synth", "--duplicates", "1.5", "-o", "out" } << 2 << "(allowed: a number in [0, 1])";
        QTest::newRow("nodes overflow") << QStringList { "synth", "--nodes", "99999999999999999999", "-o", "out" } << 2
                                        << "--nodes '99999999999999999999': out of range";
        QTest::newRow("too many configurable nodes")
            << QStringList { "synth", "--nodes", "10", "--configurable", "5", "-o", "out" } << 2 << "nodes/2";
        QTest::newRow("one config to simulate") << QStringList { "simulate", "RESNET", "--configs", "1" } << 2
                                                << "--configs '1': out of range (allowed: an integer >= 2)";
        QTest::newRow("radius out of range") << QStringList { "render", "RESNET", "--radius", "4", "-o", "x.hlo" } << 2
                                             << "--radius '4': out of range (allowed: an integer in 1..3)";
        QTest::newRow("sizes out of range")
            << QStringList { "synth", "--collection", "layout", "--min-size", "500", "--max-size", "100", "-o", "out" }
            << 1 << "module sizes";
        QTest::newRow("unwritable output")
            << QStringList { "synth", "--collection", "tile", "--graphs", "2", "-o", "/proc/tgraph-not-writable" } << 1
            << "cannot create the output directory";
        QTest::newRow("no configurable node") << QStringList { "simulate", "PLAIN" } << 1 << "no configurable node";
        QTest::newRow("too many configs")
            << QStringList { "simulate", "RESNET", "--configs", "2000000000" } << 1 << "ask for fewer";
        QTest::newRow("bad collection") << QStringList { "synth", "--collection", "graph", "-o", "out" } << 2
                                        << "layout or tile";
    }
    void synthAndSimulateBadInput()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, expected);
        const QString plain = path("plain_module.hlo");
        testutil::writeAll(
            plain, "HloModule p\nENTRY e {\n  p = f32[2]{0} parameter(0)\n  ROOT n = f32[2]{0} negate(p)\n}\n");
        const QString resnet = path("resnet_for_limits.hlo");
        if (!QFileInfo::exists(resnet))
            tgraphRun({ "gen-hlo", "--family", "resnet", "--size", "3000", "-o", resnet });
        args.replaceInStrings("PLAIN", plain);
        args.replaceInStrings("RESNET", resnet);
        for (QString& a : args)
            if (a == "out" || a == "x.hlo")
                a = path("bad_out_" + a);
        const auto r = tgraphRun(args);
        QVERIFY2(!r.crashed && r.exitCode == exitCode, qPrintable(QString::number(r.exitCode) + ": " + r.err));
        QVERIFY2(r.err.contains(expected.toUtf8()), r.err.constData());
        QVERIFY(!QFileInfo::exists(path("bad_out_x.hlo")));
    }

private:
    static int QDocumentNodes(const QByteArray& json)
    {
        return QJsonDocument::fromJson(json).object()["nodes"].toInt();
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
