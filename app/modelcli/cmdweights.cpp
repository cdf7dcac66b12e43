// SPDX-License-Identifier: Apache-2.0
// `tgraph weights export|import|combine|show`: between training checkpoints and plain weights files
// (the exchange format of model/nn/weights.h, readable by numpy and by the PyTorch reference module),
// several models made one ensemble file (model/nn/ensemblefile.h), and what a file holds.

#include "app/cli/argparser.h"
#include "app/cli/commands.h"

#include "core/util/error.h"
#include "core/util/json.h"
#include "model/infer/ensemblecombine.h"
#include "model/nn/weights.h"
#include "model/train/checkpoint.h"

#include <charconv>
#include <cstdio>

namespace tgraph::cli {

namespace {

using namespace tgraph::model;

constexpr const char* kCommand = "weights";

std::string describeModel(GraphKind kind, const torch::nn::Module& m, const ModelOptions& o)
{
    return std::string(graphKindName(kind)) + " model (" + describe(o) + "), " + std::to_string(parameterCount(m))
        + " parameters";
}

int exportWeights(const std::string& in, const std::string& out)
{
    // A checkpoint or a weights file: the loaders check every key either way.
    const GraphKind kind = weightsKind(in);
    if (isZooWeights(in)) {
        const AnyWeights w = loadAnyWeightsNpz(in);
        saveZooWeightsNpz(w.zoo, w.normalizer, out);
        std::printf("wrote %s: %s\n", out.c_str(), describeModel(kind, *w.zoo, w.zoo->options()).c_str());
    } else if (kind == GraphKind::Layout) {
        const LayoutWeights w = loadWeightsNpz(in);
        saveWeightsNpz(w.model, w.normalizer, out);
        std::printf("wrote %s: %s\n", out.c_str(), describeModel(kind, *w.model, w.model->options()).c_str());
    } else {
        const TileWeights w = loadTileWeightsNpz(in);
        saveTileWeightsNpz(w.model, w.normalizer, out);
        std::printf("wrote %s: %s\n", out.c_str(), describeModel(kind, *w.model, w.model->options()).c_str());
    }
    return ExitOk;
}

int importWeights(const std::string& in, const std::string& out)
{
    const Checkpoint c = checkpointFromWeights(in);
    saveCheckpoint(c, out);
    std::printf("wrote %s: a fresh training checkpoint (step 0, zero optimizer state) of the %s\n", out.c_str(),
        describeModel(c.kind, c.module(), c.modelOptions()).c_str());
    std::printf("  train from it with: tgraph train --resume %s --data DIR [options]\n", out.c_str());
    return ExitOk;
}

// Locale-free fixed-point text (the process's locale never changes a number we print).
std::string fixed(double value, int digits)
{
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed, digits);
    return std::string(buf, r.ptr);
}

// "member 0: tgraph (hidden 16, ...), 1234 parameters; seed 42; fold 1 of 3; best tau 0.3100 at
// step 6 (of 6); from seed-0/best.npz"
std::string describeMember(const Json& m)
{
    // describe() names a zoo model's family itself.
    const std::string model = m.contains("model") && m["model"].is_string() ? m["model"].get<std::string>() : "?";
    const std::string options
        = m.contains("options") && m["options"].is_string() ? m["options"].get<std::string>() : std::string();
    const bool named = options.rfind(model + ", ", 0) == 0;
    std::string text = model + " (" + (named ? options.substr(model.size() + 2) : options) + ")";
    if (m.contains("parameters") && m["parameters"].is_number_integer())
        text += ", " + std::to_string(m["parameters"].get<int64_t>()) + " parameters";
    if (m.contains("seed") && m["seed"].is_number_unsigned())
        text += "; seed " + std::to_string(m["seed"].get<uint64_t>());
    if (m.contains("fold") && m.contains("folds") && m["fold"].is_number_integer() && m["folds"].is_number_integer())
        text += "; fold " + std::to_string(m["fold"].get<int64_t>()) + " of "
            + std::to_string(m["folds"].get<int64_t>());
    if (m.contains("best_tau") && m["best_tau"].is_number()) {
        text += "; best tau " + fixed(m["best_tau"].get<double>(), 4);
        if (m.contains("best_step") && m["best_step"].is_number_integer())
            text += " at step " + std::to_string(m["best_step"].get<int64_t>());
    }
    if (m.contains("step") && m["step"].is_number_integer())
        text += "; " + std::to_string(m["step"].get<int64_t>()) + " steps trained";
    if (m.contains("source") && m["source"].is_string())
        text += "; from " + m["source"].get<std::string>();
    return text;
}

int combineWeights(const std::vector<std::string>& inputs, const std::string& out)
{
    const CombinedEnsemble e = model::combineWeights(inputs, out, "tgraph weights combine");
    const Json& members = e.info["members"];
    std::printf("wrote %s: an ensemble of %zu %s-model members\n", out.c_str(), members.size(), graphKindName(e.kind));
    for (size_t k = 0; k < members.size(); ++k)
        std::printf("  member %zu: %s\n", k, describeMember(members[k]).c_str());
    return ExitOk;
}

int showWeights(const std::string& in, bool json)
{
    const WeightsSummary s = summarizeWeights(in);
    const Json& members = s.info["members"];
    if (json) {
        Json out = Json::object();
        out["file"] = in;
        out["format"] = s.format;
        out["kind"] = graphKindName(s.kind);
        if (s.info.contains("made_by"))
            out["made_by"] = s.info["made_by"];
        out["members"] = members;
        std::printf("%s\n", jsonText(out).c_str());
        return ExitOk;
    }
    if (s.format == "ensemble") {
        std::printf(
            "%s: an ensemble weights file of %zu %s-model members", in.c_str(), members.size(), graphKindName(s.kind));
        if (s.info.contains("made_by") && s.info["made_by"].is_string())
            std::printf(" (made by %s)", s.info["made_by"].get<std::string>().c_str());
        std::printf("\n");
        for (size_t k = 0; k < members.size(); ++k)
            std::printf("  member %zu: %s\n", k, describeMember(members[k]).c_str());
    } else {
        std::printf("%s: a %s of a %s model\n  %s\n", in.c_str(),
            s.format == "checkpoint" ? "training checkpoint" : "weights file", graphKindName(s.kind),
            describeMember(members[0]).c_str());
    }
    return ExitOk;
}

int weights(const ArgParser& p)
{
    const std::string action = p.positionals()[0];
    const std::vector<std::string> in(p.positionals().begin() + 1, p.positionals().end());
    const std::string out = p.value("--output");
    if (action == "combine")
        return combineWeights(in, out);
    if (action == "show" || action == "info")
        return showWeights(in[0], p.has("--json"));
    return action == "export" ? exportWeights(in[0], out) : importWeights(in[0], out);
}

} // namespace

int runWeights(const std::vector<std::string>& args)
{
    ArgParser p(kCommand,
        "Convert between training checkpoints and weights files, make an ensemble file, or show what a file\n"
        "holds. A weights file is an .npz whose keys are exactly the PyTorch state-dict names of the model\n"
        "(embedding_op.weight, linear.linear.weight, ..., classifier.bias) plus normalizer.mean/std and\n"
        "meta.use_cross_attn; a checkpoint holds the same keys plus the training state (optimizer., scheduler.,\n"
        "rng., train. keys and checkpoint.version); an ensemble file holds N models' weights keys under\n"
        "member.K. plus ensemble.members and ensemble.info (docs/formats.md §12).\n"
        "  export:  checkpoint (or weights file) -> weights file with exactly the weights keys.\n"
        "  import:  weights file (or checkpoint) -> a fresh checkpoint (step 0, zero optimizer state) that\n"
        "           'tgraph train --resume' starts from, with the options given there.\n"
        "  combine: weights files, checkpoints (their weights only), ensemble.json manifests of 'tgraph train\n"
        "           --folds' and other ensemble files -> one ensemble file, which --weights of predict, eval,\n"
        "           explain, tune and diff (and the studio) take as its N members (docs/model.md §6.3).\n"
        "  show:    (or info) the kind, model options and members of a weights file, checkpoint or ensemble\n"
        "           file, with each member's seed, fold and best tau where known (--json: as JSON).",
        "export CKPT -o W.npz | import W.npz -o CKPT.npz | combine IN... -o E.npz | show W [--json]");
    p.addPositional("export|import|combine|show", "what to do");
    p.addPositional(
        "IN", "checkpoint, weights file or ensemble file to read (combine: one or more, and ensemble.json)");
    p.addOption("--output", "-o", "OUT", "file to write (atomically: a failed write leaves nothing behind)");
    p.addOption("--json", "", "", "show: print the description as JSON");
    p.addNote("A file with a missing, extra or mis-shaped key, or weights of another architecture, is refused\n"
              "with the file and key named (exit status 1); in an ensemble file the key names its member\n"
              "(member.K.<key>), and members of different kinds (layout, tile) are refused.");
    if (const int rc = parseOrExit(p, args); rc >= 0)
        return rc;
    if (p.positionals().empty())
        return usageError(kCommand, "expected export, import, combine or show");
    const std::string action = p.positionals()[0];
    if (action != "export" && action != "import" && action != "combine" && action != "show" && action != "info")
        return usageError(kCommand, "unknown action '" + action + "' (export, import, combine or show)");
    const size_t inputs = p.positionals().size() - 1;
    if (action == "combine" ? inputs < 1 : inputs != 1)
        return usageError(kCommand,
            action == "combine" ? "expected one or more input files" : "expected " + action + " and one input file");
    const bool show = action == "show" || action == "info";
    if (show && !p.value("--output").empty())
        return usageError(kCommand, "show prints; it writes no file (-o)");
    if (!show && p.value("--output").empty())
        return usageError(kCommand, "no output file (-o OUT)");
    if (!show && p.has("--json"))
        return usageError(kCommand, "--json applies to show");
    return guarded(kCommand, weights, p);
}

} // namespace tgraph::cli
