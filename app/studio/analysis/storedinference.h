// SPDX-License-Identifier: Apache-2.0
#pragma once

// Runs of the studio's projects as the inference panel offers them: a training run's model (its
// ensemble, weights or checkpoint) to run inference with, or the stored results of an inference
// run, which reopen without the model.

#include "app/studio/analysis/inferencejob.h"

#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

namespace tgraph::studio {

// One run a project offers.
struct StoredRunChoice
{
    QString project;
    QString runId;
    QString label; // "[results] inference-3 — FINISHED", "[model] fold-run — FINISHED"
    bool results = false; // an inference run: its stored results; else a training run's model
    QString modelFile; // !results: the model file to use (absolute)
};

struct StoredRunChoices
{
    std::vector<std::pair<QString, std::vector<StoredRunChoice>>> projects; // in the order given
    QStringList problems; // projects that could not be read ("file: why")
};

// The top-level runs of `projectPaths` that have a model or stored results.
StoredRunChoices storedRunChoices(const QStringList& projectPaths);

// The stored results of inference run `runId` (id, prefix or name) of `projectPath`: its graphs'
// predictions, runtimes and metrics, without attention maps or config values. `runName`, when
// given, gets the run's name. InputError naming the project for a missing run or one without
// predictions.
std::shared_ptr<const InferenceOutcome> readStoredInference(
    const QString& projectPath, const QString& runId, QString* runName = nullptr);

} // namespace tgraph::studio
