// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "inferencejob.h"

#include <QObject>
#include <QThreadPool>

#include <map>
#include <memory>

class JobProgress;
class QTimer;

// Runs inference requests on the studio's one inference thread. A new request cancels the
// running one; a result whose job is no longer the active one is dropped, so a slow cancelled job
// can never overwrite a newer result. Progress is polled from the job's JobProgress.
class InferenceRunner : public QObject
{
    Q_OBJECT
public:
    explicit InferenceRunner(QObject* parent = nullptr);
    ~InferenceRunner() override; // cancels and waits for the thread

    void start(InferenceRequest request);
    void cancel();
    bool isBusy() const { return m_activeJob != 0; }
    quint64 activeJobId() const { return m_activeJob; }

Q_SIGNALS:
    void started();
    void progressChanged(const QString& label, quint64 done, quint64 total);
    void finished(const std::shared_ptr<const InferenceOutcome>& outcome);
    void failed(const QString& message);
    void cancelled();

private:
    void poll();

    QThreadPool m_pool;
    QTimer* m_pollTimer = nullptr;
    quint64 m_lastJobId = 0;
    quint64 m_activeJob = 0;
    std::map<quint64, std::shared_ptr<JobProgress>> m_running;
};
