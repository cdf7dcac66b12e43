// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the diff view shows: the two modules as graph documents, their diff (core/diff) and its
// price (core/diffcost). Built off the GUI thread, then shared read-only.

#include "core/diff/hlodiff.h"
#include "core/diffcost/diffcost.h"
#include "core/view/graphdocument.h"

#include <memory>
#include <string>

namespace tgraph {
class ProgressSink;
}

namespace tgraph::widgets {

struct DiffResult
{
    tgraph::GraphDocumentPtr a;
    tgraph::GraphDocumentPtr b;
    tgraph::HloDiff diff;
    tgraph::HloDiffCost cost;

    const tgraph::HloModule& moduleA() const { return *a->module; }
    const tgraph::HloModule& moduleB() const { return *b->module; }
};
using DiffResultPtr = std::shared_ptr<const DiffResult>;

// One side of a diff: an HLO text or protobuf file with one module (the document openGraphDocuments
// makes of it), or a compressed (.gz, .xz) stage file of an XLA dump folder, read with core/dump's
// stage reader (inside its folder, decompressed within the memory budget). InputError naming the
// file when it is an .npz graph, holds no module or several, or does not read.
tgraph::GraphDocumentPtr openDiffSide(const std::string& path, tgraph::ProgressSink* progress = nullptr);

// Opens both sides, diffs and prices them; throws tgraph::Cancelled when the progress sink asks.
DiffResultPtr computeDiff(const std::string& pathA, const std::string& pathB, tgraph::ProgressSink* progress = nullptr);
// The same for two documents already open (each must have its module).
DiffResultPtr computeDiff(
    tgraph::GraphDocumentPtr a, tgraph::GraphDocumentPtr b, tgraph::ProgressSink* progress = nullptr);

} // namespace tgraph::widgets
