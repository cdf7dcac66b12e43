// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "app/studio/dump/dumpfollower.h"
#include "app/studio/dump/stagefigures.h"

#include <QObject>

#include <map>
#include <memory>
#include <string>
#include <utility>

namespace tgraph::widgets {
class JobChannel;
}

namespace tgraph::studio {

class PassTimelineModel;

// Fills a PassTimelineModel with the figures of its stages, lazily, for the module shown only:
// one job per stage on the io lane of the job tracker (read, count, price, diff with the stage
// before, whose module is kept from the job before), in pass order. Figures are kept by the keys
// of a stage's file and of the one before, so a module shown again, or a folder that grew, reads
// only what is new. Showing another module cancels the running job (its result is dropped).
class TimelineFiller : public QObject
{
    Q_OBJECT
public:
    explicit TimelineFiller(PassTimelineModel* model, QObject* parent = nullptr);
    ~TimelineFiller() override; // cancels and waits

    // Fills what the model's rows miss (after PassTimelineModel::setModule); keeps a running
    // job when it still works for the same module.
    void fill();
    void cancel();
    bool isBusy() const;
    size_t cachedCount() const { return m_cache.size(); }

Q_SIGNALS:
    void progressChanged(const QString& label, quint64 done, quint64 total);
    void stageFigured(int row);
    void finished(); // every row has its figures
    void cancelled();

private:
    void startRow(int row);

    PassTimelineModel* m_model;
    widgets::JobChannel* m_channel;
    std::map<std::string, StageFigures> m_cache; // by previousKey + '\x1f' + key
    // The module read last (the stage before the next one, in pass order) and its key.
    std::shared_ptr<const tgraph::HloModule> m_lastModule;
    std::string m_lastKey;
    QString m_lastError;
    std::string m_running; // the cache key of the running job's stage, "" when none
    std::pair<std::string, std::string> m_runningKeys; // its previousKey and key
};

} // namespace tgraph::studio
