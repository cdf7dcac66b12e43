// SPDX-License-Identifier: Apache-2.0
#pragma once
#include <pybind11/pybind11.h>

namespace tgraph::python {
// tgraph.Model, tgraph.Scores, tgraph.Explanation (docs/python.md §5): model/facade's ensembles.
void bindModel(pybind11::module_& module);
} // namespace tgraph::python
