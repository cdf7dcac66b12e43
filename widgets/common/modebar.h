// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QWidget>

class QButtonGroup;
class QToolButton;
class QVBoxLayout;

namespace tgraph::widgets {

// The strip of page buttons down the left edge of the main window, as Qt Creator's modes and
// Hotspot's result pages: one checked at a time, each with its name under its icon and its
// shortcut in the tooltip. Narrow, so that the pages keep the width (docs/studio.md §0).
class ModeBar : public QWidget
{
    Q_OBJECT
public:
    explicit ModeBar(QWidget* parent = nullptr);

    // Adds a mode button; returns its index.
    int addMode(const QString& text, const QIcon& icon, const QString& toolTip);
    void setCurrentIndex(int index);
    int currentIndex() const;
    void setModeEnabled(int index, bool enabled);
    int count() const;
    QToolButton* button(int index) const;

Q_SIGNALS:
    void currentChanged(int index);

private:
    QButtonGroup* m_group;
    QVBoxLayout* m_layout;
};

} // namespace tgraph::widgets
