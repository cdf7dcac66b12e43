// SPDX-License-Identifier: Apache-2.0
#include "core/hlo/protowire.h"

#include <vector>

namespace tgraph {

namespace {
// m_leaf value meaning "the current field is one we do not know": printed as its number.
const char kUnknownField[] = "?";

uint64_t loadLittleEndian(const uint8_t* p, int bytes)
{
    uint64_t v = 0;
    for (int k = bytes - 1; k >= 0; --k)
        v = v << 8 | p[k];
    return v;
}
} // namespace

const char* wireTypeName(WireType type)
{
    switch (type) {
    case WireType::Varint:
        return "varint";
    case WireType::Fixed64:
        return "fixed64";
    case WireType::Len:
        return "length-delimited";
    case WireType::StartGroup:
        return "start group";
    case WireType::EndGroup:
        return "end group";
    case WireType::Fixed32:
        return "fixed32";
    }
    return "invalid";
}

ProtoReader::ProtoReader(std::span<const std::byte> data, std::string file, const char* rootMessage)
    : m_file(std::move(file))
    , m_root(rootMessage)
    , m_begin(reinterpret_cast<const uint8_t*>(data.data()))
    , m_p(m_begin)
    , m_end(m_begin + data.size())
    , m_dataEnd(m_end)
    , m_tag(m_begin)
{ }

std::string ProtoReader::path() const
{
    std::vector<std::string> parts;
    parts.reserve(size_t(m_depth) + 2);
    parts.emplace_back(m_root);
    for (int d = 0; d < m_depth; ++d) {
        std::string part = m_frames[size_t(d)].name;
        if (m_frames[size_t(d)].index >= 0)
            part += "[" + std::to_string(m_frames[size_t(d)].index) + "]";
        parts.push_back(std::move(part));
    }
    if (m_leaf == kUnknownField)
        parts.push_back("(field " + std::to_string(m_field) + ")");
    else if (m_leaf)
        parts.push_back(std::string(m_leaf) + (m_leafIndex >= 0 ? "[" + std::to_string(m_leafIndex) + "]" : ""));
    // Collapse long runs of the same step (deeply nested tuples) so the message stays one short line.
    std::string out;
    for (size_t k = 0; k < parts.size();) {
        size_t run = 1;
        while (k + run < parts.size() && parts[k + run] == parts[k])
            ++run;
        if (!out.empty())
            out += '.';
        out += parts[k];
        if (run >= 3) {
            out += " (x" + std::to_string(run) + ")";
        } else if (run == 2) {
            out += '.' + parts[k];
        }
        k += run;
    }
    return out;
}

void ProtoReader::fail(size_t offset, const std::string& problem) const
{
    throw ProtoWireError(m_file, offset, "byte " + std::to_string(offset) + ": " + path(), problem);
}

uint64_t ProtoReader::varintSlow(const uint8_t*& p, const uint8_t* end, const char* what)
{
    const uint8_t* start = p;
    uint64_t v = 0;
    for (int k = 0; k < 10; ++k) {
        if (p == end) {
            std::string problem = std::string("truncated varint (") + what + "): ";
            problem += end == m_dataEnd ? "the data ends" : "the enclosing field ends";
            problem += " at byte " + std::to_string(end - m_begin);
            fail(size_t(start - m_begin), problem);
        }
        const uint8_t b = *p++;
        v |= uint64_t(b & 0x7f) << (7 * k);
        if (!(b & 0x80))
            return v;
    }
    fail(size_t(start - m_begin), std::string("varint longer than 10 bytes (") + what + ")");
}

void ProtoReader::lengthError(const uint8_t* start, uint64_t length)
{
    const uint64_t left = uint64_t(m_end - m_p);
    fail(size_t(start - m_begin),
        "length " + std::to_string(length) + " goes beyond the end of the " + (m_depth ? "enclosing message" : "data")
            + " (" + std::to_string(left) + " bytes left)");
}

void ProtoReader::tooDeep() { failAtTag("nesting deeper than " + std::to_string(kMaxDepth) + " levels"); }

void ProtoReader::badTag(uint64_t tag)
{
    const uint64_t wire = tag & 7;
    if (tag >> 32 || m_field == 0) {
        m_leaf = nullptr;
        failAtTag("invalid field number " + std::to_string(tag >> 3) + " (not a protobuf message here?)");
    }
    m_leaf = kUnknownField;
    if (wire == 3 || wire == 4)
        failAtTag("groups (wire type " + std::to_string(wire) + ") are not supported");
    failAtTag("invalid wire type " + std::to_string(wire));
}

void ProtoReader::wrongWireType(WireType expected, bool packedAllowed)
{
    std::string problem = "wrong wire type " + std::to_string(int(m_wire)) + " (" + wireTypeName(m_wire)
        + "), expected " + std::to_string(int(expected)) + " (" + wireTypeName(expected) + ")";
    if (packedAllowed)
        problem += " or 2 (packed)";
    failAtTag(problem);
}

uint64_t ProtoReader::readFixed64(const char* name)
{
    expect(WireType::Fixed64, name);
    if (m_end - m_p < 8)
        fail(offset(), "truncated fixed64");
    const uint64_t v = loadLittleEndian(m_p, 8);
    m_p += 8;
    return v;
}

uint32_t ProtoReader::readFixed32(const char* name)
{
    expect(WireType::Fixed32, name);
    if (m_end - m_p < 4)
        fail(offset(), "truncated fixed32");
    const uint32_t v = uint32_t(loadLittleEndian(m_p, 4));
    m_p += 4;
    return v;
}

std::string_view ProtoReader::readBytes(const char* name)
{
    expect(WireType::Len, name);
    const uint8_t* end = lengthEnd();
    const std::string_view view(reinterpret_cast<const char*>(m_p), size_t(end - m_p));
    m_p = end;
    return view;
}

void ProtoReader::skip()
{
    if (!m_leaf)
        m_leaf = kUnknownField;
    switch (m_wire) {
    case WireType::Varint:
        varint(m_p, m_end, "value");
        break;
    case WireType::Fixed64:
        if (m_end - m_p < 8)
            fail(offset(), "truncated fixed64");
        m_p += 8;
        break;
    case WireType::Len:
        m_p = lengthEnd();
        break;
    case WireType::Fixed32:
        if (m_end - m_p < 4)
            fail(offset(), "truncated fixed32");
        m_p += 4;
        break;
    default:
        badTag(uint64_t(m_field) << 3 | uint64_t(m_wire)); // not reached: next() rejects these
    }
}

// ---------------------------------------------------------------------------------------------

void ProtoWriter::writeRawVarint(uint64_t v)
{
    char buf[10];
    size_t n = 0;
    while (v >= 0x80) {
        buf[n++] = char(uint8_t(v) | 0x80);
        v >>= 7;
    }
    buf[n++] = char(v);
    m_out.append(buf, n);
}

void ProtoWriter::writeFixed64(uint32_t field, uint64_t v)
{
    writeTag(field, WireType::Fixed64);
    for (int k = 0; k < 8; ++k)
        m_out += char(uint8_t(v >> (8 * k)));
}

void ProtoWriter::writeFixed32(uint32_t field, uint32_t v)
{
    writeTag(field, WireType::Fixed32);
    for (int k = 0; k < 4; ++k)
        m_out += char(uint8_t(v >> (8 * k)));
}

void ProtoWriter::writeLengthDelimited(uint32_t field, std::string_view bytes)
{
    writeTag(field, WireType::Len);
    writeRawVarint(bytes.size());
    m_out.append(bytes);
}

template <class T> void ProtoWriter::writePackedImpl(uint32_t field, std::span<const T> values)
{
    if (values.empty())
        return;
    // int32 and int64 are both sign-extended to 64 bits on the wire.
    auto wire = [](T v) {
        if constexpr (std::is_signed_v<T>)
            return uint64_t(int64_t(v));
        else
            return uint64_t(v);
    };
    size_t bytes = 0;
    for (const T v : values)
        bytes += varintSize(wire(v));
    writeTag(field, WireType::Len);
    writeRawVarint(bytes);
    const size_t start = m_out.size();
    m_out.resize(start + bytes);
    auto* p = reinterpret_cast<uint8_t*>(m_out.data() + start);
    for (const T value : values) {
        uint64_t v = wire(value);
        while (v >= 0x80) {
            *p++ = uint8_t(v) | 0x80;
            v >>= 7;
        }
        *p++ = uint8_t(v);
    }
}

void ProtoWriter::writePacked(uint32_t field, std::span<const int64_t> values) { writePackedImpl(field, values); }
void ProtoWriter::writePacked(uint32_t field, std::span<const uint64_t> values) { writePackedImpl(field, values); }
void ProtoWriter::writePacked(uint32_t field, std::span<const int32_t> values) { writePackedImpl(field, values); }

size_t ProtoWriter::beginMessage(uint32_t field)
{
    writeTag(field, WireType::Len);
    const size_t mark = m_out.size();
    m_out += '\0'; // length placeholder: one byte, enough for payloads under 128 bytes
    return mark;
}

void ProtoWriter::endMessage(size_t mark)
{
    const size_t length = m_out.size() - mark - 1;
    const size_t n = varintSize(length);
    if (n > 1)
        m_out.insert(mark + 1, n - 1, '\0');
    uint64_t v = length;
    for (size_t k = 0; k < n; ++k) {
        m_out[mark + k] = char(uint8_t(v & 0x7f) | (k + 1 < n ? 0x80 : 0));
        v >>= 7;
    }
}

} // namespace tgraph
