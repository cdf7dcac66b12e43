// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QLabel>

namespace tgraph::widgets {

// A plain-text label that shortens each of its lines to the width it is given
// ("cluster_0__XlaCo…ResourceArgs_0_.v42") and shows the whole text in its tooltip while a line is
// shortened. Its minimum width is a few characters, so a long name never makes a window wider
// (docs/studio.md §9).
class ElidedLabel : public QLabel
{
    Q_OBJECT
public:
    explicit ElidedLabel(QWidget* parent = nullptr, Qt::TextElideMode mode = Qt::ElideMiddle);

    // `toolTip` is shown always, below the whole text while the text is shortened.
    void setFullText(const QString& text, const QString& toolTip = QString());
    QString fullText() const { return m_fullText; }
    bool isElided() const { return text() != m_fullText; }

    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void elide();
    QSize extent(int textWidth) const;

    QString m_fullText;
    QString m_toolTip;
    Qt::TextElideMode m_mode;
};

} // namespace tgraph::widgets
