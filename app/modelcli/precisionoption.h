// SPDX-License-Identifier: Apache-2.0
#pragma once

// Applying `--precision auto|fp32|bf16` (declared by app/cli/sharedoptions.h): the precision of the
// model's matrix products for this process (docs/model.md §10.12).

#include "app/cli/sharedoptions.h"

#include <string>

namespace tgraph::cli {

// Sets the process's products from the option (after initTorchRuntime) and returns the line that
// says which path runs (model::precisionSummary).
std::string applyPrecisionOption(const ArgParser& p);
// The same for a precision already read (a train or tune plan, a diff request).
std::string applyPrecision(tgraph::Precision requested);

} // namespace tgraph::cli
