// SPDX-License-Identifier: Apache-2.0
#include "model/infer/ensemblecombine.h"

#include "model/infer/inference.h"
#include "model/nn/ensemblefile.h"
#include "model/nn/weights.h"

#include "core/io/npz.h"
#include "core/util/error.h"

#include <cmath>
#include <filesystem>

namespace tgraph::model {

namespace {

namespace fs = std::filesystem;

// One model to copy: a file, and the prefix of its keys there ("" or "member.K.").
struct Source
{
    std::string path;
    std::string prefix;
    Json info; // its description so far (an ensemble file's entry, or {})
};

bool isTrainingStateKey(const std::string& key)
{
    for (const char* prefix : kCheckpointPrefixes)
        if (key.rfind(prefix, 0) == 0)
            return true;
    return false;
}

// A 0-d number of a checkpoint, when present and of one element.
bool scalarOf(NpzReader& npz, const char* key, double* value)
{
    if (!npz.contains(key) || npz.header(key).elementCount() != 1)
        return false;
    *value = npz.read<double>(key)[0];
    return true;
}

// A checkpoint's seed, fold, step and best tau, read leniently: a fact that cannot be read is
// left out of the description (loading the checkpoint as such checks them).
void addCheckpointFacts(NpzReader& npz, Json& info)
{
    try {
        double value = 0;
        if (scalarOf(npz, "train.step", &value))
            info["step"] = int64_t(value);
        if (scalarOf(npz, "train.best_tau", &value) && std::isfinite(value))
            info["best_tau"] = value;
        if (scalarOf(npz, "train.best_step", &value) && value >= 0)
            info["best_step"] = int64_t(value);
        if (npz.contains("train.hparams") && npz.header("train.hparams").dataBytes() <= (1u << 20)) {
            const NdArray<uint8_t> text = npz.read<uint8_t>("train.hparams");
            const Json hparams
                = parseJson(std::string_view(reinterpret_cast<const char*>(text.data()), size_t(text.size())));
            if (hparams.contains("seed") && hparams["seed"].is_number_unsigned())
                info["seed"] = hparams["seed"];
            if (hparams.contains("folds") && hparams["folds"].is_number_integer() && hparams["folds"].get<int64_t>() > 0
                && hparams.contains("fold") && hparams["fold"].is_number_integer()) {
                info["fold"] = hparams["fold"];
                info["folds"] = hparams["folds"];
            }
        }
    } catch (const std::exception&) {
        // described without the facts that could not be read
    }
}

// A path as the description gives it: relative to `base` when inside it.
std::string describedPath(const std::string& path, const fs::path& base)
{
    const fs::path absolute = fs::absolute(path).lexically_normal();
    const fs::path relative = absolute.lexically_relative(base);
    if (!base.empty() && !relative.empty() && *relative.begin() != "..")
        return relative.string();
    return path;
}

// The models of `path`: one, or an ensemble file's members.
void addSources(const std::string& path, const fs::path& base, std::vector<Source>* sources)
{
    NpzReader npz(path);
    if (!isEnsembleFile(npz)) {
        Source s { path, {}, Json::object() };
        s.info["source"] = describedPath(path, base);
        if (npz.contains(kCheckpointVersionKey))
            addCheckpointFacts(npz, s.info);
        sources->push_back(std::move(s));
        return;
    }
    const EnsembleFileIndex index = readEnsembleIndex(npz);
    for (int64_t k = 0; k < index.members; ++k) {
        Source s { path, ensembleMemberPrefix(k), index.memberInfo(k) };
        s.info["source"] = describedPath(path, base) + " (member " + std::to_string(k) + ")";
        sources->push_back(std::move(s));
    }
}

// Loads a source with every check; fills in its model and options.
GraphKind checkSource(Source& s)
{
    const AnyWeights w = loadAnyWeightsNpz(s.path, s.prefix);
    const ModelOptions& options = w.options();
    s.info["model"] = w.zoo ? modelFamilyName(options.family) : "tgraph";
    s.info["options"] = describe(options);
    s.info["parameters"] = parameterCount(w.module());
    return w.kind;
}

std::string memberName(const Source& s)
{
    return s.prefix.empty() ? s.path : s.path + " (member " + s.prefix.substr(7, s.prefix.size() - 8) + ")";
}

// How an error about a source starts after its file is named: "" or "member K ".
std::string memberWord(const Source& s)
{
    return s.prefix.empty() ? std::string() : "member " + s.prefix.substr(7, s.prefix.size() - 8) + " ";
}

} // namespace

CombinedEnsemble combineWeights(
    const std::vector<std::string>& inputs, const std::string& out, const std::string& madeBy)
{
    if (inputs.empty())
        throw InputError("", "IN", "no weights files to combine");
    const fs::path base = fs::absolute(out).lexically_normal().parent_path();
    std::vector<Source> sources;
    for (const std::string& path : expandWeightsArguments(inputs))
        addSources(path, base, &sources);

    CombinedEnsemble result;
    result.path = out;
    for (size_t i = 0; i < sources.size(); ++i) {
        const GraphKind kind = checkSource(sources[i]);
        if (i == 0)
            result.kind = kind;
        else if (kind != result.kind)
            throw InputError(sources[i].path, sources[i].prefix.empty() ? std::string() : sources[i].prefix + "*",
                memberWord(sources[i]) + "holds a " + graphKindName(kind) + "-model but " + memberName(sources[0])
                    + " a " + graphKindName(result.kind) + "-model; an ensemble has members of one kind");
    }

    Json members = Json::array();
    NpzWriter writer(out, NpzCompression::Stored);
    for (size_t k = 0; k < sources.size(); ++k) {
        const Source& s = sources[k];
        NpzReader npz(s.path);
        const bool checkpoint = s.prefix.empty() && npz.contains(kCheckpointVersionKey);
        for (const std::string& key : npz.keys()) {
            if (key.compare(0, s.prefix.size(), s.prefix) != 0)
                continue;
            const std::string name = key.substr(s.prefix.size());
            if (checkpoint && isTrainingStateKey(name))
                continue;
            writer.add(ensembleMemberPrefix(int64_t(k)) + name, npz.readRaw(key));
        }
        members.push_back(s.info);
    }
    result.info = Json::object();
    result.info["format"] = kEnsembleFormat;
    result.info["kind"] = graphKindName(result.kind);
    result.info["made_by"] = madeBy;
    result.info["members"] = std::move(members);
    writer.add(kEnsembleMembersKey, NdArray<int64_t>(std::vector<int64_t> {}, int64_t(sources.size())));
    const std::string text = jsonText(result.info, true);
    NdArray<uint8_t> bytes({ int64_t(text.size()) });
    std::copy(text.begin(), text.end(), bytes.data());
    writer.add(kEnsembleInfoKey, bytes);
    writer.commit();
    return result;
}

WeightsSummary summarizeWeights(const std::string& path)
{
    WeightsSummary summary;
    std::vector<Source> sources;
    NpzReader npz(path);
    if (isEnsembleFile(npz)) {
        summary.format = "ensemble";
        const EnsembleFileIndex index = readEnsembleIndex(npz);
        summary.info = index.info;
        for (int64_t k = 0; k < index.members; ++k)
            sources.push_back({ path, ensembleMemberPrefix(k), index.memberInfo(k) });
    } else {
        summary.format = npz.contains(kCheckpointVersionKey) ? "checkpoint" : "weights";
        Source s { path, {}, Json::object() };
        if (summary.format == "checkpoint")
            addCheckpointFacts(npz, s.info);
        sources.push_back(std::move(s));
        summary.info = Json::object();
    }
    Json members = Json::array();
    for (size_t k = 0; k < sources.size(); ++k) {
        const GraphKind kind = checkSource(sources[k]);
        if (k == 0)
            summary.kind = kind;
        else if (kind != summary.kind)
            throw InputError(path, sources[k].prefix + "*",
                memberWord(sources[k]) + "holds a " + graphKindName(kind) + "-model but member 0 a "
                    + graphKindName(summary.kind) + "-model; an ensemble has members of one kind");
        members.push_back(sources[k].info);
    }
    summary.info["members"] = std::move(members);
    return summary;
}

} // namespace tgraph::model
