// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QFrame>
#include <QStringList>

class QLabel;
class QToolButton;

// An inline, dismissable message strip (like KMessageWidget) placed above the content it is
// about. It collects the messages shown since it was last dismissed, newest last, and hides
// itself when the user closes it. Never modal.
class ErrorBanner : public QFrame
{
    Q_OBJECT
public:
    enum class Severity { Warning, Error };

    explicit ErrorBanner(QWidget* parent = nullptr);

    // Adds a one-line message (kept verbatim, selectable) and shows the banner. The banner takes
    // the highest severity of the messages it holds. At most maxMessages() are kept.
    void addMessage(const QString& message, Severity severity = Severity::Error);
    // Hides the banner and forgets its messages.
    void dismiss();

    QStringList messages() const { return m_messages; }
    // All messages, one per line, as displayed.
    QString text() const;
    Severity severity() const { return m_severity; }
    static constexpr int maxMessages() { return 5; }

Q_SIGNALS:
    void dismissed();

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    void updateAppearance();
    QColor accentColor() const;

    QLabel* m_icon = nullptr;
    QLabel* m_label = nullptr;
    QToolButton* m_closeButton = nullptr;
    QStringList m_messages;
    Severity m_severity = Severity::Warning;
};
