// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>

class QAbstractButton;
class QProgressBar;

namespace tgraph::widgets {

class ErrorBanner;
class JobChannel;

// The one progress / cancel / error control of a panel's background jobs (docs/studio.md §3.7):
// bound to a JobChannel, it shows the running job on a progress bar ("label 12/40", busy while
// the total is unknown, hidden when idle), enables the cancel button while a job runs and cancels
// the channel's job when it is clicked, clears the banner's last job error when a job starts and
// shows the error when one fails, and says "cancelled" on the status line. The panel hears one
// signal when a job stops, however it stopped, instead of wiring the channel's five by hand.
class JobControl : public QObject
{
    Q_OBJECT
public:
    // `bar` and `banner` may be null (a job without a bar or without a banner of its own).
    JobControl(JobChannel* channel, QProgressBar* bar, ErrorBanner* banner, QObject* parent = nullptr);

    // Enabled while a job runs; clicking it cancels the job. May be called again to change it.
    void setCancelButton(QAbstractButton* button);
    // The status message on cancellation ("Tuning cancelled"); none when empty.
    void setCancelledMessage(const QString& message) { m_cancelledMessage = message; }

    JobChannel* channel() const { return m_channel; }
    bool isBusy() const;
    enum class Outcome { None, Finished, Failed, Cancelled };
    // How the last job stopped (None before the first one stopped).
    Outcome lastOutcome() const { return m_lastOutcome; }
    // The last failure's message, empty after a job that did not fail.
    QString lastError() const { return m_lastError; }

Q_SIGNALS:
    void busyChanged(bool busy);
    // After a job stopped (finished, failed or cancelled), once the bar is hidden and the error shown.
    void stopped();
    void statusMessage(const QString& text);

private:
    void onStarted();
    void onStopped(Outcome outcome);

    JobChannel* m_channel = nullptr;
    QPointer<QProgressBar> m_bar;
    QPointer<ErrorBanner> m_banner;
    QPointer<QAbstractButton> m_cancel;
    QString m_cancelledMessage;
    QString m_lastError;
    Outcome m_lastOutcome = Outcome::None;
};

} // namespace tgraph::widgets
