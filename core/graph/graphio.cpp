// SPDX-License-Identifier: Apache-2.0
#include "core/graph/graphio.h"

#include "core/graph/configs.h"
#include "core/util/error.h"
#include "core/graph/normalizer.h"
#include "core/io/npz.h"
#include "core/util/progress.h"

#include <algorithm>
#include <cmath>

namespace tgraph {

namespace {

// Maps the progress of each array read onto one bar over the whole file.
class FileProgress final : public ProgressSink
{
public:
    FileProgress(ProgressSink* parent, uint64_t total, const std::string& label)
        : m_parent(parent)
    {
        if (m_parent)
            m_parent->begin(label, total);
    }
    ~FileProgress() override
    {
        if (m_parent)
            m_parent->end();
    }
    ProgressSink* sink() { return m_parent ? this : nullptr; }
    void begin(std::string_view, uint64_t total) override { m_current = total; }
    void update(uint64_t done) override
    {
        if (m_parent)
            m_parent->update(m_base + done);
    }
    void end() override { m_base += m_current; }
    bool isCancelled() const override { return m_parent && m_parent->isCancelled(); }

private:
    ProgressSink* m_parent;
    uint64_t m_base = 0;
    uint64_t m_current = 0;
};

uint64_t totalBytes(const NpzReader& npz)
{
    uint64_t total = 0;
    for (const auto& m : npz.members())
        total += m.uncompressedSize;
    return total;
}

void requireKeys(const NpzReader& npz, std::initializer_list<const char*> keys, const char* kind)
{
    for (const char* k : keys)
        if (!npz.contains(k))
            throw InputError(
                npz.path(), k, std::string("array is missing (required in a TpuGraphs ") + kind + " graph)");
}

void record(std::map<std::string, ArrayStorage>& storage, NpzReader& npz, const char* key)
{
    const NpyHeader h = npz.header(key);
    storage[key] = ArrayStorage { h.dtype, h.shape };
}

NdArray<int64_t> readRuntimes(NpzReader& npz, const char* key, ProgressSink* progress)
{
    const NpyHeader h = npz.header(key);
    if (!h.dtype.isFloat())
        return npz.read<int64_t>(key, progress);
    const NdArray<double> r = npz.read<double>(key, progress);
    NdArray<int64_t> out(r.shape());
    for (int64_t i = 0; i < r.size(); ++i) {
        if (std::isnan(r[i]))
            throw InputError(npz.path(), std::string(key) + "[" + std::to_string(i) + "]", "NaN runtime");
        if (!std::isfinite(r[i]) || std::fabs(r[i]) > 9.0e18)
            throw InputError(npz.path(), std::string(key) + "[" + std::to_string(i) + "]", "runtime is not finite");
        out[i] = std::llround(r[i]);
    }
    return out;
}

NdArray<int64_t> flattened(NdArray<int64_t> a)
{
    a.reshape({ a.size() });
    return a;
}

// node_splits is (k,) in the featurizer and (1, k) in the published dataset; anything else is an error.
NdArray<int64_t> readSplits(NpzReader& npz, ProgressSink* progress)
{
    NdArray<int64_t> s = npz.read<int64_t>("node_splits", progress);
    if (s.ndim() > 2 || (s.ndim() == 2 && s.dim(0) != 1))
        throw InputError(npz.path(), "node_splits", "shape " + shapeToString(s.shape()) + " should be (k,) or (1, k)");
    return flattened(std::move(s));
}

DType storedTypeOr(const std::map<std::string, ArrayStorage>& storage, const char* key, DType fallback)
{
    auto it = storage.find(key);
    return it == storage.end() ? fallback : it->second.dtype;
}

constexpr DType kFloat32 { ScalarType::Float32, false };
constexpr DType kInt64 { ScalarType::Int64, false };
constexpr DType kUInt8 { ScalarType::UInt8, false };

// Integer arrays go back in their source dtype when every value fits (pruning only shrinks ids),
// else as int64; float-stored arrays keep their float dtype.
DType fittingType(const NdArray<int64_t>& a, DType wanted)
{
    if (!wanted.isInteger() || a.empty())
        return wanted;
    const auto [lo, hi] = std::minmax_element(a.data(), a.data() + a.size());
    const int bits = int(wanted.itemSize()) * 8;
    const bool fits = wanted.isSigned()
        ? (bits == 64 || (*lo >= -(int64_t(1) << (bits - 1)) && *hi < (int64_t(1) << (bits - 1))))
        : (*lo >= 0 && (bits == 64 || *hi < (int64_t(1) << bits)));
    return fits ? wanted : kInt64;
}

// Float arrays keep a float source dtype (float16/32/64), else float32.
DType floatTypeOr(const std::map<std::string, ArrayStorage>& storage, const char* key)
{
    const DType t = storedTypeOr(storage, key, kFloat32);
    return t.isFloat() ? t : kFloat32;
}

std::string readSyntheticMeta(NpzReader& npz, ProgressSink* progress)
{
    if (!npz.contains(kSyntheticMetaKey))
        return {};
    const NdArray<uint8_t> bytes = npz.read<uint8_t>(kSyntheticMetaKey, progress);
    return std::string(reinterpret_cast<const char*>(bytes.data()), size_t(bytes.size()));
}

void writeSyntheticMeta(NpzWriter& w, const std::string& meta)
{
    if (meta.empty())
        return;
    NdArray<uint8_t> bytes({ int64_t(meta.size()) });
    std::copy(meta.begin(), meta.end(), bytes.data());
    w.add(kSyntheticMetaKey, bytes);
}

} // namespace

GraphKind detectGraphKind(const NpzReader& npz)
{
    if (npz.contains("node_config_feat"))
        return GraphKind::Layout;
    if (npz.contains("config_feat"))
        return GraphKind::Tile;
    std::string present;
    for (const auto& k : npz.keys())
        present += (present.empty() ? "" : ", ") + k;
    throw InputError(npz.path(), "",
        "neither a TpuGraphs layout graph (no node_config_feat) nor a tile graph (no config_feat); arrays: "
            + (present.empty() ? std::string("none") : present));
}

LayoutGraph readLayoutGraph(NpzReader& npz, const GraphLoadOptions& options)
{
    requireKeys(npz,
        { "node_feat", "node_opcode", "edge_index", "node_config_ids", "node_config_feat", "config_runtime" },
        "layout");
    FileProgress progress(options.progress, totalBytes(npz), "loading " + npz.path());
    LayoutGraph g;
    for (const char* key :
        { "node_feat", "node_opcode", "edge_index", "node_config_ids", "node_config_feat", "config_runtime" })
        record(g.storage, npz, key);
    g.nodeFeat = npz.read<float>("node_feat", progress.sink());
    g.nodeOpcode = flattened(npz.read<int64_t>("node_opcode", progress.sink()));
    g.edgeIndex = npz.read<int64_t>("edge_index", progress.sink());
    g.nodeConfigIds = flattened(npz.read<int64_t>("node_config_ids", progress.sink()));
    const ArrayStorage& cfg = g.storage["node_config_feat"];
    if (cfg.dtype.isInteger() && cfg.shape.size() == 3 && cfg.shape[2] == 3)
        g.nodeConfigFeat = decompressConfigs(npz.read<int32_t>("node_config_feat", progress.sink()), npz.path());
    else
        g.nodeConfigFeat = npz.read<float>("node_config_feat", progress.sink());
    g.configRuntime = readRuntimes(npz, "config_runtime", progress.sink());
    if (npz.contains("node_splits")) {
        record(g.storage, npz, "node_splits");
        g.nodeSplits = readSplits(npz, progress.sink());
    } else {
        g.nodeSplits = NdArray<int64_t>({ 0 });
    }
    g.syntheticMeta = readSyntheticMeta(npz, progress.sink());
    if (options.repadLayout && g.nodeFeat.ndim() == 2 && g.nodeFeat.dim(1) == kNodeFeatures)
        repadLayoutColumns(g.nodeFeat);
    validate(g, npz.path(), options.minConfigs);
    return g;
}

TileGraph readTileGraph(NpzReader& npz, const GraphLoadOptions& options)
{
    requireKeys(npz,
        { "node_feat", "node_opcode", "edge_index", "config_feat", "config_runtime", "config_runtime_normalizers" },
        "tile");
    FileProgress progress(options.progress, totalBytes(npz), "loading " + npz.path());
    TileGraph g;
    for (const char* key :
        { "node_feat", "node_opcode", "edge_index", "config_feat", "config_runtime", "config_runtime_normalizers" })
        record(g.storage, npz, key);
    g.nodeFeat = npz.read<float>("node_feat", progress.sink());
    g.nodeOpcode = flattened(npz.read<int64_t>("node_opcode", progress.sink()));
    g.edgeIndex = npz.read<int64_t>("edge_index", progress.sink());
    g.configFeat = npz.read<float>("config_feat", progress.sink());
    g.configRuntime = readRuntimes(npz, "config_runtime", progress.sink());
    g.configRuntimeNormalizers = readRuntimes(npz, "config_runtime_normalizers", progress.sink());
    g.syntheticMeta = readSyntheticMeta(npz, progress.sink());
    validate(g, npz.path(), options.minConfigs);
    return g;
}

LayoutGraph loadLayoutGraph(const std::string& path, const GraphLoadOptions& options)
{
    NpzReader npz(path);
    if (detectGraphKind(npz) != GraphKind::Layout)
        throw InputError(path, "", "is a tile graph, not a layout graph");
    return readLayoutGraph(npz, options);
}

TileGraph loadTileGraph(const std::string& path, const GraphLoadOptions& options)
{
    NpzReader npz(path);
    if (detectGraphKind(npz) != GraphKind::Tile)
        throw InputError(path, "", "is a layout graph, not a tile graph");
    return readTileGraph(npz, options);
}

void saveLayoutGraph(const LayoutGraph& g, const std::string& path, const GraphWriteOptions& options)
{
    NpzWriter w(path, options.compressed ? NpzCompression::Deflated : NpzCompression::Stored);
    w.setProgress(options.progress,
        uint64_t(g.nodeFeat.size() + g.nodeConfigFeat.size()) * 4
            + uint64_t(g.nodeOpcode.size() + g.edgeIndex.size() + g.nodeConfigIds.size() + g.configRuntime.size()
                  + g.nodeSplits.size())
                * 8);
    const auto& st = g.storage;
    w.add("node_feat", g.nodeFeat, floatTypeOr(st, "node_feat"));
    w.add("node_opcode", g.nodeOpcode, fittingType(g.nodeOpcode, storedTypeOr(st, "node_opcode", kUInt8)));
    w.add("edge_index", g.edgeIndex, fittingType(g.edgeIndex, storedTypeOr(st, "edge_index", kInt64)));
    if (options.compressConfigs) {
        w.add("node_config_feat", compressConfigs(g.nodeConfigFeat, path));
    } else {
        w.add("node_config_feat", g.nodeConfigFeat, floatTypeOr(st, "node_config_feat"));
    }
    w.add(
        "node_config_ids", g.nodeConfigIds, fittingType(g.nodeConfigIds, storedTypeOr(st, "node_config_ids", kInt64)));
    w.add("config_runtime", g.configRuntime, fittingType(g.configRuntime, storedTypeOr(st, "config_runtime", kInt64)));
    auto splits = st.find("node_splits");
    if (!g.nodeSplits.empty() || splits != st.end()) {
        NdArray<int64_t> s = g.nodeSplits;
        // The published dataset stores (1, k); keep a source's 1-d form when it had one.
        if (splits == st.end() || splits->second.shape.size() == 2)
            s.reshape({ 1, s.size() });
        w.add("node_splits", s, fittingType(s, storedTypeOr(st, "node_splits", kInt64)));
    }
    writeSyntheticMeta(w, g.syntheticMeta);
    w.commit();
}

void saveTileGraph(const TileGraph& g, const std::string& path, const GraphWriteOptions& options)
{
    NpzWriter w(path, options.compressed ? NpzCompression::Deflated : NpzCompression::Stored);
    w.setProgress(options.progress,
        uint64_t(g.nodeFeat.size() + g.configFeat.size()) * 4
            + uint64_t(
                  g.nodeOpcode.size() + g.edgeIndex.size() + g.configRuntime.size() + g.configRuntimeNormalizers.size())
                * 8);
    const auto& st = g.storage;
    w.add("node_feat", g.nodeFeat, floatTypeOr(st, "node_feat"));
    w.add("node_opcode", g.nodeOpcode, fittingType(g.nodeOpcode, storedTypeOr(st, "node_opcode", kUInt8)));
    w.add("edge_index", g.edgeIndex, fittingType(g.edgeIndex, storedTypeOr(st, "edge_index", kInt64)));
    w.add("config_feat", g.configFeat, floatTypeOr(st, "config_feat"));
    w.add("config_runtime", g.configRuntime, fittingType(g.configRuntime, storedTypeOr(st, "config_runtime", kInt64)));
    w.add("config_runtime_normalizers", g.configRuntimeNormalizers,
        fittingType(g.configRuntimeNormalizers, storedTypeOr(st, "config_runtime_normalizers", kInt64)));
    writeSyntheticMeta(w, g.syntheticMeta);
    w.commit();
}

} // namespace tgraph
