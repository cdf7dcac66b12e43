// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/store/project.h"

#include <QHash>
#include <QObject>
#include <QSet>
#include <QStringList>

#include <memory>
#include <vector>

class QProcess;

namespace tgraph::app {
class TrainingProcess;
}

namespace tgraph::studio {

// The training processes the studio started: `tgraph train` runs, new or resumed, as child
// processes (several may run at once), and `tgraph runs stop` for runs started elsewhere on this
// machine. Keeps each run's stdout/stderr lines (like Hotspot's PerfRecord::recordingOutput) and
// tells a run it stopped (KILLED) from one that failed or crashed.
class RunProcesses : public QObject
{
    Q_OBJECT
public:
    explicit RunProcesses(QObject* parent = nullptr);
    ~RunProcesses() override;

    // The `tgraph` executable (default: beside this program's executable).
    void setProgram(const QString& tgraph) { m_program = tgraph; }
    QString program() const { return m_program; }

    // `tgraph train ARGS --project P`; resume(): `tgraph train --resume RUN --project P`.
    bool start(const QString& project, const QStringList& trainArguments);
    bool resume(const QString& project, const QString& runId);
    // `tgraph sweep --resume SWEEP --project P`: a stopped or crashed sweep goes on (its runs' lines
    // are the sweep's output).
    bool resumeSweep(const QString& project, const QString& sweepId);
    // A graceful stop: our own process gets SIGTERM (it finishes its step, writes a checkpoint and
    // ends KILLED) and SIGKILL after `graceMs`, the run then marked KILLED here; a run started
    // elsewhere on this host is stopped by `tgraph runs stop RUN --timeout` (the same, with the
    // pid checks of the CLI). False when the run is not on this host.
    bool stop(const QString& project, const tgraph::RunRecord& run, int graceMs);

    bool isActive(const QString& runId) const; // one of our processes runs it
    bool trainedHere(const QString& runId) const { return m_trained.contains(runId); }
    int activeCount() const;
    // Lines of the run's processes started here ("! " before stderr lines; `tgraph runs stop`
    // output for runs started elsewhere), oldest first.
    QStringList output(const QString& runId) const;
    static constexpr int kMaxLines = 5000;

Q_SIGNALS:
    void runIdKnown(const QString& runId);
    // runId is empty until the trainer has printed it.
    void outputLine(const QString& runId, const QString& line, bool isError);
    // exitCode 0 finished, 130 stopped, 1 bad input or diverged; crashed: ended by a signal (a
    // SIGKILL after a graceful stop that took too long when stopRequested); lastError: the last
    // stderr line (empty when none).
    void finished(const QString& runId, int exitCode, bool crashed, bool stopRequested, const QString& lastError);
    void failed(const QString& message); // could not start, or could not record the kill

private:
    struct Launch
    {
        tgraph::app::TrainingProcess* process = nullptr;
        QString project;
        QString runId;
        QStringList pending; // lines before the run id is known
        QString lastError;
        bool stopRequested = false;
        int graceMs = 0;
    };

    enum class Kind { Train, ResumeRun, ResumeSweep };
    bool launch(const QString& project, Kind kind, const QString& runId, const QStringList& trainArguments);
    void append(Launch* launch, const QString& line, bool isError);
    void onFinished(Launch* launch, int exitCode, bool crashed);
    Launch* launchOf(const QString& runId) const;

    QString m_program;
    std::vector<std::unique_ptr<Launch>> m_launches; // live ones
    QHash<QString, QStringList> m_output;
    QSet<QString> m_trained; // runs a `tgraph train` of ours ran
};

} // namespace tgraph::studio
