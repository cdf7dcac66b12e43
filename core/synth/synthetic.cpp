// SPDX-License-Identifier: Apache-2.0
#include "core/synth/synthetic.h"

#include "core/graph/opcodes.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

namespace tgraph {

namespace {

constexpr int kColIsRoot = 0;
constexpr int kColTypeF32 = 13;
constexpr int kColTypeBf16 = 15;
constexpr int kColDims = 21;
constexpr int kColParameterNumber = 30;
constexpr int kColLayout = 134;

// Opcodes of non-configurable nodes, weighted roughly like the real layout graphs.
constexpr std::array<std::pair<int, int>, 14> kOpcodeWeights = { {
    { 59, 18 }, // multiply
    { 2, 12 }, // add
    { 13, 12 }, // broadcast
    { 45, 8 }, // get-tuple-element
    { 25, 6 }, // convert
    { 83, 6 }, // select
    { 95, 6 }, // subtract
    { 32, 4 }, // divide
    { 70, 4 }, // reduce
    { 20, 4 }, // compare
    { 98, 3 }, // transpose
    { 57, 3 }, // maximum
    { 24, 3 }, // constant
    { 81, 2 }, // rsqrt
} };

using Option = std::array<float, kLayoutConfigFeatures>;

Option defaultOption()
{
    Option o;
    o.fill(-1.0f);
    return o;
}

// Writes a random permutation of 0..rank-1 (or only its `pinned` most-minor entries) to slots 6t..
void setTensor(Option& o, int tensor, int rank, int pinned, std::mt19937_64& rng)
{
    std::vector<int> perm(static_cast<size_t>(rank));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    for (int k = 0; k < std::min(pinned, rank); ++k)
        o[size_t(6 * tensor + k)] = float(perm[size_t(k)]);
}

} // namespace

LayoutGraph makeSyntheticLayoutGraph(const SyntheticLayoutSpec& spec)
{
    if (spec.nodes < 2 || spec.configurableNodes < 1 || spec.configurableNodes >= spec.nodes || spec.configs < 1)
        throw std::invalid_argument("synthetic graph: need nodes >= 2, 1 <= configurable < nodes, configs >= 1");
    std::mt19937_64 rng(spec.seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const int64_t n = spec.nodes;
    const int64_t nc = spec.configurableNodes;

    LayoutGraph g;
    g.nodeOpcode = NdArray<int64_t>({ n });
    std::discrete_distribution<int> pickOpcode(kOpcodeWeights.size(), 0.0, double(kOpcodeWeights.size()),
        [](double x) { return double(kOpcodeWeights[size_t(std::min<double>(x, kOpcodeWeights.size() - 1))].second); });
    const int64_t parameters = std::max<int64_t>(1, n / 50);
    for (int64_t i = 0; i < n; ++i)
        g.nodeOpcode[i] = i < parameters ? 63 : kOpcodeWeights[size_t(pickOpcode(rng))].first;

    // Configurable nodes: distinct positions after the parameters, sorted.
    std::vector<int64_t> positions(size_t(n - parameters));
    std::iota(positions.begin(), positions.end(), parameters);
    if (int64_t(positions.size()) < nc)
        throw std::invalid_argument("synthetic graph: too many configurable nodes for the node count");
    std::shuffle(positions.begin(), positions.end(), rng);
    positions.resize(size_t(nc));
    std::sort(positions.begin(), positions.end());
    g.nodeConfigIds = NdArray<int64_t>({ nc });
    std::vector<int> rank(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
        rank[size_t(i)] = 1 + int(rng() % 4);
    for (int64_t k = 0; k < nc; ++k) {
        const int64_t id = positions[size_t(k)];
        g.nodeConfigIds[k] = id;
        const double r = unit(rng);
        g.nodeOpcode[id] = r < 0.6 ? kOpcodeConvolution : (r < 0.8 ? kOpcodeDot : kOpcodeReshape);
        rank[size_t(id)] = g.nodeOpcode[id] == kOpcodeConvolution ? 4 : 2 + int(rng() % 3);
    }
    g.nodeOpcode[n - 1] = 100; // tuple root

    // Edges [consumer, producer]: mostly nearby producers, some long-lived values; sorted by (u, v).
    std::vector<std::array<int64_t, 2>> edges;
    std::geometric_distribution<int64_t> gap(0.3);
    for (int64_t i = parameters; i < n; ++i) {
        const int64_t op = g.nodeOpcode[i];
        const int count = 1 + (rng() % 3 == 0) + (op == kOpcodeConvolution || op == kOpcodeDot);
        std::vector<int64_t> producers;
        for (int e = 0; e < count; ++e) {
            int64_t j = unit(rng) < 0.1 ? int64_t(rng() % uint64_t(i)) : i - 1 - gap(rng);
            producers.push_back(std::clamp<int64_t>(j, 0, i - 1));
        }
        std::sort(producers.begin(), producers.end());
        producers.erase(std::unique(producers.begin(), producers.end()), producers.end());
        for (int64_t j : producers)
            edges.push_back({ i, j });
    }
    g.edgeIndex = NdArray<int64_t>({ int64_t(edges.size()), 2 });
    for (size_t e = 0; e < edges.size(); ++e) {
        g.edgeIndex(int64_t(e), 0) = edges[e][0];
        g.edgeIndex(int64_t(e), 1) = edges[e][1];
    }

    // Node features: shape, element type, default layout, a few op attributes.
    g.nodeFeat = NdArray<float>({ n, kNodeFeatures }, 0.0f);
    for (int64_t i = 0; i < n; ++i) {
        float* f = g.nodeFeat.row(i);
        const int r = rank[size_t(i)];
        f[kColIsRoot] = i == n - 1 ? 1.0f : 0.0f;
        f[unit(rng) < 0.7 ? kColTypeF32 : kColTypeBf16] = 1.0f;
        double sum = 0;
        double product = 1;
        for (int d = 0; d < r; ++d) {
            const double dim = double(int64_t(1) << (rng() % 9));
            f[kColDims + d] = float(dim);
            sum += dim;
            product *= dim;
        }
        f[27] = float(sum);
        f[28] = float(product);
        for (int col : { 44, 52, 60, 68, 76, 84, 112, 116, 120, 124, 128, 132 })
            f[col] = 1.0f; // products of empty window / slice lists
        if (g.nodeOpcode[i] == 63)
            f[kColParameterNumber] = float(i);
        if (g.nodeOpcode[i] == kOpcodeConvolution) {
            for (int d = 0; d < 2; ++d) {
                f[37 + d] = 3.0f; // window 3x3
                f[45 + d] = 1.0f; // stride 1
                f[53 + d] = f[61 + d] = 1.0f;
                f[69 + d] = f[77 + d] = 1.0f;
            }
            f[43] = 6.0f;
            f[44] = 9.0f;
            f[51] = 2.0f;
            f[59] = f[67] = f[75] = f[83] = 2.0f;
            f[91] = 0.0f;
            f[92] = 2.0f;
            f[94] = 3.0f;
            f[95] = 1.0f;
            f[96] = 2.0f;
            f[99] = 2.0f;
            f[100] = 3.0f;
            f[102] = 1.0f;
            f[106] = 3.0f;
            f[107] = f[108] = 1.0f;
        }
        for (int d = 0; d < r; ++d)
            f[kColLayout + d] = float(r - 1 - d); // descending minor-to-major: the default layout
    }

    // Layout options per configurable node, each with a cost factor; option 0 = compiler default.
    std::vector<std::vector<Option>> options(static_cast<size_t>(nc));
    std::vector<std::vector<double>> cost(static_cast<size_t>(nc));
    std::vector<double> weight(static_cast<size_t>(nc));
    for (int64_t k = 0; k < nc; ++k) {
        const int64_t id = g.nodeConfigIds[k];
        const int64_t op = g.nodeOpcode[id];
        const int r = rank[size_t(id)];
        const int count = 3 + int(rng() % 5);
        options[size_t(k)].push_back(defaultOption());
        cost[size_t(k)].push_back(1.0);
        for (int o = 0; o < count; ++o) {
            Option opt = defaultOption();
            if (op == kOpcodeConvolution) {
                for (int t = 0; t < 3; ++t)
                    setTensor(opt, t, r, 2, rng); // two most-minor dims pinned, as in the real data
            } else if (op == kOpcodeDot) {
                for (int t = 0; t < 3; ++t)
                    setTensor(opt, t, r, r, rng);
            } else {
                setTensor(opt, 0, r, r, rng);
                setTensor(opt, 1, r, r, rng);
            }
            options[size_t(k)].push_back(opt);
            cost[size_t(k)].push_back(0.7 + 0.9 * unit(rng));
        }
        weight[size_t(k)] = (op == kOpcodeConvolution ? 3.0 : 1.0) * (0.5 + unit(rng));
    }

    // Configs: choices per node; some configs repeat an earlier one exactly.
    const int64_t c = spec.configs;
    std::vector<std::vector<uint8_t>> choice(size_t(c), std::vector<uint8_t>(size_t(nc), 0));
    for (int64_t i = 1; i < c; ++i) {
        if (i > 1 && unit(rng) < spec.duplicateFraction) {
            choice[size_t(i)] = choice[size_t(1 + rng() % uint64_t(i - 1))];
            continue;
        }
        for (int64_t k = 0; k < nc; ++k)
            if (unit(rng) < 0.5)
                choice[size_t(i)][size_t(k)] = uint8_t(1 + rng() % (options[size_t(k)].size() - 1));
    }
    g.nodeConfigFeat = NdArray<float>({ c, nc, kLayoutConfigFeatures });
    g.configRuntime = NdArray<int64_t>({ c });
    std::normal_distribution<double> noise(0.0, 0.002);
    for (int64_t i = 0; i < c; ++i) {
        double total = 10.0;
        for (int64_t k = 0; k < nc; ++k) {
            const size_t o = choice[size_t(i)][size_t(k)];
            std::copy(options[size_t(k)][o].begin(), options[size_t(k)][o].end(),
                g.nodeConfigFeat.data() + (i * nc + k) * kLayoutConfigFeatures);
            total += weight[size_t(k)] * cost[size_t(k)][o];
            // Layout changes between consecutive configurable nodes need copies/transposes.
            if (k > 0 && (o % 2) != (choice[size_t(i)][size_t(k - 1)] % 2))
                total += 0.2 * weight[size_t(k)];
        }
        g.configRuntime[i] = std::max<int64_t>(1, std::llround(1e6 * total * (1.0 + noise(rng))));
    }

    g.nodeSplits = NdArray<int64_t>::fromVector({ 3 }, { 0, n / 2, n });
    setPublishedStorage(g);
    return g;
}

} // namespace tgraph
