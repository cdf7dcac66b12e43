// SPDX-License-Identifier: Apache-2.0
#include "widgets/common/elidedlabel.h"

#include <QEvent>
#include <QFontMetrics>

namespace tgraph::widgets {

namespace {
constexpr int kMinimumCharacters = 8;
}

ElidedLabel::ElidedLabel(QWidget* parent, Qt::TextElideMode mode)
    : QLabel(parent)
    , m_mode(mode)
{
    setTextFormat(Qt::PlainText);
    setWordWrap(false);
}

void ElidedLabel::setFullText(const QString& text, const QString& toolTip)
{
    m_fullText = text;
    m_toolTip = toolTip;
    elide();
    updateGeometry();
}

QSize ElidedLabel::extent(int textWidth) const
{
    const QFontMetrics metrics(font());
    const int lines = int(m_fullText.count(QLatin1Char('\n'))) + 1;
    const QMargins m = contentsMargins();
    return QSize(textWidth + m.left() + m.right() + 2 * margin(),
        lines * metrics.height() + (lines - 1) * metrics.leading() + m.top() + m.bottom() + 2 * margin());
}

QSize ElidedLabel::minimumSizeHint() const
{
    const QFontMetrics metrics(font());
    int widest = 0;
    for (const QString& line : m_fullText.split(QLatin1Char('\n')))
        widest = std::max(widest, metrics.horizontalAdvance(line));
    return extent(std::min(widest,
        metrics.horizontalAdvance(QStringLiteral("…")) + kMinimumCharacters * metrics.averageCharWidth()));
}

QSize ElidedLabel::sizeHint() const
{
    const QFontMetrics metrics(font());
    int widest = 0;
    for (const QString& line : m_fullText.split(QLatin1Char('\n')))
        widest = std::max(widest, metrics.horizontalAdvance(line));
    return extent(widest);
}

void ElidedLabel::resizeEvent(QResizeEvent* event)
{
    QLabel::resizeEvent(event);
    elide();
}

void ElidedLabel::changeEvent(QEvent* event)
{
    QLabel::changeEvent(event);
    if (event->type() == QEvent::FontChange)
        elide();
}

void ElidedLabel::elide()
{
    const int room = std::max(0, contentsRect().width() - 2 * margin());
    const QFontMetrics metrics(font());
    QStringList lines = m_fullText.split(QLatin1Char('\n'));
    for (QString& line : lines)
        if (metrics.horizontalAdvance(line) > room) // elidedText may shorten a line that just fits
            line = metrics.elidedText(line, m_mode, room);
    const QString shown = lines.join(QLatin1Char('\n'));
    if (shown != text())
        QLabel::setText(shown);
    QString tip = m_toolTip;
    if (shown != m_fullText)
        tip = m_toolTip.isEmpty() ? m_fullText : m_fullText + QStringLiteral("\n\n") + m_toolTip;
    setToolTip(tip);
}

} // namespace tgraph::widgets
