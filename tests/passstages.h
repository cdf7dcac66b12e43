// SPDX-License-Identifier: Apache-2.0
#pragma once

// A module at four stages of its compilation, as XLA passes leave it, written for the tests of the
// history of an instruction (tst_instructionhistory) and of the Passes page (tst_passespage): a
// layout pass, a fusion pass and a clean-up.

namespace passstages {

// Stage 0: as the framework wrote it.
inline constexpr const char* kStage0 = R"(HloModule m

ENTRY main {
  p0 = f32[4,8]{1,0} parameter(0)
  p1 = f32[4,8]{1,0} parameter(1)
  mul = f32[4,8]{1,0} multiply(p0, p1)
  add = f32[4,8]{1,0} add(mul, p0)
  ROOT neg = f32[4,8]{1,0} negate(add)
}
)";

// Stage 1: a layout pass gave `mul` another minor-to-major order; p1 renamed.
inline constexpr const char* kStage1 = R"(HloModule m

ENTRY main {
  p0 = f32[4,8]{1,0} parameter(0)
  arg1 = f32[4,8]{1,0} parameter(1)
  mul = f32[4,8]{0,1} multiply(p0, arg1)
  add = f32[4,8]{1,0} add(mul, p0)
  ROOT neg = f32[4,8]{1,0} negate(add)
}
)";

// Stage 2: the multiply and the add fused into one kernel, cloned under new names.
inline constexpr const char* kStage2 = R"(HloModule m

fused_computation {
  param_0 = f32[4,8]{1,0} parameter(0)
  param_1 = f32[4,8]{1,0} parameter(1)
  multiply.1 = f32[4,8]{0,1} multiply(param_0, param_1)
  ROOT add.1 = f32[4,8]{1,0} add(multiply.1, param_0)
}

ENTRY main {
  p0 = f32[4,8]{1,0} parameter(0)
  arg1 = f32[4,8]{1,0} parameter(1)
  fusion = f32[4,8]{1,0} fusion(p0, arg1), kind=kLoop, calls=fused_computation
  ROOT neg = f32[4,8]{1,0} negate(fusion)
}
)";

// Stage 3: the negate gone (a clean-up pass folded it away), the fusion is the root.
inline constexpr const char* kStage3 = R"(HloModule m

fused_computation {
  param_0 = f32[4,8]{1,0} parameter(0)
  param_1 = f32[4,8]{1,0} parameter(1)
  multiply.1 = f32[4,8]{0,1} multiply(param_0, param_1)
  ROOT add.1 = f32[4,8]{1,0} add(multiply.1, param_0)
}

ENTRY main {
  p0 = f32[4,8]{1,0} parameter(0)
  arg1 = f32[4,8]{1,0} parameter(1)
  ROOT fusion = f32[4,8]{1,0} fusion(p0, arg1), kind=kLoop, calls=fused_computation
}
)";

} // namespace passstages
