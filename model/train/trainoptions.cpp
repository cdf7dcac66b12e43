// SPDX-License-Identifier: Apache-2.0
#include "model/train/trainoptions.h"

#include "core/util/json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

namespace tgraph::model {

std::string configChunkName(int64_t chunk)
{
    if (chunk == kConfigChunkAuto)
        return "auto";
    if (chunk <= kConfigChunkOff)
        return "off";
    return std::to_string(chunk);
}

bool parseConfigChunk(const std::string& text, int64_t* chunk)
{
    if (text == "auto" || text == "off") {
        *chunk = text == "auto" ? kConfigChunkAuto : kConfigChunkOff;
        return true;
    }
    int64_t value = 0;
    const char* end = text.data() + text.size();
    const auto [next, error] = std::from_chars(text.data(), end, value);
    if (text.empty() || error != std::errc() || next != end || value < 0
        || value > std::numeric_limits<int32_t>::max())
        return false;
    *chunk = value;
    return true;
}

int64_t totalSteps(const TrainOptions& options, int64_t trainGraphs)
{
    if (options.steps > 0)
        return options.steps;
    const double visits = options.epochs * double(std::max<int64_t>(trainGraphs, 1));
    return std::max<int64_t>(1, int64_t(std::ceil(visits / double(std::max<int64_t>(1, options.graphsPerStep)))));
}

int64_t warmupSteps(const TrainOptions& options, int64_t total)
{
    // HF: ceil(ratio x total) (computed in floating point, as Python's math.ceil does).
    return std::clamp<int64_t>(int64_t(std::ceil(options.warmupShare * double(total))), 0, total);
}

double learningRateAt(int64_t step, int64_t total, int64_t warmup, double baseRate)
{
    if (step < warmup)
        return baseRate * double(step) / double(std::max<int64_t>(1, warmup));
    if (step >= total)
        return 0.0;
    const double progress = double(step - warmup) / double(std::max<int64_t>(1, total - warmup));
    return baseRate * std::max(0.0, 0.5 * (1.0 + std::cos(std::numbers::pi * progress)));
}

const char* lossKindName(LossKind loss)
{
    switch (loss) {
    case LossKind::Auto:
        return "auto";
    case LossKind::Hinge:
        return "hinge";
    case LossKind::Logistic:
        return "logistic";
    case LossKind::ListMle:
        return "listmle";
    case LossKind::Mse:
        return "mse";
    }
    return "?";
}

bool parseLossKind(const std::string& text, LossKind* loss)
{
    for (LossKind l : { LossKind::Auto, LossKind::Hinge, LossKind::Logistic, LossKind::ListMle, LossKind::Mse })
        if (text == lossKindName(l)) {
            *loss = l;
            return true;
        }
    return false;
}

LossKind effectiveLoss(const TrainOptions& options)
{
    if (options.loss != LossKind::Auto)
        return options.loss;
    switch (options.model.family) {
    case ModelFamily::TpuGraphsBaseline:
        return LossKind::ListMle;
    case ModelFamily::Tpgnn:
        return LossKind::Mse;
    case ModelFamily::TGraph:
    case ModelFamily::Kaufman:
        break;
    }
    return LossKind::Hinge;
}

std::string toJson(const TrainOptions& o)
{
    Json j;
    Json& m = j["model"] = Json::object();
    m["hidden"] = o.model.hidden;
    m["blocks"] = o.model.blocks;
    m["use_cross_attn"] = o.model.useCrossAttn;
    m["op_table_size"] = o.model.opTableSize;
    m["dropout"] = o.model.dropout;
    m["residual_after_activation"] = o.model.residualAfterActivation;
    m["bidirectional_edges"] = o.model.bidirectionalEdges;
    m["sim_inputs"] = o.model.simInputs;
    m["family"] = modelFamilyName(o.model.family);
    m["reduction"] = nodeReductionName(o.model.reduction);
    j["loss"] = lossKindName(o.loss);
    j["steps"] = o.steps;
    j["epochs"] = o.epochs;
    j["configs_per_step"] = o.configsPerStep;
    j["lr"] = o.learningRate;
    j["beta1"] = o.beta1;
    j["beta2"] = o.beta2;
    j["adam_eps"] = o.adamEps;
    j["weight_decay"] = o.weightDecay;
    j["decay_biases"] = o.decayBiases;
    j["warmup_share"] = o.warmupShare;
    j["clip_norm"] = o.clipNorm;
    j["eval_every"] = o.evalEvery;
    j["eval_batch"] = o.evalBatch;
    j["log_every"] = o.logEvery;
    j["max_nonfinite_run"] = o.maxNonFiniteRun;
    j["seed"] = o.seed;
    j["deterministic"] = o.deterministic;
    j["dedup"] = dedupPolicyName(o.dedup);
    j["folds"] = o.folds;
    j["fold"] = o.fold;
    j["fold_seed"] = uint64_t(o.foldSeed);
    j["graphs_per_step"] = o.graphsPerStep;
    return jsonText(j, true);
}

TrainOptions trainOptionsFromJson(const std::string& json)
{
    const Json root = parseJson(json);
    const Json& m = jsonObject(root, "model");
    TrainOptions o;
    o.model.hidden = jsonInteger(m, "hidden");
    o.model.blocks = jsonInteger(m, "blocks");
    o.model.useCrossAttn = jsonBool(m, "use_cross_attn");
    o.model.opTableSize = jsonInteger(m, "op_table_size");
    o.model.dropout = jsonNumber(m, "dropout");
    o.model.residualAfterActivation = jsonBool(m, "residual_after_activation");
    o.model.bidirectionalEdges = jsonBool(m, "bidirectional_edges");
    o.model.simInputs = m.contains("sim_inputs") && jsonBool(m, "sim_inputs"); // since docs/model.md §4.9
    const auto choice = [](const Json& object, const char* key, auto parse, auto* value) {
        const std::string text = jsonString(object, key);
        if (!parse(text, value))
            throw std::runtime_error(std::string("member \"") + key + "\" has an unknown value \"" + text + "\"");
    };
    // Written since the model zoo; older checkpoints hold TGraph models.
    if (m.contains("family"))
        choice(m, "family", parseModelFamily, &o.model.family);
    if (m.contains("reduction"))
        choice(m, "reduction", parseNodeReduction, &o.model.reduction);
    if (root.contains("loss"))
        choice(root, "loss", parseLossKind, &o.loss);
    o.steps = jsonInteger(root, "steps");
    o.epochs = jsonNumber(root, "epochs");
    o.configsPerStep = jsonInteger(root, "configs_per_step");
    o.learningRate = jsonNumber(root, "lr");
    o.beta1 = jsonNumber(root, "beta1");
    o.beta2 = jsonNumber(root, "beta2");
    o.adamEps = jsonNumber(root, "adam_eps");
    o.weightDecay = jsonNumber(root, "weight_decay");
    o.decayBiases = jsonBool(root, "decay_biases");
    o.warmupShare = jsonNumber(root, "warmup_share");
    o.clipNorm = jsonNumber(root, "clip_norm");
    o.evalEvery = jsonInteger(root, "eval_every");
    o.evalBatch = jsonInteger(root, "eval_batch");
    o.logEvery = jsonInteger(root, "log_every");
    o.maxNonFiniteRun = jsonInteger(root, "max_nonfinite_run");
    o.seed = jsonUnsigned(root, "seed");
    o.deterministic = jsonBool(root, "deterministic");
    choice(root, "dedup", parseDedupPolicy, &o.dedup);
    o.folds = int(jsonInteger(root, "folds"));
    o.fold = int(jsonInteger(root, "fold"));
    o.foldSeed = uint32_t(jsonUnsigned(root, "fold_seed"));
    if (root.contains("graphs_per_step")) // written since data-parallel training
        o.graphsPerStep = jsonInteger(root, "graphs_per_step");
    if (o.configsPerStep < 1 || o.graphsPerStep < 1 || o.evalBatch < 1 || o.logEvery < 1 || o.maxNonFiniteRun < 1
        || o.model.hidden < 1 || o.model.opTableSize < 1 || !(o.learningRate >= 0)
        || !(o.warmupShare >= 0 && o.warmupShare <= 1))
        throw std::runtime_error("values out of range");
    return o;
}

} // namespace tgraph::model
