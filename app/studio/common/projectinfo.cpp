// SPDX-License-Identifier: Apache-2.0
#include "app/studio/common/projectinfo.h"

#include "core/util/error.h"
#include "core/store/sqlitedb.h"

#include <QString>

namespace tgraph::studio {

bool isProjectFile(const std::string& path)
{
    const QString name = QString::fromStdString(path);
    if (name.endsWith(QStringLiteral(".tgproj"), Qt::CaseInsensitive))
        return true;
    // Through SQLite's file layer: a plain close of a project this process has open would drop
    // its connections' locks (SqliteDb::readFileHead).
    try {
        return tgraph::SqliteDb::readFileHead(path, 16) == std::string("SQLite format 3\0", 16);
    } catch (const tgraph::InputError&) {
        return false;
    }
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

} // namespace tgraph::studio
