// SPDX-License-Identifier: Apache-2.0
#include "core/sim/layoutcandidates.h"

#include "core/graph/configs.h"
#include "core/util/error.h"
#include "core/util/format.h"
#include "core/graph/graph.h"

#include <random>
#include <unordered_map>

namespace tgraph {

namespace {

constexpr int64_t kMaxChoices = int64_t(1) << 40;

int rankOf(const HloModule& m, const HloInstruction& inst)
{
    const HloShape& s = m.shapes[inst.shape];
    return s.elementType == PrimitiveType::Tuple ? 0 : int(s.dims.count);
}

uint64_t rowHash(const float* row, int64_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (int64_t i = 0; i < n; ++i) {
        h ^= uint64_t(int64_t(row[i]) + 2);
        h *= 1099511628211ull;
    }
    return h;
}

} // namespace

int64_t TensorLayoutChoices::count() const
{
    int64_t n = 1;
    for (int k = 0; k < pinned; ++k) {
        n *= rank - k;
        if (n > kMaxChoices)
            return kMaxChoices;
    }
    return pinned > 0 ? n : 0;
}

void TensorLayoutChoices::write(int64_t k, float* out6) const
{
    int remaining[64];
    for (int d = 0; d < rank; ++d)
        remaining[d] = d;
    int left = rank;
    for (int slot = 0; slot < 6; ++slot) {
        if (slot >= pinned) {
            out6[slot] = -1.0f;
            continue;
        }
        const int pick = int(k % left);
        k /= left;
        out6[slot] = float(remaining[pick]);
        for (int j = pick; j + 1 < left; ++j)
            remaining[j] = remaining[j + 1];
        --left;
    }
}

std::vector<NodeLayoutChoices> layoutChoices(const HloModule& m, std::span<const int64_t> configurable)
{
    std::unordered_map<int64_t, int64_t> position;
    for (size_t i = 0; i < m.instructions.size(); ++i)
        position.emplace(m.instructions[i].id, int64_t(i));
    auto operandRank = [&](const HloInstruction& inst, size_t k) {
        const auto ids = m.span(inst.operandIds);
        if (k >= ids.size())
            return 0;
        auto it = position.find(ids[k]);
        return it == position.end() ? 0 : rankOf(m, m.instructions[size_t(it->second)]);
    };
    std::vector<NodeLayoutChoices> out;
    for (int64_t node : configurable) {
        const HloInstruction& inst = m.instructions[size_t(node)];
        NodeLayoutChoices n;
        n.node = node;
        const bool reshape = inst.opcode == "reshape";
        const int tensors = reshape ? 2 : 3;
        for (int t = 0; t < tensors; ++t) {
            TensorLayoutChoices c;
            c.rank = std::min(t == 0 ? rankOf(m, inst) : operandRank(inst, size_t(t - 1)), 64);
            // Layout values are dims 0..5 (the 18-value encoding, docs/model.md §1.1): tensors of rank > 6 keep
            // the compiler's layout.
            c.pinned = c.rank > 6 ? 0 : reshape ? c.rank : std::min(c.rank, 2);
            n.tensors.push_back(c);
        }
        out.push_back(std::move(n));
    }
    return out;
}

const char* layoutSamplerName(LayoutSampler sampler) { return sampler == LayoutSampler::Random ? "random" : "default"; }

bool parseLayoutSampler(const std::string& text, LayoutSampler* sampler)
{
    if (text == "random")
        *sampler = LayoutSampler::Random;
    else if (text == "default")
        *sampler = LayoutSampler::Default;
    else
        return false;
    return true;
}

NdArray<float> sampleLayoutConfigs(std::span<const NodeLayoutChoices> nodes, int64_t count, LayoutSampler sampler,
    uint64_t seed, const std::string& file, uint64_t maxBytes, const std::function<double(const float*)>& cost)
{
    const int64_t nc = int64_t(nodes.size());
    const int64_t width = nc * kLayoutConfigFeatures;
    if (count < 1)
        throw InputError(file, "", "at least one configuration is needed");
    const double bytes = double(count) * double(std::max<int64_t>(width, 1)) * 4.0;
    if (bytes > double(maxBytes))
        throw InputError(file, "",
            std::to_string(count) + " configurations of " + std::to_string(nc) + " configurable nodes need "
                + formatBytes(uint64_t(bytes)) + " of memory, more than the limit of " + formatBytes(maxBytes)
                + "; ask for fewer configurations");
    // The space may be smaller than `count`: stop when it is exhausted.
    double space = 1.0;
    for (const auto& n : nodes)
        for (const auto& t : n.tensors)
            space *= double(t.count() + 1);
    count = int64_t(std::min<double>(double(count), space));

    std::mt19937_64 rng(seed);
    std::vector<float> rows;
    rows.reserve(size_t(count * width));
    std::unordered_map<uint64_t, std::vector<int64_t>> seen; // row hash -> rows with that hash
    std::vector<float> row(size_t(width), -1.0f);
    auto randomizeNode = [&](float* node, const NodeLayoutChoices& n) {
        for (size_t t = 0; t < n.tensors.size(); ++t) {
            const int64_t choices = n.tensors[t].count();
            const int64_t pick = int64_t(rng() % uint64_t(choices + 1));
            if (pick == 0)
                std::fill_n(node + 6 * t, 6, -1.0f);
            else
                n.tensors[t].write(pick - 1, node + 6 * t);
        }
    };
    const bool guided = sampler == LayoutSampler::Default && bool(cost);
    std::vector<double> costs; // of the accepted rows, when guided
    auto accept = [&](const std::vector<float>& r) {
        auto& same = seen[rowHash(r.data(), width)];
        for (int64_t i : same)
            if (std::equal(r.begin(), r.end(), rows.begin() + ptrdiff_t(i * width)))
                return false;
        same.push_back(int64_t(rows.size()) / std::max<int64_t>(width, 1));
        rows.insert(rows.end(), r.begin(), r.end());
        if (guided)
            costs.push_back(cost(r.data()));
        return true;
    };
    accept(row); // the compiler default
    int64_t misses = 0;
    const int64_t maxMisses = 200 + 20 * count;
    while (int64_t(rows.size()) / std::max<int64_t>(width, 1) < count && misses < maxMisses && nc > 0) {
        const int64_t have = int64_t(rows.size()) / width;
        if (sampler == LayoutSampler::Random) {
            for (int64_t k = 0; k < nc; ++k)
                randomizeNode(row.data() + k * kLayoutConfigFeatures, nodes[size_t(k)]);
        } else {
            const int64_t window = std::min<int64_t>(have, 64);
            int64_t parent = have - 1 - int64_t(rng() % uint64_t(window));
            if (guided && rng() % 2 == 0) { // tournament of 4 among everything found so far
                for (int t = 0; t < 4; ++t) {
                    const int64_t other = int64_t(rng() % uint64_t(have));
                    if (t == 0 || costs[size_t(other)] < costs[size_t(parent)])
                        parent = other;
                }
            }
            std::copy_n(rows.begin() + ptrdiff_t(parent * width), width, row.begin());
            const int changes = rng() % 2 ? 1 : 2 + int(rng() % 2); // half of the steps change one thing
            for (int c = 0; c < changes; ++c) {
                const int64_t k = int64_t(rng() % uint64_t(nc));
                const NodeLayoutChoices& n = nodes[size_t(k)];
                float* node = row.data() + k * kLayoutConfigFeatures;
                if (rng() % 2 == 0 || n.tensors.empty()) {
                    randomizeNode(node, n);
                } else { // one tensor of the node
                    const size_t t = size_t(rng() % n.tensors.size());
                    const int64_t pick = int64_t(rng() % uint64_t(n.tensors[t].count() + 1));
                    if (pick == 0)
                        std::fill_n(node + 6 * t, 6, -1.0f);
                    else
                        n.tensors[t].write(pick - 1, node + 6 * t);
                }
            }
        }
        if (!accept(row))
            ++misses;
    }
    const int64_t c = int64_t(rows.size()) / std::max<int64_t>(width, 1);
    NdArray<float> out({ nc > 0 ? c : 1, nc, kLayoutConfigFeatures });
    std::copy(rows.begin(), rows.begin() + ptrdiff_t(out.size()), out.data());
    return out;
}

} // namespace tgraph
