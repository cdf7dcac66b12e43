// SPDX-License-Identifier: Apache-2.0
#include "core/results/attribution.h"

#include "core/graph/opcodes.h"
#include "core/util/json.h"

#include <algorithm>
#include <charconv>

namespace tgraph {

namespace {

bool differsIn(const NodeAttribution& n, int tensor) { return (n.differingValues >> (6 * tensor)) & 0x3fu; }

Json configJson(const Attribution& a, bool first)
{
    Json j;
    j["index"] = first ? a.configA : a.configB;
    j["label"] = first ? a.labelA : a.labelB;
    j["score"] = first ? a.scoreA : a.scoreB;
    j["share_sum"] = first ? a.shareSumA() : a.shareSumB();
    const int64_t rank = first ? a.rankA : a.rankB;
    j["predicted_rank"] = rank > 0 ? Json(rank) : Json();
    const int64_t runtime = first ? a.runtimeA : a.runtimeB;
    j["runtime_ns"] = runtime > 0 ? Json(runtime) : Json();
    j["simulated_ns"] = first ? a.simulatedTotalA : a.simulatedTotalB;
    return j;
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
    Json json;
    json["file"] = a.file;
    json["config_a"] = configJson(a, true);
    json["config_b"] = configJson(a, false);
    json["bias"] = a.bias;
    json["configs"] = a.configs;
    json["nodes"] = a.nodeCount();
    json["nodes_before_pruning"] = a.nodesBeforePruning;
    int64_t configurable = 0;
    for (const NodeAttribution& n : a.nodes)
        configurable += n.configurable >= 0;
    json["configurable_nodes"] = configurable;
    json["differing_nodes"] = a.differingNodes;
    json["members"] = a.members;
    json["cross_attention"] = a.crossAttention;
    json["batch_configs"] = a.batchConfigs;
    json["order"] = order == AttributionOrder::Effect ? "effect" : "share";

    Json& passes = json["passes"] = Json::object();
    passes["ranking"] = a.passes.ranking;
    passes["shares"] = a.passes.shares;
    passes["counterfactual"] = a.passes.counterfactual;
    passes["gradient"] = a.passes.gradient;
    Json& batches = json["counterfactual_batches"] = Json::array();
    for (size_t i = 0; i < a.counterfactualBatchSizes.size(); ++i) {
        Json& batch = batches.emplace_back();
        batch["configs"] = a.counterfactualBatchSizes[i];
        batch["score_a"] = a.anchorScoresA[i];
        batch["score_b"] = a.anchorScoresB[i];
    }

    Json& rowsJson = json["rows"] = Json::array();
    const std::vector<size_t> ranked = rankedNodes(a, order);
    const size_t rows = top > 0 ? std::min(ranked.size(), size_t(top)) : ranked.size();
    for (size_t r = 0; r < rows; ++r) {
        const NodeAttribution& n = a.nodes[ranked[r]];
        Json& row = rowsJson.emplace_back();
        row["rank"] = int64_t(r + 1);
        row["node"] = n.fileNode;
        row["pruned_node"] = n.node;
        row["name"] = n.name;
        row["opcode"] = opcodeName(n.opcode);
        row["share_a"] = n.shareA;
        row["share_b"] = n.shareB;
        row["difference"] = n.difference();
        row["effect"] = n.effect();
        row["effect_on_b"] = n.effectOnB;
        row["effect_on_a"] = n.effectOnA;
        if (n.configurable >= 0) {
            row["configurable"] = n.configurable;
            row["layout_a"] = n.layoutA;
            row["layout_b"] = n.layoutB;
            Json& differing = row["differing_values"] = Json::array();
            for (int k = 0; k < 18; ++k)
                if ((n.differingValues >> k) & 1u)
                    differing.push_back(k);
            row["layout_difference"] = layoutDifferenceText(n);
            row["grad_input_a"] = a.gradients ? Json(n.gradInputA) : Json();
            row["grad_input_b"] = a.gradients ? Json(n.gradInputB) : Json();
        } else {
            row["configurable"] = nullptr;
        }
        row["simulated_ns_a"] = n.simulatedA;
        row["simulated_ns_b"] = n.simulatedB;
        row["simulated_effect_ns"] = n.simulatedEffect();
    }

    if (a.moduleSource.empty()) {
        json["simulator"] = nullptr;
    } else {
        Json& simulator = json["simulator"] = Json::object();
        simulator["module"] = a.moduleSource;
        simulator["total_ns_a"] = a.simulatedTotalA;
        simulator["total_ns_b"] = a.simulatedTotalB;
        Json& instructions = simulator["instructions"] = Json::array();
        const size_t count = top > 0 ? std::min(a.simulated.size(), size_t(top)) : a.simulated.size();
        for (size_t i = 0; i < count; ++i) {
            const SimulatedInstruction& s = a.simulated[i];
            Json& item = instructions.emplace_back();
            item["node"] = s.fileNode;
            item["pruned_node"] = s.node >= 0 ? Json(s.node) : Json();
            item["name"] = s.name;
            item["opcode"] = s.opcode;
            item["ns_a"] = s.nsA;
            item["ns_b"] = s.nsB;
        }
    }
    return jsonText(json) + "\n";
}

} // namespace tgraph
