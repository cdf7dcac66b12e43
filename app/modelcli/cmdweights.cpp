// SPDX-License-Identifier: Apache-2.0
// `tgraph weights export|import`: between training checkpoints and plain weights files (the
// exchange format of model/nn/weights.h, readable by numpy and by the PyTorch reference module).

#include "app/cli/argparser.h"
#include "app/cli/commands.h"

#include "core/util/error.h"
#include "model/train/checkpoint.h"
#include "model/nn/weights.h"

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

int weights(const ArgParser& p)
{
    const std::string action = p.positionals()[0];
    const std::string in = p.positionals()[1];
    const std::string out = p.value("--output");
    return action == "export" ? exportWeights(in, out) : importWeights(in, out);
}

} // namespace

int runWeights(const std::vector<std::string>& args)
{
    ArgParser p(kCommand,
        "Convert between training checkpoints and weights files. A weights file is an .npz whose keys are\n"
        "exactly the PyTorch state-dict names of the model (embedding_op.weight, linear.linear.weight, ...,\n"
        "classifier.bias) plus normalizer.mean/std and meta.use_cross_attn; a checkpoint holds the same keys\n"
        "plus the training state (optimizer., scheduler., rng., train. keys and checkpoint.version).\n"
        "  export: checkpoint (or weights file) -> weights file with exactly the weights keys.\n"
        "  import: weights file (or checkpoint) -> a fresh checkpoint (step 0, zero optimizer state) that\n"
        "          'tgraph train --resume' starts from, with the options given there.",
        "export CKPT -o W.npz | import W.npz -o CKPT.npz");
    p.addPositional("export|import", "direction");
    p.addPositional("IN", "checkpoint or weights file to read");
    p.addOption("--output", "-o", "OUT", "file to write (atomically: a failed write leaves nothing behind)");
    p.addNote("A file with a missing, extra or mis-shaped key, or weights of another architecture, is refused\n"
              "with the file and key named (exit status 1).");
    if (const int rc = parseOrExit(p, args); rc >= 0)
        return rc;
    if (p.positionals().size() != 2)
        return usageError(kCommand, "expected export|import and one input file");
    const std::string action = p.positionals()[0];
    if (action != "export" && action != "import")
        return usageError(kCommand, "unknown action '" + action + "' (export or import)");
    if (p.value("--output").empty())
        return usageError(kCommand, "no output file (-o OUT)");
    return guarded(kCommand, weights, p);
}

} // namespace tgraph::cli
