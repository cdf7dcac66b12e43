// SPDX-License-Identifier: Apache-2.0
#include "commands.h"

namespace tgraph::cli {

const std::vector<Command>& modelCommandSummaries()
{
    // Run by the tgraph-model executable (the commands that need LibTorch, which costs ~0.6 s to
    // load): `tgraph` lists them and hands them over. Keep in step with app/modelcli/modelcommands.cpp
    // (tst_cli compares both help texts).
    static const std::vector<Command> list = {
        { "train", "train a cost model (TGraph or the zoo's --model), one run or k-fold ensemble, resumable", nullptr },
        { "weights",
            "export / import a checkpoint's weights, combine models into an ensemble file, show a file's models",
            nullptr },
        { "predict", "score every configuration of graphs with a model or ensemble (CSV, npz, Kaggle format)",
            nullptr },
        { "eval", "score graphs with measured runtimes: Kendall tau, OPA, top-k slowdown per graph and mean", nullptr },
        { "explain", "why a layout config ranks fast: per-node score shares, counterfactual layout swaps", nullptr },
        { "tune", "search the layouts / tile configs the model predicts fastest (sa, evo, random), verify the top-k",
            nullptr },
    };
    return list;
}

} // namespace tgraph::cli
