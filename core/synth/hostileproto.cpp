// SPDX-License-Identifier: Apache-2.0
#include "core/synth/hostileproto.h"

#include "core/hlo/protowire.h"

#include <algorithm>

namespace tgraph {

namespace {

// Field numbers of docs/formats.md §6.
constexpr uint32_t kModuleName = 1, kModuleEntryName = 2, kModuleComputations = 3, kModuleId = 5,
                   kModuleEntryId = 6;
constexpr uint32_t kCompName = 1, kCompInstructions = 2, kCompId = 5, kCompRootId = 6;
constexpr uint32_t kInstName = 1, kInstOpcode = 2, kInstShape = 3, kInstDimensions = 14, kInstWindow = 15,
                   kInstConvDims = 16, kInstSlices = 17, kInstDynamicSliceSizes = 20, kInstPaddingConfig = 21,
                   kInstDotDims = 30, kInstId = 35, kInstOperandIds = 36;
constexpr uint32_t kConvInputSpatial = 11, kDotLhsContracting = 1;
constexpr uint32_t kShapeDimensions = 3, kShapeTupleShapes = 4, kShapeLayout = 5, kLayoutMinorToMajor = 1;
constexpr uint32_t kTuningModules = 1, kMtdModule = 1;

// Bytes one repeat of the pattern takes (every value is below 128: one byte).
size_t repeatBytes(HostileProtoKind kind)
{
    switch (kind) {
    case HostileProtoKind::AlternatingInts:
        return 5; // 14: tag + value; 36: two-byte tag + value
    case HostileProtoKind::AlternatingMessages:
        return 31; // slice 5, window 6, padding 7, convolution 5, dot 5, dynamic_slice_sizes 3
    case HostileProtoKind::RepeatedShapes:
        return 14; // shape 12, dimensions 2
    case HostileProtoKind::ManyModules:
        return 7; // modules { module { name: "m" } }
    }
    return 1;
}

// A message holding one field 1 that is a message holding one varint field 1 = v (a Window with
// one WindowDimension of that size, a PaddingConfig with one dimension of that low padding).
std::string nestedOne(uint64_t v)
{
    std::string inner, outer;
    ProtoWriter(inner).writeVarintField(1, v);
    ProtoWriter(outer).writeLengthDelimited(1, inner);
    return outer;
}

void writePattern(ProtoWriter& w, HostileProtoKind kind, int64_t repeats)
{
    for (int64_t k = 0; k < repeats; ++k) {
        const uint64_t v = uint64_t(k % 100);
        switch (kind) {
        case HostileProtoKind::AlternatingInts:
            w.writeVarintField(kInstDimensions, v);
            w.writeVarintField(kInstOperandIds, v);
            break;
        case HostileProtoKind::AlternatingMessages: {
            std::string slice;
            ProtoWriter(slice).writeVarintField(1, v); // start
            w.writeLengthDelimited(kInstSlices, slice);
            w.writeLengthDelimited(kInstWindow, nestedOne(v));
            w.writeLengthDelimited(kInstPaddingConfig, nestedOne(v));
            std::string conv, dot;
            ProtoWriter(conv).writeVarintField(kConvInputSpatial, v);
            ProtoWriter(dot).writeVarintField(kDotLhsContracting, v);
            w.writeLengthDelimited(kInstConvDims, conv);
            w.writeLengthDelimited(kInstDotDims, dot);
            w.writeVarintField(kInstDynamicSliceSizes, v);
            break;
        }
        case HostileProtoKind::ManyModules:
            return; // not a module's pattern
        case HostileProtoKind::RepeatedShapes: {
            std::string shape, element, layout;
            ProtoWriter(element).writeVarintField(kShapeDimensions, v);
            ProtoWriter(layout).writeVarintField(kLayoutMinorToMajor, v);
            ProtoWriter s(shape);
            s.writeVarintField(kShapeDimensions, v);
            s.writeLengthDelimited(kShapeTupleShapes, element);
            s.writeLengthDelimited(kShapeLayout, layout);
            w.writeLengthDelimited(kInstShape, shape);
            w.writeVarintField(kInstDimensions, v);
            break;
        }
        }
    }
}

} // namespace

const char* hostileProtoKindName(HostileProtoKind kind)
{
    switch (kind) {
    case HostileProtoKind::AlternatingInts:
        return "alternating-ints";
    case HostileProtoKind::AlternatingMessages:
        return "alternating-messages";
    case HostileProtoKind::RepeatedShapes:
        return "repeated-shapes";
    case HostileProtoKind::ManyModules:
        return "many-modules";
    }
    return "?";
}

std::vector<HostileProtoKind> hostileProtoKinds()
{
    return { HostileProtoKind::AlternatingInts, HostileProtoKind::AlternatingMessages,
        HostileProtoKind::RepeatedShapes, HostileProtoKind::ManyModules };
}

HostileProto generateHostileHloProto(HostileProtoKind kind, size_t bytes)
{
    constexpr size_t kFrame = 64; // names, ids and the lengths of the three enclosing messages
    HostileProto out;
    out.repeats = int64_t(std::max<size_t>(1, (bytes > kFrame ? bytes - kFrame : 0) / repeatBytes(kind)));
    ProtoWriter w(out.bytes);
    if (kind == HostileProtoKind::ManyModules) {
        std::string module, tuning, one;
        ProtoWriter(module).writeString(kModuleName, "m");
        ProtoWriter(tuning).writeLengthDelimited(kMtdModule, module);
        ProtoWriter(one).writeLengthDelimited(kTuningModules, tuning);
        out.bytes.reserve(one.size() * size_t(out.repeats));
        for (int64_t k = 0; k < out.repeats; ++k)
            out.bytes += one;
        return out;
    }
    w.writeString(kModuleName, "hostile");
    w.writeString(kModuleEntryName, "main");
    const size_t computation = w.beginMessage(kModuleComputations);
    w.writeString(kCompName, "main");
    const size_t instruction = w.beginMessage(kCompInstructions);
    w.writeString(kInstName, "x");
    w.writeString(kInstOpcode, "add");
    writePattern(w, kind, out.repeats);
    w.writeVarintField(kInstId, 1);
    w.endMessage(instruction);
    w.writeVarintField(kCompId, 1);
    w.writeVarintField(kCompRootId, 1);
    w.endMessage(computation);
    w.writeVarintField(kModuleId, 1);
    w.writeVarintField(kModuleEntryId, 1);
    return out;
}

} // namespace tgraph
