// SPDX-License-Identifier: Apache-2.0
#include "core/hlo/hlomodule.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>
#include <unordered_map>

namespace tgraph {

namespace {
struct TypeName
{
    const char* name;
    int32_t type;
};
// HLO text spellings of xla::PrimitiveType (docs/formats.md §6, §8.3).
constexpr TypeName kTypeNames[] = {
    { "invalid", 0 },
    { "pred", 1 },
    { "s8", 2 },
    { "s16", 3 },
    { "s32", 4 },
    { "s64", 5 },
    { "u8", 6 },
    { "u16", 7 },
    { "u32", 8 },
    { "u64", 9 },
    { "f16", 10 },
    { "f32", 11 },
    { "f64", 12 },
    { "tuple", 13 },
    { "opaque", 14 },
    { "c64", 15 },
    { "bf16", 16 },
    { "token", 17 },
    { "c128", 18 },
    { "f8e5m2", 19 },
    { "f8e4m3fn", 20 },
    { "s4", 21 },
    { "u4", 22 },
    { "f8e4m3b11fnuz", 23 },
    { "f8e5m2fnuz", 24 },
    { "f8e4m3fnuz", 25 },
    { "s2", 26 },
    { "u2", 27 },
    { "f8e4m3", 28 },
    { "f8e3m4", 29 },
    { "s1", 30 },
    { "u1", 31 },
    { "f4e2m1fn", 32 },
    { "f8e8m0fnu", 33 },
};
} // namespace

int32_t primitiveTypeFromName(std::string_view name)
{
    for (const auto& t : kTypeNames)
        if (name == t.name)
            return t.type;
    if (name == "opaque_type")
        return PrimitiveType::OpaqueType;
    return -1;
}

std::string primitiveTypeName(int32_t type)
{
    for (const auto& t : kTypeNames)
        if (t.type == type)
            return t.name;
    if (type == PrimitiveType::Buffer)
        return "buffer";
    return "type-" + std::to_string(type);
}

const char* hloSourceFormatName(HloSourceFormat format)
{
    switch (format) {
    case HloSourceFormat::Text:
        return "HLO text";
    case HloSourceFormat::HloModuleProto:
        return "xla.HloModuleProto";
    case HloSourceFormat::HloProto:
        return "xla.HloProto";
    case HloSourceFormat::HloSnapshot:
        return "xla.HloSnapshot";
    case HloSourceFormat::ModuleTuningData:
        return "tpu_graphs.ModuleTuningData";
    case HloSourceFormat::TuningData:
        return "tpu_graphs.TuningData";
    }
    return "?";
}

// Blocks of characters; views into them stay valid when the module moves.
struct HloModule::Arena
{
    // Blocks start small and double up to kBlock: a module with a few short names (a crafted
    // tuning record can hold 150 000 of them in 1 MB) does not take 64 KB each.
    static constexpr size_t kBlock = 64 * 1024, kFirstBlock = 256;
    std::vector<std::unique_ptr<char[]>> blocks;
    size_t capacity = 0; // of the last block
    size_t used = 0;

    std::string_view copy(std::string_view text)
    {
        if (text.empty())
            return {};
        if (text.size() > kBlock / 4) { // large strings get a block of their own
            auto own = std::make_unique_for_overwrite<char[]>(text.size());
            std::memcpy(own.get(), text.data(), text.size());
            const std::string_view view(own.get(), text.size());
            // Keep the partly filled block last so later small strings still go there.
            blocks.insert(blocks.empty() ? blocks.end() : blocks.end() - 1, std::move(own));
            return view;
        }
        if (used + text.size() > capacity) {
            capacity = std::min(kBlock, std::max({ kFirstBlock, 2 * capacity, text.size() }));
            blocks.push_back(std::make_unique_for_overwrite<char[]>(capacity));
            used = 0;
        }
        char* p = blocks.back().get() + used;
        std::memcpy(p, text.data(), text.size());
        used += text.size();
        return { p, text.size() };
    }
};

struct HloModule::OpMetadataTable
{
    PoolVector<uint32_t> index; // per instruction position; shorter when the last ones have none
    std::vector<HloOpMetadata> records { HloOpMetadata() }; // [0]: none
};

HloModule::HloModule()
    : m_arena(std::make_unique<Arena>())
{ }
HloModule::~HloModule() = default;
HloModule::HloModule(HloModule&&) noexcept = default;
HloModule& HloModule::operator=(HloModule&&) noexcept = default;

std::string_view HloModule::intern(std::string_view text) { return m_arena->copy(text); }

void HloModule::reserveFor(size_t count)
{
    instructions.reserve(count);
    shapes.reserve(count);
    ints.reserve(count * 6);
}

IntSpan HloModule::addInts(std::span<const int64_t> values)
{
    IntSpan s { uint32_t(ints.size()), uint32_t(values.size()) };
    ints.insert(ints.end(), values.begin(), values.end());
    return s;
}

const HloInstructionDetails& HloModule::detailsOf(const HloInstruction& i) const
{
    static const HloInstructionDetails none;
    return i.details < 0 ? none : details[size_t(i.details)];
}

const HloOpMetadata& HloModule::opMetadataOf(size_t instruction) const
{
    static const HloOpMetadata none;
    if (!m_opMetadata || instruction >= m_opMetadata->index.size())
        return none;
    return m_opMetadata->records[m_opMetadata->index[instruction]];
}

void HloInternCache::grow()
{
    // A cache: what it held may be dropped.
    const size_t size = m_slots.empty() ? 256 : m_slots.size() * 4;
    m_slots.assign(size, {});
    m_records.assign(size, {});
}

std::string_view HloInternCache::intern(HloModule& module, std::string_view text)
{
    if (text.empty())
        return {};
    if (++m_uses > 4 * m_slots.size() && m_slots.size() < 4096)
        grow();
    Slot& slot = m_slots[std::hash<std::string_view>()(text) % m_slots.size()];
    if (slot.generation != m_generation || slot.text != text)
        slot = { m_generation, module.intern(text) };
    return slot.text;
}

void HloModule::setOpMetadata(
    size_t instruction, std::string_view opType, std::string_view opName, HloInternCache* cache)
{
    if (opType.empty() && opName.empty())
        return;
    if (!m_opMetadata)
        m_opMetadata = std::make_unique<OpMetadataTable>();
    std::vector<HloOpMetadata>& records = m_opMetadata->records;
    uint32_t record = uint32_t(records.size() - 1);
    const HloOpMetadata& last = records.back();
    if (records.size() == 1 || last.opType != opType || last.opName != opName) {
        HloInternCache::RecordSlot* slot = nullptr;
        HloOpMetadata made;
        if (cache) {
            made.opType = cache->intern(*this, opType);
            made.opName = cache->intern(*this, opName);
            const size_t key
                = std::hash<const void*>()(made.opType.data()) * 31 + std::hash<const void*>()(made.opName.data());
            slot = &cache->m_records[key % cache->m_records.size()];
        } else {
            // Op types repeat a lot ("Conv2D", "Relu6"): share the previous record's copy when equal.
            made.opType = last.opType == opType ? last.opType : intern(opType);
            made.opName = last.opName == opName ? last.opName : intern(opName);
        }
        if (slot && slot->generation == cache->m_generation && slot->type == made.opType.data()
            && slot->name == made.opName.data()) {
            record = slot->record;
        } else {
            if (records.size() >= UINT32_MAX)
                throw std::length_error("module too large: more than 2^32 op metadata records");
            records.push_back(made);
            record = uint32_t(records.size() - 1);
            if (slot)
                *slot = { cache->m_generation, made.opType.data(), made.opName.data(), record };
        }
    }
    PoolVector<uint32_t>& index = m_opMetadata->index;
    if (index.size() <= instruction)
        index.resize(instruction + 1, 0u);
    index[instruction] = record;
}

size_t HloModule::opNameCount() const
{
    size_t count = 0;
    if (m_opMetadata)
        for (const uint32_t k : m_opMetadata->index)
            count += k != 0 && !m_opMetadata->records[k].opName.empty();
    return count;
}

int64_t HloModule::entryIndex() const
{
    for (size_t c = 0; c < computations.size(); ++c)
        if (entryComputationId >= 0 && computations[c].id == entryComputationId)
            return int64_t(c);
    for (size_t c = 0; c < computations.size(); ++c)
        if (!entryComputationName.empty() && computations[c].name == entryComputationName)
            return int64_t(c);
    return int64_t(computations.size()) - 1;
}

std::string HloModule::shapeToText(uint32_t index) const
{
    const HloShape& s = shapes[index];
    if (s.elementType == PrimitiveType::Tuple) {
        std::string out = "(";
        for (uint32_t k = 0; k < s.tupleCount; ++k)
            out += (k ? ", " : "") + shapeToText(s.firstTupleShape + k);
        return out + ")";
    }
    std::string out = primitiveTypeName(s.elementType) + "[";
    const auto dims = span(s.dims);
    for (size_t k = 0; k < dims.size(); ++k)
        out += (k ? "," : "") + std::to_string(dims[k]);
    out += "]";
    if (s.hasLayout && !dims.empty()) {
        out += "{";
        const auto layout = span(s.minorToMajor);
        for (size_t k = 0; k < layout.size(); ++k)
            out += (k ? "," : "") + std::to_string(layout[k]);
        out += "}";
    }
    return out;
}

namespace {

// Copies shape `index` of `from` (tuple elements first, contiguously) into `to`.
HloShape copyShape(const HloModule& from, uint32_t index, HloModule& to)
{
    const HloShape& s = from.shapes[index];
    HloShape out = s;
    out.dims = to.addInts(from.span(s.dims));
    out.minorToMajor = to.addInts(from.span(s.minorToMajor));
    if (s.tupleCount) {
        std::vector<HloShape> elements;
        for (uint32_t k = 0; k < s.tupleCount; ++k)
            elements.push_back(copyShape(from, s.firstTupleShape + k, to));
        out.firstTupleShape = uint32_t(to.shapes.size());
        to.shapes.insert(to.shapes.end(), elements.begin(), elements.end());
    }
    return out;
}

} // namespace

HloModule extractComputation(const HloModule& m, size_t computation)
{
    std::unordered_map<int64_t, size_t> byId;
    for (size_t c = 0; c < m.computations.size(); ++c)
        byId.emplace(m.computations[c].id, c);
    std::vector<bool> keep(m.computations.size(), false);
    std::vector<size_t> stack { computation };
    while (!stack.empty()) {
        const size_t c = stack.back();
        stack.pop_back();
        if (c >= keep.size() || keep[c])
            continue;
        keep[c] = true;
        for (const HloInstruction& inst : m.instructionsOf(m.computations[c]))
            for (int64_t id : m.span(inst.calledComputationIds))
                if (auto it = byId.find(id); it != byId.end())
                    stack.push_back(it->second);
    }
    // Order: the callees in their original order, then the kernel itself last.
    std::vector<size_t> order;
    for (size_t c = 0; c < m.computations.size(); ++c)
        if (keep[c] && c != computation)
            order.push_back(c);
    order.push_back(computation);

    HloModule out;
    out.name = out.intern(m.computations[computation].name);
    out.format = m.format;
    std::unordered_map<int64_t, int64_t> newComputationId;
    for (size_t k = 0; k < order.size(); ++k)
        newComputationId.emplace(m.computations[order[k]].id, int64_t(k));
    std::unordered_map<int64_t, int64_t> newInstructionId;
    int64_t next = 0;
    for (size_t c : order)
        for (const HloInstruction& inst : m.instructionsOf(m.computations[c]))
            newInstructionId.emplace(inst.id, next++);
    for (size_t c : order) {
        const HloComputation& src = m.computations[c];
        HloComputation comp = src;
        comp.name = out.intern(src.name);
        comp.executionThread = out.intern(src.executionThread);
        comp.id = newComputationId.at(src.id);
        comp.rootId = newInstructionId.count(src.rootId) ? newInstructionId.at(src.rootId) : -1;
        comp.firstInstruction = uint32_t(out.instructions.size());
        for (const HloInstruction& inst : m.instructionsOf(src)) {
            HloInstruction i = inst;
            i.name = out.intern(inst.name);
            i.opcode = out.intern(inst.opcode);
            i.id = newInstructionId.at(inst.id);
            const HloShape shape = copyShape(m, inst.shape, out);
            out.shapes.push_back(shape);
            i.shape = uint32_t(out.shapes.size() - 1);
            std::vector<int64_t> ids;
            for (int64_t id : m.span(inst.operandIds))
                ids.push_back(newInstructionId.count(id) ? newInstructionId.at(id) : id);
            i.operandIds = out.addInts(ids);
            ids.clear();
            for (int64_t id : m.span(inst.calledComputationIds))
                ids.push_back(newComputationId.count(id) ? newComputationId.at(id) : id);
            i.calledComputationIds = out.addInts(ids);
            i.dimensions = out.addInts(m.span(inst.dimensions));
            if (inst.details >= 0) {
                const HloInstructionDetails& d = m.details[size_t(inst.details)];
                HloInstructionDetails nd = d;
                nd.windowOffset = uint32_t(out.windowDims.size());
                out.windowDims.insert(out.windowDims.end(), m.windowDims.begin() + d.windowOffset,
                    m.windowDims.begin() + d.windowOffset + d.windowCount);
                if (d.convolutionDims >= 0) {
                    HloConvolutionDims cd = m.convolutionDims[size_t(d.convolutionDims)];
                    cd.inputSpatial = out.addInts(m.span(cd.inputSpatial));
                    cd.kernelSpatial = out.addInts(m.span(cd.kernelSpatial));
                    cd.outputSpatial = out.addInts(m.span(cd.outputSpatial));
                    nd.convolutionDims = int32_t(out.convolutionDims.size());
                    out.convolutionDims.push_back(cd);
                }
                if (d.dotDims >= 0) {
                    HloDotDims dd = m.dotDims[size_t(d.dotDims)];
                    dd.lhsContracting = out.addInts(m.span(dd.lhsContracting));
                    dd.rhsContracting = out.addInts(m.span(dd.rhsContracting));
                    dd.lhsBatch = out.addInts(m.span(dd.lhsBatch));
                    dd.rhsBatch = out.addInts(m.span(dd.rhsBatch));
                    nd.dotDims = int32_t(out.dotDims.size());
                    out.dotDims.push_back(dd);
                }
                nd.sliceOffset = uint32_t(out.slices.size());
                out.slices.insert(
                    out.slices.end(), m.slices.begin() + d.sliceOffset, m.slices.begin() + d.sliceOffset + d.sliceCount);
                nd.dynamicSliceSizes = out.addInts(m.span(d.dynamicSliceSizes));
                nd.paddingOffset = uint32_t(out.paddings.size());
                out.paddings.insert(out.paddings.end(), m.paddings.begin() + d.paddingOffset,
                    m.paddings.begin() + d.paddingOffset + d.paddingCount);
                nd.attributeOffset = uint32_t(out.attributes.size());
                for (uint32_t k = 0; k < d.attributeCount; ++k) {
                    const HloAttribute& a = m.attributes[d.attributeOffset + k];
                    out.attributes.push_back({ out.intern(a.name), out.intern(a.value) });
                }
                i.details = int32_t(out.details.size());
                out.details.push_back(nd);
            }
            const HloOpMetadata& meta = m.opMetadataOf(size_t(&inst - m.instructions.data()));
            out.setOpMetadata(out.instructions.size(), meta.opType, meta.opName);
            out.instructions.push_back(i);
        }
        out.computations.push_back(comp);
    }
    out.entryComputationName = out.computations.back().name;
    out.entryComputationId = out.computations.back().id;
    return out;
}

} // namespace tgraph
