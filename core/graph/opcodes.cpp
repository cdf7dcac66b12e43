// SPDX-License-Identifier: Apache-2.0
#include "core/graph/opcodes.h"

#include <array>
#include <unordered_map>

namespace tgraph {

namespace {
// Index = opcode id (docs/formats.md §3, the TpuGraphs featurizer's hlo_opcode.h order).
constexpr std::array<const char*, kMaxOpcodeId + 1> kNames = {
    "unknown",
    "abs",
    "add",
    "add-dependency",
    "after-all",
    "all-reduce",
    "all-to-all",
    "atan2",
    "batch-norm-grad",
    "batch-norm-inference",
    "batch-norm-training",
    "bitcast",
    "bitcast-convert",
    "broadcast",
    "call",
    "ceil",
    "cholesky",
    "clamp",
    "collective-permute",
    "count-leading-zeros",
    "compare",
    "complex",
    "concatenate",
    "conditional",
    "constant",
    "convert",
    "convolution",
    "copy",
    "copy-done",
    "copy-start",
    "cosine",
    "custom-call",
    "divide",
    "domain",
    "dot",
    "dynamic-slice",
    "dynamic-update-slice",
    "exponential",
    "exponential-minus-one",
    "fft",
    "floor",
    "fusion",
    "gather",
    "get-dimension-size",
    "set-dimension-size",
    "get-tuple-element",
    "imag",
    "infeed",
    "iota",
    "is-finite",
    "log",
    "log-plus-one",
    "and",
    "not",
    "or",
    "xor",
    "map",
    "maximum",
    "minimum",
    "multiply",
    "negate",
    "outfeed",
    "pad",
    "parameter",
    "partition-id",
    "popcnt",
    "power",
    "real",
    "recv",
    "recv-done",
    "reduce",
    "reduce-precision",
    "reduce-window",
    "remainder",
    "replica-id",
    "reshape",
    "reverse",
    "rng",
    "rng-get-and-update-state",
    "rng-bit-generator",
    "round-nearest-afz",
    "rsqrt",
    "scatter",
    "select",
    "select-and-scatter",
    "send",
    "send-done",
    "shift-left",
    "shift-right-arithmetic",
    "shift-right-logical",
    "sign",
    "sine",
    "slice",
    "sort",
    "sqrt",
    "subtract",
    "tanh",
    "trace",
    "transpose",
    "triangular-solve",
    "tuple",
    "tuple-select",
    "while",
    "cbrt",
    "all-gather",
    "collective-permute-start",
    "collective-permute-done",
    "logistic",
    "dynamic-reshape",
    "all-reduce-start",
    "all-reduce-done",
    "reduce-scatter",
    "all-gather-start",
    "all-gather-done",
    "opt-barrier",
    "async-start",
    "async-update",
    "async-done",
    "round-nearest-even",
    "stochastic-convert",
    "tan",
};
} // namespace

std::string opcodeName(int id)
{
    if (id >= 0 && id <= kMaxOpcodeId)
        return kNames[size_t(id)];
    return "opcode-" + std::to_string(id);
}

int opcodeId(std::string_view name)
{
    static const std::unordered_map<std::string_view, int> ids = [] {
        std::unordered_map<std::string_view, int> m;
        for (int i = 1; i <= kMaxOpcodeId; ++i)
            m.emplace(kNames[size_t(i)], i);
        return m;
    }();
    auto it = ids.find(name);
    return it == ids.end() ? 0 : it->second;
}

} // namespace tgraph
