// SPDX-License-Identifier: Apache-2.0
#include "app/studio/analysis/inferenceexport.h"

#include "core/results/scores.h"
#include "widgets/analysis/rankscatterdata.h"

#include <QObject>
#include <QSaveFile>

#include <algorithm>

namespace tgraph::studio {

using namespace tgraph::widgets;

bool writeTopKCsv(const RankScatterData& result, const QString& path, int k, QString* error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
        *error = QObject::tr("%1: cannot write: %2").arg(path, file.errorString());
        return false;
    }
    QByteArray out = "graph,rank,config,score,runtime_ns\n";
    for (int64_t r = 0; r < std::min<int64_t>(k, result.size()); ++r) {
        const auto row = size_t(result.predictedOrder[size_t(r)]);
        out += QStringLiteral("%1,%2,%3,%4,%5\n")
                   .arg(result.graph)
                   .arg(r + 1)
                   .arg(result.configIds[row])
                   .arg(result.scores[row], 0, 'g', 9)
                   .arg(result.hasRuntimes() ? qint64(result.runtimes[row]) : 0)
                   .toUtf8();
    }
    file.write(out);
    if (!file.commit()) {
        *error = QObject::tr("%1: cannot write: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

bool writeKaggleCsv(const InferenceOutcome& outcome, const QString& path, const QString& collectionId, QString* error)
{
    try {
        tgraph::ScoresWriter writer(
            path.toStdString(), tgraph::ScoresWriter::Format::Kaggle, collectionId.toStdString());
        for (const GraphInference& g : outcome.graphs) {
            tgraph::GraphScores s;
            s.file = g.path;
            s.name = g.name;
            s.kind = g.kind;
            s.scores.assign(g.scores.begin(), g.scores.end());
            // The Kaggle ranking lists config indices of the file: map rows to their config ids.
            for (const int64_t row : tgraph::rankingOf(s.scores))
                s.ranking.push_back(g.configIds[size_t(row)]);
            writer.add(s);
        }
        writer.commit();
        return true;
    } catch (const std::exception& e) {
        *error = QString::fromStdString(e.what());
        return false;
    }
}

bool kaggleNeedsCollection(const InferenceOutcome& outcome)
{
    return std::any_of(
        outcome.graphs.begin(), outcome.graphs.end(), [](const GraphInference& g) { return g.collection.empty(); });
}

QString proposedKaggleCollection(const InferenceOutcome& outcome)
{
    return !outcome.graphs.empty() && outcome.graphs.front().kind == tgraph::GraphKind::Tile
        ? QStringLiteral("tile:xla")
        : QStringLiteral("layout:xla:default");
}

} // namespace tgraph::studio
