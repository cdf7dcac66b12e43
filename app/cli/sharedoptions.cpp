// SPDX-License-Identifier: Apache-2.0
#include "sharedoptions.h"

#include "core/sim/simulator.h"

namespace tgraph::cli {

OptionType simulatorParamsType()
{
    return opt::custom({}, [](const std::string& text) {
        std::string error;
        SimulatorParams().assign(text, &error);
        return error;
    });
}

} // namespace tgraph::cli
