// SPDX-License-Identifier: Apache-2.0
// tgraph.Model (docs/python.md §5): weights files, checkpoints and ensembles loaded through
// model/facade (torch-free headers: this room compiles without LibTorch), scoring and explaining
// graphs with the GIL released, progress reported and Ctrl+C honoured (pyprogress.h).
#include "app/python/pymodel.h"

#include "app/python/pyarrays.h"
#include "app/python/pygraph.h"
#include "app/python/pyhlo.h"
#include "app/python/pyprogress.h"

#include "core/graph/prune.h"
#include "core/io/npz.h"
#include "core/util/error.h"
#include "model/facade/ensemble.h"
#include "model/facade/explanation.h"
#include "model/facade/runtime.h"

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <filesystem>
#include <mutex>
#include <optional>

namespace tgraph::python {

namespace {

std::once_flag g_runtimeOnce;
int g_threads = 0;
Precision g_precision = Precision::Auto;
bool g_runtimeStarted = false;

void startRuntime()
{
    std::call_once(g_runtimeOnce, [] {
        g_threads = facade::initRuntime(g_threads, g_precision);
        g_runtimeStarted = true;
    });
}

std::vector<std::string> weightsList(const py::object& weights)
{
    std::vector<std::string> paths;
    if (py::isinstance<py::str>(weights) || py::hasattr(weights, "__fspath__"))
        paths.push_back(py::str(py::module_::import("os").attr("fspath")(weights)));
    else
        for (py::handle w : weights)
            paths.push_back(py::str(py::module_::import("os").attr("fspath")(w)));
    if (paths.empty())
        throw py::value_error("Model.load needs at least one weights file");
    return paths;
}

tgraph::InferenceOptions inferenceOptions(int64_t batchConfigs, int tta, uint64_t ttaSeed, bool attention)
{
    if (batchConfigs < 1)
        throw py::value_error("batch_configs must be at least 1");
    if (tta < 0 || tta > 10000)
        throw py::value_error("tta must be in 0..10000");
    tgraph::InferenceOptions o;
    o.batchConfigs = batchConfigs;
    o.tta = tta;
    o.ttaSeed = ttaSeed;
    o.attention = attention;
    return o;
}

ConfigSelector selectorFrom(const py::object& value, const char* which)
{
    ConfigSelector s;
    if (py::isinstance<py::int_>(value)) {
        s.role = ConfigRole::Index;
        s.index = value.cast<int64_t>();
        return s;
    }
    if (py::isinstance<py::str>(value) && parseConfigSelector(value.cast<std::string>(), &s))
        return s;
    throw py::value_error(std::string(which) + " must be a config index or 'fastest', 'slowest' or 'default', not "
        + std::string(py::repr(value)));
}

py::list attentionOf(const std::vector<AttentionMaps>& members)
{
    py::list out;
    for (const AttentionMaps& maps : members) {
        py::list layers;
        for (const LayerAttention& l : maps.layers) {
            py::dict d;
            d["layer"] = l.layer;
            auto matrix = [](const std::vector<float>& v, int64_t rows, int64_t cols) -> py::object {
                if (v.empty())
                    return py::none();
                NdArray<float> a({ rows, cols });
                std::copy(v.begin(), v.end(), a.data());
                return ownedArray(std::move(a));
            };
            d["gate"] = matrix(l.gate, l.configs, l.channels);
            d["cross"] = matrix(l.cross, l.configs, l.channels);
            d["node_gate"] = l.hasNodeMaps() ? matrix(l.nodeGate, l.configs, l.nodes) : py::none();
            d["node_cross"] = l.hasNodeMaps() ? matrix(l.nodeCross, l.configs, l.nodes) : py::none();
            layers.append(d);
        }
        out.append(layers);
    }
    return out;
}

class Model
{
public:
    static std::shared_ptr<Model> load(const py::object& weights)
    {
        auto model = std::make_shared<Model>();
        model->m_paths = weightsList(weights);
        py::gil_scoped_release release;
        startRuntime();
        model->m_paths = facade::expandWeightsArguments(model->m_paths);
        model->m_ensemble = facade::Ensemble::load(model->m_paths);
        return model;
    }

    std::string kind() const { return graphKindName(m_ensemble.kind()); }
    size_t size() const { return m_ensemble.size(); }
    const std::vector<std::string>& paths() const { return m_paths; }

    GraphScores score(const py::object& input, const tgraph::InferenceOptions& options, py::object callback)
    {
        PythonProgress progress(std::move(callback));
        if (py::isinstance<GraphData>(input)) {
            GraphPtr g = input.cast<GraphPtr>();
            return withoutGil(progress, [&] {
                std::lock_guard lock(m_mutex);
                return scoreGraph(*g, options, progress);
            });
        }
        const std::string path = py::str(py::module_::import("os").attr("fspath")(input));
        return withoutGil(progress, [&] {
            std::lock_guard lock(m_mutex);
            int64_t configs = 0; // the progress total from the file's header, as tgraph predict counts it
            {
                NpzReader npz(path);
                if (npz.contains("config_runtime")) {
                    const auto shape = npz.header("config_runtime").shape;
                    configs = shape.empty() ? 1 : shapeElementCount(shape);
                }
            }
            ProgressScope scope(&progress, "scoring", uint64_t(m_ensemble.inferencePasses(configs, options)));
            return m_ensemble.predictFile(path, options, &scope);
        });
    }

    Attribution explain(const GraphPtr& graph, const py::object& a, const py::object& b, int64_t batchConfigs,
        bool counterfactuals, bool gradients, bool rankAll, const py::object& module, const std::string& params,
        py::object callback)
    {
        const ConfigSelector selectorA = selectorFrom(a, "a");
        const ConfigSelector selectorB = selectorFrom(b, "b");
        if (batchConfigs < 1)
            throw py::value_error("batch_configs must be at least 1");
        std::shared_ptr<const HloModule> hlo;
        if (!module.is_none()) {
            const ModuleData& m = module.cast<const ModuleData&>();
            hlo = std::shared_ptr<const HloModule>(m.data, &m.data->module);
        } else if (graph->module) {
            hlo = std::shared_ptr<const HloModule>(graph->module, &graph->module->module);
        }
        PythonProgress progress(std::move(callback));
        return withoutGil(progress, [&] {
            std::lock_guard lock(m_mutex);
            const GraphData& g = *graph;
            if (g.kind != GraphKind::Layout)
                throw InputError(
                    g.source, "", "is a tile graph; explain compares layout configurations of layout graphs");
            if (g.layout.configurableCount() == 0)
                throw InputError(
                    g.source, "node_config_ids", "the graph has no configurable nodes: there is nothing to explain");
            const PrunedGraph pruned = pruneToConfigurable(g.layout, g.source);
            ExplainFileOptions options;
            options.explain.batchConfigs = batchConfigs;
            options.explain.counterfactuals = counterfactuals;
            options.explain.gradients = gradients;
            options.rankAll = rankAll;
            options.simulatorParams = params;
            return facade::explainLayoutGraph(
                m_ensemble, g.layout, pruned, g.source, selectorA, selectorB, options, hlo, nullptr, &progress);
        });
    }

private:
    GraphScores scoreGraph(const GraphData& g, const tgraph::InferenceOptions& options, PythonProgress& progress)
    {
        if (g.kind != m_ensemble.kind())
            throw InputError(g.source, "",
                std::string("is a ") + graphKindName(g.kind) + " graph but " + m_paths.front() + " holds a "
                    + graphKindName(m_ensemble.kind()) + "-model");
        const int64_t configs = g.configCount();
        if (configs < 2)
            throw InputError(g.source, "config_runtime",
                configs == 0 ? "the graph has no configurations to rank"
                             : "the graph has a single configuration; at least 2 are needed to rank configurations");
        ProgressScope scope(&progress, "scoring", uint64_t(m_ensemble.inferencePasses(configs, options)));
        if (g.kind == GraphKind::Tile)
            return m_ensemble.scoreTileGraph(g.tile, g.source, options, &scope);
        if (g.layout.configurableCount() == 0)
            throw InputError(
                g.source, "node_config_ids", "the graph has no configurable nodes: there is nothing to rank");
        std::string simInputs;
        PrunedGraph pruned;
        if (m_ensemble.takesSimInputs()) { // docs/model.md §4.9: priced on the graph's module
            LayoutGraph priced = g.layout;
            // An aliasing pointer to the featurized graph's module (kept alive by g.module).
            const std::shared_ptr<const HloModule> module = g.module && g.module->hasModule && !g.oldToNew
                ? std::shared_ptr<const HloModule>(g.module, &g.module->module)
                : nullptr;
            simInputs = m_ensemble.attachSimInputs(priced, g.source, module);
            pruned = pruneToConfigurable(priced, g.source);
        } else {
            pruned = pruneToConfigurable(g.layout, g.source); // as training and tgraph predict do
        }
        GraphScores scores = m_ensemble.scoreLayoutGraph(pruned.graph, g.source, options, &scope);
        scores.nodesBeforePruning = g.layout.nodeCount();
        scores.simInputs = simInputs;
        return scores;
    }

    facade::Ensemble m_ensemble;
    std::vector<std::string> m_paths;
    std::mutex m_mutex; // an ensemble is used from one thread at a time
};

py::dict nodeTable(const Attribution& at)
{
    const size_t n = at.nodes.size();
    std::vector<int64_t> node(n), fileNode(n), configurable(n), opcode(n);
    std::vector<double> shareA(n), shareB(n), effectA(n), effectB(n), effect(n), simA(n), simB(n), simEffect(n);
    std::vector<bool> differs(n);
    NdArray<int8_t> layoutA({ int64_t(n), 18 }), layoutB({ int64_t(n), 18 });
    NdArray<float> gradA({ int64_t(n), 18 }), gradB({ int64_t(n), 18 });
    std::vector<std::string> names(n);
    for (size_t i = 0; i < n; ++i) {
        const NodeAttribution& a = at.nodes[i];
        node[i] = a.node;
        fileNode[i] = a.fileNode;
        configurable[i] = a.configurable;
        opcode[i] = a.opcode;
        shareA[i] = a.shareA;
        shareB[i] = a.shareB;
        effectA[i] = a.effectOnA;
        effectB[i] = a.effectOnB;
        effect[i] = a.effect();
        simA[i] = a.simulatedA;
        simB[i] = a.simulatedB;
        simEffect[i] = a.simulatedEffect();
        differs[i] = a.layoutDiffers();
        std::copy(a.layoutA.begin(), a.layoutA.end(), layoutA.row(int64_t(i)));
        std::copy(a.layoutB.begin(), a.layoutB.end(), layoutB.row(int64_t(i)));
        std::copy(a.gradInputA.begin(), a.gradInputA.end(), gradA.row(int64_t(i)));
        std::copy(a.gradInputB.begin(), a.gradInputB.end(), gradB.row(int64_t(i)));
        names[i] = a.name;
    }
    py::dict d;
    d["node"] = ownedArray(std::move(node));
    d["file_node"] = ownedArray(std::move(fileNode));
    d["configurable"] = ownedArray(std::move(configurable));
    d["opcode"] = ownedArray(std::move(opcode));
    d["name"] = names;
    d["share_a"] = ownedArray(std::move(shareA));
    d["share_b"] = ownedArray(std::move(shareB));
    d["effect_on_a"] = ownedArray(std::move(effectA));
    d["effect_on_b"] = ownedArray(std::move(effectB));
    d["effect"] = ownedArray(std::move(effect));
    d["simulated_a"] = ownedArray(std::move(simA));
    d["simulated_b"] = ownedArray(std::move(simB));
    d["simulated_effect"] = ownedArray(std::move(simEffect));
    d["layout_differs"] = copiedArray<bool>(differs);
    return d;
}

} // namespace

void bindModel(py::module_& m)
{
    py::class_<GraphScores>(m, "Scores",
        "One graph's prediction: scores in configuration order (higher = predicted slower), the ranking\n"
        "(predicted fastest first), the file's runtimes, attention maps when asked for.")
        .def_readonly("file", &GraphScores::file)
        .def_readonly("name", &GraphScores::name)
        .def_property_readonly("kind", [](const GraphScores& s) { return std::string(graphKindName(s.kind)); })
        .def_readonly("nodes", &GraphScores::nodes, "nodes the model saw (layout: after pruning)")
        .def_readonly("nodes_before_pruning", &GraphScores::nodesBeforePruning)
        .def_property_readonly(
            "scores",
            [](py::object self) {
                const auto& s = self.cast<const GraphScores&>();
                return viewOf(s.scores.data(), { int64_t(s.scores.size()) }, self);
            },
            "float32 (C,), the mean of the members' raw scores, in configuration order")
        .def_property_readonly(
            "ranking",
            [](py::object self) {
                const auto& s = self.cast<const GraphScores&>();
                return viewOf(s.ranking.data(), { int64_t(s.ranking.size()) }, self);
            },
            "int64 (C,): configurations by ascending score, ties by index")
        .def_property_readonly(
            "runtimes",
            [](py::object self) {
                const auto& s = self.cast<const GraphScores&>();
                return viewOf(s.runtimes.data(), { int64_t(s.runtimes.size()) }, self);
            },
            "int64 (C,): config_runtime as in the graph (all 0 in a test split)")
        .def_property_readonly(
            "attention", [](const GraphScores& s) { return attentionOf(s.attention); },
            "per member, per layer: dict(layer, gate (C, channels), cross, node_gate (C, nodes), node_cross);\n"
            "arrays are None when not recorded (cross: without cross-attention)")
        .def(
            "metrics",
            [](const GraphScores& s, const std::string& targetText) {
                tgraph::TileTarget target;
                if (!parseTileTarget(targetText, &target))
                    throw py::value_error("target must be 'raw' or 'normalized'");
                const GraphMetrics g = evaluate(s, target);
                py::dict d;
                d["name"] = g.name;
                d["configs"] = g.configs;
                d["kendall_tau"] = g.kendallTau;
                d["opa"] = g.opa;
                d["slowdown1"] = g.slowdown1;
                d["slowdown5"] = g.slowdown5;
                d["slowdown10"] = g.slowdown10;
                if (s.kind == GraphKind::Tile)
                    d["tile_score"] = g.tileScore;
                return d;
            },
            py::arg("target") = "raw",
            "Kendall tau-b, ordered-pair accuracy and top-k slowdowns against the measured runtimes, as\n"
            "`tgraph eval` computes them (docs/model.md §7); InputError for a graph without runtimes.")
        .def("__len__", [](const GraphScores& s) { return s.scores.size(); })
        .def("__repr__", [](const GraphScores& s) {
            return "<tgraph.Scores " + s.name + ": " + std::to_string(s.scores.size()) + " configs>";
        });

    py::class_<Attribution>(m, "Explanation",
        "Why the model ranks configuration A against B (docs/model.md §6.4): score(c) = bias + the sum of\n"
        "the nodes' shares; counterfactual effects of each differing node; the simulator's side when the\n"
        "module is known. nodes is a dict of equal-length arrays (pandas.DataFrame(e.nodes) takes it).")
        .def_readonly("file", &Attribution::file)
        .def_readonly("config_a", &Attribution::configA)
        .def_readonly("config_b", &Attribution::configB)
        .def_readonly("label_a", &Attribution::labelA)
        .def_readonly("label_b", &Attribution::labelB)
        .def_readonly("score_a", &Attribution::scoreA)
        .def_readonly("score_b", &Attribution::scoreB)
        .def_readonly("bias", &Attribution::bias)
        .def_readonly("runtime_a", &Attribution::runtimeA)
        .def_readonly("runtime_b", &Attribution::runtimeB)
        .def_readonly("rank_a", &Attribution::rankA, "1-based predicted rank, -1 when not all configs were scored")
        .def_readonly("rank_b", &Attribution::rankB)
        .def_readonly("members", &Attribution::members)
        .def_readonly("module_source", &Attribution::moduleSource, "where the simulator's module came from ('' = none)")
        .def_readonly("simulated_total_a", &Attribution::simulatedTotalA)
        .def_readonly("simulated_total_b", &Attribution::simulatedTotalB)
        .def_readonly("differing_nodes", &Attribution::differingNodes)
        .def_property_readonly(
            "config_scores", [](const Attribution& a) { return copiedArray<double>(a.configScores); },
            "every configuration's score when all were scored, else empty")
        .def_property_readonly("nodes", &nodeTable,
            "per node of the pruned graph: node, file_node, configurable, opcode, name, share_a, share_b,\n"
            "effect_on_a, effect_on_b, effect, simulated_a, simulated_b, simulated_effect, layout_differs")
        .def_property_readonly(
            "layouts",
            [](const Attribution& at) {
                const int64_t n = int64_t(at.nodes.size());
                NdArray<int8_t> a({ n, 18 }), b({ n, 18 });
                for (int64_t i = 0; i < n; ++i) {
                    std::copy(at.nodes[size_t(i)].layoutA.begin(), at.nodes[size_t(i)].layoutA.end(), a.row(i));
                    std::copy(at.nodes[size_t(i)].layoutB.begin(), at.nodes[size_t(i)].layoutB.end(), b.row(i));
                }
                return py::make_tuple(ownedArray(std::move(a)), ownedArray(std::move(b)));
            },
            "(A, B): int8 (N, 18) layout values of each node (configurable nodes; 0 elsewhere)")
        .def_property_readonly(
            "gradients",
            [](const Attribution& at) -> py::object {
                if (!at.gradients)
                    return py::none();
                const int64_t n = int64_t(at.nodes.size());
                NdArray<float> a({ n, 18 }), b({ n, 18 });
                for (int64_t i = 0; i < n; ++i) {
                    std::copy(at.nodes[size_t(i)].gradInputA.begin(), at.nodes[size_t(i)].gradInputA.end(), a.row(i));
                    std::copy(at.nodes[size_t(i)].gradInputB.begin(), at.nodes[size_t(i)].gradInputB.end(), b.row(i));
                }
                return py::make_tuple(ownedArray(std::move(a)), ownedArray(std::move(b)));
            },
            "(A, B): float32 (N, 18) gradient x input per layout value, None when not computed")
        .def_property_readonly(
            "simulated",
            [](const Attribution& at) {
                py::list out;
                for (const SimulatedInstruction& s : at.simulated) {
                    py::dict d;
                    d["file_node"] = s.fileNode;
                    d["node"] = s.node;
                    d["name"] = s.name;
                    d["opcode"] = s.opcode;
                    d["ns_a"] = s.nsA;
                    d["ns_b"] = s.nsB;
                    out.append(d);
                }
                return out;
            },
            "instructions whose simulated cost differs, by |ns_a - ns_b| descending (records)")
        .def(
            "ranked",
            [](const Attribution& at, const std::string& order) {
                AttributionOrder o;
                if (order == "effect")
                    o = AttributionOrder::Effect;
                else if (order == "share")
                    o = AttributionOrder::Share;
                else
                    throw py::value_error("order must be 'effect' or 'share'");
                return copiedArray<int64_t>(rankedNodes(at, o));
            },
            py::arg("order") = "effect", "row indices of nodes as `tgraph explain --sort` ranks them")
        .def(
            "to_json",
            [](const Attribution& at, const std::string& order, int64_t top) {
                return attributionJson(at, order == "share" ? AttributionOrder::Share : AttributionOrder::Effect, top);
            },
            py::arg("order") = "effect", py::arg("top") = 0, "the JSON of `tgraph explain --json`")
        .def("__repr__", [](const Attribution& a) {
            return "<tgraph.Explanation " + a.labelA + " vs " + a.labelB + ": " + std::to_string(a.nodes.size())
                + " nodes>";
        });

    py::class_<Model, std::shared_ptr<Model>>(m, "Model",
        "A TGraph model or an ensemble (weights .npz files, checkpoints, ensemble files of tgraph\n"
        "weights combine or train --seeds, an ensemble.json of tgraph train --folds; every model kind\n"
        "model/facade loads), all of one kind (layout or tile).\n"
        "Calls release the GIL; one call at a time per Model (others wait).")
        .def_static("load", &Model::load, py::arg("weights"),
            "Loads a weights file / checkpoint path, or a list of them (an ensemble: the mean of raw scores).")
        .def_property_readonly("kind", &Model::kind, "'layout' or 'tile'")
        .def_property_readonly("paths", &Model::paths, "the member files")
        .def("__len__", &Model::size)
        .def(
            "score",
            [](Model& model, const py::object& graph, int64_t batchConfigs, int tta, uint64_t ttaSeed, bool attention,
                py::object progress) {
                return model.score(graph, inferenceOptions(batchConfigs, tta, ttaSeed, attention), std::move(progress));
            },
            py::arg("graph"), py::kw_only(), py::arg("batch_configs") = 128, py::arg("tta") = 0,
            py::arg("tta_seed") = 101, py::arg("attention") = false, py::arg("progress") = py::none(),
            "Scores every configuration of a Graph or an .npz path, as `tgraph predict` (layout graphs pruned\n"
            "as in training; array_split chunks of batch_configs; tta seeded permutations). progress is\n"
            "called as progress(label, done, total); Ctrl+C stops the work.")
        .def(
            "predict",
            [](Model& model, const py::object& graph, int64_t batchConfigs, int tta, uint64_t ttaSeed,
                py::object progress) {
                GraphScores s
                    = model.score(graph, inferenceOptions(batchConfigs, tta, ttaSeed, false), std::move(progress));
                return ownedArray(std::move(s.scores));
            },
            py::arg("graph"), py::kw_only(), py::arg("batch_configs") = 128, py::arg("tta") = 0,
            py::arg("tta_seed") = 101, py::arg("progress") = py::none(),
            "float32 scores (C,) in configuration order (higher = predicted slower): score(...).scores")
        .def("explain", &Model::explain, py::arg("graph"), py::arg("a") = "fastest", py::arg("b") = "default",
            py::kw_only(), py::arg("batch_configs") = 128, py::arg("counterfactuals") = true,
            py::arg("gradients") = true, py::arg("rank_all") = true, py::arg("module") = py::none(),
            py::arg("params") = "", py::arg("progress") = py::none(),
            "Explains configuration a against b of a layout Graph, as `tgraph explain` (a, b: an index,\n"
            "'fastest', 'slowest' or 'default'). The simulator's side uses `module`, else the module the\n"
            "graph was featurized from, else regenerates a tgraph synth graph's module.")
        .def("__repr__", [](const Model& model) {
            return "<tgraph.Model " + model.kind() + ", " + std::to_string(model.size()) + " member(s)>";
        });

    m.def(
        "set_threads",
        [](int threads) {
            if (g_runtimeStarted)
                throw py::value_error("set_threads must be called before the first Model.load");
            g_threads = threads;
        },
        py::arg("threads"), "LibTorch's intra-op threads for the models (0 = every core), before the first Model.load");
    m.def(
        "set_precision",
        [](const std::string& name) {
            const std::optional<Precision> p = parsePrecision(name);
            if (!p)
                throw py::value_error(
                    "precision must be 'auto', 'fp32' or 'bf16', not " + std::string(py::repr(py::str(name))));
            g_precision = *p;
            facade::applyPrecision(g_precision);
        },
        py::arg("precision"),
        "the models' matrix products from the next call on, as tgraph --precision: 'auto' (the default: bf16 where "
        "the CPU has AMX-BF16 or AVX512-BF16, fp32 elsewhere), 'fp32' or 'bf16'");
    m.def(
        "precision",
        [] {
            if (!g_runtimeStarted)
                facade::applyPrecision(g_precision);
            return facade::productPrecision();
        },
        "the precision the models' products run in: 'fp32', 'bf16 (AVX512-BF16)', 'bf16 (emulated: no bf16 units)'...");
    m.def("runtime_version", &facade::runtimeVersion, "the LibTorch version the module was built against");
    m.def("release_idle_memory", &facade::releaseIdleMemory, "gives the model runtime's cached idle memory back");
}

} // namespace tgraph::python
