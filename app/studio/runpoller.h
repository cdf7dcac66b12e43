// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "widgets/runcurvesview.h"
#include "widgets/runtablemodel.h"

#include <QObject>
#include <QStringList>
#include <QThreadPool>

#include <memory>

class QTimer;

// What one poll of a project read: its runs with their latest metrics, and the curves of the
// selected runs for one metric.
struct RunSnapshot
{
    QString project;
    std::vector<RunRow> runs;
    std::vector<RunCurve> curves;
    QString error; // the project could not be read (banner text, names the file)
    int64_t nowMs = 0;
};

// Polls a project file on a background thread with its own read-only connection (the training
// process writes through WAL, so reads never see "database is locked"). One poll at a time; a
// snapshot of a superseded request (another project, runs or metric) is dropped.
class RunPoller : public QObject
{
    Q_OBJECT
public:
    explicit RunPoller(QObject* parent = nullptr);
    ~RunPoller() override;

    void setProject(const QString& path);
    void setSelection(const QStringList& runIds, const QString& metric); // metric "context/key"
    void setInterval(int ms);
    // Polls now (and then every interval while started).
    void pollNow();
    void start();
    void stop();
    QString project() const { return m_project; }

    // Reads a snapshot synchronously (also used by tests and headless rendering).
    static RunSnapshot read(
        const QString& project, const QStringList& runIds, const QString& metric, int64_t maxPoints = 2000);

Q_SIGNALS:
    void snapshot(const std::shared_ptr<const RunSnapshot>& snapshot);

private:
    QThreadPool m_pool;
    QTimer* m_timer = nullptr;
    QString m_project;
    QStringList m_runIds;
    QString m_metric = QStringLiteral("train/loss");
    quint64 m_generation = 0;
    bool m_busy = false;
    bool m_again = false;
};
