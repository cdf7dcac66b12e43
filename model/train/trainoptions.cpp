// SPDX-License-Identifier: Apache-2.0
#include "model/train/trainoptions.h"

#include "core/util/jsonreader.h"
#include "core/util/jsonwriter.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace tgraph::model {

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
    JsonWriter w(true);
    w.beginObject().key("model").beginObject();
    w.key("hidden").value(o.model.hidden);
    w.key("blocks").value(o.model.blocks);
    w.key("use_cross_attn").value(o.model.useCrossAttn);
    w.key("op_table_size").value(o.model.opTableSize);
    w.key("dropout").value(o.model.dropout);
    w.key("residual_after_activation").value(o.model.residualAfterActivation);
    w.key("bidirectional_edges").value(o.model.bidirectionalEdges);
    w.key("family").value(modelFamilyName(o.model.family));
    w.key("reduction").value(nodeReductionName(o.model.reduction));
    w.endObject();
    w.key("loss").value(lossKindName(o.loss));
    w.key("steps").value(o.steps);
    w.key("epochs").value(o.epochs);
    w.key("configs_per_step").value(o.configsPerStep);
    w.key("lr").value(o.learningRate);
    w.key("beta1").value(o.beta1);
    w.key("beta2").value(o.beta2);
    w.key("adam_eps").value(o.adamEps);
    w.key("weight_decay").value(o.weightDecay);
    w.key("decay_biases").value(o.decayBiases);
    w.key("warmup_share").value(o.warmupShare);
    w.key("clip_norm").value(o.clipNorm);
    w.key("eval_every").value(o.evalEvery);
    w.key("eval_batch").value(o.evalBatch);
    w.key("log_every").value(o.logEvery);
    w.key("max_nonfinite_run").value(o.maxNonFiniteRun);
    w.key("seed").value(o.seed);
    w.key("deterministic").value(o.deterministic);
    w.key("dedup").value(dedupPolicyName(o.dedup));
    w.key("folds").value(o.folds);
    w.key("fold").value(o.fold);
    w.key("fold_seed").value(uint64_t(o.foldSeed));
    w.key("graphs_per_step").value(o.graphsPerStep);
    w.endObject();
    return w.str();
}

TrainOptions trainOptionsFromJson(const std::string& json)
{
    const JsonValue root = parseJson(json);
    auto get = [](const JsonValue& object, const std::string& key) -> const JsonValue& { return object.at(key); };
    auto field = [&](const JsonValue& object, const std::string& key, auto read) {
        const JsonValue& v = get(object, key);
        try {
            return read(v);
        } catch (const std::runtime_error& e) {
            throw std::runtime_error("member \"" + key + "\" " + e.what());
        }
    };
    auto integer = [&](const JsonValue& o, const char* k) {
        return field(o, k, [](const JsonValue& v) { return v.asInteger(); });
    };
    auto number = [&](const JsonValue& o, const char* k) {
        return field(o, k, [](const JsonValue& v) { return v.asNumber(); });
    };
    auto flag
        = [&](const JsonValue& o, const char* k) { return field(o, k, [](const JsonValue& v) { return v.asBool(); }); };

    TrainOptions o;
    const JsonValue& m = get(root, "model");
    o.model.hidden = integer(m, "hidden");
    o.model.blocks = integer(m, "blocks");
    o.model.useCrossAttn = flag(m, "use_cross_attn");
    o.model.opTableSize = integer(m, "op_table_size");
    o.model.dropout = number(m, "dropout");
    o.model.residualAfterActivation = flag(m, "residual_after_activation");
    o.model.bidirectionalEdges = flag(m, "bidirectional_edges");
    // Written since the model zoo; older checkpoints hold TGraph models.
    const auto text = [&](const JsonValue& v, const char* k) {
        return field(v, k, [](const JsonValue& x) { return x.asString(); });
    };
    if (m.contains("family") && !parseModelFamily(text(m, "family"), &o.model.family))
        throw std::runtime_error("member \"family\" has an unknown value \"" + text(m, "family") + "\"");
    if (m.contains("reduction") && !parseNodeReduction(text(m, "reduction"), &o.model.reduction))
        throw std::runtime_error("member \"reduction\" has an unknown value \"" + text(m, "reduction") + "\"");
    if (root.contains("loss") && !parseLossKind(text(root, "loss"), &o.loss))
        throw std::runtime_error("member \"loss\" has an unknown value \"" + text(root, "loss") + "\"");
    o.steps = integer(root, "steps");
    o.epochs = number(root, "epochs");
    o.configsPerStep = integer(root, "configs_per_step");
    o.learningRate = number(root, "lr");
    o.beta1 = number(root, "beta1");
    o.beta2 = number(root, "beta2");
    o.adamEps = number(root, "adam_eps");
    o.weightDecay = number(root, "weight_decay");
    o.decayBiases = flag(root, "decay_biases");
    o.warmupShare = number(root, "warmup_share");
    o.clipNorm = number(root, "clip_norm");
    o.evalEvery = integer(root, "eval_every");
    o.evalBatch = integer(root, "eval_batch");
    o.logEvery = integer(root, "log_every");
    o.maxNonFiniteRun = integer(root, "max_nonfinite_run");
    o.seed = uint64_t(integer(root, "seed"));
    o.deterministic = flag(root, "deterministic");
    const std::string dedup = field(root, "dedup", [](const JsonValue& v) { return v.asString(); });
    if (!parseDedupPolicy(dedup, &o.dedup))
        throw std::runtime_error("member \"dedup\" has an unknown value \"" + dedup + "\"");
    o.folds = int(integer(root, "folds"));
    o.fold = int(integer(root, "fold"));
    o.foldSeed = uint32_t(integer(root, "fold_seed"));
    if (root.contains("graphs_per_step")) // written since data-parallel training
        o.graphsPerStep = integer(root, "graphs_per_step");
    if (o.configsPerStep < 1 || o.graphsPerStep < 1 || o.evalBatch < 1 || o.logEvery < 1 || o.maxNonFiniteRun < 1
        || o.model.hidden < 1 || o.model.opTableSize < 1 || !(o.learningRate >= 0)
        || !(o.warmupShare >= 0 && o.warmupShare <= 1))
        throw std::runtime_error("values out of range");
    return o;
}

} // namespace tgraph::model
