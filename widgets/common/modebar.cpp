// SPDX-License-Identifier: Apache-2.0
#include "widgets/common/modebar.h"

#include <QButtonGroup>
#include <QToolButton>
#include <QVBoxLayout>

namespace tgraph::widgets {

ModeBar::ModeBar(QWidget* parent)
    : QWidget(parent)
    , m_group(new QButtonGroup(this))
    , m_layout(new QVBoxLayout(this))
{
    setObjectName(QStringLiteral("modeBar"));
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Mid);
    m_layout->setContentsMargins(2, 4, 2, 4);
    m_layout->setSpacing(2);
    m_layout->addStretch(1);
    m_group->setExclusive(true);
    connect(m_group, &QButtonGroup::idClicked, this, &ModeBar::currentChanged);
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Preferred);
}

int ModeBar::addMode(const QString& text, const QIcon& icon, const QString& toolTip)
{
    auto* button = new QToolButton(this);
    const int index = count();
    button->setObjectName(QStringLiteral("mode%1").arg(index));
    button->setText(text);
    button->setIcon(icon);
    button->setToolTip(toolTip);
    button->setCheckable(true);
    button->setAutoRaise(true);
    button->setToolButtonStyle(icon.isNull() ? Qt::ToolButtonTextOnly : Qt::ToolButtonTextUnderIcon);
    button->setIconSize(QSize(24, 24));
    button->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    button->setMinimumHeight(icon.isNull() ? 40 : 52);
    QFont font = button->font();
    font.setBold(true);
    button->setFont(font);
    m_group->addButton(button, index);
    m_layout->insertWidget(index, button);
    if (index == 0)
        button->setChecked(true);
    return index;
}

void ModeBar::setCurrentIndex(int index)
{
    if (QAbstractButton* button = m_group->button(index); button && !button->isChecked())
        button->setChecked(true);
}

int ModeBar::currentIndex() const { return m_group->checkedId(); }

void ModeBar::setModeEnabled(int index, bool enabled)
{
    if (QAbstractButton* button = m_group->button(index))
        button->setEnabled(enabled);
}

int ModeBar::count() const { return int(m_group->buttons().size()); }

QToolButton* ModeBar::button(int index) const { return qobject_cast<QToolButton*>(m_group->button(index)); }

} // namespace tgraph::widgets
