// SPDX-License-Identifier: Apache-2.0
#include "hlomodule.h"

#include <array>
#include <cstring>

namespace tgraph {

namespace {
struct TypeName
{
    const char* name;
    int32_t type;
};
// HLO text spellings of xla::PrimitiveType (spec §6, §8.3).
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
    static constexpr size_t kBlock = 64 * 1024;
    std::vector<std::unique_ptr<char[]>> blocks;
    size_t used = kBlock;

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
        if (used + text.size() > kBlock) {
            blocks.push_back(std::make_unique_for_overwrite<char[]>(kBlock));
            used = 0;
        }
        char* p = blocks.back().get() + used;
        std::memcpy(p, text.data(), text.size());
        used += text.size();
        return { p, text.size() };
    }
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

} // namespace tgraph
