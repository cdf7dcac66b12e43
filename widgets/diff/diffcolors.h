// SPDX-License-Identifier: Apache-2.0
#pragma once

// The diff view's colours (docs/studio.md §11): unchanged pale grey, added green, removed red, and
// a changed instruction by its first kind in HloChangeKind order (opcode before shape before
// layout ...); the legend that names them.

#include "core/diff/hlodiff.h"

#include <QColor>
#include <QString>
#include <QWidget>

#include <vector>

namespace tgraph::widgets {

namespace DiffColors {

QColor unchanged();
QColor added();
QColor removed();
QColor changed(tgraph::HloChangeKind kind);
// The colour of a pair's kinds (its first kind), unchanged() for none.
QColor ofKinds(uint16_t kinds);
// Per instruction of A (removed or changed) and of B (added or changed).
std::vector<QColor> sideA(const tgraph::HloDiff& diff);
std::vector<QColor> sideB(const tgraph::HloDiff& diff);

} // namespace DiffColors

// Swatches with names: unchanged, added, removed, and one per change kind.
class DiffLegend : public QWidget
{
    Q_OBJECT
public:
    explicit DiffLegend(QWidget* parent = nullptr);
};

} // namespace tgraph::widgets
