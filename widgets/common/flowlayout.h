// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QLayout>
#include <QList>

namespace tgraph::widgets {

// Lays its items out left to right and starts a new row where the next one does not fit, like
// words in a paragraph: a legend of many entries takes two rows in a narrow window instead of
// making the window wide. Its minimum width is that of its widest item (docs/studio.md §9).
class FlowLayout : public QLayout
{
public:
    explicit FlowLayout(QWidget* parent = nullptr, int horizontalSpacing = 4, int verticalSpacing = 2);
    ~FlowLayout() override;

    void addItem(QLayoutItem* item) override;
    int count() const override;
    QLayoutItem* itemAt(int index) const override;
    QLayoutItem* takeAt(int index) override;
    Qt::Orientations expandingDirections() const override;
    bool hasHeightForWidth() const override;
    int heightForWidth(int width) const override;
    QSize minimumSize() const override;
    QSize sizeHint() const override;
    void setGeometry(const QRect& rect) override;

private:
    // Places the items in `rect` (when `apply`) and returns the height used.
    int arrange(const QRect& rect, bool apply) const;

    QList<QLayoutItem*> m_items;
    int m_hSpacing;
    int m_vSpacing;
};

} // namespace tgraph::widgets
