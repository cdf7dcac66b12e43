// SPDX-License-Identifier: Apache-2.0
#include "widgets/common/jobprogress.h"

#include <QProgressBar>

#include <algorithm>
#include <climits>

namespace tgraph::widgets {

void JobProgress::begin(std::string_view label, uint64_t total)
{
    const std::lock_guard lock(m_mutex);
    m_steps.push_back({ std::string(label), 0, total });
}

void JobProgress::update(uint64_t done)
{
    const std::lock_guard lock(m_mutex);
    if (!m_steps.empty())
        m_steps.back().done = done;
}

void JobProgress::end()
{
    const std::lock_guard lock(m_mutex);
    if (m_steps.empty())
        return;
    m_last = m_steps.back();
    m_last.done = m_last.total;
    m_steps.pop_back();
}

JobProgress::Snapshot JobProgress::snapshot() const
{
    const std::lock_guard lock(m_mutex);
    const Step& step = m_steps.empty() ? m_last : m_steps.back();
    return { QString::fromStdString(step.label), step.done, step.total };
}

void showJobProgress(QProgressBar* bar, const QString& label, quint64 done, quint64 total)
{
    bar->setFormat(label + (total ? QStringLiteral(" %v/%m") : QString()));
    bar->setRange(0, total ? int(std::min<quint64>(total, INT_MAX)) : 0);
    if (total)
        bar->setValue(int(std::min<quint64>(std::min(done, total), INT_MAX)));
}

} // namespace tgraph::widgets
