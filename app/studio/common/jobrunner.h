// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "widgets/common/jobprogress.h"

#include <QObject>
#include <QString>

#include <functional>

class JobChannel;

// One kind of model work (inference, explain, what-if, tune): a channel of the model lane of the
// studio's JobTracker, which runs one LibTorch job at a time. A job returns a continuation that the
// GUI thread runs only while the job is still the active one: a newer start() or cancel() drops a
// stale result. Exceptions become failed(); tgraph::Cancelled becomes cancelled(). Progress is
// polled from the job's JobProgress.
class JobRunner : public QObject
{
    Q_OBJECT
public:
    // Runs on the worker thread; the returned function (may be empty) runs on the GUI thread.
    using Work = std::function<std::function<void()>(JobProgress& progress)>;

    explicit JobRunner(const QString& name, QObject* parent = nullptr);
    ~JobRunner() override; // cancels and waits for the running job

    void start(Work work);
    void cancel();
    bool isBusy() const;

    // Runs on the worker thread after every job of every runner (tgraph-studio's main() gives the
    // model runtime's cached memory back with it). Set once at start-up, before the first job.
    static void setAfterEachJob(std::function<void()> hook);

Q_SIGNALS:
    void started();
    void progressChanged(const QString& label, quint64 done, quint64 total);
    void finished(); // after the continuation ran
    void failed(const QString& message);
    void cancelled();

private:
    JobChannel* m_channel = nullptr;
};
