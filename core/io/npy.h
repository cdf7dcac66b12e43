// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/io/dtype.h"
#include "core/io/ndarray.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tgraph {

// The header of one .npy array (format versions 1.0, 2.0 and 3.0).
struct NpyHeader
{
    DType dtype;
    std::vector<int64_t> shape;
    bool fortranOrder = false;
    uint8_t majorVersion = 1;
    uint8_t minorVersion = 0;
    uint64_t headerBytes = 0; // magic + length field + header text: the offset of the data

    int64_t elementCount() const { return shapeElementCount(shape); }
    uint64_t dataBytes() const { return uint64_t(elementCount()) * dtype.itemSize(); }
};

// Bytes needed before the header length is known: magic (6) + version (2) + length (2 or 4).
constexpr size_t kNpyPreambleBytes = 12;

// Parses the header at the start of an .npy stream. `bytes` must hold the whole header; call
// npyHeaderSize() on the first kNpyPreambleBytes bytes first to learn how much that is. Errors
// are InputError(file, place, problem): bad magic, unsupported version, malformed dict, object
// or other unsupported dtypes, negative or overflowing shapes. Nothing is ever unpickled.
uint64_t npyHeaderSize(const std::byte* preamble, size_t available, const std::string& file, const std::string& place);
NpyHeader parseNpyHeader(const std::byte* bytes, size_t size, const std::string& file, const std::string& place);

// The exact header bytes numpy 1.24's np.save writes for this dtype/shape/order (version 1.0,
// or 2.0 when the header does not fit in 65535 bytes), so files we write are byte-identical.
std::string makeNpyHeader(const DType& dtype, const std::vector<int64_t>& shape, bool fortranOrder);

// One array exactly as stored: header plus raw data bytes (stored byte order and memory order).
struct NpyArray
{
    NpyHeader header;
    std::vector<std::byte, UninitializedAllocator<std::byte>> data;

    // Converts to a C-ordered native array of T, checking that every value is representable
    // (integer range; integral values for float -> integer). Throws InputError naming `file`/`place`.
    template <class T> NdArray<T> to(const std::string& file = {}, const std::string& place = {}) const;

    // Wraps a native C-ordered array (stored with T's own dtype, or `storeAs` after conversion).
    template <class T> static NpyArray from(const NdArray<T>& array);
    template <class T> static NpyArray from(const NdArray<T>& array, const DType& storeAs);
};

// Whole-file .npy helpers (the npz functions are in npz.h).
NpyArray readNpyFile(const std::string& path);
void writeNpyFile(const std::string& path, const NpyArray& array);

// --- element conversion, shared by the npy and npz readers -------------------------------------

// Converts `count` stored elements of `src` (dtype `from`, any byte order) into native `T`,
// checking representability. `firstIndex` is the flat index of src[0] and `shape` (optional) the
// storage-order shape, both only used to name the element in error messages.
template <class T>
void convertElements(const std::byte* src, const DType& from, T* dst, size_t count, uint64_t firstIndex,
    const std::string& file, const std::string& place, const std::vector<int64_t>* shape = nullptr);

// Converts native T values into stored elements of dtype `to` (throws std::range_error when a
// value does not fit; that is a program error, not an input error).
template <class T> void storeElements(const T* src, size_t count, const DType& to, std::byte* dst);

// Reorders a Fortran-ordered buffer of `shape` into C order (elements of `itemSize` bytes).
void fortranToC(const std::byte* src, std::byte* dst, const std::vector<int64_t>& shape, size_t itemSize);

} // namespace tgraph
