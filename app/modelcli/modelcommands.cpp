// SPDX-License-Identifier: Apache-2.0
// The command table of tgraph-model. Names and summaries must match modelCommandSummaries() in
// app/cli/commands.cpp, which `tgraph` uses to list and hand over these commands.
#include "app/cli/commands.h"

namespace tgraph::cli {

int runTrain(const std::vector<std::string>& args); // cmdtrain.cpp
int runWeights(const std::vector<std::string>& args); // cmdweights.cpp
int runPredict(const std::vector<std::string>& args); // cmdpredict.cpp
int runEval(const std::vector<std::string>& args); // cmdeval.cpp
int runExplain(const std::vector<std::string>& args); // cmdexplain.cpp
int runTune(const std::vector<std::string>& args); // cmdtune.cpp

const std::vector<Command>& modelCommands()
{
    static const std::vector<Command> list = {
        { "train", "train a cost model (TGraph or the zoo's --model), one run or k-fold ensemble, resumable",
            runTrain },
        { "weights",
            "export / import a checkpoint's weights, combine models into an ensemble file, show a file's models",
            runWeights },
        { "predict", "score every configuration of graphs with a model or ensemble (CSV, npz, Kaggle format)",
            runPredict },
        { "eval", "score graphs with measured runtimes: Kendall tau, OPA, top-k slowdown per graph and mean", runEval },
        { "explain", "why a layout config ranks fast: per-node score shares, counterfactual layout swaps", runExplain },
        { "tune", "search the layouts / tile configs the model predicts fastest (sa, evo, random), verify the top-k",
            runTune },
    };
    return list;
}

} // namespace tgraph::cli
