// SPDX-License-Identifier: Apache-2.0
// Ensemble files (docs/formats.md §12, docs/model.md §6.3) as a user makes and uses them through
// `tgraph`: `train --seeds` and `--folds` write OUT/ensemble.npz, `weights combine` makes one, `weights
// show` describes it, and predict and explain take it as its members; an ensemble scores like the
// mean of its members. Hostile ensemble files (a lying member count, a missing or extra member key,
// members of different kinds) are refused naming the file and the member.

#include "core/io/npz.h"
#include "testutil.h"

#include <QDirIterator>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <functional>
#include <map>

using namespace tgraph;

namespace {

QString tgraphExe() { return testutil::binDir() + "/tgraph"; }

// One LibTorch thread (CTest runs tests side by side), as tst_modelcli.
testutil::ProcessResult tg(QStringList args)
{
    static const QStringList threaded { "train", "predict", "explain" };
    if (!args.isEmpty() && threaded.contains(args.front()) && !args.contains("--threads"))
        args << "--threads"
             << "1";
    return testutil::run(tgraphExe(), args, 300000);
}

#define VERIFY_OK(command)                                                                                             \
    do {                                                                                                               \
        const testutil::ProcessResult result_ = (command);                                                             \
        QVERIFY2(result_.exitCode == 0 && !result_.crashed, result_.err.constData());                                  \
    } while (false)

using ScoreMap = std::map<std::string, std::vector<double>>;

ScoreMap readScores(const QString& path)
{
    return testutil::readNpzArrays<double>(path);
}

// Largest |a - b| over all graphs and configs; infinity when the graphs or sizes differ.
double maxDifference(const ScoreMap& a, const ScoreMap& b)
{
    if (a.size() != b.size() || a.empty())
        return INFINITY;
    double worst = 0;
    for (const auto& [key, x] : a) {
        const auto it = b.find(key);
        if (it == b.end() || it->second.size() != x.size())
            return INFINITY;
        for (size_t i = 0; i < x.size(); ++i)
            worst = std::max(worst, std::abs(x[i] - it->second[i]));
    }
    return worst;
}

ScoreMap meanOf(const std::vector<ScoreMap>& members)
{
    ScoreMap mean;
    for (const auto& [key, x] : members.front()) {
        std::vector<double>& m = mean[key];
        m.assign(x.size(), 0.0);
        for (const ScoreMap& member : members)
            for (size_t i = 0; i < x.size(); ++i)
                m[i] += member.at(key)[i] / double(members.size());
    }
    return mean;
}

using Arrays = std::vector<std::pair<std::string, NpyArray>>;

Arrays readArrays(const QString& path)
{
    Arrays arrays;
    NpzReader r(testutil::str(path));
    for (const std::string& key : r.keys())
        arrays.emplace_back(key, r.readRaw(key));
    return arrays;
}

void writeArrays(const QString& path, const Arrays& arrays)
{
    NpzWriter w(testutil::str(path), NpzCompression::Stored);
    for (const auto& [key, a] : arrays)
        w.add(key, a);
    w.commit();
}

NpyArray int64Scalar(int64_t value)
{
    NpyArray a;
    a.header.dtype = dtypeOf<int64_t>();
    a.header.shape = {};
    a.data.resize(sizeof value);
    std::memcpy(a.data.data(), &value, sizeof value);
    return a;
}

QStringList filesBelow(const QString& dir)
{
    QStringList out;
    QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext())
        out << QDir(dir).relativeFilePath(it.next());
    out.sort();
    return out;
}

} // namespace

class TestEnsembleFile : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_layout, m_tile; // synthetic collections
    QString m_seeds; // OUT of `train --seeds 2`
    QString m_member0, m_member1; // its runs' best checkpoints
    QString m_tileWeights;

    QString path(const QString& name) const { return m_dir.filePath(name); }

    QString predictNpz(const QStringList& weights, const QString& out)
    {
        QStringList args { "predict", "--data", m_layout + "/valid", "-o", out };
        for (const QString& w : weights)
            args << "--weights" << w;
        const auto r = tg(args);
        if (r.exitCode != 0)
            qWarning("%s", r.err.constData());
        return r.exitCode == 0 ? out : QString();
    }

    // A command that must fail on bad input: exit 1, one error line naming every part, no file
    // added or removed below the temporary directory.
    void expectRefused(const QStringList& args, const QStringList& parts)
    {
        const QStringList before = filesBelow(m_dir.path());
        const auto r = tg(args);
        QVERIFY2(!r.crashed, r.err.constData());
        QVERIFY2(r.exitCode == 1, qPrintable(QString("exit %1: %2").arg(r.exitCode).arg(QString(r.err))));
        const QString message = QString::fromLocal8Bit(r.err).trimmed().split('\n').last();
        QVERIFY2(message.contains(" error: "), qPrintable(message));
        for (const QString& p : parts)
            QVERIFY2(message.contains(p), qPrintable("expected '" + p + "' in: " + message));
        QCOMPARE(filesBelow(m_dir.path()), before);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(QFileInfo(tgraphExe()).isExecutable(), qPrintable(tgraphExe()));
        qputenv("OPENBLAS_NUM_THREADS", "1");
        m_layout = path("layout");
        m_tile = path("tile");
        VERIFY_OK(tg({ "synth", "--collection", "layout", "-o", m_layout, "--graphs", "6", "--configs", "24",
            "--max-size", "300", "--seed", "3" }));
        VERIFY_OK(tg({ "synth", "--collection", "tile", "-o", m_tile, "--graphs", "4", "--configs", "12", "--max-size",
            "300", "--seed", "4" }));
        m_seeds = path("seeds");
        m_member0 = m_seeds + "/seed-0/best.npz";
        m_member1 = m_seeds + "/seed-1/best.npz";
        m_tileWeights = path("tile-run/last.npz");
        VERIFY_OK(tg({ "train", "--data", m_tile, "--steps", "2", "--hidden", "32", "--eval-every", "0", "--out",
            path("tile-run") }));
    }

    // `train --seeds 2`: two runs with seeds S and S+1 into OUT/seed-K/, then OUT/ensemble.npz whose
    // members are the two best checkpoints' weights, unchanged.
    void seedsWriteRunsAndTheirEnsemble()
    {
        const auto r = tg({ "train", "--data", m_layout, "--seeds", "2", "--seed", "42", "--steps", "4",
            "--configs-per-step", "8", "--hidden", "32", "--eval-every", "2", "--out", m_seeds });
        VERIFY_OK(r);
        const QString out = QString::fromLocal8Bit(r.out);
        QVERIFY2(QFileInfo(m_member0).isFile() && QFileInfo(m_member1).isFile(), qPrintable(out));
        QVERIFY2(out.contains("seed 42: best mean tau ") && out.contains("seed 43: best mean tau "), qPrintable(out));
        QVERIFY2(out.contains("ensemble of 2 members: " + m_seeds + "/ensemble.npz"), qPrintable(out));

        NpzReader ensemble(testutil::str(m_seeds + "/ensemble.npz"));
        QCOMPARE(ensemble.read<int64_t>("ensemble.members")[0], int64_t(2));
        size_t memberKeys = 0;
        for (const auto& [k, checkpoint] : { std::pair { 0, m_member0 }, std::pair { 1, m_member1 } }) {
            NpzReader c(testutil::str(checkpoint));
            const std::string prefix = "member." + std::to_string(k) + ".";
            for (const std::string& key : c.keys()) {
                const bool state = key.rfind("optimizer.", 0) == 0 || key.rfind("scheduler.", 0) == 0
                    || key.rfind("rng.", 0) == 0 || key.rfind("train.", 0) == 0 || key.rfind("checkpoint.", 0) == 0;
                QCOMPARE(ensemble.contains(prefix + key), !state);
                if (state)
                    continue;
                ++memberKeys;
                const NpyArray a = c.readRaw(key);
                const NpyArray b = ensemble.readRaw(prefix + key);
                QVERIFY2(a.header.shape == b.header.shape && a.header.dtype == b.header.dtype && a.data == b.data,
                    (prefix + key).c_str());
            }
        }
        QCOMPARE(ensemble.keys().size(), memberKeys + 2); // and ensemble.members, ensemble.info
        // The two runs differ (their seeds do), so the comparison above could fail.
        QVERIFY(NpzReader(testutil::str(m_member0)).readRaw("classifier.weight").data
            != NpzReader(testutil::str(m_member1)).readRaw("classifier.weight").data);
    }

    // `tgraph predict` with a combined file scores the mean of its members, as the repeated
    // --weights do; the OUT/ensemble.npz of --seeds the same.
    void combinedFileScoresTheMeanOfItsMembers()
    {
        const QString combined = path("combined.npz");
        const auto r = tg({ "weights", "combine", m_member0, m_member1, "-o", combined });
        VERIFY_OK(r);
        QVERIFY2(r.out.contains("an ensemble of 2 layout-model members"), r.out.constData());
        const ScoreMap a = readScores(predictNpz({ m_member0 }, path("s0.npz")));
        const ScoreMap b = readScores(predictNpz({ m_member1 }, path("s1.npz")));
        const ScoreMap repeated = readScores(predictNpz({ m_member0, m_member1 }, path("s01.npz")));
        const ScoreMap fromFile = readScores(predictNpz({ combined }, path("sc.npz")));
        const ScoreMap fromSeeds = readScores(predictNpz({ m_seeds + "/ensemble.npz" }, path("ss.npz")));
        const ScoreMap mean = meanOf({ a, b });
        QVERIFY2(maxDifference(fromFile, mean) <= 1e-6, qPrintable(QString::number(maxDifference(fromFile, mean))));
        QVERIFY2(
            maxDifference(fromFile, repeated) <= 1e-6, qPrintable(QString::number(maxDifference(fromFile, repeated))));
        QVERIFY(maxDifference(fromSeeds, mean) <= 1e-6);
        QVERIFY(maxDifference(a, mean) > 1e-4); // the members differ: a single member is no mean

        // A --weights list mixes an ensemble file with plain files: 2 + 1 members.
        const ScoreMap three = readScores(predictNpz({ combined, m_member0 }, path("s3.npz")));
        const ScoreMap mean3 = meanOf({ a, b, a });
        QVERIFY2(maxDifference(three, mean3) <= 1e-6, qPrintable(QString::number(maxDifference(three, mean3))));
    }

    // combine -> show -> predict: a nested combine (an ensemble file and a checkpoint) flattens to
    // three members, `show` lists them with their seeds and taus, and predict takes it.
    void combineShowPredictRoundTrip()
    {
        const QString nested = path("nested.npz");
        VERIFY_OK(tg({ "weights", "combine", m_seeds + "/ensemble.npz", m_member1, "-o", nested }));
        auto r = tg({ "weights", "show", nested });
        VERIFY_OK(r);
        const QString text = QString::fromLocal8Bit(r.out);
        QVERIFY2(text.contains("an ensemble weights file of 3 layout-model members (made by tgraph weights combine)"),
            qPrintable(text));
        QVERIFY2(text.contains("member 2: tgraph (hidden 32"), qPrintable(text));
        QVERIFY2(text.contains("seed 43; best tau "), qPrintable(text));

        r = tg({ "weights", "show", nested, "--json" });
        VERIFY_OK(r);
        const QJsonObject json = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(json["format"].toString(), QString("ensemble"));
        QCOMPARE(json["kind"].toString(), QString("layout"));
        const QJsonArray members = json["members"].toArray();
        QCOMPARE(members.size(), 3);
        QCOMPARE(members[0].toObject()["seed"].toInt(), 42);
        QCOMPARE(members[1].toObject()["seed"].toInt(), 43);
        QCOMPARE(members[2].toObject()["seed"].toInt(), 43);
        QVERIFY(members[0].toObject()["best_tau"].isDouble());
        QVERIFY(members[0].toObject()["source"].toString().endsWith("(member 0)"));

        // A checkpoint and a plain weights file are shown too.
        r = tg({ "weights", "show", m_member0 });
        VERIFY_OK(r);
        QVERIFY2(
            r.out.contains("a training checkpoint of a layout model") && r.out.contains("seed 42"), r.out.constData());

        const ScoreMap a = readScores(predictNpz({ m_member0 }, path("r0.npz")));
        const ScoreMap b = readScores(predictNpz({ m_member1 }, path("r1.npz")));
        const ScoreMap fromNested = readScores(predictNpz({ nested }, path("rn.npz")));
        QVERIFY2(maxDifference(fromNested, meanOf({ a, b, b })) <= 1e-6,
            qPrintable(QString::number(maxDifference(fromNested, meanOf({ a, b, b })))));
    }

    // Explain on an ensemble file equals Explain on its members given one by one.
    void explainOnTheFileEqualsExplainOnTheMembers()
    {
        const QString combined = path("explain.npz");
        VERIFY_OK(tg({ "weights", "combine", m_member0, m_member1, "-o", combined }));
        const QString graph
            = QDir(m_layout + "/valid").entryInfoList({ "*.npz" }, QDir::Files, QDir::Name).front().absoluteFilePath();
        const auto fromFile = tg({ "explain", graph, "--weights", combined, "--json" });
        const auto fromMembers = tg({ "explain", graph, "--weights", m_member0, "--weights", m_member1, "--json" });
        const auto single = tg({ "explain", graph, "--weights", m_member0, "--json" });
        VERIFY_OK(fromFile);
        VERIFY_OK(fromMembers);
        VERIFY_OK(single);
        const QJsonObject x = QJsonDocument::fromJson(fromFile.out).object();
        const QJsonObject y = QJsonDocument::fromJson(fromMembers.out).object();
        QVERIFY2(!x.isEmpty(), fromFile.out.constData());
        QCOMPARE(x, y);
        QVERIFY(x != QJsonDocument::fromJson(single.out).object()); // one member explains otherwise
    }

    // `train --folds` writes OUT/ensemble.npz beside ensemble.json, holding the manifest's checkpoints.
    void foldsWriteTheEnsembleFile()
    {
        const QString cv = path("cv");
        const auto r = tg({ "train", "--data", m_layout, "--folds", "3", "--train-folds", "2", "--keep", "2", "--steps",
            "2", "--configs-per-step", "8", "--hidden", "32", "--eval-every", "0", "--out", cv });
        VERIFY_OK(r);
        QVERIFY2(r.out.contains("ensemble file: " + (cv + "/ensemble.npz").toLocal8Bit()), r.out.constData());
        const auto show = tg({ "weights", "show", cv + "/ensemble.npz", "--json" });
        VERIFY_OK(show);
        const QJsonArray members = QJsonDocument::fromJson(show.out).object()["members"].toArray();
        QCOMPARE(members.size(), 2);
        for (const auto& m : members)
            QCOMPARE(m.toObject()["folds"].toInt(), 3);
        const ScoreMap fromManifest = readScores(predictNpz({ cv + "/ensemble.json" }, path("cvj.npz")));
        const ScoreMap fromFile = readScores(predictNpz({ cv + "/ensemble.npz" }, path("cvn.npz")));
        QVERIFY(maxDifference(fromFile, fromManifest) <= 1e-6);
    }

    void hostileFiles_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QStringList>("parts");
        QTest::newRow("count-too-high") << "count-high" << QStringList { "ensemble.members", "member 2 is missing" };
        QTest::newRow("count-too-low") << "count-low" << QStringList { "member.1.", "declares 1 members" };
        QTest::newRow("count-absurd") << "count-absurd" << QStringList { "ensemble.members", "declares 1000000" };
        QTest::newRow("missing-key") << "missing-key" << QStringList { "member.1.classifier.bias", "missing" };
        QTest::newRow("extra-key") << "extra-key" << QStringList { "member.0.extra.weight", "unexpected key" };
        QTest::newRow("mis-shaped") << "mis-shaped" << QStringList { "member.1.classifier.bias", "shape" };
        QTest::newRow("stray-key") << "stray-key" << QStringList { "classifier.weight", "unexpected key" };
        QTest::newRow("checkpoint-state")
            << "checkpoint-state" << QStringList { "member.0.checkpoint.version", "unexpected key" };
        QTest::newRow("mixed-kinds") << "mixed-kinds" << QStringList { "member 1", "tile-model", "one kind" };
    }

    // Each crafted file is refused by predict (and show) with the file, the member and the key named.
    void hostileFiles()
    {
        QFETCH(QString, name);
        QFETCH(QStringList, parts);
        const QString combined = path("hostile-base.npz");
        if (!QFileInfo(combined).exists())
            VERIFY_OK(tg({ "weights", "combine", m_member0, m_member1, "-o", combined }));
        Arrays arrays = readArrays(combined);
        const auto find = [&](const std::string& key) -> NpyArray& {
            for (auto& [k, a] : arrays)
                if (k == key)
                    return a;
            throw std::runtime_error("no key " + key);
        };
        if (name == "count-high") {
            find("ensemble.members") = int64Scalar(3);
        } else if (name == "count-low") {
            find("ensemble.members") = int64Scalar(1);
        } else if (name == "count-absurd") {
            find("ensemble.members") = int64Scalar(1000000);
        } else if (name == "missing-key") {
            std::erase_if(arrays, [](const auto& p) { return p.first == "member.1.classifier.bias"; });
        } else if (name == "extra-key") {
            arrays.emplace_back("member.0.extra.weight", find("member.0.classifier.bias"));
        } else if (name == "mis-shaped") {
            NpyArray& bias = find("member.1.classifier.bias");
            bias.header.shape = { 1, bias.header.shape.empty() ? 1 : bias.header.shape[0] };
        } else if (name == "stray-key") {
            arrays.emplace_back("classifier.weight", find("member.0.classifier.weight"));
        } else if (name == "checkpoint-state") {
            arrays.emplace_back("member.0.checkpoint.version", int64Scalar(1));
        } else if (name == "mixed-kinds") {
            // Member 1 replaced by the tile model's weights keys.
            std::erase_if(arrays, [](const auto& p) { return p.first.rfind("member.1.", 0) == 0; });
            NpzReader tile(testutil::str(m_tileWeights));
            for (const std::string& key : tile.keys())
                if (key.rfind("optimizer.", 0) != 0 && key.rfind("scheduler.", 0) != 0 && key.rfind("rng.", 0) != 0
                    && key.rfind("train.", 0) != 0 && key.rfind("checkpoint.", 0) != 0)
                    arrays.emplace_back("member.1." + key, tile.readRaw(key));
        }
        const QString file = path("hostile-" + name + ".npz");
        writeArrays(file, arrays);
        expectRefused({ "predict", "--weights", file, "--data", m_layout + "/valid", "-o", path("never.npz") },
            QStringList { file } + parts);
        expectRefused({ "weights", "show", file }, QStringList { file } + parts);
        QFile::remove(file);
    }

    // combine refuses members of different kinds, naming the file; one model's commands refuse an
    // ensemble file clearly.
    void combineAndSingleModelCommandsRefuse()
    {
        expectRefused({ "weights", "combine", m_member0, m_tileWeights, "-o", path("never.npz") },
            { m_tileWeights, "tile-model", m_member0, "one kind" });
        const QString combined = path("single.npz");
        VERIFY_OK(tg({ "weights", "combine", m_member0, "-o", combined }));
        expectRefused(
            { "weights", "import", combined, "-o", path("never.npz") }, { combined, "ensemble weights file" });
        expectRefused(
            { "weights", "export", combined, "-o", path("never.npz") }, { combined, "ensemble weights file" });
    }
};

QTEST_GUILESS_MAIN(TestEnsembleFile)
#include "tst_ensemblefile.moc"
