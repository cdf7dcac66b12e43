// SPDX-License-Identifier: Apache-2.0
#include "trainingprocess.h"

#include <QCoreApplication>
#include <QDir>
#include <QLoggingCategory>

Q_LOGGING_CATEGORY(lcTrainingProcess, "tgraph.training.process")

namespace tgraph::app {

TrainingProcess::TrainingProcess(QObject* parent)
    : QObject(parent)
    , m_program(QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("tgraph")))
{
    m_killTimer.setSingleShot(true);
    connect(&m_killTimer, &QTimer::timeout, this, [this] {
        if (isRunning()) {
            qCWarning(lcTrainingProcess) << "run" << m_runId << "did not stop in time: killing pid"
                                         << m_process.processId();
            m_process.kill();
        }
    });
    connect(&m_process, &QProcess::readyReadStandardOutput, this, [this] { readLines(QProcess::StandardOutput); });
    connect(&m_process, &QProcess::readyReadStandardError, this, [this] { readLines(QProcess::StandardError); });
    connect(&m_process, &QProcess::started, this, &TrainingProcess::started);
    connect(&m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            Q_EMIT failed(tr("cannot start %1: %2").arg(m_program, m_process.errorString()));
    });
    connect(&m_process, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
        m_killTimer.stop();
        // the last unterminated lines
        for (int channel = 0; channel < 2; ++channel)
            if (!m_partial[channel].isEmpty()) {
                Q_EMIT outputLine(QString::fromUtf8(m_partial[channel]), channel == 1);
                m_partial[channel].clear();
            }
        Q_EMIT finished(exitCode, status == QProcess::CrashExit);
    });
}

TrainingProcess::~TrainingProcess()
{
    // The run outlives neither the GUI's intent nor its object: stop it gracefully, briefly.
    if (isRunning()) {
        m_process.terminate();
        if (!m_process.waitForFinished(10000))
            m_process.kill();
        m_process.waitForFinished(2000);
    }
}

bool TrainingProcess::start(const QString& project, const QStringList& trainArguments)
{
    return launch(project, QStringList { QStringLiteral("train") } + trainArguments);
}

bool TrainingProcess::resume(const QString& project, const QString& runId)
{
    m_runId = runId;
    return launch(project, { QStringLiteral("train"), QStringLiteral("--resume"), runId });
}

bool TrainingProcess::resumeSweep(const QString& project, const QString& sweepId)
{
    m_runId = sweepId;
    return launch(project, { QStringLiteral("sweep"), QStringLiteral("--resume"), sweepId });
}

bool TrainingProcess::launch(const QString& project, const QStringList& arguments)
{
    if (isRunning()) {
        Q_EMIT failed(tr("a run is already active in this launcher"));
        return false;
    }
    if (!arguments.contains(QStringLiteral("--resume")))
        m_runId.clear();
    m_partial[0].clear();
    m_partial[1].clear();
    const QStringList args = arguments + QStringList { QStringLiteral("--project"), project };
    qCInfo(lcTrainingProcess) << "starting" << m_program << args;
    m_process.start(m_program, args);
    return true;
}

void TrainingProcess::stop(int graceMs)
{
    if (!isRunning())
        return;
    m_process.terminate(); // SIGTERM
    m_killTimer.start(graceMs);
}

void TrainingProcess::readLines(QProcess::ProcessChannel channel)
{
    m_process.setReadChannel(channel);
    QByteArray& partial = m_partial[channel == QProcess::StandardError ? 1 : 0];
    partial += m_process.readAll();
    qsizetype newline;
    while ((newline = partial.indexOf('\n')) >= 0) {
        QByteArray line = partial.left(newline);
        partial.remove(0, newline + 1);
        if (line.endsWith('\r'))
            line.chop(1);
        // the trainer's console clears its progress bar with "\r\033[K" before a line
        const qsizetype bar = line.lastIndexOf('\r');
        if (bar >= 0)
            line = line.mid(bar + 1);
        const QString text = QString::fromUtf8(line);
        static const QString marker = QStringLiteral("project run ");
        if (m_runId.isEmpty() && channel == QProcess::StandardOutput && text.startsWith(marker)) {
            m_runId = text.mid(marker.size()).section(QLatin1Char(' '), 0, 0);
            Q_EMIT runIdKnown(m_runId);
        }
        Q_EMIT outputLine(text, channel == QProcess::StandardError);
    }
}

} // namespace tgraph::app
