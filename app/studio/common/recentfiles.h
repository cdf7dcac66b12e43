// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QObject>
#include <QStringList>

namespace tgraph::studio {

// The most recently opened files (and dump folders), newest first, kept in QSettings. Those that no longer exist
// are dropped whenever the list is read.
class RecentFiles : public QObject
{
    Q_OBJECT
public:
    explicit RecentFiles(QObject* parent = nullptr);

    static constexpr int maxCount() { return 10; }

    // Moves `path` (made absolute) to the front.
    void add(const QString& path);
    void remove(const QString& path);
    void clear();
    // The existing files, newest first; prunes the stored list of vanished ones.
    QStringList files();

Q_SIGNALS:
    void changed();

private:
    static QStringList load();
    void store(const QStringList& files);
};

} // namespace tgraph::studio
