// SPDX-License-Identifier: Apache-2.0
#pragma once

// How an explanation of config A against config B is computed (model/infer/explain.h computes it;
// the result is attribution.h), as plain structs: `tgraph explain` and the studio's explain view
// (through model/facade) fill them.

#include <cstdint>
#include <string>

namespace tgraph {

struct ExplainOptions
{
    int64_t batchConfigs = 128; // as tgraph predict --batch-configs (the chunking of the file's configs)
    bool counterfactuals = true;
    bool gradients = true;
};

struct ExplainFileOptions
{
    ExplainOptions explain;
    bool repadLayout = false; // as predict --repad
    // Score all configs for the predicted ranks of A and B (always done for fastest / slowest).
    bool rankAll = true;
    std::string moduleFile; // --module: the graph's HLO module, for the simulator's breakdown
    bool regenerateModule = true; // tgraph synth graphs: regenerate their module (model/infer/explainsimulator.h)
    std::string simulatorParams; // --params overrides
};

} // namespace tgraph
