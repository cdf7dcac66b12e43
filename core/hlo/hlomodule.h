// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/io/ndarray.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tgraph {

// xla::PrimitiveType numbering (docs/formats.md §6).
namespace PrimitiveType {
enum : int32_t {
    Invalid = 0,
    Pred = 1,
    S8 = 2,
    S16 = 3,
    S32 = 4,
    S64 = 5,
    U8 = 6,
    U16 = 7,
    U32 = 8,
    U64 = 9,
    F16 = 10,
    F32 = 11,
    F64 = 12,
    Tuple = 13,
    OpaqueType = 14,
    C64 = 15,
    BF16 = 16,
    Token = 17,
    C128 = 18,
    Buffer = 34,
};
}
// "f32" -> F32 ... (HLO text names); -1 when unknown.
int32_t primitiveTypeFromName(std::string_view name);
// "f32", "bf16", "tuple" ...; "type-N" for numbers without a name.
std::string primitiveTypeName(int32_t type);

// A run of int64 values in HloModule::ints.
struct IntSpan
{
    uint32_t offset = 0;
    uint32_t count = 0;
};

struct HloShape
{
    int32_t elementType = PrimitiveType::Invalid;
    IntSpan dims; // dimension sizes (bounds for dynamic dims)
    IntSpan minorToMajor; // layout; empty when the shape has none
    bool hasLayout = false;
    uint32_t firstTupleShape = 0; // tuple elements are HloModule::shapes[first .. first+count)
    uint32_t tupleCount = 0;
};

struct HloWindowDimension
{
    int64_t size = 0;
    int64_t stride = 1;
    int64_t paddingLow = 0;
    int64_t paddingHigh = 0;
    int64_t windowDilation = 1;
    int64_t baseDilation = 1;
    bool reversal = false;
};

struct HloConvolutionDims
{
    int64_t inputBatch = 0;
    int64_t inputFeature = 0;
    IntSpan inputSpatial;
    int64_t kernelInputFeature = 0;
    int64_t kernelOutputFeature = 0;
    IntSpan kernelSpatial;
    int64_t outputBatch = 0;
    int64_t outputFeature = 0;
    IntSpan outputSpatial;
};

// xla.DotDimensionNumbers (not a TpuGraphs feature; the cost simulator needs the contraction).
struct HloDotDims
{
    IntSpan lhsContracting;
    IntSpan rhsContracting;
    IntSpan lhsBatch;
    IntSpan rhsBatch;
    // Structured sparsity (xla.SparsityDescriptor, text `sparsity=L.1@2:4`): 4 values per
    // descriptor, the sparse operand (0 lhs, 1 rhs), its sparse dimension, n and m (n of every m
    // values stored). A sparse dot takes one metadata operand per descriptor after lhs and rhs.
    IntSpan sparsity;
};

struct HloSliceDimension
{
    int64_t start = 0;
    int64_t limit = 0;
    int64_t stride = 1;
};

struct HloPaddingDimension
{
    int64_t low = 0;
    int64_t high = 0;
    int64_t interior = 0;
};

struct HloAttribute
{
    std::string_view name;
    std::string_view value; // as written in the text, e.g. "{op_type=\"Conv2D\" ...}"
};

// The fields of an instruction the TpuGraphs featurizer reads, rarely set (most instructions have
// none), kept out of line so that HloInstruction stays small.
struct HloInstructionDetails
{
    uint32_t windowOffset = 0; // HloModule::windowDims
    uint32_t windowCount = 0;
    int32_t convolutionDims = -1; // HloModule::convolutionDims, -1 = none
    int32_t dotDims = -1;         // HloModule::dotDims, -1 = none
    uint32_t sliceOffset = 0; // HloModule::slices
    uint32_t sliceCount = 0;
    IntSpan dynamicSliceSizes;
    uint32_t paddingOffset = 0; // HloModule::paddings (pad op's padding_config)
    uint32_t paddingCount = 0;
    uint32_t attributeOffset = 0; // HloModule::attributes: attributes kept as text
    uint32_t attributeCount = 0;
};

struct HloInstruction
{
    std::string_view name; // without '%'
    std::string_view opcode; // XLA opcode string as written ("convolution", "all-gather-start")
    int64_t id = 0; // unique in the module; text input: the node position
    uint32_t shape = 0; // HloModule::shapes
    IntSpan operandIds; // instruction ids, in operand order
    IntSpan calledComputationIds;
    IntSpan dimensions;
    int64_t parameterNumber = 0;
    int64_t featureGroupCount = 0;
    int64_t batchGroupCount = 0;
    int32_t details = -1; // HloModule::details, -1 = none
    bool isStable = false;
    uint32_t line = 0; // 1-based source position for text input, 0 for protobuf
    uint32_t column = 0;
};

// The names xla.OpMetadata gives an instruction (docs/formats.md §6, §8.4): the framework op type
// ("Conv2D") and the op's name, a '/'-separated scope path ("model/block_3/conv/Conv2D").
struct HloOpMetadata
{
    std::string_view opType;
    std::string_view opName;
};

struct HloComputation
{
    std::string_view name;
    int64_t id = 0;
    int64_t rootId = -1; // id of the root instruction
    bool isFusion = false;
    std::string_view executionThread;
    uint32_t firstInstruction = 0; // HloModule::instructions[first .. first+count)
    uint32_t instructionCount = 0;
    uint32_t line = 0;
};

// Where a module came from.
enum class HloSourceFormat { Text, HloModuleProto, HloProto, HloSnapshot, ModuleTuningData, TuningData };
const char* hloSourceFormatName(HloSourceFormat format);

// Vectors of the module's pools: big ones get huge pages, growth does not zero-fill first.
template <class T> using PoolVector = std::vector<T, UninitializedAllocator<T>>;

// One HLO module in memory, the same for text and protobuf input. Computations and instructions
// are kept in stored order (= TpuGraphs node order). Variable-length data live in shared pools
// (ints, shapes, ...) addressed by spans, and names in an arena owned by the module, so a module
// takes roughly the size of its text dump. Move-only (string views point into the arena).
class HloModule
{
public:
    HloModule();
    ~HloModule();
    HloModule(HloModule&&) noexcept;
    HloModule& operator=(HloModule&&) noexcept;
    HloModule(const HloModule&) = delete;
    HloModule& operator=(const HloModule&) = delete;

    std::string_view name;
    std::string_view entryComputationName;
    int64_t entryComputationId = -1;
    int64_t id = 0;
    HloSourceFormat format = HloSourceFormat::Text;

    std::vector<HloComputation> computations;
    PoolVector<HloInstruction> instructions;
    PoolVector<HloInstructionDetails> details;
    PoolVector<HloShape> shapes;
    PoolVector<int64_t> ints;
    std::vector<HloWindowDimension> windowDims;
    std::vector<HloConvolutionDims> convolutionDims;
    std::vector<HloDotDims> dotDims;
    std::vector<HloSliceDimension> slices;
    std::vector<HloPaddingDimension> paddings;
    std::vector<HloAttribute> attributes;
    std::vector<std::string> warnings; // non-fatal oddities met while reading (e.g. unbounded dims)

    // Reserves the pools for about `count` instructions (readers estimate it from the input size).
    void reserveFor(size_t count);
    // Copies text into the module's arena; the view stays valid for the module's lifetime.
    std::string_view intern(std::string_view text);
    IntSpan addInts(std::span<const int64_t> values);
    std::span<const int64_t> span(IntSpan s) const { return { ints.data() + s.offset, s.count }; }

    std::span<const HloInstruction> instructionsOf(const HloComputation& c) const
    {
        return { instructions.data() + c.firstInstruction, c.instructionCount };
    }
    const HloShape& shapeOf(const HloInstruction& i) const { return shapes[i.shape]; }
    // The details of an instruction; a shared empty record when it has none.
    const HloInstructionDetails& detailsOf(const HloInstruction& i) const;
    // op_name / op_type of the instruction at position `instruction`; empty when it has none.
    std::string_view opName(size_t instruction) const { return opMetadataOf(instruction).opName; }
    std::string_view opType(size_t instruction) const { return opMetadataOf(instruction).opType; }
    const HloOpMetadata& opMetadataOf(size_t instruction) const;
    // Sets the op metadata of the instruction at position `instruction` (the readers call it as
    // they go, in instruction order). The names are copied into the arena, or found in `cache`
    // when given; a record equal to the previous one is shared (frameworks emit several
    // instructions per op, one after another).
    void setOpMetadata(
        size_t instruction, std::string_view opType, std::string_view opName, class HloInternCache* cache = nullptr);
    // How many instructions have a non-empty op_name.
    size_t opNameCount() const;
    // Index of the entry computation (entryComputationId, else the name, else the last one).
    int64_t entryIndex() const;
    // Shape as HLO text: "f32[2,3]{1,0}", "(f32[], s32[4]{0})".
    std::string shapeToText(uint32_t shape) const;

private:
    struct Arena;
    std::unique_ptr<Arena> m_arena;
    // Op metadata, made when the first instruction with some is read: a record index per
    // instruction position (4 bytes each, 0 = none) and the records.
    struct OpMetadataTable;
    std::unique_ptr<OpMetadataTable> m_opMetadata;
};

// What a reader keeps while it reads: the strings it copied into a module's arena lately, so that
// a string read again (an op name repeated in a layer) is not copied again, and the op metadata
// records it made lately. Direct-mapped caches that grow with use from 256 to 4096 entries (at
// most 224 KB), whatever the input; reset() when the next module starts.
class HloInternCache
{
public:
    std::string_view intern(HloModule& module, std::string_view text);
    void reset() { ++m_generation; }

private:
    void grow();
    friend class HloModule;
    struct Slot
    {
        uint64_t generation = 0;
        std::string_view text;
    };
    struct RecordSlot // an op metadata record made lately, by the addresses of its interned names
    {
        uint64_t generation = 0;
        const char* type = nullptr;
        const char* name = nullptr;
        uint32_t record = 0;
    };
    std::vector<Slot> m_slots;
    std::vector<RecordSlot> m_records;
    uint64_t m_generation = 1;
    uint64_t m_uses = 0;
};

// A module holding computation `computation` of `module` as its entry and, before it, every
// computation it calls (transitively), in their original order; instruction ids become positions.
// Used to cut fused kernels out of a module (the TpuGraphs tile collection's unit).
HloModule extractComputation(const HloModule& module, size_t computation);

// A tpu_graphs.TileSizeConfig (docs/formats.md §6).
struct TileSizeConfig
{
    std::vector<int64_t> kernelBounds;
    std::vector<int64_t> outputBounds;
    std::vector<int64_t> inputBounds;
    std::vector<int64_t> iterationBounds;
};

// A tpu_graphs.ConfigProfile: one measured (or failed) configuration of a module.
struct TuningRun
{
    enum class Config { None, Op, Module } config = Config::None;
    bool hasTileSizeConfig = false; // op_config.tile_size_config present
    TileSizeConfig tile;
    // module_config.layout_config: per configurable node, per tensor, the minor-to-major dims.
    std::vector<std::vector<std::vector<int32_t>>> layoutNodes;
    bool error = false;
    bool hasProfile = false;
    int64_t computeTimeNs = 0; // profile.compute_time_ns
    bool isDefault = false;
};

// A tpu_graphs.ModuleTuningData, or a plain module (no runs) from any other input.
struct ModuleTuningData
{
    bool hasModule = false;
    HloModule module;
    uint64_t fingerprint = 0;
    std::vector<TuningRun> runs;
    std::vector<uint64_t> configIndexToNode; // node positions of configurable nodes
};

} // namespace tgraph
