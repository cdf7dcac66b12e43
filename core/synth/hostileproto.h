// SPDX-License-Identifier: Apache-2.0
#pragma once

// Hostile but well-formed protobuf inputs for the HLO protobuf reader (core/hlo/hloproto.h): valid
// wire format whose fields come in an order no XLA writer produces but protobuf allows - a repeated
// field written unpacked and interleaved with another one, a message field repeated so that its
// occurrences merge. A reader must stay linear in time and memory on them (docs/formats.md §6);
// tst_hloproto, the fuzz corpus (tests/fuzz/corpus/hloproto) and `tgraph-bench hlo-hostile` use them.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tgraph {

enum class HostileProtoKind {
    // One instruction whose dimensions (14) and operand_ids (36) alternate, unpacked: values k % 100.
    AlternatingInts,
    // One instruction whose message fields slice_dimensions (17, start = k % 100), window (15, one
    // dimension of size k % 100), padding_config (21, one dimension of edge_padding_low k % 100),
    // convolution_dimension_numbers (16, input_spatial_dimensions k % 100) and
    // dot_dimension_numbers (30, lhs_contracting_dimensions k % 100) alternate with
    // dynamic_slice_sizes (20, k % 100): the last three append to one pool, the repeated
    // convolution and dot messages merge.
    AlternatingMessages,
    // One instruction whose shape (3) is repeated: each occurrence adds a dimension (k % 100), a
    // tuple element of one dimension (k % 100) and a layout minor_to_major (k % 100), and is
    // followed by a dimensions (14) value k % 100.
    RepeatedShapes,
    // A tpu_graphs.TuningData of `repeats` modules, each a ModuleTuningData holding only a module
    // named "m" (7 bytes each): what each module costs in memory, however little it holds.
    ManyModules,
};

// "alternating-ints", "alternating-messages", "repeated-shapes", "many-modules".
const char* hostileProtoKindName(HostileProtoKind kind);
std::vector<HostileProtoKind> hostileProtoKinds();

struct HostileProto
{
    std::string bytes; // an xla.HloModuleProto (ManyModules: a tpu_graphs.TuningData)
    int64_t repeats = 0; // how many times the pattern repeats (k = 0 .. repeats-1)
};

// About `bytes` bytes (at least one repeat) of an xla.HloModuleProto named "hostile": one
// computation "main" holding one instruction "x" (opcode "add", id 1) made of the pattern; or
// for ManyModules the tuning data described there.
HostileProto generateHostileHloProto(HostileProtoKind kind, size_t bytes);

} // namespace tgraph
