// SPDX-License-Identifier: Apache-2.0
#pragma once
#include <pybind11/pybind11.h>

namespace tgraph::python {
void bindSimulator(pybind11::module_& module);
}
