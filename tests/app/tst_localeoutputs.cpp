// SPDX-License-Identifier: Apache-2.0
// The command line and the studio's renderer end to end under de_DE.UTF-8 and under C: convert,
// render (a graph, the split view, the rank scatter of an inference, run curves), a 5-step training
// run into a project, predict's CSV, explain --json and compare --json write the same files and
// draw the same layouts whatever the user's locale (docs/studio.md §3.6). The German locale comes
// from the fixture locale_de_DE (LOCPATH), so the system need not have it.

#include "testutil.h"

#include <QDirIterator>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QtTest>

namespace {

struct Outcome
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Drops what differs between two runs of the same work: run ids, clocks, durations, memory, hosts.
QJsonValue withoutVolatile(const QJsonValue& value)
{
    static const QRegularExpression volatileKey(
        QStringLiteral("(^|_)(id|ids|run|runs_dir|time|times|seconds|ms|started|ended|start|end|duration|"
                       "heartbeat|host|pid|memory|peak|bytes|per_step|per_128|elapsed|created|updated)($|_)|"
                       "time|second|memory|_ms$|_s$"),
        QRegularExpression::CaseInsensitiveOption);
    if (value.isObject()) {
        QJsonObject out;
        const QJsonObject in = value.toObject();
        for (auto it = in.begin(); it != in.end(); ++it)
            if (!volatileKey.match(it.key()).hasMatch())
                out.insert(it.key(), withoutVolatile(it.value()));
        return out;
    }
    if (value.isArray()) {
        QJsonArray out;
        for (const QJsonValue& v : value.toArray())
            out.append(withoutVolatile(v));
        return out;
    }
    return value;
}

QByteArray normalizedJson(const QByteArray& text)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(text, &error);
    if (doc.isNull())
        return "not JSON: " + error.errorString().toUtf8() + "\n" + text.left(200);
    const QJsonValue v = withoutVolatile(doc.isObject() ? QJsonValue(doc.object()) : QJsonValue(doc.array()));
    return QJsonDocument(v.isObject() ? QJsonDocument(v.toObject()) : QJsonDocument(v.toArray()))
        .toJson(QJsonDocument::Indented);
}

} // namespace

class TestLocaleOutputs : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void sameOutputsUnderAGermanLocale();

private:
    // Runs tgraph in `dir` (relative paths, so that both locales write the same text) under `locale`.
    Outcome tg(const QString& locale, const QString& dir, const QStringList& args);
    // The whole session of a user in `dir`: every output it wrote.
    void session(const QString& locale, const QString& dir);

    QTemporaryDir m_dir;
};

void TestLocaleOutputs::initTestCase()
{
    QVERIFY(m_dir.isValid());
    if (testutil::env("LOCPATH").isEmpty())
        QSKIP("LOCPATH is not set: run through ctest, whose fixture locale_de_DE compiles the locale");
    // The locale is there: a child under it formats numbers with a decimal comma.
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("LC_ALL"), QStringLiteral("de_DE.UTF-8"));
    p.setProcessEnvironment(env);
    p.start(QStringLiteral("/usr/bin/printf"), { QStringLiteral("%.1f"), QStringLiteral("2,5") });
    QVERIFY(p.waitForFinished(10000));
    QCOMPARE(p.readAllStandardOutput(), QByteArray("2,5"));
}

Outcome TestLocaleOutputs::tg(const QString& locale, const QString& dir, const QStringList& args)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("LC_ALL"), locale);
    env.insert(QStringLiteral("LANG"), locale);
    p.setProcessEnvironment(env);
    p.setWorkingDirectory(dir);
    p.start(testutil::binDir() + QStringLiteral("/tgraph"), args);
    Outcome r;
    if (!p.waitForStarted(10000) || !p.waitForFinished(300000)) {
        p.kill();
        p.waitForFinished();
        r.err = "did not finish: tgraph " + args.join(' ').toUtf8();
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    if (r.exitCode != 0)
        r.err = "tgraph " + args.join(' ').toUtf8() + " under " + locale.toUtf8() + ": " + r.err;
    return r;
}

#define TG_OK(...)                                                                                                     \
    [&] {                                                                                                              \
        const Outcome r_ = tg(locale, dir, __VA_ARGS__);                                                               \
        if (r_.exitCode != 0)                                                                                          \
            qWarning("%s", r_.err.constData());                                                                        \
        return r_;                                                                                                     \
    }()

void TestLocaleOutputs::session(const QString& locale, const QString& dir)
{
    QVERIFY(QDir().mkpath(dir));
    // One thread; fp32 products (the outputs are compared byte for byte between the locales, so
    // both sessions must run the same path whatever `auto` means on this CPU; docs/model.md §10.12).
    const QStringList one { QStringLiteral("--threads"), QStringLiteral("1"), QStringLiteral("--precision"),
        QStringLiteral("fp32") };
    QCOMPARE(TG_OK({ "gen-hlo", "--family", "resnet", "--size", "200", "-o", "module.hlo" }).exitCode, 0);
    QCOMPARE(TG_OK({ "convert", "module.hlo", "-o", "module.npz" }).exitCode, 0);
    QCOMPARE(TG_OK({ "synth", "--collection", "layout", "-o", "collection", "--graphs", "4", "--configs", "24",
                 "--max-size", "400", "--seed", "5" })
                 .exitCode,
        0);
    // The drawn layouts: the graph, the split view (the studio's renderer).
    QCOMPARE(TG_OK({ "render", "module.hlo", "-o", "graph.svg" }).exitCode, 0);
    QCOMPARE(TG_OK({ "render", "module.hlo", "--view", "split", "-o", "split.svg" }).exitCode, 0);
    // A 5-step training run into a project.
    QCOMPARE(TG_OK(QStringList { "train", "--data", "collection", "--steps", "5", "--configs-per-step", "8",
                       "--eval-every", "0", "--log-every", "1", "--seed", "7", "--project", "runs.tgproj" }
                 + one)
                 .exitCode,
        0);
    QString weights;
    QDirIterator it(dir + QStringLiteral("/runs.tgproj.d"), { QStringLiteral("last.npz") }, QDir::Files,
        QDirIterator::Subdirectories);
    if (it.hasNext())
        weights = QDir(dir).relativeFilePath(it.next());
    QVERIFY2(!weights.isEmpty(), "the run wrote no checkpoint");
    QCOMPARE(TG_OK(QStringList { "predict", "--weights", weights, "--data", "collection/valid", "-o", "scores.csv" } + one)
                 .exitCode,
        0);
    const QString graph = QStringLiteral("collection/valid/")
        + QDir(dir + QStringLiteral("/collection/valid")).entryList({ QStringLiteral("*.npz") }, QDir::Files, QDir::Name)
              .value(0);
    const Outcome explain = TG_OK(QStringList { "explain", graph, "--weights", weights, "--json" } + one);
    QCOMPARE(explain.exitCode, 0);
    {
        QFile f(dir + QStringLiteral("/explain.json"));
        QVERIFY(f.open(QIODevice::WriteOnly) && f.write(explain.out) == explain.out.size());
    }
    QCOMPARE(TG_OK({ "compare", "--project", "runs.tgproj", "--json", "-o", "compare.json" }).exitCode, 0);
    // The studio's views of them: the inference's rank scatter and the run curves.
    QCOMPARE(TG_OK({ "render", "collection/valid", "--view", "scatter", "--weights", weights, "-o", "scatter.svg" })
                 .exitCode,
        0);
    QCOMPARE(TG_OK({ "render", "--view", "curves", "--project", "runs.tgproj", "--metric", "train/loss", "-o",
                 "curves.svg" })
                 .exitCode,
        0);
}

void TestLocaleOutputs::sameOutputsUnderAGermanLocale()
{
    const QString c = m_dir.filePath(QStringLiteral("C"));
    const QString de = m_dir.filePath(QStringLiteral("de"));
    session(QStringLiteral("C"), c);
    if (QTest::currentTestFailed())
        return;
    session(QStringLiteral("de_DE.UTF-8"), de);
    if (QTest::currentTestFailed())
        return;
    // Byte for byte: the featurized graph, the collection, the predictions, the drawings (every
    // position of a node, an edge or a point is a number in these files).
    for (const QString& file : { QStringLiteral("module.npz"), QStringLiteral("scores.csv"), QStringLiteral("graph.svg"),
             QStringLiteral("split.svg"), QStringLiteral("scatter.svg"), QStringLiteral("curves.svg") }) {
        const QByteArray a = readAll(c + QLatin1Char('/') + file);
        const QByteArray b = readAll(de + QLatin1Char('/') + file);
        QVERIFY2(!a.isEmpty(), qPrintable(file));
        QVERIFY2(a == b, qPrintable(QStringLiteral("%1 differs under de_DE.UTF-8").arg(file)));
    }
    QDirIterator it(c + QStringLiteral("/collection"), { QStringLiteral("*.npz") }, QDir::Files,
        QDirIterator::Subdirectories);
    int graphs = 0;
    while (it.hasNext()) {
        const QString path = it.next();
        QCOMPARE(readAll(path), readAll(de + QLatin1Char('/') + QDir(c).relativeFilePath(path)));
        ++graphs;
    }
    QCOMPARE(graphs, 4);
    QVERIFY(readAll(de + QStringLiteral("/scores.csv")).contains('.')); // scores with decimal points
    // JSON reports: the same but for run ids, clocks and memory.
    for (const QString& file : { QStringLiteral("explain.json"), QStringLiteral("compare.json") }) {
        const QByteArray a = normalizedJson(readAll(c + QLatin1Char('/') + file));
        const QByteArray b = normalizedJson(readAll(de + QLatin1Char('/') + file));
        QVERIFY2(!a.startsWith("not JSON"), a.constData());
        qInfo("%s: %lld bytes compared after dropping ids and clocks", qPrintable(file), qlonglong(a.size()));
        QVERIFY(a.size() > 200);
        QVERIFY2(a == b, qPrintable(QStringLiteral("%1 differs under de_DE.UTF-8:\n%2\n---\n%3")
                                        .arg(file, QString::fromUtf8(a.left(1500)), QString::fromUtf8(b.left(1500)))));
    }
}

QTEST_MAIN(TestLocaleOutputs)
#include "tst_localeoutputs.moc"
