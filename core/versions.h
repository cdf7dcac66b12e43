// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

namespace tgraph {

// Versions of the libraries core links, as reported by the libraries at run time.
std::string projectVersion();
std::string sqliteVersion();
std::string graphvizVersion();
std::string zlibVersion();

} // namespace tgraph
