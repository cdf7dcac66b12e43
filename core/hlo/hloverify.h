// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/hlo/hlomodule.h"

#include <string>

namespace tgraph {

// The checks XLA makes before it accepts a module (docs/formats.md §8.6), on a module read from
// any source. XLA's text parser and HloModule::CreateFromProto resolve names and ids in the order
// they are written, so a module XLA accepts has no forward references:
//   - ids are unique, every root and operand is an instruction of its own computation, every
//     called computation exists;
//   - operands form no cycle, and each one is defined before the instruction that uses it;
//   - no computation is reachable from itself through calls (to_apply, calls, condition, body,
//     branch_computations, called_computations, ...), and each callee is defined before its caller;
//   - operand counts that the opcode fixes or bounds (add 2, select 3, dynamic-slice at least 2,
//     reduce an even number, ...), the parameter counts of the computations that call, while,
//     conditional and fusion call, tuples with as many operands as their shape has elements, and
//     element-wise operands with the dimensions of the result.
// The first problem found is thrown as InputError(file, place, problem). For text input the place
// is "line L, column C" of the instruction at fault (the line in the file, also for a file of
// several modules); for protobuf input, which has no lines, the place names the module, the
// computation and the instruction with its id.
void verifyHloModule(const HloModule& module, const std::string& file);

} // namespace tgraph
