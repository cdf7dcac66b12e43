// SPDX-License-Identifier: Apache-2.0
#pragma once
// tgraph.Module, parse_hlo, read_hlo, featurize (docs/python.md §4): HLO modules as text or
// protobuf, with their tuning runs, and their TpuGraphs graphs.
#include "core/hlo/hlomodule.h"

#include <pybind11/pybind11.h>

#include <memory>
#include <string>

namespace tgraph::python {

namespace py = pybind11;

struct ModuleData
{
    std::shared_ptr<const ModuleTuningData> data;
    std::string source; // the file, or the name given to parse_hlo
    HloSourceFormat format = HloSourceFormat::Text;

    const HloModule& module() const { return data->module; }
};

void bindHlo(py::module_& module);

} // namespace tgraph::python
