// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QWidget>

class QLabel;
class QPlainTextEdit;

namespace tgraph::studio {

class RunProcesses;

// The output of one run: for a run trained by this studio its process's stdout/stderr, live; for
// any other its train.log as the poller reads it, followed by what the studio did to it (the
// output of `tgraph runs stop`). Keeps its place at the end while lines arrive.
class RunLogPane : public QWidget
{
    Q_OBJECT
public:
    explicit RunLogPane(RunProcesses* processes, QWidget* parent = nullptr);

    void showRun(const QString& runId, const QString& name);
    // A run being started here: its lines before the trainer has printed its id.
    void showNewRun();
    void clear();
    // A poll's tail of `runId`'s train.log (ignored unless that log is shown).
    void setFileLog(const QString& runId, const QString& text);

    QString runId() const { return m_runId; }
    QPlainTextEdit* text() const { return m_text; }

Q_SIGNALS:
    // The train.log the poller should read: the shown run's, or none ("").
    void fileRunChanged(const QString& runId);

private:
    void onOutputLine(const QString& runId, const QString& line);
    void refreshFileLog();
    void setText(const QString& text);

    RunProcesses* m_processes = nullptr;
    QLabel* m_title = nullptr;
    QPlainTextEdit* m_text = nullptr;
    QString m_runId; // empty: nothing, or the run being started (m_fromFile false)
    bool m_fromFile = false;
    QString m_fileText;
};

} // namespace tgraph::studio
