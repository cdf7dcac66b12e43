// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/dump/dumpindex.h"

#include <QObject>
#include <QString>

#include <memory>

class QTimer;

namespace tgraph {
class DumpFolder;
}

namespace tgraph::widgets {
class JobChannel;
}

namespace tgraph::studio {

using DumpIndexPtr = std::shared_ptr<const tgraph::DumpIndex>;

// Whether `folder` holds files named as XLA names its dump files (docs/formats.md §17.1): the
// studio opens such a folder on the Passes page, any other one as a TpuGraphs collection.
bool looksLikeDumpFolder(const QString& folder);

// An XLA dump folder followed while a program may still write into it (docs/studio.md §10):
// listed and indexed from its names on the io lane of the job tracker when opened and then every
// pollInterval(), one listing at a time; indexChanged() brings a fresh copy of the index when
// anything in the folder changed.
class DumpFollower : public QObject
{
    Q_OBJECT
public:
    explicit DumpFollower(QObject* parent = nullptr);
    ~DumpFollower() override; // cancels and waits for a running listing

    // Follows `folder` (made absolute) instead of the one before; lists it at once.
    void open(const QString& folder);
    void close();
    // Lists the folder now unless a listing is running.
    void rescan();

    QString folder() const { return m_path; }
    const DumpIndexPtr& index() const { return m_index; }
    bool isScanning() const;

    static constexpr int kPollMs = 2000;
    void setPollInterval(int ms);
    int pollInterval() const;

Q_SIGNALS:
    // `first`: the first listing of a newly opened folder.
    void indexChanged(const tgraph::studio::DumpIndexPtr& index, bool first);
    // A listing failed (the folder vanished, became unreadable): once until one succeeds again.
    void failed(const QString& message);

private:
    widgets::JobChannel* m_channel = nullptr;
    QTimer* m_timer = nullptr;
    std::shared_ptr<tgraph::DumpFolder> m_folder;
    DumpIndexPtr m_index;
    QString m_path;
    bool m_failing = false;
};

} // namespace tgraph::studio
