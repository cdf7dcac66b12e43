// SPDX-License-Identifier: Apache-2.0
#include "core/io/dtype.h"

#include <bit>
#include <cstring>

namespace tgraph {

static_assert(std::endian::native == std::endian::little, "TGraph Studio assumes a little-endian host");

size_t DType::itemSize() const
{
    switch (scalar) {
    case ScalarType::Bool:
    case ScalarType::Int8:
    case ScalarType::UInt8:
        return 1;
    case ScalarType::Int16:
    case ScalarType::UInt16:
    case ScalarType::Float16:
        return 2;
    case ScalarType::Int32:
    case ScalarType::UInt32:
    case ScalarType::Float32:
        return 4;
    case ScalarType::Int64:
    case ScalarType::UInt64:
    case ScalarType::Float64:
        return 8;
    }
    return 0;
}

bool DType::isInteger() const
{
    switch (scalar) {
    case ScalarType::Int8:
    case ScalarType::UInt8:
    case ScalarType::Int16:
    case ScalarType::UInt16:
    case ScalarType::Int32:
    case ScalarType::UInt32:
    case ScalarType::Int64:
    case ScalarType::UInt64:
        return true;
    default:
        return false;
    }
}

bool DType::isSigned() const
{
    return scalar == ScalarType::Int8 || scalar == ScalarType::Int16 || scalar == ScalarType::Int32
        || scalar == ScalarType::Int64 || isFloat();
}

bool DType::isFloat() const
{
    return scalar == ScalarType::Float16 || scalar == ScalarType::Float32 || scalar == ScalarType::Float64;
}

bool DType::needsByteSwap() const { return bigEndian && itemSize() > 1; }

namespace {
char kindChar(ScalarType s)
{
    switch (s) {
    case ScalarType::Bool:
        return 'b';
    case ScalarType::Int8:
    case ScalarType::Int16:
    case ScalarType::Int32:
    case ScalarType::Int64:
        return 'i';
    case ScalarType::UInt8:
    case ScalarType::UInt16:
    case ScalarType::UInt32:
    case ScalarType::UInt64:
        return 'u';
    case ScalarType::Float16:
    case ScalarType::Float32:
    case ScalarType::Float64:
        return 'f';
    }
    return '?';
}
} // namespace

std::string DType::descr() const
{
    std::string s;
    s += itemSize() == 1 ? '|' : (bigEndian ? '>' : '<');
    s += kindChar(scalar);
    s += std::to_string(itemSize());
    return s;
}

std::string DType::name() const
{
    switch (scalar) {
    case ScalarType::Bool:
        return "bool";
    case ScalarType::Int8:
        return "int8";
    case ScalarType::UInt8:
        return "uint8";
    case ScalarType::Int16:
        return "int16";
    case ScalarType::UInt16:
        return "uint16";
    case ScalarType::Int32:
        return "int32";
    case ScalarType::UInt32:
        return "uint32";
    case ScalarType::Int64:
        return "int64";
    case ScalarType::UInt64:
        return "uint64";
    case ScalarType::Float16:
        return "float16";
    case ScalarType::Float32:
        return "float32";
    case ScalarType::Float64:
        return "float64";
    }
    return "?";
}

std::optional<DType> DType::fromDescr(std::string_view d, std::string* whyNot)
{
    auto fail = [&](std::string reason) -> std::optional<DType> {
        if (whyNot)
            *whyNot = std::move(reason);
        return std::nullopt;
    };
    const std::string original(d);
    DType t;
    if (!d.empty() && (d[0] == '<' || d[0] == '>' || d[0] == '|' || d[0] == '=' || d[0] == '!')) {
        t.bigEndian = d[0] == '>' || d[0] == '!';
        d.remove_prefix(1);
    }
    if (d.empty())
        return fail("empty dtype descr");
    const char kind = d[0];
    std::string_view sizeText = d.substr(1);
    if (kind == 'O')
        return fail("object arrays (dtype '" + original
            + "') hold Python pickles and are refused; TGraph Studio never unpickles data");
    if (kind == 'U' || kind == 'S' || kind == 'a' || kind == 'V')
        return fail("string/void dtype '" + original + "' is not supported (numeric arrays only)");
    if (kind == 'c')
        return fail("complex dtype '" + original + "' is not supported");
    if (kind == 'M' || kind == 'm')
        return fail("datetime dtype '" + original + "' is not supported");
    if (kind == '?' && sizeText.empty()) {
        t.scalar = ScalarType::Bool;
        t.bigEndian = false;
        return t;
    }
    int size = 0;
    for (char c : sizeText) {
        if (c < '0' || c > '9' || size > 1000)
            return fail("unknown dtype '" + original + "'");
        size = size * 10 + (c - '0');
    }
    switch (kind) {
    case 'b':
        if (size == 1) {
            t.scalar = ScalarType::Bool;
            t.bigEndian = false;
            return t;
        }
        break;
    case 'i':
        if (size == 1)
            t.scalar = ScalarType::Int8;
        else if (size == 2)
            t.scalar = ScalarType::Int16;
        else if (size == 4)
            t.scalar = ScalarType::Int32;
        else if (size == 8)
            t.scalar = ScalarType::Int64;
        else
            break;
        if (size == 1)
            t.bigEndian = false;
        return t;
    case 'u':
        if (size == 1)
            t.scalar = ScalarType::UInt8;
        else if (size == 2)
            t.scalar = ScalarType::UInt16;
        else if (size == 4)
            t.scalar = ScalarType::UInt32;
        else if (size == 8)
            t.scalar = ScalarType::UInt64;
        else
            break;
        if (size == 1)
            t.bigEndian = false;
        return t;
    case 'f':
        if (size == 2)
            t.scalar = ScalarType::Float16;
        else if (size == 4)
            t.scalar = ScalarType::Float32;
        else if (size == 8)
            t.scalar = ScalarType::Float64;
        else
            return fail("float dtype '" + original + "' is not supported (float16/32/64 only)");
        return t;
    default:
        break;
    }
    return fail("unknown dtype '" + original + "'");
}

float halfToFloat(uint16_t h)
{
    const uint32_t sign = uint32_t(h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1fu;
    uint32_t mantissa = h & 0x3ffu;
    uint32_t bits;
    if (exponent == 0) {
        if (mantissa == 0) {
            bits = sign;
        } else { // subnormal half -> normal float
            int e = -1;
            do {
                ++e;
                mantissa <<= 1;
            } while ((mantissa & 0x400u) == 0);
            bits = sign | uint32_t(127 - 15 - e) << 23 | (mantissa & 0x3ffu) << 13;
        }
    } else if (exponent == 0x1f) {
        bits = sign | 0x7f800000u | mantissa << 13; // inf / nan (payload kept)
    } else {
        bits = sign | (exponent + 127 - 15) << 23 | mantissa << 13;
    }
    return std::bit_cast<float>(bits);
}

uint16_t floatToHalf(float f)
{
    const uint32_t bits = std::bit_cast<uint32_t>(f);
    const uint16_t sign = uint16_t((bits >> 16) & 0x8000u);
    const uint32_t absBits = bits & 0x7fffffffu;
    if (absBits >= 0x7f800000u) { // inf or nan
        if (absBits == 0x7f800000u)
            return sign | 0x7c00u;
        uint16_t payload = uint16_t((absBits >> 13) & 0x3ffu);
        return sign | 0x7c00u | (payload ? payload : 0x200u);
    }
    if (absBits >= 0x477ff000u) // rounds to >= 65520: overflow to inf
        return sign | 0x7c00u;
    if (absBits < 0x38800000u) { // below the smallest normal half: subnormal or zero
        if (absBits < 0x33000000u) // < 2^-25: rounds to zero
            return sign;
        const uint32_t exponent = absBits >> 23;
        const uint32_t mantissa = (absBits & 0x7fffffu) | 0x800000u;
        const uint32_t shift = 126 - exponent; // value = mantissa * 2^-24 >> shift, shift in 14..24
        uint32_t halfMantissa = mantissa >> shift;
        const uint32_t remainder = mantissa & ((1u << shift) - 1);
        const uint32_t halfway = 1u << (shift - 1);
        if (remainder > halfway || (remainder == halfway && (halfMantissa & 1u)))
            ++halfMantissa; // may become 0x400, the smallest normal: still the right bits
        return sign | uint16_t(halfMantissa);
    }
    // normal: rebias exponent, round mantissa 23 -> 10 bits to nearest even
    uint32_t h = ((absBits >> 23) - 127 + 15) << 10 | ((absBits >> 13) & 0x3ffu);
    const uint32_t remainder = absBits & 0x1fffu;
    if (remainder > 0x1000u || (remainder == 0x1000u && (h & 1u)))
        ++h; // may carry into the exponent, which is still correct (up to inf)
    return sign | uint16_t(h);
}

} // namespace tgraph
