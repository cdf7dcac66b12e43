// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace tgraph {

// Scopes deeper than this are cut there (their deeper components join the last kept one).
inline constexpr size_t kMaxScopeDepth = 32;

// The name scope of an instruction from its op_name (docs/studio.md §1.2): the '/'-separated
// components of the path without the last one, which names the op itself
// ("encoder/layer_3/attn/dot_general[...]" -> encoder, layer_3, attn). TensorFlow joins several
// names with ';': the first one counts. A '/' or ';' inside (), [] or {} does not separate
// (JAX prints parameters there); empty components are skipped; at most kMaxScopeDepth are kept.
// Replaces the contents of `out` with views into `opName`; `op`, when given, receives the last
// component (the op's own name, e.g. "Relu6" or "XLA_Args").
void opNameScope(std::string_view opName, std::vector<std::string_view>& out, std::string_view* op = nullptr);

} // namespace tgraph
