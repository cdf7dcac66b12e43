// SPDX-License-Identifier: Apache-2.0
#pragma once
// Python exceptions of the module (docs/python.md §6): tgraph.InputError, a ValueError carrying
// the file, the place and the problem of core/util's InputError, the same text as the CLI prints.
#include <pybind11/pybind11.h>

namespace tgraph::python {

namespace py = pybind11;

// Creates tgraph.InputError in `module` and registers the translators of the C++ exceptions.
void bindErrors(py::module_& module);

} // namespace tgraph::python
