// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "app/studio/analysis/inferencejob.h"

#include <QObject>

#include <memory>

class JobRunner;

// Runs inference requests on the studio's one inference thread (a JobRunner): a new request
// cancels the running one and a superseded job's result is dropped, so a slow cancelled job can
// never overwrite a newer result. Progress is polled from the job's JobProgress.
class InferenceRunner : public QObject
{
    Q_OBJECT
public:
    explicit InferenceRunner(QObject* parent = nullptr);
    ~InferenceRunner() override; // cancels and waits for the thread

    void start(InferenceRequest request);
    void cancel();
    bool isBusy() const;

Q_SIGNALS:
    void started();
    void progressChanged(const QString& label, quint64 done, quint64 total);
    void finished(const std::shared_ptr<const InferenceOutcome>& outcome);
    void failed(const QString& message);
    void cancelled();

private:
    JobRunner* m_job = nullptr;
};
