// SPDX-License-Identifier: Apache-2.0
#include "app/studio/analysis/inferencerunner.h"

#include "widgets/common/jobprogress.h"
#include "app/studio/common/jobrunner.h"

InferenceRunner::InferenceRunner(QObject* parent)
    : QObject(parent)
    , m_job(new JobRunner(QStringLiteral("Inference"), this))
{
    connect(m_job, &JobRunner::started, this, &InferenceRunner::started);
    connect(m_job, &JobRunner::progressChanged, this, &InferenceRunner::progressChanged);
    connect(m_job, &JobRunner::failed, this, &InferenceRunner::failed);
    connect(m_job, &JobRunner::cancelled, this, &InferenceRunner::cancelled);
}

InferenceRunner::~InferenceRunner() = default; // m_job cancels and waits

void InferenceRunner::start(InferenceRequest request)
{
    m_job->start([this, request = std::move(request)](JobProgress& progress) -> std::function<void()> {
        std::shared_ptr<const InferenceOutcome> outcome;
        try {
            outcome = std::make_shared<const InferenceOutcome>(runInference(request, &progress));
        } catch (const std::bad_alloc&) {
            throw std::runtime_error("not enough memory for inference; lower the configs per pass");
        }
        return [this, outcome] { Q_EMIT finished(outcome); };
    });
}

void InferenceRunner::cancel() { m_job->cancel(); }

bool InferenceRunner::isBusy() const { return m_job->isBusy(); }
