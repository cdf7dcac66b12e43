// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QStyledItemDelegate>

namespace tgraph::studio {

class PassTimelineModel;

// The Changes column of the pass timeline: one bar per stage, as long as the instructions the
// pass added + removed + changed against the longest of the module (a square root scale, so that a
// pass changing 3 instructions still shows beside one changing 3 000), in three parts: added
// (green), removed (red), changed (amber). A pass that changed nothing draws a thin grey tick.
class ChangeBarDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    ChangeBarDelegate(const PassTimelineModel* model, QObject* parent = nullptr);
    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;

    static QColor addedColor();
    static QColor removedColor();
    static QColor changedColor();

private:
    const PassTimelineModel* m_model;
};

} // namespace tgraph::studio
