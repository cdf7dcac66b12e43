// SPDX-License-Identifier: Apache-2.0
#include "core/hlo/featurizer.h"

#include "core/util/error.h"
#include "core/graph/opcodes.h"

#include <algorithm>
#include <thread>
#include <unordered_map>

namespace tgraph {

namespace {

// Column of the element-type one-hot block (2..20): docs/formats.md §4.2 order.
int typeColumn(int32_t type)
{
    static constexpr int32_t order[] = {
        PrimitiveType::Invalid,
        PrimitiveType::Pred,
        PrimitiveType::S8,
        PrimitiveType::S16,
        PrimitiveType::S32,
        PrimitiveType::S64,
        PrimitiveType::U8,
        PrimitiveType::U16,
        PrimitiveType::U32,
        PrimitiveType::U64,
        PrimitiveType::F16,
        PrimitiveType::F32,
        PrimitiveType::F64,
        PrimitiveType::BF16,
        PrimitiveType::C64,
        PrimitiveType::C128,
        PrimitiveType::Tuple,
        PrimitiveType::OpaqueType,
        PrimitiveType::Token,
    };
    for (int k = 0; k < int(std::size(order)); ++k)
        if (order[k] == type)
            return 2 + k;
    return -1; // F8*, S4, BUFFER ...: all 19 zeros
}

// int64 arithmetic with wrap-around, as the reference featurizer.
int64_t wrapMul(int64_t a, int64_t b) { return int64_t(uint64_t(a) * uint64_t(b)); }
int64_t wrapAdd(int64_t a, int64_t b) { return int64_t(uint64_t(a) + uint64_t(b)); }

// SEQk(list): first k values (zero padded), then sum and product of the whole list (empty product
// = `emptyProduct`).
template <class Get> void seq(float* out, int k, size_t n, Get get, int64_t emptyProduct = 1)
{
    int64_t sum = 0;
    int64_t product = n ? 1 : emptyProduct;
    for (size_t i = 0; i < n; ++i) {
        const int64_t v = get(i);
        if (int(i) < k)
            out[i] = float(v);
        sum = wrapAdd(sum, v);
        product = wrapMul(product, v);
    }
    out[k] = float(sum);
    out[k + 1] = float(product);
}

// NOAGGk(list): first k values, padded with `pad` (0, or -1 for the repadded variant).
void noagg(float* out, int k, std::span<const int64_t> values, float pad)
{
    for (int i = 0; i < k; ++i)
        out[i] = i < int(values.size()) ? float(values[size_t(i)]) : pad;
}

void requireModule(const ModuleTuningData& data, const std::string& file)
{
    if (!data.hasModule || data.module.computations.empty())
        throw InputError(file, "", "the tuning record holds no HLO module");
}

// Position of every instruction id (ids are unique module-wide). Text modules number instructions
// by position: then the map is the identity and stays empty.
std::unordered_map<int64_t, int64_t> positionsById(const HloModule& m, const std::string& file, bool* identity)
{
    std::unordered_map<int64_t, int64_t> pos;
    *identity = true;
    for (size_t i = 0; i < m.instructions.size() && *identity; ++i)
        *identity = m.instructions[i].id == int64_t(i);
    if (*identity)
        return pos;
    pos.reserve(m.instructions.size());
    for (size_t i = 0; i < m.instructions.size(); ++i)
        if (!pos.emplace(m.instructions[i].id, int64_t(i)).second)
            throw InputError(file, "instruction '" + std::string(m.instructions[i].name) + "'",
                "instruction id " + std::to_string(m.instructions[i].id) + " is used twice");
    return pos;
}

struct GraphStructure
{
    NdArray<float> nodeFeat;
    NdArray<int64_t> nodeOpcode;
    NdArray<int64_t> edgeIndex;
    NdArray<int64_t> nodeSplits;
};

GraphStructure structureOf(const HloModule& m, const std::string& file, const FeaturizeOptions& options)
{
    GraphStructure g;
    const int64_t n = int64_t(m.instructions.size());
    if (n == 0)
        throw InputError(file, "", "the module has no instructions");
    g.nodeFeat = featurizeNodes(m, options.repad);
    g.nodeOpcode = NdArray<int64_t>({ n });
    for (int64_t i = 0; i < n; ++i)
        g.nodeOpcode[i] = featurizedOpcode(m.instructions[size_t(i)].opcode);

    bool identity = false;
    const auto pos = positionsById(m, file, &identity);
    auto positionOf = [&](int64_t id) -> int64_t {
        if (identity)
            return id >= 0 && id < n ? id : -1;
        auto it = pos.find(id);
        return it == pos.end() ? -1 : it->second;
    };
    std::unordered_map<int64_t, int64_t> rootPosition; // computation id -> position of its root
    for (const HloComputation& c : m.computations) {
        const int64_t root = positionOf(c.rootId);
        if (root < 0)
            throw InputError(file, "computation '" + std::string(c.name) + "'",
                "root id " + std::to_string(c.rootId) + " is not an instruction of the module");
        if (!rootPosition.emplace(c.id, root).second)
            throw InputError(file, "computation '" + std::string(c.name) + "'",
                "computation id " + std::to_string(c.id) + " is used twice");
    }
    // Edges [u, v] = u uses v (docs/formats.md §2.2).
    std::vector<int64_t> edges;
    edges.reserve(size_t(n) * 4);
    std::vector<int64_t> operands;
    for (int64_t u = 0; u < n; ++u) {
        const HloInstruction& inst = m.instructions[size_t(u)];
        const auto ids = m.span(inst.operandIds);
        operands.assign(ids.begin(), ids.end());
        std::sort(operands.begin(), operands.end());
        operands.erase(std::unique(operands.begin(), operands.end()), operands.end());
        const size_t first = edges.size();
        for (int64_t id : operands) {
            const int64_t v = positionOf(id);
            if (v < 0)
                throw InputError(file, "instruction '" + std::string(inst.name) + "'",
                    "operand id " + std::to_string(id) + " is not an instruction of the module");
            edges.push_back(u);
            edges.push_back(v);
        }
        for (int64_t cid : m.span(inst.calledComputationIds)) {
            auto it = rootPosition.find(cid);
            if (it == rootPosition.end())
                throw InputError(file, "instruction '" + std::string(inst.name) + "'",
                    "called computation id " + std::to_string(cid) + " does not exist");
            edges.push_back(u);
            edges.push_back(it->second);
        }
        if (options.sortEdges) { // rows of one node are contiguous: sort them by v
            auto* rows = reinterpret_cast<std::pair<int64_t, int64_t>*>(edges.data() + first);
            std::sort(rows, rows + (edges.size() - first) / 2);
        }
    }
    g.edgeIndex = NdArray<int64_t>::fromVector({ int64_t(edges.size() / 2), 2 }, edges);

    // node_splits (docs/formats.md §2.5): after each computation whose name contains cluster/while/cond.
    std::vector<int64_t> splits { 0 };
    int64_t cumulative = 0;
    for (const HloComputation& c : m.computations) {
        cumulative += c.instructionCount;
        if (c.name.find("cluster") != std::string_view::npos || c.name.find("while") != std::string_view::npos
            || c.name.find("cond") != std::string_view::npos)
            splits.push_back(cumulative);
    }
    if (splits.back() < n)
        splits.push_back(n);
    g.nodeSplits = NdArray<int64_t>::fromVector({ int64_t(splits.size()) }, splits);
    return g;
}

} // namespace

int featurizedOpcode(std::string_view opcode)
{
    const int id = opcodeId(opcode);
    if (id)
        return id;
    // Text-only async sugar: `X-start` / `X-update` / `X-done` wrapping opcode X (docs/formats.md §3).
    for (const auto& [suffix, async] : { std::pair { std::string_view("-start"), 115 },
             std::pair { std::string_view("-update"), 116 }, std::pair { std::string_view("-done"), 117 } }) {
        if (opcode.size() > suffix.size() && opcode.substr(opcode.size() - suffix.size()) == suffix
            && opcodeId(opcode.substr(0, opcode.size() - suffix.size())))
            return async;
    }
    return 0;
}

namespace {

// Feature rows [begin, end) of the flattened instruction list.
void featurizeRows(const HloModule& m, bool repad, NdArray<float>& feat, size_t begin, size_t end)
{
    const float pad = repad ? -1.0f : 0.0f;
    for (const HloComputation& c : m.computations) {
        const size_t first = std::max<size_t>(begin, c.firstInstruction);
        const size_t last = std::min<size_t>(end, size_t(c.firstInstruction) + c.instructionCount);
        for (size_t index = first; index < last; ++index) {
            const HloInstruction& inst = m.instructions[index];
            const HloShape& shape = m.shapes[inst.shape];
            const HloInstructionDetails& d = m.detailsOf(inst);
            float* f = feat.row(int64_t(index));
            std::fill_n(f, kNodeFeatures, 0.0f);
            f[0] = inst.id == c.rootId ? 1.0f : 0.0f;
            if (const int col = typeColumn(shape.elementType); col >= 0)
                f[col] = 1.0f;
            const auto dims = m.span(shape.dims);
            seq(f + 21, 6, dims.size(), [&](size_t i) { return dims[i]; });
            f[29] = shape.elementType == PrimitiveType::Tuple ? float(shape.tupleCount) : 0.0f;
            f[30] = float(inst.parameterNumber);
            noagg(f + 31, 6, m.span(inst.dimensions), pad);

            const HloWindowDimension* w = m.windowDims.data() + d.windowOffset;
            const size_t wn = d.windowCount;
            seq(f + 37, 6, wn, [&](size_t i) { return w[i].size; });
            seq(f + 45, 6, wn, [&](size_t i) { return w[i].stride; });
            seq(f + 53, 6, wn, [&](size_t i) { return w[i].paddingLow; });
            seq(f + 61, 6, wn, [&](size_t i) { return w[i].paddingHigh; });
            seq(f + 69, 6, wn, [&](size_t i) { return w[i].windowDilation; });
            seq(f + 77, 6, wn, [&](size_t i) { return w[i].baseDilation; });
            int64_t reversed = 0;
            for (size_t i = 0; i < wn; ++i) {
                if (i < 6)
                    f[85 + i] = w[i].reversal ? 1.0f : 0.0f;
                reversed += w[i].reversal;
            }
            f[91] = float(reversed);
            f[92] = float(int64_t(wn) - reversed);

            if (d.convolutionDims >= 0) {
                const HloConvolutionDims& cd = m.convolutionDims[size_t(d.convolutionDims)];
                f[93] = float(cd.inputBatch);
                f[94] = float(cd.inputFeature);
                noagg(f + 95, 4, m.span(cd.inputSpatial), pad);
                f[99] = float(cd.kernelInputFeature);
                f[100] = float(cd.kernelOutputFeature);
                noagg(f + 101, 4, m.span(cd.kernelSpatial), pad);
                f[105] = float(cd.outputBatch);
                f[106] = float(cd.outputFeature);
            } else {
                noagg(f + 95, 4, {}, pad);
                noagg(f + 101, 4, {}, pad);
            }
            f[107] = float(inst.featureGroupCount);
            f[108] = float(inst.batchGroupCount);

            const HloSliceDimension* s = m.slices.data() + d.sliceOffset;
            seq(f + 109, 2, d.sliceCount, [&](size_t i) { return s[i].start; });
            seq(f + 113, 2, d.sliceCount, [&](size_t i) { return s[i].stride; });
            seq(f + 117, 2, d.sliceCount, [&](size_t i) { return s[i].limit; });
            const auto sizes = m.span(d.dynamicSliceSizes);
            seq(f + 121, 2, sizes.size(), [&](size_t i) { return sizes[i]; });
            const HloPaddingDimension* p = m.paddings.data() + d.paddingOffset;
            seq(f + 125, 2, d.paddingCount, [&](size_t i) { return p[i].low; });
            seq(f + 129, 2, d.paddingCount, [&](size_t i) { return p[i].high; });
            f[133] = inst.isStable ? 1.0f : 0.0f;
            noagg(f + 134, 6, m.span(shape.minorToMajor), pad);
        }
    }
}

} // namespace

NdArray<float> featurizeNodes(const HloModule& m, bool repad)
{
    const int64_t n = int64_t(m.instructions.size());
    NdArray<float> feat({ n, kNodeFeatures }); // rows are zeroed one at a time, while in cache
    // Big modules: two threads, so that the fresh pages of node_feat are faulted in on both cores.
    if (n >= 20000) {
        const size_t half = size_t(n) / 2;
        std::thread other([&] { featurizeRows(m, repad, feat, half, size_t(n)); });
        featurizeRows(m, repad, feat, 0, half);
        other.join();
    } else {
        featurizeRows(m, repad, feat, 0, size_t(n));
    }
    return feat;
}

std::vector<int64_t> defaultConfigurableNodes(const HloModule& m)
{
    std::vector<int64_t> ids;
    for (size_t i = 0; i < m.instructions.size(); ++i) {
        const std::string_view op = m.instructions[i].opcode;
        if (op == "convolution" || op == "dot" || op == "reshape")
            ids.push_back(int64_t(i));
    }
    return ids;
}

GraphKind collectionOf(const ModuleTuningData& data)
{
    for (const TuningRun& r : data.runs)
        if (r.config == TuningRun::Config::Op)
            return GraphKind::Tile;
    return GraphKind::Layout;
}

namespace {

LayoutGraph layoutGraphOf(const HloModule& m, const ModuleTuningData& data, const std::string& file,
    const FeaturizeOptions& options, RunSelection* selection)
{
    GraphStructure s = structureOf(m, file, options);
    LayoutGraph g;
    const int64_t n = int64_t(m.instructions.size());

    std::vector<int64_t> configurable;
    if (!data.configIndexToNode.empty()) {
        for (size_t k = 0; k < data.configIndexToNode.size(); ++k) {
            const uint64_t node = data.configIndexToNode[k];
            if (node >= uint64_t(n))
                throw InputError(file, "config_index_to_node[" + std::to_string(k) + "]",
                    "node " + std::to_string(node) + " out of range [0, " + std::to_string(n) + ")");
            configurable.push_back(int64_t(node));
        }
    } else {
        configurable = defaultConfigurableNodes(m);
    }
    const int64_t nc = int64_t(configurable.size());

    // Run selection (docs/formats.md §5.1): module_config runs without error and with a profile, stored order;
    // the first kept default run must exist or every sample is dropped.
    RunSelection sel;
    sel.total = int64_t(data.runs.size());
    std::vector<const TuningRun*> kept;
    for (size_t r = 0; r < data.runs.size(); ++r) {
        const TuningRun& run = data.runs[r];
        if (run.error) {
            ++sel.errors;
            continue;
        }
        if (run.config != TuningRun::Config::Module || !run.hasProfile) {
            ++sel.skipped;
            continue;
        }
        if (run.computeTimeNs <= 0)
            throw InputError(file, "runs[" + std::to_string(r) + "]",
                "a kept run has compute_time_ns " + std::to_string(run.computeTimeNs) + " (must be > 0)");
        if (run.isDefault && sel.defaultRun < 0) {
            sel.defaultRun = int64_t(r);
            sel.defaultRuntime = run.computeTimeNs;
        }
        kept.push_back(&run);
    }
    if (sel.defaultRun < 0)
        kept.clear(); // no default run: the reference drops every sample
    sel.kept = int64_t(kept.size());
    if (selection)
        *selection = sel;

    const int64_t configs = int64_t(kept.size());
    g.nodeConfigFeat = NdArray<float>({ configs, nc, kLayoutConfigFeatures }, -1.0f);
    g.configRuntime = NdArray<int64_t>({ configs });
    for (int64_t c = 0; c < configs; ++c) {
        const TuningRun& run = *kept[size_t(c)];
        const size_t runIndex = size_t(&run - data.runs.data());
        if (int64_t(run.layoutNodes.size()) != nc)
            throw InputError(file, "runs[" + std::to_string(runIndex) + "].module_config.layout_config",
                "configures " + std::to_string(run.layoutNodes.size()) + " nodes but config_index_to_node lists "
                    + std::to_string(nc));
        for (int64_t k = 0; k < nc; ++k) {
            const auto& tensors = run.layoutNodes[size_t(k)];
            if (tensors.size() > 3)
                throw InputError(file,
                    "runs[" + std::to_string(runIndex) + "].layout_config.nodes[" + std::to_string(k) + "]",
                    std::to_string(tensors.size()) + " tensors (at most 3: output, input, kernel)");
            float* row = &g.nodeConfigFeat(c, k, 0);
            for (size_t t = 0; t < tensors.size(); ++t)
                for (size_t i = 0; i < std::min<size_t>(tensors[t].size(), 6); ++i)
                    row[6 * t + i] = float(tensors[t][i]);
        }
        g.configRuntime[c] = run.computeTimeNs;
        if (int64_t(runIndex) == sel.defaultRun)
            g.defaultConfig = c;
    }
    g.nodeFeat = std::move(s.nodeFeat);
    g.nodeOpcode = std::move(s.nodeOpcode);
    g.edgeIndex = std::move(s.edgeIndex);
    g.nodeSplits = std::move(s.nodeSplits);
    g.nodeConfigIds = NdArray<int64_t>::fromVector({ nc }, configurable);
    setPublishedStorage(g);
    validate(g, file, 0, /*checkNodeFeatures=*/false); // features are finite by construction
    return g;
}

} // namespace

LayoutGraph featurizeLayout(
    const ModuleTuningData& data, const std::string& file, const FeaturizeOptions& options, RunSelection* selection)
{
    requireModule(data, file);
    return layoutGraphOf(data.module, data, file, options, selection);
}

LayoutGraph featurizeLayout(const HloModule& module, const std::string& file, const FeaturizeOptions& options)
{
    if (module.computations.empty())
        throw InputError(file, "", "holds no HLO module");
    const ModuleTuningData none; // no runs, no configurable nodes given: the defaults
    return layoutGraphOf(module, none, file, options, nullptr);
}

TileGraph featurizeTile(
    const ModuleTuningData& data, const std::string& file, const FeaturizeOptions& options, RunSelection* selection)
{
    requireModule(data, file);
    // Module-level rules (docs/formats.md §5.2): more than one run, and every run has a tile size config.
    if (data.runs.size() <= 1)
        throw InputError(file, "runs",
            "a tile graph needs more than one tuning run (found " + std::to_string(data.runs.size()) + ")");
    for (size_t r = 0; r < data.runs.size(); ++r)
        if (data.runs[r].config != TuningRun::Config::Op || !data.runs[r].hasTileSizeConfig)
            throw InputError(file, "runs[" + std::to_string(r) + "]", "has no op_config.tile_size_config");
    RunSelection sel;
    sel.total = int64_t(data.runs.size());
    std::vector<const TuningRun*> kept;
    for (size_t r = 0; r < data.runs.size(); ++r) {
        const TuningRun& run = data.runs[r];
        if (run.error) {
            ++sel.errors;
            continue;
        }
        if (run.computeTimeNs <= 1) {
            ++sel.skipped;
            continue;
        }
        if (run.isDefault && sel.defaultRun < 0) {
            sel.defaultRun = int64_t(r);
            sel.defaultRuntime = run.computeTimeNs;
        }
        kept.push_back(&run);
    }
    sel.kept = int64_t(kept.size());
    if (selection)
        *selection = sel;
    if (sel.defaultRun < 0 || sel.defaultRuntime <= 0)
        throw InputError(file, "runs", "no usable default run: its runtime normalizes every tile sample");

    GraphStructure s = structureOf(data.module, file, options);
    TileGraph g;
    const int64_t configs = int64_t(kept.size());
    g.configFeat = NdArray<float>({ configs, kTileConfigFeatures }, 0.0f);
    g.configRuntime = NdArray<int64_t>({ configs });
    g.configRuntimeNormalizers = NdArray<int64_t>({ configs }, sel.defaultRuntime);
    for (int64_t c = 0; c < configs; ++c) {
        const TileSizeConfig& t = kept[size_t(c)]->tile;
        float* row = g.configFeat.row(c);
        seq(
            row, 6, t.kernelBounds.size(), [&](size_t i) { return t.kernelBounds[i]; }, 0);
        seq(
            row + 8, 6, t.outputBounds.size(), [&](size_t i) { return t.outputBounds[i]; }, 0);
        seq(
            row + 16, 6, t.inputBounds.size(), [&](size_t i) { return t.inputBounds[i]; }, 0);
        g.configRuntime[c] = kept[size_t(c)]->computeTimeNs;
    }
    g.nodeFeat = std::move(s.nodeFeat);
    g.nodeOpcode = std::move(s.nodeOpcode);
    g.edgeIndex = std::move(s.edgeIndex);
    setPublishedStorage(g);
    validate(g, file, 0, /*checkNodeFeatures=*/false); // features are finite by construction
    return g;
}

} // namespace tgraph
