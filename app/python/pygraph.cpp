// SPDX-License-Identifier: Apache-2.0
#include "app/python/pygraph.h"

#include "app/python/pyarrays.h"
#include "app/python/pyprogress.h"

#include "core/graph/configs.h"
#include "core/graph/graphio.h"
#include "core/graph/prune.h"
#include "core/io/npz.h"
#include "core/util/error.h"

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cstring>
#include <filesystem>

namespace tgraph::python {

namespace {

constexpr const char* kLayoutKeys[] = { "node_feat", "node_opcode", "edge_index", "node_config_ids", "node_config_feat",
    "config_runtime", "node_splits", kSyntheticMetaKey };
constexpr const char* kTileKeys[] = { "node_feat", "node_opcode", "edge_index", "config_feat", "config_runtime",
    "config_runtime_normalizers", kSyntheticMetaKey };

std::string pathText(const std::filesystem::path& path) { return path.string(); }

bool hasKey(const GraphData& g, const std::string& key)
{
    const std::string& meta = g.kind == GraphKind::Layout ? g.layout.syntheticMeta : g.tile.syntheticMeta;
    if (key == kSyntheticMetaKey)
        return !meta.empty();
    if (g.kind == GraphKind::Layout) {
        if (key == "node_splits")
            return !g.layout.nodeSplits.empty() || g.layout.storage.count(key);
        for (const char* k : kLayoutKeys)
            if (key == k)
                return true;
        return false;
    }
    for (const char* k : kTileKeys)
        if (key == k)
            return true;
    return false;
}

std::vector<std::string> keysOf(const GraphData& g)
{
    std::vector<std::string> keys;
    if (g.kind == GraphKind::Layout) {
        for (const char* k : kLayoutKeys)
            if (hasKey(g, k))
                keys.emplace_back(k);
    } else {
        for (const char* k : kTileKeys)
            if (hasKey(g, k))
                keys.emplace_back(k);
    }
    return keys;
}

// The array `key` of the graph held by `self`, as a read-only view whose base is `self`.
py::array arrayOf(py::handle self, const std::string& key)
{
    const GraphData& g = self.cast<const GraphData&>();
    if (!hasKey(g, key))
        throw py::key_error(key);
    if (key == kSyntheticMetaKey) {
        const std::string& meta = g.kind == GraphKind::Layout ? g.layout.syntheticMeta : g.tile.syntheticMeta;
        return viewOf(reinterpret_cast<const uint8_t*>(meta.data()), { int64_t(meta.size()) }, self);
    }
    if (key == "node_feat")
        return viewOf(g.kind == GraphKind::Layout ? g.layout.nodeFeat : g.tile.nodeFeat, self);
    if (key == "node_opcode")
        return viewOf(g.kind == GraphKind::Layout ? g.layout.nodeOpcode : g.tile.nodeOpcode, self);
    if (key == "edge_index")
        return viewOf(g.kind == GraphKind::Layout ? g.layout.edgeIndex : g.tile.edgeIndex, self);
    if (key == "config_runtime")
        return viewOf(g.kind == GraphKind::Layout ? g.layout.configRuntime : g.tile.configRuntime, self);
    if (g.kind == GraphKind::Tile) {
        if (key == "config_feat")
            return viewOf(g.tile.configFeat, self);
        return viewOf(g.tile.configRuntimeNormalizers, self);
    }
    if (key == "node_config_ids")
        return viewOf(g.layout.nodeConfigIds, self);
    if (key == "node_config_feat")
        return viewOf(g.layout.nodeConfigFeat, self);
    // node_splits: (1, k) when the source stored it so (the published dataset), else (k,)
    const auto st = g.layout.storage.find("node_splits");
    std::vector<int64_t> shape = g.layout.nodeSplits.shape();
    if (st == g.layout.storage.end() || st->second.shape.size() == 2)
        shape = { 1, g.layout.nodeSplits.size() };
    return viewOf(g.layout.nodeSplits.data(), shape, self);
}

// ---- graphs from numpy arrays -------------------------------------------------------------------

template <class T>
NdArray<T> arrayFrom(py::handle object, const std::string& source, const std::string& key, bool integers)
{
    py::array a = py::array::ensure(object);
    if (!a)
        throw InputError(source, key, "not an array (numpy.asarray cannot convert it)");
    const char kind = a.dtype().kind();
    const bool isInt = kind == 'i' || kind == 'u' || kind == 'b';
    if (integers ? !isInt : !(isInt || kind == 'f'))
        throw InputError(source, key,
            "dtype " + std::string(py::str(a.dtype())) + " where " + (integers ? "integers" : "numbers")
                + " are expected");
    auto c = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(a);
    if (!c)
        throw InputError(source, key, "cannot convert dtype " + std::string(py::str(a.dtype())));
    std::vector<int64_t> shape(c.shape(), c.shape() + c.ndim());
    NdArray<T> out(shape);
    if (out.size())
        std::memcpy(out.data(), c.data(), size_t(out.size()) * sizeof(T));
    return out;
}

GraphPtr graphFromArrays(const py::dict& arrays, const std::string& source)
{
    auto has = [&](const char* key) { return arrays.contains(key); };
    auto need = [&](const char* key) -> py::handle {
        if (!arrays.contains(key))
            throw InputError(source, key, "missing");
        return arrays[key];
    };
    for (auto item : arrays) {
        const std::string key = py::str(item.first);
        bool known = false;
        for (const char* k : kLayoutKeys)
            known |= key == k;
        for (const char* k : kTileKeys)
            known |= key == k;
        if (!known)
            throw InputError(source, key, "not a key of a TpuGraphs layout or tile graph");
    }
    std::string meta;
    if (has(kSyntheticMetaKey)) {
        const NdArray<uint8_t> bytes = arrayFrom<uint8_t>(arrays[kSyntheticMetaKey], source, kSyntheticMetaKey, true);
        meta.assign(reinterpret_cast<const char*>(bytes.data()), size_t(bytes.size()));
    }
    if (has("config_feat")) {
        TileGraph g;
        g.nodeFeat = arrayFrom<float>(need("node_feat"), source, "node_feat", false);
        g.nodeOpcode = arrayFrom<int64_t>(need("node_opcode"), source, "node_opcode", true);
        g.edgeIndex = arrayFrom<int64_t>(need("edge_index"), source, "edge_index", true);
        g.configFeat = arrayFrom<float>(need("config_feat"), source, "config_feat", false);
        g.configRuntime = arrayFrom<int64_t>(need("config_runtime"), source, "config_runtime", true);
        g.configRuntimeNormalizers
            = arrayFrom<int64_t>(need("config_runtime_normalizers"), source, "config_runtime_normalizers", true);
        g.syntheticMeta = std::move(meta);
        setPublishedStorage(g);
        validate(g, source, 0);
        return makeGraph(std::move(g), source);
    }
    LayoutGraph g;
    g.nodeFeat = arrayFrom<float>(need("node_feat"), source, "node_feat", false);
    g.nodeOpcode = arrayFrom<int64_t>(need("node_opcode"), source, "node_opcode", true);
    g.edgeIndex = arrayFrom<int64_t>(need("edge_index"), source, "edge_index", true);
    g.nodeConfigIds = arrayFrom<int64_t>(need("node_config_ids"), source, "node_config_ids", true);
    py::array feat = py::array::ensure(need("node_config_feat"));
    if (feat && feat.ndim() == 3 && feat.shape(2) == 3 && (feat.dtype().kind() == 'i' || feat.dtype().kind() == 'u'))
        g.nodeConfigFeat = decompressConfigs(arrayFrom<int32_t>(feat, source, "node_config_feat", true), source);
    else
        g.nodeConfigFeat = arrayFrom<float>(need("node_config_feat"), source, "node_config_feat", false);
    g.configRuntime = arrayFrom<int64_t>(need("config_runtime"), source, "config_runtime", true);
    if (has("node_splits")) {
        g.nodeSplits = arrayFrom<int64_t>(arrays["node_splits"], source, "node_splits", true);
        const std::vector<int64_t> shape = g.nodeSplits.shape();
        g.nodeSplits.reshape({ g.nodeSplits.size() });
        setPublishedStorage(g);
        g.storage["node_splits"].shape = shape;
    } else {
        setPublishedStorage(g);
        g.storage.erase("node_splits");
    }
    g.syntheticMeta = std::move(meta);
    validate(g, source, 0);
    return makeGraph(std::move(g), source);
}

GraphPtr loadGraph(const std::filesystem::path& path, bool repad, int64_t minConfigs, py::object callback)
{
    PythonProgress progress(std::move(callback));
    const std::string file = pathText(path);
    return withoutGil(progress, [&] {
        GraphLoadOptions options;
        options.repadLayout = repad;
        options.minConfigs = minConfigs;
        options.progress = &progress;
        NpzReader npz(file);
        if (detectGraphKind(npz) == GraphKind::Tile)
            return makeGraph(readTileGraph(npz, options), file);
        return makeGraph(readLayoutGraph(npz, options), file);
    });
}

// Any .npz as a dict of arrays, each owning its buffer (the bytes as stored: dtype and byte order
// kept, Fortran order as numpy strides).
py::dict loadNpz(const std::filesystem::path& path, py::object callback)
{
    PythonProgress progress(std::move(callback));
    const std::string file = pathText(path);
    std::vector<std::pair<std::string, NpyArray>> arrays = withoutGil(progress, [&] {
        NpzReader npz(file);
        std::vector<std::pair<std::string, NpyArray>> out;
        for (const std::string& key : npz.keys())
            out.emplace_back(key, npz.readRaw(key, &progress));
        return out;
    });
    py::dict result;
    for (auto& [key, raw] : arrays) {
        auto* held = new NpyArray(std::move(raw));
        py::capsule owner(held, [](void* p) { delete static_cast<NpyArray*>(p); });
        const NpyHeader& h = held->header;
        py::dtype dtype(h.dtype.descr());
        std::vector<py::ssize_t> shape(h.shape.begin(), h.shape.end()), strides(h.shape.size());
        py::ssize_t step = py::ssize_t(h.dtype.itemSize());
        for (size_t i = 0; i < shape.size(); ++i) {
            const size_t axis = h.fortranOrder ? i : shape.size() - 1 - i;
            strides[axis] = step;
            step *= std::max<py::ssize_t>(shape[axis], 1);
        }
        static const std::byte empty {};
        result[py::str(key)] = py::array(dtype, shape, strides, held->data.empty() ? &empty : held->data.data(), owner);
    }
    return result;
}

GraphData& requireLayout(GraphData& g, const char* what)
{
    if (g.kind != GraphKind::Layout)
        throw InputError(g.source, "", std::string("is a tile graph; ") + what);
    return g;
}

DedupPolicy dedupPolicyFrom(const std::string& text)
{
    DedupPolicy policy;
    if (!parseDedupPolicy(text, &policy))
        throw py::value_error("dedup policy '" + text + "' is not keep-first, keep-min or none");
    return policy;
}

std::string reprOf(const GraphData& g)
{
    std::string text = std::string("<tgraph.Graph ") + graphKindName(g.kind) + ": " + std::to_string(g.nodeCount())
        + " nodes, " + std::to_string(g.kind == GraphKind::Layout ? g.layout.edgeCount() : g.tile.edgeCount())
        + " edges, " + std::to_string(g.configCount()) + " configs";
    if (g.kind == GraphKind::Layout)
        text += ", " + std::to_string(g.layout.configurableCount()) + " configurable";
    if (!g.source.empty())
        text += " from " + g.source;
    return text + ">";
}

} // namespace

GraphPtr makeGraph(LayoutGraph graph, std::string source)
{
    auto g = std::make_shared<GraphData>();
    g->kind = GraphKind::Layout;
    g->layout = std::move(graph);
    g->source = std::move(source);
    return g;
}

GraphPtr makeGraph(TileGraph graph, std::string source)
{
    auto g = std::make_shared<GraphData>();
    g->kind = GraphKind::Tile;
    g->tile = std::move(graph);
    g->source = std::move(source);
    return g;
}

void bindGraph(py::module_& m)
{
    py::class_<GraphData, GraphPtr> graph(m, "Graph",
        "A TpuGraphs layout or tile graph held by the C++ core.\n\n"
        "Its arrays are reached by the npz's own keys, g['node_feat'], g['edge_index'], ... (keys(),\n"
        "items(), 'key' in g). Each is a read-only numpy view of the C++ buffer (no copy): its .base\n"
        "is the Graph, which stays alive while any view does. Integer arrays are int64 whatever the\n"
        "file stored (stored_dtype() tells); node_config_feat is float32 (C, Nc, 18) even when the\n"
        "file held it base-7 compressed. To change a graph, copy the arrays (numpy.array(g[k])) and\n"
        "build a new one with Graph.from_arrays(), which validates them as a file is validated.");
    graph
        .def_static(
            "from_arrays",
            [](const py::dict& arrays, const std::string& source) { return graphFromArrays(arrays, source); },
            py::arg("arrays"), py::arg("source") = "<arrays>",
            "A graph from a mapping of npz keys to arrays (copied and validated; node_config_feat may be\n"
            "float (C, Nc, 18) or base-7 int (C, Nc, 3)). Tile graphs have config_feat. InputError names\n"
            "`source`, the key and the problem.")
        .def_property_readonly(
            "kind", [](const GraphData& g) { return std::string(graphKindName(g.kind)); }, "'layout' or 'tile'")
        .def_readonly("source", &GraphData::source, "the file the graph was read from, or what it was made from")
        .def_property_readonly("node_count", &GraphData::nodeCount)
        .def_property_readonly("edge_count",
            [](const GraphData& g) { return g.kind == GraphKind::Layout ? g.layout.edgeCount() : g.tile.edgeCount(); })
        .def_property_readonly("config_count", &GraphData::configCount)
        .def_property_readonly(
            "configurable_count",
            [](const GraphData& g) { return g.kind == GraphKind::Layout ? g.layout.configurableCount() : int64_t(0); },
            "configurable nodes (layout graphs; 0 for tile graphs)")
        .def_property_readonly(
            "has_runtimes",
            [](const GraphData& g) {
                return g.kind == GraphKind::Layout ? g.layout.hasRuntimes() : g.tile.hasRuntimes();
            },
            "False when every config_runtime is 0 (the unlabelled test split)")
        .def_property_readonly(
            "default_config",
            [](const GraphData& g) -> py::object {
                if (g.kind != GraphKind::Layout || g.layout.defaultConfig < 0)
                    return py::none();
                return py::int_(g.layout.defaultConfig);
            },
            "the config of a tuning record's default run, None when unknown")
        .def_property_readonly(
            "synthetic_meta",
            [](const GraphData& g) -> py::object {
                const std::string& meta = g.kind == GraphKind::Layout ? g.layout.syntheticMeta : g.tile.syntheticMeta;
                if (meta.empty())
                    return py::none();
                return py::reinterpret_steal<py::object>(
                    PyUnicode_DecodeUTF8(meta.data(), Py_ssize_t(meta.size()), "replace"));
            },
            "the meta_synthetic JSON text of simulated data, None for real data")
        .def_property_readonly(
            "old_to_new",
            [](py::object self) -> py::object {
                const GraphData& g = self.cast<const GraphData&>();
                if (!g.oldToNew)
                    return py::none();
                return viewOf(g.oldToNew->data(), { int64_t(g.oldToNew->size()) }, self);
            },
            "for a graph made by prune(): the new node of each node of the source (-1 when dropped)")
        .def_property_readonly(
            "new_to_old",
            [](py::object self) -> py::object {
                const GraphData& g = self.cast<const GraphData&>();
                if (!g.newToOld)
                    return py::none();
                return viewOf(g.newToOld->data(), { int64_t(g.newToOld->size()) }, self);
            },
            "for a graph made by prune(): the source node of each node (ascending)")
        .def(
            "keys", [](const GraphData& g) { return keysOf(g); }, "the npz keys the graph holds, in file order")
        .def(
            "values",
            [](py::object self) {
                py::list out;
                for (const std::string& k : keysOf(self.cast<const GraphData&>()))
                    out.append(arrayOf(self, k));
                return out;
            },
            "the arrays, in keys() order")
        .def(
            "items",
            [](py::object self) {
                py::list out;
                for (const std::string& k : keysOf(self.cast<const GraphData&>()))
                    out.append(py::make_tuple(k, arrayOf(self, k)));
                return out;
            },
            "(key, array) pairs; dict(g.items()) is what numpy.load(file) holds")
        .def("__getitem__", [](py::object self, const std::string& key) { return arrayOf(self, key); })
        .def(
            "get",
            [](py::object self, const std::string& key, py::object fallback) -> py::object {
                if (!hasKey(self.cast<const GraphData&>(), key))
                    return fallback;
                return arrayOf(self, key);
            },
            py::arg("key"), py::arg("default") = py::none())
        .def("__contains__", [](const GraphData& g, const std::string& key) { return hasKey(g, key); })
        .def("__len__", [](const GraphData& g) { return keysOf(g).size(); })
        .def("__iter__", [](const GraphData& g) { return py::iter(py::cast(keysOf(g))); })
        .def("__repr__", &reprOf)
        .def(
            "stored_dtype",
            [](const GraphData& g, const std::string& key) -> py::object {
                if (!hasKey(g, key))
                    throw py::key_error(key);
                if (key == kSyntheticMetaKey)
                    return py::dtype::of<uint8_t>(); // UTF-8 JSON bytes
                const auto& storage = g.kind == GraphKind::Layout ? g.layout.storage : g.tile.storage;
                const auto it = storage.find(key);
                if (it == storage.end())
                    return py::none();
                return py::dtype(it->second.dtype.descr());
            },
            py::arg("key"), "the dtype the source file stored `key` with (save() writes it so); None when unknown")
        .def(
            "save",
            [](const GraphData& g, const std::filesystem::path& path, bool compressed, bool compressConfigs,
                py::object callback) {
                PythonProgress progress(std::move(callback));
                const std::string file = pathText(path);
                withoutGil(progress, [&] {
                    GraphWriteOptions options;
                    options.compressed = compressed;
                    options.compressConfigs = compressConfigs;
                    options.progress = &progress;
                    if (g.kind == GraphKind::Layout)
                        saveLayoutGraph(g.layout, file, options);
                    else {
                        if (compressConfigs)
                            throw InputError(file, "", "compress_configs applies to layout graphs only");
                        saveTileGraph(g.tile, file, options);
                    }
                });
            },
            py::arg("path"), py::kw_only(), py::arg("compressed") = true, py::arg("compress_configs") = false,
            py::arg("progress") = py::none(),
            "Writes the graph as an .npz numpy loads (atomically: a failed write leaves nothing behind).\n"
            "compressed=False stores members (np.savez); compress_configs=True stores node_config_feat\n"
            "base-7 as int32 (C, Nc, 3), as `tgraph prune --compress`.")
        .def(
            "prune",
            [](GraphData& g) {
                requireLayout(g, "only layout graphs are pruned (tile kernels are used whole)");
                PrunedGraph pruned = [&] {
                    py::gil_scoped_release release;
                    return pruneToConfigurable(g.layout, g.source);
                }();
                GraphPtr out = makeGraph(std::move(pruned.graph), g.source);
                out->oldToNew = std::move(pruned.oldToNew);
                out->newToOld = std::move(pruned.newToOld);
                return out;
            },
            "The graph pruned to its configurable nodes and their 1-hop neighbours, as `tgraph prune`\n"
            "(docs/model.md §2.2); old_to_new / new_to_old map the nodes. A pruned graph stays as it is.")
        .def(
            "dedup",
            [](GraphData& g, const std::string& policyText) {
                requireLayout(g, "configurations are de-duplicated in layout graphs");
                const DedupPolicy policy = dedupPolicyFrom(policyText);
                auto out = std::make_shared<GraphData>(g);
                if (policy != DedupPolicy::None) {
                    py::gil_scoped_release release;
                    applyDedup(
                        out->layout, dedupConfigs(out->layout.nodeConfigFeat, out->layout.configRuntime, policy));
                }
                return out;
            },
            py::arg("policy") = "keep-first",
            "A copy without repeated configurations, as `tgraph prune --dedup`: keep-first (first row and\n"
            "its runtime), keep-min (the group's smallest runtime) or none (docs/model.md §2.3).")
        .def(
            "duplicate_configs",
            [](const GraphData& g) {
                return g.kind == GraphKind::Layout ? countDuplicateConfigs(g.layout.nodeConfigFeat) : int64_t(0);
            },
            "rows of node_config_feat that repeat an earlier row")
        .def(
            "compressed_configs",
            [](const GraphData& g) {
                if (g.kind != GraphKind::Layout)
                    throw InputError(g.source, "", "is a tile graph; only layout configurations are compressed");
                return ownedArray(compressConfigs(g.layout.nodeConfigFeat, g.source));
            },
            "node_config_feat base-7 compressed: int32 (C, Nc, 3) (docs/model.md §2.4), a new array")
        .def(
            "copy", [](const GraphData& g) { return std::make_shared<GraphData>(g); }, "a deep copy")
        .def("__copy__", [](const GraphData& g) { return std::make_shared<GraphData>(g); })
        .def("__deepcopy__", [](const GraphData& g, py::dict) { return std::make_shared<GraphData>(g); });

    m.def("load_graph", &loadGraph, py::arg("path"), py::kw_only(), py::arg("repad") = false,
        py::arg("min_configs") = 0, py::arg("progress") = py::none(),
        "Reads a TpuGraphs layout or tile .npz (stored or deflated, zip64; node_config_feat plain or\n"
        "base-7) and validates it. repad re-pads node_feat columns 134..139 with -1 (docs/model.md\n"
        "§2.1); min_configs refuses graphs with fewer configurations. The GIL is released while it reads.");
    m.def("load_npz", &loadNpz, py::arg("path"), py::kw_only(), py::arg("progress") = py::none(),
        "Any .npz as numpy.load gives it: a dict of arrays with the stored dtypes, byte order and memory\n"
        "order, each owning its buffer (read by the C++ reader, no copy into numpy).");
    m.def(
        "compress_configs",
        [](const py::array& configs) {
            NdArray<float> values = arrayFrom<float>(configs, "<array>", "node_config_feat", false);
            if (values.ndim() != 3 || values.dim(2) != kLayoutConfigFeatures)
                throw InputError(
                    "<array>", "node_config_feat", "shape " + shapeToString(values.shape()) + " is not (C, Nc, 18)");
            return ownedArray(compressConfigs(values, "<array>"));
        },
        py::arg("node_config_feat"), "float (C, Nc, 18) layout values -1..5 -> base-7 int32 (C, Nc, 3), lossless");
    m.def(
        "decompress_configs",
        [](const py::array& compressed) {
            NdArray<int32_t> values = arrayFrom<int32_t>(compressed, "<array>", "node_config_feat", true);
            if (values.ndim() != 3 || values.dim(2) != 3)
                throw InputError(
                    "<array>", "node_config_feat", "shape " + shapeToString(values.shape()) + " is not (C, Nc, 3)");
            return ownedArray(decompressConfigs(values, "<array>"));
        },
        py::arg("compressed"), "base-7 int32 (C, Nc, 3) -> float32 (C, Nc, 18)");
}

} // namespace tgraph::python
