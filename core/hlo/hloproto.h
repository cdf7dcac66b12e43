// SPDX-License-Identifier: Apache-2.0
#pragma once

// Reading and writing HLO modules and TpuGraphs tuning records in protobuf binary form, without
// protobuf's generated code: xla.HloModuleProto, xla.HloProto, xla.HloSnapshot,
// tpu_graphs.ModuleTuningData and tpu_graphs.TuningData. Only the fields of
// docs/formats.md §6 that the featurizer needs are decoded (the rest is skipped); proto3
// semantics apply: an absent scalar is 0 / false / empty, e.g. a WindowDimension without a stride
// has stride 0 here (no HLO-text defaults are applied), an absent root_id or entry_computation_id
// is 0 (HloModule::entryIndex() falls back to the entry name when no computation has that id).
// Instruction line/column are 0.
//
// Format detection (from the content, never the file name). All five messages start with a
// length-delimited field 1; what it holds decides which interpretations are tried, in this order:
//   * field 1 is printable text (a module name)             -> HloModuleProto only;
//   * field 1 is a message whose field 1 is printable text   -> a module in a container:
//       ModuleTuningData then HloProto when the top message also has field 2, 3 or 4 (fingerprint,
//       runs, config_index_to_node) or the data ends inside field 1 (truncated), else HloProto then
//       ModuleTuningData;
//   * field 1 is a message whose field 1 is a message whose field 1 is printable text
//                                                            -> a container of containers:
//       HloSnapshot then TuningData when the top message has fields 2-4 (arguments, result,
//       execution_platform) or is exactly one complete field 1 holding only a field 1 (an HloProto
//       with just hlo_module), else TuningData then HloSnapshot;
//   * anything else (e.g. a module without a name)           -> HloModuleProto, ModuleTuningData,
//       TuningData, HloProto, HloSnapshot.
// Each interpretation is a complete strict parse: every field it knows must have its declared wire
// type (a known field with another wire type rejects the interpretation), the module name strings
// must be UTF-8, HloProto and HloSnapshot must contain a module, and HloProto accepts no top-level
// fields but 1 and 3 (so a ModuleTuningData never passes for one). The first interpretation that
// parses wins; when none does, the error of the one that got furthest into the data is reported
// (ties: the earlier one). A buffer_assignment is rejected as runs because its field 3
// (buffer_allocations) is a message where ConfigProfile has the bool `error`.
// Before any of this, data that fails looksLikeHloProto() is refused as "not a protobuf message".
// Known ambiguities, harmless for the contents: an HloProto holding only an hlo_module is also a
// valid ModuleTuningData with only a module (reported as HloProto), and an HloSnapshot holding
// only that HloProto a valid TuningData of one such module (reported as HloSnapshot).
//
// The readers decode; they do not check what XLA would refuse (forward references, cycles,
// recursive calls, operand counts): readHloInput runs verifyHloModule (core/hlo/hloverify.h) on
// what they return.
//
// Errors are InputErrors naming the byte offset and the field path, e.g.
//   "m.pb: byte 1234: HloModuleProto.computations[3].instructions[17].shape.dimensions: truncated varint (...)".

#include "core/util/error.h" // InputError, thrown by the readers
#include "core/hlo/hlomodule.h"

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace tgraph {

struct HloProtoFile
{
    HloSourceFormat format = HloSourceFormat::HloModuleProto;
    // One entry per module: a plain module (HloModuleProto, HloProto, HloSnapshot) gives one
    // entry with hasModule = true and no runs; TuningData gives one per ModuleTuningData.
    std::vector<ModuleTuningData> modules;
};

// Parses any of the five formats; `file` is only used in error messages. The result does not
// refer to `bytes` (names are copied into each module's arena).
HloProtoFile readHloProto(std::span<const std::byte> bytes, const std::string& file);
HloProtoFile readHloProtoFile(const std::string& path);

// Cheap sniff on the first bytes of a file (4 KiB are plenty; more are not looked at): true when
// the first byte is the tag of a field 1-6 of wire type 0 or 2 (what all five messages start with)
// and a control byte other than tab/CR/LF occurs (protobuf tags and short lengths are control
// bytes; HLO text has none). readHloProto refuses data for which this is false.
bool looksLikeHloProto(std::span<const std::byte> firstBytes);

// Encoders writing exactly the fields the reader reads, XLA style (ascending field numbers,
// packed repeated scalars, proto3 defaults omitted), so module -> proto -> module round-trips.
// HLO text attributes kept as text (HloModule::attributes) and warnings are not encoded.
std::string encodeHloModuleProto(const HloModule& module);
std::string encodeModuleTuningData(const ModuleTuningData& data);
std::string encodeTuningData(std::span<const ModuleTuningData* const> modules);

} // namespace tgraph
