// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/store/project.h"

#include <memory>
#include <string>
#include <vector>

namespace tgraph::studio {

// What the studio's sidebar shows of an opened project file (.tgproj): its experiments and runs.
struct ProjectInfo
{
    std::string path;
    std::vector<std::string> experiments;
    std::vector<tgraph::RunRecord> runs; // newest first
};
using ProjectInfoPtr = std::shared_ptr<const ProjectInfo>;

// True for `.tgproj` files and SQLite databases (checked by name and header).
bool isProjectFile(const std::string& path);
// Reads a project (read-only, never modifying it). Throws InputError naming the file.
ProjectInfoPtr readProjectInfo(const std::string& path);

} // namespace tgraph::studio
