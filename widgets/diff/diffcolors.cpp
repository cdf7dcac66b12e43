// SPDX-License-Identifier: Apache-2.0
#include "widgets/diff/diffcolors.h"

#include "widgets/common/flowlayout.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPixmap>

namespace tgraph::widgets {

namespace DiffColors {

QColor unchanged() { return QColor(0xe0, 0xe0, 0xe0); }
QColor added() { return QColor(0x4c, 0xaf, 0x50); }
QColor removed() { return QColor(0xe5, 0x48, 0x4d); }

QColor changed(tgraph::HloChangeKind kind)
{
    using K = tgraph::HloChangeKind;
    switch (kind) {
    case K::Opcode:
        return QColor(0xb2, 0x5d, 0x1e);
    case K::Shape:
        return QColor(0x8e, 0x5c, 0xc2);
    case K::Layout:
        return QColor(0x2f, 0x7e, 0xd8);
    case K::Operands:
        return QColor(0xf0, 0xa2, 0x2e);
    case K::Attributes:
        return QColor(0xc9, 0xb8, 0x1c);
    case K::FusedInto:
        return QColor(0x1f, 0xb5, 0xc4);
    case K::FusedOutOf:
        return QColor(0xe0, 0x7b, 0xc8);
    }
    return QColor(Qt::gray);
}

QColor ofKinds(uint16_t kinds)
{
    for (size_t k = 0; k < tgraph::kHloChangeKindCount; ++k)
        if (kinds & tgraph::hloChangeBit(tgraph::HloChangeKind(k)))
            return changed(tgraph::HloChangeKind(k));
    return unchanged();
}

namespace {

std::vector<QColor> side(const tgraph::HloDiff& diff, size_t count, const std::vector<int32_t>& pairOf, QColor alone)
{
    std::vector<QColor> out(count, alone);
    for (size_t i = 0; i < count; ++i)
        if (pairOf[i] >= 0)
            out[i] = ofKinds(diff.pairs[size_t(pairOf[i])].kinds);
    return out;
}

} // namespace

std::vector<QColor> sideA(const tgraph::HloDiff& diff)
{
    return side(diff, diff.instructionsA, diff.pairOfA, removed());
}
std::vector<QColor> sideB(const tgraph::HloDiff& diff) { return side(diff, diff.instructionsB, diff.pairOfB, added()); }

} // namespace DiffColors

DiffLegend::DiffLegend(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("diffLegend"));
    auto* flow = new FlowLayout(this, 10, 2);
    flow->setContentsMargins(0, 0, 0, 0);
    auto add = [&](const QColor& color, const QString& text, const QString& tip) {
        auto* item = new QWidget(this);
        auto* row = new QHBoxLayout(item);
        row->setContentsMargins(0, 0, 0, 0);
        row->setSpacing(3);
        auto* box = new QLabel(item);
        const int size = fontMetrics().height() - 4;
        QPixmap pixmap(size, size);
        pixmap.fill(color);
        QPainter(&pixmap).drawRect(0, 0, size - 1, size - 1);
        box->setPixmap(pixmap);
        row->addWidget(box);
        row->addWidget(new QLabel(text, item));
        item->setToolTip(tip);
        flow->addWidget(item);
    };
    add(DiffColors::unchanged(), tr("unchanged"), tr("Matched, nothing differs"));
    add(DiffColors::removed(), tr("removed"), tr("Only in A (left)"));
    add(DiffColors::added(), tr("added"), tr("Only in B (right)"));
    for (size_t k = 0; k < tgraph::kHloChangeKindCount; ++k) {
        const auto kind = tgraph::HloChangeKind(k);
        add(DiffColors::changed(kind), QString::fromLatin1(tgraph::hloChangeKindName(kind)),
            tr("Matched, changed: coloured by its first kind in this order"));
    }
}

} // namespace tgraph::widgets
