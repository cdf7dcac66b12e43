// SPDX-License-Identifier: Apache-2.0
#pragma once

// A small reader and writer of the protobuf wire format (no schema, no generated code): enough to
// decode and encode the handful of XLA / TpuGraphs messages tgraph needs (core/hlo/hloproto.h).
//
// Reader: walks one message at a time (next() / field() / read*()), enters sub-messages with
// enter() / leave(), and remembers the path of message and field names it is in, so that every
// error names the byte offset and the field, e.g.
//   "m.pb: byte 1234: HloModuleProto.computations[3].instructions[17].shape.dimensions: truncated varint".
// Repeated scalars are accepted packed (wire type 2) and unpacked; unknown fields are skipped by
// wire type (0 varint, 1 fixed64, 2 length-delimited, 5 fixed32); groups (3, 4) and wire types 6, 7
// are errors. Nesting is limited to kMaxDepth levels so crafted input cannot exhaust the stack.

#include "core/util/error.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tgraph {

enum class WireType : uint8_t { Varint = 0, Fixed64 = 1, Len = 2, StartGroup = 3, EndGroup = 4, Fixed32 = 5 };
const char* wireTypeName(WireType type);

// An InputError that also carries the byte offset it is about (for callers that try several
// interpretations of the same bytes and keep the one that got furthest).
class ProtoWireError : public InputError
{
public:
    ProtoWireError(std::string file, size_t offset, std::string place, std::string problem)
        : InputError(std::move(file), std::move(place), std::move(problem))
        , m_offset(offset)
    { }
    size_t offset() const { return m_offset; }

private:
    size_t m_offset;
};

class ProtoReader
{
public:
    static constexpr int kMaxDepth = 64;

    // `file` and `rootMessage` (the outermost message, "HloModuleProto") name the place in errors.
    ProtoReader(std::span<const std::byte> data, std::string file, const char* rootMessage);

    // Advances to the next field of the current message; false at the end of the message.
    bool next()
    {
        if (m_p == m_end)
            return false;
        m_tag = m_p;
        m_leaf = nullptr;
        m_leafIndex = -1;
        const uint64_t tag = varint(m_p, m_end, "field tag");
        m_field = uint32_t(tag >> 3);
        m_wire = WireType(tag & 7);
        if (m_field == 0 || tag >> 32 || !validWireType(tag & 7)) [[unlikely]]
            badTag(tag);
        return true;
    }
    uint32_t field() const { return m_field; }
    WireType wireType() const { return m_wire; }
    int depth() const { return m_depth; }
    // Offset of the current field's tag, and of the read position, from the start of the data.
    size_t tagOffset() const { return size_t(m_tag - m_begin); }
    size_t offset() const { return size_t(m_p - m_begin); }
    // Bytes left in the current message.
    size_t remaining() const { return size_t(m_end - m_p); }

    // The value of the current field. `name` is the field's name for error messages (a string
    // literal); a field of a different wire type is an error.
    uint64_t readVarint(const char* name)
    {
        expect(WireType::Varint, name);
        return varint(m_p, m_end, "value");
    }
    int64_t readInt64(const char* name) { return int64_t(readVarint(name)); }
    int32_t readInt32(const char* name) { return int32_t(uint32_t(readVarint(name))); }
    bool readBool(const char* name) { return readVarint(name) != 0; }
    uint64_t readFixed64(const char* name);
    uint32_t readFixed32(const char* name);
    // Bytes / string: a view into the data.
    std::string_view readBytes(const char* name);

    // Repeated varint field (int32/int64/uint64/bool/enum), packed or not: calls sink(uint64_t)
    // for every value of this occurrence of the field.
    template <class Sink> void readRepeatedVarint(const char* name, Sink&& sink)
    {
        m_leaf = name;
        m_leafIndex = -1;
        if (m_wire == WireType::Varint) {
            sink(readVarint(name));
            return;
        }
        if (m_wire != WireType::Len)
            wrongWireType(WireType::Varint, true);
        const uint8_t* end = lengthEnd();
        const uint8_t* p = m_p;
        while (p != end)
            sink(varint(p, end, "packed varint"));
        m_p = end;
    }

    // Same, appending to a vector (reserving the exact count of a packed run into an empty vector).
    template <class T> void appendRepeatedVarint(const char* name, std::vector<T>& out)
    {
        if (m_wire == WireType::Len && out.empty() && m_p < m_end && *m_p < 0x80 && *m_p < m_end - m_p) {
            size_t count = 0;
            for (const uint8_t* p = m_p + 1; p != m_p + 1 + *m_p; ++p)
                count += *p < 0x80;
            out.reserve(count);
        }
        readRepeatedVarint(name, [&out](uint64_t v) { out.push_back(T(v)); });
    }

    // Enters the current field as a sub-message: next() then walks its fields until leave().
    // `index` >= 0 is printed in error paths for repeated fields ("computations[3]").
    void enter(const char* name, int64_t index = -1)
    {
        expect(WireType::Len, name);
        m_leafIndex = index;
        if (m_depth == kMaxDepth) [[unlikely]]
            tooDeep();
        const uint8_t* end = lengthEnd();
        m_frames[size_t(m_depth++)] = { m_end, name, index };
        m_end = end;
        m_leaf = nullptr;
    }
    void leave()
    {
        m_p = m_end; // normally already there (next() returned false)
        m_end = m_frames[size_t(--m_depth)].parentEnd;
        m_leaf = nullptr;
    }
    // Skips the current field (any wire type).
    void skip();
    // Skips the current field after checking it has the wire type of a known field.
    void skipAs(WireType expected, const char* name)
    {
        expect(expected, name);
        skip();
    }

    // "HloModuleProto.computations[3].instructions[17].shape", plus the current field if known.
    std::string path() const;
    // Throws a ProtoWireError at `offset` for the current path.
    [[noreturn]] void fail(size_t offset, const std::string& problem) const;
    [[noreturn]] void failAtTag(const std::string& problem) const { fail(tagOffset(), problem); }

private:
    static bool validWireType(uint64_t w) { return w <= 2 || w == 5; }
    void expect(WireType type, const char* name)
    {
        m_leaf = name;
        m_leafIndex = -1;
        if (m_wire != type) [[unlikely]]
            wrongWireType(type, false);
    }
    // Decodes a varint at p (advancing it) that must end before `end`; inline for 1 and 2 bytes.
    uint64_t varint(const uint8_t*& p, const uint8_t* end, const char* what)
    {
        if (p < end && *p < 0x80) [[likely]]
            return *p++;
        if (end - p >= 2 && p[1] < 0x80) {
            const uint64_t v = uint64_t(p[0] & 0x7f) | uint64_t(p[1]) << 7;
            p += 2;
            return v;
        }
        return varintSlow(p, end, what);
    }
    uint64_t varintSlow(const uint8_t*& p, const uint8_t* end, const char* what);
    // Reads a length, checks it against the enclosing message, returns the end of the payload.
    const uint8_t* lengthEnd()
    {
        const uint8_t* start = m_p;
        const uint64_t length = varint(m_p, m_end, "length");
        if (length > uint64_t(m_end - m_p)) [[unlikely]]
            lengthError(start, length);
        return m_p + length;
    }
    [[noreturn]] void lengthError(const uint8_t* start, uint64_t length);
    [[noreturn]] void tooDeep();
    [[noreturn]] void badTag(uint64_t tag);
    [[noreturn]] void wrongWireType(WireType expected, bool packedAllowed);

    struct Frame
    {
        const uint8_t* parentEnd;
        const char* name;
        int64_t index;
    };

    std::string m_file;
    const char* m_root;
    const uint8_t* m_begin;
    const uint8_t* m_p;
    const uint8_t* m_end;
    const uint8_t* m_dataEnd;
    const uint8_t* m_tag;
    const char* m_leaf = nullptr; // name of the current field, while it is being read
    int64_t m_leafIndex = -1; // its index when it is an element of a repeated message field
    uint32_t m_field = 0;
    WireType m_wire = WireType::Varint;
    int m_depth = 0;
    std::array<Frame, kMaxDepth> m_frames;
};

// Appends protobuf fields to a string. Scalar writers follow proto3: a zero / false / empty value
// is not written (it is the default). Sub-messages are always written (presence matters).
class ProtoWriter
{
public:
    explicit ProtoWriter(std::string& out)
        : m_out(out)
    { }

    static size_t varintSize(uint64_t v)
    {
        size_t n = 1;
        while (v >= 0x80) {
            v >>= 7;
            ++n;
        }
        return n;
    }

    void writeRawVarint(uint64_t v);
    void writeTag(uint32_t field, WireType type) { writeRawVarint(uint64_t(field) << 3 | uint64_t(type)); }
    // Always written (even 0).
    void writeVarintField(uint32_t field, uint64_t v)
    {
        writeTag(field, WireType::Varint);
        writeRawVarint(v);
    }
    // Proto3 scalars: skipped when 0 / false. Negative values take 10 bytes, as in protobuf.
    void writeInt64(uint32_t field, int64_t v)
    {
        if (v)
            writeVarintField(field, uint64_t(v));
    }
    void writeUInt64(uint32_t field, uint64_t v)
    {
        if (v)
            writeVarintField(field, v);
    }
    void writeBool(uint32_t field, bool v)
    {
        if (v)
            writeVarintField(field, 1);
    }
    void writeFixed64(uint32_t field, uint64_t v);
    void writeFixed32(uint32_t field, uint32_t v);
    // Proto3 string/bytes: skipped when empty.
    void writeString(uint32_t field, std::string_view s)
    {
        if (!s.empty())
            writeLengthDelimited(field, s);
    }
    // Always written, e.g. an already encoded sub-message.
    void writeLengthDelimited(uint32_t field, std::string_view bytes);
    // Packed repeated varints (like XLA writes them); nothing when empty. Negative int32/int64
    // are sign-extended to 10 bytes.
    void writePacked(uint32_t field, std::span<const int64_t> values);
    void writePacked(uint32_t field, std::span<const uint64_t> values);
    void writePacked(uint32_t field, std::span<const int32_t> values);

    // A sub-message: tag and a placeholder length; endMessage() fills in the length (moving the
    // payload when the length needs more than one byte).
    size_t beginMessage(uint32_t field);
    void endMessage(size_t mark);

    std::string& out() { return m_out; }

private:
    template <class T> void writePackedImpl(uint32_t field, std::span<const T> values);
    std::string& m_out;
};

} // namespace tgraph
