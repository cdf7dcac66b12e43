// SPDX-License-Identifier: Apache-2.0
#include "core/results/attribution.h"

#include "core/util/jsonwriter.h"
#include "core/graph/opcodes.h"

#include <algorithm>
#include <charconv>

namespace tgraph {

namespace {

bool differsIn(const NodeAttribution& n, int tensor) { return (n.differingValues >> (6 * tensor)) & 0x3fu; }

void writeNumbers(JsonWriter& json, const std::array<int8_t, 18>& values)
{
    json.beginArray();
    for (int8_t v : values)
        json.value(int64_t(v));
    json.endArray();
}

void writeNumbers(JsonWriter& json, const std::array<float, 18>& values)
{
    json.beginArray();
    for (float v : values)
        json.value(double(v));
    json.endArray();
}

void writeConfig(JsonWriter& json, const Attribution& a, bool first)
{
    json.beginObject();
    json.key("index").value(first ? a.configA : a.configB);
    json.key("label").value(first ? a.labelA : a.labelB);
    json.key("score").value(first ? a.scoreA : a.scoreB);
    json.key("share_sum").value(first ? a.shareSumA() : a.shareSumB());
    const int64_t rank = first ? a.rankA : a.rankB;
    if (rank > 0)
        json.key("predicted_rank").value(rank);
    else
        json.key("predicted_rank").null();
    const int64_t runtime = first ? a.runtimeA : a.runtimeB;
    if (runtime > 0)
        json.key("runtime_ns").value(runtime);
    else
        json.key("runtime_ns").null();
    json.key("simulated_ns").value(first ? a.simulatedTotalA : a.simulatedTotalB);
    json.endObject();
}

} // namespace

bool parseConfigSelector(const std::string& text, ConfigSelector* selector)
{
    if (text == "fastest")
        *selector = { ConfigRole::PredictedFastest, -1 };
    else if (text == "slowest")
        *selector = { ConfigRole::PredictedSlowest, -1 };
    else if (text == "default")
        *selector = { ConfigRole::CompilerDefault, -1 };
    else {
        int64_t index = -1;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), index);
        if (ec != std::errc() || end != text.data() + text.size() || index < 0)
            return false;
        *selector = { ConfigRole::Index, index };
    }
    return true;
}

std::string configLabel(ConfigRole role, int64_t index)
{
    return role == ConfigRole::Index ? "config " + std::to_string(index)
                                     : configRoleName(role) + " (config " + std::to_string(index) + ")";
}

std::string configRoleName(ConfigRole role)
{
    switch (role) {
    case ConfigRole::Index:
        return "config";
    case ConfigRole::PredictedFastest:
        return "predicted fastest";
    case ConfigRole::PredictedSlowest:
        return "predicted slowest";
    case ConfigRole::CompilerDefault:
        return "compiler default";
    }
    return "config";
}

int64_t compilerDefaultConfig(const LayoutGraph& graph)
{
    const NdArray<float>& feat = graph.nodeConfigFeat;
    if (feat.ndim() != 3 || feat.dim(0) == 0)
        return -1;
    if (graph.defaultConfig >= 0 && graph.defaultConfig < feat.dim(0))
        return graph.defaultConfig; // a tuning record's is_default run
    const int64_t rowSize = feat.rowSize();
    for (int64_t c = 0; c < feat.dim(0); ++c) {
        const float* row = feat.row(c);
        if (std::all_of(row, row + rowSize, [](float v) { return v == -1.0f; }))
            return c;
    }
    return -1;
}

double Attribution::shareSumA() const
{
    double sum = 0;
    for (const NodeAttribution& n : nodes)
        sum += n.shareA;
    return sum;
}

double Attribution::shareSumB() const
{
    double sum = 0;
    for (const NodeAttribution& n : nodes)
        sum += n.shareB;
    return sum;
}

std::vector<size_t> rankedNodes(const Attribution& attribution, AttributionOrder order)
{
    std::vector<size_t> out(attribution.nodes.size());
    for (size_t i = 0; i < out.size(); ++i)
        out[i] = i;
    const auto& nodes = attribution.nodes;
    std::stable_sort(out.begin(), out.end(), [&](size_t x, size_t y) {
        const NodeAttribution& a = nodes[x];
        const NodeAttribution& b = nodes[y];
        if (order == AttributionOrder::Effect) {
            const bool ea = std::isfinite(a.effect());
            const bool eb = std::isfinite(b.effect());
            if (ea != eb)
                return ea; // nodes with a counterfactual first
            if (ea)
                return std::abs(a.effect()) > std::abs(b.effect());
        }
        return std::abs(a.difference()) > std::abs(b.difference());
    });
    return out;
}

std::string tensorLayoutText(const std::array<int8_t, 18>& values, int tensor)
{
    int last = -1;
    for (int i = 0; i < 6; ++i)
        if (values[size_t(6 * tensor + i)] != -1)
            last = i;
    if (last < 0)
        return "default";
    std::string out;
    for (int i = 0; i <= last; ++i)
        out += (i ? "," : "") + std::to_string(int(values[size_t(6 * tensor + i)]));
    return out;
}

std::string layoutDifferenceText(const NodeAttribution& node)
{
    std::string out;
    for (int t = 0; t < 3; ++t) {
        if (!differsIn(node, t))
            continue;
        out += (out.empty() ? "" : "; ") + std::string(kLayoutTensorNames[t]) + " " + tensorLayoutText(node.layoutA, t)
            + " | " + tensorLayoutText(node.layoutB, t);
    }
    return out;
}

std::string attributionJson(const Attribution& a, AttributionOrder order, int64_t top)
{
    JsonWriter json;
    json.beginObject();
    json.key("file").value(a.file);
    json.key("config_a");
    writeConfig(json, a, true);
    json.key("config_b");
    writeConfig(json, a, false);
    json.key("bias").value(a.bias);
    json.key("configs").value(a.configs);
    json.key("nodes").value(a.nodeCount());
    json.key("nodes_before_pruning").value(a.nodesBeforePruning);
    int64_t configurable = 0;
    for (const NodeAttribution& n : a.nodes)
        configurable += n.configurable >= 0;
    json.key("configurable_nodes").value(configurable);
    json.key("differing_nodes").value(a.differingNodes);
    json.key("members").value(a.members);
    json.key("cross_attention").value(a.crossAttention);
    json.key("batch_configs").value(a.batchConfigs);
    json.key("order").value(order == AttributionOrder::Effect ? "effect" : "share");

    json.key("passes").beginObject();
    json.key("ranking").value(a.passes.ranking);
    json.key("shares").value(a.passes.shares);
    json.key("counterfactual").value(a.passes.counterfactual);
    json.key("gradient").value(a.passes.gradient);
    json.endObject();
    json.key("counterfactual_batches").beginArray();
    for (size_t i = 0; i < a.counterfactualBatchSizes.size(); ++i) {
        json.beginObject();
        json.key("configs").value(a.counterfactualBatchSizes[i]);
        json.key("score_a").value(a.anchorScoresA[i]);
        json.key("score_b").value(a.anchorScoresB[i]);
        json.endObject();
    }
    json.endArray();

    json.key("rows").beginArray();
    const std::vector<size_t> ranked = rankedNodes(a, order);
    const size_t rows = top > 0 ? std::min(ranked.size(), size_t(top)) : ranked.size();
    for (size_t r = 0; r < rows; ++r) {
        const NodeAttribution& n = a.nodes[ranked[r]];
        json.beginObject();
        json.key("rank").value(int64_t(r + 1));
        json.key("node").value(n.fileNode);
        json.key("pruned_node").value(n.node);
        json.key("name").value(n.name);
        json.key("opcode").value(opcodeName(n.opcode));
        json.key("share_a").value(n.shareA);
        json.key("share_b").value(n.shareB);
        json.key("difference").value(n.difference());
        json.key("effect").value(n.effect());
        json.key("effect_on_b").value(n.effectOnB);
        json.key("effect_on_a").value(n.effectOnA);
        if (n.configurable >= 0) {
            json.key("configurable").value(n.configurable);
            json.key("layout_a");
            writeNumbers(json, n.layoutA);
            json.key("layout_b");
            writeNumbers(json, n.layoutB);
            json.key("differing_values").beginArray();
            for (int k = 0; k < 18; ++k)
                if ((n.differingValues >> k) & 1u)
                    json.value(k);
            json.endArray();
            json.key("layout_difference").value(layoutDifferenceText(n));
            if (a.gradients) {
                json.key("grad_input_a");
                writeNumbers(json, n.gradInputA);
                json.key("grad_input_b");
                writeNumbers(json, n.gradInputB);
            } else {
                json.key("grad_input_a").null();
                json.key("grad_input_b").null();
            }
        } else {
            json.key("configurable").null();
        }
        json.key("simulated_ns_a").value(n.simulatedA);
        json.key("simulated_ns_b").value(n.simulatedB);
        json.key("simulated_effect_ns").value(n.simulatedEffect());
        json.endObject();
    }
    json.endArray();

    json.key("simulator");
    if (a.moduleSource.empty()) {
        json.null();
    } else {
        json.beginObject();
        json.key("module").value(a.moduleSource);
        json.key("total_ns_a").value(a.simulatedTotalA);
        json.key("total_ns_b").value(a.simulatedTotalB);
        json.key("instructions").beginArray();
        const size_t count = top > 0 ? std::min(a.simulated.size(), size_t(top)) : a.simulated.size();
        for (size_t i = 0; i < count; ++i) {
            const SimulatedInstruction& s = a.simulated[i];
            json.beginObject();
            json.key("node").value(s.fileNode);
            if (s.node >= 0)
                json.key("pruned_node").value(s.node);
            else
                json.key("pruned_node").null();
            json.key("name").value(s.name);
            json.key("opcode").value(s.opcode);
            json.key("ns_a").value(s.nsA);
            json.key("ns_b").value(s.nsB);
            json.endObject();
        }
        json.endArray();
        json.endObject();
    }
    json.endObject();
    return json.str() + "\n";
}

} // namespace tgraph
