// SPDX-License-Identifier: Apache-2.0
#include "app/studio/runs/runprocesses.h"

#include "app/launcher/trainingprocess.h"

#include <QCoreApplication>
#include <QDir>
#include <QProcess>

#include <algorithm>

namespace tgraph::studio {

using tgraph::app::TrainingProcess;

RunProcesses::RunProcesses(QObject* parent)
    : QObject(parent)
    , m_program(QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("tgraph")))
{ }

// The TrainingProcess objects are children: each stops its run gracefully when destroyed.
RunProcesses::~RunProcesses() = default;

bool RunProcesses::start(const QString& project, const QStringList& trainArguments)
{
    return launch(project, Kind::Train, {}, trainArguments);
}

bool RunProcesses::resume(const QString& project, const QString& runId)
{
    if (isActive(runId)) {
        Q_EMIT failed(tr("Run %1 is already running here").arg(runId.left(8)));
        return false;
    }
    return launch(project, Kind::ResumeRun, runId, {});
}

bool RunProcesses::resumeSweep(const QString& project, const QString& sweepId)
{
    if (isActive(sweepId)) {
        Q_EMIT failed(tr("Sweep %1 is already running here").arg(sweepId.left(8)));
        return false;
    }
    return launch(project, Kind::ResumeSweep, sweepId, {});
}

bool RunProcesses::launch(const QString& project, Kind kind, const QString& runId, const QStringList& trainArguments)
{
    auto owned = std::make_unique<Launch>();
    Launch* l = owned.get();
    l->project = project;
    l->runId = runId;
    if (!runId.isEmpty())
        m_trained.insert(runId);
    l->process = new TrainingProcess(this);
    l->process->setProgram(m_program);
    m_launches.push_back(std::move(owned));
    connect(l->process, &TrainingProcess::outputLine, this,
        [this, l](const QString& line, bool isError) { append(l, line, isError); });
    connect(l->process, &TrainingProcess::runIdKnown, this, [this, l](const QString& id) {
        l->runId = id;
        m_trained.insert(id);
        QStringList& lines = m_output[id];
        lines << l->pending;
        l->pending.clear();
        Q_EMIT runIdKnown(id);
    });
    connect(l->process, &TrainingProcess::finished, this,
        [this, l](int exitCode, bool crashed) { onFinished(l, exitCode, crashed); });
    connect(l->process, &TrainingProcess::failed, this, [this, l](const QString& message) {
        Q_EMIT failed(message);
        if (!l->process->isRunning()) { // never started: forget it
            l->process->deleteLater();
            std::erase_if(m_launches, [l](const std::unique_ptr<Launch>& x) { return x.get() == l; });
        }
    });
    const QStringList shown = kind == Kind::Train ? QStringList { QStringLiteral("train") } + trainArguments
        : kind == Kind::ResumeRun ? QStringList { QStringLiteral("train"), QStringLiteral("--resume"), runId }
                                  : QStringList { QStringLiteral("sweep"), QStringLiteral("--resume"), runId };
    append(l, QStringLiteral("$ tgraph %1 --project %2").arg(shown.join(QLatin1Char(' ')), project), false);
    switch (kind) {
    case Kind::Train:
        return l->process->start(project, trainArguments);
    case Kind::ResumeRun:
        return l->process->resume(project, runId);
    case Kind::ResumeSweep:
        break;
    }
    return l->process->resumeSweep(project, runId);
}

void RunProcesses::append(Launch* l, const QString& line, bool isError)
{
    const QString text = isError ? QStringLiteral("! ") + line : line;
    if (isError && !line.trimmed().isEmpty())
        l->lastError = line;
    QStringList& lines = l->runId.isEmpty() ? l->pending : m_output[l->runId];
    lines << text;
    if (lines.size() > kMaxLines)
        lines.remove(0, lines.size() - kMaxLines);
    Q_EMIT outputLine(l->runId, text, isError);
}

void RunProcesses::onFinished(Launch* l, int exitCode, bool crashed)
{
    if (crashed && l->stopRequested && !l->runId.isEmpty()) {
        // SIGKILL after the grace period: the trainer could not record its end, so we do.
        try {
            tgraph::Project p = tgraph::Project::open(l->project.toStdString(), tgraph::Project::Access::Write);
            const auto run = p.findRun(l->runId.toStdString());
            if (run && run->status == tgraph::RunStatus::Running)
                p.setRunStatus(run->id, tgraph::RunStatus::Killed,
                    "killed after " + std::to_string(l->graceMs / 1000) + " s without stopping");
        } catch (const std::exception& e) {
            Q_EMIT failed(QString::fromStdString(e.what()));
        }
    }
    append(l,
        crashed ? tr("— ended by a signal%1").arg(l->stopRequested ? tr(" (killed after the grace period)") : QString())
                : tr("— exit code %1").arg(exitCode),
        false);
    const QString runId = l->runId;
    const QString lastError = l->lastError;
    const bool stopRequested = l->stopRequested;
    l->process->deleteLater();
    std::erase_if(m_launches, [l](const std::unique_ptr<Launch>& x) { return x.get() == l; });
    Q_EMIT finished(runId, exitCode, crashed, stopRequested, lastError);
}

bool RunProcesses::stop(const QString& project, const tgraph::RunRecord& run, int graceMs)
{
    const QString runId = QString::fromStdString(run.id);
    if (Launch* l = launchOf(runId)) {
        l->stopRequested = true;
        l->graceMs = graceMs;
        append(l, tr("— stopping (SIGTERM; killed after %1 s)").arg(graceMs / 1000), false);
        l->process->stop(graceMs);
        return true;
    }
    if (run.host != tgraph::hostName())
        return false;
    // Started elsewhere: the CLI checks that the pid is still the run's process before signalling.
    auto* stopper = new QProcess(this);
    stopper->setProcessChannelMode(QProcess::MergedChannels);
    const QStringList args { QStringLiteral("runs"), QStringLiteral("stop"), runId, QStringLiteral("--project"),
        project, QStringLiteral("--timeout"), QString::number(std::max(1, graceMs / 1000)) };
    QStringList& lines = m_output[runId];
    lines << QStringLiteral("$ tgraph %1").arg(args.join(QLatin1Char(' ')));
    Q_EMIT outputLine(runId, lines.back(), false);
    connect(stopper, &QProcess::finished, this, [this, stopper, runId] {
        for (const QString& line : QString::fromUtf8(stopper->readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
            m_output[runId] << line;
            Q_EMIT outputLine(runId, line, false);
        }
        stopper->deleteLater();
    });
    connect(stopper, &QProcess::errorOccurred, this, [this, stopper](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            Q_EMIT failed(tr("cannot start %1: %2").arg(m_program, stopper->errorString()));
            stopper->deleteLater();
        }
    });
    stopper->start(m_program, args);
    return true;
}

RunProcesses::Launch* RunProcesses::launchOf(const QString& runId) const
{
    for (const auto& l : m_launches)
        if (!runId.isEmpty() && l->runId == runId && l->process->isRunning())
            return l.get();
    return nullptr;
}

bool RunProcesses::isActive(const QString& runId) const { return launchOf(runId) != nullptr; }

int RunProcesses::activeCount() const
{
    return int(std::count_if(m_launches.begin(), m_launches.end(),
        [](const std::unique_ptr<Launch>& l) { return l->process->isRunning(); }));
}

QStringList RunProcesses::output(const QString& runId) const { return m_output.value(runId); }

} // namespace tgraph::studio
