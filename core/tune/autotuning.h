// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the autotuner is asked and what it gives back, as plain structs (no torch): the request of
// `tgraph tune` and of the studio's Tune panel, each finalist and the outcome of a run. The search
// itself is core/tune/tunesearch.h; the model-scored pipeline is model/infer/autotune.h, reached
// from the studio through model/facade/autotuner.h (docs/architecture.md).

#include "core/tune/tunesearch.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tgraph {

struct AutotuneRequest
{
    TuneOptions search;
    int64_t topK = 0; // 0: 10 for layouts, 5 for tiles
    bool simulate = false; // verify with the simulator (needs the module)
    std::string measureCommand; // or with this command ({config_file} = a JSON file of the config)
    int measureTimeoutMs = 600000;
    std::string configDir; // --measure: where the config files are written (created)
    std::string space = "auto"; // auto | module | file
    std::string moduleFile; // the module of a .npz graph (optional)
    std::string simulatorParams; // name=value,... overrides
};

// One candidate of the final ranking.
struct AutotuneCandidate
{
    size_t evaluation = 0; // index into the search's evaluations (0 = the default)
    double searchScore = 0; // its score in its search batch
    double score = 0; // re-scored with the other final candidates
    double runtime = NAN; // simulated or measured ns; NaN = not verified / failed
    int64_t fileRuntime = -1; // the input file's measured runtime when it holds this config
    std::string note; // why a measurement failed
};

struct AutotuneOutcome
{
    TuneResult result;
    std::vector<AutotuneCandidate> top; // by re-scored score: at most topK distinct configs, not the default
    AutotuneCandidate defaultEntry;
    int winner = 0; // rank (1-based) in `top` to apply: verified faster than the default; 0 = keep it
    double searchSeconds = 0;
    std::string verification; // "simulated", "measured" or "" (not verified)
};

} // namespace tgraph
