// SPDX-License-Identifier: Apache-2.0
#include "projectinfo.h"

#include <QFile>
#include <QString>

bool isProjectFile(const std::string& path)
{
    const QString name = QString::fromStdString(path);
    if (name.endsWith(QStringLiteral(".tgproj"), Qt::CaseInsensitive))
        return true;
    QFile file(name);
    return file.open(QIODevice::ReadOnly) && file.read(16) == QByteArray("SQLite format 3\0", 16);
}

ProjectInfoPtr readProjectInfo(const std::string& path)
{
    const tgraph::Project project = tgraph::Project::open(path, tgraph::Project::Access::Read);
    auto info = std::make_shared<ProjectInfo>();
    info->path = path;
    info->experiments = project.experiments();
    info->runs = project.runs();
    return info;
}
