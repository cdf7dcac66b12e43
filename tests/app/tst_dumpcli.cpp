// SPDX-License-Identifier: Apache-2.0
// `tgraph dump list` (docs/formats.md §17.5) through the real executable: the real dump folder
// against its file names read by an independent script (tests/tools/dump_names.py), folders made
// here, --counts, exit codes, and `tgraph inspect DIR` pointing at it.

#include "testutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <fstream>
#include <unistd.h>

namespace {

testutil::ProcessResult runTgraph(const QStringList& args)
{
    return testutil::run(testutil::binDir() + "/tgraph", args);
}

QJsonObject parseObject(const QByteArray& bytes)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError)
        qWarning("%s in: %s", qPrintable(error.errorString()), bytes.left(400).constData());
    return doc.object();
}

void writeFile(const QString& path, const QByteArray& bytes) { testutil::writeAll(path, bytes); }

const char* kModule = R"(HloModule m

%fused (p0: f32[8], p1: f32[8]) -> f32[8] {
  %p0 = f32[8]{0} parameter(0)
  %p1 = f32[8]{0} parameter(1)
  ROOT %mul = f32[8]{0} multiply(%p0, %p1)
}

ENTRY %main (a: f32[8], b: f32[8]) -> f32[8] {
  %a = f32[8]{0} parameter(0)
  %b = f32[8]{0} parameter(1)
  %f = f32[8]{0} fusion(%a, %b), kind=kLoop, calls=%fused
  ROOT %n = f32[8]{0} negate(%f)
}
)";

// The listing's stages of one module as comparable strings.
QStringList stageRows(const QJsonArray& stages)
{
    QStringList rows;
    for (const QJsonValue& v : stages) {
        const QJsonObject s = v.toObject();
        rows << QStringList(
            { s["index"].isNull() ? "-" : QString::number(s["index"].toInt()), s["pipeline"].toString(),
                s["pass"].toString(), s["next"].toString(), s["step"].toString(), s["file"].toString() })
                    .join('|');
    }
    return rows;
}

QStringList strings(const QJsonArray& files, const char* member = nullptr)
{
    QStringList out;
    for (const QJsonValue& v : files)
        out << (member ? v.toObject()[member].toString() : v.toString());
    return out;
}

} // namespace

class TestDumpCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void realFolderListsEveryModuleAndStage();
    void listsFolderMadeHereWithCounts();
    void oddNamesAreShownEscaped();
    void exitCodes();
    void inspectPointsAtDumpList();
};

void TestDumpCli::realFolderListsEveryModuleAndStage()
{
    const QString shared = testutil::sharedDataDir();
    if (shared.isEmpty())
        QSKIP("../shared/data is absent (external data)");
    QString why;
    if (!testutil::havePythonModules({ "json", "re" }, &why))
        QSKIP(qPrintable(why));
    const QString dir = shared + "/dumps/alpa_gpu_sm70";
    const auto listed = runTgraph({ "dump", "list", dir, "--json" });
    QCOMPARE(listed.exitCode, 0);
    const auto expected = testutil::run(testutil::python(), { testutil::toolsDir() + "/dump_names.py", dir });
    QVERIFY2(expected.exitCode == 0, expected.err.constData());
    const QJsonObject got = parseObject(listed.out);
    const QJsonObject want = parseObject(expected.out);
    const QJsonArray gotModules = got["modules"].toArray();
    const QJsonArray wantModules = want["modules"].toArray();
    QCOMPARE(gotModules.size(), wantModules.size());
    QVERIFY(gotModules.size() > 50);
    int stages = 0;
    for (int k = 0; k < wantModules.size(); ++k) {
        const QJsonObject g = gotModules[k].toObject();
        const QJsonObject w = wantModules[k].toObject();
        const QString label = w["name"].toString() + " " + QString::number(w["id"].toInt());
        QCOMPARE(g["id"].toInt(), w["id"].toInt());
        QCOMPARE(g["name"].toString(), w["name"].toString());
        QCOMPARE(g["backend"].toString(), w["backend"].toString());
        QVERIFY2(stageRows(g["stages"].toArray()) == stageRows(w["stages"].toArray()), qPrintable(label));
        QCOMPARE(strings(g["artifacts"].toArray(), "file"), strings(w["artifacts"].toArray()));
        stages += int(w["stages"].toArray().size());
    }
    QCOMPARE(got["summary"].toObject()["stages"].toInt(), stages);
    QCOMPARE(got["summary"].toObject()["files"].toInt(), want["files"].toInt());
    QCOMPARE(got["others"].toArray().size(), 0);

    // --counts parses every stage of the real folder.
    const auto counted = runTgraph({ "dump", "list", dir, "--json", "--counts" });
    QVERIFY2(counted.exitCode == 0, counted.err.constData());
    int parsed = 0;
    for (const QJsonValue& m : parseObject(counted.out)["modules"].toArray())
        for (const QJsonValue& s : m.toObject()["stages"].toArray()) {
            const QJsonObject c = s.toObject()["counts"].toObject();
            QVERIFY(c["instructions"].toInt() > 0 && c["computations"].toInt() > 0);
            ++parsed;
        }
    QCOMPARE(parsed, stages);
}

void TestDumpCli::listsFolderMadeHereWithCounts()
{
    QTemporaryDir tmp;
    const QString dir = tmp.path();
    writeFile(dir + "/module_0004.jit_step.before_optimizations.txt", kModule);
    writeFile(dir + "/module_0004.jit_step.0001.fusion.after_pipeline-start.before_fusion.txt", kModule);
    writeFile(dir + "/module_0004.jit_step.0002.copy-insertion.after_adding_copies.txt", kModule);
    writeFile(dir + "/module_0004.jit_step.cpu_after_optimizations.txt", kModule);
    writeFile(dir + "/module_0004.jit_step.cpu_after_optimizations-buffer-assignment.txt", "allocations");
    writeFile(dir + "/module_0004.jit_step.ir-no-opt.ll", "; llvm");
    writeFile(dir + "/module_0009.broken.before_optimizations.txt", "HloModule broken\nENTRY {\n");
    writeFile(dir + "/notes.txt", "mine");
    const auto r = runTgraph({ "dump", "list", dir, "--json", "--counts" });
    QCOMPARE(r.exitCode, 1); // the broken stage: named on stderr, the listing printed
    QVERIFY2(r.err.contains("module_0009.broken.before_optimizations.txt"), r.err.constData());
    const QJsonObject root = parseObject(r.out);
    const QJsonArray modules = root["modules"].toArray();
    QCOMPARE(modules.size(), 2);
    const QJsonObject m = modules[0].toObject();
    QCOMPARE(m["id"].toInt(), 4);
    QCOMPARE(m["name"].toString(), QString("jit_step"));
    QCOMPARE(m["backend"].toString(), QString("cpu"));
    QCOMPARE(stageRows(m["stages"].toArray()),
        QStringList({ "-|||||module_0004.jit_step.before_optimizations.txt",
            "1|fusion|pipeline-start|fusion||module_0004.jit_step.0001.fusion.after_pipeline-start.before_fusion.txt",
            "2||copy-insertion||after_adding_copies|module_0004.jit_step.0002.copy-insertion.after_adding_copies.txt",
            "-|||||module_0004.jit_step.cpu_after_optimizations.txt" }));
    const QJsonObject after = m["stages"].toArray()[3].toObject();
    QCOMPARE(strings(after["attachments"].toArray(), "kind"), QStringList({ "buffer-assignment" }));
    // The module's sizes as its text says: 2 computations, 7 instructions, 1 fusion.
    for (const QJsonValue& s : m["stages"].toArray()) {
        const QJsonObject c = s.toObject()["counts"].toObject();
        QCOMPARE(c["instructions"].toInt(), 7);
        QCOMPARE(c["computations"].toInt(), 2);
        QCOMPARE(c["fusions"].toInt(), 1);
    }
    QCOMPARE(strings(m["artifacts"].toArray(), "file"), QStringList({ "module_0004.jit_step.ir-no-opt.ll" }));
    const QJsonObject broken = modules[1].toObject()["stages"].toArray()[0].toObject();
    QVERIFY(broken["counts"].isNull());
    QVERIFY(broken["error"].toString().contains("line"));
    QCOMPARE(strings(root["others"].toArray(), "file"), QStringList({ "notes.txt" }));

    // Without --counts nothing is opened: the broken stage is no error.
    const auto plain = runTgraph({ "dump", "list", dir });
    QCOMPARE(plain.exitCode, 0);
    QVERIFY(plain.out.contains("module 0004  jit_step  [cpu]: 4 stages, 1 other file"));
    QVERIFY(plain.out.contains("0002  copy-insertion: after_adding_copies"));
    QVERIFY(plain.out.contains("notes.txt  (not named like an XLA dump file)"));
}

void TestDumpCli::oddNamesAreShownEscaped()
{
    QTemporaryDir tmp;
    const std::string dir = testutil::str(tmp.path());
    const std::string newline = "module_0001.two\nlines.before_optimizations.txt";
    const std::string latin1 = std::string("module_0002.caf") + char(0xe9) + ".before_optimizations.txt";
    const std::string escape = "module_0003.f.\x1b[2J_after_optimizations.txt"; // a backend that clears the screen
    for (const std::string& name : { newline, latin1, escape }) {
        std::ofstream out(dir + "/" + name);
        out << kModule;
    }
    const auto text = runTgraph({ "dump", "list", tmp.path(), "--counts" });
    QCOMPARE(text.exitCode, 0);
    QVERIFY(text.out.contains("module_0001.two\\nlines.before_optimizations.txt"));
    QVERIFY(text.out.contains("module_0002.caf\\xe9.before_optimizations.txt"));
    QVERIFY(!text.out.contains("two\nlines"));
    QVERIFY(!text.out.contains('\x1b'));
    QVERIFY(text.out.contains("[\\e[2J]")); // the backend, escaped
    const auto json = runTgraph({ "dump", "list", tmp.path(), "--json" });
    QCOMPARE(json.exitCode, 0);
    const QJsonArray modules = parseObject(json.out)["modules"].toArray();
    QCOMPARE(modules[0].toObject()["name"].toString(), QString("two\nlines")); // valid UTF-8: as it is
    QCOMPARE(modules[1].toObject()["name"].toString(), QString("caf\\xe9")); // not UTF-8: escaped
    QVERIFY(!json.out.contains('\x1b')); // JSON escapes it itself
    for (const std::string& name : { newline, latin1, escape })
        QVERIFY(::unlink((dir + "/" + name).c_str()) == 0);
}

void TestDumpCli::exitCodes()
{
    QTemporaryDir tmp;
    const auto empty = runTgraph({ "dump", "list", tmp.path() });
    QCOMPARE(empty.exitCode, 0);
    QVERIFY(empty.out.contains("no XLA dump files among 0 entries"));
    const auto emptyJson = runTgraph({ "dump", "list", tmp.path(), "--json" });
    QCOMPARE(emptyJson.exitCode, 0);
    QCOMPARE(parseObject(emptyJson.out)["modules"].toArray().size(), 0);

    writeFile(tmp.path() + "/module_0001.f.before_optimizations.txt", kModule);
    const auto file = runTgraph({ "dump", "list", tmp.path() + "/module_0001.f.before_optimizations.txt" });
    QCOMPARE(file.exitCode, 1);
    QVERIFY2(file.err.contains("not a folder"), file.err.constData());
    const auto missing = runTgraph({ "dump", "list", tmp.path() + "/missing" });
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(missing.err.contains("missing: no such folder"), missing.err.constData());
    QCOMPARE(runTgraph({ "dump" }).exitCode, 2);
    QCOMPARE(runTgraph({ "dump", "show", tmp.path() }).exitCode, 2);
    QCOMPARE(runTgraph({ "dump", "list" }).exitCode, 2);
    QCOMPARE(runTgraph({ "dump", "list", tmp.path(), tmp.path() }).exitCode, 2);
    QCOMPARE(runTgraph({ "dump", "list", tmp.path(), "--bogus" }).exitCode, 2);
    const auto help = runTgraph({ "dump", "list", "--help" });
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.out.contains("--counts") && help.out.contains("Exit codes"));
    QCOMPARE(runTgraph({ "dump", "--help" }).exitCode, 0);
    QVERIFY(runTgraph({ "--help" }).out.contains("dump"));
}

void TestDumpCli::inspectPointsAtDumpList()
{
    QTemporaryDir tmp;
    writeFile(tmp.path() + "/module_0001.f.before_optimizations.txt", kModule);
    writeFile(tmp.path() + "/module_0001.f.cpu_after_optimizations.txt", kModule);
    const auto r = runTgraph({ "inspect", tmp.path() });
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("an XLA dump folder (1 module, 2 HLO stages)"), r.err.constData());
    QVERIFY(r.err.contains("tgraph dump list " + tmp.path().toUtf8()));
    QTemporaryDir plain;
    const auto p = runTgraph({ "inspect", plain.path() });
    QCOMPARE(p.exitCode, 1);
    QVERIFY2(p.err.contains("a folder, not a graph file"), p.err.constData());
    // A stage file of the folder is a module like any other.
    QCOMPARE(runTgraph({ "inspect", tmp.path() + "/module_0001.f.before_optimizations.txt" }).exitCode, 0);
}

QTEST_GUILESS_MAIN(TestDumpCli)
#include "tst_dumpcli.moc"
