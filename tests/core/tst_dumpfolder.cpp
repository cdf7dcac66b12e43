// SPDX-License-Identifier: Apache-2.0
// XLA dump folders (core/dump, docs/formats.md §17): file names taken apart by the rules of
// XLA's dump naming, folders made here file by file (TPU changelists, timestamps, repeated passes,
// passes without a before_ half, two backends under one id, protobufs, gzip and xz, odd names,
// links, an empty folder, a file for a folder), stages opened and counted, rescans.

#include "testutil.h"

#include "core/dump/decompress.h"
#include "core/dump/dumpfolder.h"
#include "core/dump/dumpindex.h"
#include "core/dump/dumpname.h"
#include "core/dump/dumpstage.h"
#include "core/hlo/hloproto.h"
#include "core/hlo/hlotext.h"
#include "core/synth/hlogen.h"
#include "core/util/error.h"
#include "core/util/terminaltext.h"

#include <QRegularExpression>
#include <QTemporaryDir>

#include <algorithm>
#include <fstream>
#include <lzma.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

using namespace tgraph;

namespace {

// A small module whose sizes are known by reading it: 2 computations, 6 instructions, 1 fusion.
const char* kSmallModule = R"(HloModule small, entry_computation_layout={(f32[4]{0}, f32[4]{0})->f32[4]{0}}

%fused_add (p0: f32[4], p1: f32[4]) -> f32[4] {
  %p0 = f32[4]{0} parameter(0)
  %p1 = f32[4]{0} parameter(1)
  ROOT %sum = f32[4]{0} add(%p0, %p1)
}

ENTRY %main (a: f32[4], b: f32[4]) -> f32[4] {
  %a = f32[4]{0} parameter(0)
  %b = f32[4]{0} parameter(1)
  ROOT %f = f32[4]{0} fusion(%a, %b), kind=kLoop, calls=%fused_add
}
)";

// Sizes of an HLO text module read line by line with regular expressions, not with the project's
// parser: a computation is a line ending in '{' that assigns nothing, an instruction a line
// `[ROOT] NAME = ...`, a fusion an instruction whose opcode is `fusion`.
DumpStageCounts countByLines(const QString& text)
{
    DumpStageCounts c;
    const QRegularExpression instruction(R"(^\s*(ROOT\s+)?%?[\w.\-]+\s*=\s)");
    const QRegularExpression fusion(R"(\sfusion\()");
    for (const QString& line : text.split('\n')) {
        const QString t = line.trimmed();
        if (t.startsWith("HloModule") || t.startsWith("//"))
            continue;
        if (t.endsWith('{') && !t.contains(" = ")) {
            ++c.computations;
        } else if (instruction.match(line).hasMatch()) {
            ++c.instructions;
            c.fusions += fusion.match(line).hasMatch() ? 1 : 0;
        }
    }
    return c;
}

void writeFile(const std::string& path, const std::string& bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    QVERIFY2(out.good(), path.c_str());
}

std::string gzipBytes(const std::string& data)
{
    z_stream zs {};
    deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&zs, uLong(data.size())) + 64, '\0');
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    zs.avail_in = uInt(data.size());
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = uInt(out.size());
    deflate(&zs, Z_FINISH);
    out.resize(zs.total_out);
    deflateEnd(&zs);
    return out;
}

std::string xzBytes(const std::string& data)
{
    std::string out(lzma_stream_buffer_bound(data.size()), '\0');
    size_t pos = 0;
    const lzma_ret rc
        = lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, nullptr, reinterpret_cast<const uint8_t*>(data.data()),
            data.size(), reinterpret_cast<uint8_t*>(out.data()), &pos, out.size());
    if (rc != LZMA_OK)
        qFatal("lzma_easy_buffer_encode failed");
    out.resize(pos);
    return out;
}

// The folder's stage labels of module `m` in order: "before_optimizations", "0003 pipe:a->b", ...
QStringList stageLabels(const DumpModule& m)
{
    QStringList out;
    for (const DumpStage& s : m.stages) {
        QString label = QString::fromStdString(s.stage);
        if (s.kind == DumpStageKind::Pass)
            label = QString("%1 %2:%3->%4")
                        .arg(s.index, 4, 10, QChar('0'))
                        .arg(QString::fromStdString(s.pipeline), QString::fromStdString(s.pass),
                            QString::fromStdString(s.nextPass));
        else if (s.kind == DumpStageKind::DuringPass)
            label = QString("%1 %2/%3")
                        .arg(s.index, 4, 10, QChar('0'))
                        .arg(QString::fromStdString(s.pass), QString::fromStdString(s.step));
        out << label;
    }
    return out;
}

const DumpModule* findModule(const DumpIndex& index, int64_t id, const std::string& name)
{
    for (const DumpModule& m : index.modules)
        if (m.id == id && m.name == name)
            return &m;
    return nullptr;
}

const DumpOther* findOther(const DumpIndex& index, const std::string& name)
{
    for (const DumpOther& o : index.others)
        if (o.entry.name == name)
            return &o;
    return nullptr;
}

QStringList fileNames(const DumpIndex& index, const std::vector<size_t>& files)
{
    QStringList out;
    for (size_t k : files)
        out << QString::fromStdString(index.files[k].entry.name);
    return out;
}

} // namespace

class TestDumpFolder : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parsesNames_data();
    void parsesNames();
    void refusesNamesThatAreNoDumpFiles();
    void settlesGuessedNamesWithTheModulesNames();
    void groupsTpuFolderWithChangelists();
    void groupsTimestampedFilesAndNamelessOnes();
    void keepsRepeatedPassesByTheirCounter();
    void tellsTwoBackendsUnderOneIdApart();
    void opensTextProtoGzipAndXzStages();
    void refusesDamagedCompressedStages();
    void keepsOddNamesAndEscapesThemInErrors();
    void tellsUtf8NamesFromOthers();
    void doesNotFollowLinksOutOfTheFolder();
    void listsEmptyFolderAndRefusesAFile();
    void rescanSaysWhatChanged();
    void realFolderIndexCoversEveryFile();
};

void TestDumpFolder::parsesNames_data()
{
    // name | id | module name | kind | stage kind | index | pipeline | pass | next | step | backend | extra
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("id");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("stageKind");
    QTest::addColumn<int>("index");
    QTest::addColumn<QString>("pipeline");
    QTest::addColumn<QString>("pass");
    QTest::addColumn<QString>("next");
    QTest::addColumn<QString>("step");
    QTest::addColumn<QString>("backend");
    QTest::addColumn<QString>("extra"); // timestamp=, cl=, prefix=, gz, xz, artifact=

    auto row = [](const char* tag, const char* file, int id, const char* name, const char* kind, const char* stageKind,
                   int index, const char* pipeline, const char* pass, const char* next, const char* step,
                   const char* backend, const char* extra) {
        QTest::newRow(tag) << file << id << name << kind << stageKind << index << pipeline << pass << next << step
                           << backend << extra;
    };
    row("before", "module_0000.jit_prim_fun.0.before_optimizations.txt", 0, "jit_prim_fun.0", "hlo-text",
        "before_optimizations", -1, "", "", "", "", "", "");
    row("cuda after", "module_0000.jit_prim_fun.0.sm_7.0_gpu_after_optimizations.txt", 0, "jit_prim_fun.0", "hlo-text",
        "after_optimizations", -1, "", "", "", "", "sm_7.0_gpu", "");
    row("cuda buffer assignment",
        "module_0096.func_shard_parallel__2.68.sm_8.6_gpu_after_optimizations-buffer-assignment.txt", 96,
        "func_shard_parallel__2.68", "buffer-assignment", "after_optimizations", -1, "", "", "", "", "sm_8.6_gpu", "");
    row("cuda feature suffix", "module_0001.f.sm_9.0a_gpu_after_optimizations.txt", 1, "f", "hlo-text",
        "after_optimizations", -1, "", "", "", "", "sm_9.0a_gpu", "");
    row("rocm", "module_0001.jit_g.gfx90a_gpu_after_optimizations.txt", 1, "jit_g", "hlo-text", "after_optimizations",
        -1, "", "", "", "", "gfx90a_gpu", "");
    row("cpu memory report", "module_0007.jit_h.cpu_after_optimizations-memory-usage-report.txt", 7, "jit_h",
        "memory-usage-report", "after_optimizations", -1, "", "", "", "", "cpu", "");
    row("pass", "module_0096.func_shard_parallel__2.68.0012.fusion.after_fusion.before_fusion.txt", 96,
        "func_shard_parallel__2.68", "hlo-text", "pass", 12, "fusion", "fusion", "fusion", "", "", "");
    row("pass after a numbered name", "module_0005.jit_f.1234.0003.simplification.after_a.before_b.txt", 5,
        "jit_f.1234", "hlo-text", "pass", 3, "simplification", "a", "b", "", "", "");
    row("five-digit counter", "module_0005.jit_f.12345.layout.after_x.before_y.txt", 5, "jit_f", "hlo-text", "pass",
        12345, "layout", "x", "y", "", "", "");
    row("during pass", "module_0000.f.0017.copy-insertion.after_adding_copies_to_resolve_interference.txt", 0, "f",
        "hlo-text", "during_pass", 17, "", "copy-insertion", "", "after_adding_copies_to_resolve_interference", "", "");
    row("named stage", "module_0002.add_one_shard_parallel.7.before_run_auto_sharding.txt", 2,
        "add_one_shard_parallel.7", "hlo-text", "named", -1, "", "", "", "", "", "");
    row("tpu after buffer assignment",
        "module_0042.jit_step.cl_612345678.after_optimizations_after_buffer_assignment.txt", 42, "jit_step", "hlo-text",
        "after_optimizations_after_buffer_assignment", -1, "", "", "", "", "", "cl=612345678");
    row("tpu before buffer assignment",
        "module_0042.jit_step.cl_612345678.after_optimizations_before_buffer_assignment.txt", 42, "jit_step",
        "hlo-text", "after_optimizations_before_buffer_assignment", -1, "", "", "", "", "", "cl=612345678");
    row("tpu pass",
        "module_0042.jit_step.cl_612345678.0007.spmd.after_sharding-propagation.before_spmd-partitioning.txt", 42,
        "jit_step", "hlo-text", "pass", 7, "spmd", "sharding-propagation", "spmd-partitioning", "", "", "cl=612345678");
    row("timestamp", "1700000000123456.module_0003.jit_f.before_optimizations.txt", 3, "jit_f", "hlo-text",
        "before_optimizations", -1, "", "", "", "", "", "timestamp=1700000000123456");
    row("proto", "module_0003.jit_f.before_optimizations.hlo.pb", 3, "jit_f", "hlo-proto", "before_optimizations", -1,
        "", "", "", "", "", "");
    row("proto gz", "module_0003.jit_f.cpu_after_optimizations.hlo.pb.gz", 3, "jit_f", "hlo-proto",
        "after_optimizations", -1, "", "", "", "", "cpu", "gz");
    row("proto xz", "module_0003.jit_f.0001.p.after_a.before_b.hlo.pb.xz", 3, "jit_f", "hlo-proto", "pass", 1, "p", "a",
        "b", "", "", "xz");
    row("memory report proto", "module_0003.jit_f.cpu_after_optimizations-memory-usage-report.pb.gz", 3, "jit_f",
        "memory-usage-report", "after_optimizations", -1, "", "", "", "", "cpu", "gz");
    row("dot", "module_0003.jit_f.before_optimizations.dot", 3, "jit_f", "dot", "before_optimizations", -1, "", "", "",
        "", "", "");
    row("top level html", "module_0003.jit_f.cpu_after_optimizations.top_level.html", 3, "jit_f", "html",
        "after_optimizations", -1, "", "", "", "", "cpu", "");
    row("nameless pass", "module_0003.0005.pipe.after_a.before_b.txt", 3, "", "hlo-text", "pass", 5, "pipe", "a", "b",
        "", "", "");
    row("nameless after", "module_0003.sm_8.0_gpu_after_optimizations.txt", 3, "", "hlo-text", "after_optimizations",
        -1, "", "", "", "", "sm_8.0_gpu", "");
    row("llvm ir", "module_0000.jit_prim_fun.0.ir-with-opt.0-noconst.ll", 0, "jit_prim_fun.0", "llvm-ir", "", -1, "",
        "", "", "", "", "artifact=ir-with-opt.0-noconst.ll");
    row("lmhlo", "lmhlo.module_0000.jit_prim_fun.0.mlir", 0, "jit_prim_fun.0", "mlir", "", -1, "", "", "", "", "",
        "prefix=lmhlo");
    row("thunk schedule", "module_0000.jit_prim_fun.0.thunk_schedule", 0, "jit_prim_fun.0", "thunk-schedule", "", -1,
        "", "", "", "", "", "artifact=thunk_schedule");
    row("metadata", "module_0001.metadata.textproto", 1, "", "metadata", "", -1, "", "", "", "", "", "");
    row("snapshot", "1700000000.module_0001.jit_f.execution_0000.hlo_snapshot.pb", 1, "jit_f", "snapshot", "", -1, "",
        "", "", "", "", "timestamp=1700000000;artifact=execution_0000.hlo_snapshot.pb");
    row("fusion html", "fused_computation.1.module_0001.jit_f._fusion.html", 1, "jit_f", "fusion-html", "", -1, "", "",
        "", "", "", "prefix=fused_computation.1");
    row("execution options", "1700000000.module_0001.jit_f.execution_options.txt", 1, "jit_f", "execution-options", "",
        -1, "", "", "", "", "", "timestamp=1700000000;artifact=execution_options.txt");
    row("debug options", "module_0001.jit_f.debug_options", 1, "jit_f", "debug-options", "", -1, "", "", "", "", "",
        "");
    row("config", "module_0001.jit_f.config.pbtxt", 1, "jit_f", "config", "", -1, "", "", "", "", "", "");
    row("other artifact", "module_0001.jit_f.cubin", 1, "jit_f", "other", "", -1, "", "", "", "", "", "");
}

void TestDumpFolder::parsesNames()
{
    QFETCH(QString, file);
    QFETCH(int, id);
    QFETCH(QString, name);
    QFETCH(QString, kind);
    QFETCH(QString, stageKind);
    QFETCH(int, index);
    QFETCH(QString, pipeline);
    QFETCH(QString, pass);
    QFETCH(QString, next);
    QFETCH(QString, step);
    QFETCH(QString, backend);
    QFETCH(QString, extra);
    const auto n = parseDumpFileName(file.toStdString());
    QVERIFY2(n, qPrintable(file));
    QCOMPARE(n->moduleId, int64_t(id));
    QCOMPARE(QString::fromStdString(n->moduleName), name);
    QCOMPARE(QString(dumpFileKindName(n->kind)), kind);
    QCOMPARE(n->isStageFile(), !stageKind.isEmpty());
    if (n->isStageFile()) {
        QCOMPARE(QString(dumpStageKindName(n->stageKind)), stageKind);
        QCOMPARE(n->stageIndex, int64_t(index));
        QCOMPARE(QString::fromStdString(n->pipeline), pipeline);
        QCOMPARE(QString::fromStdString(n->pass), pass);
        QCOMPARE(QString::fromStdString(n->nextPass), next);
        QCOMPARE(QString::fromStdString(n->step), step);
        QCOMPARE(QString::fromStdString(n->backend), backend);
        // The stage as written is part of the name.
        QVERIFY(!n->stage.empty());
        QVERIFY2(file.contains(QString::fromStdString(n->stage)), n->stage.c_str());
    }
    QMap<QString, QString> facts; // "timestamp=T;cl=C" -> {timestamp: T, cl: C}; "gz" -> {gz: ""}
    for (const QString& part : extra.split(';', Qt::SkipEmptyParts))
        facts[part.section('=', 0, 0)] = part.section('=', 1);
    QCOMPARE(n->timestamp.has_value(), facts.contains("timestamp"));
    if (n->timestamp)
        QCOMPARE(QString::number(*n->timestamp), facts["timestamp"]);
    QCOMPARE(QString::fromStdString(n->changelist), facts.value("cl"));
    if (facts.contains("prefix"))
        QCOMPARE(QString::fromStdString(n->prefix), facts["prefix"]);
    if (facts.contains("artifact"))
        QCOMPARE(QString::fromStdString(n->artifact), facts["artifact"]);
    const DumpCompression compression = facts.contains("gz") ? DumpCompression::Gzip
        : facts.contains("xz")                               ? DumpCompression::Xz
                                                             : DumpCompression::None;
    QCOMPARE(n->compression, compression);
}

void TestDumpFolder::refusesNamesThatAreNoDumpFiles()
{
    for (const char* name :
        { "README.md", "module_.txt", "module_12", "module_0001.", "xmodule_0001.f.before_optimizations.txt",
            "notes_module_0001.f.txt", ".module_0001.f.before_optimizations.txt", "module_abc.f.txt", "",
            "module_1234567890123456789.f.before_optimizations.txt" })
        QVERIFY2(!parseDumpFileName(name), name);
    QVERIFY(!parseDumpFileName(std::string(kDumpFileNameMaxBytes + 1, 'a')));
    // A name of any length is taken apart without trouble (the fuzz target covers bytes).
    const std::string longName = "module_0001." + std::string(3000, 'x') + ".0001.p.after_a.before_b.txt";
    const auto n = parseDumpFileName(longName);
    QVERIFY(n);
    QCOMPARE(n->stageIndex, int64_t(1));
    QCOMPARE(n->moduleName.size(), size_t(3000));
}

void TestDumpFolder::settlesGuessedNamesWithTheModulesNames()
{
    auto ptx = parseDumpFileName("module_0000.jit_prim_fun.0.0.ptx");
    QVERIFY(ptx);
    QVERIFY(!ptx->nameCertain); // "jit_prim_fun.0" + "0.ptx", or "jit_prim_fun.0.0" + "ptx"?
    const std::vector<std::string> known = { "jit_prim", "jit_prim_fun.0" };
    QVERIFY(resolveDumpFileName(*ptx, known));
    QCOMPARE(ptx->moduleName, std::string("jit_prim_fun.0")); // the longest that fits
    QCOMPARE(ptx->artifact, std::string("0.ptx"));
    QVERIFY(ptx->nameCertain);
    // A name given for certain is never re-split.
    auto ll = parseDumpFileName("module_0000.jit_prim_fun.0.ir-no-opt.ll");
    QVERIFY(ll && ll->nameCertain);
    QVERIFY(!resolveDumpFileName(*ll, known));
    // In a folder, the PTX joins the module its stage files name.
    const DumpIndex index = buildDumpIndex("/d",
        { { "module_0000.jit_prim_fun.0.before_optimizations.txt" }, { "module_0000.jit_prim_fun.0.1.ptx" },
            { "lmhlo.module_0000.jit_prim_fun.0.mlir" } });
    QCOMPARE(index.modules.size(), size_t(1));
    QCOMPARE(index.modules[0].artifacts.size(), size_t(2));
    QCOMPARE(index.modules[0].backend, std::string("gpu")); // PTX, and no after_optimizations
}

void TestDumpFolder::groupsTpuFolderWithChangelists()
{
    const std::string cl = ".cl_612345678.";
    std::vector<DumpEntry> entries;
    for (const std::string suffix : { "before_optimizations.txt", "0000.spmd.after_pipeline-start.before_sharding.txt",
             "0001.spmd.after_sharding.before_pipeline-end.txt", "after_optimizations_before_buffer_assignment.txt",
             "after_optimizations_after_buffer_assignment.txt", "after_optimizations-buffer-assignment.txt",
             "after_optimizations_after_buffer_assignment-memory-usage-report.txt", "debug_options" })
        entries.push_back({ "module_0042.jit_train_step" + cl + suffix });
    entries.push_back({ "module_0042.metadata.textproto" });
    const DumpIndex index = buildDumpIndex("/tpu", entries);
    QCOMPARE(index.modules.size(), size_t(1));
    const DumpModule& m = index.modules[0];
    QCOMPARE(m.name, std::string("jit_train_step"));
    QCOMPARE(m.changelist, std::string("612345678"));
    QCOMPARE(m.backend, std::string("tpu"));
    QCOMPARE(stageLabels(m),
        QStringList({ "before_optimizations", "0000 spmd:pipeline-start->sharding", "0001 spmd:sharding->pipeline-end",
            "after_optimizations_before_buffer_assignment", "after_optimizations",
            "after_optimizations_after_buffer_assignment" }));
    // after_optimizations has only its buffer assignment: a stage without an HLO file.
    QVERIFY(m.stages[4].hloFiles.empty());
    QCOMPARE(m.stages[4].attachments.size(), size_t(1));
    QCOMPARE(m.stages[5].attachments.size(), size_t(1)); // its memory usage report
    QCOMPARE(m.artifacts.size(), size_t(2)); // debug options, and the nameless metadata
    QVERIFY(index.others.empty());
}

void TestDumpFolder::groupsTimestampedFilesAndNamelessOnes()
{
    // Two runs into one folder with --xla_dump_include_timestamp: the same id and name twice.
    const DumpIndex index = buildDumpIndex("/ts",
        { { "1700000000000001.module_0001.jit_f.before_optimizations.txt" },
            { "1700000000000001.module_0001.jit_f.cpu_after_optimizations.txt" },
            { "1700000000000099.module_0001.jit_f.before_optimizations.txt" },
            { "module_0001.jit_f.debug_options" }, // no timestamp, two candidates: its own module
            { "1700000000000007.module_0002.jit_g.before_optimizations.txt" },
            { "module_0002.jit_g.debug_options" }, // joins the one timestamped jit_g
            { "module_0003.jit_h.before_optimizations.txt" },
            { "module_0003.0004.pipe.after_a.before_b.txt" } }); // no name: joins jit_h, the one name of id 3
    QCOMPARE(index.modules.size(), size_t(5));
    QCOMPARE(index.modules[0].timestamp.has_value(), false); // id 1 without timestamp first
    QCOMPARE(index.modules[0].artifacts.size(), size_t(1));
    QCOMPARE(index.modules[1].timestamp.value(), uint64_t(1700000000000001));
    QCOMPARE(stageLabels(index.modules[1]), QStringList({ "before_optimizations", "cpu_after_optimizations" }));
    QCOMPARE(index.modules[1].backend, std::string("cpu"));
    QCOMPARE(index.modules[2].timestamp.value(), uint64_t(1700000000000099));
    QCOMPARE(index.modules[3].name, std::string("jit_g"));
    QCOMPARE(index.modules[3].artifacts.size(), size_t(1));
    const DumpModule* h = findModule(index, 3, "jit_h");
    QVERIFY(h);
    QCOMPARE(stageLabels(*h), QStringList({ "before_optimizations", "0004 pipe:a->b" }));
}

void TestDumpFolder::keepsRepeatedPassesByTheirCounter()
{
    // Pass names repeat (a pipeline runs fixed-point); passes without a before_ half are dumps made
    // during a pass; a framework's own stage names.
    const std::string m = "module_0003.add_one.7.";
    std::vector<DumpEntry> entries;
    for (const std::string s : { "0010.simp.after_algsimp.before_dce.txt", "0002.simp.after_algsimp.before_dce.txt",
             "0011.simp.after_dce.before_algsimp.txt", "0003.simp.after_dce.before_algsimp.txt",
             "0012.copy-insertion.after_adding_copies_to_resolve_interference.txt",
             "0013.loop-schedule-linearizer.after_inserting_control_edges.txt", "sm_7.0_gpu_after_optimizations.txt",
             "before_optimizations.txt", "before_run_auto_sharding.txt", "after_my_export.txt",
             "0001.simp.after_pipeline-start.before_algsimp.txt" })
        entries.push_back({ m + s });
    const DumpIndex index = buildDumpIndex("/rep", entries);
    QCOMPARE(index.modules.size(), size_t(1));
    QCOMPARE(stageLabels(index.modules[0]),
        QStringList({ "before_optimizations", "before_run_auto_sharding", "0001 simp:pipeline-start->algsimp",
            "0002 simp:algsimp->dce", "0003 simp:dce->algsimp", "0010 simp:algsimp->dce", "0011 simp:dce->algsimp",
            "0012 copy-insertion/after_adding_copies_to_resolve_interference",
            "0013 loop-schedule-linearizer/after_inserting_control_edges", "sm_7.0_gpu_after_optimizations",
            "after_my_export" }));
}

void TestDumpFolder::tellsTwoBackendsUnderOneIdApart()
{
    // A CPU and a GPU client in one process number their modules separately: id 1 twice.
    const DumpIndex index = buildDumpIndex("/two",
        { { "module_0001.jit_f.before_optimizations.txt" }, { "module_0001.jit_f.cpu_after_optimizations.txt" },
            { "module_0001.jit_g.before_optimizations.txt" },
            { "module_0001.jit_g.sm_8.0_gpu_after_optimizations.txt" }, { "module_0001.jit_g.0.ptx" },
            { "module_0001.jit_f.ir-no-opt.ll" }, { "module_0002.jit_f.before_optimizations.txt" } });
    QCOMPARE(index.modules.size(), size_t(3));
    const DumpModule* f = findModule(index, 1, "jit_f");
    const DumpModule* g = findModule(index, 1, "jit_g");
    QVERIFY(f && g);
    QCOMPARE(f->backend, std::string("cpu"));
    QCOMPARE(g->backend, std::string("sm_8.0_gpu"));
    QCOMPARE(fileNames(index, f->artifacts), QStringList({ "module_0001.jit_f.ir-no-opt.ll" }));
    QCOMPARE(fileNames(index, g->artifacts), QStringList({ "module_0001.jit_g.0.ptx" }));
    // The same function compiled again under another id is another module.
    QVERIFY(findModule(index, 2, "jit_f"));
}

void TestDumpFolder::opensTextProtoGzipAndXzStages()
{
    QTemporaryDir tmp;
    const std::string dir = testutil::str(tmp.path());
    HloGenSpec spec;
    spec.family = "mlp"; // with fusions
    spec.instructions = 300;
    const std::string generated = generateHloText(spec);
    const std::string p = dir + "/module_0005.jit_model.";
    writeFile(p + "before_optimizations.txt", kSmallModule);
    writeFile(p + "0001.fusion.after_a.before_b.txt", generated);
    writeFile(
        p + "0002.fusion.after_b.before_c.hlo.pb.gz", gzipBytes(encodeHloModuleProto(parseHloText(generated, "g"))));
    writeFile(p + "0003.fusion.after_c.before_d.txt.xz", xzBytes(generated));
    writeFile(p + "cpu_after_optimizations.hlo.pb", encodeHloModuleProto(parseHloText(kSmallModule, "s")));
    writeFile(p + "cpu_after_optimizations.txt.gz", gzipBytes(kSmallModule) + gzipBytes("")); // two gzip members
    const DumpIndex index = indexDumpFolder(dir);
    QCOMPARE(index.modules.size(), size_t(1));
    const DumpModule& m = index.modules[0];
    QCOMPARE(m.stages.size(), size_t(5));
    const DumpStageCounts small = countByLines(kSmallModule);
    const DumpStageCounts big = countByLines(QString::fromStdString(generated));
    QCOMPARE(small.instructions, int64_t(6));
    QCOMPARE(small.computations, int64_t(2));
    QCOMPARE(small.fusions, int64_t(1));
    QVERIFY(big.fusions > 0 && big.computations > 2);
    const DumpStageCounts expected[] = { small, big, big, big, small };
    for (size_t k = 0; k < m.stages.size(); ++k) {
        const DumpStageCounts c = countDumpStage(index, m.stages[k]);
        QCOMPARE(c.instructions, expected[k].instructions);
        QCOMPARE(c.computations, expected[k].computations);
        QCOMPARE(c.fusions, expected[k].fusions);
    }
    // Text before protobuf, uncompressed before compressed.
    QCOMPARE(fileNames(index, m.stages[4].hloFiles),
        QStringList({ "module_0005.jit_model.cpu_after_optimizations.txt.gz",
            "module_0005.jit_model.cpu_after_optimizations.hlo.pb" }));
    QCOMPARE(readDumpFile(index, m.stages[4].hloFiles[0]), std::string(kSmallModule));
}

void TestDumpFolder::refusesDamagedCompressedStages()
{
    QTemporaryDir tmp;
    const std::string dir = testutil::str(tmp.path());
    const std::string gz = gzipBytes(kSmallModule);
    const std::string xz = xzBytes(kSmallModule);
    std::string flipped = gz;
    flipped[flipped.size() / 2] = char(flipped[flipped.size() / 2] ^ 0x5a);
    writeFile(dir + "/module_0001.a.before_optimizations.txt.gz", gz.substr(0, gz.size() - 9));
    writeFile(dir + "/module_0002.b.before_optimizations.txt.gz", flipped);
    writeFile(dir + "/module_0003.c.before_optimizations.txt.xz", xz.substr(0, xz.size() / 2));
    writeFile(dir + "/module_0004.d.before_optimizations.txt.gz", "plain text, no gzip");
    writeFile(dir + "/module_0005.e.before_optimizations.txt.gz", gz + "trailing");
    writeFile(dir + "/module_0006.f.before_optimizations.txt", "not HLO at all\n");
    writeFile(dir + "/module_0007.g.before_optimizations.txt", "");
    const DumpIndex index = indexDumpFolder(dir);
    QCOMPARE(index.modules.size(), size_t(7));
    const QStringList problems = { "truncated", "damaged gzip data", "truncated", "not gzip data",
        "not another gzip member", "neither HLO text nor an HLO protobuf", "empty file" };
    for (size_t k = 0; k < index.modules.size(); ++k)
        testutil::expectInputError([&] { openDumpStage(index, index.modules[k].stages[0]); },
            { QString::fromStdString(index.files[index.modules[k].stages[0].hloFiles[0]].entry.name),
                problems[int(k)] });
    // Decompressing to more than allowed is refused, not allocated.
    testutil::expectInputError([&] { gunzip(gzipBytes(std::string(100000, 'a')), "big.gz", 1000); },
        { "big.gz", "decompresses to more than" });
    testutil::expectInputError(
        [&] { unxz(xzBytes(std::string(100000, 'a')), "big.xz", 1000); }, { "big.xz", "decompresses to more than" });
    QCOMPARE(unxz(xzBytes("abc") + xzBytes("def"), "two.xz", 100), std::string("abcdef")); // concatenated streams
}

void TestDumpFolder::keepsOddNamesAndEscapesThemInErrors()
{
    QTemporaryDir tmp;
    const std::string dir = testutil::str(tmp.path());
    const std::string spaced = "module_0001.my model.before_optimizations.txt";
    const std::string newline = "module_0002.two\nlines.before_optimizations.txt";
    const std::string latin1 = std::string("module_0003.caf") + char(0xe9) + ".before_optimizations.txt";
    const std::string broken = "module_0004.bad\x01name.before_optimizations.txt";
    writeFile(dir + "/" + spaced, kSmallModule);
    writeFile(dir + "/" + newline, kSmallModule);
    writeFile(dir + "/" + latin1, kSmallModule);
    writeFile(dir + "/" + broken, "garbage");
    writeFile(dir + "/notes\nabout it.txt", "x");
    const DumpIndex index = indexDumpFolder(dir);
    QCOMPARE(index.modules.size(), size_t(4));
    QVERIFY(findModule(index, 1, "my model"));
    QVERIFY(findModule(index, 2, "two\nlines"));
    QVERIFY(findModule(index, 3, std::string("caf") + char(0xe9)));
    for (int id = 1; id <= 3; ++id) // the names are kept as they are: the files open
        QCOMPARE(countDumpStage(index, index.modules[size_t(id - 1)].stages[0]).fusions, int64_t(1));
    // The error names the file escaped, on one line.
    testutil::expectInputError([&] { openDumpStage(index, index.modules[3].stages[0]); },
        { "module_0004.bad\\x01name.before_optimizations.txt" });
    QVERIFY(findOther(index, "notes\nabout it.txt"));
    // QTemporaryDir cannot remove names that are not in the locale's encoding.
    for (const std::string& name : { spaced, newline, latin1, broken, std::string("notes\nabout it.txt") })
        QVERIFY(::unlink((dir + "/" + name).c_str()) == 0);
}

// `tgraph dump list --json` gives a name as it is when it is UTF-8, else escaped (core/util's
// isValidUtf8, shared with the protobuf reader's check of module names).
void TestDumpFolder::tellsUtf8NamesFromOthers()
{
    for (const char* ok : { "", "jit_f.0", "caf\xc3\xa9", "\xe6\x97\xa5\xe6\x9c\xac", "\xf0\x9f\x98\x80", "two\nlines" })
        QVERIFY2(isValidUtf8(ok), ok);
    for (const char* bad : { "\xff", "caf\xe9", "\xc3", "\x80", "\xed\xa0\x80", "\xc0\xaf", "\xe0\x80\xaf",
             "\xf4\x90\x80\x80", "\xf0\x9f\x98" })
        QVERIFY2(!isValidUtf8(bad), qPrintable(QString::fromStdString(terminalText(bad))));
}

void TestDumpFolder::doesNotFollowLinksOutOfTheFolder()
{
    QTemporaryDir tmp;
    const std::string root = testutil::str(tmp.path());
    const std::string dir = root + "/dump";
    QVERIFY(::mkdir(dir.c_str(), 0755) == 0);
    QVERIFY(::mkdir((dir + "/rank1").c_str(), 0755) == 0);
    writeFile(root + "/outside.txt", kSmallModule);
    writeFile(dir + "/module_0001.f.before_optimizations.txt", kSmallModule);
    QVERIFY(::symlink((root + "/outside.txt").c_str(), (dir + "/module_0002.g.before_optimizations.txt").c_str()) == 0);
    QVERIFY(::symlink("../outside.txt", (dir + "/module_0003.h.before_optimizations.txt").c_str()) == 0);
    QVERIFY(
        ::symlink("module_0001.f.before_optimizations.txt", (dir + "/module_0004.i.before_optimizations.txt").c_str())
        == 0);
    QVERIFY(::symlink("nowhere.txt", (dir + "/module_0005.j.before_optimizations.txt").c_str()) == 0);
    QVERIFY(::symlink("..", (dir + "/up").c_str()) == 0);
    QVERIFY(::mkfifo((dir + "/module_0006.k.before_optimizations.txt").c_str(), 0600) == 0);
    const DumpIndex index = indexDumpFolder(dir);
    // Only the file and the link that stays inside are modules.
    QCOMPARE(index.modules.size(), size_t(2));
    QVERIFY(findModule(index, 1, "f"));
    const DumpModule* inside = findModule(index, 4, "i");
    QVERIFY(inside);
    QCOMPARE(index.files[inside->stages[0].hloFiles[0]].entry.type, DumpEntry::Type::LinkInside);
    QCOMPARE(countDumpStage(index, inside->stages[0]).instructions, int64_t(6));
    QCOMPARE(findOther(index, "module_0002.g.before_optimizations.txt")->entry.type, DumpEntry::Type::LinkOutside);
    QCOMPARE(findOther(index, "module_0003.h.before_optimizations.txt")->entry.type, DumpEntry::Type::LinkOutside);
    QCOMPARE(findOther(index, "module_0005.j.before_optimizations.txt")->entry.type, DumpEntry::Type::LinkBroken);
    QCOMPARE(findOther(index, "module_0006.k.before_optimizations.txt")->entry.type, DumpEntry::Type::Special);
    QCOMPARE(findOther(index, "rank1")->entry.type, DumpEntry::Type::Folder);
    QCOMPARE(findOther(index, "up")->entry.type, DumpEntry::Type::LinkOutside);
    // A link that turns to lead out after the listing is refused when read; a file replaced by a
    // link is refused too.
    const std::string linkPath = dir + "/module_0004.i.before_optimizations.txt";
    QVERIFY(::unlink(linkPath.c_str()) == 0);
    QVERIFY(::symlink((root + "/outside.txt").c_str(), linkPath.c_str()) == 0);
    testutil::expectInputError([&] { openDumpStage(index, inside->stages[0]); }, { "link out of the folder" });
    const DumpModule* f = findModule(index, 1, "f");
    const std::string filePath = dir + "/module_0001.f.before_optimizations.txt";
    QVERIFY(::unlink(filePath.c_str()) == 0);
    QVERIFY(::symlink((root + "/outside.txt").c_str(), filePath.c_str()) == 0);
    testutil::expectInputError([&] { openDumpStage(index, f->stages[0]); }, { "became a link" });
}

void TestDumpFolder::listsEmptyFolderAndRefusesAFile()
{
    QTemporaryDir tmp;
    const std::string dir = testutil::str(tmp.path());
    const DumpIndex empty = indexDumpFolder(dir);
    QVERIFY(empty.modules.empty());
    QVERIFY(empty.others.empty());
    QCOMPARE(empty.entryCount(), size_t(0));
    writeFile(dir + "/module_0001.f.before_optimizations.txt", kSmallModule);
    testutil::expectInputError(
        [&] { indexDumpFolder(dir + "/module_0001.f.before_optimizations.txt"); }, { "module_0001.f", "not a folder" });
    testutil::expectInputError([&] { indexDumpFolder(dir + "/missing"); }, { "missing", "no such folder" });
}

void TestDumpFolder::rescanSaysWhatChanged()
{
    QTemporaryDir tmp;
    const std::string dir = testutil::str(tmp.path());
    const std::string before = "module_0001.f.before_optimizations.txt";
    const std::string pass = "module_0001.f.0000.p.after_a.before_b.txt";
    writeFile(dir + "/" + before, kSmallModule);
    DumpFolder folder(dir);
    DumpChanges c = folder.rescan();
    QCOMPARE(c.added, std::vector<std::string>({ before }));
    QVERIFY(c.removed.empty() && c.changed.empty());
    QVERIFY(!folder.cachedCounts(folder.index().modules[0].stages[0]));
    QCOMPARE(folder.counts(folder.index().modules[0].stages[0]).instructions, int64_t(6));
    QVERIFY(folder.cachedCounts(folder.index().modules[0].stages[0]));
    QVERIFY(folder.rescan().empty());
    QVERIFY(folder.cachedCounts(folder.index().modules[0].stages[0])); // unchanged: still known

    // The program writes on: a new stage appears, the first file is rewritten bigger.
    writeFile(dir + "/" + pass, kSmallModule);
    HloGenSpec spec;
    spec.family = "mlp";
    spec.instructions = 100;
    const std::string bigger = generateHloText(spec);
    writeFile(dir + "/" + before, bigger);
    c = folder.rescan();
    QCOMPARE(c.added, std::vector<std::string>({ pass }));
    QCOMPARE(c.changed, std::vector<std::string>({ before }));
    QCOMPARE(folder.index().modules[0].stages.size(), size_t(2));
    QVERIFY(!folder.cachedCounts(folder.index().modules[0].stages[0]));
    QCOMPARE(folder.counts(folder.index().modules[0].stages[0]).instructions,
        countByLines(QString::fromStdString(bigger)).instructions);

    QVERIFY(::unlink((dir + "/" + pass).c_str()) == 0);
    c = folder.rescan();
    QCOMPARE(c.removed, std::vector<std::string>({ pass }));
    QCOMPARE(folder.index().modules[0].stages.size(), size_t(1));
}

void TestDumpFolder::realFolderIndexCoversEveryFile()
{
    const QString shared = testutil::sharedDataDir();
    if (shared.isEmpty())
        QSKIP("../shared/data is absent (external data)");
    const std::string dir = testutil::str(shared + "/dumps/alpa_gpu_sm70");
    const DumpIndex index = indexDumpFolder(dir);
    // Every file is in exactly one place: a stage's HLO file or attachment, or a module's artifact.
    std::vector<int> seen(index.files.size(), 0);
    for (const DumpModule& m : index.modules) {
        for (const DumpStage& s : m.stages) {
            for (size_t k : s.hloFiles)
                ++seen[k];
            for (size_t k : s.attachments)
                ++seen[k];
        }
        for (size_t k : m.artifacts)
            ++seen[k];
    }
    QVERIFY(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
    QVERIFY(index.others.empty());
    QCOMPARE(index.files.size(), size_t(QDir(shared + "/dumps/alpa_gpu_sm70").entryList(QDir::Files).size()));
    // Each module's files carry its id and name, and each stage's HLO file parses.
    size_t parsed = 0;
    for (const DumpModule& m : index.modules)
        for (const DumpStage& s : m.stages) {
            QVERIFY(!s.hloFiles.empty());
            const std::string& file = index.files[s.hloFiles[0]].entry.name;
            char id[16];
            std::snprintf(id, sizeof id, "module_%04d.", int(m.id));
            QVERIFY2(file.starts_with(std::string(id) + m.name + "."), file.c_str());
            if (parsed++ % 50 == 0) // a sample: `tgraph dump list --counts` parses them all (tst_dumpcli)
                QVERIFY(countDumpStage(index, s).instructions > 0);
        }
}

QTEST_GUILESS_MAIN(TestDumpFolder)
#include "tst_dumpfolder.moc"
