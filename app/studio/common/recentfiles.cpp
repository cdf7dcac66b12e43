// SPDX-License-Identifier: Apache-2.0
#include "app/studio/common/recentfiles.h"

#include <QFileInfo>
#include <QSettings>

namespace tgraph::studio {

namespace {
const QString kKey = QStringLiteral("RecentFiles/files");
}

RecentFiles::RecentFiles(QObject* parent)
    : QObject(parent)
{ }

void RecentFiles::add(const QString& path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList files = load();
    files.removeAll(absolute);
    files.prepend(absolute);
    store(files);
}

void RecentFiles::remove(const QString& path)
{
    QStringList files = load();
    if (files.removeAll(QFileInfo(path).absoluteFilePath()) > 0)
        store(files);
}

void RecentFiles::clear() { store({}); }

QStringList RecentFiles::files()
{
    const QStringList stored = load();
    QStringList existing;
    for (const QString& file : stored) {
        if (QFileInfo(file).isFile() || QFileInfo(file).isDir())
            existing.append(file);
    }
    if (existing != stored)
        store(existing);
    return existing;
}

QStringList RecentFiles::load()
{
    QStringList files = QSettings().value(kKey).toStringList();
    files.removeAll(QString());
    files.removeDuplicates();
    return files.mid(0, maxCount());
}

void RecentFiles::store(const QStringList& files)
{
    const QStringList limited = files.mid(0, maxCount());
    QSettings settings;
    if (settings.value(kKey).toStringList() == limited)
        return;
    if (limited.isEmpty())
        settings.remove(kKey);
    else
        settings.setValue(kKey, limited);
    Q_EMIT changed();
}

} // namespace tgraph::studio
