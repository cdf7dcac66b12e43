// SPDX-License-Identifier: Apache-2.0
// Priced diffs (core/diffcost, docs/diff.md §8): a module against itself costs nothing more or
// less; one edited layout moves exactly the instructions whose simulated cost changed (the edited
// one and its users, found here by pricing both modules directly); the deltas add up to the total
// per instruction and per computation on generated pairs and on the real dump folder's
// before/after pairs (label external); the reports say they are the simulator's estimate.

#include "core/diff/diffreport.h"
#include "core/diffcost/diffcost.h"
#include "core/diffcost/diffcostreport.h"
#include "core/hlo/hlotext.h"
#include "core/sim/simulator.h"
#include "core/synth/hlogen.h"
#include "core/util/json.h"
#include "testutil.h"

#include <QDir>
#include <QRegularExpression>
#include <QtTest>

#include <cmath>
#include <map>
#include <set>

using namespace tgraph;

namespace {

std::string generate(const std::string& family, int64_t size, uint64_t seed = 7)
{
    HloGenSpec spec;
    spec.family = family;
    spec.instructions = size;
    spec.seed = seed;
    return generateHloText(spec);
}

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

bool near(double x, double y) { return std::fabs(x - y) <= 1e-9 * std::max({ 1.0, std::fabs(x), std::fabs(y) }); }

// What must hold for any priced diff: sizes, totals, and the deltas adding up three ways.
void checkSums(const HloDiff& d, const HloDiffCost& c, const HloModule& a, const HloModule& b)
{
    QCOMPARE(c.costA.size(), a.instructions.size());
    QCOMPARE(c.costB.size(), b.instructions.size());
    QCOMPARE(c.computationA.size(), d.computations.size());
    double sumA = 0, sumB = 0;
    for (const double v : c.costA)
        sumA += v;
    for (const double v : c.costB)
        sumB += v;
    QVERIFY(near(sumA, c.totalA));
    QVERIFY(near(sumB, c.totalB));
    // The simulator's own runtime: the same total (but for its 1 ns floor).
    QVERIFY(near(std::max(c.totalA, 1.0), LayoutSimulator(a, {}).runtime(nullptr)));
    QVERIFY(near(std::max(c.totalB, 1.0), LayoutSimulator(b, {}).runtime(nullptr)));
    // Per instruction: pairs + removed + added.
    double entries = 0;
    for (const HloPricedEntry& e : hloPricedEntries(d, c))
        entries += e.delta;
    QVERIFY2(near(entries, c.delta()), qPrintable(QString("%1 vs %2").arg(entries).arg(c.delta())));
    // Per instruction through deltaOfA / deltaOfB.
    double viaA = 0, viaB = 0;
    for (uint32_t i = 0; i < a.instructions.size(); ++i)
        viaA += c.deltaOfA(d, i);
    for (const uint32_t i : d.added)
        viaB += c.deltaOfB(d, i);
    QVERIFY(near(viaA + viaB, c.delta()));
    // Per computation.
    double rows = 0;
    for (size_t r = 0; r < d.computations.size(); ++r)
        rows += c.computationDelta(r);
    QVERIFY(near(rows, c.delta()));
}

} // namespace

class TestDiffCost : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void moduleAgainstItselfCostsNothing()
    {
        for (const char* family : { "resnet", "transformer" }) {
            const HloModule a = parseHloText(generate(family, 2000), "a.hlo");
            const HloModule b = parseHloText(generate(family, 2000), "b.hlo");
            const HloDiff d = diffHloModules(a, b);
            QVERIFY(d.same());
            const HloDiffCost c = priceHloDiff(d, a, b);
            QVERIFY(c.totalA > 0);
            QCOMPARE(c.totalA, c.totalB);
            QCOMPARE(c.delta(), 0.0);
            for (size_t p = 0; p < d.pairs.size(); ++p)
                QCOMPARE(c.pairDelta(d, p), 0.0);
            for (size_t r = 0; r < d.computations.size(); ++r)
                QCOMPARE(c.computationDelta(r), 0.0);
            QVERIFY(hloPricedEntries(d, c).empty());
            QVERIFY(hloPricedComputations(d, c).empty());
            checkSums(d, c, a, b);
        }
    }

    void oneEditedLayoutMovesExactlyTheRepricedInstructions()
    {
        const std::string text = generate("transformer", 3000);
        // An entry-computation add whose two dimensions pad differently once swapped.
        const QString line = "^(  %(add\\.\\d+) = f32\\[(\\d+),(\\d+)\\])\\{1,0\\}( add\\()";
        QString pattern;
        const QRegularExpression re(line, QRegularExpression::MultilineOption);
        auto it = re.globalMatch(QString::fromStdString(text));
        QString edited;
        while (it.hasNext()) {
            const QRegularExpressionMatch m = it.next();
            if (m.captured(3) != m.captured(4)) {
                edited = m.captured(2);
                pattern = "^(  %" + QRegularExpression::escape(edited) + " = f32\\[\\d+,\\d+\\])\\{1,0\\}( add\\()";
                break;
            }
        }
        QVERIFY2(!edited.isEmpty(), "no add of two unequal dimensions in the generated module");
        const HloModule a = parseHloText(text, "a.hlo");
        const HloModule b = parseHloText(edit(text, pattern, "\\1{0,1}\\2"), "b.hlo");
        const HloDiff d = diffHloModules(a, b);
        QCOMPARE(d.changed.size(), size_t(1));
        QVERIFY(d.added.empty() && d.removed.empty());
        const HloDiffCost c = priceHloDiff(d, a, b);
        checkSums(d, c, a, b);

        // Independently: price each module and compare instruction by instruction (same names).
        const std::vector<double> costA = LayoutSimulator(a, {}).breakdown(nullptr);
        const std::vector<double> costB = LayoutSimulator(b, {}).breakdown(nullptr);
        std::map<std::string, size_t> positionInB;
        for (size_t i = 0; i < b.instructions.size(); ++i)
            positionInB.emplace(std::string(b.instructions[i].name), i);
        std::set<std::string> repriced;
        for (size_t i = 0; i < a.instructions.size(); ++i) {
            const std::string name(a.instructions[i].name);
            if (costA[i] != costB[positionInB.at(name)])
                repriced.insert(name);
        }
        std::set<std::string> priced;
        for (const HloPricedEntry& e : hloPricedEntries(d, c)) {
            QCOMPARE(e.kind, HloPricedEntry::Kind::Matched);
            priced.insert(std::string(a.instructions[d.pairs[e.index].a].name));
        }
        QCOMPARE(priced, repriced);
        QVERIFY(!priced.empty());
        // And they are the edited instruction and the instructions that read it.
        int64_t editedId = -1;
        for (const HloInstruction& inst : a.instructions)
            if (inst.name == edited.toStdString())
                editedId = inst.id;
        std::set<std::string> around { edited.toStdString() };
        for (const HloInstruction& inst : a.instructions)
            for (const int64_t operand : a.span(inst.operandIds))
                if (operand == editedId)
                    around.insert(std::string(inst.name));
        for (const std::string& name : priced)
            QVERIFY2(around.count(name), name.c_str());
    }

    void deltasAddUpOnDifferentModules()
    {
        // Unrelated modules: many pairs, added and removed instructions, computations on one side only.
        const HloModule a = parseHloText(generate("transformer", 2500, 3), "a.hlo");
        const HloModule b = parseHloText(generate("transformer", 4000, 9), "b.hlo");
        const HloDiff d = diffHloModules(a, b);
        QVERIFY(!d.added.empty());
        const HloDiffCost c = priceHloDiff(d, a, b);
        checkSums(d, c, a, b);
        QVERIFY(c.delta() != 0);
        const HloDiff back = diffHloModules(b, a);
        const HloDiffCost cb = priceHloDiff(back, b, a);
        checkSums(back, cb, b, a);
        QVERIFY(near(cb.delta(), -c.delta()));
        // Largest first.
        const std::vector<HloPricedEntry> entries = hloPricedEntries(d, c);
        for (size_t k = 1; k < entries.size(); ++k)
            QVERIFY(std::fabs(entries[k - 1].delta) >= std::fabs(entries[k].delta));
        // A diff of other modules is refused.
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, priceHloDiff(d, b, a));
    }

    void reportsSayTheyAreEstimates()
    {
        const std::string text = generate("resnet", 1500);
        const std::string editedText
            = edit(text, "^(  %(add\\.\\d+) = f32\\[\\d+,\\d+,\\d+,\\d+\\])\\{3,2,1,0\\}( add\\()", "\\1{2,3,1,0}\\3");
        const HloModule a = parseHloText(text, "a.hlo");
        const HloModule b = parseHloText(editedText, "b <odd>.hlo");
        const HloDiff d = diffHloModules(a, b);
        const HloDiffCost c = priceHloDiff(d, a, b);
        const HloDiffReport report { d, a, b, "a.hlo", "b <odd>.hlo", 3 };

        const std::string textOut = formatHloDiffCostText(report, c);
        QVERIFY(textOut.find(kHloDiffCostCaveat) != std::string::npos);
        QVERIFY(textOut.find("delta " + formatCostDelta(c.delta())) != std::string::npos);

        const Json j = parseJson(jsonText(hloDiffCostJson(report, c)), "price.json");
        QCOMPARE(j["unit"].get<std::string>(), std::string("ns"));
        QVERIFY(j["estimate"].get<std::string>().find("not a measurement") != std::string::npos);
        QVERIFY(near(j["delta"].get<double>(), c.delta()));
        QCOMPARE(j["computations"].size(), d.computations.size());
        QCOMPARE(j["instructions"].size(), hloPricedEntries(d, c).size()); // complete whatever the limit
        double sum = 0;
        for (const Json& e : j["instructions"]) {
            sum += e["delta"].get<double>();
            QVERIFY(near(e["delta"].get<double>(), e["cost_b"].get<double>() - e["cost_a"].get<double>()));
        }
        QVERIFY(near(sum, c.delta()));

        const std::string page = formatHloDiffHtml(report);
        const std::string priced = insertHtmlSection(page, formatHloDiffCostHtml(report, c));
        const size_t section = priced.find("<section class=\"price\">");
        QVERIFY(section != std::string::npos);
        QVERIFY(section < priced.find("<footer"));
        QVERIFY(priced.find("not a measurement") != std::string::npos);
        QVERIFY(priced.find("<odd>") == std::string::npos); // escaped

        QCOMPARE(formatCostDelta(1500), std::string("+1.50 µs"));
        QCOMPARE(formatCostDelta(-870), std::string("-870 ns"));
        QCOMPARE(formatCostDelta(0.2), std::string("0 ns"));
    }

    void realBeforeAfterPairsAddUp()
    {
        const QString data = testutil::sharedDataDir();
        const QString dir = data.isEmpty() ? QString() : data + "/dumps/alpa_gpu_sm70";
        if (dir.isEmpty() || !QFileInfo(dir).isDir())
            QSKIP("the real dump folder (../shared/data/dumps/alpa_gpu_sm70) is absent");
        const QStringList before
            = QDir(dir).entryList({ "module_*.before_optimizations.txt" }, QDir::Files, QDir::Name);
        int pairs = 0;
        for (const QString& name : before) {
            const QString stem = name.chopped(QString("before_optimizations.txt").size());
            const QStringList after = QDir(dir).entryList({ stem + "*_after_optimizations.txt" }, QDir::Files);
            if (after.isEmpty())
                continue;
            const HloModule a = parseHloTextFile((dir + "/" + name).toStdString());
            const HloModule b = parseHloTextFile((dir + "/" + after.front()).toStdString());
            const HloDiff d = diffHloModules(a, b);
            checkSums(d, priceHloDiff(d, a, b), a, b);
            ++pairs;
        }
        qInfo("%d before/after pairs priced", pairs);
        QVERIFY(pairs > 10);
    }
};

QTEST_GUILESS_MAIN(TestDiffCost)
#include "tst_diffcost.moc"
