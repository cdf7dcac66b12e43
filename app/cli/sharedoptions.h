// SPDX-License-Identifier: Apache-2.0
#pragma once

// Option types that several commands of both command lines declare alike.

#include "optiontype.h"

#include "core/util/precision.h"

namespace tgraph::cli {

class ArgParser;

// --params name=value[,name=value...]: simulator parameters, checked by SimulatorParams::assign
// (names, ranges); the error names the parameter ("unknown simulator parameter 'warp' ...").
OptionType simulatorParamsType();

// --threads T: LibTorch threads, 0 = all cores.
inline OptionType threadsType() { return opt::integer(0, 1024); }

// --precision auto|fp32|bf16: the precision of the model's matrix products (docs/model.md §10.12),
// declared by train, predict, eval, explain, tune and diff; app/modelcli/precisionoption.h applies it.
void addPrecisionOption(ArgParser& p);
// The option's value (Auto when absent).
tgraph::Precision precisionOption(const ArgParser& p);

} // namespace tgraph::cli
