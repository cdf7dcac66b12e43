// SPDX-License-Identifier: Apache-2.0
#pragma once

// The work behind the studio's explain view, as plain functions for the explain thread (and tests):
// explain config A against config B of a layout graph open in the studio (model/facade/explanation.h), on the
// document's own configs or on the config set an inference run scored (sampled, or candidates
// generated for an HLO module), and score what-if edits of one node's layout.

#include "core/results/attribution.h"
#include "core/graph/graph.h"
#include "core/view/graphdocument.h"
#include "core/io/ndarray.h"
#include "core/graph/prune.h"
#include "model/facade/ensemble.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace tgraph {
class ProgressSink;
}

namespace tgraph::studio {

struct ExplainRequest
{
    std::vector<std::string> weights; // weights .npz, checkpoints or ensemble.json files (an ensemble)
    tgraph::GraphDocumentPtr document; // a layout graph open in the studio, or
    std::string file; // a graph file to open on the explain thread (collection graphs, stored runs)
    // The config set, when it is not the document's own configs: values (C, Nc, 18) over
    // `configurableNodes` (full-graph ids), the id shown for each row, runtimes in ns (empty = not
    // known). `idsAreFileConfigs`: the ids index the document's configs (false for generated
    // candidates), so the document's default run keeps its meaning.
    tgraph::NdArray<float> configValues;
    std::vector<int64_t> configurableNodes;
    std::vector<int64_t> configIds;
    std::vector<double> runtimes;
    // The runtimes come from the simulator (generated candidates, a synthetic collection, a tune
    // verified with the simulator), not from a measurement; they are labelled "simulated".
    bool runtimesSimulated = false;
    bool idsAreFileConfigs = true;
    // A and B as rows of the config set (ConfigRole::Index = a row), or fastest / slowest / default.
    tgraph::ConfigSelector a;
    tgraph::ConfigSelector b;
    int64_t batchConfigs = 128;
};

// What an explanation keeps so that what-if edits score in one pass without reloading anything.
struct ExplainSession
{
    tgraph::facade::Ensemble models;
    tgraph::LayoutGraph graph; // the document's graph with the request's config set
    tgraph::PrunedGraph pruned;
    std::vector<int64_t> configIds; // row -> id shown
    int64_t batchConfigs = 128;
    std::string source;
    std::shared_ptr<const tgraph::HloModule> module; // HLO inputs: what prices a hybrid model's what-ifs
    ~ExplainSession();
};

struct ExplainOutcome
{
    std::shared_ptr<const tgraph::Attribution> attribution; // labels use the shown config ids
    std::string moduleNote; // why there is no simulator side ("" when there is)
    // attribution->runtimeA / runtimeB are simulated (the request said so, or the graph file is a
    // synthetic one, whose runtimes the simulator made), not measured.
    bool runtimesSimulated = false;
    std::shared_ptr<ExplainSession> session;
    tgraph::GraphDocumentPtr document;
    int64_t rowA = 0; // rows of the config set (attribution->configA / configB are rows too)
    int64_t rowB = 0;
};

// When the request names a file instead of a document, outcome.document is the one opened.
// InputError naming the file for a tile graph, a graph without two configs, bad models or indices;
// tgraph::Cancelled when `progress` is cancelled.
ExplainOutcome runExplain(const ExplainRequest& request, tgraph::ProgressSink* progress);

struct WhatIfOutcome
{
    int64_t baseRow = 0;
    int64_t fileNode = 0;
    std::array<float, 18> values {};
    double baseScore = 0; // in the edit's forward pass
    double editedScore = 0;
    // The edited config placed among the config set's scores (score(base) + the edit's effect), 1-based.
    int64_t rank = -1;
    int64_t baseRank = -1;
    int64_t configs = 0;
    double effect() const { return editedScore - baseScore; }
};

// Scores row `baseRow` with node `fileNode`'s 18 layout values replaced by `values`. InputError
// for a node that is not configurable or values outside -1..5.
WhatIfOutcome runWhatIf(ExplainSession& session, const tgraph::Attribution& attribution, int64_t baseRow,
    int64_t fileNode, const std::array<float, 18>& values);

// "1,0" (minor-to-major dims of one tensor, at most 6) or "default" / "" (all -1) into 6 values;
// false with `error` set for anything else.
bool parseTensorLayout(const std::string& text, float* six, std::string* error);

} // namespace tgraph::studio
