// SPDX-License-Identifier: Apache-2.0
// The one job tracker every background job of the studio goes through (widgets/common/jobtracker.h):
// job ids, the continuation on the GUI thread, stale results dropped, cancelling a running job,
// progress polled on one timer, exceptions turned into failure messages, and the lanes (one model
// job at a time, several io jobs side by side, cancelling a whole lane). Workers wait on gates with
// timeouts, so a broken tracker fails a test instead of hanging it.

#include "widgets/common/jobchannel.h"
#include "widgets/common/jobprogress.h"
#include "widgets/common/jobtracker.h"

#include "core/util/error.h"
#include "core/util/progress.h"

#include <QCoreApplication>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTest>
#include <QThread>

#include <atomic>
#include <memory>
#include <new>
#include <stdexcept>

namespace {

constexpr int kTimeoutMs = 10000;

// Opened once by the test; a worker waits for it (never longer than kTimeoutMs).
class Gate
{
public:
    void open() { m_semaphore.release(1000); }
    bool wait() { return m_semaphore.tryAcquire(1, kTimeoutMs); }

private:
    QSemaphore m_semaphore;
};

JobTracker::Work finishing(std::atomic<int>* applied = nullptr)
{
    return [applied](JobProgress&) -> JobTracker::Continuation {
        return [applied] {
            if (applied)
                ++*applied;
        };
    };
}

// Counts steps until cancelled (or 100 s pass): throws tgraph::Cancelled through ProgressScope.
JobTracker::Work counting(std::atomic<bool>* running, std::atomic<int>* steps)
{
    return [running, steps](JobProgress& progress) -> JobTracker::Continuation {
        running->store(true);
        tgraph::ProgressScope scope(&progress, "Counting", 100000);
        for (uint64_t i = 1; i <= 100000; ++i) {
            QThread::msleep(1);
            steps->store(int(i));
            scope.advanceTo(i);
        }
        return {};
    };
}

bool waitUntilIdle(const JobTracker& tracker, JobLane lane)
{
    return QTest::qWaitFor([&] { return tracker.pendingJobs(lane) == 0; }, kTimeoutMs);
}

} // namespace

class TestJobTracker : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void idsAndContinuations()
    {
        JobTracker tracker;
        JobChannel io(JobLane::Io, QStringLiteral("Read"), nullptr, &tracker);
        JobChannel layout(JobLane::Layout, QStringLiteral("Layout"), nullptr, &tracker);
        QSignalSpy ioStarted(&io, &JobChannel::started);
        QSignalSpy ioFinished(&io, &JobChannel::finished);
        QSignalSpy layoutFinished(&layout, &JobChannel::finished);

        QThread* workerThread = nullptr;
        QThread* continuationThread = nullptr;
        quint64 progressJob = 0;
        bool busyInContinuation = true;
        const quint64 first = io.start([&](JobProgress& progress) -> JobTracker::Continuation {
            workerThread = QThread::currentThread();
            progressJob = progress.job();
            return [&] {
                continuationThread = QThread::currentThread();
                busyInContinuation = io.isBusy();
            };
        });
        QVERIFY(first > 0);
        QCOMPARE(io.currentJob(), first);
        QVERIFY(io.isBusy());
        QVERIFY(tracker.isCurrent(first));
        QCOMPARE(ioStarted.count(), 1);
        QCOMPARE(ioStarted.front().front().toULongLong(), first);
        const quint64 second = layout.start(finishing());
        QVERIFY(second > first); // one sequence of ids across channels and lanes

        QVERIFY(ioFinished.count() == 1 || ioFinished.wait(kTimeoutMs));
        QVERIFY(layoutFinished.count() == 1 || layoutFinished.wait(kTimeoutMs));
        QCOMPARE(ioFinished.front().front().toULongLong(), first);
        QCOMPARE(layoutFinished.front().front().toULongLong(), second);
        QVERIFY(workerThread && workerThread != qApp->thread());
        QCOMPARE(continuationThread, qApp->thread());
        QCOMPARE(progressJob, first); // the job's JobProgress carries its id
        QVERIFY(!busyInContinuation); // the channel is free again when the continuation runs
        QVERIFY(!io.isBusy() && !layout.isBusy());
        QVERIFY(!tracker.isCurrent(first));
        QCOMPARE(tracker.pendingJobs(JobLane::Io), 0);

        const quint64 third = io.start(finishing());
        QVERIFY(third > second);
        QVERIFY(ioFinished.wait(kTimeoutMs));
    }

    // A superseded job's result never arrives, even when it ends after the newer job.
    void staleResultIsDropped()
    {
        JobTracker tracker;
        JobChannel channel(JobLane::Io, QStringLiteral("Read"), nullptr, &tracker);
        QSignalSpy finished(&channel, &JobChannel::finished);
        QSignalSpy failed(&channel, &JobChannel::failed);
        QSignalSpy cancelled(&channel, &JobChannel::cancelled);
        Gate gate;
        std::atomic<bool> oldRunning { false };
        std::atomic<bool> sawCancel { false };
        std::atomic<int> oldApplied { 0 };
        std::atomic<int> newApplied { 0 };

        const quint64 old = channel.start([&](JobProgress& progress) -> JobTracker::Continuation {
            oldRunning = true;
            gate.wait(); // ignores cancellation: a job that cannot stop early
            sawCancel = progress.isCancelled();
            return [&] { ++oldApplied; };
        });
        QVERIFY(QTest::qWaitFor([&] { return oldRunning.load(); }, kTimeoutMs));
        const quint64 newer = channel.start(finishing(&newApplied));
        QVERIFY(!tracker.isCurrent(old));
        QCOMPARE(channel.currentJob(), newer);
        QVERIFY(finished.wait(kTimeoutMs));
        QCOMPARE(finished.front().front().toULongLong(), newer);
        QCOMPARE(newApplied.load(), 1);

        gate.open();
        QVERIFY(waitUntilIdle(tracker, JobLane::Io));
        QTest::qWait(50); // a late result would be delivered by now
        QVERIFY(sawCancel.load()); // starting the newer job asked the old one to stop
        QCOMPARE(oldApplied.load(), 0);
        QCOMPARE(finished.count(), 1);
        QCOMPARE(failed.count(), 0);
        QCOMPARE(cancelled.count(), 0); // superseding is not cancelling
        QVERIFY(!channel.isBusy());
    }

    void cancelStopsARunningJob()
    {
        JobTracker tracker;
        JobChannel channel(JobLane::Model, QStringLiteral("Explain"), nullptr, &tracker);
        QSignalSpy finished(&channel, &JobChannel::finished);
        QSignalSpy cancelled(&channel, &JobChannel::cancelled);
        std::atomic<bool> running { false };
        std::atomic<int> steps { 0 };
        const quint64 job = channel.start(counting(&running, &steps));
        QVERIFY(QTest::qWaitFor([&] { return running.load() && steps.load() > 5; }, kTimeoutMs));

        channel.cancel();
        QCOMPARE(cancelled.count(), 1); // at once, not when the worker notices
        QCOMPARE(cancelled.front().front().toULongLong(), job);
        QVERIFY(!channel.isBusy());
        QVERIFY(waitUntilIdle(tracker, JobLane::Model)); // the worker stopped at its next checkpoint
        QVERIFY(steps.load() < 100000);
        QTest::qWait(50);
        QCOMPARE(cancelled.count(), 1);
        QCOMPARE(finished.count(), 0);

        // Cancelling an idle channel does nothing.
        channel.cancel();
        QCOMPARE(cancelled.count(), 1);
        // Cancelling by id works as well.
        running = false;
        const quint64 second = channel.start(counting(&running, &steps));
        QVERIFY(QTest::qWaitFor([&] { return running.load(); }, kTimeoutMs));
        tracker.cancel(second);
        QCOMPARE(cancelled.count(), 2);
        QCOMPARE(cancelled.back().front().toULongLong(), second);
        QVERIFY(waitUntilIdle(tracker, JobLane::Model));
    }

    void progressIsPolled()
    {
        JobTracker tracker;
        JobChannel channel(JobLane::Io, QStringLiteral("Load"), nullptr, &tracker);
        QSignalSpy progress(&channel, &JobChannel::progressChanged);
        QSignalSpy finished(&channel, &JobChannel::finished);
        Gate atThree;
        Gate release;
        const quint64 job = channel.start([&](JobProgress& p) -> JobTracker::Continuation {
            tgraph::ProgressScope outer(&p, "Reading", 10);
            outer.advanceTo(3);
            atThree.open();
            release.wait();
            {
                tgraph::ProgressScope inner(&p, "Pruning", 4);
                inner.advanceTo(4);
            }
            return {};
        });
        QVERIFY(atThree.wait());
        QTRY_VERIFY_WITH_TIMEOUT(
            !progress.isEmpty() && progress.back().at(1).toString() == QStringLiteral("Reading"), kTimeoutMs);
        const QList<QVariant> reading = progress.back();
        QCOMPARE(reading.at(0).toULongLong(), job);
        QCOMPARE(reading.at(2).toULongLong(), quint64(3));
        QCOMPARE(reading.at(3).toULongLong(), quint64(10));
        // One timer polls; an unchanged step is not reported again.
        const int reported = int(progress.count());
        QTest::qWait(8 * JobTracker::kProgressIntervalMs);
        QCOMPARE(progress.count(), reported);

        release.open();
        QVERIFY(finished.wait(kTimeoutMs));
        const int afterFinish = progress.count();
        QTest::qWait(4 * JobTracker::kProgressIntervalMs);
        QCOMPARE(progress.count(), afterFinish); // nothing about a job that has ended
    }

    void exceptionsBecomeFailures()
    {
        JobTracker tracker;
        JobChannel channel(JobLane::Model, QStringLiteral("Inference"), nullptr, &tracker);
        QSignalSpy failed(&channel, &JobChannel::failed);
        QSignalSpy cancelled(&channel, &JobChannel::cancelled);
        QSignalSpy finished(&channel, &JobChannel::finished);

        const quint64 a = channel.start([](JobProgress&) -> JobTracker::Continuation {
            throw tgraph::InputError("model.npz", "w", "shape [3], expected [4]");
        });
        QVERIFY(failed.wait(kTimeoutMs));
        QCOMPARE(failed.back().at(0).toULongLong(), a);
        QCOMPARE(failed.back().at(1).toString(),
            QString::fromStdString(tgraph::InputError("model.npz", "w", "shape [3], expected [4]").what()));
        QVERIFY(failed.back().at(1).toString().startsWith(QStringLiteral("model.npz")));
        QVERIFY(!channel.isBusy());

        channel.start([](JobProgress&) -> JobTracker::Continuation { throw std::bad_alloc(); });
        QVERIFY(failed.wait(kTimeoutMs));
        QCOMPARE(failed.back().at(1).toString(), QStringLiteral("not enough memory for the inference job"));

        channel.start([](JobProgress&) -> JobTracker::Continuation { throw 42; });
        QVERIFY(failed.wait(kTimeoutMs));
        QCOMPARE(failed.back().at(1).toString(), QStringLiteral("unknown error in the inference job"));

        // A job that stops by itself (tgraph::Cancelled) is cancelled, not failed.
        const quint64 d = channel.start([](JobProgress&) -> JobTracker::Continuation { throw tgraph::Cancelled(); });
        QVERIFY(cancelled.wait(kTimeoutMs));
        QCOMPARE(cancelled.back().front().toULongLong(), d);
        QCOMPARE(failed.count(), 3);
        QCOMPARE(finished.count(), 0);
        QVERIFY(!channel.isBusy());
    }

    void lanes()
    {
        QCOMPARE(JobTracker::maxThreads(JobLane::Model), 1);
        QCOMPARE(JobTracker::maxThreads(JobLane::Layout), 1);
        QVERIFY(JobTracker::maxThreads(JobLane::Io) >= 2);

        JobTracker tracker;
        // The model lane runs one job at a time, whichever channel started it; the waiting job says so.
        JobChannel inference(JobLane::Model, QStringLiteral("Inference"), nullptr, &tracker);
        JobChannel tune(JobLane::Model, QStringLiteral("Tune"), nullptr, &tracker);
        QSignalSpy inferenceDone(&inference, &JobChannel::finished);
        QSignalSpy tuneDone(&tune, &JobChannel::finished);
        QSignalSpy tuneProgress(&tune, &JobChannel::progressChanged);
        Gate inferenceGate;
        std::atomic<bool> inferenceRunning { false };
        std::atomic<bool> tuneRan { false };
        std::atomic<bool> overlapped { false };
        inference.start([&](JobProgress&) -> JobTracker::Continuation {
            inferenceRunning = true;
            inferenceGate.wait();
            inferenceRunning = false;
            return {};
        });
        tune.start([&](JobProgress&) -> JobTracker::Continuation {
            tuneRan = true;
            overlapped = inferenceRunning.load();
            return {};
        });
        QVERIFY(QTest::qWaitFor([&] { return inferenceRunning.load(); }, kTimeoutMs));
        QTRY_VERIFY_WITH_TIMEOUT(!tuneProgress.isEmpty(), kTimeoutMs);
        QCOMPARE(tuneProgress.back().at(1).toString(), QStringLiteral("Waiting for Inference"));
        QVERIFY(!tuneRan.load());
        QVERIFY(inference.isBusy() && tune.isBusy()); // channels of one lane do not cancel each other
        QCOMPARE(tracker.pendingJobs(JobLane::Model), 2);
        inferenceGate.open();
        QVERIFY(tuneDone.count() == 1 || tuneDone.wait(kTimeoutMs));
        QCOMPARE(inferenceDone.count(), 1);
        QVERIFY(tuneRan.load());
        QVERIFY(!overlapped.load());

        // The io lane runs jobs side by side: each of these waits for the other to begin.
        JobChannel load(JobLane::Io, QStringLiteral("Load"), nullptr, &tracker);
        JobChannel poll(JobLane::Io, QStringLiteral("Project poll"), nullptr, &tracker);
        QSignalSpy loadDone(&load, &JobChannel::finished);
        QSignalSpy pollDone(&poll, &JobChannel::finished);
        QSignalSpy loadFailed(&load, &JobChannel::failed);
        Gate loadBegun;
        Gate pollBegun;
        const auto meetOther = [](Gate* mine, Gate* other) {
            return [mine, other](JobProgress&) -> JobTracker::Continuation {
                mine->open();
                if (!other->wait())
                    throw std::runtime_error("the other job never ran alongside");
                return {};
            };
        };
        load.start(meetOther(&loadBegun, &pollBegun));
        poll.start(meetOther(&pollBegun, &loadBegun));
        QVERIFY(loadDone.count() == 1 || loadDone.wait(2 * kTimeoutMs));
        QVERIFY(pollDone.count() == 1 || pollDone.wait(kTimeoutMs));
        QCOMPARE(loadFailed.count(), 0);

        // Cancelling a lane cancels every channel's job in it, running or queued, and nothing else.
        QSignalSpy inferenceCancelled(&inference, &JobChannel::cancelled);
        QSignalSpy tuneCancelled(&tune, &JobChannel::cancelled);
        std::atomic<bool> running { false };
        std::atomic<int> steps { 0 };
        tuneRan = false;
        inference.start(counting(&running, &steps));
        tune.start([&](JobProgress&) -> JobTracker::Continuation {
            tuneRan = true;
            return {};
        });
        Gate loadGate;
        load.start([&](JobProgress&) -> JobTracker::Continuation {
            loadGate.wait();
            return {};
        });
        QVERIFY(QTest::qWaitFor([&] { return running.load(); }, kTimeoutMs));
        tracker.cancelLane(JobLane::Model);
        QCOMPARE(inferenceCancelled.count(), 1);
        QCOMPARE(tuneCancelled.count(), 1);
        QVERIFY(!inference.isBusy() && !tune.isBusy());
        QVERIFY(load.isBusy());
        QVERIFY(waitUntilIdle(tracker, JobLane::Model));
        QVERIFY(!tuneRan.load()); // cancelled while it waited: its work never ran
        loadGate.open();
        QVERIFY(loadDone.wait(kTimeoutMs));
        QCOMPARE(loadDone.count(), 2);
    }

    // Destroying a channel cancels its jobs and waits for them, so their work may use its owner.
    void destroyingAChannelWaitsForItsJobs()
    {
        JobTracker tracker;
        auto channel = std::make_unique<JobChannel>(JobLane::Layout, QStringLiteral("Layout"), nullptr, &tracker);
        std::atomic<bool> running { false };
        std::atomic<int> steps { 0 };
        std::atomic<bool> queuedRan { false };
        channel->start(counting(&running, &steps));
        auto other = std::make_unique<JobChannel>(JobLane::Layout, QStringLiteral("Other"), nullptr, &tracker);
        other->start([&](JobProgress&) -> JobTracker::Continuation {
            queuedRan = true;
            return {};
        });
        QVERIFY(QTest::qWaitFor([&] { return running.load(); }, kTimeoutMs));
        other.reset(); // its job waits behind the running one: dropped without running
        QVERIFY(!queuedRan.load());
        channel.reset();
        const int stoppedAt = steps.load();
        QTest::qWait(30);
        QCOMPARE(steps.load(), stoppedAt); // the worker had returned
        QVERIFY(QTest::qWaitFor([&] { return tracker.pendingJobs(JobLane::Layout) == 0; }, kTimeoutMs));
    }
};

QTEST_MAIN(TestJobTracker)
#include "tst_jobtracker.moc"
