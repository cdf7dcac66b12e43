// SPDX-License-Identifier: Apache-2.0
// HLO module diffs (core/diff, docs/diff.md): the invariants of every diff (matched + removed =
// instructions of A, matched + added = instructions of B, one match per instruction, kinds and
// summaries consistent), a module against itself, one edit of each kind (layout, opcode, operands,
// attributes, shape), a renamed instruction, an added one, a fusion formed by a pass and undone,
// each matching stage on its own, the reports (text, JSON, HTML) with odd names, and the real dump
// folder's before/after pairs and consecutive per-pass files (label external).

#include "core/diff/diffreport.h"
#include "core/diff/hlodiff.h"
#include "core/hlo/hlotext.h"
#include "core/synth/hlogen.h"
#include "core/util/json.h"
#include "testutil.h"

#include <QDir>
#include <QRegularExpression>
#include <QtTest>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

using namespace tgraph;

namespace {

HloModule parse(const std::string& text, const std::string& file = "a.hlo") { return parseHloText(text, file); }

std::string generate(const std::string& family, int64_t size, bool metadata = true)
{
    HloGenSpec spec;
    spec.family = family;
    spec.instructions = size;
    spec.seed = 7;
    spec.metadata = metadata;
    return generateHloText(spec);
}

HloDiffOptions only(std::initializer_list<HloMatchStage> stages)
{
    HloDiffOptions o;
    o.stages.fill(false);
    for (const HloMatchStage s : stages)
        o.stages[size_t(s)] = true;
    return o;
}

int64_t find(const HloModule& m, std::string_view name)
{
    for (size_t i = 0; i < m.instructions.size(); ++i)
        if (m.instructions[i].name == name)
            return int64_t(i);
    return -1;
}

std::string nameOf(const HloModule& m, int64_t i)
{
    return i < 0 ? "<none>" : std::string(m.instructions[size_t(i)].name);
}

// Everything that must hold for any diff of any two modules.
void checkInvariants(const HloDiff& d, const HloModule& a, const HloModule& b)
{
    const size_t na = a.instructions.size(), nb = b.instructions.size();
    QCOMPARE(d.instructionsA, na);
    QCOMPARE(d.instructionsB, nb);
    QCOMPARE(d.matched() + d.removed.size(), na);
    QCOMPARE(d.matched() + d.added.size(), nb);
    QCOMPARE(d.matchOfA.size(), na);
    QCOMPARE(d.matchOfB.size(), nb);
    size_t matchedA = 0;
    for (size_t x = 0; x < na; ++x)
        if (d.matchOfA[x] >= 0) {
            ++matchedA;
            QVERIFY(size_t(d.matchOfA[x]) < nb);
            QCOMPARE(d.matchOfB[size_t(d.matchOfA[x])], int32_t(x)); // one partner, both ways
        }
    QCOMPARE(matchedA, d.matched());
    size_t byStage = 0;
    for (size_t s = 0; s < kHloMatchStageCount; ++s)
        byStage += d.matchedByStage[s];
    QCOMPARE(byStage, d.matched());
    QCOMPARE(d.matchedByStage[size_t(HloMatchStage::None)], size_t(0));
    std::vector<uint32_t> changed;
    std::array<std::vector<uint32_t>, kHloChangeKindCount> byKind;
    for (size_t k = 0; k < d.pairs.size(); ++k) {
        const HloDiffPair& p = d.pairs[k];
        QCOMPARE(d.matchOfA[p.a], int32_t(p.b));
        QCOMPARE(d.pairOfA[p.a], int32_t(k));
        QCOMPARE(d.pairOfB[p.b], int32_t(k));
        QVERIFY(p.stage != HloMatchStage::None);
        QVERIFY(k == 0 || d.pairs[k - 1].a < p.a); // A's order
        QVERIFY(!(p.has(HloChangeKind::Shape) && p.has(HloChangeKind::Layout)));
        QVERIFY(!(p.has(HloChangeKind::FusedInto) && p.has(HloChangeKind::FusedOutOf)));
        if (p.kinds)
            changed.push_back(uint32_t(k));
        for (size_t kind = 0; kind < kHloChangeKindCount; ++kind)
            if (p.has(HloChangeKind(kind)))
                byKind[kind].push_back(uint32_t(k));
    }
    QCOMPARE(d.changed, changed);
    for (size_t kind = 0; kind < kHloChangeKindCount; ++kind)
        QCOMPARE(d.byKind[kind], byKind[kind]);
    QVERIFY(std::is_sorted(d.removed.begin(), d.removed.end()));
    QVERIFY(std::is_sorted(d.added.begin(), d.added.end()));
    for (const uint32_t x : d.removed)
        QCOMPARE(d.matchOfA[x], -1);
    for (const uint32_t y : d.added)
        QCOMPARE(d.matchOfB[y], -1);
    QCOMPARE(d.same(), d.changed.empty() && d.removed.empty() && d.added.empty());

    // Computation rows: each computation once, and the counts add up.
    std::vector<int> seenA(a.computations.size(), 0), seenB(b.computations.size(), 0);
    size_t instrA = 0, instrB = 0, sideA = 0, sideB = 0, removed = 0, added = 0, changedInRows = 0;
    for (const HloComputationDiff& c : d.computations) {
        QVERIFY(c.a >= 0 || c.b >= 0);
        if (c.a >= 0)
            ++seenA[size_t(c.a)];
        if (c.b >= 0)
            ++seenB[size_t(c.b)];
        QVERIFY(c.a >= 0 || c.instructionsA == 0);
        QVERIFY(c.b >= 0 || c.instructionsB == 0);
        QCOMPARE(size_t(c.unchanged + c.changed + c.removed + c.movedOut), size_t(c.instructionsA));
        instrA += c.instructionsA;
        instrB += c.instructionsB;
        sideA += c.unchanged + c.changed + c.removed + c.movedOut;
        sideB += c.unchanged + c.changed + c.added + c.movedIn;
        removed += c.removed;
        added += c.added;
        changedInRows += c.changed;
    }
    QVERIFY(std::all_of(seenA.begin(), seenA.end(), [](int n) { return n == 1; }));
    QVERIFY(std::all_of(seenB.begin(), seenB.end(), [](int n) { return n == 1; }));
    QCOMPARE(instrA, na);
    QCOMPARE(instrB, nb);
    QCOMPARE(sideA, na);
    QCOMPARE(sideB, nb);
    QCOMPARE(removed, d.removed.size());
    QCOMPARE(added, d.added.size());
    QVERIFY(changedInRows <= d.changed.size());
}

// Replaces the first match of `pattern` (a regular expression) in `text`; fails the test when none.
std::string edit(const std::string& text, const QString& pattern, const QString& replacement)
{
    QString s = QString::fromStdString(text);
    const QRegularExpression re(pattern, QRegularExpression::MultilineOption);
    const QRegularExpressionMatch m = re.match(s);
    if (!m.hasMatch())
        qFatal("pattern not found: %s", qPrintable(pattern));
    QString replaced = m.captured(0);
    replaced.replace(re, replacement);
    s.replace(m.capturedStart(0), m.capturedLength(0), replaced);
    return s.toStdString();
}

// Every occurrence of instruction name `from` (with its '%') renamed `to`.
std::string rename(const std::string& text, const std::string& from, const std::string& to)
{
    QString s = QString::fromStdString(text);
    s.replace(QRegularExpression("%" + QRegularExpression::escape(QString::fromStdString(from)) + "(?![\\w.-])"),
        "%" + QString::fromStdString(to));
    return s.toStdString();
}

const char* kUnfused = R"(HloModule m

ENTRY main {
  p0 = f32[4,8]{1,0} parameter(0)
  p1 = f32[4,8]{1,0} parameter(1)
  mul = f32[4,8]{1,0} multiply(p0, p1)
  add = f32[4,8]{1,0} add(mul, p0)
  ROOT neg = f32[4,8]{1,0} negate(add)
}
)";

// kUnfused after a fusion pass: the multiply and the add in a kernel, cloned under new names.
const char* kFused = R"(HloModule m

fused_computation {
  param_0 = f32[4,8]{1,0} parameter(0)
  param_1 = f32[4,8]{1,0} parameter(1)
  multiply.1 = f32[4,8]{1,0} multiply(param_0, param_1)
  ROOT add.1 = f32[4,8]{1,0} add(multiply.1, param_0)
}

ENTRY main {
  p0 = f32[4,8]{1,0} parameter(0)
  p1 = f32[4,8]{1,0} parameter(1)
  fusion = f32[4,8]{1,0} fusion(p0, p1), kind=kLoop, calls=fused_computation
  ROOT neg = f32[4,8]{1,0} negate(fusion)
}
)";

const std::string kChain = R"(HloModule m

ENTRY %main {
  %p0 = f32[4,8]{1,0} parameter(0)
  %x = f32[4,8]{1,0} exponential(%p0)
  %y = f32[4,8]{1,0} negate(%x)
  ROOT %r = f32[4,8]{1,0} add(%y, %p0)
}
)";

QString dumpFolder()
{
    const QString data = testutil::sharedDataDir();
    const QString dir = data + "/dumps/alpa_gpu_sm70";
    return !data.isEmpty() && QFileInfo(dir).isDir() ? dir : QString();
}

} // namespace

class TestHloDiff : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void moduleAgainstItselfHasNoChange_data()
    {
        QTest::addColumn<QString>("family");
        for (const auto& f : hloGenFamilies())
            QTest::newRow(f.c_str()) << QString::fromStdString(f);
    }
    void moduleAgainstItselfHasNoChange()
    {
        QFETCH(QString, family);
        const std::string text = generate(family.toStdString(), 3000);
        const HloModule a = parse(text), b = parse(text, "b.hlo");
        const HloDiff d = diffHloModules(a, b);
        checkInvariants(d, a, b);
        QVERIFY(d.same());
        QCOMPARE(d.matched(), a.instructions.size());
        for (const HloDiffPair& p : d.pairs)
            QCOMPARE(p.a, p.b);
        // Without names, the other stages find the same correspondence.
        const HloDiff blind = diffHloModules(a, b,
            only(
                { HloMatchStage::Metadata, HloMatchStage::Subgraph, HloMatchStage::TopDown, HloMatchStage::BottomUp }));
        checkInvariants(blind, a, b);
        QCOMPARE(blind.matchedByStage[size_t(HloMatchStage::Name)], size_t(0));
        QVERIFY2(blind.same(),
            qPrintable(QString("%1 changed, %2 removed, %3 added")
                           .arg(blind.changed.size())
                           .arg(blind.removed.size())
                           .arg(blind.added.size())));
    }

    void oneEditedLayoutIsOneLayoutChange()
    {
        const std::string text = generate("transformer", 3000);
        // An add of the entry computation: {1,0} -> {0,1}, nothing else.
        const QString line = "^(  %(add\\.\\d+) = f32\\[\\d+,\\d+\\])\\{1,0\\}( add\\()";
        const QRegularExpressionMatch m
            = QRegularExpression(line, QRegularExpression::MultilineOption).match(QString::fromStdString(text));
        QVERIFY(m.hasMatch());
        const std::string edited = edit(text, line, "\\1{0,1}\\3");
        const HloModule a = parse(text), b = parse(edited, "b.hlo");
        const HloDiff d = diffHloModules(a, b);
        checkInvariants(d, a, b);
        QCOMPARE(d.changed.size(), size_t(1));
        QVERIFY(d.added.empty() && d.removed.empty());
        const HloDiffPair& p = d.pairs[d.changed[0]];
        QCOMPARE(p.kinds, hloChangeBit(HloChangeKind::Layout));
        QCOMPARE(nameOf(a, p.a), m.captured(2).toStdString());
        QCOMPARE(nameOf(b, p.b), m.captured(2).toStdString());
        QCOMPARE(d.byKind[size_t(HloChangeKind::Layout)].size(), size_t(1));

        // The JSON says the same: one change of kind "layout".
        const HloDiffReport report { d, a, b, "a.hlo", "b.hlo" };
        const Json j = parseJson(jsonText(hloDiffJson(report)), "diff.json");
        QCOMPARE(j["a"]["instructions"].get<size_t>(), a.instructions.size());
        QCOMPARE(j["b"]["instructions"].get<size_t>(), b.instructions.size());
        QCOMPARE(j["matched"].get<size_t>(), a.instructions.size());
        QCOMPARE(j["added"].size(), size_t(0));
        QCOMPARE(j["removed"].size(), size_t(0));
        QCOMPARE(j["changed"].size(), size_t(1));
        QCOMPARE(j["changed"][0]["a"].get<std::string>(), m.captured(2).toStdString());
        QCOMPARE(j["changed"][0]["b"].get<std::string>(), m.captured(2).toStdString());
        QCOMPARE(j["changed"][0]["kinds"], Json::array({ "layout" }));
        QVERIFY(j["changed"][0]["b_shape"].get<std::string>().ends_with("{0,1}"));
        QCOMPARE(j["same"].get<bool>(), false);
    }

    void oneEditOfEachKind_data()
    {
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<QString>("replacement");
        QTest::addColumn<int>("kind");
        // add -> subtract under the same name: the opcode.
        QTest::newRow("opcode") << "^(  %add\\.\\d+ = f32\\[\\d+,\\d+\\]\\{1,0\\} )add\\("
                                << "\\1subtract(" << int(HloChangeKind::Opcode);
        // The operands of a multiply swapped.
        QTest::newRow("operands")
            << "^(  %multiply\\.\\d+ = f32\\[\\d+,\\d+\\]\\{1,0\\} multiply\\()(%[\\w.-]+), (?!\\2\\))(%[\\w.-]+)\\)"
            << "\\1\\3, \\2)" << int(HloChangeKind::Operands);
        // A comparison's direction (an attribute kept as text).
        QTest::newRow("attributes") << "(compare\\([^)]*\\), direction=)LT"
                                    << "\\1GT" << int(HloChangeKind::Attributes);
    }
    void oneEditOfEachKind()
    {
        QFETCH(QString, pattern);
        QFETCH(QString, replacement);
        QFETCH(int, kind);
        const std::string text = generate("transformer", 3000);
        const std::string edited = edit(text, pattern, replacement);
        QVERIFY(edited != text);
        const HloModule a = parse(text), b = parse(edited, "b.hlo");
        const HloDiff d = diffHloModules(a, b);
        checkInvariants(d, a, b);
        QVERIFY(d.added.empty() && d.removed.empty());
        QCOMPARE(d.changed.size(), size_t(1));
        QCOMPARE(int(d.pairs[d.changed[0]].kinds), int(hloChangeBit(HloChangeKind(kind))));
    }

    void shapeChangeIsNotALayoutChange()
    {
        const std::string a1
            = "HloModule m\nENTRY e {\n  p = f32[4]{0} parameter(0)\n  ROOT r = f32[4]{0} negate(p)\n}\n";
        const std::string b1
            = "HloModule m\nENTRY e {\n  p = f32[4]{0} parameter(0)\n  ROOT r = f32[2,2]{1,0} reshape(p)\n}\n";
        const HloModule a = parse(a1), b = parse(b1);
        const HloDiff d = diffHloModules(a, b);
        checkInvariants(d, a, b);
        QCOMPARE(d.changed.size(), size_t(1));
        QCOMPARE(d.pairs[d.changed[0]].kinds,
            uint16_t(hloChangeBit(HloChangeKind::Opcode) | hloChangeBit(HloChangeKind::Shape)));
        // Same dimensions, another element type: a shape change too.
        const std::string c1
            = "HloModule m\nENTRY e {\n  p = f32[4]{0} parameter(0)\n  ROOT r = s32[4]{0} negate(p)\n}\n";
        const HloModule c = parse(c1);
        const HloDiff e = diffHloModules(a, c);
        QCOMPARE(e.pairs[e.changed[0]].kinds, hloChangeBit(HloChangeKind::Shape));
    }

    void renamedInstructionStillMatches()
    {
        const std::string text = generate("resnet", 3000);
        const HloModule a = parse(text);
        // A convolution of the entry computation, renamed everywhere it is named.
        const int64_t conv = find(a, "convolution.3");
        QVERIFY(conv >= 0);
        const HloModule b = parse(rename(text, "convolution.3", "conv_renamed"), "b.hlo");
        const HloDiff d = diffHloModules(a, b);
        checkInvariants(d, a, b);
        QVERIFY(d.same());
        QCOMPARE(nameOf(b, d.matchOfA[size_t(conv)]), std::string("conv_renamed"));
        QVERIFY(d.pairs[size_t(d.pairOfA[size_t(conv)])].stage != HloMatchStage::Name);
        // Without op metadata the structure still finds it.
        const std::string bare = generate("resnet", 3000, false);
        const HloModule c = parse(bare), e = parse(rename(bare, "convolution.3", "conv_renamed"), "b.hlo");
        const HloDiff f = diffHloModules(c, e);
        checkInvariants(f, c, e);
        QVERIFY(f.same());
        QCOMPARE(nameOf(e, f.matchOfA[size_t(find(c, "convolution.3"))]), std::string("conv_renamed"));
        // With names alone it cannot: one removed, one added.
        const HloDiff g = diffHloModules(c, e, only({ HloMatchStage::Name }));
        checkInvariants(g, c, e);
        QCOMPARE(g.removed.size(), size_t(1));
        QCOMPARE(g.added.size(), size_t(1));
        QCOMPARE(nameOf(c, g.removed[0]), std::string("convolution.3"));
    }

    void everyInstructionRenamed()
    {
        // Every name changes (a re-traced program): metadata, structure and the neighbours match all.
        const std::string text = generate("mlp", 3000);
        QString renamed = QString::fromStdString(text);
        renamed.replace(QRegularExpression("%([\\w.-]+)"), "%\\1_v2");
        const HloModule a = parse(text), b = parse(renamed.toStdString(), "b.hlo");
        const HloDiff d = diffHloModules(a, b);
        checkInvariants(d, a, b);
        QCOMPARE(d.matchedByStage[size_t(HloMatchStage::Name)], size_t(0));
        QVERIFY(d.same());
        for (const HloDiffPair& p : d.pairs)
            QCOMPARE(nameOf(a, p.a) + "_v2", nameOf(b, p.b));
        QVERIFY(d.matchedByStage[size_t(HloMatchStage::Metadata)] > 0);
        QVERIFY(d.matchedByStage[size_t(HloMatchStage::Subgraph)] > 0);
    }

    void addedInstructionIsOneAdded()
    {
        const std::string text = generate("transformer", 3000);
        // A dead constant, before the entry's ROOT.
        const QString root = "^(  ROOT %[\\w.-]+ = f32\\[\\d+,\\d+\\]\\{1,0\\} [\\w-]+\\([^\\n]*\\n\\}\\s*)$";
        const std::string edited = edit(text, root, "  %extra = s32[] constant(42)\n\\1");
        const HloModule a = parse(text), b = parse(edited, "b.hlo");
        const HloDiff d = diffHloModules(a, b);
        checkInvariants(d, a, b);
        QCOMPARE(d.added.size(), size_t(1));
        QCOMPARE(nameOf(b, d.added[0]), std::string("extra"));
        QVERIFY(d.removed.empty());
        QVERIFY(d.changed.empty());
        // The other way round: one removed.
        const HloDiff back = diffHloModules(b, a);
        checkInvariants(back, b, a);
        QCOMPARE(back.removed.size(), size_t(1));
        QCOMPARE(nameOf(b, back.removed[0]), std::string("extra"));
        QVERIFY(back.added.empty() && back.changed.empty());
    }

    void fusionFormedByAPass()
    {
        const HloModule a = parse(kUnfused), b = parse(kFused, "b.hlo");
        const HloDiff d = diffHloModules(a, b);
        checkInvariants(d, a, b);
        QVERIFY(d.removed.empty());
        for (const char* name : { "mul", "add" }) {
            const int64_t x = find(a, name);
            const HloDiffPair& p = d.pairs[size_t(d.pairOfA[size_t(x)])];
            QCOMPARE(p.kinds, hloChangeBit(HloChangeKind::FusedInto));
        }
        QCOMPARE(nameOf(b, d.matchOfA[size_t(find(a, "mul"))]), std::string("multiply.1"));
        QCOMPARE(nameOf(b, d.matchOfA[size_t(find(a, "add"))]), std::string("add.1"));
        // p0, p1 and neg are unchanged: the fusion stands for its root in the data flow.
        QCOMPARE(d.unchanged(), size_t(3));
        std::set<std::string> added;
        for (const uint32_t y : d.added)
            added.insert(nameOf(b, y));
        QCOMPARE(added, (std::set<std::string> { "fusion", "param_0", "param_1" }));
        QCOMPARE(d.byKind[size_t(HloChangeKind::FusedInto)].size(), size_t(2));
        // The computation rows: main -> main, and the new fused computation with its two moved in.
        bool fusedRow = false;
        for (const HloComputationDiff& c : d.computations)
            if (c.b >= 0 && b.computations[size_t(c.b)].name == "fused_computation") {
                fusedRow = true;
                QVERIFY(c.fusion);
                QCOMPARE(c.a, -1);
                QCOMPARE(c.movedIn, 2u);
                QCOMPARE(c.added, 2u);
            }
        QVERIFY(fusedRow);

        // Undone (B -> A): fused out of, the fusion and its parameters removed.
        const HloDiff back = diffHloModules(b, a);
        checkInvariants(back, b, a);
        QCOMPARE(back.byKind[size_t(HloChangeKind::FusedOutOf)].size(), size_t(2));
        QCOMPARE(back.removed.size(), size_t(3));
        QVERIFY(back.added.empty());
    }

    void inlinedCallIsSeenThrough()
    {
        // A function called once, then inlined (XLA's CallInliner) under new names: its
        // instructions are the same, in another computation; the call and its parameter go.
        const std::string called = R"(HloModule m

f {
  x = f32[4,8]{1,0} parameter(0)
  e = f32[4,8]{1,0} exponential(x)
  ROOT n = f32[4,8]{1,0} negate(e)
}

ENTRY main {
  p0 = f32[4,8]{1,0} parameter(0)
  c = f32[4,8]{1,0} call(p0), to_apply=f
  ROOT r = f32[4,8]{1,0} add(c, p0)
}
)";
        const std::string inlined = R"(HloModule m

ENTRY main {
  p0 = f32[4,8]{1,0} parameter(0)
  e.1 = f32[4,8]{1,0} exponential(p0)
  n.1 = f32[4,8]{1,0} negate(e.1)
  ROOT r = f32[4,8]{1,0} add(n.1, p0)
}
)";
        const HloModule a = parse(called), b = parse(inlined, "b.hlo");
        const HloDiff d = diffHloModules(a, b);
        checkInvariants(d, a, b);
        QVERIFY(d.changed.empty());
        QVERIFY(d.added.empty());
        QCOMPARE(nameOf(b, d.matchOfA[size_t(find(a, "e"))]), std::string("e.1"));
        QCOMPARE(nameOf(b, d.matchOfA[size_t(find(a, "n"))]), std::string("n.1"));
        std::set<std::string> removed;
        for (const uint32_t x : d.removed)
            removed.insert(nameOf(a, x));
        QCOMPARE(removed, (std::set<std::string> { "x", "c" }));
        for (const HloComputationDiff& c : d.computations)
            if (c.a >= 0 && a.computations[size_t(c.a)].name == "f") {
                QCOMPARE(c.b, -1);
                QCOMPARE(c.movedOut, 2u);
                QCOMPARE(c.removed, 1u);
            }
    }

    void computationsLeftBehindAreNotMatchedWithLiveOnes()
    {
        // A kernel merged with its consumer into a new one; XLA leaves the old fused computation
        // in the module, uncalled. Its copy must not pass for the live instructions (they would
        // read as fused out of their kernel).
        const std::string before = R"(HloModule m

fused_computation {
  param_0 = f32[8]{0} parameter(0)
  ROOT neg = f32[8]{0} negate(param_0)
}

ENTRY main {
  p0 = f32[8]{0} parameter(0)
  fusion = f32[8]{0} fusion(p0), kind=kLoop, calls=fused_computation
  ROOT e = f32[8]{0} exponential(fusion)
}
)";
        const std::string after = R"(HloModule m

fused_computation {
  param_0 = f32[8]{0} parameter(0)
  ROOT neg = f32[8]{0} negate(param_0)
}

fused_computation.1 {
  param_0.1 = f32[8]{0} parameter(0)
  neg.1 = f32[8]{0} negate(param_0.1)
  ROOT e.1 = f32[8]{0} exponential(neg.1)
}

ENTRY main {
  p0 = f32[8]{0} parameter(0)
  ROOT fusion.1 = f32[8]{0} fusion(p0), kind=kLoop, calls=fused_computation.1
}
)";
        const HloModule a = parse(before), b = parse(after, "b.hlo");
        const HloDiff d = diffHloModules(a, b);
        checkInvariants(d, a, b);
        QVERIFY(d.byKind[size_t(HloChangeKind::FusedOutOf)].empty());
        QCOMPARE(nameOf(b, d.matchOfA[size_t(find(a, "neg"))]), std::string("neg.1"));
        QCOMPARE(nameOf(b, d.matchOfA[size_t(find(a, "e"))]), std::string("e.1"));
        QVERIFY(d.pairs[size_t(d.pairOfA[size_t(find(a, "e"))])].has(HloChangeKind::FusedInto));
        for (const char* dead : { "param_0", "neg" })
            QCOMPARE(d.matchOfB[size_t(find(b, dead))], -1);
        int notCalled = 0;
        for (const HloComputationDiff& c : d.computations)
            if (!c.reachable) {
                ++notCalled;
                QCOMPARE(c.a, -1); // never paired with A's live fused computation
                QCOMPARE(std::string(b.computations[size_t(c.b)].name), std::string("fused_computation"));
                QCOMPARE(c.added, 2u);
            }
        QCOMPARE(notCalled, 1);
        // The same module against itself: the dead computation matches itself.
        QVERIFY(diffHloModules(b, b).same());
    }

    void eachStageOnItsOwn()
    {
        const HloModule a = parse(kChain);
        auto stageOf = [&](const HloDiff& d, const char* name) {
            const int32_t pair = d.pairOfA[size_t(find(a, name))];
            return pair < 0 ? HloMatchStage::None : d.pairs[size_t(pair)].stage;
        };
        // x renamed: its user y is matched by name, x below it top-down.
        const HloModule b = parse(rename(kChain, "x", "x_new"), "b.hlo");
        HloDiff d = diffHloModules(a, b, only({ HloMatchStage::Name, HloMatchStage::TopDown }));
        checkInvariants(d, a, b);
        QVERIFY(d.same());
        QVERIFY(stageOf(d, "x") == HloMatchStage::TopDown);
        d = diffHloModules(a, b, only({ HloMatchStage::Name }));
        QCOMPARE(d.removed.size(), size_t(1));
        QCOMPARE(d.added.size(), size_t(1));
        // The root renamed: nothing above it; its operands' one user at that position, bottom-up.
        const HloModule c = parse(rename(kChain, "r", "r_new"), "c.hlo");
        d = diffHloModules(a, c, only({ HloMatchStage::Name, HloMatchStage::TopDown }));
        QVERIFY(stageOf(d, "r") == HloMatchStage::None);
        d = diffHloModules(a, c, only({ HloMatchStage::Name, HloMatchStage::BottomUp }));
        checkInvariants(d, a, c);
        QVERIFY(d.same());
        QVERIFY(stageOf(d, "r") == HloMatchStage::BottomUp);
        // Op metadata: the same op_name, op_type, opcode and shape once on each side.
        const std::string withMeta
            = edit(kChain, "(exponential\\(%p0\\))", "\\1, metadata={op_type=\"Exp\" op_name=\"f/exp\"}");
        const HloModule e = parse(withMeta), f = parse(rename(withMeta, "x", "x_new"), "f.hlo");
        d = diffHloModules(e, f, only({ HloMatchStage::Name, HloMatchStage::Metadata }));
        checkInvariants(d, e, f);
        QVERIFY(d.same());
        QVERIFY(d.pairs[size_t(d.pairOfA[size_t(find(e, "x"))])].stage == HloMatchStage::Metadata);
        // Every name changed, structure alone: exact subgraphs.
        QString all = QString::fromStdString(kChain);
        all.replace(QRegularExpression("%([\\w.-]+)"), "%\\1_v2");
        const HloModule g = parse(all.toStdString(), "g.hlo");
        d = diffHloModules(a, g, only({ HloMatchStage::Subgraph }));
        checkInvariants(d, a, g);
        QVERIFY(d.same());
        QCOMPARE(d.matchedByStage[size_t(HloMatchStage::Subgraph)], a.instructions.size());
    }

    void namesRepeatedInOtherComputations()
    {
        // The text reader allows a name once per computation: `b` is a reducer's parameter and an
        // unused parameter of the entry. Found by fuzz_hlodiff: the entry's `b` was left unmatched.
        const std::string text = R"(HloModule m

add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  p0 = f32[16,8]{1,0} parameter(0)
  b = f32[] parameter(1)
  z = f32[] constant(0)
  ROOT r = f32[16]{0} reduce(p0, z), dimensions={1}, to_apply=add_f32
}
)";
        const HloModule a = parse(text), b = parse(text, "b.hlo");
        const HloDiff d = diffHloModules(a, b);
        checkInvariants(d, a, b);
        QVERIFY(d.same());
        for (const HloDiffPair& p : d.pairs)
            QCOMPARE(p.a, p.b);
    }

    void deeplyNestedTuples()
    {
        // 150 nested tuples (the reader allows 200): compared whole, not cut at a depth. Found by
        // fuzz_hlodiff: the shape was reported changed against itself.
        const std::string shape = std::string(150, '(') + "f32[]" + std::string(150, ')');
        const std::string text = "HloModule m\nENTRY e {\n  ROOT p = " + shape + " parameter(0)\n}\n";
        const HloModule a = parse(text), b = parse(text, "b.hlo");
        const HloDiff d = diffHloModules(a, b);
        checkInvariants(d, a, b);
        QVERIFY(d.same());
        const std::string other = "HloModule m\nENTRY e {\n  ROOT p = " + std::string(150, '(') + "s32[]"
            + std::string(150, ')') + " parameter(0)\n}\n";
        const HloModule c = parse(other, "c.hlo");
        const HloDiff e = diffHloModules(a, c);
        checkInvariants(e, a, c);
        QCOMPARE(e.changed.size(), size_t(1));
        QCOMPARE(e.pairs[e.changed[0]].kinds, hloChangeBit(HloChangeKind::Shape));
    }

    void reportsEscapeOddNames()
    {
        HloModule a = parse(kUnfused);
        HloModule b = parse(kFused, "b.hlo");
        const int64_t mul = find(b, "multiply.1");
        b.instructions[size_t(mul)].name = b.intern("odd<b>\n\x01\xff name");
        const HloDiff d = diffHloModules(a, b);
        checkInvariants(d, a, b);
        const HloDiffReport report { d, a, b, "a\tfile.hlo", "b<file>.hlo" };
        const std::string text = formatHloDiffText(report);
        QVERIFY(text.find("odd<b>\\n\\x01\\xff name") != std::string::npos);
        QVERIFY(text.find('\x01') == std::string::npos);
        QVERIFY(text.find("a\\tfile.hlo") != std::string::npos);
        const std::string html = formatHloDiffHtml(report);
        QVERIFY(html.find("odd&lt;b&gt;\\n\\x01\\xff name") != std::string::npos);
        QVERIFY(html.find("b&lt;file&gt;.hlo") != std::string::npos);
        QVERIFY(html.find("<b>\n") == std::string::npos);
        // Self-contained: an inline SVG, no script, nothing fetched.
        QVERIFY(html.find("<svg") != std::string::npos);
        for (const char* banned : { "<script", "http:", "https:", " src=", "@import", "url(" })
            QVERIFY2(html.find(banned) == std::string::npos, banned);
        const Json j = parseJson(jsonText(hloDiffJson(report)), "diff.json");
        QCOMPARE(j["changed"].size(), d.changed.size());
        bool found = false;
        for (const Json& c : j["changed"])
            found = found || c["b"].get<std::string>().starts_with("odd<b>\n\x01");
        QVERIFY(found);
    }

    void limitCutsTheTextLists()
    {
        const HloModule a = parse(kUnfused), b = parse(kFused, "b.hlo");
        const HloDiff d = diffHloModules(a, b);
        HloDiffReport report { d, a, b, "a.hlo", "b.hlo", 1 };
        const std::string cut = formatHloDiffText(report);
        QVERIFY(cut.find("... and 2 more") != std::string::npos); // 3 added, 1 shown
        report.limit = 0;
        const std::string all = formatHloDiffText(report);
        QVERIFY(all.find("... and") == std::string::npos);
        for (const char* name : { "fusion", "param_0", "param_1" })
            QVERIFY(all.find(std::string("+ ") + name + " = ") != std::string::npos);
    }

    void realBeforeAfterPairsAddUp()
    {
        const QString dir = dumpFolder();
        if (dir.isEmpty())
            QSKIP("the real dump folder (../shared/data/dumps/alpa_gpu_sm70) is absent");
        const QStringList before
            = QDir(dir).entryList({ "module_*.before_optimizations.txt" }, QDir::Files, QDir::Name);
        QVERIFY(before.size() > 10);
        int pairs = 0;
        size_t fusedInto = 0;
        for (const QString& name : before) {
            const QString stem = name.chopped(QString("before_optimizations.txt").size());
            const QStringList after = QDir(dir).entryList({ stem + "*_after_optimizations.txt" }, QDir::Files);
            if (after.isEmpty())
                continue;
            const HloModule a = parseHloTextFile((dir + "/" + name).toStdString());
            const HloModule b = parseHloTextFile((dir + "/" + after.front()).toStdString());
            const HloDiff d = diffHloModules(a, b);
            checkInvariants(d, a, b);
            const HloDiff back = diffHloModules(b, a);
            checkInvariants(back, b, a);
            QVERIFY(diffHloModules(a, a).same());
            QVERIFY(diffHloModules(b, b).same());
            fusedInto += d.byKind[size_t(HloChangeKind::FusedInto)].size();
            ++pairs;
        }
        qInfo("%d before/after pairs, %zu instructions fused into kernels", pairs, fusedInto);
        QVERIFY(pairs > 10);
        QVERIFY(fusedInto > 0); // optimization fuses
    }

    void realConsecutivePassesAddUp()
    {
        const QString dir = dumpFolder();
        if (dir.isEmpty())
            QSKIP("the real dump folder (../shared/data/dumps/alpa_gpu_sm70) is absent");
        // module_NNNN.NAME.SSSS.PIPELINE.after_PASS[.before_NEXT].txt, by module and stage index.
        const QRegularExpression re("^(module_\\d{4}\\..+?)\\.(\\d{4})\\.[^/]+\\.txt$");
        std::map<QString, std::map<int, QString>> stages;
        for (const QString& name : QDir(dir).entryList({ "module_*.txt" }, QDir::Files)) {
            const QRegularExpressionMatch m = re.match(name);
            if (m.hasMatch() && !name.contains("buffer-assignment") && !name.contains("memory-usage"))
                stages[m.captured(1)][m.captured(2).toInt()] = name;
        }
        QVERIFY(stages.size() > 10);
        int diffs = 0;
        size_t changedPasses = 0, fusionPassesWithFusedInto = 0;
        for (const auto& [module, files] : stages) {
            std::optional<HloModule> previous;
            QString previousName;
            for (const auto& [index, name] : files) {
                HloModule current = parseHloTextFile((dir + "/" + name).toStdString());
                if (previous) {
                    const HloDiff d = diffHloModules(*previous, current);
                    checkInvariants(d, *previous, current);
                    changedPasses += !d.same();
                    if (name.contains(".fusion.after_fusion.") && !d.byKind[size_t(HloChangeKind::FusedInto)].empty())
                        ++fusionPassesWithFusedInto;
                    ++diffs;
                }
                previous = std::move(current);
                previousName = name;
            }
        }
        qInfo("%zu modules, %d consecutive stages diffed, %zu with a difference, %zu fusion passes fusing",
            stages.size(), diffs, changedPasses, fusionPassesWithFusedInto);
        QVERIFY(diffs > 100);
        QVERIFY(changedPasses > 0);
        QVERIFY(fusionPassesWithFusedInto > 0);
    }
};

QTEST_GUILESS_MAIN(TestHloDiff)
#include "tst_hlodiff.moc"
