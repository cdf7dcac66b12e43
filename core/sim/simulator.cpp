// SPDX-License-Identifier: Apache-2.0
#include "core/sim/simulator.h"

#include "core/graph/graph.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <unordered_map>
#include <unordered_set>

namespace tgraph {

namespace {

enum class Kind { Free, Elementwise, Matrix, Fusion, Reshape, Transpose, DataMovement, Reduce };

int elementBytes(int32_t type)
{
    switch (type) {
    case PrimitiveType::Pred:
    case PrimitiveType::S8:
    case PrimitiveType::U8:
        return 1;
    case PrimitiveType::S16:
    case PrimitiveType::U16:
    case PrimitiveType::F16:
    case PrimitiveType::BF16:
        return 2;
    case PrimitiveType::S64:
    case PrimitiveType::U64:
    case PrimitiveType::F64:
    case PrimitiveType::C64:
        return 8;
    case PrimitiveType::C128:
        return 16;
    default:
        return 4;
    }
}

Kind kindOf(std::string_view op)
{
    static const std::unordered_map<std::string_view, Kind> kinds = {
        { "parameter", Kind::Free },
        { "constant", Kind::Free },
        { "get-tuple-element", Kind::Free },
        { "tuple", Kind::Free },
        { "bitcast", Kind::Free },
        { "after-all", Kind::Free },
        { "partition-id", Kind::Free },
        { "replica-id", Kind::Free },
        { "while", Kind::Free },
        { "conditional", Kind::Free },
        { "call", Kind::Free },
        { "opt-barrier", Kind::Free },
        { "add-dependency", Kind::Free },
        { "domain", Kind::Free },
        { "convolution", Kind::Matrix },
        { "dot", Kind::Matrix },
        { "fusion", Kind::Fusion },
        { "reshape", Kind::Reshape },
        { "transpose", Kind::Transpose },
        { "copy", Kind::DataMovement },
        { "slice", Kind::DataMovement },
        { "concatenate", Kind::DataMovement },
        { "pad", Kind::DataMovement },
        { "gather", Kind::DataMovement },
        { "scatter", Kind::DataMovement },
        { "broadcast", Kind::DataMovement },
        { "dynamic-slice", Kind::DataMovement },
        { "dynamic-update-slice", Kind::DataMovement },
        { "reverse", Kind::DataMovement },
        { "sort", Kind::DataMovement },
        { "reduce", Kind::Reduce },
        { "reduce-window", Kind::Reduce },
        { "select-and-scatter", Kind::Reduce },
        { "all-reduce", Kind::Reduce },
        { "reduce-scatter", Kind::Reduce },
    };
    auto it = kinds.find(op);
    return it == kinds.end() ? Kind::Elementwise : it->second;
}

// Relative cost of one element of an element-wise op on the vector unit.
double opWeight(std::string_view op)
{
    if (op == "exponential" || op == "log" || op == "tanh" || op == "logistic" || op == "power" || op == "sine"
        || op == "cosine" || op == "exponential-minus-one" || op == "log-plus-one" || op == "atan2")
        return 8.0;
    if (op == "divide" || op == "rsqrt" || op == "sqrt" || op == "remainder" || op == "cbrt")
        return 4.0;
    return 1.0;
}

using Layout = std::vector<int>; // minor-to-major

// Ops whose output layout the compiler's layout assignment derives from their operands': when a
// producer's layout changes, they run in the new layout instead of forcing a copy back. Element-wise
// ops and the data movement that keeps the rank; not ops with their own layout constraints.
bool propagatesLayout(std::string_view op, Kind kind)
{
    static const std::unordered_set<std::string_view> fixed
        = { "custom-call", "iota", "rng", "rng-bit-generator", "rng-get-and-update-state", "all-gather", "all-to-all",
              "collective-permute", "send", "recv", "infeed", "outfeed", "fft", "cholesky", "triangular-solve",
              "copy-start", "copy-done", "async-start", "async-done", "get-dimension-size", "set-dimension-size",
              "batch-norm-training", "batch-norm-inference", "batch-norm-grad", "map", "stochastic-convert" };
    if (kind == Kind::Elementwise)
        return !fixed.count(op);
    return op == "slice" || op == "pad" || op == "concatenate" || op == "dynamic-slice" || op == "dynamic-update-slice"
        || op == "reverse";
}

struct Node
{
    Kind kind = Kind::Free;
    double multiplier = 0; // executions per run of the module
    int bytes = 4; // element size
    bool tuple = false;
    std::vector<int64_t> dims;
    Layout defaultLayout;
    std::vector<int64_t> operands; // positions
    double flops = 0; // layout-independent work
    bool matrixInside = false; // a fusion containing a convolution or dot
    int config = -1; // index among the configurable nodes
    // matrix layout preferences (conv: input feature, kernel input/output feature, output feature;
    // dot: lhs and rhs contracting dims, the output's last dim)
    int inputMinor = -1, kernelMinor = -1, kernelSecond = -1, outputMinor = -1, lhsContract = -1, rhsContract = -1;
    bool isDot = false;
    std::vector<int64_t> permutation; // transpose
    // Layout propagation: the operand (index into operands) whose layout this op's output takes
    // when a configuration changes it (element-wise ops, loop fusions, slices...), -1 when the
    // output layout is fixed by the compiler.
    int follow = -1;
};

int64_t elements(const std::vector<int64_t>& dims)
{
    int64_t n = 1;
    for (int64_t d : dims)
        n *= std::max<int64_t>(d, 1);
    return n;
}

// Bytes of a tensor under a layout, its two most-minor dims padded to the (sublane, 128) tile.
double paddedBytes(const Node& n, const Layout& layout, const SimulatorParams& p)
{
    if (n.tuple)
        return 0;
    if (n.dims.empty() || layout.size() != n.dims.size())
        return double(n.bytes) * double(elements(n.dims));
    const int sublanes = std::max(1, p.sublaneTile32 * 4 / std::min(n.bytes, 4));
    const int64_t minor = std::max<int64_t>(n.dims[size_t(layout[0])], 1);
    const int64_t second = layout.size() > 1 ? std::max<int64_t>(n.dims[size_t(layout[1])], 1) : 1;
    double rest = 1;
    for (size_t k = 2; k < layout.size(); ++k)
        rest *= double(std::max<int64_t>(n.dims[size_t(layout[k])], 1));
    const double paddedMinor = double((minor + p.laneTile - 1) / p.laneTile * p.laneTile);
    const double paddedSecond = double((second + sublanes - 1) / sublanes * sublanes);
    return rest * paddedSecond * paddedMinor * double(n.bytes);
}

// A config's pinned most-minor dims completed with the rest of `base` in its order; `base` when
// the pins are absent or invalid for this rank.
Layout complete(const float* six, const Layout& base)
{
    Layout out;
    const int rank = int(base.size());
    for (int k = 0; k < 6 && six[k] >= 0; ++k) {
        const int d = int(six[k]);
        if (d >= rank || std::find(out.begin(), out.end(), d) != out.end())
            return base;
        out.push_back(d);
    }
    if (out.empty())
        return base;
    for (int d : base)
        if (std::find(out.begin(), out.end(), d) == out.end())
            out.push_back(d);
    return out;
}

bool allDefault(const float* six)
{
    for (int k = 0; k < 6; ++k)
        if (six[k] >= 0)
            return false;
    return true;
}

// True when both layouts store the elements in row-major order once size-1 dims are ignored.
bool rowMajor(const std::vector<int64_t>& dims, const Layout& layout)
{
    int previous = int(dims.size());
    for (int d : layout) {
        if (dims[size_t(d)] == 1)
            continue;
        if (d > previous)
            return false;
        previous = d;
    }
    return true;
}

int64_t tripCount(const HloModule& m, const HloInstruction& inst, int64_t fallback)
{
    const HloInstructionDetails& d = m.detailsOf(inst);
    for (uint32_t k = 0; k < d.attributeCount; ++k) {
        const HloAttribute& a = m.attributes[d.attributeOffset + k];
        if (a.name != "backend_config")
            continue;
        const size_t at = a.value.find("known_trip_count");
        if (at == std::string_view::npos)
            continue;
        size_t i = a.value.find("\"n\"", at);
        if (i == std::string_view::npos)
            continue;
        i += 3;
        while (i < a.value.size() && !(a.value[i] >= '0' && a.value[i] <= '9'))
            ++i;
        int64_t n = 0;
        while (i < a.value.size() && a.value[i] >= '0' && a.value[i] <= '9')
            n = n * 10 + (a.value[i++] - '0');
        if (n > 0)
            return n;
    }
    return fallback;
}

} // namespace

std::string SimulatorParams::explain() const
{
    char buf[4096];
    std::snprintf(buf, sizeof buf,
        "matrixFlops          = %.4g FLOP/s  (peak of the matrix units; convolutions and dots)\n"
        "vectorFlops          = %.4g FLOP/s  (element-wise work)\n"
        "hbmBandwidth         = %.4g B/s     (memory bandwidth)\n"
        "laneTile             = %d           (the minor-most dim is padded to a multiple of this)\n"
        "sublaneTile32        = %d           (second-minor padding for 32-bit types; x2 for 16-bit, x4 for 8-bit)\n"
        "opOverheadNs         = %.4g ns      (fixed cost of every executed op or fused kernel)\n"
        "matrixGoodEfficiency = %.3g         (conv/dot with their feature/contracting dims minor)\n"
        "matrixPenalty        = %.3g         (efficiency factor per operand/output whose layout puts them elsewhere)\n"
        "copyEfficiency       = %.3g         (share of the bandwidth a transposing copy achieves)\n"
        "defaultTripCount     = %lld         (while loops without a known trip count)\n"
        "noiseSigma           = %.4g         (multiplicative log-normal measurement noise)\n"
        "failureRate          = %.4g         (share of non-default configs that fail, as error runs)\n"
        "vmemBytes            = %.4g B       (scratchpad; a double-buffered tile must fit)\n"
        "tileOverheadNs       = %.4g ns      (fixed cost per tile)\n",
        matrixFlops, vectorFlops, hbmBandwidth, laneTile, sublaneTile32, opOverheadNs, matrixGoodEfficiency,
        matrixPenalty, copyEfficiency, (long long)defaultTripCount, noiseSigma, failureRate, vmemBytes, tileOverheadNs);
    return buf;
}

bool SimulatorParams::assign(const std::string& assignments, std::string* error)
{
    SimulatorParams next = *this;
    struct Field
    {
        const char* name;
        double* real;
        int* small;
        int64_t* count;
        double min, max; // valid range, inclusive
    };
    const Field fields[] = {
        { "matrixFlops", &next.matrixFlops, nullptr, nullptr, 1e6, 1e20 },
        { "vectorFlops", &next.vectorFlops, nullptr, nullptr, 1e6, 1e20 },
        { "hbmBandwidth", &next.hbmBandwidth, nullptr, nullptr, 1e6, 1e16 },
        { "laneTile", nullptr, &next.laneTile, nullptr, 1, 4096 },
        { "sublaneTile32", nullptr, &next.sublaneTile32, nullptr, 1, 4096 },
        { "opOverheadNs", &next.opOverheadNs, nullptr, nullptr, 0, 1e9 },
        { "matrixGoodEfficiency", &next.matrixGoodEfficiency, nullptr, nullptr, 1e-6, 1 },
        { "matrixPenalty", &next.matrixPenalty, nullptr, nullptr, 1e-6, 1 },
        { "copyEfficiency", &next.copyEfficiency, nullptr, nullptr, 1e-6, 1e6 },
        { "defaultTripCount", nullptr, nullptr, &next.defaultTripCount, 1, 1e9 },
        { "noiseSigma", &next.noiseSigma, nullptr, nullptr, 0, 1 },
        { "failureRate", &next.failureRate, nullptr, nullptr, 0, 0.99 },
        { "vmemBytes", &next.vmemBytes, nullptr, nullptr, 1024, 1e15 },
        { "tileOverheadNs", &next.tileOverheadNs, nullptr, nullptr, 0, 1e9 },
    };
    size_t at = 0;
    while (at <= assignments.size()) {
        size_t end = assignments.find(',', at);
        if (end == std::string::npos)
            end = assignments.size();
        const std::string item = assignments.substr(at, end - at);
        at = end + 1;
        if (item.empty())
            continue;
        const size_t eq = item.find('=');
        const std::string name = item.substr(0, eq);
        const Field* field = nullptr;
        for (const Field& f : fields)
            if (name == f.name)
                field = &f;
        if (!field) {
            *error = "unknown simulator parameter '" + name + "' (see tgraph synth --explain)";
            return false;
        }
        const std::string text = eq == std::string::npos ? std::string() : item.substr(eq + 1);
        char* stop = nullptr;
        const double v = text.empty() ? std::nan("") : std::strtod(text.c_str(), &stop);
        const bool integral = !field->real;
        if (!(v >= field->min && v <= field->max) || (stop && *stop) || (integral && v != std::floor(v))) {
            char range[96];
            std::snprintf(
                range, sizeof range, "%s in %g..%g", integral ? "an integer" : "a number", field->min, field->max);
            *error = "simulator parameter " + name + " must be " + range + ", not '" + text + "'";
            return false;
        }
        if (field->real)
            *field->real = v;
        else if (field->small)
            *field->small = int(v);
        else
            *field->count = int64_t(v);
    }
    *this = next;
    return true;
}

// ---------------------------------------------------------------------------------------------
// Layout simulator

struct LayoutSimulator::Impl
{
    const SimulatorParams& p;
    std::vector<Node> nodes;
    std::vector<int64_t> configurable; // node positions, config order
    std::vector<int64_t> chain; // configurable nodes and the ops that follow their layouts, in order
    std::vector<int> chainIndex; // node -> index in chain, -1 when its layout never changes
    std::vector<int64_t> affected; // the chain and its consumers
    // affected node -> the configurable node (config order) whose layout reaches it: along the
    // chain for followers, through the first chain operand for consumers; -1 for none
    std::vector<int> owner;
    std::vector<double> defaultCost; // ns per execution under default layouts
    double defaultTotal = 0;

    explicit Impl(const SimulatorParams& params)
        : p(params)
    { }

    // The output layouts of the chain under a config row (nullptr: every layout default): a
    // configured node takes its row's layout, a follower its followed operand's, in order.
    std::vector<Layout> chainLayouts(const float* row) const
    {
        std::vector<Layout> out(row ? chain.size() : 0);
        if (!row)
            return out;
        for (size_t k = 0; k < chain.size(); ++k) {
            const Node& n = nodes[size_t(chain[k])];
            if (n.config >= 0) {
                const float* six = row + int64_t(n.config) * kLayoutConfigFeatures;
                out[k] = allDefault(six) ? n.defaultLayout : complete(six, n.defaultLayout);
            } else {
                out[k] = layoutOf(n.operands[size_t(n.follow)], out);
            }
        }
        return out;
    }

    // Node i's output layout given the chain's layouts (empty: the defaults).
    const Layout& layoutOf(int64_t i, const std::vector<Layout>& chainLayout) const
    {
        const int k = chainIndex[size_t(i)];
        if (k < 0 || chainLayout.empty() || chainLayout[size_t(k)].empty())
            return nodes[size_t(i)].defaultLayout;
        return chainLayout[size_t(k)];
    }

    // ns of one execution of node i under a config (row = nullptr: every layout default).
    double cost(int64_t i, const float* row, const std::vector<Layout>& chainLayout) const
    {
        const Node& n = nodes[size_t(i)];
        const Layout& out = layoutOf(i, chainLayout);
        double bytes = paddedBytes(n, out, p);
        double copies = 0;
        Layout expected[2]; // the layouts this op reads its first two operands in
        for (size_t j = 0; j < n.operands.size(); ++j) {
            const int64_t producer = n.operands[j];
            const Node& pn = nodes[size_t(producer)];
            const Layout& have = layoutOf(producer, chainLayout);
            Layout want;
            if (n.config >= 0 && row && j < 2) {
                const float* six = row + int64_t(n.config) * kLayoutConfigFeatures + 6 * (j + 1);
                // all -1: "let the compiler choose", so it takes what the producer gives
                want = allDefault(six) ? have : complete(six, pn.defaultLayout);
            } else if (n.follow >= 0 && !pn.tuple && pn.defaultLayout == n.defaultLayout) {
                want = out; // a follower reads its same-layout operands in its own (propagated) layout
            } else {
                want = pn.defaultLayout; // layout assignment planned the producer's default layout
            }
            if (!pn.tuple && have != want) // a transposing copy on this edge
                copies += (paddedBytes(pn, have, p) + paddedBytes(pn, want, p)) / (p.hbmBandwidth * p.copyEfficiency)
                    * 1e9;
            bytes += paddedBytes(pn, want, p);
            if (j < 2)
                expected[j] = std::move(want);
        }
        const double memoryNs = bytes / p.hbmBandwidth * 1e9;
        double ns = 0;
        switch (n.kind) {
        case Kind::Free:
            ns = 0;
            break;
        case Kind::Reshape: {
            const Node& in = nodes[size_t(n.operands.empty() ? i : n.operands[0])];
            const bool bitcast = n.operands.empty() || (rowMajor(in.dims, expected[0]) && rowMajor(n.dims, out))
                || (in.dims == n.dims && expected[0] == out);
            ns = bitcast ? 0.0 : p.opOverheadNs + memoryNs / p.copyEfficiency;
            break;
        }
        case Kind::Transpose: {
            bool bitcast = !n.operands.empty() && n.permutation.size() == out.size();
            for (size_t k = 0; bitcast && k < out.size(); ++k)
                bitcast = expected[0].size() == out.size() && expected[0][k] == int(n.permutation[size_t(out[k])]);
            ns = bitcast ? 0.0 : p.opOverheadNs + memoryNs / p.copyEfficiency;
            break;
        }
        case Kind::Matrix: {
            double efficiency = p.matrixGoodEfficiency;
            auto penalize = [&](bool good) {
                if (!good)
                    efficiency *= p.matrixPenalty;
            };
            auto inMinor = [](const Layout& l, int d, int within) {
                for (int k = 0; k < std::min<int>(within, int(l.size())); ++k)
                    if (l[size_t(k)] == d)
                        return true;
                return d < 0 || l.empty();
            };
            if (n.isDot) {
                penalize(inMinor(expected[0], n.lhsContract, 2));
                penalize(inMinor(expected[1], n.rhsContract, 2));
                penalize(inMinor(out, n.outputMinor, 1));
            } else {
                penalize(inMinor(expected[0], n.inputMinor, 1));
                penalize(inMinor(expected[1], n.kernelMinor, 1));
                penalize(inMinor(expected[1], n.kernelSecond, 2));
                penalize(inMinor(out, n.outputMinor, 1));
            }
            ns = p.opOverheadNs + std::max(n.flops / (p.matrixFlops * efficiency) * 1e9, memoryNs);
            break;
        }
        case Kind::Fusion:
            ns = p.opOverheadNs
                + std::max(n.flops / (n.matrixInside ? p.matrixFlops * p.matrixGoodEfficiency : p.vectorFlops) * 1e9,
                    memoryNs);
            break;
        default:
            ns = p.opOverheadNs + std::max(n.flops / p.vectorFlops * 1e9, memoryNs);
        }
        return ns + copies;
    }
};

LayoutSimulator::LayoutSimulator(const HloModule& m, std::vector<int64_t> configurableNodes, SimulatorParams params)
    : m_impl(nullptr)
    , m_params(params)
{
    auto impl = std::make_unique<Impl>(m_params);
    const size_t count = m.instructions.size();
    impl->nodes.resize(count);
    impl->configurable = std::move(configurableNodes);
    std::unordered_map<int64_t, int64_t> position;
    for (size_t i = 0; i < count; ++i)
        position.emplace(m.instructions[i].id, int64_t(i));
    std::unordered_map<int64_t, size_t> computationById;
    for (size_t c = 0; c < m.computations.size(); ++c)
        computationById.emplace(m.computations[c].id, c);

    // Static facts per instruction.
    for (size_t i = 0; i < count; ++i) {
        const HloInstruction& inst = m.instructions[i];
        const HloShape& s = m.shapes[inst.shape];
        Node& n = impl->nodes[i];
        n.kind = kindOf(inst.opcode);
        n.tuple = s.elementType == PrimitiveType::Tuple;
        n.bytes = elementBytes(s.elementType);
        for (int64_t d : m.span(s.dims))
            n.dims.push_back(d);
        for (int64_t d : m.span(s.minorToMajor))
            n.defaultLayout.push_back(int(d));
        if (n.defaultLayout.size() != n.dims.size()) { // no or partial layout: row-major
            n.defaultLayout.clear();
            for (int d = int(n.dims.size()) - 1; d >= 0; --d)
                n.defaultLayout.push_back(d);
        }
        for (int64_t id : m.span(inst.operandIds)) {
            auto it = position.find(id);
            if (it != position.end())
                n.operands.push_back(it->second);
        }
        if (n.kind == Kind::Transpose)
            for (int64_t d : m.span(inst.dimensions))
                n.permutation.push_back(d);
    }
    // Work (FLOPs) per instruction; needs operand shapes.
    for (size_t i = 0; i < count; ++i) {
        const HloInstruction& inst = m.instructions[i];
        Node& n = impl->nodes[i];
        const double outElems = double(elements(n.dims));
        const HloInstructionDetails& det = m.detailsOf(inst);
        if (inst.opcode == "convolution" && n.operands.size() >= 2 && det.convolutionDims >= 0) {
            const HloConvolutionDims& c = m.convolutionDims[size_t(det.convolutionDims)];
            const Node& kernel = impl->nodes[size_t(n.operands[1])];
            double spatial = 1;
            for (int64_t d : m.span(c.kernelSpatial))
                if (d >= 0 && size_t(d) < kernel.dims.size())
                    spatial *= double(kernel.dims[size_t(d)]);
            const double in = size_t(c.kernelInputFeature) < kernel.dims.size()
                ? double(kernel.dims[size_t(c.kernelInputFeature)])
                : 1.0;
            n.flops = 2.0 * outElems * spatial * in;
            n.inputMinor = int(c.inputFeature);
            n.kernelMinor = int(c.kernelOutputFeature);
            n.kernelSecond = int(c.kernelInputFeature);
            n.outputMinor = int(c.outputFeature);
        } else if (inst.opcode == "dot" && n.operands.size() >= 2) {
            n.isDot = true;
            const Node& lhs = impl->nodes[size_t(n.operands[0])];
            const Node& rhs = impl->nodes[size_t(n.operands[1])];
            double k = 0;
            if (det.dotDims >= 0) {
                const HloDotDims& d = m.dotDims[size_t(det.dotDims)];
                k = 1;
                for (int64_t c : m.span(d.lhsContracting))
                    if (c >= 0 && size_t(c) < lhs.dims.size())
                        k *= double(lhs.dims[size_t(c)]);
                const auto lc = m.span(d.lhsContracting);
                const auto rc = m.span(d.rhsContracting);
                n.lhsContract = lc.empty() ? -1 : int(lc[0]);
                n.rhsContract = rc.empty() ? -1 : int(rc[0]);
            } else { // no dimension numbers: K from the sizes (exact without batch dims)
                k = std::sqrt(double(elements(lhs.dims)) * double(elements(rhs.dims)) / std::max(outElems, 1.0));
            }
            n.flops = 2.0 * outElems * k;
            n.outputMinor = n.dims.empty() ? -1 : int(n.dims.size()) - 1;
        } else if (n.kind == Kind::Reduce && !n.operands.empty()) {
            const Node& in = impl->nodes[size_t(n.operands[0])];
            double window = 1;
            for (uint32_t w = 0; w < det.windowCount; ++w)
                window *= double(std::max<int64_t>(m.windowDims[det.windowOffset + w].size, 1));
            n.flops = std::max(double(elements(in.dims)), outElems * window);
        } else if (n.kind == Kind::Elementwise) {
            n.flops = outElems * opWeight(inst.opcode);
        }
    }
    // Fusions carry the work of their fused computations (post-order: callees come first).
    std::vector<double> computationFlops(m.computations.size(), 0.0);
    std::vector<bool> computationMatrix(m.computations.size(), false);
    for (size_t c = 0; c < m.computations.size(); ++c) {
        const HloComputation& comp = m.computations[c];
        for (uint32_t k = 0; k < comp.instructionCount; ++k) {
            const size_t i = comp.firstInstruction + k;
            Node& n = impl->nodes[i];
            if (n.kind == Kind::Fusion) {
                for (int64_t cid : m.span(m.instructions[i].calledComputationIds)) {
                    auto it = computationById.find(cid);
                    if (it != computationById.end() && it->second < c) {
                        n.flops += computationFlops[it->second];
                        n.matrixInside = n.matrixInside || computationMatrix[it->second];
                    }
                }
            }
            computationFlops[c] += n.flops;
            computationMatrix[c] = computationMatrix[c] || n.kind == Kind::Matrix || n.matrixInside;
        }
    }
    // Executions: the entry once, while bodies x trip count; fused computations and reducers are
    // costed inside their callers (multiplier 0). Callers come after callees: walk backwards.
    std::vector<double> multiplier(m.computations.size(), 0.0);
    if (!m.computations.empty())
        multiplier[size_t(m.entryIndex())] = 1.0;
    for (size_t c = m.computations.size(); c-- > 0;) {
        const HloComputation& comp = m.computations[c];
        for (uint32_t k = 0; k < comp.instructionCount; ++k) {
            const size_t i = comp.firstInstruction + k;
            const HloInstruction& inst = m.instructions[i];
            impl->nodes[i].multiplier = multiplier[c];
            const auto called = m.span(inst.calledComputationIds);
            double share = 0;
            if (inst.opcode == "while")
                share = double(tripCount(m, inst, m_params.defaultTripCount));
            else if (inst.opcode == "conditional")
                share = called.empty() ? 0.0 : 1.0 / double(called.size());
            else if (inst.opcode == "call" || inst.opcode == "async-start" || inst.opcode == "custom-call")
                share = 1.0;
            for (int64_t cid : called) {
                auto it = computationById.find(cid);
                if (it != computationById.end() && it->second < c)
                    multiplier[it->second] += multiplier[c] * share;
            }
        }
    }
    // Configurable nodes.
    for (size_t k = 0; k < impl->configurable.size(); ++k) {
        const int64_t node = impl->configurable[k];
        if (node >= 0 && size_t(node) < count)
            impl->nodes[size_t(node)].config = int(k);
    }
    // Layout propagation: which operand each op follows. Not the roots of executed computations
    // (entry results and loop state keep their layouts), not fusions around a convolution or dot
    // (their layout is the compiler's), only operands defined earlier with the op's own default
    // layout (so the compiler default config is unchanged).
    std::vector<bool> fixedRoot(count, false);
    for (const HloComputation& comp : m.computations) {
        auto root = position.find(comp.rootId);
        if (root != position.end())
            fixedRoot[size_t(root->second)] = true;
    }
    for (size_t i = 0; i < count; ++i) {
        Node& n = impl->nodes[i];
        if (n.config >= 0 || n.tuple || n.dims.size() < 2 || (fixedRoot[i] && n.multiplier > 0)
            || (n.kind == Kind::Fusion ? n.matrixInside : !propagatesLayout(m.instructions[i].opcode, n.kind)))
            continue;
        for (size_t j = 0; j < n.operands.size() && n.follow < 0; ++j) {
            const Node& pn = impl->nodes[size_t(n.operands[j])];
            if (n.operands[j] < int64_t(i) && !pn.tuple && pn.defaultLayout == n.defaultLayout)
                n.follow = int(j);
        }
    }
    // The chain: configurable nodes and, transitively, the ops following them (in position order:
    // an op follows an earlier operand). Affected: the chain and its consumers.
    impl->chainIndex.assign(count, -1);
    std::vector<bool> inChain(count, false), affected(count, false);
    for (size_t i = 0; i < count; ++i) {
        const Node& n = impl->nodes[i];
        inChain[i] = n.config >= 0 || (n.follow >= 0 && inChain[size_t(n.operands[size_t(n.follow)])]);
        if (inChain[i]) {
            impl->chainIndex[i] = int(impl->chain.size());
            impl->chain.push_back(int64_t(i));
            affected[i] = true;
        }
        for (int64_t producer : n.operands)
            if (inChain[size_t(producer)])
                affected[i] = true;
    }
    impl->owner.assign(count, -1);
    for (size_t i = 0; i < count; ++i) {
        const Node& n = impl->nodes[i];
        if (n.config >= 0)
            impl->owner[i] = n.config;
        else if (inChain[i])
            impl->owner[i] = impl->owner[size_t(n.operands[size_t(n.follow)])];
        else if (affected[i])
            for (int64_t producer : n.operands)
                if (inChain[size_t(producer)]) {
                    impl->owner[i] = impl->owner[size_t(producer)];
                    break;
                }
    }
    for (size_t i = 0; i < count; ++i)
        if (affected[i])
            impl->affected.push_back(int64_t(i));
    impl->defaultCost.resize(count);
    for (size_t i = 0; i < count; ++i) {
        impl->defaultCost[i] = impl->nodes[i].multiplier > 0 ? impl->cost(int64_t(i), nullptr, {}) : 0.0;
        impl->defaultTotal += impl->nodes[i].multiplier * impl->defaultCost[i];
    }
    m_impl = impl.release();
}

LayoutSimulator::~LayoutSimulator() { delete m_impl; }

int64_t LayoutSimulator::configurableCount() const { return int64_t(m_impl->configurable.size()); }

double LayoutSimulator::runtime(const float* row) const
{
    double total = m_impl->defaultTotal;
    const std::vector<Layout> chain = m_impl->chainLayouts(row);
    for (int64_t i : m_impl->affected) {
        const Node& n = m_impl->nodes[size_t(i)];
        if (n.multiplier > 0)
            total += n.multiplier * (m_impl->cost(i, row, chain) - m_impl->defaultCost[size_t(i)]);
    }
    return std::max(total, 1.0);
}

std::vector<double> LayoutSimulator::breakdown(const float* row) const
{
    std::vector<double> out(m_impl->nodes.size());
    for (size_t i = 0; i < out.size(); ++i)
        out[i] = m_impl->nodes[i].multiplier * m_impl->defaultCost[i];
    const std::vector<Layout> chain = m_impl->chainLayouts(row);
    for (int64_t i : m_impl->affected)
        out[size_t(i)] = m_impl->nodes[size_t(i)].multiplier * m_impl->cost(i, row, chain);
    return out;
}

double LayoutSimulator::configurableCosts(const float* row, double* own, double* region) const
{
    const size_t nc = m_impl->configurable.size();
    std::fill_n(own, nc, 0.0);
    std::fill_n(region, nc, 0.0);
    const std::vector<Layout> chain = m_impl->chainLayouts(row);
    double total = m_impl->defaultTotal;
    for (int64_t i : m_impl->affected) {
        const Node& n = m_impl->nodes[size_t(i)];
        if (n.multiplier <= 0)
            continue;
        const double cost = n.multiplier * (row ? m_impl->cost(i, row, chain) : m_impl->defaultCost[size_t(i)]);
        total += cost - n.multiplier * m_impl->defaultCost[size_t(i)];
        const int k = m_impl->owner[size_t(i)];
        if (k < 0)
            continue;
        region[k] += cost;
        if (n.config == k)
            own[k] += cost;
    }
    return std::max(total, 1.0);
}

std::vector<int64_t> LayoutSimulator::measure(
    const NdArray<float>& configs, uint64_t seed, std::vector<bool>* failed) const
{
    const int64_t c = configs.dim(0);
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> noise(0.0, 1.0);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<int64_t> out(static_cast<size_t>(c));
    if (failed)
        failed->assign(size_t(c), false);
    for (int64_t k = 0; k < c; ++k) {
        const double ns = runtime(configs.row(k)) * std::exp(m_params.noiseSigma * noise(rng));
        out[size_t(k)] = std::max<int64_t>(1, std::llround(ns));
        const bool fails = k > 0 && unit(rng) < m_params.failureRate;
        if (failed)
            (*failed)[size_t(k)] = fails;
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// Tile simulator

TileSimulator::TileSimulator(const HloModule& kernel, SimulatorParams params)
    : m_params(params)
{
    if (kernel.computations.empty())
        return;
    const HloComputation& entry = kernel.computations[size_t(kernel.entryIndex())];
    std::unordered_map<int64_t, const HloInstruction*> byId;
    for (const HloInstruction& i : kernel.instructionsOf(entry))
        byId.emplace(i.id, &i);
    auto root = byId.find(entry.rootId);
    if (root == byId.end())
        return;
    uint32_t outShape = root->second->shape;
    if (kernel.shapes[outShape].elementType == PrimitiveType::Tuple && kernel.shapes[outShape].tupleCount > 0)
        outShape = kernel.shapes[outShape].firstTupleShape;
    const HloShape& out = kernel.shapes[outShape];
    for (int64_t d : kernel.span(out.dims))
        m_outputDims.push_back(std::max<int64_t>(d, 1));
    if (m_outputDims.empty())
        return;
    m_elementBytes = elementBytes(out.elementType);
    const double outElems = double(elements(m_outputDims));
    double inputBytes = 0, flops = 0;
    for (const HloInstruction& i : kernel.instructionsOf(entry)) {
        const HloShape& s = kernel.shapes[i.shape];
        std::vector<int64_t> dims(kernel.span(s.dims).begin(), kernel.span(s.dims).end());
        if (i.opcode == "parameter")
            inputBytes += double(elements(dims)) * elementBytes(s.elementType);
        const Kind kind = kindOf(i.opcode);
        if (kind == Kind::Matrix)
            m_matrix = true;
        if (kind == Kind::Elementwise || kind == Kind::Reduce || kind == Kind::Matrix)
            flops += double(elements(dims)) * (kind == Kind::Matrix ? 64.0 : opWeight(i.opcode));
    }
    m_inputBytesPerOutput = inputBytes / outElems;
    m_flopsPerOutput = flops / outElems;
}

double TileSimulator::runtime(const TileChoice& tile) const { return tileTime(tile, m_params.vmemBytes); }

double TileSimulator::tileTime(const TileChoice& tile, double vmemBytes) const
{
    const size_t rank = m_outputDims.size();
    if (tile.outputBounds.size() != rank)
        return -1;
    double tiles = 1, tileElems = 1;
    const int sublanes = std::max(1, m_params.sublaneTile32 * 4 / std::min<int>(int(m_elementBytes), 4));
    for (size_t d = 0; d < rank; ++d) {
        const int64_t t = std::clamp<int64_t>(tile.outputBounds[d], 1, m_outputDims[d]);
        tiles *= double((m_outputDims[d] + t - 1) / t);
        int64_t padded = t;
        if (d + 1 == rank)
            padded = (t + m_params.laneTile - 1) / m_params.laneTile * m_params.laneTile;
        else if (d + 2 == rank)
            padded = (t + sublanes - 1) / sublanes * sublanes;
        tileElems *= double(padded);
    }
    const double inBytes = tileElems * m_inputBytesPerOutput;
    const double outBytes = tileElems * double(m_elementBytes);
    if (2.0 * (inBytes + outBytes) > vmemBytes)
        return -1;
    const double rate = m_matrix ? m_params.matrixFlops * m_params.matrixGoodEfficiency : m_params.vectorFlops;
    const double perTile
        = std::max(tileElems * m_flopsPerOutput / rate, (inBytes + outBytes) / m_params.hbmBandwidth) * 1e9
        + m_params.tileOverheadNs;
    return tiles * perTile;
}

std::vector<TileChoice> TileSimulator::candidates(int64_t count, uint64_t seed) const
{
    std::vector<TileChoice> out;
    const size_t rank = m_outputDims.size();
    if (rank == 0 || count < 1)
        return out;
    // Valid tiles as a TPU compiler enumerates them: the minor-most dim a multiple of the lane tile
    // (128), the second-minor a multiple of the sublane tile (8), others powers of two - or full dims.
    std::vector<std::vector<int64_t>> options(rank);
    for (size_t d = 0; d < rank; ++d) {
        const int64_t step = d + 1 == rank ? m_params.laneTile : d + 2 == rank ? m_params.sublaneTile32 : 1;
        for (int64_t v = step; v < m_outputDims[d]; v *= 2)
            options[d].push_back(v);
        options[d].push_back(m_outputDims[d]);
    }
    auto make = [&](const std::vector<int64_t>& bounds) {
        TileChoice t;
        t.outputBounds = bounds;
        for (size_t d = 0; d < rank; ++d)
            t.kernelBounds.push_back((m_outputDims[d] + bounds[d] - 1) / bounds[d]);
        return t;
    };
    // The compiler's default: the largest tile (by elements) that fits in half the scratchpad.
    std::vector<int64_t> best(rank, 1);
    double bestElems = 0;
    std::vector<size_t> index(rank, 0);
    double space = 1;
    for (const auto& o : options)
        space *= double(o.size());
    const bool exhaustive = space <= 20000;
    std::mt19937_64 rng(seed);
    auto consider = [&](const std::vector<int64_t>& bounds) {
        double elems = 1;
        for (int64_t b : bounds)
            elems *= double(b);
        if (elems > bestElems && tileTime(make(bounds), m_params.vmemBytes / 2) > 0) {
            bestElems = elems;
            best = bounds;
        }
    };
    std::vector<std::vector<int64_t>> pool;
    if (exhaustive) {
        for (;;) {
            std::vector<int64_t> bounds(rank);
            for (size_t d = 0; d < rank; ++d)
                bounds[d] = options[d][index[d]];
            consider(bounds);
            pool.push_back(bounds);
            size_t d = 0;
            while (d < rank && ++index[d] == options[d].size())
                index[d++] = 0;
            if (d == rank)
                break;
        }
        std::shuffle(pool.begin(), pool.end(), rng);
    } else {
        for (int64_t k = 0; k < 20 * count + 200; ++k) {
            std::vector<int64_t> bounds(rank);
            for (size_t d = 0; d < rank; ++d)
                bounds[d] = options[d][rng() % options[d].size()];
            consider(bounds);
            pool.push_back(bounds);
        }
    }
    out.push_back(make(best));
    std::sort(pool.begin(), pool.end());
    pool.erase(std::unique(pool.begin(), pool.end()), pool.end());
    std::shuffle(pool.begin(), pool.end(), rng);
    for (const auto& bounds : pool) {
        if (int64_t(out.size()) >= count)
            break;
        if (bounds != best)
            out.push_back(make(bounds));
    }
    return out;
}

} // namespace tgraph
