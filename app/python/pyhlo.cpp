// SPDX-License-Identifier: Apache-2.0
#include "app/python/pyhlo.h"

#include "app/python/pyarrays.h"
#include "app/python/pygraph.h"

#include "core/hlo/featurizer.h"
#include "core/hlo/hloinput.h"
#include "core/hlo/hloproto.h"
#include "core/hlo/hlotext.h"
#include "core/hlo/hloverify.h"
#include "core/util/error.h"

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <filesystem>
#include <span>

namespace tgraph::python {

namespace {

std::vector<ModuleData> modulesOf(
    std::vector<ModuleTuningData>&& modules, const std::string& source, HloSourceFormat format)
{
    std::vector<ModuleData> out;
    for (ModuleTuningData& d : modules) {
        if (!d.hasModule)
            continue; // a tuning record entry without its module: nothing to work on
        out.push_back({ std::make_shared<const ModuleTuningData>(std::move(d)), source, format });
    }
    if (out.empty())
        throw InputError(source, "", "holds no HLO module");
    return out;
}

// Text (a str, or bytes that read as HLO text) or any of the protobuf containers (bytes).
std::vector<ModuleData> parseModules(py::object input, const std::string& name)
{
    std::string bytes;
    bool text = false;
    if (py::isinstance<py::str>(input)) {
        bytes = input.cast<std::string>();
        text = true;
    } else if (py::isinstance<py::bytes>(input) || py::isinstance<py::bytearray>(input)
        || py::isinstance<py::memoryview>(input)) {
        auto copy = py::reinterpret_steal<py::bytes>(PyBytes_FromObject(input.ptr()));
        if (!copy)
            throw py::error_already_set();
        bytes = copy.cast<std::string>();
        text = looksLikeHloText(bytes);
    } else {
        throw py::type_error("parse_hlo takes str (HLO text) or bytes (HLO text or a serialized protobuf), not "
            + std::string(py::str(input.get_type().attr("__name__"))));
    }
    py::gil_scoped_release release;
    if (text) {
        std::vector<ModuleTuningData> modules;
        for (HloModule& m : parseHloTextModules(bytes, name)) { // verified by the parser
            ModuleTuningData d;
            d.hasModule = true;
            d.module = std::move(m);
            modules.push_back(std::move(d));
        }
        if (modules.empty())
            throw InputError(name, "", "holds no HLO module (only whitespace and comments)");
        return modulesOf(std::move(modules), name, HloSourceFormat::Text);
    }
    HloProtoFile proto = readHloProto(std::as_bytes(std::span(bytes.data(), bytes.size())), name);
    for (const ModuleTuningData& d : proto.modules)
        if (d.hasModule)
            verifyHloModule(d.module, name);
    return modulesOf(std::move(proto.modules), name, proto.format);
}

ModuleData parseOne(py::object input, const std::string& name)
{
    std::vector<ModuleData> modules = parseModules(std::move(input), name);
    if (modules.size() != 1)
        throw InputError(
            name, "", "holds " + std::to_string(modules.size()) + " modules; parse_hlo_modules() returns them all");
    return std::move(modules.front());
}

std::vector<ModuleData> readModules(const std::filesystem::path& path)
{
    const std::string file = path.string();
    py::gil_scoped_release release;
    HloInputFile in = readHloInput(file);
    return modulesOf(std::move(in.modules), file, in.format);
}

GraphPtr featurize(const ModuleData& m, const std::optional<std::string>& collection, bool sortEdges, bool repad)
{
    GraphKind kind = GraphKind::Layout;
    if (collection) {
        if (*collection == "tile")
            kind = GraphKind::Tile;
        else if (*collection != "layout")
            throw py::value_error("collection must be 'layout', 'tile' or None, not '" + *collection + "'");
    }
    FeaturizeOptions options;
    options.sortEdges = sortEdges;
    options.repad = repad;
    FeaturizedModule f = [&] {
        py::gil_scoped_release release;
        return featurizeModule(*m.data, m.source, collection ? &kind : nullptr, options);
    }();
    GraphPtr g
        = f.kind == GraphKind::Tile ? makeGraph(std::move(f.tile), m.source) : makeGraph(std::move(f.layout), m.source);
    if (f.kind == GraphKind::Layout)
        g->module = m.data;
    return g;
}

} // namespace

void bindHlo(py::module_& m)
{
    py::class_<ModuleData>(m, "Module",
        "An HLO module (from text or a protobuf: HloModuleProto, HloProto, HloSnapshot, or a tuning\n"
        "record's ModuleTuningData with its runs), verified as XLA's parser would. Immutable.")
        .def_property_readonly("name", [](const ModuleData& d) { return std::string(d.module().name); })
        .def_property_readonly(
            "entry", [](const ModuleData& d) { return std::string(d.module().entryComputationName); },
            "the entry computation's name")
        .def_readonly("source", &ModuleData::source, "the file, or the name given to parse_hlo")
        .def_property_readonly(
            "format", [](const ModuleData& d) { return std::string(hloSourceFormatName(d.format)); },
            "'HLO text', 'xla.HloModuleProto', ... as tgraph inspect names it")
        .def_property_readonly("instruction_count", [](const ModuleData& d) { return d.module().instructions.size(); })
        .def_property_readonly("computation_count", [](const ModuleData& d) { return d.module().computations.size(); })
        .def_property_readonly(
            "run_count", [](const ModuleData& d) { return d.data->runs.size(); }, "tuning runs of a tuning record")
        .def_property_readonly(
            "collection", [](const ModuleData& d) { return std::string(graphKindName(collectionOf(*d.data))); },
            "'tile' when its runs carry tile sizes, else 'layout'")
        .def_property_readonly(
            "instruction_names",
            [](const ModuleData& d) {
                std::vector<std::string> names;
                names.reserve(d.module().instructions.size());
                for (const HloInstruction& i : d.module().instructions)
                    names.emplace_back(i.name);
                return names;
            },
            "every instruction's name in node order (= the featurized graph's nodes)")
        .def_property_readonly(
            "configurable_nodes", [](const ModuleData& d) { return ownedArray(defaultConfigurableNodes(d.module())); },
            "node positions of its convolutions, dots and reshapes (docs/formats.md §2.6)")
        .def_property_readonly(
            "warnings", [](const ModuleData& d) { return d.module().warnings; }, "non-fatal oddities met while reading")
        .def(
            "to_proto", [](const ModuleData& d) { return py::bytes(encodeHloModuleProto(d.module())); },
            "the module as a serialized xla.HloModuleProto (the fields this library reads)")
        .def("featurize", &featurize, py::kw_only(), py::arg("collection") = py::none(), py::arg("sort_edges") = true,
            py::arg("repad") = false, "as tgraph.featurize(module)")
        .def("__repr__", [](const ModuleData& d) {
            return "<tgraph.Module " + std::string(d.module().name) + ": "
                + std::to_string(d.module().instructions.size()) + " instructions, "
                + std::to_string(d.module().computations.size()) + " computations, "
                + std::to_string(d.data->runs.size()) + " runs>";
        });

    m.def("parse_hlo", &parseOne, py::arg("data"), py::kw_only(), py::arg("name") = "<string>",
        "One HLO module from a str (HLO text, as jax's .as_text() returns it) or bytes (HLO text, or a\n"
        "serialized HloModuleProto / HloProto / HloSnapshot / ModuleTuningData, told from the content).\n"
        "`name` stands for the file in errors. InputError names the line and column (text) or the byte\n"
        "offset and field (protobuf). The GIL is released while it parses.");
    m.def("parse_hlo_modules", &parseModules, py::arg("data"), py::kw_only(), py::arg("name") = "<string>",
        "Every module of text with '// -----' separators or of a TuningData protobuf.");
    m.def("read_hlo", &readModules, py::arg("path"),
        "Every module of an HLO file (text, protobuf or tuning record), as `tgraph inspect` reads it.");
    m.def("featurize", &featurize, py::arg("module"), py::kw_only(), py::arg("collection") = py::none(),
        py::arg("sort_edges") = true, py::arg("repad") = false,
        "The module's TpuGraphs graph, as `tgraph convert` makes it: a layout graph (its tuning runs as\n"
        "configurations, or none: configurable nodes only) or a tile graph (runs with tile sizes).\n"
        "collection='layout'|'tile' forces one; repad pads fixed-length fields with -1 (docs/model.md §2.1).");
}

} // namespace tgraph::python
