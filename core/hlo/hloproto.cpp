// SPDX-License-Identifier: Apache-2.0
#include "core/hlo/hloproto.h"

#include "core/util/error.h"
#include "core/hlo/protowire.h"
#include "core/util/terminaltext.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>

namespace tgraph {

namespace {

// Field numbers (docs/formats.md §6).
namespace F {
// xla.HloModuleProto
constexpr uint32_t ModuleName = 1, ModuleEntryName = 2, ModuleComputations = 3, ModuleHostProgramShape = 4,
                   ModuleId = 5, ModuleEntryId = 6;
// xla.HloComputationProto
constexpr uint32_t CompName = 1, CompInstructions = 2, CompProgramShape = 4, CompId = 5, CompRootId = 6,
                   CompIsFusion = 7, CompExecutionThread = 8;
// xla.HloInstructionProto
constexpr uint32_t InstName = 1, InstOpcode = 2, InstShape = 3, InstMetadata = 7, InstParameterNumber = 9,
                   InstDimensions = 14, InstWindow = 15, InstConvDims = 16, InstSlices = 17, InstDynamicSliceSizes = 20,
                   InstPaddingConfig = 21, InstDotDims = 30, InstId = 35, InstOperandIds = 36,
                   InstCalledComputationIds = 38, InstFeatureGroupCount = 50, InstBatchGroupCount = 58,
                   InstIsStable = 60, InstDotSparsity = 86;
// xla.OpMetadata
constexpr uint32_t MetaOpType = 1, MetaOpName = 2;
// xla.ShapeProto, xla.LayoutProto
constexpr uint32_t ShapeElementType = 2, ShapeDimensions = 3, ShapeTupleShapes = 4, ShapeLayout = 5;
constexpr uint32_t LayoutMinorToMajor = 1;
// xla.Window, xla.WindowDimension
constexpr uint32_t WindowDimensions = 1;
constexpr uint32_t WinSize = 1, WinStride = 2, WinPaddingLow = 3, WinPaddingHigh = 4, WinWindowDilation = 5,
                   WinBaseDilation = 6, WinReversal = 7;
// xla.ConvolutionDimensionNumbers
constexpr uint32_t ConvKernelInputFeature = 3, ConvKernelOutputFeature = 4, ConvKernelSpatial = 6, ConvInputBatch = 7,
                   ConvInputFeature = 8, ConvOutputBatch = 9, ConvOutputFeature = 10, ConvInputSpatial = 11,
                   ConvOutputSpatial = 12;
// xla.DotDimensionNumbers, xla.SparsityDescriptor
constexpr uint32_t DotLhsContracting = 1, DotRhsContracting = 2, DotLhsBatch = 3, DotRhsBatch = 4;
constexpr uint32_t SparsityType = 1, SparsityIndex = 2, SparsityDimension = 3, SparsityN = 4, SparsityM = 5;
constexpr int64_t kSparsityStructuredNM = 1;
// xla.HloInstructionProto.SliceDimensions, xla.PaddingConfig(.PaddingConfigDimension)
constexpr uint32_t SliceStart = 1, SliceLimit = 2, SliceStride = 3;
constexpr uint32_t PaddingDimensions = 1;
constexpr uint32_t PadLow = 1, PadHigh = 2, PadInterior = 3;
// xla.HloProto, xla.HloSnapshot
constexpr uint32_t HloProtoModule = 1, HloProtoBufferAssignment = 3;
constexpr uint32_t SnapshotHlo = 1, SnapshotArguments = 2, SnapshotResult = 3, SnapshotPlatform = 4;
// tpu_graphs.TuningData, ModuleTuningData, ConfigProfile and below
constexpr uint32_t TuningModules = 1;
constexpr uint32_t MtdModule = 1, MtdFingerprint = 2, MtdRuns = 3, MtdConfigIndexToNode = 4;
constexpr uint32_t RunOpConfig = 1, RunModuleConfig = 2, RunError = 3, RunProfile = 4, RunIsDefault = 5;
constexpr uint32_t OpConfigTileSize = 1;
constexpr uint32_t TileKernel = 1, TileOutput = 2, TileInput = 3, TileIteration = 4;
constexpr uint32_t ModuleConfigLayout = 1, LayoutNodes = 1, NodeTensors = 1, TensorDims = 1;
constexpr uint32_t ProfileComputeTimeNs = 4;
} // namespace F

const char* rootMessageName(HloSourceFormat format)
{
    switch (format) {
    case HloSourceFormat::HloProto:
        return "HloProto";
    case HloSourceFormat::HloSnapshot:
        return "HloSnapshot";
    case HloSourceFormat::ModuleTuningData:
        return "ModuleTuningData";
    case HloSourceFormat::TuningData:
        return "TuningData";
    default:
        return "HloModuleProto";
    }
}

// The values of a pool run (offset, count into one of HloModule's pools) whose field came back
// after something else had been appended to the same pool: a repeated field written unpacked and
// interleaved with another one, or a message field repeated (protobuf merges its occurrences).
// Copying the run to the pool's end at every return would be quadratic (100 KB of two int fields
// alternating took 19 s and 6.4 GB), so the run's values are gathered here, each copied once, and
// appended to the pool together when the message that owns the run ends (Decoder::joinStaged;
// docs/formats.md §6).
// While staged, the run's offset is kStaged and its count the number of values gathered so far.
constexpr uint32_t kStaged = UINT32_MAX;
template <class T> struct StagedRun
{
    uint32_t* offset;
    uint32_t* count;
    std::vector<T> values;
};

// Decodes the messages of docs/formats.md §6 straight into an HloModule's pools.
class Decoder
{
public:
    explicit Decoder(ProtoReader& reader)
        : m_r(reader)
    { }

    void module(HloModule& target)
    {
        m_module = &target;
        // Dense protos spend ~50 bytes per instruction; no minimum, so that a crafted file of many
        // tiny modules reserves nothing for them (memory stays a small multiple of the input).
        target.reserveFor(m_r.remaining() / 48);
        m_opcodes.clear();
        m_opcodeCache.fill({});
        m_names.reset();
        std::string_view name, entryName;
        bool nameSet = false, entryNameSet = false;
        target.entryComputationId = 0; // proto3: absent = 0
        while (m_r.next()) {
            switch (m_r.field()) {
            case F::ModuleName:
                name = m_r.readBytes("name");
                nameSet = true;
                // proto3 strings are UTF-8; checking also keeps a serialized message from passing for a name.
                if (!isValidUtf8(name))
                    m_r.failAtTag("not valid UTF-8 (not an HloModuleProto?)");
                break;
            case F::ModuleEntryName:
                entryName = m_r.readBytes("entry_computation_name");
                entryNameSet = true;
                if (!isValidUtf8(entryName))
                    m_r.failAtTag("not valid UTF-8 (not an HloModuleProto?)");
                break;
            case F::ModuleComputations: {
                HloComputation c;
                m_r.enter("computations", int64_t(target.computations.size()));
                computation(c);
                m_r.leave();
                target.computations.push_back(c);
                break;
            }
            case F::ModuleHostProgramShape:
                m_r.skipAs(WireType::Len, "host_program_shape");
                break;
            case F::ModuleId:
                target.id = m_r.readInt64("id");
                break;
            case F::ModuleEntryId:
                target.entryComputationId = m_r.readInt64("entry_computation_id");
                break;
            default:
                m_r.skip();
            }
        }
        if (nameSet)
            target.name = target.intern(name);
        if (entryNameSet)
            target.entryComputationName = target.intern(entryName);
    }

    void moduleTuningData(ModuleTuningData& d)
    {
        while (m_r.next()) {
            switch (m_r.field()) {
            case F::MtdModule:
                m_r.enter("module");
                module(d.module);
                m_r.leave();
                d.hasModule = true;
                break;
            case F::MtdFingerprint:
                d.fingerprint = m_r.readVarint("fingerprint");
                break;
            case F::MtdRuns: {
                TuningRun run;
                m_r.enter("runs", int64_t(d.runs.size()));
                tuningRun(run);
                m_r.leave();
                d.runs.push_back(std::move(run));
                break;
            }
            case F::MtdConfigIndexToNode:
                m_r.appendRepeatedVarint("config_index_to_node", d.configIndexToNode);
                break;
            default:
                m_r.skip();
            }
        }
    }

    // xla.HloProto: only hlo_module (1) and buffer_assignment (3) exist; anything else means
    // this is not an HloProto (see the detection rules in hloproto.h).
    void hloProto(ModuleTuningData& d)
    {
        while (m_r.next()) {
            switch (m_r.field()) {
            case F::HloProtoModule:
                m_r.enter("hlo_module");
                module(d.module);
                m_r.leave();
                d.hasModule = true;
                break;
            case F::HloProtoBufferAssignment:
                m_r.skipAs(WireType::Len, "buffer_assignment");
                break;
            default:
                m_r.failAtTag("field " + std::to_string(m_r.field()) + " is not part of an xla.HloProto");
            }
        }
        if (!d.hasModule)
            m_r.fail(m_r.offset(), "no hlo_module in the xla.HloProto");
    }

    void hloSnapshot(ModuleTuningData& d)
    {
        bool hasHlo = false;
        while (m_r.next()) {
            switch (m_r.field()) {
            case F::SnapshotHlo:
                m_r.enter("hlo");
                hloProto(d);
                m_r.leave();
                hasHlo = true;
                break;
            case F::SnapshotArguments:
                m_r.skipAs(WireType::Len, "arguments");
                break;
            case F::SnapshotResult:
                m_r.skipAs(WireType::Len, "result");
                break;
            case F::SnapshotPlatform:
                m_r.skipAs(WireType::Len, "execution_platform");
                break;
            default:
                m_r.skip();
            }
        }
        if (!hasHlo)
            m_r.fail(m_r.offset(), "no hlo in the xla.HloSnapshot");
    }

    void tuningData(std::vector<ModuleTuningData>& out)
    {
        while (m_r.next()) {
            if (m_r.field() == F::TuningModules) {
                ModuleTuningData d;
                m_r.enter("modules", int64_t(out.size()));
                moduleTuningData(d);
                m_r.leave();
                out.push_back(std::move(d));
            } else {
                m_r.skip();
            }
        }
    }

private:
    // Marks of the staged-run lists: what a message that owns runs registered after it (stageMark()
    // at its start, joinStaged() at its end).
    struct StageMark
    {
        size_t ints, shapes, windows, slices, paddings;
    };
    StageMark stageMark() const
    {
        return { m_stagedInts.size(), m_stagedShapes.size(), m_stagedWindows.size(), m_stagedSlices.size(),
            m_stagedPaddings.size() };
    }
    void joinStaged(const StageMark& mark)
    {
        join(m_stagedInts, m_module->ints, mark.ints);
        join(m_stagedShapes, m_module->shapes, mark.shapes);
        join(m_stagedWindows, m_module->windowDims, mark.windows);
        join(m_stagedSlices, m_module->slices, mark.slices);
        join(m_stagedPaddings, m_module->paddings, mark.paddings);
    }
    template <class T, class Pool> void join(std::vector<StagedRun<T>>& runs, Pool& pool, size_t from)
    {
        for (size_t k = from; k < runs.size(); ++k) {
            const std::vector<T>& values = runs[k].values;
            if (pool.size() + values.size() > UINT32_MAX) [[unlikely]]
                m_r.fail(m_r.offset(), "module too large: a pool of more than 2^32 entries");
            *runs[k].offset = uint32_t(pool.size());
            *runs[k].count = uint32_t(values.size());
            pool.insert(pool.end(), values.begin(), values.end());
        }
        runs.erase(runs.begin() + ptrdiff_t(from), runs.end());
    }
    // The values of run (offset, count) when it cannot grow in place: those staged so far, or the
    // run's values in the pool copied out (once) when this is its first interruption.
    template <class T, class Pool>
    std::vector<T>& staged(std::vector<StagedRun<T>>& runs, const Pool& pool, uint32_t& offset, uint32_t& count)
    {
        if (offset == kStaged) {
            for (size_t k = runs.size(); k-- > 0;) // a handful: the runs of one instruction
                if (runs[k].offset == &offset)
                    return runs[k].values;
            m_r.fail(m_r.offset(), "internal error: a staged run was lost"); // not reached
        }
        StagedRun<T>& run = runs.emplace_back(StagedRun<T> { &offset, &count, {} });
        run.values.assign(pool.begin() + ptrdiff_t(offset), pool.begin() + ptrdiff_t(offset + count));
        offset = kStaged;
        return run.values;
    }
    // Whether run (offset, count) cannot simply grow at the pool's end.
    template <class Pool> static bool interrupted(const Pool& pool, uint32_t offset, uint32_t count)
    {
        return count && (offset == kStaged || size_t(offset) + count != pool.size());
    }

    // Appends values to a pool run (offset, count): in place when the run ends the pool (the only
    // case in files XLA writes), else staged until the owning message ends.
    template <class T, class Pool>
    void appendToRun(Pool& pool, std::vector<StagedRun<T>>& stagedRuns, uint32_t& offset, uint32_t& count,
        std::span<const T> values)
    {
        if (interrupted(pool, offset, count)) {
            std::vector<T>& v = staged(stagedRuns, pool, offset, count);
            v.insert(v.end(), values.begin(), values.end());
            if (v.size() > UINT32_MAX) [[unlikely]]
                m_r.fail(m_r.offset(), "module too large: a run of more than 2^32 entries");
            count = uint32_t(v.size());
            return;
        }
        if (!count)
            offset = uint32_t(pool.size());
        pool.insert(pool.end(), values.begin(), values.end());
        if (pool.size() > UINT32_MAX) [[unlikely]]
            m_r.fail(m_r.offset(), "module too large: a pool of more than 2^32 entries");
        count += uint32_t(values.size());
    }
    template <class T, class Pool>
    void appendToRun(Pool& pool, std::vector<StagedRun<T>>& stagedRuns, uint32_t& offset, uint32_t& count, const T& value)
    {
        appendToRun(pool, stagedRuns, offset, count, std::span<const T>(&value, 1));
    }

    void appendInts(IntSpan& span, const char* name)
    {
        auto& ints = m_module->ints;
        if (interrupted(ints, span.offset, span.count)) { // a field repeated non-adjacently
            std::vector<int64_t>& values = staged(m_stagedInts, ints, span.offset, span.count);
            m_r.readRepeatedVarint(name, [&values](uint64_t v) { values.push_back(int64_t(v)); });
            if (values.size() > UINT32_MAX) [[unlikely]]
                m_r.failAtTag("module too large: more than 2^32 integers");
            span.count = uint32_t(values.size());
            return;
        }
        if (!span.count)
            span.offset = uint32_t(ints.size());
        m_r.readRepeatedVarint(name, [&ints](uint64_t v) { ints.push_back(int64_t(v)); });
        if (ints.size() > UINT32_MAX) [[unlikely]]
            m_r.failAtTag("module too large: more than 2^32 integers");
        span.count = uint32_t(ints.size() - span.offset);
    }

    std::string_view internOpcode(std::string_view opcode)
    {
        if (opcode.empty())
            return {};
        // A direct-mapped cache in front of the map: a module has a few dozen distinct opcodes.
        const size_t n = opcode.size();
        std::string_view& cached = m_opcodeCache[(n * 31 + size_t(uint8_t(opcode[0])) * 7
                                                     + size_t(uint8_t(opcode[n / 2])) * 3 + uint8_t(opcode[n - 1]))
            % m_opcodeCache.size()];
        if (cached == opcode)
            return cached;
        const auto it = m_opcodes.find(opcode);
        if (it != m_opcodes.end())
            return cached = it->second;
        const std::string_view interned = m_module->intern(opcode);
        m_opcodes.emplace(interned, interned);
        return cached = interned;
    }

    void computation(HloComputation& c)
    {
        std::string_view name, thread;
        c.rootId = 0; // proto3: absent = 0
        c.firstInstruction = uint32_t(m_module->instructions.size());
        while (m_r.next()) {
            switch (m_r.field()) {
            case F::CompName:
                name = m_r.readBytes("name");
                break;
            case F::CompInstructions: {
                HloInstruction inst;
                m_r.enter("instructions", int64_t(m_module->instructions.size() - c.firstInstruction));
                instruction(inst);
                m_r.leave();
                m_module->instructions.push_back(inst);
                if (m_module->instructions.size() > UINT32_MAX) [[unlikely]]
                    m_r.failAtTag("module too large: more than 2^32 instructions");
                break;
            }
            case F::CompProgramShape:
                m_r.skipAs(WireType::Len, "program_shape");
                break;
            case F::CompId:
                c.id = m_r.readInt64("id");
                break;
            case F::CompRootId:
                c.rootId = m_r.readInt64("root_id");
                break;
            case F::CompIsFusion:
                c.isFusion = m_r.readBool("is_fusion_computation");
                break;
            case F::CompExecutionThread:
                thread = m_r.readBytes("execution_thread");
                break;
            default:
                m_r.skip();
            }
        }
        c.instructionCount = uint32_t(m_module->instructions.size() - c.firstInstruction);
        c.name = m_module->intern(name);
        c.executionThread = m_module->intern(thread);
    }

    void instruction(HloInstruction& inst)
    {
        std::string_view name, opcode, opType, opName;
        HloShape shape;
        HloInstructionDetails det;
        bool hasDetails = false;
        std::optional<HloConvolutionDims> conv;
        std::optional<HloDotDims> dot;
        std::vector<int64_t> sparsity; // 4 values per dot_sparsity descriptor (HloDotDims::sparsity)
        // The instruction owns every run read below (its own, its details', its shape's, its
        // convolution and dot dimensions'): runs staged on the way are joined after its last field.
        const StageMark mark = stageMark();
        while (m_r.next()) {
            switch (m_r.field()) {
            case F::InstName:
                name = m_r.readBytes("name");
                break;
            case F::InstOpcode:
                opcode = m_r.readBytes("opcode");
                break;
            case F::InstShape:
                m_r.enter("shape");
                this->shape(shape);
                m_r.leave();
                break;
            case F::InstMetadata: // a message field repeated merges: its last op_type / op_name win
                m_r.enter("metadata");
                while (m_r.next()) {
                    if (m_r.field() == F::MetaOpType)
                        opType = m_r.readBytes("op_type");
                    else if (m_r.field() == F::MetaOpName)
                        opName = m_r.readBytes("op_name");
                    else
                        m_r.skip();
                }
                m_r.leave();
                break;
            case F::InstParameterNumber:
                inst.parameterNumber = m_r.readInt64("parameter_number");
                break;
            case F::InstDimensions:
                appendInts(inst.dimensions, "dimensions");
                break;
            case F::InstWindow:
                m_r.enter("window");
                window(det);
                m_r.leave();
                hasDetails = true;
                break;
            case F::InstConvDims:
                if (!conv)
                    conv.emplace();
                m_r.enter("convolution_dimension_numbers");
                convolutionDims(*conv);
                m_r.leave();
                break;
            case F::InstDotDims:
                if (!dot)
                    dot.emplace();
                m_r.enter("dot_dimension_numbers");
                dotDims(*dot);
                m_r.leave();
                break;
            case F::InstSlices: {
                HloSliceDimension s;
                s.stride = 0; // proto3: absent = 0
                m_r.enter("slice_dimensions", det.sliceCount);
                slice(s);
                m_r.leave();
                appendToRun(m_module->slices, m_stagedSlices, det.sliceOffset, det.sliceCount, s);
                hasDetails = true;
                break;
            }
            case F::InstDynamicSliceSizes:
                appendInts(det.dynamicSliceSizes, "dynamic_slice_sizes");
                hasDetails = true;
                break;
            case F::InstPaddingConfig:
                m_r.enter("padding_config");
                padding(det);
                m_r.leave();
                hasDetails = true;
                break;
            case F::InstId:
                inst.id = m_r.readInt64("id");
                break;
            case F::InstOperandIds:
                appendInts(inst.operandIds, "operand_ids");
                break;
            case F::InstCalledComputationIds:
                appendInts(inst.calledComputationIds, "called_computation_ids");
                break;
            case F::InstFeatureGroupCount:
                inst.featureGroupCount = m_r.readInt64("feature_group_count");
                break;
            case F::InstBatchGroupCount:
                inst.batchGroupCount = m_r.readInt64("batch_group_count");
                break;
            case F::InstIsStable:
                inst.isStable = m_r.readBool("is_stable");
                break;
            case F::InstDotSparsity:
                m_r.enter("dot_sparsity", int64_t(sparsity.size() / 4));
                sparsityDescriptor(sparsity);
                m_r.leave();
                break;
            default:
                m_r.skip();
            }
        }
        joinStaged(mark);
        if (!sparsity.empty()) {
            if (!dot)
                dot.emplace();
            dot->sparsity = m_module->addInts(sparsity);
        }
        inst.name = m_module->intern(name);
        inst.opcode = internOpcode(opcode);
        m_module->setOpMetadata(m_module->instructions.size(), opType, opName, &m_names);
        inst.shape = pushShape(shape);
        if (conv) {
            det.convolutionDims = int32_t(m_module->convolutionDims.size());
            m_module->convolutionDims.push_back(*conv);
            hasDetails = true;
        }
        if (dot) {
            det.dotDims = int32_t(m_module->dotDims.size());
            m_module->dotDims.push_back(*dot);
            hasDetails = true;
        }
        if (hasDetails) {
            inst.details = int32_t(m_module->details.size());
            m_module->details.push_back(det);
        }
    }

    uint32_t pushShape(const HloShape& s)
    {
        if (m_module->shapes.size() >= UINT32_MAX) [[unlikely]]
            m_r.fail(m_r.offset(), "module too large: more than 2^32 shapes");
        m_module->shapes.push_back(s);
        return uint32_t(m_module->shapes.size() - 1);
    }

    // Reads a ShapeProto into `s` (merging, as protobuf does when a message field repeats: the
    // runs of `s` may then be staged until the caller, which owns `s`, joins them). Tuple elements
    // are collected in a per-depth scratch list and appended to the pool together.
    void shape(HloShape& s)
    {
        std::vector<HloShape>& elements = m_tupleScratch[size_t(m_r.depth())];
        elements.clear();
        while (m_r.next()) {
            switch (m_r.field()) {
            case F::ShapeElementType:
                s.elementType = int32_t(uint32_t(m_r.readVarint("element_type")));
                break;
            case F::ShapeDimensions:
                appendInts(s.dims, "dimensions");
                break;
            case F::ShapeTupleShapes: {
                HloShape element; // owns its runs: they are joined before it is copied
                const StageMark mark = stageMark();
                m_r.enter("tuple_shapes", int64_t(s.tupleCount + elements.size()));
                shape(element);
                m_r.leave();
                joinStaged(mark);
                elements.push_back(element);
                break;
            }
            case F::ShapeLayout:
                m_r.enter("layout");
                s.hasLayout = true;
                while (m_r.next()) {
                    if (m_r.field() == F::LayoutMinorToMajor) {
                        appendInts(s.minorToMajor, "minor_to_major");
                    } else {
                        m_r.skip();
                    }
                }
                m_r.leave();
                break;
            default:
                m_r.skip();
            }
        }
        if (!elements.empty()) {
            if (m_module->shapes.size() + elements.size() > UINT32_MAX) [[unlikely]]
                m_r.fail(m_r.offset(), "module too large: more than 2^32 shapes");
            appendToRun(m_module->shapes, m_stagedShapes, s.firstTupleShape, s.tupleCount,
                std::span<const HloShape>(elements));
            elements.clear();
        }
    }

    void window(HloInstructionDetails& det)
    {
        while (m_r.next()) {
            if (m_r.field() != F::WindowDimensions) {
                m_r.skip();
                continue;
            }
            HloWindowDimension d; // proto3: every absent field is 0, not the HLO-text default 1
            d.stride = 0;
            d.windowDilation = 0;
            d.baseDilation = 0;
            m_r.enter("dimensions", det.windowCount);
            while (m_r.next()) {
                switch (m_r.field()) {
                case F::WinSize:
                    d.size = m_r.readInt64("size");
                    break;
                case F::WinStride:
                    d.stride = m_r.readInt64("stride");
                    break;
                case F::WinPaddingLow:
                    d.paddingLow = m_r.readInt64("padding_low");
                    break;
                case F::WinPaddingHigh:
                    d.paddingHigh = m_r.readInt64("padding_high");
                    break;
                case F::WinWindowDilation:
                    d.windowDilation = m_r.readInt64("window_dilation");
                    break;
                case F::WinBaseDilation:
                    d.baseDilation = m_r.readInt64("base_dilation");
                    break;
                case F::WinReversal:
                    d.reversal = m_r.readBool("window_reversal");
                    break;
                default:
                    m_r.skip();
                }
            }
            m_r.leave();
            appendToRun(m_module->windowDims, m_stagedWindows, det.windowOffset, det.windowCount, d);
        }
    }

    // xla.SparsityDescriptor: appends index, dimension, n, m.
    void sparsityDescriptor(std::vector<int64_t>& out)
    {
        int64_t index = 0, dimension = 0, n = 0, mm = 0;
        while (m_r.next()) {
            switch (m_r.field()) {
            case F::SparsityType:
                m_r.readInt64("type");
                break;
            case F::SparsityIndex:
                index = m_r.readInt64("index");
                break;
            case F::SparsityDimension:
                dimension = m_r.readInt64("dimension");
                break;
            case F::SparsityN:
                n = m_r.readInt64("n");
                break;
            case F::SparsityM:
                mm = m_r.readInt64("m");
                break;
            default:
                m_r.skip();
            }
        }
        out.insert(out.end(), { index, dimension, n, mm });
    }

    void dotDims(HloDotDims& d)
    {
        while (m_r.next()) {
            switch (m_r.field()) {
            case F::DotLhsContracting:
                appendInts(d.lhsContracting, "lhs_contracting_dimensions");
                break;
            case F::DotRhsContracting:
                appendInts(d.rhsContracting, "rhs_contracting_dimensions");
                break;
            case F::DotLhsBatch:
                appendInts(d.lhsBatch, "lhs_batch_dimensions");
                break;
            case F::DotRhsBatch:
                appendInts(d.rhsBatch, "rhs_batch_dimensions");
                break;
            default:
                m_r.skip();
            }
        }
    }

    void convolutionDims(HloConvolutionDims& c)
    {
        while (m_r.next()) {
            switch (m_r.field()) {
            case F::ConvKernelInputFeature:
                c.kernelInputFeature = m_r.readInt64("kernel_input_feature_dimension");
                break;
            case F::ConvKernelOutputFeature:
                c.kernelOutputFeature = m_r.readInt64("kernel_output_feature_dimension");
                break;
            case F::ConvKernelSpatial:
                appendInts(c.kernelSpatial, "kernel_spatial_dimensions");
                break;
            case F::ConvInputBatch:
                c.inputBatch = m_r.readInt64("input_batch_dimension");
                break;
            case F::ConvInputFeature:
                c.inputFeature = m_r.readInt64("input_feature_dimension");
                break;
            case F::ConvOutputBatch:
                c.outputBatch = m_r.readInt64("output_batch_dimension");
                break;
            case F::ConvOutputFeature:
                c.outputFeature = m_r.readInt64("output_feature_dimension");
                break;
            case F::ConvInputSpatial:
                appendInts(c.inputSpatial, "input_spatial_dimensions");
                break;
            case F::ConvOutputSpatial:
                appendInts(c.outputSpatial, "output_spatial_dimensions");
                break;
            default:
                m_r.skip();
            }
        }
    }

    void slice(HloSliceDimension& s)
    {
        while (m_r.next()) {
            switch (m_r.field()) {
            case F::SliceStart:
                s.start = m_r.readInt64("start");
                break;
            case F::SliceLimit:
                s.limit = m_r.readInt64("limit");
                break;
            case F::SliceStride:
                s.stride = m_r.readInt64("stride");
                break;
            default:
                m_r.skip();
            }
        }
    }

    void padding(HloInstructionDetails& det)
    {
        while (m_r.next()) {
            if (m_r.field() != F::PaddingDimensions) {
                m_r.skip();
                continue;
            }
            HloPaddingDimension p;
            m_r.enter("dimensions", det.paddingCount);
            while (m_r.next()) {
                switch (m_r.field()) {
                case F::PadLow:
                    p.low = m_r.readInt64("edge_padding_low");
                    break;
                case F::PadHigh:
                    p.high = m_r.readInt64("edge_padding_high");
                    break;
                case F::PadInterior:
                    p.interior = m_r.readInt64("interior_padding");
                    break;
                default:
                    m_r.skip();
                }
            }
            m_r.leave();
            appendToRun(m_module->paddings, m_stagedPaddings, det.paddingOffset, det.paddingCount, p);
        }
    }

    void repeatedInt64(std::vector<int64_t>& out, const char* name) { m_r.appendRepeatedVarint(name, out); }

    void tuningRun(TuningRun& run)
    {
        while (m_r.next()) {
            switch (m_r.field()) {
            case F::RunOpConfig:
                run.config = TuningRun::Config::Op;
                m_r.enter("op_config");
                while (m_r.next()) {
                    if (m_r.field() != F::OpConfigTileSize) {
                        m_r.skip();
                        continue;
                    }
                    run.hasTileSizeConfig = true;
                    m_r.enter("tile_size_config");
                    while (m_r.next()) {
                        switch (m_r.field()) {
                        case F::TileKernel:
                            repeatedInt64(run.tile.kernelBounds, "kernel_bounds");
                            break;
                        case F::TileOutput:
                            repeatedInt64(run.tile.outputBounds, "output_bounds");
                            break;
                        case F::TileInput:
                            repeatedInt64(run.tile.inputBounds, "input_bounds");
                            break;
                        case F::TileIteration:
                            repeatedInt64(run.tile.iterationBounds, "iteration_bounds");
                            break;
                        default:
                            m_r.skip();
                        }
                    }
                    m_r.leave();
                }
                m_r.leave();
                break;
            case F::RunModuleConfig:
                run.config = TuningRun::Config::Module;
                m_r.enter("module_config");
                while (m_r.next()) {
                    if (m_r.field() == F::ModuleConfigLayout) {
                        m_r.enter("layout_config");
                        layoutConfig(run);
                        m_r.leave();
                    } else {
                        m_r.skip();
                    }
                }
                m_r.leave();
                break;
            case F::RunError:
                run.error = m_r.readBool("error");
                break;
            case F::RunProfile:
                run.hasProfile = true;
                m_r.enter("profile");
                while (m_r.next()) {
                    if (m_r.field() == F::ProfileComputeTimeNs) {
                        run.computeTimeNs = m_r.readInt64("compute_time_ns");
                    } else {
                        m_r.skip();
                    }
                }
                m_r.leave();
                break;
            case F::RunIsDefault:
                run.isDefault = m_r.readBool("is_default");
                break;
            default:
                m_r.skip();
            }
        }
    }

    void layoutConfig(TuningRun& run)
    {
        while (m_r.next()) {
            if (m_r.field() != F::LayoutNodes) {
                m_r.skip();
                continue;
            }
            if (run.layoutNodes.empty())
                run.layoutNodes.reserve(m_layoutNodesHint); // runs of a module configure the same nodes
            auto& node = run.layoutNodes.emplace_back();
            node.reserve(3); // output and up to two operands
            m_r.enter("nodes", int64_t(run.layoutNodes.size() - 1));
            while (m_r.next()) {
                if (m_r.field() != F::NodeTensors) {
                    m_r.skip();
                    continue;
                }
                auto& tensor = node.emplace_back();
                m_r.enter("tensors", int64_t(node.size() - 1));
                while (m_r.next()) {
                    if (m_r.field() == F::TensorDims) {
                        m_r.appendRepeatedVarint("dims", tensor);
                    } else {
                        m_r.skip();
                    }
                }
                m_r.leave();
            }
            m_r.leave();
        }
        m_layoutNodesHint = run.layoutNodes.size();
    }

    ProtoReader& m_r;
    HloModule* m_module = nullptr;
    std::unordered_map<std::string_view, std::string_view> m_opcodes; // interned opcode strings
    std::array<std::string_view, 256> m_opcodeCache {};
    HloInternCache m_names; // op types and names read lately, in this module
    size_t m_layoutNodesHint = 0;
    std::array<std::vector<HloShape>, ProtoReader::kMaxDepth + 1> m_tupleScratch;
    std::vector<StagedRun<int64_t>> m_stagedInts;
    std::vector<StagedRun<HloShape>> m_stagedShapes;
    std::vector<StagedRun<HloWindowDimension>> m_stagedWindows;
    std::vector<StagedRun<HloSliceDimension>> m_stagedSlices;
    std::vector<StagedRun<HloPaddingDimension>> m_stagedPaddings;
};

HloProtoFile parseAs(HloSourceFormat format, std::span<const std::byte> bytes, const std::string& file)
{
    ProtoReader reader(bytes, file, rootMessageName(format));
    Decoder decoder(reader);
    HloProtoFile out;
    out.format = format;
    if (format == HloSourceFormat::TuningData) {
        decoder.tuningData(out.modules);
    } else {
        ModuleTuningData& d = out.modules.emplace_back();
        switch (format) {
        case HloSourceFormat::HloProto:
            decoder.hloProto(d);
            break;
        case HloSourceFormat::HloSnapshot:
            decoder.hloSnapshot(d);
            break;
        case HloSourceFormat::ModuleTuningData:
            decoder.moduleTuningData(d);
            break;
        default:
            decoder.module(d.module);
            d.hasModule = true;
        }
    }
    for (ModuleTuningData& d : out.modules)
        d.module.format = format;
    return out;
}

// ---- format sniffing -------------------------------------------------------------------------

// Lenient varint for sniffing: false when it does not end inside [p, end).
bool sniffVarint(const uint8_t*& p, const uint8_t* end, uint64_t& v)
{
    v = 0;
    for (int k = 0; k < 10 && p < end; ++k) {
        const uint8_t b = *p++;
        v |= uint64_t(b & 0x7f) << (7 * k);
        if (!(b & 0x80))
            return true;
    }
    return false;
}

using Bytes = std::span<const uint8_t>;

// Walks the fields of a message as far as they are well formed; calls fn(field, wire, payload,
// clipped) with length-delimited payloads clipped to the data that is there (clipped = true then).
// Stops at the first problem or when fn returns false.
template <class Fn> void sniffFields(Bytes data, Fn&& fn)
{
    const uint8_t* p = data.data();
    const uint8_t* end = p + data.size();
    while (p < end) {
        uint64_t tag, v;
        if (!sniffVarint(p, end, tag) || tag >> 32 || (tag >> 3) == 0)
            return;
        const uint32_t field = uint32_t(tag >> 3);
        const uint32_t wire = uint32_t(tag & 7);
        Bytes payload;
        if (wire == 0) {
            if (!sniffVarint(p, end, v))
                return;
        } else if (wire == 1 || wire == 5) {
            const size_t n = wire == 1 ? 8 : 4;
            if (size_t(end - p) < n)
                return;
            p += n;
        } else if (wire == 2) {
            if (!sniffVarint(p, end, v))
                return;
            const size_t available = size_t(end - p);
            payload = Bytes(p, v < available ? size_t(v) : available);
            if (!fn(field, wire, payload, v > available) || v > available)
                return;
            p += v;
            continue;
        } else {
            return;
        }
        if (!fn(field, wire, payload, false))
            return;
    }
}

bool printable(Bytes s)
{
    if (s.empty())
        return false;
    for (const uint8_t c : s)
        if (c < 0x20 || c == 0x7f)
            return false;
    return true;
}

// Payload of the message's first field if that is field 1, length-delimited.
std::optional<Bytes> firstField1(Bytes message)
{
    std::optional<Bytes> out;
    sniffFields(message, [&](uint32_t field, uint32_t wire, Bytes payload, bool) {
        if (field == 1 && wire == 2)
            out = payload;
        return false;
    });
    return out;
}

uint32_t fieldMask(Bytes message)
{
    uint32_t mask = 0;
    sniffFields(message, [&](uint32_t field, uint32_t, Bytes, bool) {
        if (field < 32)
            mask |= 1u << field;
        return true;
    });
    return mask;
}

std::vector<HloSourceFormat> candidateOrder(Bytes data)
{
    using S = HloSourceFormat;
    std::optional<Bytes> f1;
    int f1Count = 0;
    bool complete = true; // false when the data ends inside a field (truncated): fields 2-4 may be missing
    uint32_t top = 0;
    sniffFields(data, [&](uint32_t field, uint32_t wire, Bytes payload, bool clipped) {
        if (field < 32)
            top |= 1u << field;
        if (field == 1 && wire == 2 && !f1Count++)
            f1 = payload;
        if (clipped)
            complete = false;
        return true;
    });
    constexpr uint32_t k234 = 1u << 2 | 1u << 3 | 1u << 4;
    if (f1 && printable(*f1)) // a module name: containers never start with printable text
        return { S::HloModuleProto };
    if (f1) {
        const std::optional<Bytes> inner = firstField1(*f1);
        if (inner && printable(*inner)) { // f1 is a module: ModuleTuningData or HloProto
            if (top & k234 || !complete)
                return { S::ModuleTuningData, S::HloProto };
            return { S::HloProto, S::ModuleTuningData };
        }
        if (inner) {
            const std::optional<Bytes> innermost = firstField1(*inner);
            if (innermost && printable(*innermost)) { // f1 holds a module: TuningData or HloSnapshot
                const bool snapshotFirst = (top & k234) || (complete && f1Count == 1 && fieldMask(*f1) == 1u << 1);
                if (snapshotFirst)
                    return { S::HloSnapshot, S::TuningData };
                return { S::TuningData, S::HloSnapshot };
            }
        }
    }
    return { S::HloModuleProto, S::ModuleTuningData, S::TuningData, S::HloProto, S::HloSnapshot };
}

// ---- encoding --------------------------------------------------------------------------------

class Encoder
{
public:
    explicit Encoder(std::string& out)
        : m_w(out)
    { }

    void module(const HloModule& m)
    {
        m_w.writeString(F::ModuleName, m.name);
        m_w.writeString(F::ModuleEntryName, m.entryComputationName);
        for (const HloComputation& c : m.computations) {
            const size_t mark = m_w.beginMessage(F::ModuleComputations);
            computation(m, c);
            m_w.endMessage(mark);
        }
        m_w.writeInt64(F::ModuleId, m.id);
        m_w.writeInt64(F::ModuleEntryId, m.entryComputationId);
    }

    void moduleTuningData(const ModuleTuningData& d)
    {
        if (d.hasModule) {
            const size_t mark = m_w.beginMessage(F::MtdModule);
            module(d.module);
            m_w.endMessage(mark);
        }
        m_w.writeUInt64(F::MtdFingerprint, d.fingerprint);
        for (const TuningRun& run : d.runs) {
            const size_t mark = m_w.beginMessage(F::MtdRuns);
            tuningRun(run);
            m_w.endMessage(mark);
        }
        m_w.writePacked(F::MtdConfigIndexToNode, std::span<const uint64_t>(d.configIndexToNode));
    }

    void tuningData(std::span<const ModuleTuningData* const> modules)
    {
        for (const ModuleTuningData* d : modules) {
            const size_t mark = m_w.beginMessage(F::TuningModules);
            moduleTuningData(*d);
            m_w.endMessage(mark);
        }
    }

private:
    void computation(const HloModule& m, const HloComputation& c)
    {
        m_w.writeString(F::CompName, c.name);
        for (const HloInstruction& inst : m.instructionsOf(c)) {
            const size_t mark = m_w.beginMessage(F::CompInstructions);
            instruction(m, inst);
            m_w.endMessage(mark);
        }
        m_w.writeInt64(F::CompId, c.id);
        m_w.writeInt64(F::CompRootId, c.rootId);
        m_w.writeBool(F::CompIsFusion, c.isFusion);
        m_w.writeString(F::CompExecutionThread, c.executionThread);
    }

    void instruction(const HloModule& m, const HloInstruction& inst)
    {
        m_w.writeString(F::InstName, inst.name);
        m_w.writeString(F::InstOpcode, inst.opcode);
        if (inst.shape < m.shapes.size()) {
            const size_t mark = m_w.beginMessage(F::InstShape);
            shape(m, inst.shape);
            m_w.endMessage(mark);
        }
        m_w.writeInt64(F::InstParameterNumber, inst.parameterNumber);
        m_w.writePacked(F::InstDimensions, m.span(inst.dimensions));
        const HloInstructionDetails& det = m.detailsOf(inst);
        if (det.windowCount) {
            const size_t mark = m_w.beginMessage(F::InstWindow);
            for (uint32_t k = 0; k < det.windowCount; ++k) {
                const HloWindowDimension& d = m.windowDims[det.windowOffset + k];
                const size_t dim = m_w.beginMessage(F::WindowDimensions);
                m_w.writeInt64(F::WinSize, d.size);
                m_w.writeInt64(F::WinStride, d.stride);
                m_w.writeInt64(F::WinPaddingLow, d.paddingLow);
                m_w.writeInt64(F::WinPaddingHigh, d.paddingHigh);
                m_w.writeInt64(F::WinWindowDilation, d.windowDilation);
                m_w.writeInt64(F::WinBaseDilation, d.baseDilation);
                m_w.writeBool(F::WinReversal, d.reversal);
                m_w.endMessage(dim);
            }
            m_w.endMessage(mark);
        }
        if (det.convolutionDims >= 0) {
            const HloConvolutionDims& c = m.convolutionDims[size_t(det.convolutionDims)];
            const size_t mark = m_w.beginMessage(F::InstConvDims);
            m_w.writeInt64(F::ConvKernelInputFeature, c.kernelInputFeature);
            m_w.writeInt64(F::ConvKernelOutputFeature, c.kernelOutputFeature);
            m_w.writePacked(F::ConvKernelSpatial, m.span(c.kernelSpatial));
            m_w.writeInt64(F::ConvInputBatch, c.inputBatch);
            m_w.writeInt64(F::ConvInputFeature, c.inputFeature);
            m_w.writeInt64(F::ConvOutputBatch, c.outputBatch);
            m_w.writeInt64(F::ConvOutputFeature, c.outputFeature);
            m_w.writePacked(F::ConvInputSpatial, m.span(c.inputSpatial));
            m_w.writePacked(F::ConvOutputSpatial, m.span(c.outputSpatial));
            m_w.endMessage(mark);
        }
        for (uint32_t k = 0; k < det.sliceCount; ++k) {
            const HloSliceDimension& s = m.slices[det.sliceOffset + k];
            const size_t mark = m_w.beginMessage(F::InstSlices);
            m_w.writeInt64(F::SliceStart, s.start);
            m_w.writeInt64(F::SliceLimit, s.limit);
            m_w.writeInt64(F::SliceStride, s.stride);
            m_w.endMessage(mark);
        }
        m_w.writePacked(F::InstDynamicSliceSizes, m.span(det.dynamicSliceSizes));
        if (det.paddingCount) {
            const size_t mark = m_w.beginMessage(F::InstPaddingConfig);
            for (uint32_t k = 0; k < det.paddingCount; ++k) {
                const HloPaddingDimension& p = m.paddings[det.paddingOffset + k];
                const size_t dim = m_w.beginMessage(F::PaddingDimensions);
                m_w.writeInt64(F::PadLow, p.low);
                m_w.writeInt64(F::PadHigh, p.high);
                m_w.writeInt64(F::PadInterior, p.interior);
                m_w.endMessage(dim);
            }
            m_w.endMessage(mark);
        }
        if (det.dotDims >= 0) {
            const HloDotDims& d = m.dotDims[size_t(det.dotDims)];
            const size_t mark = m_w.beginMessage(F::InstDotDims);
            m_w.writePacked(F::DotLhsContracting, m.span(d.lhsContracting));
            m_w.writePacked(F::DotRhsContracting, m.span(d.rhsContracting));
            m_w.writePacked(F::DotLhsBatch, m.span(d.lhsBatch));
            m_w.writePacked(F::DotRhsBatch, m.span(d.rhsBatch));
            m_w.endMessage(mark);
        }
        m_w.writeInt64(F::InstId, inst.id);
        m_w.writePacked(F::InstOperandIds, m.span(inst.operandIds));
        m_w.writePacked(F::InstCalledComputationIds, m.span(inst.calledComputationIds));
        m_w.writeInt64(F::InstFeatureGroupCount, inst.featureGroupCount);
        m_w.writeInt64(F::InstBatchGroupCount, inst.batchGroupCount);
        m_w.writeBool(F::InstIsStable, inst.isStable);
        if (det.dotDims >= 0) {
            const HloDotDims& d = m.dotDims[size_t(det.dotDims)];
            const auto values = m.span(d.sparsity);
            for (size_t k = 0; k + 3 < values.size(); k += 4) {
                const size_t mark = m_w.beginMessage(F::InstDotSparsity);
                m_w.writeInt64(F::SparsityType, F::kSparsityStructuredNM);
                m_w.writeInt64(F::SparsityIndex, values[k]);
                m_w.writeInt64(F::SparsityDimension, values[k + 1]);
                m_w.writeInt64(F::SparsityN, values[k + 2]);
                m_w.writeInt64(F::SparsityM, values[k + 3]);
                m_w.endMessage(mark);
            }
        }
    }

    void shape(const HloModule& m, uint32_t index)
    {
        const HloShape& s = m.shapes[index];
        m_w.writeInt64(F::ShapeElementType, s.elementType);
        m_w.writePacked(F::ShapeDimensions, m.span(s.dims));
        for (uint32_t k = 0; k < s.tupleCount; ++k) {
            const size_t mark = m_w.beginMessage(F::ShapeTupleShapes);
            shape(m, s.firstTupleShape + k);
            m_w.endMessage(mark);
        }
        if (s.hasLayout) {
            const size_t mark = m_w.beginMessage(F::ShapeLayout);
            m_w.writePacked(F::LayoutMinorToMajor, m.span(s.minorToMajor));
            m_w.endMessage(mark);
        }
    }

    void tuningRun(const TuningRun& run)
    {
        if (run.config == TuningRun::Config::Op) {
            const size_t op = m_w.beginMessage(F::RunOpConfig);
            if (run.hasTileSizeConfig) {
                const size_t tile = m_w.beginMessage(F::OpConfigTileSize);
                m_w.writePacked(F::TileKernel, std::span<const int64_t>(run.tile.kernelBounds));
                m_w.writePacked(F::TileOutput, std::span<const int64_t>(run.tile.outputBounds));
                m_w.writePacked(F::TileInput, std::span<const int64_t>(run.tile.inputBounds));
                m_w.writePacked(F::TileIteration, std::span<const int64_t>(run.tile.iterationBounds));
                m_w.endMessage(tile);
            }
            m_w.endMessage(op);
        } else if (run.config == TuningRun::Config::Module) {
            const size_t config = m_w.beginMessage(F::RunModuleConfig);
            const size_t layout = m_w.beginMessage(F::ModuleConfigLayout);
            for (const auto& node : run.layoutNodes) {
                const size_t n = m_w.beginMessage(F::LayoutNodes);
                for (const auto& tensor : node) {
                    const size_t t = m_w.beginMessage(F::NodeTensors);
                    m_w.writePacked(F::TensorDims, std::span<const int32_t>(tensor));
                    m_w.endMessage(t);
                }
                m_w.endMessage(n);
            }
            m_w.endMessage(layout);
            m_w.endMessage(config);
        }
        m_w.writeBool(F::RunError, run.error);
        if (run.hasProfile) {
            const size_t mark = m_w.beginMessage(F::RunProfile);
            m_w.writeInt64(F::ProfileComputeTimeNs, run.computeTimeNs);
            m_w.endMessage(mark);
        }
        m_w.writeBool(F::RunIsDefault, run.isDefault);
    }

    ProtoWriter m_w;
};

constexpr size_t kSniffBytes = 4096;

} // namespace

bool looksLikeHloProto(std::span<const std::byte> firstBytes)
{
    if (firstBytes.empty())
        return false;
    const auto* p = reinterpret_cast<const uint8_t*>(firstBytes.data());
    // First tag: one of the low field numbers every format starts with, varint or length-delimited.
    const uint8_t tag = p[0];
    const uint32_t field = tag >> 3, wire = tag & 7;
    if (tag & 0x80 || field < 1 || field > 6 || (wire != 0 && wire != 2))
        return false;
    // Protobuf has control bytes (tags, short lengths) early on; HLO text has none.
    const size_t n = std::min(firstBytes.size(), kSniffBytes);
    for (size_t k = 0; k < n; ++k) {
        const uint8_t c = p[k];
        if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
            return true;
    }
    return false;
}

HloProtoFile readHloProto(std::span<const std::byte> bytes, const std::string& file)
{
    if (bytes.empty())
        throw InputError(file, "", "empty file (expected an HLO module or tuning data protobuf)");
    if (!looksLikeHloProto(bytes.first(std::min(bytes.size(), kSniffBytes))))
        throw InputError(file, "byte 0",
            "not a protobuf message (expected xla.HloModuleProto, xla.HloProto, xla.HloSnapshot, "
            "tpu_graphs.ModuleTuningData or tpu_graphs.TuningData)");
    const Bytes data(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    std::optional<ProtoWireError> best;
    for (const HloSourceFormat format : candidateOrder(data)) {
        try {
            return parseAs(format, bytes, file);
        } catch (const ProtoWireError& e) {
            if (!best || e.offset() > best->offset())
                best = e;
        }
    }
    throw *best;
}

HloProtoFile readHloProtoFile(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw InputError(path, "", std::string("cannot open: ") + std::strerror(errno));
    struct Closer
    {
        int fd;
        ~Closer() { ::close(fd); }
    } closer { fd };
    struct stat st
    { };
    if (::fstat(fd, &st) != 0)
        throw InputError(path, "", std::string("cannot stat: ") + std::strerror(errno));
    if (!S_ISREG(st.st_mode))
        throw InputError(path, "", "not a regular file");
    std::vector<std::byte> bytes(size_t(st.st_size));
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t got = ::read(fd, bytes.data() + done, std::min<size_t>(bytes.size() - done, size_t(1) << 30));
        if (got < 0) {
            if (errno == EINTR)
                continue;
            throw InputError(path, "", std::string("read failed: ") + std::strerror(errno));
        }
        if (got == 0)
            break; // shrank while reading: parse what is there
        done += size_t(got);
    }
    bytes.resize(done);
    return readHloProto(bytes, path);
}

std::string encodeHloModuleProto(const HloModule& module)
{
    std::string out;
    Encoder(out).module(module);
    return out;
}

std::string encodeModuleTuningData(const ModuleTuningData& data)
{
    std::string out;
    Encoder(out).moduleTuningData(data);
    return out;
}

std::string encodeTuningData(std::span<const ModuleTuningData* const> modules)
{
    std::string out;
    Encoder(out).tuningData(modules);
    return out;
}

} // namespace tgraph
