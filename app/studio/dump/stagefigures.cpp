// SPDX-License-Identifier: Apache-2.0
#include "app/studio/dump/stagefigures.h"

#include "core/diff/hlodiff.h"
#include "core/sim/simulator.h"
#include "core/util/error.h"

#include <QCoreApplication>

#include <cmath>
#include <new>

namespace tgraph::studio {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("StageFigures", text); }

} // namespace

bool StageFigures::didSomething() const
{
    if (!hasPrevious)
        return true; // the first stage is where the module starts
    if (!added || !removed || !changed)
        return true;
    return *added + *removed + *changed > 0;
}

std::string stageFileKey(const tgraph::DumpIndex& index, const tgraph::DumpStage& stage)
{
    const size_t file = stage.mainFile();
    if (file >= index.files.size())
        return {};
    const tgraph::DumpEntry& e = index.files[file].entry;
    return e.name + '\n' + std::to_string(e.size) + '\n' + std::to_string(e.mtimeNs) + '\n' + std::to_string(e.inode);
}

std::optional<double> estimateModuleNs(const tgraph::HloModule& module, QString* error)
{
    try {
        const tgraph::LayoutSimulator simulator(module, {});
        const float noConfig = 0.0f; // no configurable node: the row is empty
        const double ns = simulator.runtime(&noConfig);
        if (!std::isfinite(ns) || ns < 0) {
            if (error)
                *error = tr("the simulator gave no finite runtime for this module");
            return std::nullopt;
        }
        return ns;
    } catch (const tgraph::Cancelled&) {
        throw;
    } catch (const std::bad_alloc&) {
        if (error)
            *error = tr("not enough memory to price the module");
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
    }
    return std::nullopt;
}

StageFigures figureStage(const tgraph::DumpIndex& index, const tgraph::DumpStage& stage,
    const tgraph::HloModule* previous, bool hasPrevious, const QString& previousError,
    std::shared_ptr<const tgraph::HloModule>* module, tgraph::ProgressSink* progress)
{
    StageFigures f;
    f.hasPrevious = hasPrevious;
    std::shared_ptr<tgraph::HloModule> read;
    try {
        read = std::make_shared<tgraph::HloModule>(tgraph::openDumpStage(index, stage));
        f.counts = tgraph::countHloModule(*read);
    } catch (const tgraph::Cancelled&) {
        throw;
    } catch (const std::bad_alloc&) {
        f.readError = tr("not enough memory to read the stage");
    } catch (const std::exception& e) {
        f.readError = QString::fromStdString(e.what());
    }
    if (module)
        *module = read;
    if (!read) {
        f.estimateError = f.readError;
        if (hasPrevious)
            f.diffError = f.readError;
        return f;
    }
    f.estimatedNs = estimateModuleNs(*read, &f.estimateError);
    if (!hasPrevious)
        return f;
    if (!previous) {
        f.diffError = previousError.isEmpty() ? tr("the stage before could not be read") : previousError;
        return f;
    }
    try {
        tgraph::HloDiffOptions options;
        options.progress = progress;
        const tgraph::HloDiff diff = tgraph::diffHloModules(*previous, *read, options);
        f.added = diff.added.size();
        f.removed = diff.removed.size();
        f.changed = diff.changed.size();
    } catch (const tgraph::Cancelled&) {
        throw;
    } catch (const std::bad_alloc&) {
        f.diffError = tr("not enough memory to diff the stages");
    } catch (const std::exception& e) {
        f.diffError = QString::fromStdString(e.what());
    }
    return f;
}

} // namespace tgraph::studio
