// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>

namespace tgraph {

// HLO opcode ids of the TpuGraphs featurizer (docs/formats.md §3): 1..120, 0 = unknown.
constexpr int kMaxOpcodeId = 120;
constexpr int kOpcodeConvolution = 26;
constexpr int kOpcodeDot = 34;
constexpr int kOpcodeReshape = 75;

// "convolution" for 26; "unknown" for 0; "opcode-N" for ids outside the table.
std::string opcodeName(int id);
// 0 when the name is not in the table (exact, case-sensitive).
int opcodeId(std::string_view name);

} // namespace tgraph
