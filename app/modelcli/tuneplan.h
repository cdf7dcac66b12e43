// SPDX-License-Identifier: Apache-2.0
#pragma once

// What `tgraph tune` is asked to do: its parsed arguments resolved by one function into a TunePlan
// value (the input, the model, the search, the verification, the outputs), or the usage error of
// an invalid combination naming the flags. cmdtune.cpp parses, resolves, then executes the plan.
// Torch-free, so tst_tuneplan checks it without a model.

#include "app/cli/argparser.h"

#include "core/tune/tunesearch.h"
#include "core/util/precision.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace tgraph::cli {

struct TunePlan
{
    std::string error; // the usage error of an invalid combination ("" = valid): exit 2
    bool ok() const { return error.empty(); }

    // Inputs.
    std::string input; // the module or graph file
    std::vector<std::string> weights; // --weights, in order (an ensemble when several)
    std::string space; // auto, module or file
    std::string moduleFile; // --module
    std::string simulatorParams; // --params

    // The search.
    TuneOptions search;
    int64_t topK = 0; // 0: the kind's default (10 layouts, 5 tiles)
    int threads = 0; // LibTorch threads (0 = all cores)
    tgraph::Precision precision = tgraph::Precision::Auto; // --precision (docs/model.md §10.12)

    // Verification of the top-k and the default: the simulator, a user's command, or none.
    bool simulate = false;
    std::string measureCommand;
    std::chrono::milliseconds measureTimeout { 600000 };

    // Outputs.
    std::string outputDir;
    std::string projectPath; // "" = no project run
    std::string experiment;
    std::string runName;
};

// `tgraph tune`'s options, --help text and notes.
ArgParser tuneArgumentParser();

// The plan for `parser` (already parsed); usage errors go into TunePlan::error.
TunePlan resolveTunePlan(const ArgParser& parser);

} // namespace tgraph::cli
