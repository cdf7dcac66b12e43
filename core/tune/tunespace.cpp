// SPDX-License-Identifier: Apache-2.0
#include "core/tune/tunespace.h"

#include "core/results/attribution.h"
#include "core/util/error.h"
#include "core/sim/layoutcandidates.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

namespace tgraph {

double TuneSpace::log10Size() const
{
    double sum = 0;
    for (const TuneDimension& d : dimensions)
        sum += std::log10(double(std::max<int64_t>(d.count, 1)));
    return sum;
}

int64_t TuneSpace::sizeUpTo(int64_t limit) const
{
    int64_t size = 1;
    for (const TuneDimension& d : dimensions) {
        if (d.count > 1 && size > limit / d.count)
            return -1;
        size *= std::max<int64_t>(d.count, 1);
    }
    return size <= limit ? size : -1;
}

void TuneSpace::writeRow(const TuneGenes& genes, float* row) const
{
    std::fill(row, row + rowValues(), -1.0f);
    for (size_t i = 0; i < dimensions.size(); ++i) {
        const TuneDimension& d = dimensions[i];
        std::memcpy(row + d.configurable * rowWidth + d.offset, d.option(genes[i]), sizeof(float) * size_t(d.width));
    }
}

std::vector<float> TuneSpace::row(const TuneGenes& genes) const
{
    std::vector<float> out(static_cast<size_t>(rowValues()));
    writeRow(genes, out.data());
    return out;
}

TuneGenes TuneSpace::genesOf(const float* row) const
{
    TuneGenes genes(dimensions.size(), 0);
    for (size_t i = 0; i < dimensions.size(); ++i) {
        const TuneDimension& d = dimensions[i];
        const float* values = row + d.configurable * rowWidth + d.offset;
        int64_t k = 0;
        while (k < d.count && std::memcmp(values, d.option(k), sizeof(float) * size_t(d.width)) != 0)
            ++k;
        if (k == d.count)
            return {};
        genes[i] = int32_t(k);
    }
    return genes;
}

TuneSpace moduleTuneSpace(
    const HloModule& module, std::span<const int64_t> configurableNodes, const std::string& source)
{
    TuneSpace space;
    space.kind = GraphKind::Layout;
    space.source = source;
    space.origin = "module";
    space.nodeIds.assign(configurableNodes.begin(), configurableNodes.end());
    const std::vector<NodeLayoutChoices> choices = layoutChoices(module, configurableNodes);
    for (size_t k = 0; k < choices.size(); ++k) {
        for (size_t t = 0; t < choices[k].tensors.size() && t < 3; ++t) {
            const TensorLayoutChoices& tensor = choices[k].tensors[t];
            const int64_t count = tensor.pinned > 0 ? tensor.count() : 0;
            if (count <= 0)
                continue;
            TuneDimension d;
            d.configurable = int64_t(k);
            d.offset = int(t) * 6;
            d.width = 6;
            d.count = count + 1;
            d.options.assign(size_t(d.count * 6), -1.0f);
            for (int64_t c = 0; c < count; ++c)
                tensor.write(c, d.options.data() + (c + 1) * 6);
            space.dimensions.push_back(std::move(d));
        }
    }
    if (space.dimensions.empty())
        throw InputError(source, "layouts", "no configurable node has a layout choice: there is nothing to tune");
    return space;
}

TuneSpace fileTuneSpace(const LayoutGraph& graph, const std::string& source)
{
    const int64_t configs = graph.configCount();
    const int64_t nc = graph.configurableCount();
    if (configs < 1 || nc < 1)
        throw InputError(source, "node_config_feat", "the graph has no configurations to take layouts from");
    TuneSpace space;
    space.kind = GraphKind::Layout;
    space.source = source;
    space.origin = "file";
    space.nodeIds.assign(graph.nodeConfigIds.data(), graph.nodeConfigIds.data() + nc);
    const int64_t start = std::max<int64_t>(compilerDefaultConfig(graph), 0);
    for (int64_t k = 0; k < nc; ++k) {
        TuneDimension d;
        d.configurable = k;
        d.offset = 0;
        d.width = 18;
        std::map<std::vector<float>, int> seen;
        const auto add = [&](int64_t config) {
            const float* values = graph.nodeConfigFeat.data() + (config * nc + k) * 18;
            std::vector<float> key(values, values + 18);
            if (seen.emplace(key, int(d.count)).second) {
                d.options.insert(d.options.end(), key.begin(), key.end());
                ++d.count;
            }
        };
        add(start);
        for (int64_t c = 0; c < configs; ++c)
            add(c);
        if (d.count > 1)
            space.dimensions.push_back(std::move(d));
    }
    if (space.dimensions.empty())
        throw InputError(source, "node_config_feat", "every config sets the same layouts: there is nothing to tune");
    // Nodes without a choice keep the start config's values.
    for (int64_t k = 0; k < nc; ++k) {
        const bool tuned = std::any_of(space.dimensions.begin(), space.dimensions.end(),
            [k](const TuneDimension& d) { return d.configurable == k; });
        if (tuned)
            continue;
        TuneDimension fixed;
        fixed.configurable = k;
        fixed.width = 18;
        fixed.count = 1;
        const float* values = graph.nodeConfigFeat.data() + (start * nc + k) * 18;
        fixed.options.assign(values, values + 18);
        if (std::any_of(values, values + 18, [](float v) { return v != -1.0f; }))
            space.dimensions.push_back(std::move(fixed));
    }
    return space;
}

TuneSpace tileTuneSpace(const TileGraph& graph, const std::string& source)
{
    const int64_t configs = graph.configCount();
    if (configs < 1)
        throw InputError(source, "config_feat", "the kernel lists no tile configs");
    TuneSpace space;
    space.kind = GraphKind::Tile;
    space.source = source;
    space.origin = "configs";
    space.rowWidth = int(graph.configFeat.dim(1));
    TuneDimension d;
    d.width = space.rowWidth;
    d.count = configs;
    d.options.assign(graph.configFeat.data(), graph.configFeat.data() + configs * d.width);
    space.dimensions.push_back(std::move(d));
    return space;
}

} // namespace tgraph
