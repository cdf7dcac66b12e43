// SPDX-License-Identifier: Apache-2.0
#pragma once

// A training run as a child process: the GUI starts `tgraph train ... --project P.tgproj` through
// this class so that a crash of the run never takes the GUI down. Output lines are streamed as
// signals (the run also keeps them in its train.log artifact); the run id is taken from the
// trainer's "project run <id>" line. stop() asks for a graceful stop (SIGTERM: the trainer finishes
// its step, writes a checkpoint and ends KILLED) and kills the process if it has not ended after
// the timeout.

#include <QObject>
#include <QProcess>
#include <QStringList>
#include <QTimer>

namespace tgraph::app {

class TrainingProcess : public QObject
{
    Q_OBJECT

public:
    explicit TrainingProcess(QObject* parent = nullptr);
    ~TrainingProcess() override;

    // The `tgraph` executable to run (default: `tgraph` beside this program's executable).
    void setProgram(const QString& program) { m_program = program; }
    QString program() const { return m_program; }

    // Starts `tgraph train ARGS --project PROJECT`; resume() starts `tgraph train --resume RUN
    // --project PROJECT`. Returns false (and emits failed()) when a run is already active.
    bool start(const QString& project, const QStringList& trainArguments);
    bool resume(const QString& project, const QString& runId);
    // `tgraph sweep --resume SWEEP --project PROJECT`: the sweep's interrupted runs queued again and
    // its queue driven (docs/store.md §9); runId() is the sweep's from the start.
    bool resumeSweep(const QString& project, const QString& sweepId);
    // SIGTERM now, SIGKILL after `graceMs` if the process is still alive.
    void stop(int graceMs = 60000);

    bool isRunning() const { return m_process.state() != QProcess::NotRunning; }
    QString runId() const { return m_runId; }
    qint64 processId() const { return m_process.processId(); }

Q_SIGNALS:
    void started();
    void runIdKnown(const QString& runId);
    void outputLine(const QString& line, bool isError);
    // exitCode: 0 finished, 1 bad input or diverged, 130 stopped; crashed: ended by a signal.
    void finished(int exitCode, bool crashed);
    void failed(const QString& message); // could not start

private:
    bool launch(const QString& project, const QStringList& arguments);
    void readLines(QProcess::ProcessChannel channel);

    QProcess m_process;
    QTimer m_killTimer;
    QString m_program;
    QString m_runId;
    QByteArray m_partial[2];
};

} // namespace tgraph::app
