// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/dump/dumpindex.h"
#include "core/dump/dumpstage.h"
#include "core/hlo/hlomodule.h"

#include <QString>

#include <memory>
#include <optional>

namespace tgraph {
class ProgressSink;
}

namespace tgraph::studio {

// What the pass timeline shows of one stage (docs/studio.md §10): its sizes, what the pass changed
// against the stage before (diffHloModules of the two), and the simulator's estimate of its
// runtime. Each part may be missing with the reason, as a person reads it.
struct StageFigures
{
    std::optional<tgraph::DumpStageCounts> counts;
    QString readError; // the stage could not be read: the reader's message naming the file

    bool hasPrevious = false; // false for a module's first stage
    std::optional<size_t> added;
    std::optional<size_t> removed;
    std::optional<size_t> changed;
    QString diffError; // why there are no figures against the stage before

    std::optional<double> estimatedNs; // LayoutSimulator::runtime of the default layouts
    QString estimateError;

    // The pass changed something (or its effect is unknown because a side could not be read).
    bool didSomething() const;
};

// A key that changes whenever the stage's file does (name, size, time, inode): figures are
// kept under the keys of a stage and of the one before it.
std::string stageFileKey(const tgraph::DumpIndex& index, const tgraph::DumpStage& stage);

// Reads `stage` and fills its figures against `previous` (the module of the stage before, nullptr
// for a first stage; `previousError` when that one could not be read). Never throws but for
// tgraph::Cancelled; the module read is handed back through `module` (null when unreadable).
StageFigures figureStage(const tgraph::DumpIndex& index, const tgraph::DumpStage& stage,
    const tgraph::HloModule* previous, bool hasPrevious, const QString& previousError,
    std::shared_ptr<const tgraph::HloModule>* module, tgraph::ProgressSink* progress);

// The simulator's estimate for a module: the runtime of its default layouts with no configurable
// node. nullopt with `error` set when it cannot be priced.
std::optional<double> estimateModuleNs(const tgraph::HloModule& module, QString* error);

} // namespace tgraph::studio
