// SPDX-License-Identifier: Apache-2.0
// HLO text parser and TpuGraphs featurizer: grammar coverage, the worked feature vectors of docs/formats.md §4.5,
// error cases with line/column, and the real XLA dumps in ../shared/data/hlo.

#include "core/hlo/featurizer.h"
#include "core/hlo/hloinfer.h"
#include "core/hlo/hloproto.h"
#include "core/hlo/hlotext.h"
#include "core/hlo/hlotextwriter.h"
#include "core/hlo/hloverify.h"
#include "core/util/error.h"
#include "hlotextsample.h"
#include "testutil.h"

#include <QtTest>

#include <map>

using namespace tgraph;

namespace {

HloModule parse(const std::string& text, const HloTextOptions& options = {})
{
    return parseHloText(text, "test.hlo", options);
}

const HloInstruction& byName(const HloModule& m, std::string_view name)
{
    for (const auto& i : m.instructions)
        if (i.name == name)
            return i;
    throw std::runtime_error("no instruction " + std::string(name));
}

int64_t position(const HloModule& m, std::string_view name) { return &byName(m, name) - m.instructions.data(); }

std::vector<int64_t> vec(std::span<const int64_t> s) { return { s.begin(), s.end() }; }

std::span<const std::byte> bytesOf(const std::string& s) { return std::as_bytes(std::span(s.data(), s.size())); }

// Parses a one-instruction entry whose last line is `line` (operands are parameters named p0..p3
// of the given shapes), after the computations `called`, and returns the feature row of that instruction.
std::vector<float> featuresOf(
    const std::string& params, const std::string& line, bool repad = false, const std::string& called = {})
{
    const std::string text = "HloModule m\n" + called + "ENTRY e {\n" + params + "\n  ROOT " + line + "\n}\n";
    const HloModule m = parseHloText(text, "t.hlo");
    const NdArray<float> f = featurizeNodes(m, repad);
    const int64_t last = f.dim(0) - 1;
    return std::vector<float>(f.row(last), f.row(last) + kNodeFeatures);
}

void expectFeatures(const std::vector<float>& f, const std::map<int, float>& nonZero)
{
    for (int c = 0; c < kNodeFeatures; ++c) {
        const auto it = nonZero.find(c);
        const float want = it == nonZero.end() ? 0.0f : it->second;
        QVERIFY2(f[size_t(c)] == want,
            qPrintable(QString("column %1: got %2, want %3").arg(c).arg(double(f[size_t(c)])).arg(double(want))));
    }
}

// Products of empty window / slice / padding lists are 1 (docs/formats.md §4.1).
std::map<int, float> withEmptyProducts(std::map<int, float> m, std::initializer_list<int> skip = {})
{
    for (int col : { 44, 52, 60, 68, 76, 84, 112, 116, 120, 124, 128, 132 })
        if (std::find(skip.begin(), skip.end(), col) == skip.end() && !m.count(col))
            m[col] = 1.0f;
    return m;
}

// The names of the instructions `ids` names, in order.
std::vector<std::string> namesOf(const HloModule& m, std::span<const int64_t> ids)
{
    std::vector<std::string> out;
    for (const int64_t id : ids)
        for (const HloInstruction& i : m.instructions)
            if (i.id == id)
                out.emplace_back(i.name);
    return out;
}

// `b` holds what `a` holds, as far as HLO text can carry it: computations, instruction names,
// opcodes, shapes as text, operands and called computations by name, roots, attributes read into
// fields, and every node feature.
void expectSameModule(const HloModule& a, const HloModule& b)
{
    QCOMPARE(b.name, a.name);
    QCOMPARE(b.computations.size(), a.computations.size());
    QCOMPARE(b.entryIndex(), a.entryIndex());
    QCOMPARE(b.instructions.size(), a.instructions.size());
    for (size_t c = 0; c < a.computations.size(); ++c) {
        QCOMPARE(b.computations[c].name, a.computations[c].name);
        QCOMPARE(b.computations[c].instructionCount, a.computations[c].instructionCount);
        QCOMPARE(b.computations[c].executionThread, a.computations[c].executionThread);
        QCOMPARE(namesOf(b, { &b.computations[c].rootId, 1 }), namesOf(a, { &a.computations[c].rootId, 1 }));
    }
    const auto calleeNames = [](const HloModule& m, const HloInstruction& i) {
        std::vector<std::string> out;
        for (const int64_t id : m.span(i.calledComputationIds))
            for (const HloComputation& c : m.computations)
                if (c.id == id)
                    out.emplace_back(c.name);
        return out;
    };
    for (size_t k = 0; k < a.instructions.size(); ++k) {
        const HloInstruction& x = a.instructions[k];
        const HloInstruction& y = b.instructions[k];
        QCOMPARE(y.name, x.name);
        QCOMPARE(y.opcode, x.opcode);
        QCOMPARE(b.shapeToText(y.shape), a.shapeToText(x.shape));
        QCOMPARE(namesOf(b, b.span(y.operandIds)), namesOf(a, a.span(x.operandIds)));
        QCOMPARE(calleeNames(b, y), calleeNames(a, x));
        QCOMPARE(vec(b.span(y.dimensions)), vec(a.span(x.dimensions)));
        QCOMPARE(y.parameterNumber, x.parameterNumber);
        QCOMPARE(y.featureGroupCount, x.featureGroupCount);
        QCOMPARE(y.batchGroupCount, x.batchGroupCount);
        QCOMPARE(y.isStable, x.isStable);
        QCOMPARE(b.opName(k), a.opName(k));
        QCOMPARE(b.opType(k), a.opType(k));
        const HloInstructionDetails& dx = a.detailsOf(x);
        const HloInstructionDetails& dy = b.detailsOf(y);
        QCOMPARE(dy.attributeCount, dx.attributeCount);
        QCOMPARE(dy.dotDims >= 0, dx.dotDims >= 0);
        if (dx.dotDims >= 0)
            QCOMPARE(vec(b.span(b.dotDims[size_t(dy.dotDims)].sparsity)),
                vec(a.span(a.dotDims[size_t(dx.dotDims)].sparsity)));
    }
    const NdArray<float> fa = featurizeNodes(a);
    const NdArray<float> fb = featurizeNodes(b);
    QCOMPARE(fb.dim(0), fa.dim(0));
    for (int64_t n = 0; n < fa.dim(0); ++n)
        for (int c = 0; c < kNodeFeatures; ++c)
            QVERIFY2(fb.row(n)[c] == fa.row(n)[c],
                qPrintable(QString("node %1 (%2), column %3: %4 after the round trip, %5 before")
                               .arg(n)
                               .arg(QString::fromUtf8(
                                   a.instructions[size_t(n)].name.data(), int(a.instructions[size_t(n)].name.size())))
                               .arg(c)
                               .arg(double(fb.row(n)[c]))
                               .arg(double(fa.row(n)[c]))));
}

// read -> write -> read, with and without the attributes kept as text.
void expectTextRoundTrip(const std::string& text)
{
    for (const bool keep : { true, false }) {
        HloTextOptions options;
        options.keepAttributes = keep;
        const HloModule a = parseHloText(text, "a.hlo", options);
        const std::string written = writeHloText(a);
        const HloModule b = parseHloText(written, "b.hlo", options);
        expectSameModule(a, b);
        if (QTest::currentTestFailed()) {
            qWarning("%s", written.c_str());
            return;
        }
        // Written again, the text is the same.
        QCOMPARE(writeHloText(b), written);
    }
}

} // namespace

class TestHloText : public QObject
{
    Q_OBJECT

    // `text` is refused with one line that starts with `prefix` and holds every part of `expected`.
    void expectParseError(const QString& text, const QStringList& expected, const QString& prefix)
    {
        try {
            parse(text.toStdString());
        } catch (const InputError& e) {
            const QString msg = QString::fromStdString(e.what());
            QVERIFY2(msg.startsWith(prefix), qPrintable(msg));
            QVERIFY2(!msg.contains('\n'), qPrintable(msg));
            for (const QString& part : expected)
                QVERIFY2(msg.contains(part), qPrintable("expected '" + part + "' in: " + msg));
            return;
        }
        QFAIL("no error");
    }

private Q_SLOTS:
    void grammarCoverage()
    {
        const HloModule m = parse(kModule);
        QCOMPARE(m.name, std::string_view("test_module"));
        QCOMPARE(m.computations.size(), size_t(7));
        QCOMPARE(m.computations[1].name, std::string_view("cond_computation"));
        QCOMPARE(m.computations[2].executionThread, std::string_view("main"));
        QCOMPARE(m.entryComputationName, std::string_view("main.42"));
        QCOMPARE(m.entryIndex(), int64_t(6));
        // ids are node positions; roots are the ROOT instructions
        for (size_t i = 0; i < m.instructions.size(); ++i)
            QCOMPARE(m.instructions[i].id, int64_t(i));
        QCOMPARE(m.computations[0].rootId, position(m, "sum"));
        // operands resolve within the computation, including old-style printed operand shapes
        QCOMPARE(
            vec(m.span(byName(m, "sum").operandIds)), (std::vector<int64_t> { position(m, "x"), position(m, "y") }));
        QCOMPARE(
            vec(m.span(byName(m, "lt").operandIds)), (std::vector<int64_t> { position(m, "i"), position(m, "limit") }));
        // called computations in XLA's order: while = body, condition; conditional = true, false
        QCOMPARE(vec(m.span(byName(m, "loop").calledComputationIds)), (std::vector<int64_t> { 2, 1 }));
        QCOMPARE(vec(m.span(byName(m, "cond").calledComputationIds)), (std::vector<int64_t> { 4, 5 }));
        QCOMPARE(vec(m.span(byName(m, "fusion").calledComputationIds)), (std::vector<int64_t> { 3 }));
        QCOMPARE(vec(m.span(byName(m, "reduced").calledComputationIds)), (std::vector<int64_t> { 0 }));
        // control predecessors are not operands
        QCOMPARE(byName(m, "dyn").operandIds.count, uint32_t(1));
        // shapes: tuple, token, tiled layout, dynamic bound, scalar with tile
        QCOMPARE(m.shapeToText(byName(m, "init").shape), std::string("(s32[], f32[2,3]{1,0})"));
        QCOMPARE(m.shapes[byName(m, "token").shape].elementType, int32_t(PrimitiveType::Token));
        QCOMPARE(m.shapeToText(byName(m, "transpose.1").shape), std::string("f32[3,2]{0,1}"));
        QCOMPARE(m.shapeToText(byName(m, "dyn").shape), std::string("f32[4,3]{1,0}"));
        QCOMPARE(m.shapes[byName(m, "scalar.t").shape].minorToMajor.count, uint32_t(0));
        QCOMPARE(vec(m.span(byName(m, "transpose.1").dimensions)), (std::vector<int64_t> { 1, 0 }));
        // unknown attributes are kept as text (strings with braces and quotes intact)
        const HloInstructionDetails& d = m.detailsOf(byName(m, "reduced"));
        bool found = false;
        for (uint32_t k = 0; k < d.attributeCount; ++k) {
            const HloAttribute& a = m.attributes[d.attributeOffset + k];
            if (a.name == "metadata") {
                QCOMPARE(a.value, std::string_view("{op_name=\"sum \\\"quoted\\\" {\"}"));
                found = true;
            }
        }
        QVERIFY(found);
        // without keepAttributes nothing is kept
        HloTextOptions lean;
        lean.keepAttributes = false;
        QVERIFY(parse(kModule, lean).attributes.empty());
        // line and column of instructions
        QCOMPARE(byName(m, "x").line, uint32_t(13));
        QCOMPARE(byName(m, "x").column, uint32_t(3));
    }

    // metadata's op_type and op_name are read whatever keepAttributes says (docs/formats.md §8.4).
    void opMetadataIsRead()
    {
        HloTextOptions lean;
        lean.keepAttributes = false;
        for (const bool keep : { true, false }) {
            const HloModule m = parse(kModule, keep ? HloTextOptions() : lean);
            QCOMPARE(m.opName(size_t(position(m, "arg0"))), std::string_view("x{weird}"));
            QCOMPARE(m.opType(size_t(position(m, "arg0"))), std::string_view("Placeholder"));
            QCOMPARE(m.opName(size_t(position(m, "reduced"))), std::string_view("sum \"quoted\" {"));
            QCOMPARE(m.opType(size_t(position(m, "reduced"))), std::string_view());
            QCOMPARE(m.opName(size_t(position(m, "x"))), std::string_view());
            QCOMPARE(m.opNameCount(), size_t(2));
        }
        // Escapes as XLA's printer writes them, other fields skipped, commas allowed, empty metadata.
        const std::string text
            = "HloModule m\nENTRY e {\n"
              "  a = f32[] parameter(0), metadata={op_type=\"T\\\\1\" op_name=\"s/\\101\\x42\\n\\u00e9/c\" "
              "source_file=\"f.py\" source_line=3}\n"
              "  b = f32[] negate(a), metadata={profile_type={WINDOW,FLAG}, op_name=\"s/neg\", "
              "deduplicated_name=\"x y\"}\n"
              "  c = f32[] negate(b), metadata={}\n"
              "  ROOT d = f32[] negate(c), metadata={op_name=\"s/neg\"}\n}\n";
        const HloModule m = parse(text, lean);
        QCOMPARE(m.opType(0), std::string_view("T\\1"));
        QCOMPARE(m.opName(0), std::string_view("s/AB\n\xc3\xa9/c"));
        QCOMPARE(m.opName(1), std::string_view("s/neg"));
        QCOMPARE(m.opType(1), std::string_view());
        QCOMPARE(m.opName(2), std::string_view());
        QCOMPARE(m.opName(3), std::string_view("s/neg"));
        QCOMPARE(m.opName(4), std::string_view()); // past the last instruction
        QCOMPARE(m.opNameCount(), size_t(3));
        // Cut out of the module, an instruction keeps its names.
        const HloModule sample = parse(kModule);
        const HloModule cut = extractComputation(sample, size_t(sample.entryIndex()));
        size_t named = 0;
        for (size_t i = 0; i < cut.instructions.size(); ++i)
            if (cut.instructions[i].name == "arg0") {
                QCOMPARE(cut.opName(i), std::string_view("x{weird}"));
                ++named;
            }
        QCOMPARE(named, size_t(1));
    }

    void featurizerGraphStructure()
    {
        ModuleTuningData data;
        data.hasModule = true;
        data.module = parse(kModule);
        const HloModule& m = data.module;
        const LayoutGraph g = featurizeLayout(data, "test.hlo");
        QCOMPARE(g.nodeCount(), int64_t(m.instructions.size()));
        QCOMPARE(g.configCount(), int64_t(0)); // no tuning runs: a graph-only file
        // configurable nodes without tuning data: convolutions, dots and reshapes
        QCOMPARE(g.nodeConfigIds, (NdArray<int64_t>::fromVector({ 1 }, { position(m, "flat") })));
        const int64_t loop = position(m, "loop");
        // while: operand edge, then body root, then condition root
        std::vector<std::pair<int64_t, int64_t>> loopEdges;
        for (int64_t e = 0; e < g.edgeCount(); ++e)
            if (g.edgeIndex(e, 0) == loop)
                loopEdges.emplace_back(g.edgeIndex(e, 0), g.edgeIndex(e, 1));
        const int64_t bodyRoot = position(m, "t");
        const int64_t condRoot = position(m, "lt");
        const int64_t init = position(m, "init");
        // sorted by (u, v) by default
        std::vector<std::pair<int64_t, int64_t>> want { { loop, init }, { loop, bodyRoot }, { loop, condRoot } };
        std::sort(want.begin(), want.end());
        QCOMPARE(loopEdges, want);
        // insertion order keeps operands first, then body, then condition
        FeaturizeOptions insertion;
        insertion.sortEdges = false;
        const LayoutGraph gi = featurizeLayout(data, "test.hlo", insertion);
        std::vector<std::pair<int64_t, int64_t>> inserted;
        for (int64_t e = 0; e < gi.edgeCount(); ++e)
            if (gi.edgeIndex(e, 0) == loop)
                inserted.emplace_back(gi.edgeIndex(e, 0), gi.edgeIndex(e, 1));
        QCOMPARE(inserted,
            (std::vector<std::pair<int64_t, int64_t>> { { loop, init }, { loop, bodyRoot }, { loop, condRoot } }));
        // add(x, x) gives one edge; parameters have none
        const LayoutGraph dup = featurizeLayout(
            [] {
                ModuleTuningData d;
                d.hasModule = true;
                d.module
                    = parseHloText("HloModule d\nENTRY e {\n  p = f32[2]{0} parameter(0)\n  s = f32[2]{0} add(p, p)\n"
                                   "  ROOT r = f32[4]{0} reshape(s)\n}\n",
                        "d.hlo");
                return d;
            }(),
            "d.hlo");
        QCOMPARE(dup.edgeCount(), int64_t(2));
        QCOMPARE(dup.nodeConfigIds, (NdArray<int64_t>::fromVector({ 1 }, { 2 }))); // the reshape
        // is_root: one per computation
        int roots = 0;
        for (int64_t i = 0; i < g.nodeCount(); ++i)
            roots += g.nodeFeat(i, 0) == 1.0f;
        QCOMPARE(roots, 7);
        // node_splits: after computations named *cond*, *while*, *cluster* (here: cond_computation)
        QCOMPARE(g.nodeSplits, (NdArray<int64_t>::fromVector({ 3 }, { 0, 7, g.nodeCount() })));
        // opcode ids: all-gather-start is in the table (112); after-all 4; async sugar for X-start
        QCOMPARE(g.nodeOpcode[position(m, "ags")], int64_t(112));
        QCOMPARE(featurizedOpcode("fusion-start"), 115);
        QCOMPARE(featurizedOpcode("fusion-done"), 117);
        QCOMPARE(featurizedOpcode("copy-start"), 29);
        QCOMPARE(featurizedOpcode("erf"), 0);
    }

    void workedFeatureVectors()
    {
        // docs/formats.md §4.5: SSD convolution with window and dim labels
        const auto conv
            = featuresOf("  p0 = bf16[1,300,300,3]{3,2,1,0} parameter(0)\n  p1 = bf16[3,3,3,32]{3,2,1,0} parameter(1)",
                "c = bf16[1,150,150,32]{3,2,1,0} convolution(p0, p1), window={size=3x3 stride=2x2 pad=0_1x0_1}, "
                "dim_labels=b01f_01io->b01f");
        expectFeatures(conv,
            withEmptyProducts({ { 0, 1 }, { 15, 1 }, { 21, 1 }, { 22, 150 }, { 23, 150 }, { 24, 32 }, { 27, 333 },
                { 28, 720000 }, { 37, 3 }, { 38, 3 }, { 43, 6 }, { 44, 9 }, { 45, 2 }, { 46, 2 }, { 51, 4 }, { 52, 4 },
                { 59, 0 }, { 60, 0 }, { 61, 1 }, { 62, 1 }, { 67, 2 }, { 68, 1 }, { 69, 1 }, { 70, 1 }, { 75, 2 },
                { 76, 1 }, { 77, 1 }, { 78, 1 }, { 83, 2 }, { 84, 1 }, { 92, 2 }, { 93, 0 }, { 94, 3 }, { 95, 1 },
                { 96, 2 }, { 99, 2 }, { 100, 3 }, { 101, 0 }, { 102, 1 }, { 105, 0 }, { 106, 3 }, { 107, 1 },
                { 108, 1 }, { 134, 3 }, { 135, 2 }, { 136, 1 }, { 137, 0 } }));
        // docs/formats.md §4.5: slice with 3 dims (2 slots, sums/products over all 3)
        const auto slice = featuresOf("  p0 = f32[1,1917,91]{2,1,0} parameter(0)",
            "s = f32[1,1917,90]{2,1,0} slice(p0), slice={[0:1], [0:1917], [1:91]}");
        expectFeatures(slice,
            withEmptyProducts({ { 0, 1 }, { 13, 1 }, { 21, 1 }, { 22, 1917 }, { 23, 90 }, { 27, 2008 }, { 28, 172530 },
                { 109, 0 }, { 110, 0 }, { 111, 1 }, { 112, 0 }, { 113, 1 }, { 114, 1 }, { 115, 3 }, { 116, 1 },
                { 117, 1 }, { 118, 1917 }, { 119, 2009 }, { 120, 174447 }, { 134, 2 }, { 135, 1 }, { 136, 0 } }));
        // docs/formats.md §4.5: bf16[1917,4]{0,1}
        const auto shape = featuresOf(
            "  p0 = bf16[4,1917]{1,0} parameter(0)", "t = bf16[1917,4]{0,1} transpose(p0), dimensions={1,0}");
        expectFeatures(shape,
            withEmptyProducts({ { 0, 1 }, { 15, 1 }, { 21, 1917 }, { 22, 4 }, { 27, 1921 }, { 28, 7668 }, { 31, 1 },
                { 32, 0 }, { 134, 0 }, { 135, 1 } }));
        // pad op, is_stable sort, parameter number, tuple size, dynamic-slice sizes
        const auto pad = featuresOf("  p0 = f32[2,3]{1,0} parameter(0)\n  p1 = f32[] parameter(1)",
            "q = f32[4,8]{1,0} pad(p0, p1), padding=1_1x2_3_0");
        QCOMPARE(pad[125], 1.0f);
        QCOMPARE(pad[126], 2.0f);
        QCOMPARE(pad[127], 3.0f);
        QCOMPARE(pad[128], 2.0f);
        QCOMPARE(pad[129], 1.0f);
        QCOMPARE(pad[130], 3.0f);
        QCOMPARE(pad[131], 4.0f);
        QCOMPARE(pad[132], 3.0f);
        const auto param = featuresOf("  p0 = f32[2]{0} parameter(0)", "p7 = (f32[2]{0}, s32[]) parameter(7)");
        QCOMPARE(param[30], 7.0f);
        QCOMPARE(param[29], 2.0f);
        QCOMPARE(param[18], 1.0f); // TUPLE one-hot
        QCOMPARE(param[28], 1.0f); // product of no dims
        const auto sort = featuresOf("  p0 = f32[8]{0} parameter(0)",
            "s = f32[8]{0} sort(p0), dimensions={0}, is_stable=true, to_apply=lt", false,
            "lt {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
            "  ROOT c = pred[] compare(a, b), direction=LT\n}\n");
        QCOMPARE(sort[133], 1.0f);
        // repadded variant: no-aggregate fields padded with -1
        const auto repadded = featuresOf(
            "  p0 = bf16[4,1917]{1,0} parameter(0)", "t = bf16[1917,4]{0,1} transpose(p0), dimensions={1,0}", true);
        for (int c : { 33, 34, 35, 36, 95, 96, 97, 98, 101, 102, 103, 104, 136, 137, 138, 139 })
            QCOMPARE(repadded[size_t(c)], -1.0f);
        QCOMPARE(repadded[134], 0.0f);
        QCOMPARE(repadded[135], 1.0f);
    }

    void errorsNameLineAndColumn_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("expected");
        const QString head = "HloModule m\nENTRY e {\n";
        // Without its HloModule line a module must start as XLA's parser accepts it: ENTRY or `NAME {`.
        QTest::newRow("no header, signature first")
            << "%c (x: f32[]) -> f32[] {\n  ROOT x = f32[] parameter(0)\n}\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}"
            << QStringList { "line 1, column 1", "HloModule", "'ENTRY'" };
        QTest::newRow("unterminated string") << head + "  ROOT p = f32[] parameter(0), metadata={op_name=\"abc}\n}\n"
                                             << QStringList { "line 3, column 50", "unterminated string" };
        QTest::newRow("unbalanced braces") << head + "  ROOT p = f32[] parameter(0), metadata={op_name=\"a\" x={1}\n"
                                           << QStringList { "line 3, column 41", "unbalanced '{'" };
        QTest::newRow("metadata not a list")
            << head + "  ROOT p = f32[] parameter(0), metadata=\"abc\"\n}\n"
            << QStringList { "line 3, column 41", "metadata must be a list of fields" };
        QTest::newRow("op_name not a string")
            << head + "  ROOT p = f32[] parameter(0), metadata={op_name=abc}\n}\n"
            << QStringList { "line 3, column 50", "metadata op_name must be a quoted string" };
        QTest::newRow("metadata field without value")
            << head + "  ROOT p = f32[] parameter(0), metadata={op_name}\n}\n"
            << QStringList { "line 3, column 49", "expected '=' after metadata field 'op_name'" };
        QTest::newRow("unknown escape in op_name")
            << head + "  ROOT p = f32[] parameter(0), metadata={op_name=\"a\\qb\"}\n}\n"
            << QStringList { "line 3, column 52", "unknown escape sequence '\\q'" };
        QTest::newRow("mismatched bracket") << head + "  ROOT p = f32[] parameter(0), sharding={devices=[2,1)}\n}\n"
                                            << QStringList { "line 3", "unbalanced ')'" };
        QTest::newRow("undefined operand")
            << head + "  p = f32[2]{0} parameter(0)\n  ROOT n = f32[2]{0} negate(q)\n}\n"
            << QStringList { "line 4, column 29", "operand 'q' is not an instruction of computation 'e'" };
        QTest::newRow("duplicate instruction")
            << head + "  p = f32[] parameter(0)\n  p = f32[] parameter(1)\n  ROOT a = f32[] add(p, p)\n}\n"
            << QStringList { "line 4, column 3", "duplicate instruction name 'p'" };
        QTest::newRow("duplicate computation")
            << "HloModule m\nc {\n  ROOT p = f32[] parameter(0)\n}\nc {\n  ROOT p = f32[] parameter(0)\n}\n"
            << QStringList { "line 5, column 1", "duplicate computation name 'c'" };
        QTest::newRow("missing called computation")
            << head
                + "  p = f32[4]{0} parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[] reduce(p, z), "
                  "dimensions={0}, to_apply=%nowhere\n}\n"
            << QStringList { "line 5", "called computation 'nowhere' does not exist" };
        QTest::newRow("operand count") << head + "  p = f32[] parameter(0)\n  ROOT a = f32[] add(p, p, p)\n}\n"
                                       << QStringList { "line 4, column 3", "add takes 2 operands, got 3" };
        QTest::newRow("operand shape") << head + "  p = f32[3]{0} parameter(0)\n  ROOT a = f32[4]{0} add(p, p)\n}\n"
                                       << QStringList { "line 4",
                                              "operand 0 ('p') has shape f32[3]{0} but the result is f32[4]{0}" };
        QTest::newRow("tuple arity") << head + "  p = f32[] parameter(0)\n  ROOT t = (f32[], f32[]) tuple(p)\n}\n"
                                     << QStringList { "line 4, column 3", "tuple shape has 2 elements but 1 operand" };
        QTest::newRow("two roots") << head + "  ROOT p = f32[] parameter(0)\n  ROOT q = f32[] parameter(1)\n}\n"
                                   << QStringList { "line 4, column 3", "a second ROOT" };
        QTest::newRow("unknown type") << head + "  ROOT p = f33[] parameter(0)\n}\n"
                                      << QStringList { "line 3, column 12", "unknown element type 'f33'" };
        QTest::newRow("attribute in an operand list")
            << head + "  p = f32[2]{0} parameter(0)\n  ROOT a = f32[2]{0} add(negate(p), dimensions={0})\n}\n"
            << QStringList { "line 4, column 37", "'dimensions=' in an operand list",
                   "an instruction written as an operand takes no attributes" };
        QTest::newRow("operand that needs an attribute")
            << head + "  p = f32[] parameter(0)\n  ROOT a = pred[] and(compare(p, p), compare(p, p))\n}\n"
            << QStringList { "line 4, column 23", "compare needs direction=" };
        QTest::newRow("broadcast of an array written as an operand")
            << head + "  p = f32[2]{0} parameter(0)\n  ROOT a = f32[2,2]{1,0} add(broadcast(p), broadcast(p))\n}\n"
            << QStringList { "line 4, column 30", "broadcast needs dimensions=" };
        QTest::newRow("operand written without its shape")
            << head + "  p = f32[] parameter(0)\n  ROOT a = f32[] add(convert(p), p)\n}\n"
            << QStringList { "line 4, column 22",
                   "the shape of the convert written as an operand must be written: XLA's parser infers no shape for "
                   "convert" };
        QTest::newRow("operand of an operand not yet defined")
            << head + "  p = f32[] parameter(0)\n  ROOT a = f32[] add(negate(q), p)\n  q = f32[] parameter(1)\n}\n"
            << QStringList { "line 4, column 29", "cannot infer the shape of the negate written as an operand",
                   "its operand 'q' is not defined before it" };
        QTest::newRow("operand list never closed")
            << head + "  p = f32[] parameter(0)\n  ROOT a = f32[] add(negate(p), p\n}\n"
            << QStringList { "line 5, column 1", "expected ')' to close the operand list" };
        QTest::newRow("layout rank") << head + "  ROOT p = f32[2,3]{0} parameter(0)\n}\n"
                                     << QStringList { "layout has 1 entries for a rank-2 shape" };
        QTest::newRow("unterminated comment") << head + "  /* never closed\n  ROOT p = f32[] parameter(0)\n}\n"
                                              << QStringList { "line 3, column 3", "unterminated /* comment" };
        QTest::newRow("unclosed body") << head + "  ROOT p = f32[] parameter(0)\n"
                                       << QStringList { "line 2", "never closed" };
        QTest::newRow("empty file") << "" << QStringList { "HloModule" };
        QTest::newRow("binary junk") << QString::fromLatin1("\x01\x02\x03PK\x04") << QStringList { "HloModule" };
    }
    void errorsNameLineAndColumn()
    {
        QFETCH(QString, text);
        QFETCH(QStringList, expected);
        expectParseError(text, expected, QStringLiteral("test.hlo: "));
    }

    // docs/formats.md §8.6: what XLA's parser and verifier refuse, each at the line of the instruction at fault.
    void verifierRefusesWhatXlaRefuses_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("expected");
        const QString head = "HloModule m\nENTRY e {\n";
        const QString p = "  p = f32[] parameter(0)\n";
        QTest::newRow("operand cycle")
            << head + p + "  a = f32[] add(b, b)\n  b = f32[] add(a, a)\n  ROOT r = f32[] add(a, p)\n}\n"
            << QStringList { "line 4, column 3", "cycle", "'a' (line 4) -> 'b' (line 5) -> 'a' (line 4)" };
        QTest::newRow("longer cycle")
            << head + p
                + "  a = f32[] add(p, c)\n  b = f32[] negate(a)\n  c = f32[] negate(b)\n  ROOT r = f32[] add(a, p)\n}\n"
            << QStringList { "line 4, column 3", "'a' (line 4) -> 'c' (line 6) -> 'b' (line 5) -> 'a' (line 4)" };
        QTest::newRow("own operand") << head + p + "  ROOT a = f32[] add(a, p)\n}\n"
                                     << QStringList { "line 4, column 3", "'a' uses itself as an operand" };
        QTest::newRow("use before definition")
            << head + "  n = f32[] negate(p)\n" + p + "  ROOT r = f32[] add(n, p)\n}\n"
            << QStringList { "line 3, column 3", "operand 'p' (line 4) of 'n' is defined after its use" };
        QTest::newRow("computation calls itself")
            << "HloModule m\nc {\n  x = f32[] parameter(0)\n  ROOT y = f32[] call(x), to_apply=c\n}\n"
               "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c\n}\n"
            << QStringList { "line 4, column 3", "computation 'c' calls itself through 'y'" };
        QTest::newRow("mutual recursion")
            << "HloModule m\nf {\n  x = f32[] parameter(0)\n  ROOT y = f32[] call(x), to_apply=g\n}\n"
               "g {\n  x = f32[] parameter(0)\n  ROOT y = f32[] call(x), to_apply=f\n}\n"
               "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=f\n}\n"
            << QStringList { "line 8, column 3", "recursive calls", "'f' -> 'g' -> 'f'" };
        QTest::newRow("recursion through a while body")
            << "HloModule m\ncond {\n  x = f32[] parameter(0)\n  ROOT t = pred[] constant(true)\n}\n"
               "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT w = f32[] while(p), condition=cond, body=e\n}\n"
            << QStringList { "line 8, column 3", "computation 'e' calls itself through 'w'" };
        QTest::newRow("callee after its caller")
            << "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c\n}\n"
               "c {\n  ROOT x = f32[] parameter(0)\n}\n"
            << QStringList { "line 4, column 3", "called computation 'c' (line 6) is defined after its caller 'e'" };
        QTest::newRow("get-tuple-element of two")
            << head + "  t = (f32[]) parameter(0)\n  ROOT g = f32[] get-tuple-element(t, t), index=0\n}\n"
            << QStringList { "line 4, column 3", "get-tuple-element takes 1 operand, got 2" };
        QTest::newRow("negate of none") << head + "  ROOT n = f32[] negate()\n}\n"
                                        << QStringList { "line 3, column 3", "negate takes 1 operand, got 0" };
        QTest::newRow("clamp of two") << head + p + "  ROOT c = f32[] clamp(p, p)\n}\n"
                                      << QStringList { "line 4, column 3", "clamp takes 3 operands, got 2" };
        QTest::newRow("dynamic-slice without indices")
            << head + "  p = f32[4]{0} parameter(0)\n"
                + "  ROOT d = f32[2]{0} dynamic-slice(p), dynamic_slice_sizes={2}\n}\n"
            << QStringList { "line 4, column 3", "dynamic-slice takes at least 2 operands, got 1" };
        QTest::newRow("reduce of three")
            << "HloModule m\nadd {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\n"
               "ENTRY e {\n  p = f32[4]{0} parameter(0)\n  z = f32[] constant(0)\n"
               "  ROOT r = f32[] reduce(p, z, z), dimensions={0}, to_apply=add\n}\n"
            << QStringList { "line 10, column 3", "reduce takes an even number of operands", "got 3" };
        QTest::newRow("call with a parameter too few")
            << "HloModule m\nc {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\n"
               "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c\n}\n"
            << QStringList { "line 9, column 3", "call passes 1 operand to computation 'c', which has 2 parameters" };
        QTest::newRow("conditional missing a branch operand")
            << "HloModule m\nb {\n  ROOT x = f32[] parameter(0)\n}\n"
               "ENTRY e {\n  i = s32[] parameter(0)\n  p = f32[] parameter(1)\n"
               "  ROOT r = f32[] conditional(i, p), branch_computations={b, b, b}\n}\n"
            << QStringList { "line 8, column 3", "conditional with 3 branch computations takes 4 operands" };
        QTest::newRow("while body of two parameters")
            << "HloModule m\nbody {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
               "  ROOT s = f32[] add(x, y)\n}\n"
               "cond {\n  x = f32[] parameter(0)\n  ROOT t = pred[] constant(true)\n}\n"
               "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT w = f32[] while(p), condition=cond, body=body\n}\n"
            << QStringList { "line 13, column 3", "while calls computation 'body' with one operand, but it has 2" };
        QTest::newRow("call passing another shape")
            << "HloModule m\nc {\n  x = f32[4] parameter(0)\n  ROOT n = f32[4] negate(x)\n}\n"
               "ENTRY e {\n  p = f32[3] parameter(0)\n  ROOT r = f32[4] call(p), to_apply=c\n}\n"
            << QStringList { "line 8, column 3",
                   "call passes 'p' (line 7) of shape f32[3]{0} as parameter 0 of computation 'c', which has shape f32[4]{0}" };
        QTest::newRow("fusion passing another tuple")
            << "HloModule m\nf {\n  x = (f32[2], s32[]) parameter(0)\n  ROOT g = f32[2] get-tuple-element(x), index=0\n}\n"
               "ENTRY e {\n  p = (f32[2], f32[]) parameter(0)\n"
               "  ROOT r = f32[2] fusion(p), kind=kLoop, calls=f\n}\n"
            << QStringList { "line 8, column 3", "of shape (f32[2]{0}, f32[]) as parameter 0 of computation 'f'",
                   "which has shape (f32[2]{0}, s32[])" };
        QTest::newRow("while changing its shape")
            << "HloModule m\nbody {\n  x = f32[] parameter(0)\n  ROOT n = f32[] negate(x)\n}\n"
               "cond {\n  x = f32[] parameter(0)\n  ROOT t = pred[] constant(true)\n}\n"
               "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT w = s32[] while(p), condition=cond, body=body\n}\n"
            << QStringList { "line 12, column 3", "while has shape s32[] but its operand 'p' (line 11)" };
        QTest::newRow("while body of another shape")
            << "HloModule m\nbody {\n  x = f32[2] parameter(0)\n  ROOT n = f32[2] negate(x)\n}\n"
               "cond {\n  x = f32[] parameter(0)\n  ROOT t = pred[] constant(true)\n}\n"
               "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT w = f32[] while(p), condition=cond, body=body\n}\n"
            << QStringList { "line 12, column 3", "of shape f32[] as parameter 0 of computation 'body', which has shape f32[2]{0}" };
        QTest::newRow("conditional branch of another shape")
            << "HloModule m\nb {\n  ROOT x = f32[2] parameter(0)\n}\n"
               "ENTRY e {\n  i = s32[] parameter(0)\n  p = f32[] parameter(1)\n"
               "  ROOT r = f32[2] conditional(i, p), branch_computations={b}\n}\n"
            << QStringList { "line 8, column 3", "passes 'p' (line 7) of shape f32[] as parameter 0 of computation 'b'" };
        QTest::newRow("sort comparator for one operand of two")
            << "HloModule m\nlt {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
               "  ROOT c = pred[] compare(a, b), direction=LT\n}\n"
               "ENTRY e {\n  k = f32[4]{0} parameter(0)\n  v = s32[4]{0} parameter(1)\n"
               "  ROOT s = (f32[4]{0}, s32[4]{0}) sort(k, v), dimensions={0}, to_apply=lt\n}\n"
            << QStringList { "line 10, column 3",
                   "sort with 2 operands applies computation 'lt', which has 2 parameters; it takes 4 (two per operand)" };
        QTest::newRow("reduce with a unary reducer")
            << "HloModule m\nneg {\n  x = f32[] parameter(0)\n  ROOT n = f32[] negate(x)\n}\n"
               "ENTRY e {\n  p = f32[4]{0} parameter(0)\n  z = f32[] constant(0)\n"
               "  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=neg\n}\n"
            << QStringList { "line 9, column 3", "applies computation 'neg', which has 1 parameter; it takes 2 (two per input)" };
        QTest::newRow("map of two with a unary function")
            << "HloModule m\nneg {\n  x = f32[] parameter(0)\n  ROOT n = f32[] negate(x)\n}\n"
               "ENTRY e {\n  p = f32[4]{0} parameter(0)\n  q = f32[4]{0} parameter(1)\n"
               "  ROOT r = f32[4]{0} map(p, q), dimensions={0}, to_apply=neg\n}\n"
            << QStringList { "line 9, column 3", "map with 2 operands applies computation 'neg'", "it takes 2 (one per operand)" };
    }
    void verifierRefusesWhatXlaRefuses()
    {
        QFETCH(QString, text);
        QFETCH(QStringList, expected);
        expectParseError(text, expected, QStringLiteral("test.hlo: line "));
    }

    // The same rules hold for modules that come without lines (protobuf): the place names the instruction.
    void verifierNamesInstructionsWithoutLines()
    {
        HloModule m = parse("HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  a = f32[] negate(p)\n"
                            "  b = f32[] negate(a)\n  ROOT r = f32[] add(a, b)\n}\n");
        for (HloInstruction& i : m.instructions)
            i.line = i.column = 0;
        verifyHloModule(m, "m.pb"); // valid as it is
        HloModule cyclic = std::move(m);
        cyclic.ints[byName(cyclic, "a").operandIds.offset] = byName(cyclic, "b").id; // a = negate(b)
        try {
            verifyHloModule(cyclic, "m.pb");
            QFAIL("no error");
        } catch (const InputError& e) {
            QCOMPARE(QString::fromStdString(e.place()), QString("module 'm', computation 'e', instruction 'a' (id 1)"));
            QVERIFY2(QString(e.what()).contains("'a' (id 1) -> 'b' (id 2) -> 'a' (id 1)"), e.what());
        }
    }

    // docs/formats.md §8.2: a module without its HloModule line, where XLA's parser accepts one.
    void headerlessModules()
    {
        const HloModule entryOnly = parse("ENTRY main {\n  p = f32[] parameter(0)\n  ROOT n = f32[] negate(p)\n}\n");
        QCOMPARE(std::string(entryOnly.name), std::string("module_main")); // XLA's name for it
        QCOMPARE(entryOnly.instructions.size(), size_t(2));
        QCOMPARE(byName(entryOnly, "n").line, 3u);
        const HloModule withCallee
            = parse("// a comment first\n%add.1 {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
                    "  ROOT s = f32[] add(x, y)\n}\n\n"
                    "e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p, p), to_apply=%add.1\n}\n");
        QCOMPARE(std::string(withCallee.name), std::string("module_e")); // no ENTRY: the last computation is the entry
        QCOMPARE(withCallee.computations.size(), size_t(2));
        QVERIFY(looksLikeHloText("ENTRY e {"));
        QVERIFY(looksLikeHloText("  /* c */ %fused.2 /* c */ {"));
        QVERIFY(looksLikeHloText("\nHloModule m"));
        QVERIFY(!looksLikeHloText("%c (x: f32[]) -> f32[] {")); // XLA's parser refuses this start
        QVERIFY(looksLikeHloText("ENTRYX {")); // a computation named ENTRYX
        QVERIFY(!looksLikeHloText("ENTRYX (x"));
        QVERIFY(!looksLikeHloText("x = {"));
        QVERIFY(!looksLikeHloText("{\"json\": 1}"));
        QVERIFY(!looksLikeHloText(""));
    }

    // docs/formats.md §8.2: files of several modules separated by `// -----` lines (hlo-opt --split-input-file).
    void splitFiles()
    {
        const std::string text = "// -----\n"                                                   // 1: nothing before it
                                 "HloModule first\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n" // 2-5
                                 "  // -----  \n"                                               // 6
                                 "ENTRY main {\n  p = f32[] parameter(0)\n  ROOT n = f32[] negate(p)\n}\n" // 7-10
                                 "// ------ not a separator, a comment\n"                       // 11
                                 "// -----\n"                                                   // 12
                                 "// only a comment here\n"                                     // 13
                                 "// -----\n"                                                   // 14
                                 "HloModule first\nENTRY e {\n  ROOT q = s32[] parameter(0)\n}\n" // 15-18
                                 "// -----\n";                                                  // 19
        const std::vector<HloTextPart> parts = splitHloText(text);
        QCOMPARE(parts.size(), size_t(3));
        QCOMPARE(parts[0].firstLine, 2u);
        QCOMPARE(parts[1].firstLine, 7u);
        QCOMPARE(parts[2].firstLine, 15u);
        QCOMPARE(std::string(text.substr(parts[1].begin, 11)), std::string("ENTRY main "));
        const std::vector<HloModule> modules = parseHloTextModules(text, "split.hlo");
        QCOMPARE(modules.size(), size_t(3));
        QCOMPARE(std::string(modules[0].name), std::string("first"));
        QCOMPARE(std::string(modules[1].name), std::string("module_main"));
        QCOMPARE(std::string(modules[2].name), std::string("first"));
        QCOMPARE(byName(modules[1], "n").line, 9u); // lines of the file, not of the part
        QCOMPARE(byName(modules[2], "q").line, 17u);
        QCOMPARE(modules[2].shapeToText(byName(modules[2], "q").shape), std::string("s32[]"));
        // One module where one is expected: the separator is named.
        try {
            parse(text);
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY2(
                QString(e.what()).contains("test.hlo: line 6: a '// -----' line separates several modules"), e.what());
        }
        // Errors name the line in the file.
        const std::string bad = "HloModule a\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n// -----\n"
                                "HloModule b\nENTRY e {\n  p = f32[] parameter(0)\n  x = f32[] add(y, p)\n"
                                "  y = f32[] add(x, p)\n  ROOT r = f32[] add(x, y)\n}\n";
        try {
            parseHloTextModules(bad, "bad.hlo");
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).startsWith("bad.hlo: line 9, column 3: instructions form a cycle"), e.what());
        }
        // Without a separator: one module, as before.
        QCOMPARE(parseHloTextModules("HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n", "one.hlo").size(),
            size_t(1));
        // A second header without a separator is an error that says so.
        testutil::expectInputError(
            [] {
                parseHloTextModules("HloModule a\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n"
                                    "HloModule b\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n",
                    "two.hlo");
            },
            { "two.hlo: line 5, column 1: a second 'HloModule' line", "separated by a line '// -----'" });
    }

    void deepNestingIsAnErrorNotACrash()
    {
        const int depth = 100000;
        const std::string shape = std::string(depth, '(') + "f32[]" + std::string(depth, ')');
        QVERIFY_THROWS_EXCEPTION(
            InputError, parse("HloModule m\nENTRY e {\n  ROOT p = " + shape + " parameter(0)\n}\n"));
        const std::string value = std::string(depth, '{') + std::string(depth, '}');
        QVERIFY_THROWS_EXCEPTION(
            InputError, parse("HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0), x=" + value + "\n}\n"));
        const std::string literal = "constant(" + std::string(depth, '{') + std::string(depth, '}') + ")";
        QVERIFY_THROWS_EXCEPTION(InputError, parse("HloModule m\nENTRY e {\n  ROOT p = f32[] " + literal + "\n}\n"));
        // Instructions written as operands, nested: a bound, not a stack overflow.
        std::string nested;
        for (int k = 0; k < depth; ++k)
            nested += "negate(";
        nested += "p" + std::string(depth, ')');
        testutil::expectInputError(
            [&] { parse("HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT n = " + nested + "\n}\n"); },
            { "test.hlo: line 4", "instructions written as operands nested deeper than 200 levels" });
        std::string fine = "p";
        for (int k = 0; k < 150; ++k)
            fine = "negate(" + fine + ")";
        const HloModule m = parse("HloModule m\nENTRY e {\n  p = f32[2]{0} parameter(0)\n  ROOT n = " + fine + "\n}\n");
        QCOMPARE(m.instructions.size(), size_t(151));
        QCOMPARE(m.shapeToText(m.instructions.back().shape), std::string("f32[2]{0}"));
    }

    // docs/formats.md §8.7: an instruction written without its shape gets the one XLA's parser infers,
    // layout included. Each row: a module, an instruction of it, the shape it must get.
    void shapesInferredAsXlaInfers_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("shape");
        const QString head = "HloModule m\n";
        const QString add = "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = add(x, y)\n}\n";
        const auto entry = [&](const QString& body, const QString& before = {}) {
            return head + before + "ENTRY e {\n" + body + "}\n";
        };
        // element-wise: the operand's shape, layout included; compare and is-finite give pred
        QTest::newRow("unary keeps the layout")
            << entry("  p = f32[2,3]{0,1} parameter(0)\n  ROOT n = negate(p)\n") << "n"
            << "f32[2,3]{0,1}";
        QTest::newRow("is-finite") << entry("  p = bf16[4]{0} parameter(0)\n  ROOT f = is-finite(p)\n") << "f"
                                   << "pred[4]{0}";
        QTest::newRow("abs of complex") << entry("  p = c64[3]{0} parameter(0)\n  ROOT a = abs(p)\n") << "a"
                                        << "f32[3]{0}";
        QTest::newRow("imag of c128") << entry("  p = c128[] parameter(0)\n  ROOT i = imag(p)\n") << "i"
                                      << "f64[]";
        QTest::newRow("binary keeps the lhs layout")
            << entry("  p = f32[2,3]{0,1} parameter(0)\n  q = f32[2,3]{1,0} parameter(1)\n  ROOT a = add(p, q)\n")
            << "a"
            << "f32[2,3]{0,1}";
        QTest::newRow("compare") << entry("  p = s32[5]{0} parameter(0)\n  ROOT c = compare(p, p), direction=LT\n")
                                 << "c"
                                 << "pred[5]{0}";
        QTest::newRow("complex") << entry("  p = f32[2]{0} parameter(0)\n  ROOT c = complex(p, p)\n") << "c"
                                 << "c64[2]{0}";
        QTest::newRow("select on a scalar pred") << entry(
            "  c = pred[] parameter(0)\n  p = f32[2,2]{0,1} parameter(1)\n  q = f32[2,2]{1,0} parameter(2)\n"
            "  ROOT s = select(c, p, q)\n") << "s"
                                                 << "f32[2,2]{0,1}";
        QTest::newRow("select takes the pred's layout") << entry(
            "  c = pred[2,2]{0,1} parameter(0)\n  p = f32[2,2]{1,0} parameter(1)\n  ROOT s = select(c, p, p)\n")
                                                        << "s"
                                                        << "f32[2,2]{0,1}";
        QTest::newRow("clamp") << entry(
            "  lo = f32[] parameter(0)\n  p = f32[3]{0} parameter(1)\n  ROOT c = clamp(lo, p, lo)\n")
                               << "c"
                               << "f32[3]{0}";
        QTest::newRow("copy of a tuple") << entry("  p = (f32[2]{0}, s32[]) parameter(0)\n  ROOT c = copy(p)\n") << "c"
                                         << "(f32[2]{0}, s32[])";
        // tuples and control flow
        QTest::newRow("tuple") << entry(
            "  p = f32[2]{0} parameter(0)\n  q = s32[] parameter(1)\n  ROOT t = tuple(p, q)\n")
                               << "t"
                               << "(f32[2]{0}, s32[])";
        QTest::newRow("empty tuple") << entry("  ROOT t = tuple()\n") << "t"
                                     << "()";
        QTest::newRow("get-tuple-element")
            << entry("  p = (f32[2]{0}, s32[3]{0}) parameter(0)\n  ROOT g = get-tuple-element(p), index=1\n") << "g"
            << "s32[3]{0}";
        QTest::newRow("while") << entry(
            "  p = (s32[], f32[4]{0}) parameter(0)\n  ROOT w = while(p), condition=cond, body=body\n",
            "body {\n  x = (s32[], f32[4]{0}) parameter(0)\n  ROOT y = copy(x)\n}\n"
            "cond {\n  x = (s32[], f32[4]{0}) parameter(0)\n  ROOT t = pred[] constant(true)\n}\n")
                               << "w"
                               << "(s32[], f32[4]{0})";
        QTest::newRow("conditional") << entry(
            "  c = pred[] parameter(0)\n  p = f32[2]{0} parameter(1)\n"
            "  ROOT r = conditional(c, p, p), true_computation=t, false_computation=f\n",
            "t {\n  x = f32[2]{0} parameter(0)\n  ROOT y = f32[2]{0} negate(x)\n}\n"
            "f {\n  x = f32[2]{0} parameter(0)\n  ROOT y = f32[2]{0} copy(x)\n}\n")
                                     << "r"
                                     << "f32[2]{0}";
        QTest::newRow("call") << entry("  p = f32[3]{0} parameter(0)\n  ROOT r = call(p), to_apply=c\n",
            "c {\n  x = f32[3]{0} parameter(0)\n  ROOT y = s32[3]{0} convert(x)\n}\n")
                              << "r"
                              << "s32[3]{0}";
        QTest::newRow("map") << entry(
            "  p = f32[4,2]{0,1} parameter(0)\n  ROOT r = map(p, p), dimensions={0,1}, to_apply=add\n", add)
                             << "r"
                             << "f32[4,2]{1,0}";
        QTest::newRow("reduce") << entry("  p = f32[4,5,6]{0,1,2} parameter(0)\n  z = f32[] constant(0)\n"
                                         "  ROOT r = reduce(p, z), dimensions={1}, to_apply=add\n",
            add) << "r"
                                << "f32[4,6]{1,0}";
        QTest::newRow("variadic reduce") << entry(
            "  p = f32[4,5]{1,0} parameter(0)\n  i = s32[4,5]{1,0} parameter(1)\n  z = f32[] constant(0)\n"
            "  j = s32[] constant(0)\n  ROOT r = reduce(p, i, z, j), dimensions={1}, to_apply=argmax\n",
            "argmax {\n  a = f32[] parameter(0)\n  b = s32[] parameter(1)\n  c = f32[] parameter(2)\n"
            "  d = s32[] parameter(3)\n  ROOT t = (f32[], s32[]) tuple(a, b)\n}\n")
                                         << "r"
                                         << "(f32[4]{0}, s32[4]{0})";
        QTest::newRow("sort of two") << entry("  k = f32[8]{0} parameter(0)\n  v = s32[8]{0} parameter(1)\n"
                                              "  ROOT s = sort(k, v), dimensions={0}, to_apply=lt\n",
            "lt {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  c = s32[] parameter(2)\n"
            "  d = s32[] parameter(3)\n  ROOT r = pred[] compare(a, b), direction=LT\n}\n")
                                     << "s"
                                     << "(f32[8]{0}, s32[8]{0})";
        // shape-changing ops
        QTest::newRow("broadcast of a scalar") << entry("  p = f32[] parameter(0)\n  ROOT b = broadcast(p)\n") << "b"
                                               << "f32[]";
        QTest::newRow("broadcast reads dimensions as sizes")
            << entry("  p = f32[3]{0} parameter(0)\n  ROOT b = broadcast(p), dimensions={1}\n") << "b"
            << "f32[1,3]{1,0}";
        QTest::newRow("transpose keeps the physical order")
            << entry("  p = f32[2,3,4]{2,1,0} parameter(0)\n  ROOT t = transpose(p), dimensions={2,0,1}\n") << "t"
            << "f32[4,2,3]{0,2,1}";
        QTest::newRow("reverse") << entry("  p = f32[2,3]{0,1} parameter(0)\n  ROOT r = reverse(p), dimensions={0}\n")
                                 << "r"
                                 << "f32[2,3]{0,1}";
        QTest::newRow("concatenate") << entry("  p = f32[2,3]{0,1} parameter(0)\n  q = f32[2,5]{1,0} parameter(1)\n"
                                              "  ROOT c = concatenate(p, q), dimensions={1}\n")
                                     << "c"
                                     << "f32[2,8]{1,0}";
        QTest::newRow("pad") << entry(
            "  p = f32[2,3]{0,1} parameter(0)\n  z = f32[] constant(0)\n  ROOT q = pad(p, z), padding=1_1x2_3_1\n")
                             << "q"
                             << "f32[4,10]{1,0}";
        QTest::newRow("dot") << entry(
            "  a = f32[2,3,4]{2,1,0} parameter(0)\n  b = bf16[2,4,5]{2,1,0} parameter(1)\n"
            "  ROOT d = dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, "
            "rhs_contracting_dims={1}\n")
                             << "d"
                             << "f32[2,3,5]{2,1,0}";
        QTest::newRow("sparse dot") << entry(
            "  a = f32[4,8]{1,0} parameter(0)\n  b = f32[16,8]{1,0} parameter(1)\n  meta = u16[4,1]{1,0} parameter(2)\n"
            "  ROOT d = dot(a, b, meta), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sparsity=L.1@2:4\n")
                                    << "d"
                                    << "f32[4,8]{1,0}";
        QTest::newRow("convolution") << entry(
            "  x = f32[1,8,8,3]{3,2,1,0} parameter(0)\n  k = f32[3,3,3,16]{3,2,1,0} parameter(1)\n"
            "  ROOT c = convolution(x, k), window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f\n")
                                     << "c"
                                     << "f32[1,4,4,16]{3,2,1,0}";
        QTest::newRow("reduce-window") << entry(
            "  p = f32[4,6]{0,1} parameter(0)\n  z = f32[] constant(0)\n"
            "  ROOT r = reduce-window(p, z), window={size=2x3 stride=2x3}, to_apply=add\n",
            add) << "r"
                                       << "f32[2,2]{1,0}";
        QTest::newRow("select-and-scatter")
            << entry("  p = f32[4]{0} parameter(0)\n  s = f32[2]{0} parameter(1)\n  z = f32[] constant(0)\n"
                     "  ROOT r = select-and-scatter(p, s, z), window={size=2 stride=2}, select=ge, scatter=add\n",
                   add
                       + "ge {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = compare(a, b), "
                         "direction=GE\n}\n")
            << "r"
            << "f32[4]{0}";
        QTest::newRow("scatter") << entry(
            "  p = f32[3,3]{1,0} parameter(0)\n  i = s32[2]{0} parameter(1)\n  u = f32[2,3]{1,0} parameter(2)\n"
            "  ROOT sc = scatter(p, i, u), update_window_dims={1}, inserted_window_dims={0}, "
            "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add\n",
            add) << "sc"
                                 << "f32[3,3]{1,0}";
        QTest::newRow("gather") << entry(
            "  p = f32[3,3]{1,0} parameter(0)\n  i = s32[2]{0} parameter(1)\n"
            "  ROOT g = gather(p, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, "
            "index_vector_dim=1, slice_sizes={1,3}\n")
                                << "g"
                                << "f32[2,3]{1,0}";
        QTest::newRow("rfft") << entry(
            "  p = f32[4,16]{1,0} parameter(0)\n  ROOT f = fft(p), fft_type=RFFT, fft_length={16}\n")
                              << "f"
                              << "c64[4,9]{1,0}";
        QTest::newRow("triangular-solve")
            << entry("  a = f32[4,4]{1,0} parameter(0)\n  b = f32[4,2]{0,1} parameter(1)\n"
                     "  ROOT x = triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE\n")
            << "x"
            << "f32[4,2]{0,1}";
        QTest::newRow("cholesky") << entry("  a = f32[3,3]{0,1} parameter(0)\n  ROOT c = cholesky(a), lower=true\n")
                                  << "c"
                                  << "f32[3,3]{0,1}";
        QTest::newRow("batch-norm-training")
            << entry("  x = f32[2,3,4]{2,1,0} parameter(0)\n  s = f32[3]{0} parameter(1)\n"
                     "  ROOT b = batch-norm-training(x, s, s), epsilon=0.001, feature_index=1\n")
            << "b"
            << "(f32[2,3,4]{2,1,0}, f32[3]{0}, f32[3]{0})";
        QTest::newRow("get-dimension-size")
            << entry("  p = f32[3,4]{1,0} parameter(0)\n  ROOT d = get-dimension-size(p), dimensions={1}\n") << "d"
            << "s32[]";
        QTest::newRow("topk") << entry("  p = f32[5,10]{1,0} parameter(0)\n  ROOT t = topk(p), k=3, largest=true\n")
                              << "t"
                              << "(f32[5,3]{1,0}, s32[5,3]{1,0})";
        QTest::newRow("after-all") << entry("  a = token[] after-all()\n  ROOT t = after-all(a, a)\n") << "t"
                                   << "token[]";
        QTest::newRow("add-dependency") << entry(
            "  p = f32[2]{0} parameter(0)\n  a = token[] after-all()\n  ROOT d = add-dependency(p, a)\n")
                                        << "d"
                                        << "f32[2]{0}";
        QTest::newRow("partition-id") << entry("  ROOT i = partition-id()\n") << "i"
                                      << "u32[]";
        // instructions written as operands get their shapes too
        QTest::newRow("operand written in place")
            << entry("  p = f32[2]{0} parameter(0)\n  ROOT r = add(negate(p), f32[2]{0} parameter(1))\n")
            << "negate.anon"
            << "f32[2]{0}";
    }
    void shapesInferredAsXlaInfers()
    {
        QFETCH(QString, text);
        QFETCH(QString, name);
        QFETCH(QString, shape);
        ModuleTuningData d;
        d.hasModule = true;
        d.module = parse(text.toStdString());
        const HloModule& m = d.module;
        QCOMPARE(QString::fromStdString(m.shapeToText(byName(m, name.toStdString()).shape)), shape);
        // The module is whole: it featurizes, one node per instruction.
        QCOMPARE(featurizeLayout(d, "test.hlo").nodeCount(), int64_t(m.instructions.size()));
    }

    // docs/formats.md §8.7: what XLA's parser does not infer is an error at the instruction, naming it.
    void shapesThatCannotBeInferred_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("expected");
        const QString head = "HloModule m\nENTRY e {\n";
        for (const char* opcode : { "convert", "bitcast", "reshape", "bitcast-convert", "reduce-precision", "slice",
                 "dynamic-slice", "all-reduce", "custom-call", "copy-start" })
            QTest::newRow(opcode)
                << head + "  p = f32[4]{0} parameter(0)\n  ROOT r = " + opcode + "(p)\n}\n"
                << QStringList {
                       "line 4, column 12",
                       QString("the shape of 'r' (%1) must be written: XLA's parser infers no shape for %1").arg(opcode)
                   };
        QTest::newRow("parameter") << head + "  ROOT p = parameter(0)\n}\n"
                                   << QStringList { "line 3, column 12", "'p' (parameter) must be written" };
        QTest::newRow("constant") << head + "  ROOT c = constant(1)\n}\n"
                                  << QStringList { "line 3, column 12", "'c' (constant) must be written" };
        QTest::newRow("fusion") << "HloModule m\nf {\n  x = f32[] parameter(0)\n  ROOT n = f32[] negate(x)\n}\n"
                                   "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = fusion(p), kind=kLoop, calls=f\n}\n"
                                << QStringList { "line 8, column 12", "'r' (fusion) must be written" };
        QTest::newRow("no index") << head + "  p = (f32[]) parameter(0)\n  ROOT g = get-tuple-element(p)\n}\n"
                                  << QStringList { "line 4, column 3",
                                         "cannot infer the shape of 'g' (get-tuple-element): get-tuple-element needs "
                                         "index= to infer its shape" };
        QTest::newRow("index out of the tuple")
            << head + "  p = (f32[]) parameter(0)\n  ROOT g = get-tuple-element(p), index=1\n}\n"
            << QStringList { "line 4, column 3", "index 1 is out of the bounds of (f32[])" };
        QTest::newRow("operand defined later")
            << head + "  n = negate(q)\n  q = f32[] parameter(0)\n  ROOT r = f32[] add(n, q)\n}\n"
            << QStringList { "line 3, column 14",
                   "cannot infer the shape of 'n' (negate): its operand 'q' is not defined before it" };
        QTest::newRow("callee defined later")
            << "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = call(p), to_apply=c\n}\n"
               "c {\n  ROOT x = f32[] parameter(0)\n}\n"
            << QStringList { "line 4, column 30",
                   "cannot infer the shape of 'r' (call): computation 'c' is not defined before it" };
        QTest::newRow("different element types")
            << head + "  p = f32[2]{0} parameter(0)\n  q = s32[2]{0} parameter(1)\n  ROOT a = add(p, q)\n}\n"
            << QStringList { "line 5, column 3",
                   "binary op add with different element types: f32[2]{0} and s32[2]{0}" };
        QTest::newRow("negate of a tuple") << head + "  p = (f32[]) parameter(0)\n  ROOT n = negate(p)\n}\n"
                                           << QStringList { "line 4, column 3", "expected an array" };
        QTest::newRow("not a permutation")
            << head + "  p = f32[2,3]{1,0} parameter(0)\n  ROOT t = transpose(p), dimensions={0,0}\n}\n"
            << QStringList { "line 4, column 3", "are not a permutation" };
        QTest::newRow("opt-barrier") << head + "  p = (f32[]) parameter(0)\n  ROOT o = opt-barrier(p)\n}\n"
                                     << QStringList { "line 4, column 3", "XLA's shape inference refuses opt-barrier" };
        QTest::newRow("map without dimensions")
            << "HloModule m\nn {\n  x = f32[] parameter(0)\n  ROOT y = f32[] negate(x)\n}\n"
               "ENTRY e {\n  p = f32[4]{0} parameter(0)\n  ROOT r = map(p), to_apply=n\n}\n"
            << QStringList { "line 8, column 3", "map needs dimensions={0,...,0}" };
        // Inferred, then refused by the verifier as XLA's verifier refuses an implicit broadcast.
        QTest::newRow("implicit broadcast")
            << head + "  p = f32[2]{0} parameter(0)\n  s = f32[] parameter(1)\n  ROOT a = add(p, s)\n}\n"
            << QStringList { "line 5, column 3", "add operand 1 ('s') has shape f32[] but the result is f32[2]{0}" };
    }
    void shapesThatCannotBeInferred()
    {
        QFETCH(QString, text);
        QFETCH(QStringList, expected);
        expectParseError(text, expected, QStringLiteral("test.hlo: line "));
    }

    // docs/formats.md §8.7: an operand written as an instruction becomes an instruction of its own,
    // named as XLA names it, placed before its user in XLA's order.
    void instructionsWrittenAsOperands()
    {
        ModuleTuningData d;
        d.hasModule = true;
        d.module = parse("HloModule m\n"
                         "c {\n  parameter.anon.1 = f32[] parameter(0)\n  ROOT r = f32[] negate(parameter.anon.1)\n}\n"
                         "ENTRY e {\n"
                         "  ROOT root = add(f32[10]{0} parameter(0), multiply(f32[10]{0} parameter(1), "
                         "f32[10]{0} parameter(2)))\n}\n");
        const HloModule& m = d.module;
        const HloComputation& e = m.computations[size_t(m.entryIndex())];
        std::vector<std::string> names;
        for (const HloInstruction& i : m.instructionsOf(e))
            names.emplace_back(i.name);
        // Depth-first, left to right, each before its user; `parameter.anon.1` was taken in `c`.
        QCOMPARE(names,
            (std::vector<std::string> {
                "parameter.anon", "parameter.anon.2", "parameter.anon.3", "multiply.anon", "root" }));
        const HloInstruction& root = byName(m, "root");
        QCOMPARE(root.id, e.rootId);
        QCOMPARE(vec(m.span(root.operandIds)),
            (std::vector<int64_t> { byName(m, "parameter.anon").id, byName(m, "multiply.anon").id }));
        QCOMPARE(vec(m.span(byName(m, "multiply.anon").operandIds)),
            (std::vector<int64_t> { byName(m, "parameter.anon.2").id, byName(m, "parameter.anon.3").id }));
        QCOMPARE(byName(m, "parameter.anon.3").parameterNumber, int64_t(2));
        QCOMPARE(m.shapeToText(root.shape), std::string("f32[10]{0}"));
        QCOMPARE(byName(m, "multiply.anon").line, 7u);
        QCOMPARE(byName(m, "multiply.anon").column, 44u);
        // The graph: one node each, edges user -> operand, one root per computation.
        const LayoutGraph g = featurizeLayout(d, "test.hlo");
        QCOMPARE(g.nodeCount(), int64_t(7));
        std::vector<std::pair<int64_t, int64_t>> edges;
        for (int64_t k = 0; k < g.edgeCount(); ++k)
            edges.emplace_back(g.edgeIndex(k, 0), g.edgeIndex(k, 1));
        QCOMPARE(
            edges, (std::vector<std::pair<int64_t, int64_t>> { { 1, 0 }, { 5, 3 }, { 5, 4 }, { 6, 2 }, { 6, 5 } }));
        QCOMPARE(g.nodeFeat(6, 0), 1.0f);
        QCOMPARE(g.nodeFeat(5, 0), 0.0f);
        QCOMPARE(g.nodeOpcode[5], int64_t(59)); // multiply
        // The operands keep their names through protobuf.
        const std::string bytes = encodeHloModuleProto(m);
        const HloProtoFile file = readHloProto(bytesOf(bytes), "m.pb");
        const HloModule& back = file.modules.at(0).module;
        QCOMPARE(std::string(back.instructions[5].name), std::string("multiply.anon"));
        // Inside an instruction with attributes; a constant written in place; a generated name taken later.
        const HloModule r
            = parse("HloModule m\nadd {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
                    "  ROOT s = f32[] add(x, y)\n}\nENTRY e {\n  p = f32[4,2]{1,0} parameter(0)\n"
                    "  ROOT r = f32[4]{0} reduce(p, f32[] constant(0)), dimensions={1}, to_apply=add\n}\n");
        QCOMPARE(std::string(r.instructions[4].name), std::string("constant.anon"));
        QCOMPARE(vec(r.span(r.instructions[5].operandIds)), (std::vector<int64_t> { 3, 4 }));
        testutil::expectInputError(
            [] {
                parse("HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  a = f32[] add(negate(p), p)\n"
                      "  negate.anon = f32[] copy(a)\n  ROOT r = f32[] add(a, negate.anon)\n}\n");
            },
            { "test.hlo: line 5, column 3: duplicate instruction name 'negate.anon'" });
        // Named operands and operands written in place mix; a name may be written after its shape.
        const HloModule mixed = parse("HloModule m\nENTRY e {\n  p = f32[2]{0} parameter(0)\n"
                                      "  ROOT t = (f32[2]{0}, f32[2]{0}) tuple(f32[2]{0} p, f32[2]{0} negate(p))\n}\n");
        QCOMPARE(vec(mixed.span(mixed.instructions.back().operandIds)), (std::vector<int64_t> { 0, 1 }));
    }

    // XLA's NameUniquer as its parser uses it (docs/formats.md §8.7).
    void namesXlaGenerates()
    {
        HloNameUniquer u;
        QCOMPARE(u.unique("add.anon"), std::string("add.anon"));
        QCOMPARE(u.unique("add.anon"), std::string("add.anon.1"));
        u.registerWritten("add.anon.2");
        u.registerWritten("add.anon.7");
        QCOMPARE(u.unique("add.anon"), std::string("add.anon.3"));
        QCOMPARE(u.unique("add.anon"), std::string("add.anon.4"));
        QCOMPARE(u.unique("negate.anon"), std::string("negate.anon"));
        u.registerWritten("x"); // cannot meet a generated name: not kept
        QCOMPARE(u.unique("x"), std::string("x"));
        QCOMPARE(u.unique("x"), std::string("x.1"));
        QCOMPARE(u.unique("x.5"), std::string("x.5"));
        QCOMPARE(u.unique("x.5"), std::string("x.2"));
        QCOMPARE(u.unique("1abc"), std::string("_abc"));
        QCOMPARE(u.unique("f32"), std::string("f32_")); // a type name is no name in HLO text
    }

    // docs/formats.md §8.6: a dot takes lhs, rhs and one metadata operand per sparsity descriptor.
    void sparseDots()
    {
        const QString head
            = "HloModule m\nENTRY e {\n  a = f32[4,8]{1,0} parameter(0)\n  b = f32[16,8]{1,0} parameter(1)\n"
              "  meta = u16[4,1]{1,0} parameter(2)\n";
        const HloModule m = parse((head
            + "  ROOT d = f32[4,8]{1,0} dot(a, b, meta), lhs_contracting_dims={1}, rhs_contracting_dims={0}, "
              "sparsity=L.1@2:4\n}\n")
                                      .toStdString());
        const HloDotDims& dn = m.dotDims.at(size_t(m.detailsOf(m.instructions.back()).dotDims));
        QCOMPARE(vec(m.span(dn.sparsity)), (std::vector<int64_t> { 0, 1, 2, 4 }));
        // Through protobuf (dot_sparsity = 86) and back.
        const std::string bytes = encodeHloModuleProto(m);
        const HloProtoFile file = readHloProto(bytesOf(bytes), "m.pb");
        const HloModule& back = file.modules.at(0).module;
        const HloDotDims& bn = back.dotDims.at(size_t(back.detailsOf(back.instructions.back()).dotDims));
        QCOMPARE(vec(back.span(bn.sparsity)), (std::vector<int64_t> { 0, 1, 2, 4 }));
        QCOMPARE(vec(back.span(bn.lhsContracting)), (std::vector<int64_t> { 1 }));
        verifyHloModule(back, "m.pb");
        expectParseError(head
                + "  ROOT d = f32[4,8]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}, "
                  "sparsity=L.1@2:4\n}\n",
            { "line 6, column 3",
                "'d': dot with 1 sparsity descriptor takes 3 operands (lhs, rhs, then one metadata operand per "
                "descriptor), got 2" },
            "test.hlo: ");
        expectParseError(
            head + "  ROOT d = f32[4,8]{1,0} dot(a, b, meta), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n",
            { "line 6, column 3", "'d': dot takes 2 operands, got 3" }, "test.hlo: ");
        expectParseError(head + "  ROOT d = f32[4,8]{1,0} dot(a, b, meta), sparsity=L.1@4:2\n}\n",
            { "line 6, column 56", "invalid structured sparsity 4:2 (it takes 1 <= n < m)" }, "test.hlo: ");
        expectParseError(head + "  ROOT d = f32[4,8]{1,0} dot(a, b, meta), sparsity=X.1@2:4\n}\n",
            { "line 6, column 52", "expected a sparsity descriptor like L.1@2:4" }, "test.hlo: ");
        expectParseError(
            head + "  ROOT d = f32[4,8]{1,0} dot(a, b, meta, meta, meta), sparsity=L.1@2:4_R.0@2:4_L.0@2:4\n}\n",
            { "too many sparsity descriptors: 3" }, "test.hlo: ");
        // Current XLA: a convolution may take more operands than lhs and rhs.
        const HloModule conv = parse("HloModule m\nENTRY e {\n  x = f32[1,4,4,2]{3,2,1,0} parameter(0)\n"
                                     "  k = f32[1,1,2,2]{3,2,1,0} parameter(1)\n  s = f32[] parameter(2)\n"
                                     "  ROOT c = f32[1,4,4,2]{3,2,1,0} convolution(x, k, s), window={size=1x1}, "
                                     "dim_labels=b01f_01io->b01f\n}\n");
        QCOMPARE(conv.instructions.back().operandIds.count, 3u);
        expectParseError(
            "HloModule m\nENTRY e {\n  x = f32[1,4,4,2]{3,2,1,0} parameter(0)\n"
            "  ROOT c = f32[1,4,4,2]{3,2,1,0} convolution(x), window={size=1x1}, dim_labels=b01f_01io->b01f\n}\n",
            { "line 4, column 3", "'c': convolution takes at least 2 operands, got 1" }, "test.hlo: ");
        expectParseError("HloModule m\nENTRY e {\n  a = f32[2,3]{1,0} parameter(0)\n"
                         "  ROOT r = f32[2,3]{1,0} ragged-dot(a, a)\n}\n",
            { "line 4, column 3", "'r': ragged-dot takes 3 operands, got 2" }, "test.hlo: ");
    }

    // read -> write text -> read (docs/formats.md §8.8): the shapes the reader inferred are printed,
    // operands written as instructions become named instructions, and nothing the features read is lost.
    void textRoundTrip()
    {
        const std::string text
            = "HloModule round_trip\n"
              "max {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT m = maximum(x, y)\n}\n"
              "less {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
              "  ROOT c = compare(x, y), direction=LT\n}\n"
              "cond {\n  c = (s32[], f32[8]{0}) parameter(0)\n  i = get-tuple-element(c), index=0\n"
              "  ROOT lt = compare(i, s32[] constant(4)), direction=LT\n}\n"
              "body {\n  b = (s32[], f32[8]{0}) parameter(0)\n  i = get-tuple-element(b), index=0\n"
              "  v = get-tuple-element(b), index=1\n"
              "  ROOT t = tuple(add(i, s32[] constant(1)), negate(v))\n}\n"
              "ENTRY main {\n  p = f32[8]{0} parameter(0), metadata={op_type=\"Relu\" op_name=\"net/\\\"relu\\\"\"}\n"
              "  img = f32[1,6,6,2]{3,2,1,0} parameter(1)\n  k = f32[3,3,2,4]{3,2,1,0} parameter(2)\n"
              "  a = f32[4,8]{1,0} parameter(3)\n  w = f32[16,8]{1,0} parameter(4)\n"
              "  meta = u16[4,1]{1,0} parameter(5)\n"
              "  loop = while(tuple(s32[] constant(0), p)), condition=cond, body=body\n"
              "  r = get-tuple-element(loop), index=1\n"
              "  s = reduce(r, f32[] constant(0)), dimensions={0}, to_apply=max\n"
              "  conv = convolution(img, k), window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f\n"
              "  pool = reduce-window(conv, f32[] constant(0)), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=max\n"
              "  d = dot(a, w, meta), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sparsity=L.1@2:4\n"
              "  sl = f32[2,4]{1,0} slice(d), slice={[0:4:2], [0:4]}\n"
              "  pd = pad(sl, f32[] constant(0)), padding=1_1x0_2_1\n"
              "  tr = transpose(pd), dimensions={1,0}\n"
              "  so = sort(r), dimensions={0}, is_stable=true, to_apply=less\n"
              "  ROOT out = tuple(s, pool, tr, broadcast(s), so)\n"
              "}\n";
        expectTextRoundTrip(text);
        const HloModule m = parse(text);
        const std::string written = writeHloText(m);
        // Inferred shapes are printed; generated names are written as names.
        for (const char* line : { "ROOT %m = f32[] maximum(%x, %y)", "%i = s32[] get-tuple-element(%c), index=0",
                 "%constant.anon = s32[] constant({...})",
                 "ROOT %lt = pred[] compare(%i, %constant.anon), direction=LT", "%negate.anon = f32[8]{0} negate(%v)",
                 "%loop = (s32[], f32[8]{0}) while(%tuple.anon), body=%body, condition=%cond",
                 "%conv = f32[1,3,3,4]{3,2,1,0} convolution(%img, %k), window={size=3x3 stride=2x2 pad=1_1x1_1}, "
                 "dim_labels=b01f_01io->b01f",
                 "%pool = f32[1,1,1,4]{3,2,1,0} reduce-window(%conv, %constant.anon.4), window={size=1x2x2x1 "
                 "stride=1x2x2x1}, "
                 "to_apply=%max",
                 "%d = f32[4,8]{1,0} dot(%a, %w, %meta), lhs_contracting_dims={1}, rhs_contracting_dims={0}, "
                 "sparsity=L.1@2:4",
                 "%sl = f32[2,4]{1,0} slice(%d), slice={[0:4:2], [0:4]}",
                 "%pd = f32[4,9]{1,0} pad(%sl, %constant.anon.5), padding=1_1x0_2_1",
                 "%tr = f32[9,4]{0,1} transpose(%pd), dimensions={1,0}",
                 "%so = f32[8]{0} sort(%r), dimensions={0}, is_stable=true, to_apply=%less",
                 "ROOT %out = (f32[], f32[1,1,1,4]{3,2,1,0}, f32[9,4]{0,1}, f32[], f32[8]{0}) tuple(%s, %pool, %tr, "
                 "%broadcast.anon, %so)",
                 "metadata={op_type=\"Relu\" op_name=\"net/\\\"relu\\\"\"}" })
            QVERIFY2(written.find(line) != std::string::npos,
                qPrintable(QString::fromStdString(line + std::string(" not in:\n") + written)));
        // The grammar sample (old-style operand shapes, tiled layouts, async ops, execution threads).
        expectTextRoundTrip(kModule);
        // dim_labels with '?' for dimensions no label names, as custom-calls write them.
        const std::string unnamedDims
            = "HloModule m\nENTRY e {\n  ROOT r = f32[100]{0} custom-call(), window={size=2x2}, "
              "dim_labels=?b01f_0?1io->b01?f, custom_call_target=\"t\"\n}\n";
        expectTextRoundTrip(unnamedDims);
        QVERIFY(writeHloText(parse(unnamedDims)).find("dim_labels=?b01f_0?1io->b01?f,") != std::string::npos);
        // Labels that leave `b` out give it dimension 0, which a spatial label also takes: no
        // dim_labels can spell that, so it is refused rather than written wrong.
        try {
            writeHloText(parse("HloModule m\nENTRY e {\n  ROOT r = f32[4]{0} custom-call(), window={size=2}, "
                               "dim_labels=0f_0io->0f\n}\n"));
            QFAIL("no error");
        } catch (const HloTextWriteError& e) {
            QVERIFY2(std::string(e.what()).find("not a permutation") != std::string::npos, e.what());
        }
        // A name that is not an HLO identifier (a protobuf module may hold one) is refused, not written.
        HloModule odd = parse("HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n");
        odd.instructions[0].name = odd.intern("a b");
        try {
            writeHloText(odd);
            QFAIL("no error");
        } catch (const HloTextWriteError& e) {
            QVERIFY2(std::string(e.what()).find("the instruction name \"a b\" cannot be written") != std::string::npos,
                e.what());
        }
    }

    void realDumps_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("instructions");
        QTest::addColumn<int>("convolutions");
        QTest::addColumn<int>("dots");
        QTest::addColumn<int>("opNames");
        QTest::newRow("ssd_mobilenet") << "ssd_mobilenet_tf.hlo" << 508 << 47 << 0 << 507;
        QTest::newRow("graphsage") << "graphsage_tf.hlo" << 138 << 0 << 7 << 123;
    }
    void realDumps()
    {
        const QString data = testutil::sharedDataDir();
        if (data.isEmpty())
            QSKIP("../shared/data is absent: real HLO dumps not available");
        QFETCH(QString, file);
        QFETCH(int, instructions);
        QFETCH(int, convolutions);
        QFETCH(int, dots);
        QFETCH(int, opNames);
        ModuleTuningData d;
        d.hasModule = true;
        d.module = parseHloTextFile(testutil::str(data + "/hlo/" + file));
        const HloModule& m = d.module;
        QCOMPARE(int(m.instructions.size()), instructions);
        // Instructions carrying an op_name (the lines with a non-empty op_name="..."), lean or not.
        QCOMPARE(int(m.opNameCount()), opNames);
        HloTextOptions lean;
        lean.keepAttributes = false;
        QCOMPARE(int(parseHloTextFile(testutil::str(data + "/hlo/" + file), lean).opNameCount()), opNames);
        int conv = 0, dot = 0, reshape = 0;
        for (const auto& i : m.instructions) {
            conv += i.opcode == "convolution";
            dot += i.opcode == "dot";
            reshape += i.opcode == "reshape";
        }
        QCOMPARE(conv, convolutions);
        QCOMPARE(dot, dots);
        QCOMPARE(m.entryIndex(), int64_t(m.computations.size()) - 1);
        // Written as text and read back, the dump keeps its shapes, operands, calls and features.
        expectSameModule(m, parseHloText(writeHloText(m), "written.hlo"));
        const LayoutGraph g = featurizeLayout(d, file.toStdString());
        QCOMPARE(g.configurableCount(), int64_t(conv + dot + reshape));
        QCOMPARE(g.nodeSplits[g.nodeSplits.size() - 1], int64_t(instructions));
        // the entry's name contains "cluster": a split closes right after it (= the end)
        QVERIFY(m.computations.back().name.find("cluster") != std::string_view::npos);
        // every node has its element type's one-hot or is of an unlisted type
        for (int64_t i = 0; i < g.nodeCount(); ++i) {
            float hot = 0;
            for (int c = 2; c <= 20; ++c)
                hot += g.nodeFeat(i, c);
            QVERIFY(hot == 1.0f);
        }
    }

    // docs/formats.md §5.2: tile config features (SEQ6 with product 0 for empty lists) and the run rules.
    void tileFeaturesAndRunRules()
    {
        ModuleTuningData d;
        d.hasModule = true;
        d.module = parseHloText("HloModule k\nENTRY fusion.191 {\n  p = f32[12,4]{1,0} parameter(0)\n"
                                "  ROOT r = f32[48]{0} reshape(p)\n}\n",
            "k.hlo");
        auto run
            = [](std::vector<int64_t> kb, std::vector<int64_t> ob, int64_t ns, bool isDefault, bool error = false) {
                  TuningRun r;
                  r.config = TuningRun::Config::Op;
                  r.hasTileSizeConfig = true;
                  r.tile.kernelBounds = std::move(kb);
                  r.tile.outputBounds = std::move(ob);
                  r.tile.iterationBounds = { 7, 7 }; // ignored by the featurizer
                  r.hasProfile = true;
                  r.computeTimeNs = ns;
                  r.isDefault = isDefault;
                  r.error = error;
                  return r;
              };
        d.runs = { run({ 3, 1, 24, 3 }, { 12, 4, 4, 3 }, 6788, true), run({}, { 2, 26, 4, 2 }, 5578, false),
            run({}, {}, 9000, false), run({ 1 }, { 1 }, 1, false), run({ 2 }, { 2 }, 7000, false, true) };
        QCOMPARE(collectionOf(d), GraphKind::Tile);
        RunSelection sel;
        const TileGraph t = featurizeTile(d, "k.pb", {}, &sel);
        QCOMPARE(sel.total, int64_t(5));
        QCOMPARE(sel.kept, int64_t(3)); // error run and compute_time_ns <= 1 dropped
        QCOMPARE(sel.errors, int64_t(1));
        QCOMPARE(t.configCount(), int64_t(3));
        const std::vector<float> first(t.configFeat.row(0), t.configFeat.row(0) + 24);
        QCOMPARE(first,
            (std::vector<float> { 3, 1, 24, 3, 0, 0, 31, 216, 12, 4, 4, 3, 0, 0, 23, 576, 0, 0, 0, 0, 0, 0, 0, 0 }));
        const std::vector<float> second(t.configFeat.row(1), t.configFeat.row(1) + 24);
        QCOMPARE(second,
            (std::vector<float> { 0, 0, 0, 0, 0, 0, 0, 0, 2, 26, 4, 2, 0, 0, 34, 416, 0, 0, 0, 0, 0, 0, 0, 0 }));
        const std::vector<float> third(t.configFeat.row(2), t.configFeat.row(2) + 24);
        QCOMPARE(third, std::vector<float>(24, 0.0f));
        QCOMPARE(t.configRuntime, (NdArray<int64_t>::fromVector({ 3 }, { 6788, 5578, 9000 })));
        QCOMPARE(t.configRuntimeNormalizers, (NdArray<int64_t>::fromVector({ 3 }, { 6788, 6788, 6788 })));
        // a run without a tile size config, a single run, or no default run are errors
        ModuleTuningData missing = [&] {
            ModuleTuningData m;
            m.hasModule = true;
            m.module = parseHloText("HloModule k\nENTRY e {\n  ROOT p = f32[2]{0} parameter(0)\n}\n", "m.hlo");
            m.runs = { run({ 1 }, { 1 }, 10, true), run({ 2 }, { 2 }, 20, false) };
            return m;
        }();
        missing.runs[1].hasTileSizeConfig = false;
        testutil::expectInputError([&] { featurizeTile(missing, "m.pb"); }, { "m.pb", "runs[1]", "tile_size_config" });
        missing.runs.resize(1);
        testutil::expectInputError([&] { featurizeTile(missing, "m.pb"); }, { "more than one tuning run" });
        missing.runs = { run({ 1 }, { 1 }, 10, false), run({ 2 }, { 2 }, 20, false) };
        testutil::expectInputError([&] { featurizeTile(missing, "m.pb"); }, { "no usable default run" });
    }

    // docs/formats.md §7.1, every figure, on the real tuning record.
    void realTuningRecordMatchesSpec()
    {
        const QString data = testutil::sharedDataDir();
        if (data.isEmpty())
            QSKIP("../shared/data is absent: the real tuning record is not available");
        const std::string path = testutil::str(data + "/tpu_graphs/module_tuning_data_layout.pb");
        const HloProtoFile file = readHloProtoFile(path);
        QCOMPARE(file.format, HloSourceFormat::ModuleTuningData);
        QCOMPARE(file.modules.size(), size_t(1));
        RunSelection runs;
        FeaturizeOptions insertion;
        insertion.sortEdges = false; // the checksums are stated for insertion-order edges
        const LayoutGraph g = featurizeLayout(file.modules[0], path, insertion, &runs);
        QCOMPARE(g.nodeCount(), int64_t(3163));
        QCOMPARE(g.edgeCount(), int64_t(5112));
        QCOMPARE(g.nodeSplits, (NdArray<int64_t>::fromVector({ 8 }, { 0, 449, 453, 467, 471, 498, 502, 3163 })));
        QCOMPARE(g.configurableCount(), int64_t(62));
        int conv = 0, reshape = 0;
        for (int64_t id : g.nodeConfigIds.values()) {
            conv += g.nodeOpcode[id] == 26;
            reshape += g.nodeOpcode[id] == 75;
        }
        QCOMPARE(conv, 53);
        QCOMPARE(reshape, 9);
        QCOMPARE(g.nodeConfigIds[0], int64_t(443));
        QCOMPARE(g.nodeConfigIds[1], int64_t(461));
        QCOMPARE(runs.total, int64_t(122));
        QCOMPARE(runs.errors, int64_t(10));
        QCOMPARE(runs.kept, int64_t(112));
        QCOMPARE(runs.defaultRun, int64_t(0));
        QCOMPARE(runs.defaultRuntime, int64_t(910903932));
        QCOMPARE(g.configCount(), int64_t(112));
        const auto [lo, hi] = std::minmax_element(g.configRuntime.data(), g.configRuntime.data() + g.configCount());
        QCOMPARE(*lo, int64_t(910876401));
        QCOMPARE(*hi, int64_t(925642328));
        // regression checksums
        int64_t opcodeSum = 0;
        for (int64_t op : g.nodeOpcode.values())
            opcodeSum += op;
        QCOMPARE(opcodeSum, int64_t(139867));
        double total = 0, col0 = 0, col13 = 0, col15 = 0, col28 = 0;
        for (int64_t i = 0; i < g.nodeCount(); ++i) {
            for (int c = 0; c < kNodeFeatures; ++c)
                total += double(g.nodeFeat(i, c));
            col0 += g.nodeFeat(i, 0);
            col13 += g.nodeFeat(i, 13);
            col15 += g.nodeFeat(i, 15);
            col28 += double(g.nodeFeat(i, 28));
        }
        QCOMPARE(total, 30551286504.0);
        QCOMPARE(col0, 143.0);
        QCOMPARE(col13, 2504.0);
        QCOMPARE(col15, 300.0);
        QCOMPARE(col28, 29784024007.0);
        int nonConstant = 0;
        for (int c = 0; c < kNodeFeatures; ++c) {
            bool varies = false;
            for (int64_t i = 1; i < g.nodeCount() && !varies; ++i)
                varies = g.nodeFeat(i, c) != g.nodeFeat(0, c);
            nonConstant += varies;
        }
        QCOMPARE(nonConstant, 96);
        std::vector<bool> hasOut(size_t(g.nodeCount()), false);
        for (int64_t e = 0; e < g.edgeCount(); ++e)
            hasOut[size_t(g.edgeIndex(e, 0))] = true;
        QCOMPARE(int(std::count(hasOut.begin(), hasOut.end(), false)), 362);
        const int64_t m = g.edgeCount();
        QCOMPARE((std::vector<int64_t> {
                     g.edgeIndex(m - 3, 0), g.edgeIndex(m - 3, 1), g.edgeIndex(m - 2, 1), g.edgeIndex(m - 1, 1) }),
            (std::vector<int64_t> { 3162, 3161, 511, 519 }));
        std::vector<int64_t> whileEdges;
        for (int64_t e = 0; e < m; ++e)
            if (g.edgeIndex(e, 0) == 1239)
                whileEdges.push_back(g.edgeIndex(e, 1));
        QCOMPARE(whileEdges, (std::vector<int64_t> { 1238, 448, 452 }));
        // docs/formats.md §4.5: node 660, convolution.1043
        std::map<int, float> want = withEmptyProducts({ { 15, 1 }, { 21, 2 }, { 22, 96 }, { 23, 96 }, { 24, 96 },
            { 25, 32 }, { 27, 322 }, { 28, 56623104 }, { 37, 3 }, { 38, 3 }, { 39, 3 }, { 43, 9 }, { 44, 27 },
            { 45, 1 }, { 46, 1 }, { 47, 1 }, { 51, 3 }, { 52, 1 }, { 53, 1 }, { 54, 1 }, { 55, 1 }, { 59, 3 },
            { 60, 1 }, { 61, 1 }, { 62, 1 }, { 63, 1 }, { 67, 3 }, { 68, 1 }, { 69, 1 }, { 70, 1 }, { 71, 1 },
            { 75, 3 }, { 76, 1 }, { 77, 1 }, { 78, 1 }, { 79, 1 }, { 83, 3 }, { 84, 1 }, { 92, 3 }, { 94, 4 },
            { 95, 1 }, { 96, 2 }, { 97, 3 }, { 99, 3 }, { 100, 4 }, { 101, 0 }, { 102, 1 }, { 103, 2 }, { 106, 4 },
            { 107, 1 }, { 108, 1 }, { 134, 4 }, { 135, 3 }, { 136, 2 }, { 137, 1 } });
        expectFeatures(std::vector<float>(g.nodeFeat.row(660), g.nodeFeat.row(660) + kNodeFeatures), want);
        // docs/formats.md §5.1: a convolution's layout row pins the two most-minor dims of its three tensors
        const int64_t k = 4; // node 660 is the fifth configurable node (443, 461, 488, 652, 660)
        QCOMPARE(g.nodeConfigIds[k], int64_t(660));
        for (int t = 0; t < 3; ++t) {
            QVERIFY(g.nodeConfigFeat(0, k, 6 * t) >= -1.0f);
            for (int slot = 2; slot < 6; ++slot)
                QCOMPARE(g.nodeConfigFeat(1, k, 6 * t + slot), -1.0f);
        }
    }
};

QTEST_GUILESS_MAIN(TestHloText)
#include "tst_hlotext.moc"
