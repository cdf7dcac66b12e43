// SPDX-License-Identifier: Apache-2.0
#include "widgets/common/errorbanner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QStyle>
#include <QToolButton>

namespace tgraph::widgets {

ErrorBanner::ErrorBanner(QWidget* parent)
    : QFrame(parent)
    , m_icon(new QLabel(this))
    , m_label(new QLabel(this))
    , m_closeButton(new QToolButton(this))
{
    setObjectName(QStringLiteral("errorBanner"));
    setFrameShape(QFrame::NoFrame);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);

    m_icon->setAlignment(Qt::AlignTop | Qt::AlignHCenter);

    m_label->setObjectName(QStringLiteral("errorBannerText"));
    m_label->setTextFormat(Qt::PlainText);
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_label->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);

    m_closeButton->setObjectName(QStringLiteral("errorBannerClose"));
    m_closeButton->setAutoRaise(true);
    m_closeButton->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
    m_closeButton->setToolTip(tr("Dismiss"));
    m_closeButton->setAccessibleName(tr("Dismiss message"));
    connect(m_closeButton, &QToolButton::clicked, this, &ErrorBanner::dismiss);

    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 6, 4, 6);
    layout->setSpacing(8);
    layout->addWidget(m_icon, 0, Qt::AlignTop);
    layout->addWidget(m_label, 1);
    layout->addWidget(m_closeButton, 0, Qt::AlignTop);

    hide();
}

void ErrorBanner::addMessage(const QString& message, Severity severity) { showCondition({}, message, severity); }

void ErrorBanner::showCondition(const QString& condition, const QString& message, Severity severity)
{
    // A repeated message, or the condition's earlier one, moves to the end instead of piling up.
    for (qsizetype i = m_messages.size(); i-- > 0;)
        if (m_messages[i] == message || (!condition.isEmpty() && m_conditions[i] == condition)) {
            m_messages.removeAt(i);
            m_severities.removeAt(i);
            m_conditions.removeAt(i);
        }
    m_messages.append(message);
    m_severities.append(severity);
    m_conditions.append(condition);
    while (m_messages.size() > maxMessages()) {
        m_messages.removeFirst();
        m_severities.removeFirst();
        m_conditions.removeFirst();
    }
    updateAppearance();
    show();
}

void ErrorBanner::clearCondition(const QString& condition)
{
    if (!condition.isEmpty())
        removeAt(m_conditions.indexOf(condition));
}

bool ErrorBanner::hasCondition(const QString& condition) const
{
    return !condition.isEmpty() && m_conditions.contains(condition);
}

void ErrorBanner::removeMessage(const QString& message) { removeAt(m_messages.indexOf(message)); }

void ErrorBanner::removeAt(qsizetype index)
{
    if (index < 0 || index >= m_messages.size())
        return;
    m_messages.removeAt(index);
    m_severities.removeAt(index);
    m_conditions.removeAt(index);
    if (m_messages.isEmpty()) {
        dismiss();
        return;
    }
    updateAppearance();
}

void ErrorBanner::dismiss()
{
    const bool wasShown = !m_messages.isEmpty() || !isHidden();
    m_messages.clear();
    m_severities.clear();
    m_conditions.clear();
    m_label->clear();
    hide();
    if (wasShown)
        Q_EMIT dismissed();
}

QString ErrorBanner::text() const { return m_label->text(); }

void ErrorBanner::updateAppearance()
{
    m_label->setText(m_messages.join(QLatin1Char('\n')));
    // The highest severity of the messages held.
    m_severity = m_severities.contains(Severity::Error) ? Severity::Error : Severity::Warning;

    const bool error = m_severity == Severity::Error;
    const int iconSize = style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, this);
    const QIcon icon = style()->standardIcon(error ? QStyle::SP_MessageBoxCritical : QStyle::SP_MessageBoxWarning);
    m_icon->setPixmap(icon.pixmap(iconSize, iconSize));
    setAccessibleDescription(m_label->text());
    update();
}

QColor ErrorBanner::accentColor() const
{
    return m_severity == Severity::Error ? QColor(0xda, 0x44, 0x53) : QColor(0xf6, 0x74, 0x00);
}

void ErrorBanner::paintEvent(QPaintEvent* event)
{
    Q_UNUSED(event);
    // Window colour tinted towards the accent, with an accent border: readable in light and dark themes.
    const QColor accent = accentColor();
    const QColor window = palette().color(QPalette::Window);
    const auto mix = [](float a, float b) { return a * 0.8f + b * 0.2f; };
    const QColor fill = QColor::fromRgbF(
        mix(window.redF(), accent.redF()), mix(window.greenF(), accent.greenF()), mix(window.blueF(), accent.blueF()));
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(QPen(accent, 1));
    painter.setBrush(fill);
    painter.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 4, 4);
}

} // namespace tgraph::widgets
