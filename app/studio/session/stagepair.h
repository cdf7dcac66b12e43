// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

#include <vector>

namespace tgraph::studio {

// Two HLO stages of one module of a dump folder, as the Passes page hands them to the Diff page
// (docs/studio.md §11): the module's stages in pass order (a snapshot of its timeline) and which
// two of them are A and B. The Diff page names them, steps the pair along the stages and returns to
// the timeline with a stage selected.
struct StagePair
{
    struct Stage
    {
        QString path; // the stage's HLO file, absolute
        QString label; // "0012 fusion / after fusion", "before_optimizations"
    };

    QString module; // "Module 0001 jit_f", escaped as the module list shows it
    std::vector<Stage> stages;
    int a = -1;
    int b = -1;

    // Both indices are stages, and different ones.
    bool isValid() const;
    QString pathA() const;
    QString pathB() const;
    // The pair moved by `delta` stages (both sides; -1 the pass before, +1 the one after), when
    // both stay inside the module's stages.
    bool canStep(int delta) const;
    StagePair stepped(int delta) const;
    // The same stages the other way round.
    StagePair swapped() const;
};

} // namespace tgraph::studio
