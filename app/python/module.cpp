// SPDX-License-Identifier: Apache-2.0
// `import tgraph`: TGraph Studio's readers, simulator, models and projects for Python
// (docs/python.md). Built by CMake as tgraph.cpython-*.so (target tgraph_python); the model side
// goes through model/facade's torch-free headers, so no TU of this room includes LibTorch.
#include "app/python/pyarrays.h"
#include "app/python/pyerrors.h"
#include "app/python/pygraph.h"
#include "app/python/pyhlo.h"
#include "app/python/pymodel.h"
#include "app/python/pyproject.h"
#include "app/python/pysimulator.h"

#include "core/metrics/metrics.h"
#include "core/util/version.h"

#include <span>

namespace {

namespace py = pybind11;

// Paired 1-d float64 copies of two array-likes of the same length.
std::pair<std::vector<double>, std::vector<double>> pairOf(const py::object& x, const py::object& y)
{
    auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(x);
    auto b = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(y);
    if (!a || !b || a.ndim() != 1 || b.ndim() != 1)
        throw py::value_error("expected two 1-d arrays of numbers");
    return { std::vector<double>(a.data(), a.data() + a.size()), std::vector<double>(b.data(), b.data() + b.size()) };
}

} // namespace

PYBIND11_MODULE(tgraph, m)
{
    using namespace tgraph::python;
    m.doc() = "TGraph Studio for Python: TpuGraphs graphs as numpy arrays without copies, HLO modules (text\n"
              "and protobuf), the featurizer, the layout simulator, TGraph models and ensembles, projects.\n"
              "See docs/python.md.";
    m.attr("__version__") = tgraph::projectVersion();
    bindErrors(m);
    bindGraph(m);
    bindHlo(m);
    bindSimulator(m);
    bindModel(m);
    bindProject(m);

    m.def(
        "kendall_tau",
        [](const py::object& x, const py::object& y) {
            auto [a, b] = pairOf(x, y);
            return tgraph::kendallTauB(a, b);
        },
        py::arg("x"), py::arg("y"), "Kendall tau-b with tie correction (scipy.stats.kendalltau), NaN when constant");
    m.def(
        "ordered_pair_accuracy",
        [](const py::object& runtimes, const py::object& scores) {
            auto [a, b] = pairOf(runtimes, scores);
            return tgraph::orderedPairAccuracy(a, b);
        },
        py::arg("runtimes"), py::arg("scores"), "share of runtime-ordered pairs the scores order the same way");
    m.def(
        "top_k_slowdown",
        [](const py::object& runtimes, const py::object& scores, int k) {
            auto [a, b] = pairOf(runtimes, scores);
            return tgraph::topKSlowdown(a, b, k);
        },
        py::arg("runtimes"), py::arg("scores"), py::arg("k") = 1,
        "(best runtime among the k lowest scores - best runtime) / best runtime");
}
