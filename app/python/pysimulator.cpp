// SPDX-License-Identifier: Apache-2.0
// tgraph.Simulator and tgraph.simulate (docs/python.md §4.2): the analytical cost simulator
// (docs/simulator.md) pricing layout configurations of a module, results as numpy arrays.
#include "app/python/pysimulator.h"
#include "app/python/pyarrays.h"
#include "app/python/pygraph.h"
#include "app/python/pyhlo.h"

#include "core/graph/configs.h"
#include "core/hlo/featurizer.h"
#include "core/sim/layoutcandidates.h"
#include "core/sim/simulator.h"
#include "core/synth/simulatedgraph.h"
#include "core/util/error.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>

namespace tgraph::python {

namespace {

SimulatorParams paramsFrom(const py::object& params)
{
    SimulatorParams out;
    if (params.is_none())
        return out;
    std::string text;
    if (py::isinstance<py::dict>(params)) {
        for (auto item : params.cast<py::dict>()) {
            if (!text.empty())
                text += ',';
            text += std::string(py::str(item.first)) + "=" + std::string(py::str(item.second));
        }
    } else {
        text = params.cast<std::string>();
    }
    std::string error;
    if (!out.assign(text, &error))
        throw py::value_error("simulator params: " + error);
    return out;
}

LayoutSampler samplerFrom(const std::string& text)
{
    LayoutSampler sampler;
    if (!parseLayoutSampler(text, &sampler))
        throw py::value_error("sampler must be 'random' or 'default', not '" + text + "'");
    return sampler;
}

class Simulator
{
public:
    Simulator(const ModuleData& module, const py::object& configurable, const py::object& params)
        : m_module(module)
        , m_params(paramsFrom(params))
    {
        if (configurable.is_none()) {
            m_configurable = defaultConfigurableNodes(module.module());
        } else {
            auto ids = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(configurable);
            if (!ids || ids.ndim() != 1)
                throw py::value_error("configurable_nodes must be a 1-d sequence of node positions");
            m_configurable.assign(ids.data(), ids.data() + ids.size());
        }
        const int64_t n = int64_t(module.module().instructions.size());
        for (size_t k = 0; k < m_configurable.size(); ++k)
            if (m_configurable[k] < 0 || m_configurable[k] >= n)
                throw InputError(module.source, "configurable_nodes[" + std::to_string(k) + "]",
                    "node " + std::to_string(m_configurable[k]) + " out of range [0, " + std::to_string(n) + ")");
        if (m_configurable.empty())
            throw InputError(module.source, "module " + std::string(module.module().name),
                "has no configurable node (convolution, dot or reshape) to simulate");
        py::gil_scoped_release release;
        m_sim = std::make_unique<LayoutSimulator>(module.module(), m_configurable, m_params);
    }

    int64_t configurableCount() const { return int64_t(m_configurable.size()); }
    py::array configurableNodes() const { return copiedArray<int64_t>(m_configurable); }

    py::array candidates(int64_t count, const std::string& samplerText, uint64_t seed, bool guided) const
    {
        if (count < 1)
            throw py::value_error("count must be at least 1");
        const LayoutSampler sampler = samplerFrom(samplerText);
        NdArray<float> configs = [&] {
            py::gil_scoped_release release;
            std::function<double(const float*)> cost;
            if (guided)
                cost = [&](const float* row) { return m_sim->runtime(row); };
            return sampleLayoutConfigs(layoutChoices(m_module.module(), m_configurable), count, sampler, seed,
                m_module.source, uint64_t(8) << 30, cost);
        }();
        return ownedArray(std::move(configs));
    }

    // (C, Nc, 18) or one (Nc, 18) row, as float32 C-ordered, checked against the module's Nc.
    NdArray<float> configsFrom(const py::object& object, bool* single) const
    {
        auto a = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(object);
        if (!a)
            throw py::type_error("configs must be an array of layout values");
        const int64_t nc = configurableCount();
        *single = a.ndim() == 2;
        if (!((a.ndim() == 3 || a.ndim() == 2) && a.shape(a.ndim() - 1) == kLayoutConfigFeatures
                && a.shape(a.ndim() - 2) == nc))
            throw InputError(
                m_module.source, "configs",
                "shape (" +
                    [&] {
                        std::string s;
                        for (py::ssize_t i = 0; i < a.ndim(); ++i)
                            s += (i ? ", " : "") + std::to_string(a.shape(i));
                        return s;
                    }()
                    + ") is not (C, " + std::to_string(nc) + ", 18) or (" + std::to_string(nc) + ", 18)");
        const int64_t rows = *single ? 1 : a.shape(0);
        NdArray<float> out({ rows, nc, kLayoutConfigFeatures });
        if (out.size())
            std::memcpy(out.data(), a.data(), size_t(out.size()) * sizeof(float));
        const int64_t bad = findInvalidLayoutValue(out.data(), out.size());
        if (bad >= 0) {
            const int64_t per = nc * kLayoutConfigFeatures;
            throw InputError(m_module.source,
                "configs[" + std::to_string(bad / per) + ", " + std::to_string(bad % per / kLayoutConfigFeatures) + ", "
                    + std::to_string(bad % kLayoutConfigFeatures) + "]",
                "value " + std::to_string(out.data()[bad]) + " is not a layout value (an integer -1..5)");
        }
        return out;
    }

    py::object runtime(const py::object& configs) const
    {
        bool single = false;
        const NdArray<float> rows = configsFrom(configs, &single);
        std::vector<double> ns(size_t(rows.dim(0)));
        {
            py::gil_scoped_release release;
            for (int64_t c = 0; c < rows.dim(0); ++c)
                ns[size_t(c)] = m_sim->runtime(rows.row(c));
        }
        if (single)
            return py::float_(ns.front());
        return ownedArray(std::move(ns));
    }

    py::tuple measure(const py::object& configs, uint64_t seed) const
    {
        bool single = false;
        const NdArray<float> rows = configsFrom(configs, &single);
        std::vector<bool> failed;
        std::vector<int64_t> ns = [&] {
            py::gil_scoped_release release;
            return m_sim->measure(rows, seed, &failed);
        }();
        return py::make_tuple(ownedArray(std::move(ns)), copiedArray<bool>(failed));
    }

    py::array breakdown(const py::object& config) const
    {
        bool single = false;
        const NdArray<float> rows = configsFrom(config, &single);
        if (!single)
            throw py::value_error("breakdown takes one configuration (Nc, 18)");
        std::vector<double> ns = [&] {
            py::gil_scoped_release release;
            return m_sim->breakdown(rows.data());
        }();
        return ownedArray(std::move(ns));
    }

private:
    ModuleData m_module;
    SimulatorParams m_params;
    std::vector<int64_t> m_configurable;
    std::unique_ptr<LayoutSimulator> m_sim;
};

// What `tgraph simulate MODULE -o OUT.npz` writes for one module (core/synth/simulatedgraph.h).
GraphPtr simulate(
    const ModuleData& m, int64_t count, const std::string& samplerText, uint64_t seed, const py::object& paramsObject)
{
    const SimulatorParams params = paramsFrom(paramsObject);
    const LayoutSampler sampler = samplerFrom(samplerText);
    if (count < 2)
        throw py::value_error("configs must be at least 2");
    py::gil_scoped_release release;
    LayoutGraph graph = simulateModuleGraph(*m.data, m.source, count, sampler, seed, params).graph;
    validate(graph, m.source, 0);
    GraphPtr g = makeGraph(std::move(graph), m.source);
    g->module = m.data;
    return g;
}

} // namespace

void bindSimulator(py::module_& m)
{
    py::class_<Simulator>(m, "Simulator",
        "The analytical cost simulator (docs/simulator.md) prepared for one module: prices layout\n"
        "configurations (C, Nc, 18) of its configurable nodes. Runtimes are synthetic nanoseconds.")
        .def(py::init<const ModuleData&, const py::object&, const py::object&>(), py::arg("module"),
            py::arg("configurable_nodes") = py::none(), py::arg("params") = py::none(),
            "configurable_nodes: node positions (default: the module's convolutions, dots and reshapes);\n"
            "params: 'name=value,...' or a dict of simulator parameters (tgraph synth --explain names them).")
        .def_property_readonly("configurable_nodes", &Simulator::configurableNodes)
        .def("candidates", &Simulator::candidates, py::arg("count"), py::kw_only(), py::arg("sampler") = "random",
            py::arg("seed") = 1, py::arg("guided") = true,
            "Up to `count` distinct layout configurations float32 (C, Nc, 18), row 0 the compiler default\n"
            "(all -1); 'default' sampler: a local search from the default, guided by the simulator's cost.")
        .def("runtime", &Simulator::runtime, py::arg("configs"),
            "Noise-free runtimes in ns: float64 (C,) for configs (C, Nc, 18), a float for one (Nc, 18).")
        .def("measure", &Simulator::measure, py::arg("configs"), py::kw_only(), py::arg("seed") = 1,
            "Simulated measurements (noise, failures; row 0 never fails): (int64 ns (C,), bool failed (C,)).")
        .def("breakdown", &Simulator::breakdown, py::arg("config"),
            "Per-instruction ns of one configuration (Nc, 18), while trip counts included: float64 (N,).");

    m.def("simulate", &simulate, py::arg("module"), py::kw_only(), py::arg("configs") = 200,
        py::arg("sampler") = "random", py::arg("seed") = 1, py::arg("params") = py::none(),
        "The module's layout graph with simulated runtimes, exactly what `tgraph simulate MODULE -o G.npz`\n"
        "writes: a module without runs gets `configs` sampled configurations (failed ones dropped), a\n"
        "tuning record's configurations are priced.");
}

} // namespace tgraph::python
