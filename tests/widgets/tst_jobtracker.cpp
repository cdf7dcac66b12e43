// SPDX-License-Identifier: Apache-2.0
// The one job tracker every background job of the studio goes through (widgets/common/jobtracker.h):
// job ids, the continuation on the GUI thread, stale results dropped, cancelling a running job,
// progress polled on one timer, exceptions turned into failure messages, and the lanes (one model
// job at a time, several io jobs side by side, cancelling a whole lane), the typed run(), the
// lanes' after-each-job hooks and the JobControl that binds a channel to a bar, a button and a banner. Workers wait on gates with
// timeouts, so a broken tracker fails a test instead of hanging it.

#include "widgets/common/errorbanner.h"
#include "widgets/common/jobchannel.h"
#include "widgets/common/jobcontrol.h"
#include "widgets/common/jobprogress.h"
#include "widgets/common/jobtracker.h"

#include "core/util/error.h"
#include "core/util/progress.h"

#include <QCoreApplication>
#include <QProgressBar>
#include <QPushButton>
#include <QScopeGuard>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTest>
#include <QThread>

#include <atomic>
#include <memory>
#include <new>
#include <stdexcept>

using namespace tgraph::widgets;

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

// A channel of a test's tracker with a spy on each of its signals.
struct Watched
{
    Watched(JobTracker* tracker, JobLane lane, const QString& name)
        : channel(lane, name, nullptr, tracker)
    { }
    JobChannel channel;
    QSignalSpy started { &channel, &JobChannel::started };
    QSignalSpy progress { &channel, &JobChannel::progressChanged };
    QSignalSpy finished { &channel, &JobChannel::finished };
    QSignalSpy failed { &channel, &JobChannel::failed };
    QSignalSpy cancelled { &channel, &JobChannel::cancelled };
};

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
        Watched io(&tracker, JobLane::Io, QStringLiteral("Read"));
        Watched layout(&tracker, JobLane::Layout, QStringLiteral("Layout"));

        QThread* workerThread = nullptr;
        QThread* continuationThread = nullptr;
        quint64 progressJob = 0;
        bool busyInContinuation = true;
        const quint64 first = io.channel.start([&](JobProgress& progress) -> JobTracker::Continuation {
            workerThread = QThread::currentThread();
            progressJob = progress.job();
            return [&] {
                continuationThread = QThread::currentThread();
                busyInContinuation = io.channel.isBusy();
            };
        });
        QVERIFY(first > 0);
        QCOMPARE(io.channel.currentJob(), first);
        QVERIFY(io.channel.isBusy());
        QVERIFY(tracker.isCurrent(first));
        QCOMPARE(io.started.count(), 1);
        QCOMPARE(io.started.front().front().toULongLong(), first);
        const quint64 second = layout.channel.start(finishing());
        QVERIFY(second > first); // one sequence of ids across channels and lanes

        QVERIFY(io.finished.count() == 1 || io.finished.wait(kTimeoutMs));
        QVERIFY(layout.finished.count() == 1 || layout.finished.wait(kTimeoutMs));
        QCOMPARE(io.finished.front().front().toULongLong(), first);
        QCOMPARE(layout.finished.front().front().toULongLong(), second);
        QVERIFY(workerThread && workerThread != qApp->thread());
        QCOMPARE(continuationThread, qApp->thread());
        QCOMPARE(progressJob, first); // the job's JobProgress carries its id
        QVERIFY(!busyInContinuation); // the channel is free again when the continuation runs
        QVERIFY(!io.channel.isBusy() && !layout.channel.isBusy());
        QVERIFY(!tracker.isCurrent(first));
        QCOMPARE(tracker.pendingJobs(JobLane::Io), 0);

        const quint64 third = io.channel.start(finishing());
        QVERIFY(third > second);
        QVERIFY(io.finished.wait(kTimeoutMs));
    }

    // A superseded job's result never arrives, even when it ends after the newer job.
    void staleResultIsDropped()
    {
        JobTracker tracker;
        Watched w(&tracker, JobLane::Io, QStringLiteral("Read"));
        Gate gate;
        std::atomic<bool> oldRunning { false };
        std::atomic<bool> sawCancel { false };
        std::atomic<int> oldApplied { 0 };
        std::atomic<int> newApplied { 0 };

        const quint64 old = w.channel.start([&](JobProgress& progress) -> JobTracker::Continuation {
            oldRunning = true;
            gate.wait(); // ignores cancellation: a job that cannot stop early
            sawCancel = progress.isCancelled();
            return [&] { ++oldApplied; };
        });
        QVERIFY(QTest::qWaitFor([&] { return oldRunning.load(); }, kTimeoutMs));
        const quint64 newer = w.channel.start(finishing(&newApplied));
        QVERIFY(!tracker.isCurrent(old));
        QCOMPARE(w.channel.currentJob(), newer);
        QVERIFY(w.finished.wait(kTimeoutMs));
        QCOMPARE(w.finished.front().front().toULongLong(), newer);
        QCOMPARE(newApplied.load(), 1);

        gate.open();
        QVERIFY(waitUntilIdle(tracker, JobLane::Io));
        QTest::qWait(50); // a late result would be delivered by now
        QVERIFY(sawCancel.load()); // starting the newer job asked the old one to stop
        QCOMPARE(oldApplied.load(), 0);
        QCOMPARE(w.finished.count(), 1);
        QCOMPARE(w.failed.count(), 0);
        QCOMPARE(w.cancelled.count(), 0); // superseding is not cancelling
        QVERIFY(!w.channel.isBusy());
    }

    void cancelStopsARunningJob()
    {
        JobTracker tracker;
        Watched w(&tracker, JobLane::Model, QStringLiteral("Explain"));
        std::atomic<bool> running { false };
        std::atomic<int> steps { 0 };
        const quint64 job = w.channel.start(counting(&running, &steps));
        QVERIFY(QTest::qWaitFor([&] { return running.load() && steps.load() > 5; }, kTimeoutMs));

        w.channel.cancel();
        QCOMPARE(w.cancelled.count(), 1); // at once, not when the worker notices
        QCOMPARE(w.cancelled.front().front().toULongLong(), job);
        QVERIFY(!w.channel.isBusy());
        QVERIFY(waitUntilIdle(tracker, JobLane::Model)); // the worker stopped at its next checkpoint
        QVERIFY(steps.load() < 100000);
        QTest::qWait(50);
        QCOMPARE(w.cancelled.count(), 1);
        QCOMPARE(w.finished.count(), 0);

        // Cancelling an idle channel does nothing.
        w.channel.cancel();
        QCOMPARE(w.cancelled.count(), 1);
        // Cancelling by id works as well.
        running = false;
        const quint64 second = w.channel.start(counting(&running, &steps));
        QVERIFY(QTest::qWaitFor([&] { return running.load(); }, kTimeoutMs));
        tracker.cancel(second);
        QCOMPARE(w.cancelled.count(), 2);
        QCOMPARE(w.cancelled.back().front().toULongLong(), second);
        QVERIFY(waitUntilIdle(tracker, JobLane::Model));
    }

    void progressIsPolled()
    {
        JobTracker tracker;
        Watched w(&tracker, JobLane::Io, QStringLiteral("Load"));
        Gate atThree;
        Gate release;
        const quint64 job = w.channel.start([&](JobProgress& p) -> JobTracker::Continuation {
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
            !w.progress.isEmpty() && w.progress.back().at(1).toString() == QStringLiteral("Reading"), kTimeoutMs);
        const QList<QVariant> reading = w.progress.back();
        QCOMPARE(reading.at(0).toULongLong(), job);
        QCOMPARE(reading.at(2).toULongLong(), quint64(3));
        QCOMPARE(reading.at(3).toULongLong(), quint64(10));
        // One timer polls; an unchanged step is not reported again.
        const int reported = int(w.progress.count());
        QTest::qWait(8 * JobTracker::kProgressIntervalMs);
        QCOMPARE(w.progress.count(), reported);

        release.open();
        QVERIFY(w.finished.wait(kTimeoutMs));
        const int afterFinish = w.progress.count();
        QTest::qWait(4 * JobTracker::kProgressIntervalMs);
        QCOMPARE(w.progress.count(), afterFinish); // nothing about a job that has ended
    }

    void exceptionsBecomeFailures()
    {
        JobTracker tracker;
        Watched w(&tracker, JobLane::Model, QStringLiteral("Inference"));

        const quint64 a = w.channel.start([](JobProgress&) -> JobTracker::Continuation {
            throw tgraph::InputError("model.npz", "w", "shape [3], expected [4]");
        });
        QVERIFY(w.failed.wait(kTimeoutMs));
        QCOMPARE(w.failed.back().at(0).toULongLong(), a);
        QCOMPARE(w.failed.back().at(1).toString(),
            QString::fromStdString(tgraph::InputError("model.npz", "w", "shape [3], expected [4]").what()));
        QVERIFY(w.failed.back().at(1).toString().startsWith(QStringLiteral("model.npz")));
        QVERIFY(!w.channel.isBusy());

        w.channel.start([](JobProgress&) -> JobTracker::Continuation { throw std::bad_alloc(); });
        QVERIFY(w.failed.wait(kTimeoutMs));
        QCOMPARE(w.failed.back().at(1).toString(), QStringLiteral("not enough memory for the inference job"));

        w.channel.start([](JobProgress&) -> JobTracker::Continuation { throw 42; });
        QVERIFY(w.failed.wait(kTimeoutMs));
        QCOMPARE(w.failed.back().at(1).toString(), QStringLiteral("unknown error in the inference job"));

        // A job that stops by itself (tgraph::Cancelled) is cancelled, not w.failed.
        const quint64 d = w.channel.start([](JobProgress&) -> JobTracker::Continuation { throw tgraph::Cancelled(); });
        QVERIFY(w.cancelled.wait(kTimeoutMs));
        QCOMPARE(w.cancelled.back().front().toULongLong(), d);
        QCOMPARE(w.failed.count(), 3);
        QCOMPARE(w.finished.count(), 0);
        QVERIFY(!w.channel.isBusy());
    }

    void lanes()
    {
        QCOMPARE(JobTracker::maxThreads(JobLane::Model), 1);
        QCOMPARE(JobTracker::maxThreads(JobLane::Layout), 1);
        QVERIFY(JobTracker::maxThreads(JobLane::Io) >= 2);

        JobTracker tracker;
        // The model lane runs one job at a time, whichever channel started it; the waiting job says so.
        Watched inference(&tracker, JobLane::Model, QStringLiteral("Inference"));
        Watched tune(&tracker, JobLane::Model, QStringLiteral("Tune"));
        Gate inferenceGate;
        std::atomic<bool> inferenceRunning { false };
        std::atomic<bool> tuneRan { false };
        std::atomic<bool> overlapped { false };
        inference.channel.start([&](JobProgress&) -> JobTracker::Continuation {
            inferenceRunning = true;
            inferenceGate.wait();
            inferenceRunning = false;
            return {};
        });
        tune.channel.start([&](JobProgress&) -> JobTracker::Continuation {
            tuneRan = true;
            overlapped = inferenceRunning.load();
            return {};
        });
        QVERIFY(QTest::qWaitFor([&] { return inferenceRunning.load(); }, kTimeoutMs));
        QTRY_VERIFY_WITH_TIMEOUT(!tune.progress.isEmpty(), kTimeoutMs);
        QCOMPARE(tune.progress.back().at(1).toString(), QStringLiteral("Waiting for Inference"));
        QVERIFY(!tuneRan.load());
        QVERIFY(inference.channel.isBusy() && tune.channel.isBusy()); // channels of one lane do not cancel each other
        QCOMPARE(tracker.pendingJobs(JobLane::Model), 2);
        inferenceGate.open();
        QVERIFY(tune.finished.count() == 1 || tune.finished.wait(kTimeoutMs));
        QCOMPARE(inference.finished.count(), 1);
        QVERIFY(tuneRan.load());
        QVERIFY(!overlapped.load());

        // The io lane runs jobs side by side: each of these waits for the other to begin.
        Watched load(&tracker, JobLane::Io, QStringLiteral("Load"));
        Watched poll(&tracker, JobLane::Io, QStringLiteral("Project poll"));
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
        load.channel.start(meetOther(&loadBegun, &pollBegun));
        poll.channel.start(meetOther(&pollBegun, &loadBegun));
        QVERIFY(load.finished.count() == 1 || load.finished.wait(2 * kTimeoutMs));
        QVERIFY(poll.finished.count() == 1 || poll.finished.wait(kTimeoutMs));
        QCOMPARE(load.failed.count(), 0);

        // Cancelling a lane cancels every channel's job in it, running or queued, and nothing else.
        std::atomic<bool> running { false };
        std::atomic<int> steps { 0 };
        tuneRan = false;
        inference.channel.start(counting(&running, &steps));
        tune.channel.start([&](JobProgress&) -> JobTracker::Continuation {
            tuneRan = true;
            return {};
        });
        Gate loadGate;
        load.channel.start([&](JobProgress&) -> JobTracker::Continuation {
            loadGate.wait();
            return {};
        });
        QVERIFY(QTest::qWaitFor([&] { return running.load(); }, kTimeoutMs));
        tracker.cancelLane(JobLane::Model);
        QCOMPARE(inference.cancelled.count(), 1);
        QCOMPARE(tune.cancelled.count(), 1);
        QVERIFY(!inference.channel.isBusy() && !tune.channel.isBusy());
        QVERIFY(load.channel.isBusy());
        QVERIFY(waitUntilIdle(tracker, JobLane::Model));
        QVERIFY(!tuneRan.load()); // cancelled while it waited: its work never ran
        loadGate.open();
        QVERIFY(load.finished.wait(kTimeoutMs));
        QCOMPARE(load.finished.count(), 2);
    }

    // run<Result>: the worker's result reaches the GUI-thread function, only the current job's.
    void typedRunDeliversOnlyTheCurrentResult()
    {
        JobTracker tracker;
        JobChannel channel(JobLane::Io, QStringLiteral("Typed"), nullptr, &tracker);
        Gate gate;
        std::vector<int> delivered;
        channel.run<int>(
            [&gate](JobProgress&) {
                gate.wait();
                return 1;
            },
            [&](int value) { delivered.push_back(value); });
        channel.run<int>([](JobProgress&) { return 42; }, [&](int value) { delivered.push_back(value); });
        gate.open();
        QVERIFY(waitUntilIdle(tracker, JobLane::Io));
        QCoreApplication::processEvents();
        QCOMPARE(delivered, std::vector<int>({ 42 }));
    }

    // A lane's hook runs after each of its jobs, finished, failed or cancelled; other lanes' not.
    void afterEachJobRunsPerLane()
    {
        std::atomic<int> io { 0 }, model { 0 };
        JobTracker::setAfterEachJob(JobLane::Io, [&] { ++io; });
        JobTracker::setAfterEachJob(JobLane::Model, [&] { ++model; });
        const auto reset = qScopeGuard([] {
            JobTracker::setAfterEachJob(JobLane::Io, {});
            JobTracker::setAfterEachJob(JobLane::Model, {});
        });
        JobTracker tracker;
        Watched job(&tracker, JobLane::Io, QStringLiteral("Io"));
        job.channel.start(finishing());
        QVERIFY(job.finished.wait(kTimeoutMs));
        job.channel.start([](JobProgress&) -> JobTracker::Continuation { throw std::runtime_error("broken"); });
        QVERIFY(job.failed.wait(kTimeoutMs));
        std::atomic<bool> running { false };
        std::atomic<int> steps { 0 };
        job.channel.start(counting(&running, &steps));
        QVERIFY(QTest::qWaitFor([&] { return running.load(); }, kTimeoutMs));
        job.channel.cancel();
        QVERIFY(waitUntilIdle(tracker, JobLane::Io));
        QCOMPARE(io.load(), 3);
        QCOMPARE(model.load(), 0);
    }

    // JobControl: the bar shows while a job runs, Cancel cancels it, a failure lands on the banner
    // and leaves it when the next job starts, and the panel hears stopped() once per job.
    void jobControlDrivesBarButtonAndBanner()
    {
        JobTracker tracker;
        JobChannel channel(JobLane::Io, QStringLiteral("Controlled"), nullptr, &tracker);
        QProgressBar bar;
        QPushButton cancel;
        ErrorBanner banner;
        JobControl control(&channel, &bar, &banner);
        control.setCancelButton(&cancel);
        control.setCancelledMessage(QStringLiteral("Counting cancelled"));
        QSignalSpy stopped(&control, &JobControl::stopped);
        QSignalSpy status(&control, &JobControl::statusMessage);
        QVERIFY(bar.isHidden());
        QVERIFY(!cancel.isEnabled());

        std::atomic<bool> running { false };
        std::atomic<int> steps { 0 };
        channel.start(counting(&running, &steps));
        QVERIFY(!bar.isHidden());
        QVERIFY(cancel.isEnabled());
        QVERIFY(QTest::qWaitFor([&] { return running.load(); }, kTimeoutMs));
        cancel.click();
        QCOMPARE(stopped.count(), 1);
        QCOMPARE(control.lastOutcome(), JobControl::Outcome::Cancelled);
        QCOMPARE(status.count(), 1);
        QCOMPARE(status.at(0).at(0).toString(), QStringLiteral("Counting cancelled"));
        QVERIFY(bar.isHidden());
        QVERIFY(!cancel.isEnabled());
        QVERIFY(waitUntilIdle(tracker, JobLane::Io));

        channel.start([](JobProgress&) -> JobTracker::Continuation { throw std::runtime_error("the disk is gone"); });
        QVERIFY(stopped.wait(kTimeoutMs));
        QCOMPARE(stopped.count(), 2);
        QCOMPARE(control.lastOutcome(), JobControl::Outcome::Failed);
        QCOMPARE(control.lastError(), QStringLiteral("the disk is gone"));
        QVERIFY(banner.messages().contains(QStringLiteral("the disk is gone")));

        channel.start(finishing());
        QVERIFY(!banner.messages().contains(QStringLiteral("the disk is gone"))); // the new job answers for itself
        QVERIFY(stopped.wait(kTimeoutMs));
        QCOMPARE(stopped.count(), 3);
        QCOMPARE(control.lastOutcome(), JobControl::Outcome::Finished);
        QVERIFY(control.lastError().isEmpty());
        QVERIFY(bar.isHidden());
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
