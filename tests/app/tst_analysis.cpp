// SPDX-License-Identifier: Apache-2.0
// The analysis side of the studio: the rank scatter, the τ strip and the attention heatmaps
// against the core metrics, and the inference panel end to end with a real model trained by
// `tgraph train` (scores, table, scatter, heatmaps, project storage, exports, bad inputs).

#include "testutil.h"

#include "app/studio/analysis/attentionheatmaps.h"
#include "app/studio/analysis/explainpanel.h"
#include "app/studio/analysis/inferencepanel.h"
#include "app/studio/analysis/tunepanel.h"
#include "widgets/common/jobtracker.h"
#include "core/view/graphdocument.h"
#include "core/metrics/metrics.h"
#include "core/store/project.h"
#include "model/facade/runtime.h"
#include "widgets/analysis/attributiontablemodel.h"
#include "widgets/common/axispolicy.h"
#include "widgets/common/errorbanner.h"
#include "widgets/common/formatting.h"
#include "widgets/graph/graphpane.h"
#include "widgets/analysis/heatmapview.h"
#include "widgets/analysis/predictiontablemodel.h"
#include "widgets/analysis/rankscatterview.h"
#include "widgets/analysis/taustripview.h"

#include <QAbstractAxis>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QLabel>
#include <QLineSeries>
#include <QPushButton>
#include <QScatterSeries>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QThread>
#include <QValueAxis>

#include <atomic>
#include <cmath>
#include <random>
#include <set>

using namespace tgraph::widgets;
using namespace tgraph::studio;

using namespace tgraph;

namespace {

QString tgraphExe() { return testutil::binDir() + "/tgraph"; }

QScatterSeries* scatterNamed(QChart* chart, const QString& name)
{
    for (QAbstractSeries* s : chart->series())
        if (s->name() == name)
            return qobject_cast<QScatterSeries*>(s);
    return nullptr;
}

tgraph::AttentionMaps syntheticMaps(int64_t configs, bool cross)
{
    tgraph::AttentionMaps maps;
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(0.01f, 0.99f);
    for (const char* name : { "linear", "linear2", "convs.0", "convs.1" }) {
        tgraph::LayerAttention l;
        l.layer = name;
        l.configs = configs;
        l.channels = std::string(name).rfind("linear", 0) == 0 ? 8 : 16;
        for (int64_t i = 0; i < configs * l.channels; ++i)
            l.gate.push_back(u(rng));
        if (cross)
            for (int64_t i = 0; i < configs * l.channels; ++i)
                l.cross.push_back(1.0f / float(configs));
        maps.layers.push_back(l);
    }
    return maps;
}

} // namespace

class TestAnalysis : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_layoutData, m_tileData, m_weights, m_tileWeights, m_hlo;

    QString path(const QString& name) const { return m_dir.filePath(name); }

    // Runs the panel's inference and waits for its end; false on timeout.
    static bool runAndWait(InferencePanel& panel)
    {
        QSignalSpy done(&panel, &InferencePanel::finished);
        panel.run();
        return done.count() > 0 || done.wait(120000);
    }

    GraphDocumentPtr openFirst(const QString& file)
    {
        auto docs = openGraphDocuments(file.toStdString());
        return docs.empty() ? nullptr : GraphDocumentPtr(std::move(docs.front()));
    }

    QString firstNpz(const QString& dir)
    {
        QDirIterator it(dir, { "*.npz" }, QDir::Files, QDirIterator::Subdirectories);
        QStringList files;
        while (it.hasNext())
            files << it.next();
        files.sort();
        return files.value(0);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_layoutData = path("layout");
        m_tileData = path("tile");
        auto r = testutil::run(tgraphExe(),
            { "synth", "--collection", "layout", "-o", m_layoutData, "--graphs", "3", "--configs", "40", "--min-size",
                "200", "--max-size", "300", "--families", "mlp,resnet", "--seed", "7" });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = testutil::run(tgraphExe(),
            { "train", "--data", m_layoutData, "--steps", "4", "--configs-per-step", "16", "--threads", "1",
                "--eval-every", "0", "-o", path("run") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        m_weights = path("run/last.npz");
        QVERIFY(QFileInfo::exists(m_weights));
        r = testutil::run(tgraphExe(),
            { "synth", "--collection", "tile", "-o", m_tileData, "--graphs", "2", "--configs", "12", "--seed", "3" });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        m_hlo = path("module.hlo");
        r = testutil::run(
            tgraphExe(), { "gen-hlo", "--family", "resnet", "--size", "300", "--seed", "2", "-o", m_hlo });
        QVERIFY2(r.exitCode == 0, r.err.constData());
    }

    void scatterMatchesCoreMetrics()
    {
        const std::vector<double> runtimes { 50, 10, 40, 20, 30, 70, 60, 80 };
        const std::vector<double> scores { 0.5, 0.1, 0.2, 0.4, 0.3, 0.9, 0.7, 0.6 };
        RankScatterData d = makeRankScatterData("g", scores, runtimes);
        QCOMPARE(d.kendallTau, kendallTauB(runtimes, scores));
        QCOMPARE(d.opa, orderedPairAccuracy(runtimes, scores));
        QCOMPARE(d.top5Slowdown, topKSlowdown(runtimes, scores, 5));
        QCOMPARE(d.trueRank[1], int64_t(0)); // runtime 10 is the fastest
        QCOMPARE(d.predictedRank[1], int64_t(0)); // score 0.1 is predicted fastest
        QCOMPARE(d.predictedRank[2], int64_t(1));

        RankScatterView view;
        view.resize(700, 600);
        view.show();
        view.setData(d);
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QChart* chart = view.rankChart();
        QVERIFY(chart->title().contains(QString::number(d.kendallTau, 'f', 3)));
        QVERIFY(chart->title().contains(QStringLiteral("OPA = %1").arg(d.opa, 0, 'f', 3)));
        QScatterSeries* trueTop = scatterNamed(chart, "true top-5");
        QScatterSeries* predTop = scatterNamed(chart, "predicted top-5");
        QVERIFY(trueTop && predTop);
        QCOMPARE(trueTop->count(), 5);
        QCOMPARE(predTop->count(), 5);
        for (const QPointF& p : trueTop->points())
            QVERIFY(p.x() < 5);
        for (const QPointF& p : predTop->points())
            QVERIFY(p.y() < 5);
        // Equal aspect: the plot area is square and both axes span the same ranks.
        QTRY_VERIFY(std::abs(chart->plotArea().width() - chart->plotArea().height()) < 1.0);
        const auto* x = qobject_cast<QValueAxis*>(chart->axes(Qt::Horizontal).value(0));
        const auto* y = qobject_cast<QValueAxis*>(chart->axes(Qt::Vertical).value(0));
        QVERIFY(x && y);
        QCOMPARE(x->min(), y->min());
        QCOMPARE(x->max(), y->max());
        // A selected config is marked in both charts.
        view.selectConfig(3);
        QCOMPARE(scatterNamed(chart, "selected")->count(), 1);
        QCOMPARE(scatterNamed(chart, "selected")->at(0), QPointF(double(d.trueRank[3]), double(d.predictedRank[3])));
        QVERIFY(view.describeRow(3).contains("config 3"));

        // Many points: a bounded subset is drawn, the top-5s always.
        std::vector<double> manyScores(50000), manyRuntimes(50000);
        for (size_t i = 0; i < manyScores.size(); ++i) {
            manyScores[i] = double((i * 7919) % 50000);
            manyRuntimes[i] = double(i + 1);
        }
        view.setData(makeRankScatterData("many", manyScores, manyRuntimes));
        QVERIFY(view.drawnPoints() <= RankScatterView::maxDrawnPoints() + 10);
        QVERIFY(view.drawnPoints() >= RankScatterView::maxDrawnPoints() / 2);
        QCOMPARE(scatterNamed(view.rankChart(), "true top-5")->count(), 5);
        QVERIFY(view.rankChart()->title().contains("drawn"));

        // Without runtimes: no metrics, no crash.
        view.setData(makeRankScatterData("unmeasured", scores, std::vector<double>(8, 0.0)));
        QVERIFY(!view.data().hasRuntimes());
        QVERIFY(view.rankChart()->title().contains("no measured runtimes"));
    }

    void tauStripSortsAndAverages()
    {
        TauStripView strip;
        strip.setEntries({ { "a", "a.npz", "layout:xla:default", 0.5 }, { "b", "b.npz", "layout:xla:default", 0.1 },
            { "c", "c.npz", "layout:nlp:random", 0.9 }, { "d", "d.npz", "layout:nlp:random", std::nan("") } });
        QCOMPARE(strip.drawOrder(), (std::vector<size_t> { 1, 0, 2 }));
        const auto means = strip.collectionMeans();
        QCOMPARE(means.size(), size_t(2));
        QCOMPARE(means.at("layout:xla:default"), 0.3);
        QCOMPARE(means.at("layout:nlp:random"), 0.9);
        QVERIFY(strip.chart()->title().contains("1 without"));
        int lines = 0;
        for (QAbstractSeries* s : strip.chart()->series())
            lines += qobject_cast<QLineSeries*>(s) ? 1 : 0;
        QCOMPARE(lines, 2); // one mean line per collection
    }

    void heatmapsHaveLayersAndChannels()
    {
        const tgraph::AttentionMaps maps = syntheticMaps(6, true);
        const HeatmapData gates = channelGateHeatmap(maps, 2);
        QCOMPARE(gates.rows(), int64_t(4));
        QCOMPARE(gates.columns, int64_t(16));
        QCOMPARE(gates.rowLabels, (QStringList { "f_in 1", "f_in 2", "block 1", "block 2" }));
        QCOMPARE(gates.colourRange(), std::make_pair(0.0, 1.0));
        QCOMPARE(gates.at(0, 3), maps.layers[0].gateAt(2, 3));
        QVERIFY(std::isnan(gates.at(0, 12))); // f_in layers have 8 channels here
        const HeatmapData mean = channelGateHeatmap(maps, -1);
        double expected = 0;
        for (int64_t c = 0; c < 6; ++c)
            expected += maps.layers[2].gateAt(c, 5);
        QVERIFY(std::abs(mean.at(2, 5) - expected / 6) < 1e-6);
        const HeatmapData diff = channelGateDifference(maps, 0, 5);
        QCOMPARE(diff.scale, HeatmapData::Scale::Diverging);
        const auto range = diff.colourRange();
        QCOMPARE(range.first, -range.second);
        QVERIFY(std::abs(diff.at(3, 1) - (maps.layers[3].gateAt(0, 1) - maps.layers[3].gateAt(5, 1))) < 1e-6);
        const HeatmapData cross = crossConfigHeatmap(maps, 2, { 5, 4, 3, 2, 1, 0 }, {});
        QCOMPARE(cross.rows(), int64_t(16));
        QCOMPARE(cross.columns, int64_t(6));
        QCOMPARE(crossConfigHeatmap(syntheticMaps(6, false), 2, { 0, 1 }, {}).rows(), int64_t(0));

        HeatmapView view;
        view.resize(600, 200);
        view.setData(gates);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const auto cell = view.cellAt(QPoint(100, 40));
        QCOMPARE(cell.first, int64_t(0));
        QVERIFY(view.describeCell(1, 2).startsWith("f_in 2, channel 2"));
    }

    void panelRanksAGraphAndStoresIt()
    {
        const QString graph = firstNpz(m_layoutData + "/train");
        QVERIFY(!graph.isEmpty());
        const GraphDocumentPtr doc = openFirst(graph);
        QVERIFY(doc);
        const QString project = path("results.tgproj");
        InferencePanel panel;
        panel.resize(1200, 800);
        panel.setDocuments({ doc }, doc);
        panel.setModelFiles({ m_weights });
        panel.setStoreInProject(project);
        QSignalSpy status(&panel, &InferencePanel::statusMessage);
        QVERIFY(runAndWait(panel));
        QVERIFY2(panel.banner()->messages().isEmpty(), qPrintable(panel.banner()->text()));
        // The status line says which products ran (docs/model.md §10.12).
        const QString precision = QString::fromStdString(facade::productPrecision());
        QVERIFY(precision == "fp32" || precision.startsWith("bf16 ("));
        QVERIFY(!status.isEmpty());
        QVERIFY2(status.last().at(0).toString().contains(", products in " + precision),
            qPrintable(status.last().at(0).toString()));
        const InferenceOutcome* out = panel.outcome();
        QVERIFY(out);
        QCOMPARE(out->graphs.size(), size_t(1));
        const GraphInference& g = out->graphs.front();
        QCOMPARE(int64_t(g.scores.size()), doc->configCount());
        QCOMPARE(panel.tableModel()->rowCount(), int(doc->configCount()));
        // The table's first row is the lowest score.
        const double lowest = *std::min_element(g.scores.begin(), g.scores.end());
        QCOMPARE(panel.tableModel()->index(0, PredictionTableModel::Score).data(Qt::UserRole).toDouble(), lowest);
        // The scatter's title carries the core metrics of these scores.
        QVERIFY(g.hasRuntimes());
        const double tau = kendallTauB(g.runtimes, g.scores);
        QVERIFY(panel.scatter()->rankChart()->title().contains(QString::number(tau, 'f', 3)));
        // Attention maps of the model: 4 layers, gates within [0, 1].
        const HeatmapData& gates = panel.channelHeatmap()->data();
        QCOMPARE(gates.rows(), int64_t(4));
        QVERIFY(gates.columns > 0);
        for (const float v : gates.values)
            QVERIFY(std::isnan(v) || (v >= 0 && v <= 1));
        QVERIFY(panel.crossHeatmap()->data().rows() > 0); // trained with cross-attn on (the default)
        panel.setAttentionMode(2);
        QCOMPARE(panel.channelHeatmap()->data().scale, HeatmapData::Scale::Diverging);
        // Any config A against a pinned config B: the gate differences of exactly those two rows.
        panel.setAttentionMode(3);
        QCOMPARE(panel.channelHeatmap()->data().rows(), int64_t(0)); // nothing pinned yet
        panel.pinConfig(g.configIds[1]);
        panel.selectConfigById(g.configIds[2]);
        const HeatmapData& ab = panel.channelHeatmap()->data();
        QCOMPARE(ab.scale, HeatmapData::Scale::Diverging);
        const auto& maps = g.attention.front();
        QVERIFY(std::abs(ab.at(2, 3) - (maps.layers[2].gateAt(2, 3) - maps.layers[2].gateAt(1, 3))) < 1e-6);

        // Per-node attention on the graph view: gate and cross weight, mean of layers and each layer.
        QCOMPARE(panel.nodeOverlayChoices(), 1 + 2 * 5);
        QVERIFY(!panel.nodeOverlayActive());
        QSignalSpy overlaySpy(&panel, &InferencePanel::nodeOverlayChanged);
        panel.setAttentionMode(0);
        panel.setNodeOverlay(2); // gate, f_in 1, of the selected config (row 2)
        QVERIFY(panel.nodeOverlayActive());
        QVERIFY(!overlaySpy.isEmpty());
        QCOMPARE(overlaySpy.last().at(0).toString(), graph);
        {
            const NodeOverlay& o = panel.nodeOverlay();
            QCOMPARE(int64_t(o.values.size()), doc->nodeCount());
            QVERIFY(!o.diverging);
            // Exactly the nodes the model saw (the pruned graph) carry a value, each a gate mean.
            QCOMPARE(int64_t(g.modelNodeIds.size()), g.nodes);
            QVERIFY(g.nodes < doc->nodeCount()); // pruning dropped some nodes
            int64_t withValue = 0;
            double sum = 0;
            for (int64_t n = 0; n < doc->nodeCount(); ++n)
                if (o.hasValue(n)) {
                    ++withValue;
                    sum += o.values[size_t(n)];
                    QVERIFY(o.values[size_t(n)] > 0 && o.values[size_t(n)] < 1);
                }
            QCOMPARE(withValue, g.nodes);
            for (const int64_t fileNode : g.modelNodeIds)
                QVERIFY(o.hasValue(fileNode));
            // The mean over nodes of the channel-averaged gates is the mean over channels of the
            // node-averaged gates the heatmap shows (both are the mean of the layer's N x F gates).
            double heat = 0;
            for (int64_t c = 0; c < maps.layers[0].channels; ++c)
                heat += maps.layers[0].gateAt(2, c);
            heat /= double(maps.layers[0].channels);
            QVERIFY2(std::abs(sum / double(withValue) - heat) < 1e-4,
                qPrintable(QStringLiteral("%1 vs %2").arg(sum / double(withValue)).arg(heat)));
        }
        // Another selected config gives other node values; the layout overlay does not replace it.
        const std::vector<float> before = panel.nodeOverlay().values;
        panel.selectConfigById(g.configIds[5]);
        QVERIFY(panel.nodeOverlay().values != before);
        // Differences go on the diverging map.
        panel.setAttentionMode(2);
        QVERIFY(panel.nodeOverlay().diverging);
        QVERIFY(panel.nodeOverlay().minimum < 0 && panel.nodeOverlay().maximum > 0);
        // Cross weights (mean of layers): softmax weights over the configs, so within (0, 1).
        panel.setAttentionMode(1);
        panel.setNodeOverlay(6);
        QVERIFY(panel.nodeOverlay().name.contains("cross"));
        for (const int64_t fileNode : g.modelNodeIds) {
            const float v = panel.nodeOverlay().values[size_t(fileNode)];
            QVERIFY(v > 0 && v < 1);
        }
        overlaySpy.clear();
        panel.setNodeOverlay(0);
        QVERIFY(panel.nodeOverlay().isEmpty());
        QCOMPARE(overlaySpy.size(), 1); // the graph views drop it

        if (const QString shots = testutil::env("TGRAPH_SCREENSHOT_DIR"); !shots.isEmpty()) {
            panel.setAttentionMode(0);
            panel.show();
            QTest::qWait(500);
            panel.grab().save(shots + "/inference-panel.png");
            panel.setAttentionMode(2);
        }
        // Stored in the project; reopens without the model.
        QVERIFY(!out->runId.empty());
        const std::vector<double> scores = g.scores;
        {
            const Project p = Project::open(project.toStdString(), Project::Access::Read);
            const auto graphs = p.predictedGraphs(out->runId, 0);
            QCOMPARE(graphs.size(), size_t(1));
            QCOMPARE(int64_t(p.predictions(out->runId, 0, graphs.front()).size()), doc->configCount());
            QCOMPARE(p.graphMetrics(out->runId, 0).size(), size_t(1));
            QCOMPARE(p.findRun(out->runId)->status, RunStatus::Finished);
            QCOMPARE(QString::fromStdString(p.params(out->runId).at("precision")), precision);
        }
        InferencePanel reopened;
        QVERIFY(reopened.openStoredRun(project, QString::fromStdString(out->runId)));
        QCOMPARE(reopened.outcome()->graphs.front().scores.size(), scores.size());
        for (size_t i = 0; i < scores.size(); ++i)
            QCOMPARE(reopened.outcome()->graphs.front().scores[i], scores[i]);

        // Exports.
        QVERIFY(panel.exportTopK(path("top.csv"), 5));
        QFile top(path("top.csv"));
        QVERIFY(top.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = top.readAll().trimmed().split('\n');
        QCOMPARE(lines.size(), 6);
        QVERIFY(lines[1].contains(QByteArray::number(qlonglong(panel.tableModel()->configAt(0)))));
        QVERIFY(panel.exportKaggle(path("kaggle.csv"), "layout:xla:default"));
        QFile kaggle(path("kaggle.csv"));
        QVERIFY(kaggle.open(QIODevice::ReadOnly));
        QVERIFY(kaggle.readAll().startsWith("ID,TopConfigs"));
    }

    void jobsRunTheAfterJobHook()
    {
        // tgraph-studio's main() installs facade::releaseIdleMemory here: it must run on the job's
        // thread after every job, whether the job succeeded or failed.
        std::atomic<int> calls { 0 };
        std::atomic<bool> onGuiThread { false };
        QThread* const gui = QThread::currentThread();
        JobTracker::setAfterEachJob(JobLane::Model, [&] {
            ++calls;
            onGuiThread = onGuiThread || QThread::currentThread() == gui;
            facade::releaseIdleMemory();
        });
        const auto reset = qScopeGuard([] { JobTracker::setAfterEachJob(JobLane::Model, {}); });
        const GraphDocumentPtr doc = openFirst(firstNpz(m_layoutData + "/train"));
        InferencePanel panel;
        panel.setDocuments({ doc }, doc);
        panel.setModelFiles({ m_weights });
        panel.setConfigSet(ConfigSetKind::Sample, 10);
        QVERIFY(runAndWait(panel));
        QVERIFY2(panel.outcome(), qPrintable(panel.banner()->text()));
        QCOMPARE(calls.load(), 1);
        panel.setModelFiles({ path("no-such-model.npz") });
        QVERIFY(runAndWait(panel));
        QVERIFY(panel.banner()->text().contains("no-such-model.npz"));
        QCOMPARE(calls.load(), 2);
        QVERIFY(!onGuiThread);
    }

    void panelSamplesAndGenerates()
    {
        const GraphDocumentPtr doc = openFirst(firstNpz(m_layoutData + "/train"));
        InferencePanel panel;
        panel.setDocuments({ doc }, doc);
        panel.setModelFiles({ m_weights });
        panel.setConfigSet(ConfigSetKind::Sample, 10);
        QVERIFY(runAndWait(panel));
        QVERIFY2(panel.outcome(), qPrintable(panel.banner()->text()));
        const GraphInference& g = panel.outcome()->graphs.front();
        QCOMPARE(g.scores.size(), size_t(10));
        QVERIFY(std::is_sorted(g.configIds.begin(), g.configIds.end()));
        QVERIFY(g.configIds.back() < doc->configCount());

        // An HLO module without configs: candidates generated and priced by the simulator.
        const GraphDocumentPtr module = openFirst(m_hlo);
        QVERIFY(module);
        panel.setDocuments({ module }, module);
        panel.setConfigSet(ConfigSetKind::Generate, 20);
        panel.setStoreInProject(path("gen.tgproj"));
        QVERIFY(runAndWait(panel));
        QVERIFY2(panel.banner()->messages().isEmpty(), qPrintable(panel.banner()->text()));
        const GraphInference& gen = panel.outcome()->graphs.front();
        QVERIFY(gen.scores.size() >= 2 && gen.scores.size() <= 20);
        QVERIFY(gen.simulated && gen.hasRuntimes());
        const Project p = Project::open(path("gen.tgproj").toStdString(), Project::Access::Read);
        const auto artifacts = p.artifacts(panel.outcome()->runId);
        QCOMPARE(artifacts.size(), size_t(1));
        QCOMPARE(artifacts.front().kind, std::string("candidates"));
        QVERIFY(QFileInfo::exists(QString::fromStdString(p.absolutePath(artifacts.front().path))));
    }

    // "Why is the predicted fastest faster than the default?" asked from the inference table: the
    // explain view gets the model and the config set the table ranked, and answers with a ranked,
    // clickable node list, the diverging overlay and a what-if editor.
    void explainFromTheInferenceTable()
    {
        const GraphDocumentPtr doc = openFirst(firstNpz(m_layoutData + "/train"));
        QVERIFY(doc);
        InferencePanel inference;
        inference.setDocuments({ doc }, doc);
        inference.setModelFiles({ m_weights });
        inference.setConfigSet(ConfigSetKind::All, 0);
        QVERIFY(runAndWait(inference));
        QVERIFY2(inference.outcome(), qPrintable(inference.banner()->text()));
        const GraphInference& g = inference.outcome()->graphs.front();
        // A: the best-ranked config that is not the compiler default (row 0 of synth files).
        const int row = inference.tableModel()->configAt(0) == 0 ? 1 : 0;
        const int64_t configA = inference.tableModel()->configAt(row);

        ExplainPanel panel;
        panel.resize(1500, 900);
        const ExplainRequest context = inference.explainContext();
        QCOMPARE(context.configIds, g.configIds); // the set the table ranked, by its file config ids
        QVERIFY(context.idsAreFileConfigs);
        QCOMPARE(context.weights, inference.outcome()->members);
        panel.setContext(context);
        panel.setConfigs(QString::number(configA), QStringLiteral("default"));
        QSignalSpy done(&panel, &ExplainPanel::finished);
        QSignalSpy overlays(&panel, &ExplainPanel::overlayChanged);
        panel.run();
        QVERIFY(done.count() > 0 || done.wait(120000));
        QVERIFY2(panel.outcome(), qPrintable(panel.banner()->text()));
        const Attribution& a = *panel.outcome()->attribution;
        // A is the table's first row; B the compiler default.
        QCOMPARE(g.configIds[size_t(panel.outcome()->rowA)], configA);
        QCOMPARE(a.rankA, int64_t(row + 1));
        QCOMPARE(a.configs, doc->configCount());
        QCOMPARE(QString::fromStdString(a.labelA), QStringLiteral("config %1").arg(configA));
        QCOMPARE(QString::fromStdString(a.labelB), QStringLiteral("compiler default (config 0)"));
        QVERIFY(std::abs(a.shareSumA() - (a.scoreA - a.bias)) <= 1e-5 * std::max(std::abs(a.scoreA - a.bias), 1e-2));
        QCOMPARE(g.configIds[size_t(panel.outcome()->rowB)], int64_t(0)); // synth files: row 0 is the default
        // A synthetic collection's runtimes are the simulator's: labelled so, never "measured"; A and B
        // shown with the digits that tell them apart, the verdict decided on the numbers with the
        // difference.
        QVERIFY(context.runtimesSimulated);
        QVERIFY(panel.outcome()->runtimesSimulated);
        const QString summary = panel.summary()->text();
        QVERIFY2(!summary.contains(QStringLiteral("measured")), qPrintable(summary));
        const QStringList shown = Formatting::durations({ double(a.runtimeA), double(a.runtimeB) });
        QVERIFY2(summary.contains(QStringLiteral("simulated ") + shown[0]), qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral("simulated ") + shown[1]), qPrintable(summary));
        if (a.runtimeA != a.runtimeB) {
            QVERIFY(shown[0] != shown[1]);
            QVERIFY2(summary.contains(QStringLiteral("The simulated runtimes "))
                    && summary.contains(QStringLiteral("runtime A − B = ")
                        + Formatting::durationDifference(double(a.runtimeA), double(a.runtimeB))),
                qPrintable(summary));
            const bool agree = (a.scoreA < a.scoreB) == (a.runtimeA < a.runtimeB);
            QCOMPARE(summary.contains(QStringLiteral(" agree: ")), agree && a.scoreA != a.scoreB);
        }

        // With cross-config attention each score names its batch: the inference table's chunk.
        QVERIFY(a.crossAttention);
        {
            const auto chunkOf = [&a](int64_t config) {
                const int64_t chunks = (a.configs + a.batchConfigs - 1) / a.batchConfigs;
                int64_t first = 0;
                for (int64_t k = 0; k < chunks; ++k) {
                    const int64_t size = a.configs / chunks + (k < a.configs % chunks ? 1 : 0);
                    if (config < first + size)
                        return QStringLiteral("configs %1–%2").arg(first).arg(first + size - 1);
                    first += size;
                }
                return QString();
            };
            QVERIFY2(summary.contains(QStringLiteral("Scores depend on their batch")), qPrintable(summary));
            QVERIFY2(summary.contains(QStringLiteral("A is scored with ") + chunkOf(a.configA)), qPrintable(summary));
            QVERIFY2(summary.contains(QStringLiteral("B with ") + chunkOf(a.configB)), qPrintable(summary));
        }

        // The ranked list is the attribution's order; the simulator column is there (synth module).
        AttributionTableModel* table = panel.tableModel();
        QCOMPARE(table->rowCount(), int(a.nodeCount()));
        const std::vector<size_t> ranked = rankedNodes(a, AttributionOrder::Effect);
        QCOMPARE(table->nodeAt(0), a.nodes[ranked.front()].fileNode);
        QVERIFY2(panel.outcome()->moduleNote.empty(), panel.outcome()->moduleNote.c_str());
        QVERIFY(table->index(0, AttributionTableModel::SimulatedEffect).data().toString() != QStringLiteral("–"));
        panel.setOrder(AttributionOrder::Share);
        QCOMPARE(table->nodeAt(0), a.nodes[rankedNodes(a, AttributionOrder::Share).front()].fileNode);

        // The overlay: share A − B at each node the model saw, on the symmetric diverging range.
        QVERIFY(overlays.count() > 0);
        const NodeOverlay& overlay = panel.overlay();
        QVERIFY(overlay.diverging);
        QCOMPARE(int64_t(overlay.values.size()), doc->nodeCount());
        QCOMPARE(overlay.minimum, -overlay.maximum);
        for (const NodeAttribution& n : a.nodes)
            QCOMPARE(overlay.values[size_t(n.fileNode)], float(n.difference()));
        panel.setOverlayQuantity(2);
        const NodeAttribution& top = a.nodes[ranked.front()];
        QCOMPARE(panel.overlay().values[size_t(top.fileNode)], float(-top.effect()));
        panel.setOverlayQuantity(0);
        QVERIFY(panel.overlay().isEmpty());

        // A click selects the node in the explain view's graph and asks the graph view to select it.
        QSignalSpy activated(&panel, &ExplainPanel::nodeActivated);
        panel.tableView()->setCurrentIndex(table->index(2, 0));
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.front().at(1).toLongLong(), table->nodeAt(2));
        QCOMPARE(panel.graphPane()->selectedNode(), table->nodeAt(2));

        // What-if: B with its own layout of a configurable node scores as B and ranks as B; with A's
        // layout of the top node the score moves.
        panel.setOrder(AttributionOrder::Effect);
        QVERIFY(top.configurable >= 0);
        panel.setWhatIfNode(top.fileNode);
        const auto tensor = [](const std::array<int8_t, 18>& v, int t) {
            QStringList dims;
            for (int i = 0; i < 6 && v[size_t(6 * t + i)] >= 0; ++i)
                dims << QString::number(v[size_t(6 * t + i)]);
            return dims.isEmpty() ? QStringLiteral("default") : dims.join(',');
        };
        const auto whatIf = [&](int base, const std::array<int8_t, 18>& v) -> const WhatIfOutcome* {
            const WhatIfOutcome* before = panel.whatIf();
            panel.runWhatIf(base, tensor(v, 0), tensor(v, 1), tensor(v, 2));
            if (!QTest::qWaitFor([&] { return panel.whatIf() && panel.whatIf() != before; }, 60000))
                return nullptr;
            return panel.whatIf();
        };
        const WhatIfOutcome* same = whatIf(1, top.layoutB);
        QVERIFY(same);
        QVERIFY(std::abs(same->effect()) <= 1e-6 * std::max(1.0, std::abs(same->baseScore)));
        QCOMPARE(same->baseRank, a.rankB);
        QCOMPARE(same->rank, a.rankB);
        const WhatIfOutcome* swapped = whatIf(1, top.layoutA);
        QVERIFY(swapped);
        QVERIFY(std::abs(swapped->effect()) > 0);
        QVERIFY(swapped->rank >= 1 && swapped->rank <= a.configs);
        QVERIFY(panel.whatIfResult()->text().contains(QStringLiteral("rank")));
        // Its baseline comes from a batch of its own (B's chunk and the edit): said so.
        QVERIFY2(panel.whatIfResult()->text().contains(QStringLiteral("(batch: B's chunk + the edit)")),
            qPrintable(panel.whatIfResult()->text()));
        QVERIFY(!panel.whatIfResult()->toolTip().isEmpty());
        // A bad layout is refused in place, without a job.
        panel.runWhatIf(1, QStringLiteral("1,1"), QString(), QString());
        QVERIFY(panel.whatIfResult()->text().contains(QStringLiteral("appears twice")));
    }

    // Candidates generated for an HLO module: explained over that set (candidate ids, not file
    // rows), with the simulator's side from the document's module.
    void explainGeneratedCandidates()
    {
        const GraphDocumentPtr module = openFirst(m_hlo);
        QVERIFY(module);
        InferencePanel inference;
        inference.setDocuments({ module }, module);
        inference.setModelFiles({ m_weights });
        inference.setConfigSet(ConfigSetKind::Generate, 30);
        QVERIFY(runAndWait(inference));
        QVERIFY2(inference.outcome(), qPrintable(inference.banner()->text()));
        const ExplainRequest context = inference.explainContext();
        QVERIFY(!context.idsAreFileConfigs);
        QVERIFY(context.configValues.ndim() == 3 && context.configValues.dim(0) >= 2);
        ExplainPanel panel;
        panel.setContext(context);
        panel.setConfigs(QStringLiteral("fastest"), QStringLiteral("slowest"));
        QSignalSpy done(&panel, &ExplainPanel::finished);
        panel.run();
        QVERIFY(done.count() > 0 || done.wait(120000));
        QVERIFY2(panel.outcome(), qPrintable(panel.banner()->text()));
        const Attribution& a = *panel.outcome()->attribution;
        QCOMPARE(a.rankA, int64_t(1));
        QCOMPARE(a.rankB, a.configs);
        QVERIFY2(panel.outcome()->moduleNote.empty(), panel.outcome()->moduleNote.c_str());
        QVERIFY(std::isfinite(a.simulatedTotalA) && std::isfinite(a.simulatedTotalB));
        QVERIFY(!a.nodes.front().name.empty()); // instruction names from the module

        // A config id outside the set is refused with a banner, and nothing runs.
        panel.setConfigs(QStringLiteral("100000"), QStringLiteral("default"));
        panel.run();
        QVERIFY(!panel.isRunning());
        QVERIFY(panel.banner()->text().contains(QStringLiteral("not in the config set")));
        // A tile kernel: a banner naming the file.
        const GraphDocumentPtr tile = openFirst(firstNpz(m_tileData));
        ExplainRequest tileContext;
        tileContext.document = tile;
        tileContext.weights = { m_weights.toStdString() };
        panel.setContext(tileContext);
        panel.setConfigs(QStringLiteral("fastest"), QStringLiteral("slowest"));
        QSignalSpy again(&panel, &ExplainPanel::finished);
        panel.run();
        QVERIFY(again.count() > 0 || again.wait(60000));
        QVERIFY(panel.banner()->text().contains(QStringLiteral("tile")));
        QVERIFY(panel.banner()->text().contains(QFileInfo(QString::fromStdString(tile->path)).fileName()));
    }

    void tensorLayoutText()
    {
        float six[6];
        std::string error;
        QVERIFY(parseTensorLayout("1,0", six, &error));
        QCOMPARE(six[0], 1.0f);
        QCOMPARE(six[1], 0.0f);
        QCOMPARE(six[2], -1.0f);
        QVERIFY(parseTensorLayout(" {3, 2,1,0} ", six, &error));
        QCOMPARE(six[3], 0.0f);
        QVERIFY(parseTensorLayout("default", six, &error) && six[0] == -1.0f);
        QVERIFY(parseTensorLayout("", six, &error) && six[5] == -1.0f);
        QVERIFY(!parseTensorLayout("1,1", six, &error) && QString::fromStdString(error).contains("twice"));
        QVERIFY(!parseTensorLayout("6", six, &error));
        QVERIFY(!parseTensorLayout("a,b", six, &error));
        QVERIFY(!parseTensorLayout("0,1,2,3,4,5,0", six, &error));
        QVERIFY(!parseTensorLayout("1,,0", six, &error));
    }

    // The Tune chart before any search: whole candidates 0 and 1 (it once read "0 0 0 0 1").
    void tuneChartStartsEmpty()
    {
        TunePanel panel;
        panel.resize(1000, 600);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        auto* x = qobject_cast<NiceAxis*>(panel.chart()->axes(Qt::Horizontal).value(0));
        QVERIFY(x);
        QCOMPARE(x->categoriesLabels(), (QStringList { "0", "1" }));
        QCOMPARE(x->min(), 0.0);
        QCOMPARE(x->max(), 1.0);
        int shown = 0;
        for (QAbstractAxis* axis : panel.chart()->axes(Qt::Vertical)) {
            auto* y = qobject_cast<NiceAxis*>(axis);
            QVERIFY(y);
            if (!y->isVisible())
                continue; // the runtime axis waits for a simulated runtime
            ++shown;
            QStringList labels = y->categoriesLabels();
            QVERIFY2(labels.contains("0") && labels.removeDuplicates() == 0, qPrintable(labels.join(' ')));
        }
        QCOMPARE(shown, 1);
    }

    // The Tune panel: a live search, the top-k re-scored and simulated, the overlay, the explain link.
    void tunePanelSearchesLive()
    {
        const QString graph = firstNpz(m_layoutData + "/train");
        const GraphDocumentPtr doc = openFirst(graph);
        QVERIFY(doc);
        TunePanel panel;
        panel.resize(1400, 700);
        panel.setDocuments({ doc }, doc);
        panel.setModelFiles({ m_weights });
        panel.setStrategy(TuneStrategy::Evolutionary);
        panel.setBudget(192);
        panel.setBatch(32);
        panel.setSimulate(true);
        QSignalSpy done(&panel, &TunePanel::finished);
        QSignalSpy overlays(&panel, &TunePanel::overlayChanged);
        panel.run();
        QVERIFY(done.wait(120000));
        QVERIFY2(panel.banner()->messages().isEmpty(), qPrintable(panel.banner()->text()));
        const TuneView* v = panel.result();
        QVERIFY(v);
        QCOMPARE(v->evaluated, int64_t(192));
        QCOMPARE(v->verification, std::string("simulated"));
        QCOMPARE(int(v->rows.size()), 1 + 10); // the default and the top-10
        QCOMPARE(v->rows.front().rank, 0);
        for (size_t r = 2; r < v->rows.size(); ++r)
            QVERIFY(v->rows[r].score >= v->rows[r - 1].score);
        for (const TuneView::Row& row : v->rows)
            QVERIFY(std::isfinite(row.runtime) && row.runtime > 0);
        QCOMPARE(panel.tableModel()->rowCount(), 11);
        // A score that its batch changed (re-scored together vs in the search batch) is explained in one line.
        const bool batchChanged = std::any_of(v->rows.begin() + 1, v->rows.end(),
            [](const TuneView::Row& row) { return std::abs(row.score - row.searchScore) > 1e-9; });
        QVERIFY(batchChanged); // cross-config attention is on in this model
        QVERIFY2(panel.summary()->text().contains(QStringLiteral("Scores depend on their batch")),
            qPrintable(panel.summary()->text()));
        QVERIFY(!panel.tableModel()->horizontalHeaderItem(2)->toolTip().isEmpty());
        // The live curve: one point per scored batch, best so far never rising, ending at the budget;
        // the simulated runtime of the best beside it.
        auto* scores = qobject_cast<QLineSeries*>(panel.chart()->series().at(0));
        auto* runtimes = qobject_cast<QLineSeries*>(panel.chart()->series().at(1));
        QVERIFY(scores && runtimes);
        QVERIFY(scores->count() >= 6);
        QCOMPARE(scores->at(scores->count() - 1).x(), 192.0);
        for (int i = 1; i < scores->count(); ++i) {
            QVERIFY(scores->at(i).x() > scores->at(i - 1).x());
            QVERIFY(scores->at(i).y() <= scores->at(i - 1).y());
        }
        QCOMPARE(runtimes->count(), scores->count());
        // Its axes: whole candidates up to the budget; the runtime axis in the unit of the runtimes.
        auto* candidates = qobject_cast<NiceAxis*>(panel.chart()->axes(Qt::Horizontal).value(0));
        QVERIFY(candidates && candidates->min() == 0 && candidates->max() >= 192);
        for (const QString& label : candidates->categoriesLabels())
            QVERIFY2(!label.contains('.'), qPrintable(candidates->categoriesLabels().join(' ')));
        // At the chart's minimum width, the score axis (scores near 0.02, in thousandths) and the
        // runtime axis beside it show every label whole; it once read "0.02..." at every tick.
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        auto* chartView = panel.findChild<QChartView*>();
        QVERIFY(chartView);
        auto* splitter = qobject_cast<QSplitter*>(chartView->parentWidget());
        QVERIFY(splitter);
        splitter->setSizes({ chartView->minimumWidth(), 4000 });
        QTest::qWait(150);
        QCOMPARE(chartView->width(), chartView->minimumWidth());
        {
            QStringList drawn;
            for (QGraphicsItem* item : panel.chart()->scene()->items())
                if (auto* text = dynamic_cast<QGraphicsTextItem*>(item); text && text->isVisible())
                    drawn << text->toPlainText();
            QStringList labels;
            for (QAbstractAxis* axis : panel.chart()->axes())
                if (auto* nice = qobject_cast<NiceAxis*>(axis); nice && nice->isVisible())
                    labels << nice->titleText() + ": " + nice->categoriesLabels().join(' ');
            for (const QString& text : drawn)
                QVERIFY2(!text.endsWith(QStringLiteral("...")),
                    qPrintable(QStringLiteral("drawn: %1; axes: %2").arg(drawn.join(" | "), labels.join("; "))));
            for (QAbstractAxis* axis : panel.chart()->axes())
                if (auto* nice = qobject_cast<NiceAxis*>(axis); nice && nice->isVisible())
                    for (const QString& label : nice->categoriesLabels())
                        QVERIFY2(drawn.contains(label), qPrintable(label + " not drawn whole: " + drawn.join(" | ")));
        }
        QCOMPARE(panel.tableModel()->item(1, 3)->text(), Formatting::durations([&] {
            std::vector<double> all;
            for (const TuneView::Row& row : v->rows)
                all.push_back(row.runtime);
            return all;
        }())[1]);
        // The overlay of #1: its changed tensors on the configurable nodes only.
        QVERIFY(!overlays.isEmpty());
        panel.selectRow(1);
        const NodeOverlay& o = panel.overlay();
        QCOMPARE(int64_t(o.values.size()), doc->nodeCount());
        int changed = 0, withValue = 0;
        for (int64_t n = 0; n < doc->nodeCount(); ++n)
            if (o.hasValue(n)) {
                ++withValue;
                changed += o.values[size_t(n)] > 0;
                QVERIFY(o.values[size_t(n)] >= 0 && o.values[size_t(n)] <= 3);
            }
        QCOMPARE(withValue, int(doc->layout.configurableCount()));
        QCOMPARE(changed, v->rows[1].changedNodes);
        if (const QString shots = testutil::env("TGRAPH_SCREENSHOT_DIR"); !shots.isEmpty()) {
            panel.show();
            QTest::qWait(500);
            panel.grab().save(shots + "/tune-panel.png");
        }
        // In the Tune view of a 1366x768 screen (the Analysis page beside its graph pane) every axis
        // title is whole: Qt Charts elides a title longer than its side of the plot.
        panel.resize(980, 600);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QTest::qWait(100);
        for (QAbstractAxis* axis : panel.chart()->axes()) {
            if (!axis->isVisible())
                continue;
            const QRectF plot = panel.chart()->plotArea();
            const double room = axis->orientation() == Qt::Vertical ? plot.height() : plot.width();
            QVERIFY2(QFontMetricsF(axis->titleFont()).horizontalAdvance(axis->titleText()) <= room,
                qPrintable(QStringLiteral("'%1' on a side of %2 px").arg(axis->titleText()).arg(room)));
        }
        if (const QString shots = testutil::env("TGRAPH_SCREENSHOT_DIR"); !shots.isEmpty())
            panel.grab().save(shots + "/tune-panel-1366.png");
        // Explain #1 against the default on the tuned set.
        const ExplainRequest request = panel.explainContext();
        QCOMPARE(request.configValues.dim(0), int64_t(11));
        QCOMPARE(request.a.index, int64_t(1));
        QCOMPARE(request.b.index, int64_t(0));
        ExplainPanel explain;
        explain.setContext(request);
        explain.setConfigs("1", "0");
        QSignalSpy explained(&explain, &ExplainPanel::finished);
        explain.run();
        QVERIFY(explained.count() > 0 || explained.wait(120000));
        QVERIFY2(explain.outcome(), qPrintable(explain.banner()->text()));
        if (v->rows[1].changedNodes > 0)
            QCOMPARE(explain.outcome()->attribution->differingNodes, int64_t(v->rows[1].changedNodes));

        // A long search shows its curve while it runs, and cancels cleanly.
        panel.setBudget(1000000);
        panel.setBatch(8);
        done.clear();
        panel.run();
        QTRY_VERIFY_WITH_TIMEOUT(scores->count() >= 2, 60000);
        QVERIFY(panel.isRunning());
        panel.cancel();
        QVERIFY(done.count() > 0 || done.wait(60000));
        QVERIFY(!panel.isRunning());
        QCOMPARE(panel.result(), v); // the finished result stays; the cancelled one never shows
        // No model: a message, nothing started.
        panel.setModelFiles({});
        panel.run();
        QVERIFY(!panel.isRunning());
        QVERIFY(panel.banner()->text().contains("model"));
    }

    // The top-k lists distinct configurations: with a budget this small every candidate, the default
    // included, is a finalist, and the default, which has the table's first row, is not listed again.
    void tuneListsDistinctCandidates()
    {
        const GraphDocumentPtr doc = openFirst(firstNpz(m_layoutData + "/train"));
        QVERIFY(doc);
        TunePanel panel;
        panel.setDocuments({ doc }, doc);
        panel.setModelFiles({ m_weights });
        panel.setStrategy(TuneStrategy::Random);
        panel.setBudget(6);
        panel.setBatch(3);
        panel.setSimulate(false);
        QSignalSpy done(&panel, &TunePanel::finished);
        panel.run();
        QVERIFY(done.count() > 0 || done.wait(120000));
        QVERIFY2(panel.banner()->messages().isEmpty(), qPrintable(panel.banner()->text()));
        const TuneView* v = panel.result();
        QVERIFY(v);
        QCOMPARE(v->evaluated, int64_t(6));
        QCOMPARE(int(v->rows.size()), 6); // the default and the 5 others, each once
        std::set<std::vector<float>> seen;
        for (const TuneView::Row& row : v->rows)
            QVERIFY2(seen.insert(row.values).second, qPrintable(QStringLiteral("rank %1 repeats a row").arg(row.rank)));
        QCOMPARE(v->rows.front().rank, 0);
        for (size_t r = 1; r < v->rows.size(); ++r)
            QCOMPARE(v->rows[r].rank, int(r));
        QCOMPARE(panel.tableModel()->rowCount(), 6);
    }

    // "Verify with the simulator" is offered only for a graph whose HLO module is known: ticked by
    // default for an HLO module and a `tgraph synth` graph (its module is generated again), unticked
    // and disabled with the reason for a graph file priced by `tgraph simulate` (its module is not in
    // the file) and a tile kernel; a search on such a graph runs and says why it is not verified, in
    // words without a command-line option.
    void tuneVerifiesOnlyWithAModule()
    {
        const QString priced = path("priced.npz");
        const auto r
            = testutil::run(tgraphExe(), { "simulate", m_hlo, "-o", priced, "--configs", "24", "--seed", "4" });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const GraphDocumentPtr hlo = openFirst(m_hlo);
        const GraphDocumentPtr synth = openFirst(firstNpz(m_layoutData + "/train"));
        const GraphDocumentPtr file = openFirst(priced);
        const GraphDocumentPtr tile = openFirst(firstNpz(m_tileData));
        QVERIFY(hlo && synth && file && tile);
        QVERIFY(!file->module);
        TunePanel panel;
        auto* simulate = panel.findChild<QCheckBox*>("simulate");
        QVERIFY(simulate);
        const auto offered = [&](const GraphDocumentPtr& doc) {
            panel.setDocuments({ hlo, synth, file, tile }, doc);
            return QTest::qWaitFor([&] { return !panel.isCheckingModule(); }, 60000) && simulate->isEnabled()
                && simulate->isChecked() && panel.simulatorProblem().isEmpty();
        };
        QVERIFY(offered(hlo));
        // A synth graph's module is generated again off the GUI thread: the box waits meanwhile.
        panel.setDocuments({ hlo, synth, file, tile }, synth);
        QVERIFY(panel.isCheckingModule());
        QVERIFY(!simulate->isEnabled() && !simulate->isChecked());
        QVERIFY(offered(synth));
        QVERIFY(!offered(file));
        QVERIFY(!simulate->isChecked());
        QVERIFY2(simulate->toolTip().contains("HLO module") && !simulate->toolTip().contains("--"),
            qPrintable(simulate->toolTip()));
        QVERIFY(!offered(tile));
        QVERIFY2(simulate->toolTip().contains("tile"), qPrintable(simulate->toolTip()));
        // Asking for it where it cannot be changes nothing; the user's choice holds where it can.
        panel.setDocuments({ hlo, synth, file, tile }, file);
        panel.setSimulate(true);
        QVERIFY(!simulate->isChecked());
        panel.setDocuments({ hlo, synth, file, tile }, hlo);
        simulate->click(); // unticked by the user
        QVERIFY(!simulate->isChecked());
        panel.setDocuments({ hlo, synth, file, tile }, synth);
        QVERIFY(simulate->isEnabled() && !simulate->isChecked());
        simulate->click();
        QVERIFY(simulate->isChecked());

        // A search on the graph file: no error, not verified, and the summary says why.
        panel.setDocuments({ hlo, synth, file, tile }, file);
        panel.setModelFiles({ m_weights });
        panel.setBudget(48);
        panel.setBatch(16);
        QSignalSpy done(&panel, &TunePanel::finished);
        panel.run();
        QVERIFY(done.count() > 0 || done.wait(120000));
        QVERIFY2(panel.banner()->messages().isEmpty(), qPrintable(panel.banner()->text()));
        QVERIFY(panel.result());
        QVERIFY(panel.result()->verification.empty());
        const QString summary = panel.summary()->text();
        QVERIFY2(summary.contains("Not verified") && summary.contains("HLO module") && !summary.contains("--"),
            qPrintable(summary));
    }

    // A banner about a state goes when the state ends (a project opened, a model or a graph chosen),
    // and however many messages it holds, the panel's main button stays whole in sight: the inference
    // panel in a dock of a 1366x768 screen (a third of its height).
    void bannersLeaveWithTheirCause()
    {
        const GraphDocumentPtr doc = openFirst(firstNpz(m_layoutData + "/train"));
        QVERIFY(doc);
        InferencePanel panel;
        panel.resize(1366, 250);
        panel.setDocuments({ doc }, doc);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        auto* openStored = panel.findChild<QPushButton*>("openStored");
        auto* run = panel.findChild<QPushButton*>("run");
        QVERIFY(openStored && run);
        panel.run(); // no model: the form's problem
        QVERIFY2(panel.banner()->text().contains("Choose a model"), qPrintable(panel.banner()->text()));
        openStored->click(); // no project known: a warning instead of a menu
        QVERIFY2(panel.banner()->text().contains("No project is open"), qPrintable(panel.banner()->text()));
        QCOMPARE(panel.banner()->messages().size(), 2);
        panel.banner()->addMessage("A failure of an earlier run that names a long path "
                                   "/home/someone/projects/tpu/graphs/collection/train/a_graph_with_a_long_name.npz");
        QTest::qWait(50);
        // The Run button is whole and in sight, beside the banner, not under it.
        const auto inSight = [&](QWidget* w) {
            const QRect r(w->mapTo(&panel, QPoint(0, 0)), w->size());
            const QRect banner(panel.banner()->mapTo(&panel, QPoint(0, 0)), panel.banner()->size());
            return w->isVisibleTo(&panel) && panel.rect().contains(r) && !r.intersects(banner)
                && w->visibleRegion().boundingRect() == w->rect();
        };
        QVERIFY(inSight(run));
        if (const QString shots = testutil::env("TGRAPH_SCREENSHOT_DIR"); !shots.isEmpty())
            panel.grab().save(shots + "/inference-banner-1366.png");
        // A project opened: its warning goes, the others stay.
        const QString project = path("banner.tgproj");
        Project::create(project.toStdString());
        panel.setProjects({ project });
        QVERIFY(!panel.banner()->text().contains("No project is open"));
        QCOMPARE(panel.banner()->messages().size(), 2);
        // A model chosen: the form's problem goes; what is left is an event, dismissed by the user.
        panel.setModelFiles({ m_weights });
        QCOMPARE(panel.banner()->messages().size(), 1);
        panel.banner()->dismiss();
        QVERIFY(!panel.banner()->isVisible());

        // The Tune panel: "open a graph" and "choose a model" go when a graph and a model come.
        TunePanel tune;
        tune.run();
        QVERIFY(tune.banner()->text().contains("Open a graph"));
        tune.setDocuments({ doc }, doc);
        QVERIFY(tune.banner()->messages().isEmpty());
        tune.setModelFiles({});
        tune.run();
        QVERIFY(tune.banner()->text().contains("Choose a model"));
        tune.setModelFiles({ m_weights });
        QVERIFY(tune.banner()->messages().isEmpty());
        QVERIFY(!tune.banner()->isVisibleTo(&tune));

        // The explain view: likewise with its context.
        ExplainPanel explain;
        explain.run();
        QVERIFY(explain.banner()->text().contains("Open a layout graph"));
        ExplainRequest context;
        context.document = doc;
        explain.setContext(context);
        QVERIFY(explain.banner()->messages().isEmpty());
        explain.run();
        QVERIFY(explain.banner()->text().contains("Choose a model"));
        context.weights = { m_weights.toStdString() };
        explain.setContext(context);
        QVERIFY(explain.banner()->messages().isEmpty());
    }

    void badInputsShowABanner()
    {
        // Layout weights on a tile kernel.
        const GraphDocumentPtr tile = openFirst(firstNpz(m_tileData));
        QVERIFY(tile);
        InferencePanel panel;
        panel.setDocuments({ tile }, tile);
        panel.setModelFiles({ m_weights });
        QVERIFY(runAndWait(panel));
        QVERIFY(!panel.outcome());
        QVERIFY(panel.banner()->text().contains("tile"));
        // A graph file as the model.
        panel.banner()->dismiss();
        panel.setModelFiles({ firstNpz(m_tileData) });
        QVERIFY(runAndWait(panel));
        QVERIFY(!panel.banner()->messages().isEmpty());
        // No model at all: an immediate message, nothing started.
        panel.banner()->dismiss();
        panel.setModelFiles({});
        panel.run();
        QVERIFY(!panel.isRunning());
        QVERIFY(panel.banner()->text().contains("model"));
        // A stored run that does not exist.
        QVERIFY(!panel.openStoredRun(path("results.tgproj"), "nope"));
    }

    void renderWritesAnalysisViews()
    {
        const QString graph = firstNpz(m_layoutData + "/train");
        auto r = testutil::run(
            tgraphExe(), { "render", graph, "--view", "scatter", "--weights", m_weights, "-o", path("s.png") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QImage image(path("s.png"));
        QCOMPARE(image.size(), QSize(1000, 800));
        r = testutil::run(
            tgraphExe(), { "render", graph, "--view", "attention", "--weights", m_weights, "-o", path("a.svg") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QFile svg(path("a.svg"));
        QVERIFY(svg.open(QIODevice::ReadOnly));
        QVERIFY(svg.readAll().contains("<svg"));
        // Stored results of the panel test, by run id prefix.
        const Project p = Project::open(path("results.tgproj").toStdString(), Project::Access::Read);
        QVERIFY(!p.runs().empty());
        const QString run = QString::fromStdString(p.runs().front().id.substr(0, 8));
        r = testutil::run(tgraphExe(),
            { "render", "--view", "tau-strip", "--project", path("results.tgproj"), "--run", run, "-o",
                path("t.png") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(!QImage(path("t.png")).isNull());
        // Bad: no model, unknown run; nothing written.
        r = testutil::run(tgraphExe(), { "render", graph, "--view", "scatter", "-o", path("bad.png") });
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains("--weights"));
        r = testutil::run(tgraphExe(),
            { "render", "--view", "scatter", "--project", path("results.tgproj"), "--run", "nope", "-o",
                path("bad.png") });
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains("nope"));
        QVERIFY(!QFileInfo::exists(path("bad.png")));

        // Per-node attention: the model's graph coloured by node gates, with the colour bar.
        r = testutil::run(
            tgraphExe(), { "render", graph, "--view", "node-attention", "--weights", m_weights, "-o", path("n.png") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QImage nodes(path("n.png"));
        QCOMPARE(nodes.size(), QSize(1200, 900));
        int yellow = 0; // the top of the colour map (colour bar and the most gated nodes)
        for (int y = 0; y < nodes.height(); y += 2)
            for (int x = 0; x < nodes.width(); x += 2) {
                const QColor c = nodes.pixelColor(x, y);
                yellow += c.red() > 200 && c.green() > 200 && c.blue() < 90;
            }
        QVERIFY(yellow > 20);
        r = testutil::run(tgraphExe(),
            { "render", m_layoutData, "--view", "node-attention", "--weights", m_weights, "-o", path("bad.png") });
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains("one graph FILE"));
        QVERIFY(!QFileInfo::exists(path("bad.png")));

        // The explain view: the ranked nodes and the model's graph with the overlay and its colour bar.
        r = testutil::run(tgraphExe(),
            { "render", graph, "--view", "explain", "--weights", m_weights, "--config", "slowest", "--vs", "default",
                "-o", path("e.png") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QImage explain(path("e.png"));
        QCOMPARE(explain.size(), QSize(1500, 900));
        // The colour bar's two ends: the diverging map's blue and red are both drawn.
        bool blue = false, red = false;
        for (int y = 0; y < explain.height(); y += 2)
            for (int x = explain.width() / 2; x < explain.width(); x += 2) {
                const QColor c = explain.pixelColor(x, y);
                blue = blue || (c.blue() > 150 && c.red() < 60 && c.green() < 120);
                red = red || (c.red() > 150 && c.blue() < 60 && c.green() < 60);
            }
        QVERIFY(blue && red);
        r = testutil::run(tgraphExe(),
            { "render", graph, "--view", "explain", "--weights", m_weights, "--vs", "bogus", "-o", path("bad.png") });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("bogus"), r.err.constData());
        QVERIFY(!QFileInfo::exists(path("bad.png")));
    }

    void collectionGivesTauStrip()
    {
        InferencePanel panel;
        panel.setDocuments({}, nullptr);
        panel.setModelFiles({ m_weights });
        panel.setCollection(m_layoutData + "/train");
        QVERIFY(runAndWait(panel));
        QVERIFY2(panel.outcome(), qPrintable(panel.banner()->text()));
        const size_t graphs = panel.outcome()->graphs.size();
        QVERIFY(graphs >= 1);
        QCOMPARE(panel.tauStrip()->entries().size(), graphs);
        QCOMPARE(panel.viewTabs()->currentWidget(),
            graphs > 1 ? static_cast<QWidget*>(panel.tauStrip()) : panel.viewTabs()->currentWidget());

        // A collection root, as New run takes it (train/ and valid/): its valid/ graphs are scored.
        const QString root = path("root");
        QVERIFY(QDir().mkpath(root + "/train") && QDir().mkpath(root + "/valid") && QDir().mkpath(root + "/test"));
        QStringList train = QDir(m_layoutData + "/train").entryList({ "*.npz" }, QDir::Files, QDir::Name);
        QVERIFY(train.size() >= 3);
        QVERIFY(QFile::copy(m_layoutData + "/train/" + train[0], root + "/train/" + train[0]));
        for (int k = 1; k < 3; ++k)
            QVERIFY(QFile::copy(m_layoutData + "/train/" + train[k], root + "/valid/" + train[k]));
        QSignalSpy messages(&panel, &InferencePanel::statusMessage);
        panel.banner()->dismiss();
        panel.setCollection(root);
        QVERIFY(runAndWait(panel));
        QVERIFY2(panel.outcome(), qPrintable(panel.banner()->text()));
        QCOMPARE(panel.outcome()->graphs.size(), size_t(2));
        for (const GraphInference& g : panel.outcome()->graphs)
            QVERIFY2(QString::fromStdString(g.path).contains("/valid/"), g.path.c_str());
        bool said = false;
        for (const QList<QVariant>& m : messages)
            said = said || m.at(0).toString().contains("valid/");
        QVERIFY(said);
        // A root with train/ only: its train/ graphs.
        panel.setCollection(m_layoutData);
        QVERIFY(runAndWait(panel));
        QVERIFY2(panel.outcome(), qPrintable(panel.banner()->text()));
        QCOMPARE(panel.outcome()->graphs.size(), size_t(train.size()));
        // Folders that are no collection splits: the studio's words, no command-line option.
        const QString other = path("other");
        QVERIFY(QDir().mkpath(other + "/a") && QDir().mkpath(other + "/b"));
        QVERIFY(QFile::copy(m_layoutData + "/train/" + train[0], other + "/a/" + train[0]));
        panel.banner()->dismiss();
        panel.setCollection(other);
        panel.run();
        QVERIFY(!panel.isRunning());
        const QString text = panel.banner()->text();
        const QString named = text.section("as the collection:", 1); // the temporary folder's name may end in "b"
        QVERIFY2(text.contains("choose one of its folders") && named.contains("a/") && !named.contains("b/")
                && !text.contains("--data"),
            qPrintable(text));
    }
};

QTEST_MAIN(TestAnalysis)
#include "tst_analysis.moc"
