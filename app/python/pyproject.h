// SPDX-License-Identifier: Apache-2.0
#pragma once
#include <pybind11/pybind11.h>

namespace tgraph::python {
// tgraph.Project (docs/python.md §7): a .tgproj file's runs, parameters and metric histories.
void bindProject(pybind11::module_& module);
} // namespace tgraph::python
