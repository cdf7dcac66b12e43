// SPDX-License-Identifier: Apache-2.0
#pragma once

// `--precision auto|fp32|bf16`, shared by train, predict, eval, explain and tune: the precision of
// the model's matrix products (docs/model.md §10.12).

#include "core/util/precision.h"

#include <string>

namespace tgraph::cli {

class ArgParser;

void addPrecisionOption(ArgParser& p);
// Sets the process's products from the option (after initTorchRuntime) and returns the line that
// says which path runs (model::precisionSummary).
std::string applyPrecisionOption(const ArgParser& p);
// The option's value (Auto when absent).
tgraph::Precision precisionOption(const ArgParser& p);

} // namespace tgraph::cli
