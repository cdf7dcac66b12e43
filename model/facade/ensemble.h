// SPDX-License-Identifier: Apache-2.0
#pragma once

// The models as the studio sees them (docs/architecture.md, room model/facade): a loaded ensemble
// behind a header that includes no LibTorch, directly or through its includes. What it computes is
// model/infer's inference (docs/model.md §6); what it returns are the plain structs of
// core/results. Widgets and app/studio reach the models only through model/facade.

#include "core/graph/graph.h"
#include "core/results/scores.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tgraph {
class ProgressScope;
class ProgressSink;
struct HloModule;
}

namespace tgraph::facade {

// `--weights` arguments to member files: a weights .npz or checkpoint as is; an ensemble.json
// written by `tgraph train --folds` expands to its checkpoints. InputError naming the manifest
// when it cannot be read.
std::vector<std::string> expandWeightsArguments(const std::vector<std::string>& arguments);

// Graph files of `--data`-style entries: a FILE as is, a DIR's *.npz files sorted by name.
// InputError for a missing entry or a directory without .npz files.
std::vector<std::string> listGraphFiles(const std::vector<std::string>& entries);

// Weights files or checkpoints, loaded (eval mode), all of one kind (layout or tile). Move-only;
// use from one thread at a time.
class Ensemble
{
public:
    Ensemble(); // no members
    ~Ensemble();
    Ensemble(Ensemble&& other) noexcept;
    Ensemble& operator=(Ensemble&& other) noexcept;
    Ensemble(const Ensemble&) = delete;
    Ensemble& operator=(const Ensemble&) = delete;

    // InputError (naming the file) for an unreadable or invalid file, no files, or members of
    // different kinds.
    static Ensemble load(const std::vector<std::string>& paths);

    bool empty() const;
    size_t size() const;
    GraphKind kind() const; // of every member; Layout when empty

    // Forward passes scoreLayoutGraph / scoreTileGraph make for `configs` configurations (for
    // progress totals).
    int64_t inferencePasses(int64_t configs, const tgraph::InferenceOptions& options) const;

    // Every config of a pruned layout graph by every member: array_split chunks, TTA, mean over
    // members, ranking. InputError naming `source` for inputs the models cannot take.
    tgraph::GraphScores scoreLayoutGraph(const LayoutGraph& pruned, const std::string& source,
        const tgraph::InferenceOptions& options, ProgressScope* progress = nullptr);
    // A whole tile kernel, all configs in one pass per member.
    tgraph::GraphScores scoreTileGraph(const TileGraph& graph, const std::string& source,
        const tgraph::InferenceOptions& options, ProgressScope* progress = nullptr);
    // True when a member reads simulator inputs (docs/model.md §4.9).
    bool takesSimInputs() const;
    // Attaches them to an unpruned layout graph before scoreLayoutGraph (model/infer/siminputs.h):
    // "" when the members take none, else where the prices came from or "unpriced: WHY".
    std::string attachSimInputs(LayoutGraph& unpruned, const std::string& path,
        const std::shared_ptr<const HloModule>& module = nullptr, ProgressSink* progress = nullptr) const;
    // A module scored at its own layouts (model/infer/ownlayoutscore.h, docs/diff.md §11): InputError
    // for a tile model or a module with nothing configurable.
    double scoreOwnLayouts(const HloModule& module, const std::string& file);

    // A TpuGraphs npz read, pruned as training does and scored (as `tgraph predict` without --repad).
    tgraph::GraphScores predictFile(
        const std::string& path, const tgraph::InferenceOptions& options, ProgressScope* progress = nullptr);

    // model/infer's members; complete only in model/facade's own sources (ensemblemembers.h).
    struct Members;
    Members& members();

private:
    std::unique_ptr<Members> m_members;
};

} // namespace tgraph::facade
