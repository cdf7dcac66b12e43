// SPDX-License-Identifier: Apache-2.0
#include "app/studio/dump/changebardelegate.h"

#include "app/studio/dump/passtimelinemodel.h"

#include <QApplication>
#include <QPainter>

#include <cmath>

namespace tgraph::studio {

ChangeBarDelegate::ChangeBarDelegate(const PassTimelineModel* model, QObject* parent)
    : QStyledItemDelegate(parent)
    , m_model(model)
{ }

QColor ChangeBarDelegate::addedColor() { return QColor(0x2e, 0xa0, 0x5a); }
QColor ChangeBarDelegate::removedColor() { return QColor(0xd0, 0x45, 0x3a); }
QColor ChangeBarDelegate::changedColor() { return QColor(0xe0, 0x9a, 0x20); }

void ChangeBarDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const
{
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QWidget* widget = option.widget;
    QStyle* style = widget ? widget->style() : QApplication::style();
    style->drawPrimitive(QStyle::PE_PanelItemViewItem, &opt, painter, widget);

    const QVariant a = index.data(PassTimelineModel::AddedRole);
    const QVariant r = index.data(PassTimelineModel::RemovedRole);
    const QVariant c = index.data(PassTimelineModel::ChangedRole);
    if (!a.isValid() || !r.isValid() || !c.isValid())
        return;
    const double added = a.toDouble(), removed = r.toDouble(), changed = c.toDouble();
    const double total = added + removed + changed;
    const QRect area = option.rect.adjusted(3, 4, -3, -4);
    painter->save();
    if (total <= 0) {
        painter->fillRect(QRect(area.left(), area.center().y(), 2, 1), option.palette.color(QPalette::Mid));
        painter->restore();
        return;
    }
    const double scale = m_model && m_model->maxChanges() > 0 ? std::sqrt(double(m_model->maxChanges())) : 1.0;
    const double width = std::max(3.0, area.width() * std::sqrt(total) / scale);
    double x = area.left();
    for (const auto& [value, color] : { std::pair { added, addedColor() }, std::pair { removed, removedColor() },
             std::pair { changed, changedColor() } }) {
        if (value <= 0)
            continue;
        const double w = width * value / total;
        painter->fillRect(QRectF(x, area.top(), std::max(1.0, w), area.height()), color);
        x += w;
    }
    painter->restore();
}

QSize ChangeBarDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const
{
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    size.setWidth(std::max(size.width(), 120));
    return size;
}

} // namespace tgraph::studio
