// SPDX-License-Identifier: Apache-2.0
#pragma once

// The inference panel's exports: the first k configurations of a result in predicted order as CSV,
// and a Kaggle submission of every graph of an outcome (core/results/scores.h's ScoresWriter).

#include "app/studio/analysis/inferencejob.h"

#include <QString>

namespace tgraph::widgets {
struct RankScatterData;
}

namespace tgraph::studio {

// graph,rank,config,score,runtime_ns of the first `k` rows of `result` in predicted order (rank 1 =
// predicted fastest; runtime 0 when not measured), written atomically. False with `error` set.
bool writeTopKCsv(const widgets::RankScatterData& result, const QString& path, int k, QString* error);

// ID,TopConfigs of every graph of `outcome` (config ids, not rows). `collectionId` is used for every
// graph when set, else each graph's own (GraphInference::collection). False with `error` set (a
// graph whose collection cannot be told, an unwritable file).
bool writeKaggleCsv(const InferenceOutcome& outcome, const QString& path, const QString& collectionId, QString* error);

// Whether a Kaggle export needs the user to name the collection (a graph's path does not tell it),
// and the id to propose.
bool kaggleNeedsCollection(const InferenceOutcome& outcome);
QString proposedKaggleCollection(const InferenceOutcome& outcome);

} // namespace tgraph::studio
