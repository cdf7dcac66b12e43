// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tgraph {

// Element types of .npy arrays that TGraph Studio reads and writes.
enum class ScalarType : uint8_t {
    Bool,
    Int8,
    UInt8,
    Int16,
    UInt16,
    Int32,
    UInt32,
    Int64,
    UInt64,
    Float16,
    Float32,
    Float64,
};

// A numpy dtype restricted to the supported scalar types, with its byte order.
struct DType
{
    ScalarType scalar = ScalarType::Float32;
    bool bigEndian = false;

    size_t itemSize() const;
    bool isInteger() const;
    bool isSigned() const;
    bool isFloat() const;
    bool isBool() const { return scalar == ScalarType::Bool; }
    // True when the stored byte order differs from this machine's (never for 1-byte types).
    bool needsByteSwap() const;

    // numpy's descr string as np.save writes it: "<f4", ">i8", "|u1", "|b1".
    std::string descr() const;
    // Short numpy name: "float32", "uint8", "bool".
    std::string name() const;

    // Parses a numpy descr ("<f4", ">i2", "|u1", "=i8", "<?", "f8" ...). Returns nullopt and a
    // reason for anything unsupported (object arrays, strings, structured dtypes, complex ...).
    static std::optional<DType> fromDescr(std::string_view descr, std::string* whyNot = nullptr);

    friend bool operator==(const DType&, const DType&) = default;
};

template <class T> constexpr ScalarType scalarTypeOf();
template <> constexpr ScalarType scalarTypeOf<bool>() { return ScalarType::Bool; }
template <> constexpr ScalarType scalarTypeOf<int8_t>() { return ScalarType::Int8; }
template <> constexpr ScalarType scalarTypeOf<uint8_t>() { return ScalarType::UInt8; }
template <> constexpr ScalarType scalarTypeOf<int16_t>() { return ScalarType::Int16; }
template <> constexpr ScalarType scalarTypeOf<uint16_t>() { return ScalarType::UInt16; }
template <> constexpr ScalarType scalarTypeOf<int32_t>() { return ScalarType::Int32; }
template <> constexpr ScalarType scalarTypeOf<uint32_t>() { return ScalarType::UInt32; }
template <> constexpr ScalarType scalarTypeOf<int64_t>() { return ScalarType::Int64; }
template <> constexpr ScalarType scalarTypeOf<uint64_t>() { return ScalarType::UInt64; }
template <> constexpr ScalarType scalarTypeOf<float>() { return ScalarType::Float32; }
template <> constexpr ScalarType scalarTypeOf<double>() { return ScalarType::Float64; }

// The native (little-endian on the machines we build for) dtype of T.
template <class T> DType dtypeOf() { return DType { scalarTypeOf<T>(), false }; }

// IEEE binary16 conversions (round to nearest even), for float16 arrays.
float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f);

} // namespace tgraph
