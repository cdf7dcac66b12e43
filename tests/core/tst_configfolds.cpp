// SPDX-License-Identifier: Apache-2.0
// Folds over configurations (core/train/configfolds.h, docs/model.md §4.4.1): over the K folds the
// held-out configurations partition each graph's configurations; a held-out configuration is never
// in a graph the trainer steps on (the training split), duplicates included; too few
// configurations, a tile graph and valid-split files are handled as documented.

#include "core/graph/configs.h"
#include "core/graph/graphio.h"
#include "core/synth/synthetic.h"
#include "core/train/configfolds.h"
#include "core/train/trainingset.h"
#include "core/util/error.h"
#include "testutil.h"

#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <set>
#include <string>
#include <vector>

using namespace tgraph;
using namespace testutil;

namespace {

using ConfigKey = std::vector<int32_t>; // a configuration's compressed rows

std::vector<ConfigKey> configKeys(const TrainingGraph& g)
{
    std::vector<ConfigKey> out;
    for (int64_t c = 0; c < g.configCount(); ++c)
        out.emplace_back(g.configs.row(c), g.configs.row(c) + g.configs.rowSize());
    return out;
}

} // namespace

class TestConfigFolds : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    std::string writeGraph(const QString& name, int64_t configs, uint64_t seed, double duplicates = 0.1)
    {
        SyntheticLayoutSpec spec;
        spec.nodes = 80;
        spec.configurableNodes = 5;
        spec.configs = configs;
        spec.duplicateFraction = duplicates;
        spec.seed = seed;
        const std::string path = str(m_dir.filePath(name));
        saveLayoutGraph(makeSyntheticLayoutGraph(spec), path);
        return path;
    }

    TrainingData load(const std::vector<DataFile>& files)
    {
        return loadTrainingData(files, TrainingDataOptions {});
    }

private Q_SLOTS:
    void heldOutConfigsPartitionEachGraphAndNeverTrain()
    {
        const std::string a = writeGraph("a.npz", 53, 7);
        const std::string b = writeGraph("b.npz", 31, 8);
        const TrainingData whole = load({ { a, DataSplit::Train, true }, { b, DataSplit::Train, true } });
        QVERIFY(whole.graphs[0].duplicatesRemoved > 0); // the split sees de-duplicated configs
        const int folds = 5;
        std::vector<std::map<ConfigKey, int>> heldCount(2);
        for (int k = 0; k < folds; ++k) {
            TrainingData data = load({ { a, DataSplit::Train, true }, { b, DataSplit::Train, true } });
            holdOutConfigFold(data, { folds, k, 11 });
            QCOMPARE(data.graphs.size(), size_t(4));
            const std::vector<size_t> train = data.indicesOf(DataSplit::Train);
            const std::vector<size_t> valid = data.indicesOf(DataSplit::Valid);
            QCOMPARE(train, (std::vector<size_t> { 0, 1 }));
            QCOMPARE(valid, (std::vector<size_t> { 2, 3 }));
            for (size_t g = 0; g < 2; ++g) {
                const TrainingGraph& t = data.graphs[train[g]];
                const TrainingGraph& v = data.graphs[valid[g]];
                QCOMPARE(v.path, t.path);
                QVERIFY(v.name.find("held-out fold " + std::to_string(k)) != std::string::npos);
                QCOMPARE(t.configCount() + v.configCount(), whole.graphs[g].configCount());
                QVERIFY(v.configCount() >= 2);
                const std::vector<ConfigKey> trained = configKeys(t);
                const std::set<ConfigKey> trainedSet(trained.begin(), trained.end());
                for (const ConfigKey& h : configKeys(v)) {
                    QVERIFY2(!trainedSet.count(h), "a held-out configuration is in a training graph");
                    ++heldCount[g][h];
                }
                // runtimes travel with their configurations
                const std::vector<ConfigKey> all = configKeys(whole.graphs[g]);
                std::map<ConfigKey, int64_t> runtime;
                for (size_t c = 0; c < all.size(); ++c)
                    runtime[all[c]] = whole.graphs[g].layout.configRuntime[int64_t(c)];
                const std::vector<ConfigKey> held = configKeys(v);
                for (size_t c = 0; c < held.size(); ++c)
                    QCOMPARE(v.layout.configRuntime[int64_t(c)], runtime.at(held[c]));
            }
        }
        for (size_t g = 0; g < 2; ++g) { // every configuration held out exactly once over the folds
            const std::vector<ConfigKey> all = configKeys(whole.graphs[g]);
            QCOMPARE(heldCount[g].size(), all.size());
            for (const auto& [key, n] : heldCount[g])
                QCOMPARE(n, 1);
        }
    }

    void sameSeedSameSplitOtherSeedOther()
    {
        const std::string a = writeGraph("s.npz", 40, 3, 0);
        auto heldOut = [&](uint32_t seed) {
            TrainingData data = load({ { a, DataSplit::Train, true } });
            holdOutConfigFold(data, { 4, 1, seed });
            return configKeys(data.graphs[1]);
        };
        QCOMPARE(heldOut(5), heldOut(5));
        QVERIFY(heldOut(5) != heldOut(6));
    }

    void validFilesAreLeftOutAndNamed()
    {
        const std::string a = writeGraph("t.npz", 20, 4);
        const std::string b = writeGraph("v.npz", 20, 5);
        TrainingData data = load({ { a, DataSplit::Train, true }, { b, DataSplit::Valid, true } });
        holdOutConfigFold(data, { 2, 0, 0 });
        QCOMPARE(data.graphs.size(), size_t(2));
        QCOMPARE(data.graphs[1].path, a);
        QCOMPARE(data.skipped.size(), size_t(1));
        QVERIFY(data.skipped[0].find(b) != std::string::npos);
    }

    void tooFewConfigsIsAnInputError()
    {
        const std::string a = writeGraph("few.npz", 7, 9, 0);
        TrainingData data = load({ { a, DataSplit::Train, true } });
        expectInputError([&] { holdOutConfigFold(data, { 4, 0, 0 }); }, { QString::fromStdString(a), "config_runtime",
            "--config-folds 4 needs at least 8" });
    }

    void offLeavesDataAlone()
    {
        const std::string a = writeGraph("off.npz", 12, 2);
        TrainingData data = load({ { a, DataSplit::Train, true } });
        const int64_t before = data.graphs[0].configCount();
        holdOutConfigFold(data, {});
        QCOMPARE(data.graphs.size(), size_t(1));
        QCOMPARE(data.graphs[0].configCount(), before);
    }
};

QTEST_GUILESS_MAIN(TestConfigFolds)
#include "tst_configfolds.moc"
