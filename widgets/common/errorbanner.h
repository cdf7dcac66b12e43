// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QFrame>
#include <QStringList>

class QLabel;
class QToolButton;

namespace tgraph::widgets {

// An inline, dismissable message strip (like KMessageWidget) placed above the content it is
// about. It collects the messages shown since it was last dismissed, newest last, and hides
// itself when the user closes it. Never modal.
//
// A message about a state rather than an event ("no project is open", "choose a model first") is
// shown under a condition name and withdrawn with clearCondition() when that state ends, so that
// no banner outlives its cause; the banner hides when its last message goes.
class ErrorBanner : public QFrame
{
    Q_OBJECT
public:
    enum class Severity { Warning, Error };

    explicit ErrorBanner(QWidget* parent = nullptr);

    // Adds a one-line message (kept verbatim, selectable) and shows the banner. The banner takes
    // the highest severity of the messages it holds. At most maxMessages() are kept.
    void addMessage(const QString& message, Severity severity = Severity::Error);
    // A message that holds while `condition` lasts: shown as addMessage() shows it, replacing the
    // condition's earlier message.
    void showCondition(const QString& condition, const QString& message, Severity severity = Severity::Warning);
    // The condition ended: its message goes (nothing happens when it is not shown).
    void clearCondition(const QString& condition);
    bool hasCondition(const QString& condition) const;
    // Withdraws one message; the banner hides when none is left.
    void removeMessage(const QString& message);
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
    void removeAt(qsizetype index);

    QStringList m_messages;
    QList<Severity> m_severities; // of each message
    QStringList m_conditions; // of each message; empty for an event's message
    Severity m_severity = Severity::Warning;
};

} // namespace tgraph::widgets
