// SPDX-License-Identifier: Apache-2.0
#include "app/studio/analysis/storedinference.h"

#include "core/results/scores.h"
#include "core/store/project.h"
#include "core/util/error.h"

#include <QFileInfo>
#include <QObject>

#include <cmath>

namespace tgraph::studio {

StoredRunChoices storedRunChoices(const QStringList& projectPaths)
{
    StoredRunChoices choices;
    for (const QString& projectPath : projectPaths) {
        try {
            const tgraph::Project project
                = tgraph::Project::open(projectPath.toStdString(), tgraph::Project::Access::Read);
            std::vector<StoredRunChoice> runs;
            for (const tgraph::RunRecord& r : project.runs()) {
                if (!r.parentRun.empty())
                    continue;
                const auto params = project.params(r.id);
                const bool inference = params.count("kind") && params.at("kind") == "inference";
                std::string modelFile;
                if (!inference) {
                    // Model files only from the project's data folder (Project::dataPath): a run
                    // whose stored path leads elsewhere is left out, with the reason.
                    try {
                        for (const auto& a : project.artifacts(r.id))
                            if (a.kind == "ensemble"
                                || (modelFile.empty() && (a.kind == "weights" || a.kind == "checkpoint")))
                                modelFile = project.dataPath(a.path, "run " + r.id + " " + a.kind);
                        if (modelFile.empty() && !r.checkpoint.empty())
                            modelFile = project.dataPath(r.checkpoint, "run " + r.id + " checkpoint");
                    } catch (const tgraph::InputError& e) {
                        choices.problems << QString::fromStdString(e.what());
                        continue;
                    }
                    if (modelFile.empty())
                        continue;
                }
                StoredRunChoice choice;
                choice.project = projectPath;
                choice.runId = QString::fromStdString(r.id);
                choice.label
                    = QStringLiteral("%1 %2 — %3")
                          .arg(inference ? QObject::tr("[results]") : QObject::tr("[model]"),
                              QString::fromStdString(r.name), QString::fromLatin1(tgraph::runStatusName(r.status)));
                choice.results = inference;
                choice.modelFile = QString::fromStdString(modelFile);
                runs.push_back(std::move(choice));
            }
            choices.projects.emplace_back(projectPath, std::move(runs));
        } catch (const std::exception& e) {
            choices.problems << QString::fromStdString(e.what());
        }
    }
    return choices;
}

std::shared_ptr<const InferenceOutcome> readStoredInference(
    const QString& projectPath, const QString& runId, QString* runName)
{
    const tgraph::Project project = tgraph::Project::open(projectPath.toStdString(), tgraph::Project::Access::Read);
    const auto run = project.findRun(runId.toStdString());
    if (!run)
        throw tgraph::InputError(projectPath.toStdString(), "runs", "no run " + runId.toStdString());
    auto outcome = std::make_shared<InferenceOutcome>();
    outcome->project = projectPath.toStdString();
    outcome->runId = run->id;
    const auto params = project.params(run->id);
    if (const auto it = params.find("weights"); it != params.end())
        outcome->members.push_back(it->second);
    for (const std::string& graph : project.predictedGraphs(run->id, 0)) {
        GraphInference g;
        g.path = project.absolutePath(graph);
        g.name = QFileInfo(QString::fromStdString(graph)).completeBaseName().toStdString();
        g.collection = tgraph::collectionIdFromPath(g.path);
        bool measured = false;
        for (const tgraph::PredictionRecord& p : project.predictions(run->id, 0, graph)) {
            g.configIds.push_back(p.config);
            g.scores.push_back(p.score);
            g.runtimes.push_back(double(p.runtimeNs));
            measured = measured || p.runtimeNs != 0;
        }
        if (!measured)
            g.runtimes.clear();
        g.simulated = params.count("config_set") && params.at("config_set") == "generated";
        g.kendallTau = g.opa = g.top5Slowdown = std::nan("");
        for (const tgraph::GraphMetricRecord& m : project.graphMetrics(run->id, 0))
            if (m.graph == graph) {
                g.kendallTau = m.kendallTau;
                g.opa = m.opa;
                g.top5Slowdown = m.top5Slowdown;
            }
        outcome->graphs.push_back(std::move(g));
    }
    if (outcome->graphs.empty())
        throw tgraph::InputError(projectPath.toStdString(), "run " + run->name, "has no stored predictions");
    if (runName)
        *runName = QString::fromStdString(run->name);
    return outcome;
}

} // namespace tgraph::studio
