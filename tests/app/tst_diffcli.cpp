// SPDX-License-Identifier: Apache-2.0
// `tgraph diff` as a user runs it (docs/diff.md §1): help and usage errors, the exit status with
// and without --exit-code, bad and odd inputs, files of several modules (FILE#K, --module-a/-b),
// text against protobuf, the JSON (its invariants and the `layout` kind) and the HTML page (self-
// contained, written atomically), and a real before/after pair of the dump folder (label external).

#include "core/diffcost/diffmodelscore.h"
#include "core/graph/graphio.h"
#include "core/hlo/hloproto.h"
#include "core/hlo/hlotext.h"
#include "core/sim/ownlayouts.h"
#include "core/synth/hlogen.h"
#include "core/util/json.h"
#include "testutil.h"

#include <QDir>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace tgraph;

namespace {

QString tgraphExe() { return testutil::binDir() + "/tgraph"; }
testutil::ProcessResult runTgraph(const QStringList& args) { return testutil::run(tgraphExe(), args); }

const char* kSmall = R"(HloModule m

ENTRY main {
  p0 = f32[4,8]{1,0} parameter(0)
  p1 = f32[4,8]{1,0} parameter(1)
  mul = f32[4,8]{1,0} multiply(p0, p1)
  ROOT add = f32[4,8]{1,0} add(mul, p0)
}
)";

QByteArray withLayout(const char* text, const char* from, const char* to)
{
    QByteArray s(text);
    s.replace(from, to);
    return s;
}

QString message(const testutil::ProcessResult& r)
{
    return QString("exit %1, stdout: %2, stderr: %3").arg(r.exitCode).arg(QString(r.out.left(400)), QString(r.err));
}

} // namespace

class TestDiffCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(QFileInfo(tgraphExe()).isExecutable(), qPrintable(tgraphExe() + " is not built"));
        m_a = m_dir.filePath("a.hlo");
        m_b = m_dir.filePath("b.hlo");
        testutil::writeAll(m_a, kSmall);
        // One edited layout: mul {1,0} -> {0,1}.
        testutil::writeAll(m_b, withLayout(kSmall, "mul = f32[4,8]{1,0}", "mul = f32[4,8]{0,1}"));
    }

    void helpAndUsage()
    {
        for (const QStringList& args : { QStringList { "diff", "--help" }, QStringList { "help", "diff" } }) {
            const auto r = runTgraph(args);
            QCOMPARE(r.exitCode, 0);
            for (const char* part : { "--exit-code", "--html", "--json", "--module-a", "docs/diff.md", "FILE#K" })
                QVERIFY2(r.out.contains(part), part);
        }
        QVERIFY(runTgraph({ "--help" }).out.contains("diff"));
        const struct
        {
            QStringList args;
            const char* says;
        } usage[] = {
            { { "diff", m_a }, "expected two modules" },
            { { "diff", m_a, m_b, m_a }, "expected two modules" },
            { { "diff", m_a, m_b, "--text", "--json" }, "exclude each other" },
            { { "diff", m_a, m_b, "--bogus" }, "--bogus" },
            { { "diff", m_a, m_b, "--match", "name,psychic" }, "psychic" },
            { { "diff", m_a, m_b, "--limit", "-1" }, "--limit" },
            { { "diff", m_a, m_b, "--exit-code", "--limit", "many" }, "--limit" },
        };
        for (const auto& u : usage) {
            const auto r = runTgraph(u.args);
            QVERIFY2(r.exitCode == 2, qPrintable(message(r)));
            QVERIFY2(r.err.contains(u.says), qPrintable(message(r)));
            QVERIFY(r.out.isEmpty());
        }
    }

    void exitStatus()
    {
        // The same module: 0 with or without --exit-code.
        auto r = runTgraph({ "diff", m_a, m_a });
        QVERIFY2(r.exitCode == 0, qPrintable(message(r)));
        QVERIFY(r.out.contains("the same"));
        r = runTgraph({ "diff", m_a, m_a, "--exit-code" });
        QCOMPARE(r.exitCode, 0);
        // Different: 0, and 1 with --exit-code.
        r = runTgraph({ "diff", m_a, m_b });
        QVERIFY2(r.exitCode == 0, qPrintable(message(r)));
        QVERIFY(r.out.contains("different"));
        QVERIFY(r.out.contains("[layout]"));
        QVERIFY(r.out.contains("f32[4,8]{1,0} -> f32[4,8]{0,1}"));
        r = runTgraph({ "diff", m_a, m_b, "--exit-code" });
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.isEmpty());
    }

    void badInput()
    {
        const QString missing = m_dir.filePath("missing.hlo");
        auto r = runTgraph({ "diff", m_a, missing });
        QVERIFY2(r.exitCode == 1, qPrintable(message(r)));
        QVERIFY(r.err.contains("missing.hlo"));
        QVERIFY(r.out.isEmpty());
        // Under --exit-code, 1 means "different": trouble is 2.
        r = runTgraph({ "diff", m_a, missing, "--exit-code" });
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("missing.hlo"));
        // Not HLO, and HLO with an error: the file, the place, the problem.
        const QString junk = m_dir.filePath("junk.txt");
        testutil::writeAll(junk, "this is not a module\n");
        r = runTgraph({ "diff", junk, m_a });
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains("junk.txt"));
        const QString broken = m_dir.filePath("broken.hlo");
        testutil::writeAll(broken, withLayout(kSmall, "multiply(p0, p1)", "multiply(p0, nowhere)"));
        r = runTgraph({ "diff", m_a, broken });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("broken.hlo") && r.err.contains("line 6") && r.err.contains("nowhere"),
            qPrintable(message(r)));
        QVERIFY(!r.crashed);
    }

    void severalModulesInAFile()
    {
        const QString both = m_dir.filePath("both.hlo");
        QByteArray second = withLayout(kSmall, "mul = f32[4,8]{1,0}", "mul = f32[4,8]{0,1}");
        second.replace("HloModule m", "HloModule m2");
        testutil::writeAll(both, QByteArray(kSmall) + "\n// -----\n\n" + second);
        auto r = runTgraph({ "diff", both, m_a });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("both.hlo") && r.err.contains("2 modules") && r.err.contains("FILE#K")
                && r.err.contains("--module-a"),
            qPrintable(message(r)));
        // FILE#K (from 0), a name, and --module-a / --module-b.
        r = runTgraph({ "diff", both + "#0", both + "#1" });
        QVERIFY2(r.exitCode == 0, qPrintable(message(r)));
        QVERIFY(r.out.contains("[layout]"));
        r = runTgraph({ "diff", both + "#m", both + "#m2", "--exit-code" });
        QCOMPARE(r.exitCode, 1);
        r = runTgraph({ "diff", both, both, "--module-a", "0", "--module-b", "0", "--exit-code" });
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("both.hlo#0"));
        r = runTgraph({ "diff", both + "#2", m_a });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("module 2") && r.err.contains("out of range"), qPrintable(message(r)));
        r = runTgraph({ "diff", both + "#nosuch", m_a });
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains("no module of that name"));
        r = runTgraph({ "diff", both + "#0", m_a, "--module-a", "1" });
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains("--module-a"));
    }

    void textAgainstProtobuf()
    {
        // The same module as HLO text and as xla.HloModuleProto: the same (the protobuf keeps no
        // attribute text, which is not a difference).
        const std::string text = generateHloText(HloGenSpec { "resnet", 800, 3, true });
        const QString hlo = m_dir.filePath("r.hlo"), pb = m_dir.filePath("r.pb");
        testutil::writeAll(hlo, QByteArray::fromStdString(text));
        testutil::writeAll(pb, QByteArray::fromStdString(encodeHloModuleProto(parseHloText(text, "r.hlo"))));
        const auto r = runTgraph({ "diff", hlo, pb, "--exit-code" });
        QVERIFY2(r.exitCode == 0, qPrintable(message(r)));
        QVERIFY(r.out.contains("xla.HloModuleProto"));
    }

    void jsonAddsUp()
    {
        const auto r = runTgraph({ "diff", m_a, m_b, "--json" });
        QVERIFY2(r.exitCode == 0, qPrintable(message(r)));
        const Json j = parseJson(r.out.toStdString(), "stdout");
        const size_t a = j["a"]["instructions"].get<size_t>(), b = j["b"]["instructions"].get<size_t>();
        QCOMPARE(a, size_t(4));
        QCOMPARE(b, size_t(4));
        QCOMPARE(j["matched"].get<size_t>() + j["removed"].size(), a);
        QCOMPARE(j["matched"].get<size_t>() + j["added"].size(), b);
        QCOMPARE(j["changed"].size(), size_t(1));
        QCOMPARE(j["changed"][0]["a"].get<std::string>(), std::string("mul"));
        QCOMPARE(j["changed"][0]["b"].get<std::string>(), std::string("mul"));
        QCOMPARE(j["changed"][0]["kinds"], Json::array({ "layout" }));
        QCOMPARE(j["changes_by_kind"]["layout"].get<int>(), 1);
        QCOMPARE(j["same"].get<bool>(), false);
        QVERIFY(j["matched_by"]["name"].is_number_integer());
        // --json and --text exclude each other; --json lists every entry whatever --limit says.
        const auto limited = runTgraph({ "diff", m_a, m_b, "--json", "--limit", "1" });
        QCOMPARE(limited.out, r.out);
    }

    void htmlIsSelfContainedAndAtomic()
    {
        const QString page = m_dir.filePath("diff.html");
        auto r = runTgraph({ "diff", m_a, m_b, "--html", page });
        QVERIFY2(r.exitCode == 0, qPrintable(message(r)));
        QVERIFY(r.out.startsWith("wrote "));
        QCOMPARE(r.out.count('\n'), 1);
        const QByteArray html = testutil::readAll(page);
        QVERIFY(html.startsWith("<!DOCTYPE html>"));
        QVERIFY(html.contains("<svg"));
        QVERIFY(html.contains("<style>"));
        QVERIFY(html.contains("layout"));
        for (const char* banned : { "<script", "http:", "https:", " src=", "<link", "@import", "url(" })
            QVERIFY2(!html.contains(banned), banned);
        // With --json, the JSON on stdout too.
        r = runTgraph({ "diff", m_a, m_b, "--html", page, "--json" });
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.startsWith("{"));
        // A folder that does not exist: bad input, nothing left behind.
        const QString nowhere = m_dir.filePath("no/such/folder/diff.html");
        r = runTgraph({ "diff", m_a, m_b, "--html", nowhere });
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains("diff.html"));
        QVERIFY(!QFileInfo::exists(m_dir.filePath("no")));
        // Over an existing file: replaced whole, no temporary file left.
        testutil::writeAll(page, "old");
        r = runTgraph({ "diff", m_a, m_a, "--html", page });
        QCOMPARE(r.exitCode, 0);
        QVERIFY(testutil::readAll(page).contains("The same"));
        QCOMPARE(QDir(m_dir.path()).entryList({ "diff.html*" }, QDir::Files), QStringList { "diff.html" });
    }

    void pricedDiff()
    {
        // f32[4,200]: {1,0} and {0,1} pad differently (docs/simulator.md), so the simulator prices them apart.
        const QByteArray wide = withLayout(kSmall, "f32[4,8]{1,0}", "f32[4,200]{1,0}");
        const QString a = m_dir.filePath("wide-a.hlo"), b = m_dir.filePath("wide-b.hlo");
        testutil::writeAll(a, wide);
        testutil::writeAll(b, withLayout(wide.constData(), "mul = f32[4,200]{1,0}", "mul = f32[4,200]{0,1}"));
        auto r = runTgraph({ "diff", a, b, "--json", "--price" });
        QVERIFY2(r.exitCode == 0, qPrintable(message(r)));
        Json j = parseJson(r.out.toStdString(), "stdout");
        const Json& price = j["price"];
        QCOMPARE(price["unit"].get<std::string>(), std::string("ns"));
        QVERIFY(price["estimate"].get<std::string>().find("not a measurement") != std::string::npos);
        QVERIFY(price["delta"].get<double>() != 0);
        QCOMPARE(price["delta"].get<double>(), price["b"].get<double>() - price["a"].get<double>());
        double sum = 0;
        QStringList names;
        for (const Json& e : price["instructions"]) {
            sum += e["delta"].get<double>();
            names << QString::fromStdString(e["a"].get<std::string>());
        }
        QVERIFY(std::fabs(sum - price["delta"].get<double>()) < 1e-6);
        // Only the edited instruction and its user can cost otherwise.
        for (const QString& name : names)
            QVERIFY2(name == "mul" || name == "add", qPrintable(name));
        QCOMPARE(price["computations"].size(), size_t(1));
        // Without --price: no price.
        r = runTgraph({ "diff", a, b, "--json" });
        QVERIFY(!parseJson(r.out.toStdString(), "stdout").contains("price"));
        // A module against itself: nothing to price.
        r = runTgraph({ "diff", a, a, "--json", "--price" });
        j = parseJson(r.out.toStdString(), "stdout");
        QCOMPARE(j["price"]["delta"].get<double>(), 0.0);
        QCOMPARE(j["price"]["instructions"].size(), size_t(0));
        // Text and HTML say it is an estimate.
        r = runTgraph({ "diff", a, b, "--price" });
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("Priced (estimated by the analytical simulator"));
        QVERIFY(r.out.contains("matched  mul -> mul"));
        const QString page = m_dir.filePath("priced.html");
        r = runTgraph({ "diff", a, b, "--price", "--html", page });
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("simulated cost "));
        const QByteArray html = testutil::readAll(page);
        QVERIFY(html.contains("<section class=\"price\">"));
        QVERIFY(html.indexOf("<section class=\"price\">") < html.indexOf("<footer"));
    }

    // --weights: both modules at their own layouts scored by a layout model trained here; each
    // score equals `tgraph predict` of the same module featurized in the test (the own-layout
    // configuration, row 1); a tile model and a module without configurable nodes are refused.
    void modelScores()
    {
        if (!QFileInfo(testutil::binDir() + "/tgraph-model").isExecutable())
            QSKIP("no tgraph-model (a build without LibTorch)");
        QString error;
        const QString weights = testutil::trainSmallLayoutModel(m_dir.path(), &error);
        QVERIFY2(!weights.isEmpty(), qPrintable(error));

        // A dot and a reshape (configurable), B with the dot's output layout edited.
        const QByteArray textA = testutil::kDotAndReshapeModule;
        QByteArray textB = textA;
        textB.replace("ROOT dot = f32[64,256]{1,0}", "ROOT dot = f32[64,256]{0,1}");
        const QString a = m_dir.filePath("model-a.hlo"), b = m_dir.filePath("model-b.hlo");
        testutil::writeAll(a, textA);
        testutil::writeAll(b, textB);

        auto r = runTgraph({ "diff", a, b, "--json", "--weights", weights });
        QVERIFY2(r.exitCode == 0, qPrintable(message(r)));
        const Json json = parseJson(r.out.toStdString());
        QVERIFY(json.contains("model"));
        const Json& model = json["model"];
        QVERIFY(model["estimate"].get<std::string>().find("model's estimate") != std::string::npos);
        QCOMPARE(model["weights"][0].get<std::string>(), weights.toStdString());

        // The same modules featurized here, written as graph files and scored by `tgraph predict`.
        const auto predicted = [&](const QByteArray& text, const QString& name) -> double {
            const HloModule module = parseHloText(text.toStdString(), name.toStdString());
            const LayoutGraph graph = featurizeOwnLayouts(module, name.toStdString());
            const QString npz = m_dir.filePath(name + ".npz"), csv = m_dir.filePath(name + ".csv");
            saveLayoutGraph(graph, npz.toStdString());
            const auto p = runTgraph({ "predict", "--weights", weights, "--data", npz, "-o", csv });
            if (p.exitCode != 0) {
                qWarning() << message(p);
                return NAN;
            }
            // graph,config,score,rank
            for (const QByteArray& line : testutil::readAll(csv).split('\n')) {
                const QList<QByteArray> cells = line.split(',');
                if (cells.size() == 4 && cells[1] == QByteArray::number(kOwnLayoutConfig))
                    return cells[2].toDouble();
            }
            return NAN;
        };
        const double scoreA = predicted(textA, "own-a"), scoreB = predicted(textB, "own-b");
        QVERIFY(std::isfinite(scoreA) && std::isfinite(scoreB));
        QVERIFY2(std::abs(model["a"].get<double>() - scoreA) < 1e-6,
            qPrintable(QString("%1 vs %2").arg(model["a"].get<double>()).arg(scoreA)));
        QVERIFY(std::abs(model["b"].get<double>() - scoreB) < 1e-6);
        QVERIFY(std::abs(model["delta"].get<double>() - (model["b"].get<double>() - model["a"].get<double>())) < 1e-12);
        // The edited layout is in B's configuration and not in A's: the scores differ.
        QVERIFY(model["a"].get<double>() != model["b"].get<double>());

        // Text and HTML say whose estimate it is.
        r = runTgraph({ "diff", a, b, "--weights", weights });
        QVERIFY2(r.exitCode == 0, qPrintable(message(r)));
        QVERIFY(r.out.contains("Model scores (the learned layout model's estimate"));
        QVERIFY(r.out.contains("delta " + QByteArray(formatModelScore(model["delta"].get<double>(), true).c_str())));
        const QString html = m_dir.filePath("model.html");
        r = runTgraph({ "diff", a, b, "--weights", weights, "--html", html });
        QVERIFY2(r.exitCode == 0, qPrintable(message(r)));
        QVERIFY(testutil::readAll(html).contains("the layout model&#39;s estimate")
            || testutil::readAll(html).contains("the layout model's estimate"));

        // A tile model does not score layouts: a clear error naming the file, exit 1.
        const QString tile = testutil::trainSmallTileModel(m_dir.path(), &error);
        QVERIFY2(!tile.isEmpty(), qPrintable(error));
        r = runTgraph({ "diff", a, b, "--weights", tile });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(tile.toUtf8()) && r.err.contains("tile model"), qPrintable(message(r)));
        QVERIFY(r.out.isEmpty());

        // Nothing configurable: said, exit 1.
        r = runTgraph({ "diff", m_a, m_b, "--weights", weights });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("no convolution, dot or reshape"), qPrintable(message(r)));
        // --repad alone is a usage error.
        r = runTgraph({ "diff", a, b, "--repad" });
        QCOMPARE(r.exitCode, 2);
    }

    // The own-layout configuration written from the rules (docs/formats.md §5.1): a dot pins the two
    // most-minor dims of output, lhs and rhs; a reshape all dims of output and input.
    void ownLayoutRow()
    {
        const HloModule m = parseHloText("HloModule m\n\nENTRY main {\n"
                                         "  p0 = f32[64,128]{0,1} parameter(0)\n"
                                         "  p1 = f32[128,2,256]{2,0,1} parameter(1)\n"
                                         "  r = f32[8,16,64]{1,2,0} reshape(p0)\n"
                                         "  ROOT dot = f32[64,2,256]{1,0,2} dot(p0, p1), lhs_contracting_dims={1}, "
                                         "rhs_contracting_dims={0}\n}\n",
            "row.hlo");
        const LayoutGraph g = featurizeOwnLayouts(m, "row.hlo");
        QCOMPARE(g.configCount(), int64_t(2));
        QCOMPARE(g.configurableCount(), int64_t(2));
        const auto row = [&](int64_t c, int64_t k) {
            std::vector<int> v;
            for (int i = 0; i < 18; ++i)
                v.push_back(int(g.nodeConfigFeat(c, k, i)));
            return v;
        };
        for (int64_t k = 0; k < 2; ++k)
            QCOMPARE(row(0, k), std::vector<int>(18, -1)); // the compiler default
        const std::vector<int> reshape { 1, 2, 0, -1, -1, -1, 0, 1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1 };
        const std::vector<int> dot { 1, 0, -1, -1, -1, -1, 0, 1, -1, -1, -1, -1, 2, 0, -1, -1, -1, -1 };
        QCOMPARE(g.nodeConfigIds[0], int64_t(2)); // r, then dot: ascending node order
        QCOMPARE(row(1, 0), reshape);
        QCOMPARE(row(1, 1), dot);
    }

    void oddNamesAreEscaped()
    {
        const QString odd = m_dir.filePath("odd\nname\x01.hlo");
        QVERIFY(QFile::copy(m_b, odd));
        const auto r = runTgraph({ "diff", m_a, odd });
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("odd\\nname\\x01.hlo"), r.out.constData());
        QVERIFY(!r.out.contains('\x01'));
    }

    void realBeforeAndAfterOptimizations()
    {
        const QString data = testutil::sharedDataDir();
        const QString dir = data + "/dumps/alpa_gpu_sm70";
        if (data.isEmpty() || !QFileInfo(dir).isDir())
            QSKIP("the real dump folder (../shared/data/dumps/alpa_gpu_sm70) is absent");
        const QString stem = dir + "/module_0096.func_shard_parallel__2.68.";
        const auto r = runTgraph(
            { "diff", stem + "before_optimizations.txt", stem + "sm_7.0_gpu_after_optimizations.txt", "--json" });
        QVERIFY2(r.exitCode == 0, qPrintable(message(r)));
        const Json j = parseJson(r.out.toStdString(), "stdout");
        QCOMPARE(j["matched"].get<size_t>() + j["removed"].size(), j["a"]["instructions"].get<size_t>());
        QCOMPARE(j["matched"].get<size_t>() + j["added"].size(), j["b"]["instructions"].get<size_t>());
        QVERIFY(j["changes_by_kind"]["fused-into"].get<size_t>() > 0);
        const auto text
            = runTgraph({ "diff", stem + "before_optimizations.txt", stem + "sm_7.0_gpu_after_optimizations.txt" });
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains("[fused-into]"));
    }

private:
    QTemporaryDir m_dir;
    QString m_a, m_b;
};

QTEST_GUILESS_MAIN(TestDiffCli)
#include "tst_diffcli.moc"
