// SPDX-License-Identifier: Apache-2.0
#include "app/studio/dump/timelinefiller.h"

#include "app/studio/dump/passtimelinemodel.h"

#include "widgets/common/formatting.h"
#include "widgets/common/jobchannel.h"

#include "core/util/error.h"

#include <utility>

namespace tgraph::studio {

using namespace tgraph::widgets;

namespace {

std::string cacheKey(const std::string& previousKey, const std::string& key) { return previousKey + '\x1f' + key; }

} // namespace

TimelineFiller::TimelineFiller(PassTimelineModel* model, QObject* parent)
    : QObject(parent)
    , m_model(model)
    , m_channel(new JobChannel(JobLane::Io, tr("Pass timeline"), this))
{
    connect(m_channel, &JobChannel::progressChanged, this,
        [this](quint64, const QString& label, quint64 done, quint64 total) {
            Q_EMIT progressChanged(label, done, total);
        });
    connect(m_channel, &JobChannel::failed, this, [this](quint64, const QString& message) {
        // figureStage reports its errors in the figures; whatever else failed is kept as the
        // stage's error, so that the next rows are still read.
        const auto [previousKey, key] = std::exchange(m_runningKeys, {});
        m_running.clear();
        StageFigures figures;
        figures.readError = figures.estimateError = figures.diffError = message;
        m_cache[cacheKey(previousKey, key)] = figures;
        m_model->setFigures(key, previousKey, figures);
        fill();
    });
    connect(m_channel, &JobChannel::cancelled, this, [this](quint64) {
        m_running.clear();
        Q_EMIT cancelled();
    });
    connect(m_channel, &JobChannel::finished, this, [this](quint64) { fill(); });
}

TimelineFiller::~TimelineFiller() = default;

bool TimelineFiller::isBusy() const { return m_channel->isBusy(); }

void TimelineFiller::cancel() { m_channel->cancel(); }

void TimelineFiller::fill()
{
    // Rows with figures in the cache take them first.
    const std::vector<PassTimelineModel::Row>& rows = m_model->rows();
    int next = -1;
    for (size_t i = 0; i < rows.size(); ++i) {
        const PassTimelineModel::Row& r = rows[i];
        if (r.figures)
            continue;
        const auto it = m_cache.find(cacheKey(r.previousKey, r.key));
        if (it != m_cache.end())
            m_model->setFigures(r.key, r.previousKey, it->second);
        else if (next < 0)
            next = int(i);
    }
    if (next < 0) {
        if (m_channel->isBusy())
            m_channel->cancel();
        m_running.clear();
        Q_EMIT finished();
        return;
    }
    const PassTimelineModel::Row* r = m_model->row(next);
    if (m_channel->isBusy() && m_running == cacheKey(r->previousKey, r->key))
        return; // already working on it (the folder grew meanwhile): its result lands by key
    startRow(next);
}

void TimelineFiller::startRow(int row)
{
    const PassTimelineModel::Row* r = m_model->row(row);
    const DumpIndexPtr index = m_model->dumpIndex();
    if (!r || !index)
        return;
    m_running = cacheKey(r->previousKey, r->key);
    m_runningKeys = { r->previousKey, r->key };
    const PassTimelineModel::Row* before = m_model->row(row - 1);
    std::optional<tgraph::DumpStage> previousStage;
    if (before)
        previousStage = before->stage;
    const int total = m_model->rowCount();
    m_channel->start([this, index, stage = r->stage, key = r->key, previousKey = r->previousKey, previousStage, row,
                         total, lastModule = m_lastModule, lastKey = m_lastKey,
                         lastError = m_lastError](JobProgress& progress) -> JobTracker::Continuation {
        progress.begin(tr("Stage %1 of %2").arg(Formatting::count(row + 1), Formatting::count(total)).toStdString(),
            uint64_t(total));
        progress.update(uint64_t(row));
        std::shared_ptr<const tgraph::HloModule> previous;
        QString previousError;
        if (previousStage) {
            if (lastKey == previousKey && (lastModule || !lastError.isEmpty())) {
                previous = lastModule;
                previousError = lastError;
            } else {
                // Not the module read last (another module was shown in between): read it again.
                try {
                    previous = std::make_shared<const tgraph::HloModule>(tgraph::openDumpStage(*index, *previousStage));
                } catch (const tgraph::Cancelled&) {
                    throw;
                } catch (const std::exception& e) {
                    previousError = QString::fromStdString(e.what());
                }
            }
        }
        std::shared_ptr<const tgraph::HloModule> module;
        StageFigures figures
            = figureStage(*index, stage, previous.get(), previousStage.has_value(), previousError, &module, &progress);
        progress.end();
        return [this, key, previousKey, figures = std::move(figures), module] {
            m_cache[cacheKey(previousKey, key)] = figures;
            m_lastModule = module;
            m_lastKey = key;
            m_lastError = figures.readError;
            m_running.clear();
            m_runningKeys = {};
            m_model->setFigures(key, previousKey, figures);
            for (int i = 0; i < m_model->rowCount(); ++i)
                if (m_model->row(i)->key == key && m_model->row(i)->previousKey == previousKey)
                    Q_EMIT stageFigured(i);
        };
    });
}

} // namespace tgraph::studio
