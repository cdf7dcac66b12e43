// SPDX-License-Identifier: Apache-2.0
#pragma once

// The checks of a TpuGraphs collection tree behind `tgraph data verify` and the studio's
// collection view (docs/formats.md §16.4): every graph loaded and validated, stored dtypes against
// the published ones, duplicate configurations, runtimes that cannot be right.

#include "core/graph/graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tgraph {

class ProgressSink;

struct TreeProblem
{
    enum class Severity { Error, Warning };
    Severity severity = Severity::Error;
    std::string file; // relative to the checked folder
    std::string problem; // one line
};

struct CollectionCheck
{
    std::string id; // "layout:xla:default"; a folder of another shape: its name
    std::string folder; // absolute
    GraphKind kind = GraphKind::Layout;
    int graphs[3] = { 0, 0, 0 }; // per split: train, valid, test
    std::vector<int64_t> nodes; // per graph that loaded, sorted ascending
    int64_t configs = 0; // in all graphs that loaded
    int64_t duplicateConfigs = 0; // rows repeating an earlier row of their graph
    std::vector<TreeProblem> problems;

    int graphCount() const { return graphs[0] + graphs[1] + graphs[2]; }
    int errors() const;
    int warnings() const;
    int64_t nodesMin() const { return nodes.empty() ? 0 : nodes.front(); }
    int64_t nodesMax() const { return nodes.empty() ? 0 : nodes.back(); }
    int64_t nodesMedian() const; // the lower median
};

struct TreeCheck
{
    std::string root;
    std::vector<CollectionCheck> collections;
    int errors() const;
    int warnings() const;
};

// The problems of dtypes: arrays stored with another dtype than the published dataset's
// ("node_opcode stored as int64, published as uint8"). Empty when all match.
std::vector<std::string> publishedDtypeProblems(const LayoutGraph& graph);
std::vector<std::string> publishedDtypeProblems(const TileGraph& graph);

// Checks one graph file of a split ("train", "valid", "test"): appends its problems to
// `check.problems` (file named relative to `base`) and its facts to the summary.
void checkGraphFile(const std::string& path, const std::string& split, const std::string& base, CollectionCheck& check);

// Checks `dir`: a dataset tree (holding npz/{tile,layout}/...), one collection folder of it
// (".../npz/layout/xla/default"), or any folder with train/valid/test subfolders of npz files
// (`tgraph synth --collection`). InputError naming `dir` when it is none of these. Cancelled
// through `progress`.
TreeCheck checkDatasetTree(const std::string& dir, ProgressSink* progress);

// The summary table, one row per collection, as `tgraph data verify` prints it, and the JSON form.
std::string treeCheckTable(const TreeCheck& check);
std::string treeCheckJson(const TreeCheck& check);

} // namespace tgraph
