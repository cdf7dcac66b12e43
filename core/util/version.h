// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

namespace tgraph {

// This project's version (CMake's project(VERSION)). The libraries' own versions are reported by
// the rooms that link them: zlibVersion() (core/io/npz.h), sqliteVersion() (core/store/sqlitedb.h),
// graphvizVersion() (core/view/graphlayout.h).
std::string projectVersion();

} // namespace tgraph
