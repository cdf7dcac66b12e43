// SPDX-License-Identifier: Apache-2.0
#pragma once

// Option types that several commands of both command lines declare alike.

#include "optiontype.h"

namespace tgraph::cli {

// --params name=value[,name=value...]: simulator parameters, checked by SimulatorParams::assign
// (names, ranges); the error names the parameter ("unknown simulator parameter 'warp' ...").
OptionType simulatorParamsType();

// --threads T: LibTorch threads, 0 = all cores.
inline OptionType threadsType() { return opt::integer(0, 1024); }

} // namespace tgraph::cli
