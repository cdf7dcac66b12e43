// SPDX-License-Identifier: Apache-2.0
// Tests of core/metrics: hand-worked cases, brute-force cross-checks, and scipy/numpy reference values
// produced at test time by tests/tools/metrics_fixture.py.

#include "core/metrics/averages.h"
#include "core/metrics/metrics.h"
#include "core/results/scores.h"
#include "core/train/trainingevents.h"

#include <QtTest>

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using namespace tgraph;

namespace {

constexpr double kRelTol = 1e-12;

// True when both are NaN, or they agree to kRelTol relative.
bool sameValue(double actual, double expected)
{
    if (std::isnan(actual) || std::isnan(expected)) {
        return std::isnan(actual) && std::isnan(expected);
    }
    if (actual == expected) {
        return true;
    }
    return std::abs(actual - expected) <= kRelTol * std::max(std::abs(actual), std::abs(expected));
}

QByteArray describe(const char* what, double actual, double expected)
{
    return QByteArray(what) + ": actual " + QByteArray::number(actual, 'g', 17) + ", expected "
        + QByteArray::number(expected, 'g', 17);
}

#define COMPARE_METRIC(what, actual, expected)                                                                         \
    do {                                                                                                               \
        const double a_ = (actual);                                                                                    \
        const double e_ = (expected);                                                                                  \
        QVERIFY2(sameValue(a_, e_), describe(what, a_, e_).constData());                                               \
    } while (false)

// Runs `fn` and returns the message of the std::invalid_argument it throws ("" when it does not throw).
template <typename Fn> std::string invalidArgumentMessage(Fn fn)
{
    try {
        fn();
    } catch (const std::invalid_argument& e) {
        return std::string(e.what()).empty() ? std::string("<empty message>") : std::string(e.what());
    }
    return {};
}

// O(n^2) Kendall tau-b straight from the definition: (P - Q) / sqrt((P + Q + T) (P + Q + U)), T and U the
// pairs tied only in x and only in y.
double bruteKendallTauB(const std::vector<double>& x, const std::vector<double>& y)
{
    int64_t p = 0, q = 0, t = 0, u = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        for (size_t j = i + 1; j < x.size(); ++j) {
            const double dx = x[i] - x[j];
            const double dy = y[i] - y[j];
            if (dx == 0 && dy == 0) {
                continue;
            } else if (dx == 0) {
                ++t;
            } else if (dy == 0) {
                ++u;
            } else if ((dx > 0) == (dy > 0)) {
                ++p;
            } else {
                ++q;
            }
        }
    }
    const double denom = std::sqrt(double(p + q + t) * double(p + q + u));
    if (denom == 0) {
        return std::numeric_limits<double>::quiet_NaN();
    }
    return double(p - q) / denom;
}

double bruteOpa(const std::vector<double>& r, const std::vector<double>& s)
{
    int64_t num = 0, den = 0;
    for (size_t i = 0; i < r.size(); ++i) {
        for (size_t j = 0; j < r.size(); ++j) {
            if (r[i] > r[j]) {
                ++den;
                num += s[i] > s[j] ? 1 : 0;
            }
        }
    }
    return den == 0 ? std::numeric_limits<double>::quiet_NaN() : double(num) / double(den);
}

// Random integer-valued data with many ties: values in [0, range).
std::vector<double> tiedValues(std::mt19937_64& rng, size_t n, int range)
{
    std::uniform_int_distribution<int> dist(0, range - 1);
    std::vector<double> v(n);
    for (double& e : v) {
        e = dist(rng);
    }
    return v;
}

struct FixtureCase
{
    QByteArray name;
    std::vector<double> x; // runtimes
    std::vector<double> y; // scores
    double tau = 0, opa = 0, topk1 = 0, topk5 = 0, topk10 = 0, tile = 0;
};

bool parseDouble(const QByteArray& token, double& out)
{
    const char* begin = token.constData();
    const char* end = begin + token.size();
    const auto [ptr, ec] = std::from_chars(begin, end, out);
    return ec == std::errc() && ptr == end;
}

// Parses the text written by metrics_fixture.py; returns an error message, empty on success.
QString parseFixture(const QByteArray& text, std::vector<FixtureCase>& cases)
{
    FixtureCase current;
    bool open = false;
    int lineNo = 0;
    for (const QByteArray& rawLine : text.split('\n')) {
        ++lineNo;
        const QByteArray line = rawLine.trimmed();
        if (line.isEmpty()) {
            continue;
        }
        const QList<QByteArray> tokens = line.split(' ');
        const QByteArray& key = tokens.first();
        const QString where = QStringLiteral("line %1: ").arg(lineNo);
        if (key == "case") {
            if (open || tokens.size() != 2) {
                return where + QStringLiteral("unexpected 'case'");
            }
            current = FixtureCase {};
            current.name = tokens[1];
            open = true;
            continue;
        }
        if (!open) {
            return where + QStringLiteral("data outside a case");
        }
        if (key == "end") {
            if (current.x.size() != current.y.size()) {
                return where + QStringLiteral("x and y lengths differ in case ") + QString::fromLatin1(current.name);
            }
            cases.push_back(std::move(current));
            open = false;
            continue;
        }
        if (key == "n") {
            continue; // the lengths of x and y are checked against each other; n is informative
        }
        std::vector<double> values;
        values.reserve(size_t(tokens.size() - 1));
        for (qsizetype i = 1; i < tokens.size(); ++i) {
            double v = 0;
            if (!parseDouble(tokens[i], v)) {
                return where + QStringLiteral("bad number '%1'").arg(QString::fromLatin1(tokens[i]));
            }
            values.push_back(v);
        }
        if (key == "x") {
            current.x = std::move(values);
        } else if (key == "y") {
            current.y = std::move(values);
        } else {
            if (values.size() != 1) {
                return where + QStringLiteral("expected one value");
            }
            const double v = values.front();
            if (key == "tau") {
                current.tau = v;
            } else if (key == "opa") {
                current.opa = v;
            } else if (key == "topk1") {
                current.topk1 = v;
            } else if (key == "topk5") {
                current.topk5 = v;
            } else if (key == "topk10") {
                current.topk10 = v;
            } else if (key == "tile") {
                current.tile = v;
            } else {
                return where + QStringLiteral("unknown key '%1'").arg(QString::fromLatin1(key));
            }
        }
    }
    if (open) {
        return QStringLiteral("unterminated case at end of file");
    }
    return {};
}

} // namespace

class TestMetrics : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void kendallPerfectAndReversed();
    void kendallHandWorkedTies();
    void kendallDegenerate();
    void kendallMatchesBruteForce();
    void opaHandWorkedTies();
    void opaMatchesBruteForce();
    void topKSlowdownKnown();
    void tileScoreKnown();
    void apeTwoKernels();
    void rankByScoreStable();
    void largeInputsUseWideCounters();
    void invalidInputsThrow();
    void meansLeaveUndefinedOut();
    void scipyCrossCheck_data();
    void scipyCrossCheck();

private:
    void ensureFixture();

    bool m_fixtureTried = false;
    QString m_fixtureSkipReason; // non-empty: python/scipy unavailable
    QString m_fixtureError; // non-empty: the fixture could not be produced or parsed
    std::vector<FixtureCase> m_cases;
};

void TestMetrics::kendallPerfectAndReversed()
{
    const std::vector<double> x { 0.5, 1.0, 2.0, 3.5, 10.0 };
    const std::vector<double> same { 1, 2, 3, 4, 5 };
    const std::vector<double> reversed { 5, 4, 3, 2, 1 };
    QCOMPARE(kendallTauB(x, same), 1.0);
    QCOMPARE(kendallTauB(x, reversed), -1.0);
    QCOMPARE(kendallTauB(same, same), 1.0);
}

void TestMetrics::kendallHandWorkedTies()
{
    // x = [1, 2, 2, 3], y = [1, 3, 2, 2]; the 6 pairs:
    //   (0,1) 1<2, 1<3 concordant      (0,2) 1<2, 1<2 concordant      (0,3) 1<3, 1<2 concordant
    //   (1,2) x tied (2,2), y 3 vs 2    -> tie in x only (T)
    //   (1,3) 2<3, 3>2 discordant
    //   (2,3) 2<3, y tied (2,2)         -> tie in y only (U)
    // P = 3, Q = 1, T = 1, U = 1: tau_b = (3 - 1) / sqrt((3 + 1 + 1) (3 + 1 + 1)) = 2 / 5.
    const std::vector<double> x { 1, 2, 2, 3 };
    const std::vector<double> y { 1, 3, 2, 2 };
    COMPARE_METRIC("tau", kendallTauB(x, y), 0.4);
    COMPARE_METRIC("tau symmetric", kendallTauB(y, x), 0.4);

    // x = [12, 2, 1, 12, 2], y = [1, 4, 7, 1, 0]; the 10 pairs:
    //   (0,3) tied in both; (1,4) tied in x only (T = 1); no pair tied in y only (U = 0)
    //   concordant: (0,4) (3,4) -> P = 2
    //   discordant: (0,1) (0,2) (1,2) (1,3) (2,3) (2,4) -> Q = 6
    // tau_b = (2 - 6) / sqrt((2 + 6 + 1) (2 + 6 + 0)) = -4 / sqrt(72).
    const std::vector<double> a { 12, 2, 1, 12, 2 };
    const std::vector<double> b { 1, 4, 7, 1, 0 };
    COMPARE_METRIC("tau 5", kendallTauB(a, b), -4.0 / std::sqrt(72.0));
}

void TestMetrics::kendallDegenerate()
{
    const std::vector<double> empty;
    const std::vector<double> one { 1.0 };
    QVERIFY(std::isnan(kendallTauB(empty, empty)));
    QVERIFY(std::isnan(kendallTauB(one, one)));
    const std::vector<double> constant { 2, 2, 2, 2 };
    const std::vector<double> varying { 1, 2, 3, 4 };
    QVERIFY(std::isnan(kendallTauB(constant, varying)));
    QVERIFY(std::isnan(kendallTauB(varying, constant)));
    QVERIFY(std::isnan(kendallTauB(constant, constant)));
    // Infinite values are ordinary (extreme) values, not errors.
    const std::vector<double> withInf { -std::numeric_limits<double>::infinity(), 0, 1,
        std::numeric_limits<double>::infinity() };
    QCOMPARE(kendallTauB(withInf, varying), 1.0);
}

void TestMetrics::kendallMatchesBruteForce()
{
    std::mt19937_64 rng(12345);
    const int ranges[] = { 2, 3, 5, 10, 50, 1000000 };
    int trial = 0;
    for (int xr : ranges) {
        for (int yr : ranges) {
            const std::vector<double> x = tiedValues(rng, 300, xr);
            std::vector<double> y = tiedValues(rng, 300, yr);
            if (trial++ % 2 == 1) {
                // Correlate half of the trials so tau is far from 0 and discordance counting matters.
                for (size_t i = 0; i < y.size(); ++i) {
                    y[i] = std::floor((x[i] * yr / xr + y[i]) / 2);
                }
            }
            const double fast = kendallTauB(x, y);
            const double brute = bruteKendallTauB(x, y);
            const QByteArray what = "tau n=300 ranges " + QByteArray::number(xr) + "x" + QByteArray::number(yr);
            COMPARE_METRIC(what.constData(), fast, brute);
        }
    }
}

void TestMetrics::opaHandWorkedTies()
{
    // r = [1, 2, 2, 3], s = [0.5, 0.1, 0.9, 0.9]. Ordered pairs with r_i > r_j (the tied runtimes of 1 and 2
    // never count): (1,0) (2,0) (3,0) (3,1) (3,2) -> 5. With s_i > s_j: (1,0) no (0.1 < 0.5), (2,0) yes,
    // (3,0) yes, (3,1) yes, (3,2) no (tied scores) -> 3. OPA = 3/5.
    const std::vector<double> r { 1, 2, 2, 3 };
    const std::vector<double> s { 0.5, 0.1, 0.9, 0.9 };
    COMPARE_METRIC("opa", orderedPairAccuracy(r, s), 0.6);

    const std::vector<double> up { 1, 2, 3 };
    const std::vector<double> down { 3, 2, 1 };
    QCOMPARE(orderedPairAccuracy(up, up), 1.0);
    QCOMPARE(orderedPairAccuracy(up, down), 0.0);
    const std::vector<double> flat { 7, 7, 7 };
    QCOMPARE(orderedPairAccuracy(up, flat), 0.0); // all scores tied: no pair is ordered correctly
    QVERIFY(std::isnan(orderedPairAccuracy(flat, up))); // all runtimes tied: no pair to rank
    const std::vector<double> empty;
    QVERIFY(std::isnan(orderedPairAccuracy(empty, empty)));
}

void TestMetrics::opaMatchesBruteForce()
{
    std::mt19937_64 rng(777);
    for (int range : { 2, 4, 17, 1000000 }) {
        const std::vector<double> r = tiedValues(rng, 300, range);
        const std::vector<double> s = tiedValues(rng, 300, std::max(2, range / 2));
        const QByteArray what = "opa n=300 range " + QByteArray::number(range);
        COMPARE_METRIC(what.constData(), orderedPairAccuracy(r, s), bruteOpa(r, s));
    }
}

void TestMetrics::topKSlowdownKnown()
{
    // Scores in ascending order with ties by index: 0 (0.1), 2 (0.2), 4 (0.2), 1 (0.4), 3 (0.9).
    // Best runtime is r[3] = 2.
    const std::vector<double> r { 5, 3, 8, 2, 4 };
    const std::vector<double> s { 0.1, 0.4, 0.2, 0.9, 0.2 };
    COMPARE_METRIC("k=1", topKSlowdown(r, s, 1), (5.0 - 2.0) / 2.0);
    // k = 2 takes configs {0, 2}: index 2 wins the score tie with index 4 (r = 4 would give 1.0).
    COMPARE_METRIC("k=2", topKSlowdown(r, s, 2), 1.5);
    COMPARE_METRIC("k=3", topKSlowdown(r, s, 3), 1.0);
    COMPARE_METRIC("k=4", topKSlowdown(r, s, 4), 0.5);
    QCOMPARE(topKSlowdown(r, s, 5), 0.0);
    QCOMPARE(topKSlowdown(r, s, 100), 0.0); // k > n: all configs
}

void TestMetrics::tileScoreKnown()
{
    const std::vector<double> r { 5, 3, 8, 2, 4 };
    const std::vector<double> s { 0.1, 0.4, 0.2, 0.9, 0.2 };
    QCOMPARE(tileScore(r, s), 1.0); // default k = 5 covers all configs: 2 - 2/2
    COMPARE_METRIC("k=3", tileScore(r, s, 3), 0.0); // 2 - 4/2
    COMPARE_METRIC("k=1", tileScore(r, s, 1), -0.5); // 2 - 5/2
    const std::vector<double> r6 { 10, 1, 9, 8, 7, 6 };
    const std::vector<double> s6 { 0, 5, 1, 2, 3, 4 }; // the fastest config is predicted last
    COMPARE_METRIC("k=5 miss", tileScore(r6, s6), 2.0 - 6.0 / 1.0);
}

void TestMetrics::apeTwoKernels()
{
    // Kernel A: lowest score 0.1 is config 1 (t = 12), best t = 10 -> |12 - 10| = 2.
    // Kernel B: scores tie at 0.0 for configs 1 and 2; the first (config 1, t = 5) is chosen, best t = 4 -> 1.
    // APE = 100 * (2 + 1) / (10 + 4) = 300 / 14.
    const std::vector<KernelPrediction> kernels {
        { { 10, 12, 11 }, { 0.3, 0.1, 0.2 } },
        { { 4, 5, 6 }, { 0.5, 0.0, 0.0 } },
    };
    COMPARE_METRIC("ape", apePercent(kernels), 300.0 / 14.0);
    const std::vector<KernelPrediction> perfect { { { 3, 1, 2 }, { 3, 1, 2 } } };
    QCOMPARE(apePercent(perfect), 0.0);
    QVERIFY(std::isnan(apePercent(std::span<const KernelPrediction>())));
}

void TestMetrics::rankByScoreStable()
{
    const std::vector<double> s { 0.3, 0.1, 0.3, -1.0, 0.1 };
    QCOMPARE(rankByScore(s), (std::vector<int64_t> { 3, 1, 4, 0, 2 }));
    QVERIFY(rankByScore(std::vector<double> {}).empty());
}

void TestMetrics::largeInputsUseWideCounters()
{
    // n = 1e6 gives ~5e11 pairs, beyond 32-bit counters, both for tie counts and for discordant swaps.
    const size_t n = 1000000;
    std::vector<double> x(n), same(n), reversed(n);
    for (size_t i = 0; i < n; ++i) {
        x[i] = double(i % 1000);
        same[i] = 2.0 * x[i] + 1.0;
        reversed[i] = -x[i];
    }
    COMPARE_METRIC("tau same", kendallTauB(x, same), 1.0);
    COMPARE_METRIC("tau reversed", kendallTauB(x, reversed), -1.0);
    COMPARE_METRIC("opa same", orderedPairAccuracy(x, same), 1.0);
    COMPARE_METRIC("opa reversed", orderedPairAccuracy(x, reversed), 0.0);

    // Distinct values, y = x except that the two halves are swapped: every cross-half pair (n/2)^2 is
    // discordant, all others concordant: tau = (C(n,2) - 2 (n/2)^2) / C(n,2).
    std::vector<double> ramp(n), swapped(n);
    for (size_t i = 0; i < n; ++i) {
        ramp[i] = double(i);
        swapped[i] = double((i + n / 2) % n);
    }
    const double pairs = double(n) * double(n - 1) / 2;
    const double half = double(n / 2);
    COMPARE_METRIC("tau halves", kendallTauB(ramp, swapped), (pairs - 2 * half * half) / pairs);
    COMPARE_METRIC("opa halves", orderedPairAccuracy(ramp, swapped), (pairs - half * half) / pairs);
}

void TestMetrics::invalidInputsThrow()
{
    const std::vector<double> three { 1, 2, 3 };
    const std::vector<double> two { 1, 2 };
    const std::vector<double> empty;
    const std::vector<double> nanAt2 { 1, 2, std::numeric_limits<double>::quiet_NaN() };

    QVERIFY(!invalidArgumentMessage([&] { kendallTauB(three, two); }).empty());
    QVERIFY(!invalidArgumentMessage([&] { orderedPairAccuracy(three, two); }).empty());
    QVERIFY(!invalidArgumentMessage([&] { topKSlowdown(three, two, 1); }).empty());
    QVERIFY(!invalidArgumentMessage([&] { tileScore(two, three); }).empty());
    const std::string sizeMsg = invalidArgumentMessage([&] { kendallTauB(three, two); });
    QVERIFY2(sizeMsg.find('3') != std::string::npos && sizeMsg.find('2') != std::string::npos, sizeMsg.c_str());

    const std::string nanMsg = invalidArgumentMessage([&] { kendallTauB(three, nanAt2); });
    QVERIFY2(nanMsg.find("y[2]") != std::string::npos, nanMsg.c_str());
    const std::string nanMsgX = invalidArgumentMessage([&] { kendallTauB(nanAt2, three); });
    QVERIFY2(nanMsgX.find("x[2]") != std::string::npos, nanMsgX.c_str());
    QVERIFY(invalidArgumentMessage([&] { orderedPairAccuracy(nanAt2, three); }).find("[2]") != std::string::npos);
    QVERIFY(invalidArgumentMessage([&] { topKSlowdown(three, nanAt2, 2); }).find("[2]") != std::string::npos);
    QVERIFY(invalidArgumentMessage([&] { tileScore(nanAt2, three); }).find("[2]") != std::string::npos);
    QVERIFY(invalidArgumentMessage([&] { rankByScore(nanAt2); }).find("[2]") != std::string::npos);

    QVERIFY(!invalidArgumentMessage([&] { topKSlowdown(empty, empty, 1); }).empty());
    QVERIFY(!invalidArgumentMessage([&] { tileScore(empty, empty); }).empty());
    QVERIFY(!invalidArgumentMessage([&] { topKSlowdown(three, three, 0); }).empty());
    QVERIFY(!invalidArgumentMessage([&] { tileScore(three, three, -1); }).empty());

    const std::vector<KernelPrediction> emptyKernel { { { 1, 2 }, { 1, 2 } }, { {}, {} } };
    QVERIFY(invalidArgumentMessage([&] { apePercent(emptyKernel); }).find("kernel 1") != std::string::npos);
    const std::vector<KernelPrediction> mismatched { { { 1, 2 }, { 1 } } };
    QVERIFY(!invalidArgumentMessage([&] { apePercent(mismatched); }).empty());
    const std::vector<KernelPrediction> nanKernel { { { 1, 2 }, { 0.5, std::numeric_limits<double>::quiet_NaN() } } };
    QVERIFY(invalidArgumentMessage([&] { apePercent(nanKernel); }).find("[1]") != std::string::npos);
}

void TestMetrics::ensureFixture()
{
    if (m_fixtureTried) {
        return;
    }
    m_fixtureTried = true;

    QString python = qEnvironmentVariable("TGRAPH_PYTHON");
    if (python.isEmpty()) {
        python = QStringLiteral("/usr/bin/python3");
    }
    QString script;
    const QString toolsDir = qEnvironmentVariable("TGRAPH_TEST_TOOLS");
    if (!toolsDir.isEmpty()) {
        script = toolsDir + QStringLiteral("/metrics_fixture.py");
    } else {
        script = QFINDTESTDATA("../tools/metrics_fixture.py");
    }
    if (script.isEmpty() || !QFile::exists(script)) {
        m_fixtureError = QStringLiteral("metrics_fixture.py not found (TGRAPH_TEST_TOOLS='%1')").arg(toolsDir);
        return;
    }

    QTemporaryDir dir;
    if (!dir.isValid()) {
        m_fixtureError = QStringLiteral("cannot create a temporary directory: ") + dir.errorString();
        return;
    }
    const QString outFile = dir.filePath(QStringLiteral("metrics_fixture.txt"));
    QProcess proc;
    proc.start(python, { script, outFile });
    if (!proc.waitForStarted(30000)) {
        m_fixtureSkipReason
            = QStringLiteral("python interpreter '%1' could not be started: %2").arg(python, proc.errorString());
        return;
    }
    if (!proc.waitForFinished(240000)) {
        proc.kill();
        proc.waitForFinished();
        m_fixtureError = QStringLiteral("metrics_fixture.py timed out");
        return;
    }
    const QString stderrText = QString::fromLocal8Bit(proc.readAllStandardError()).trimmed();
    if (proc.exitStatus() != QProcess::NormalExit) {
        m_fixtureError = QStringLiteral("metrics_fixture.py crashed: ") + stderrText;
        return;
    }
    if (proc.exitCode() == 77) {
        m_fixtureSkipReason = QStringLiteral("numpy/scipy unavailable for '%1': %2").arg(python, stderrText);
        return;
    }
    if (proc.exitCode() != 0) {
        m_fixtureError
            = QStringLiteral("metrics_fixture.py failed with code %1: %2").arg(proc.exitCode()).arg(stderrText);
        return;
    }
    QFile file(outFile);
    if (!file.open(QIODevice::ReadOnly)) {
        m_fixtureError = QStringLiteral("cannot read ") + outFile;
        return;
    }
    m_fixtureError = parseFixture(file.readAll(), m_cases);
    if (m_fixtureError.isEmpty() && m_cases.empty()) {
        m_fixtureError = QStringLiteral("the fixture has no cases");
    }
}

void TestMetrics::scipyCrossCheck_data()
{
    QTest::addColumn<int>("caseIndex");
    ensureFixture();
    if (!m_fixtureSkipReason.isEmpty() || !m_fixtureError.isEmpty() || m_cases.empty()) {
        QTest::newRow("fixture-unavailable") << -1;
        return;
    }
    for (size_t i = 0; i < m_cases.size(); ++i) {
        QTest::newRow(m_cases[i].name.constData()) << int(i);
    }
}

void TestMetrics::scipyCrossCheck()
{
    QFETCH(int, caseIndex);
    if (!m_fixtureSkipReason.isEmpty()) {
        QSKIP(qPrintable(m_fixtureSkipReason));
    }
    QVERIFY2(m_fixtureError.isEmpty(), qPrintable(m_fixtureError));
    QVERIFY(caseIndex >= 0 && size_t(caseIndex) < m_cases.size());
    const FixtureCase& c = m_cases[size_t(caseIndex)];
    COMPARE_METRIC("kendall tau-b", kendallTauB(c.x, c.y), c.tau);
    COMPARE_METRIC("opa", orderedPairAccuracy(c.x, c.y), c.opa);
    COMPARE_METRIC("top-1 slowdown", topKSlowdown(c.x, c.y, 1), c.topk1);
    COMPARE_METRIC("top-5 slowdown", topKSlowdown(c.x, c.y, 5), c.topk5);
    COMPARE_METRIC("top-10 slowdown", topKSlowdown(c.x, c.y, 10), c.topk10);
    COMPARE_METRIC("tile score", tileScore(c.x, c.y), c.tile);
}

// One rule for means over graphs (docs/model.md §7.6): NaN and infinite values are left out, never
// counted as 0, and the mean of nothing defined is NaN; the trainer's summary (summarizeGraphs,
// also used for the studio's stored inference runs) and `tgraph eval`'s (meanMetrics) agree.
void TestMetrics::meansLeaveUndefinedOut()
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    tgraph::EvalMetrics eval;
    const auto graph = [](double tau, double opa, double slowdown) {
        tgraph::GraphEvalMetrics g;
        g.kendallTau = tau;
        g.opa = opa;
        g.top5Slowdown = slowdown;
        g.tileScore = 1.5;
        return g;
    };
    eval.graphs = { graph(0.5, 0.8, 0.1), graph(nan, nan, 0.3), graph(0.25, 0.6, inf) };
    tgraph::summarizeGraphs(eval, false);
    QCOMPARE(eval.meanTau, 0.375);
    QCOMPARE(eval.meanOpa, 0.7); // (0.8 + 0.6) / 2, not / 3
    QCOMPARE(eval.meanTop5Slowdown, 0.2);
    QVERIFY(std::isnan(eval.meanTileScore)); // layout: no tile score
    tgraph::summarizeGraphs(eval, true);
    QCOMPARE(eval.meanTileScore, 1.5);

    std::vector<tgraph::GraphMetrics> metrics(3);
    for (size_t i = 0; i < metrics.size(); ++i) {
        metrics[i].kendallTau = eval.graphs[i].kendallTau;
        metrics[i].opa = eval.graphs[i].opa;
        metrics[i].slowdown5 = eval.graphs[i].top5Slowdown;
    }
    const tgraph::GraphMetrics mean = tgraph::meanMetrics(metrics);
    QCOMPARE(mean.kendallTau, eval.meanTau);
    QCOMPARE(mean.opa, eval.meanOpa);
    QCOMPARE(mean.slowdown5, eval.meanTop5Slowdown);

    eval.graphs = { graph(nan, nan, nan) };
    tgraph::summarizeGraphs(eval, false);
    QVERIFY(std::isnan(eval.meanTau) && std::isnan(eval.meanOpa) && std::isnan(eval.meanTop5Slowdown));
    QVERIFY(std::isnan(tgraph::meanOfDefined(std::vector<tgraph::GraphEvalMetrics> {}, &tgraph::GraphEvalMetrics::opa)));
}

QTEST_GUILESS_MAIN(TestMetrics)
#include "tst_metrics.moc"
