// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QWidget>

namespace tgraph::studio {

class TrainingMonitor;

class StudioSession;

// The Runs page (docs/studio.md §0, §2): the training monitor of the project opened last, the
// whole page for its run table, curves and logs. A run's weights offered here ("Open in
// Inference") go to every analysis view through the session.
class RunsPage : public QWidget
{
    Q_OBJECT
public:
    explicit RunsPage(StudioSession* session, QWidget* parent = nullptr);
    TrainingMonitor* monitor() const { return m_monitor; }

private:
    void onSnapshot();

    StudioSession* m_session;
    TrainingMonitor* m_monitor;
};

} // namespace tgraph::studio
