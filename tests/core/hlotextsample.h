// SPDX-License-Identifier: Apache-2.0
#pragma once

// In its own header: moc cannot parse raw string literals like this one.
namespace {
// Exercises the grammar of docs/formats.md §8: header attributes with nested braces and /*index*/ comments,
// a stack-frame table, computations without '%', operand shapes printed (old style), tiled and
// scalar-tiled layouts, tokens, dynamic dims, strings with braces, control predecessors, while,
// conditional, fusion, async ops and execution threads.
const char* kModule = R"(HloModule test_module, is_scheduled=true, entry_computation_layout={(f32[2,3]{1,0}, /*index=1*/s32[])->(f32[2,3]{1,0}, f32[])}

FileNames
1 "model.py"
FunctionNames
1 "forward"
FileLocations
1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=1 end_column=9}
StackFrames
1 {file_location_id=1 parent_frame_id=1}

%add_reducer (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %sum = f32[] add(f32[] %x, f32[] %y)
}

cond_computation {
  p = (s32[], f32[2,3]{1,0}) parameter(0)
  i = s32[] get-tuple-element((s32[], f32[2,3]{1,0}) p), index=0
  limit = s32[] constant(10)
  ROOT lt = pred[] compare(i, limit), direction=LT
}

%body_computation (p.1: (s32[], f32[2,3])) -> (s32[], f32[2,3]) {
  %p.1 = (s32[], f32[2,3]{1,0}) parameter(0)
  %i.1 = s32[] get-tuple-element(%p.1), index=0
  %one = s32[] constant(1)
  %next = s32[] add(%i.1, %one)
  %v = f32[2,3]{1,0} get-tuple-element(%p.1), index=1
  ROOT %t = (s32[], f32[2,3]{1,0}) tuple(%next, %v)
}, execution_thread="main"

%fused_computation (param_0: f32[2,3]) -> f32[3,2] {
  %param_0 = f32[2,3]{1,0} parameter(0)
  ROOT %transpose.1 = f32[3,2]{0,1:T(8,128)} transpose(%param_0), dimensions={1,0}
}

%branch_a (a: f32[]) -> f32[] {
  ROOT %a = f32[] parameter(0)
}

%branch_b (b: f32[]) -> f32[] {
  %b = f32[] parameter(0)
  ROOT %nb = f32[] negate(%b)
}

ENTRY %main.42 (arg0: f32[2,3], arg1: s32[]) -> (f32[2,3], f32[]) {
  %arg0 = f32[2,3]{1,0} parameter(0), parameter_replication={false}, metadata={op_type="Placeholder" op_name="x{weird}"}
  %arg1 = s32[] parameter(1)
  %zero = s32[] constant(0)
  %init = (s32[], f32[2,3]{1,0}) tuple(%zero, %arg0)
  %loop = (s32[], f32[2,3]{1,0}) while(%init), condition=cond_computation, body=%body_computation, backend_config={"known_trip_count":{"n":"10"}}
  %res = f32[2,3]{1,0} get-tuple-element(%loop), index=1
  %fusion = f32[3,2]{0,1} fusion(%res), kind=kLoop, calls=%fused_computation, frontend_attributes={_xla="a,b"}
  %init_value = f32[] constant(0)
  %reduced = f32[] reduce(%fusion, %init_value), dimensions={0,1}, to_apply=%add_reducer, metadata={op_name="sum \"quoted\" {"}
  %pred = pred[] constant(true)
  %cond = f32[] conditional(%pred, %reduced, %reduced), true_computation=%branch_a, false_computation=%branch_b
  %token = token[] after-all()
  %dyn = f32[<=4,3]{1,0:T(2,128)S(1)} broadcast(%cond), dimensions={}, control-predecessors={%token}
  %scalar.t = f32[]{:T(256)} copy(%cond)
  %ags = (f32[2,3]{1,0}, f32[4,3]{1,0}) all-gather-start(%res), dimensions={0}, replica_groups={{0,1}}, channel_id=1
  %agd = f32[4,3]{1,0} all-gather-done(%ags)
  %flat = f32[6]{0} reshape(%res)
  ROOT %out = (f32[2,3]{1,0}, f32[]) tuple(%res, %scalar.t)
}
)";
} // namespace
