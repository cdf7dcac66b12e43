// SPDX-License-Identifier: Apache-2.0
#include "core/io/npy.h"

#include "core/util/atomicfile.h"
#include "core/util/error.h"
#include "core/util/memorybudget.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <map>
#include <type_traits>
#include <unistd.h>
#include <utility>

namespace tgraph {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
constexpr uint64_t kMaxHeaderBytes = 1 << 20; // far above anything numpy writes
constexpr int kMaxDims = 32; // numpy's NPY_MAXDIMS (1.x)

std::string placeOf(const std::string& place, const char* what)
{
    return place.empty() ? std::string(what) : place + " " + what;
}

// A minimal reader for the Python dict literal of an npy header:
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
class HeaderDictParser
{
public:
    HeaderDictParser(std::string_view text, const std::string& file, const std::string& place)
        : m_text(text)
        , m_file(file)
        , m_place(placeOf(place, "npy header"))
    { }

    struct Value
    {
        enum Kind { String, Bool, IntTuple, Other } kind = Other;
        std::string text;
        bool flag = false;
        std::vector<int64_t> ints;
    };

    std::map<std::string, Value> parse()
    {
        std::map<std::string, Value> out;
        skipSpace();
        expect('{');
        skipSpace();
        while (peek() != '}') {
            std::string key = parseString();
            skipSpace();
            expect(':');
            skipSpace();
            Value v = parseValue();
            if (out.count(key))
                fail("duplicate key '" + key + "'");
            out.emplace(std::move(key), std::move(v));
            skipSpace();
            if (peek() == ',') {
                ++m_pos;
                skipSpace();
            } else if (peek() != '}') {
                fail("expected ',' or '}' at offset " + std::to_string(m_pos));
            }
        }
        ++m_pos;
        skipSpace();
        if (m_pos != m_text.size())
            fail("unexpected text after the header dict");
        return out;
    }

private:
    [[noreturn]] void fail(const std::string& problem) const { throw InputError(m_file, m_place, problem); }

    char peek() const
    {
        if (m_pos >= m_text.size())
            fail("header dict ends early");
        return m_text[m_pos];
    }
    void expect(char c)
    {
        if (peek() != c)
            fail(std::string("expected '") + c + "' at offset " + std::to_string(m_pos));
        ++m_pos;
    }
    void skipSpace()
    {
        while (m_pos < m_text.size()
            && (m_text[m_pos] == ' ' || m_text[m_pos] == '\t' || m_text[m_pos] == '\n' || m_text[m_pos] == '\r'))
            ++m_pos;
    }
    std::string parseString()
    {
        const char quote = peek();
        if (quote != '\'' && quote != '"')
            fail("expected a quoted key at offset " + std::to_string(m_pos));
        ++m_pos;
        std::string s;
        while (peek() != quote) {
            char c = m_text[m_pos++];
            if (c == '\\') {
                c = peek();
                ++m_pos;
            }
            s += c;
        }
        ++m_pos;
        return s;
    }
    int64_t parseInt()
    {
        bool negative = false;
        if (peek() == '-') {
            negative = true;
            ++m_pos;
        }
        if (peek() < '0' || peek() > '9')
            fail("expected an integer at offset " + std::to_string(m_pos));
        uint64_t v = 0;
        while (m_pos < m_text.size() && m_text[m_pos] >= '0' && m_text[m_pos] <= '9') {
            const uint64_t digit = uint64_t(m_text[m_pos++] - '0');
            if (v > (uint64_t(std::numeric_limits<int64_t>::max()) - digit) / 10)
                fail("shape dimension overflows 64 bits");
            v = v * 10 + digit;
        }
        if (m_pos < m_text.size() && (m_text[m_pos] == 'L' || m_text[m_pos] == 'l'))
            ++m_pos; // Python 2 long suffix
        return negative ? -int64_t(v) : int64_t(v);
    }
    Value parseValue()
    {
        Value v;
        const char c = peek();
        if (c == '\'' || c == '"') {
            v.kind = Value::String;
            v.text = parseString();
        } else if (m_text.substr(m_pos, 4) == "True") {
            v.kind = Value::Bool;
            v.flag = true;
            m_pos += 4;
        } else if (m_text.substr(m_pos, 5) == "False") {
            v.kind = Value::Bool;
            m_pos += 5;
        } else if (c == '(') {
            v.kind = Value::IntTuple;
            ++m_pos;
            skipSpace();
            while (peek() != ')') {
                v.ints.push_back(parseInt());
                if (v.ints.size() > size_t(kMaxDims))
                    fail("more than " + std::to_string(kMaxDims) + " dimensions");
                skipSpace();
                if (peek() == ',') {
                    ++m_pos;
                    skipSpace();
                } else if (peek() != ')') {
                    fail("malformed shape tuple at offset " + std::to_string(m_pos));
                }
            }
            ++m_pos;
        } else if (c == '[' || c == '{') {
            // Structured dtypes are lists of fields; skip the balanced value and report it later.
            v.kind = Value::Other;
            int depth = 0;
            do {
                const char d = peek();
                if (d == '\'' || d == '"') {
                    parseString();
                    continue;
                }
                if (d == '[' || d == '{' || d == '(')
                    ++depth;
                else if (d == ']' || d == '}' || d == ')')
                    --depth;
                ++m_pos;
            } while (depth > 0);
        } else {
            fail("unexpected value at offset " + std::to_string(m_pos));
        }
        return v;
    }

    std::string_view m_text;
    size_t m_pos = 0;
    const std::string& m_file;
    std::string m_place;
};

template <class S> S byteSwapped(S v)
{
    if constexpr (sizeof(S) == 2)
        return std::bit_cast<S>(__builtin_bswap16(std::bit_cast<uint16_t>(v)));
    else if constexpr (sizeof(S) == 4)
        return std::bit_cast<S>(__builtin_bswap32(std::bit_cast<uint32_t>(v)));
    else if constexpr (sizeof(S) == 8)
        return std::bit_cast<S>(__builtin_bswap64(std::bit_cast<uint64_t>(v)));
    else
        return v;
}

template <class S> S loadScalar(const std::byte* p, bool swap)
{
    S v;
    std::memcpy(&v, p, sizeof(S));
    return swap ? byteSwapped(v) : v;
}

std::string formatIndex(uint64_t flat, const std::vector<int64_t>* shape)
{
    if (!shape || shape->size() <= 1)
        return "[" + std::to_string(flat) + "]";
    std::vector<uint64_t> idx(shape->size());
    for (size_t k = shape->size(); k-- > 0;) {
        const uint64_t d = uint64_t(std::max<int64_t>((*shape)[k], 1));
        idx[k] = flat % d;
        flat /= d;
    }
    std::string s = "[";
    for (size_t k = 0; k < idx.size(); ++k)
        s += (k ? "," : "") + std::to_string(idx[k]);
    return s + "]";
}

template <class T, class S> bool fitsIn(S v)
{
    if constexpr (std::is_same_v<T, bool>) {
        return true;
    } else if constexpr (std::is_floating_point_v<T>) {
        return true;
    } else if constexpr (std::is_floating_point_v<S>) {
        if (!std::isfinite(v) || v != std::trunc(v))
            return false;
        // Compare against the exact power-of-two bounds of T's range.
        const long double lv = v;
        return lv >= (long double)std::numeric_limits<T>::min() && lv <= (long double)std::numeric_limits<T>::max();
    } else if constexpr (std::is_same_v<S, bool>) {
        return true;
    } else {
        return std::in_range<T>(v);
    }
}

template <class S> std::string valueText(S v)
{
    if constexpr (std::is_same_v<S, bool>)
        return v ? "True" : "False";
    else if constexpr (std::is_floating_point_v<S>)
        return std::to_string(double(v));
    else if constexpr (std::is_signed_v<S>)
        return std::to_string(int64_t(v));
    else
        return std::to_string(uint64_t(v));
}

template <class T> std::string targetTypeName() { return dtypeOf<T>().name(); }

template <class T, class S>
void convertFrom(const std::byte* src, bool swap, T* dst, size_t count, uint64_t firstIndex, const std::string& file,
    const std::string& place, const std::vector<int64_t>* shape)
{
    if constexpr (std::is_same_v<T, S>) {
        if (!swap) {
            std::memcpy(dst, src, count * sizeof(T));
            return;
        }
    }
    for (size_t i = 0; i < count; ++i) {
        const S v = loadScalar<S>(src + i * sizeof(S), swap);
        if (!fitsIn<T>(v))
            throw InputError(file, place + formatIndex(firstIndex + i, shape),
                "value " + valueText(v) + " does not fit in " + targetTypeName<T>());
        if constexpr (std::is_same_v<T, bool>)
            dst[i] = v != S(0);
        else
            dst[i] = static_cast<T>(v);
    }
}

template <class T>
void convertFromHalf(const std::byte* src, bool swap, T* dst, size_t count, uint64_t firstIndex,
    const std::string& file, const std::string& place, const std::vector<int64_t>* shape)
{
    for (size_t i = 0; i < count; ++i) {
        const float v = halfToFloat(loadScalar<uint16_t>(src + i * 2, swap));
        if (!fitsIn<T>(v))
            throw InputError(file, place + formatIndex(firstIndex + i, shape),
                "value " + valueText(v) + " does not fit in " + targetTypeName<T>());
        if constexpr (std::is_same_v<T, bool>)
            dst[i] = v != 0.0f;
        else
            dst[i] = static_cast<T>(v);
    }
}

template <class T>
void convertAny(const std::byte* src, const DType& from, T* dst, size_t count, uint64_t firstIndex,
    const std::string& file, const std::string& place, const std::vector<int64_t>* shape)
{
    const bool swap = from.needsByteSwap();
    switch (from.scalar) {
    case ScalarType::Bool:
        return convertFrom<T, bool>(src, false, dst, count, firstIndex, file, place, shape);
    case ScalarType::Int8:
        return convertFrom<T, int8_t>(src, false, dst, count, firstIndex, file, place, shape);
    case ScalarType::UInt8:
        return convertFrom<T, uint8_t>(src, false, dst, count, firstIndex, file, place, shape);
    case ScalarType::Int16:
        return convertFrom<T, int16_t>(src, swap, dst, count, firstIndex, file, place, shape);
    case ScalarType::UInt16:
        return convertFrom<T, uint16_t>(src, swap, dst, count, firstIndex, file, place, shape);
    case ScalarType::Int32:
        return convertFrom<T, int32_t>(src, swap, dst, count, firstIndex, file, place, shape);
    case ScalarType::UInt32:
        return convertFrom<T, uint32_t>(src, swap, dst, count, firstIndex, file, place, shape);
    case ScalarType::Int64:
        return convertFrom<T, int64_t>(src, swap, dst, count, firstIndex, file, place, shape);
    case ScalarType::UInt64:
        return convertFrom<T, uint64_t>(src, swap, dst, count, firstIndex, file, place, shape);
    case ScalarType::Float16:
        return convertFromHalf<T>(src, swap, dst, count, firstIndex, file, place, shape);
    case ScalarType::Float32:
        return convertFrom<T, float>(src, swap, dst, count, firstIndex, file, place, shape);
    case ScalarType::Float64:
        return convertFrom<T, double>(src, swap, dst, count, firstIndex, file, place, shape);
    }
}

template <class S, class T> void storeAs(const T* src, size_t count, bool swap, std::byte* dst)
{
    for (size_t i = 0; i < count; ++i) {
        if (!fitsIn<S>(src[i]))
            throw std::range_error("value " + valueText(src[i]) + " does not fit in the output dtype");
        S v;
        if constexpr (std::is_same_v<S, bool>)
            v = src[i] != T(0);
        else
            v = static_cast<S>(src[i]);
        if (swap)
            v = byteSwapped(v);
        std::memcpy(dst + i * sizeof(S), &v, sizeof(S));
    }
}

} // namespace

uint64_t npyHeaderSize(const std::byte* preamble, size_t available, const std::string& file, const std::string& place)
{
    const std::string where = placeOf(place, "npy header");
    if (available < 10 || std::memcmp(preamble, kMagic, kMagicLen) != 0)
        throw InputError(file, where, "not an .npy array (bad magic)");
    const uint8_t major = uint8_t(preamble[6]);
    const uint8_t minor = uint8_t(preamble[7]);
    uint64_t length;
    uint64_t prefix;
    if (major == 1) {
        length = uint64_t(uint8_t(preamble[8])) | uint64_t(uint8_t(preamble[9])) << 8;
        prefix = 10;
    } else if (major == 2 || major == 3) {
        if (available < 12)
            throw InputError(file, where, "truncated npy header");
        length = 0;
        for (int i = 0; i < 4; ++i)
            length |= uint64_t(uint8_t(preamble[8 + i])) << (8 * i);
        prefix = 12;
    } else {
        throw InputError(
            file, where, "unsupported npy format version " + std::to_string(major) + "." + std::to_string(minor));
    }
    if (length > kMaxHeaderBytes)
        throw InputError(file, where,
            "header length " + std::to_string(length) + " exceeds the limit of " + std::to_string(kMaxHeaderBytes)
                + " bytes");
    return prefix + length;
}

NpyHeader parseNpyHeader(const std::byte* bytes, size_t size, const std::string& file, const std::string& place)
{
    const uint64_t total = npyHeaderSize(bytes, size, file, place);
    const std::string where = placeOf(place, "npy header");
    if (size < total)
        throw InputError(file, where, "truncated npy header");
    NpyHeader h;
    h.majorVersion = uint8_t(bytes[6]);
    h.minorVersion = uint8_t(bytes[7]);
    h.headerBytes = total;
    const size_t prefix = h.majorVersion == 1 ? 10 : 12;
    std::string_view text(reinterpret_cast<const char*>(bytes) + prefix, total - prefix);
    if (h.majorVersion < 3) {
        for (char c : text)
            if (static_cast<unsigned char>(c) >= 0x80)
                throw InputError(file, where, "non-ASCII byte in a version 1/2 header");
    }
    auto dict = HeaderDictParser(text, file, place).parse();
    for (const char* key : { "descr", "fortran_order", "shape" })
        if (!dict.count(key))
            throw InputError(file, where, std::string("missing key '") + key + "'");
    if (dict.size() != 3)
        throw InputError(file, where, "unexpected keys in the header (only descr, fortran_order, shape allowed)");

    const auto& descr = dict["descr"];
    if (descr.kind == HeaderDictParser::Value::Other)
        throw InputError(file, where, "structured dtypes are not supported (numeric arrays only)");
    if (descr.kind != HeaderDictParser::Value::String)
        throw InputError(file, where, "descr is not a string");
    std::string why;
    auto dtype = DType::fromDescr(descr.text, &why);
    if (!dtype)
        throw InputError(file, where, why);
    h.dtype = *dtype;

    const auto& fortran = dict["fortran_order"];
    if (fortran.kind != HeaderDictParser::Value::Bool)
        throw InputError(file, where, "fortran_order is not True/False");
    h.fortranOrder = fortran.flag;

    const auto& shape = dict["shape"];
    if (shape.kind != HeaderDictParser::Value::IntTuple)
        throw InputError(file, where, "shape is not a tuple of integers");
    h.shape = shape.ints;
    for (int64_t d : h.shape)
        if (d < 0)
            throw InputError(
                file, where, "negative dimension " + std::to_string(d) + " in shape " + shapeToString(h.shape));
    int64_t count = 1;
    for (int64_t d : h.shape)
        if (__builtin_mul_overflow(count, d, &count))
            throw InputError(file, where, "shape " + shapeToString(h.shape) + " overflows 64 bits");
    uint64_t bytesNeeded;
    if (__builtin_mul_overflow(uint64_t(count), uint64_t(h.dtype.itemSize()), &bytesNeeded)
        || bytesNeeded > uint64_t(std::numeric_limits<int64_t>::max()))
        throw InputError(file, where, "shape " + shapeToString(h.shape) + " overflows 64 bits of data");
    return h;
}

std::string makeNpyHeader(const DType& dtype, const std::vector<int64_t>& shape, bool fortranOrder)
{
    // Same text as numpy's _write_array_header: sorted keys, repr() values, ", " separators.
    std::string dict = "{'descr': '" + dtype.descr() + "', 'fortran_order': " + (fortranOrder ? "True" : "False")
        + ", 'shape': " + shapeToString(shape) + ", }";
    // numpy leaves room to grow the first (C) or last (Fortran) axis in place: 21 - len(repr(dim)).
    if (!shape.empty()) {
        const std::string growth = std::to_string(fortranOrder ? shape.back() : shape.front());
        if (growth.size() < 21)
            dict.append(21 - growth.size(), ' ');
    }
    constexpr size_t kAlign = 64;
    auto wrap = [&](int major, size_t lengthBytes) {
        const size_t hlen = dict.size() + 1; // + '\n'
        const size_t pad = kAlign - ((kMagicLen + 2 + lengthBytes + hlen) % kAlign);
        const uint64_t total = hlen + pad;
        std::string out(kMagic, kMagicLen);
        out += char(major);
        out += char(0);
        for (size_t i = 0; i < lengthBytes; ++i)
            out += char((total >> (8 * i)) & 0xff);
        out += dict;
        out.append(pad, ' ');
        out += '\n';
        return std::make_pair(out, total);
    };
    auto [v1, total1] = wrap(1, 2);
    if (total1 <= 0xffff)
        return v1;
    return wrap(2, 4).first;
}

template <class T>
void convertElements(const std::byte* src, const DType& from, T* dst, size_t count, uint64_t firstIndex,
    const std::string& file, const std::string& place, const std::vector<int64_t>* shape)
{
    convertAny<T>(src, from, dst, count, firstIndex, file, place, shape);
}

template <class T> void storeElements(const T* src, size_t count, const DType& to, std::byte* dst)
{
    const bool swap = to.needsByteSwap();
    switch (to.scalar) {
    case ScalarType::Bool:
        return storeAs<bool>(src, count, false, dst);
    case ScalarType::Int8:
        return storeAs<int8_t>(src, count, false, dst);
    case ScalarType::UInt8:
        return storeAs<uint8_t>(src, count, false, dst);
    case ScalarType::Int16:
        return storeAs<int16_t>(src, count, swap, dst);
    case ScalarType::UInt16:
        return storeAs<uint16_t>(src, count, swap, dst);
    case ScalarType::Int32:
        return storeAs<int32_t>(src, count, swap, dst);
    case ScalarType::UInt32:
        return storeAs<uint32_t>(src, count, swap, dst);
    case ScalarType::Int64:
        return storeAs<int64_t>(src, count, swap, dst);
    case ScalarType::UInt64:
        return storeAs<uint64_t>(src, count, swap, dst);
    case ScalarType::Float16:
        for (size_t i = 0; i < count; ++i) {
            uint16_t h = floatToHalf(float(src[i]));
            if (swap)
                h = __builtin_bswap16(h);
            std::memcpy(dst + i * 2, &h, 2);
        }
        return;
    case ScalarType::Float32:
        return storeAs<float>(src, count, swap, dst);
    case ScalarType::Float64:
        return storeAs<double>(src, count, swap, dst);
    }
}

void fortranToC(const std::byte* src, std::byte* dst, const std::vector<int64_t>& shape, size_t itemSize)
{
    const int64_t n = shapeElementCount(shape);
    if (shape.size() <= 1 || n == 0) {
        std::memcpy(dst, src, size_t(n) * itemSize);
        return;
    }
    const size_t nd = shape.size();
    std::vector<int64_t> fortranStride(nd);
    int64_t stride = 1;
    for (size_t k = 0; k < nd; ++k) {
        fortranStride[k] = stride;
        stride *= shape[k];
    }
    // Walk destination (C order) with an odometer over the last axis, tracking the source offset.
    std::vector<int64_t> idx(nd, 0);
    int64_t srcOffset = 0;
    const int64_t last = shape[nd - 1];
    const int64_t lastStride = fortranStride[nd - 1];
    for (int64_t c = 0; c < n; c += last) {
        for (int64_t j = 0; j < last; ++j)
            std::memcpy(dst + size_t(c + j) * itemSize, src + size_t(srcOffset + j * lastStride) * itemSize, itemSize);
        for (size_t k = nd - 1; k-- > 0;) {
            srcOffset += fortranStride[k];
            if (++idx[k] < shape[k])
                break;
            srcOffset -= fortranStride[k] * shape[k];
            idx[k] = 0;
        }
    }
}

template <class T> NdArray<T> NpyArray::to(const std::string& file, const std::string& place) const
{
    NdArray<T> out(header.shape);
    const size_t n = size_t(out.size());
    if (data.size() != n * header.dtype.itemSize())
        throw InputError(file, place,
            "array holds " + std::to_string(data.size()) + " bytes but its header needs "
                + std::to_string(n * header.dtype.itemSize()));
    if (!header.fortranOrder || header.shape.size() <= 1) {
        convertAny<T>(data.data(), header.dtype, out.data(), n, 0, file, place, &header.shape);
        return out;
    }
    // Fortran order: convert in storage order, then reorder into C order.
    std::vector<int64_t> reversed(header.shape.rbegin(), header.shape.rend());
    NdArray<T> tmp(reversed);
    convertAny<T>(data.data(), header.dtype, tmp.data(), n, 0, file, place, &reversed);
    fortranToC(reinterpret_cast<const std::byte*>(tmp.data()), reinterpret_cast<std::byte*>(out.data()), header.shape,
        sizeof(T));
    return out;
}

template <class T> NpyArray NpyArray::from(const NdArray<T>& array) { return from(array, dtypeOf<T>()); }

template <class T> NpyArray NpyArray::from(const NdArray<T>& array, const DType& storeAs)
{
    NpyArray a;
    a.header.dtype = storeAs;
    a.header.shape = array.shape();
    a.header.fortranOrder = false;
    a.data.resize(size_t(array.size()) * storeAs.itemSize());
    storeElements(array.data(), size_t(array.size()), storeAs, a.data.data());
    return a;
}

NpyArray readNpyFile(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw InputError(path, "", std::string("cannot open: ") + std::strerror(errno));
    std::vector<std::byte> bytes;
    std::byte buf[1 << 16];
    const uint64_t budget = memoryBudgetBytes();
    for (;;) {
        if (bytes.size() > budget) { // a FIFO or device never ends; a file may exceed memory
            ::close(fd);
            throw InputError(path, "", "larger than " + describeMemoryBudget(budget));
        }
        const ssize_t got = ::read(fd, buf, sizeof buf);
        if (got < 0) {
            const int err = errno;
            ::close(fd);
            throw InputError(path, "", std::string("read failed: ") + std::strerror(err));
        }
        if (got == 0)
            break;
        bytes.insert(bytes.end(), buf, buf + got);
    }
    ::close(fd);
    NpyArray a;
    a.header = parseNpyHeader(bytes.data(), bytes.size(), path, "");
    const uint64_t need = a.header.dataBytes();
    if (bytes.size() - a.header.headerBytes != need)
        throw InputError(path, "",
            "npy header says " + shapeToString(a.header.shape) + " " + a.header.dtype.name() + " ("
                + std::to_string(need) + " bytes) but the file holds "
                + std::to_string(bytes.size() - a.header.headerBytes) + " bytes of data");
    a.data.assign(bytes.begin() + std::ptrdiff_t(a.header.headerBytes), bytes.end());
    return a;
}

void writeNpyFile(const std::string& path, const NpyArray& array)
{
    const std::string header = makeNpyHeader(array.header.dtype, array.header.shape, array.header.fortranOrder);
    AtomicFile file(path);
    file.write(header.data(), header.size());
    file.write(array.data.data(), array.data.size());
    file.commit();
}

#define TGRAPH_INSTANTIATE(T)                                                                                          \
    template void convertElements<T>(const std::byte*, const DType&, T*, size_t, uint64_t, const std::string&,         \
        const std::string&, const std::vector<int64_t>*);                                                              \
    template void storeElements<T>(const T*, size_t, const DType&, std::byte*);                                        \
    template NdArray<T> NpyArray::to<T>(const std::string&, const std::string&) const;                                 \
    template NpyArray NpyArray::from<T>(const NdArray<T>&);                                                            \
    template NpyArray NpyArray::from<T>(const NdArray<T>&, const DType&);
TGRAPH_INSTANTIATE(bool)
TGRAPH_INSTANTIATE(int8_t)
TGRAPH_INSTANTIATE(uint8_t)
TGRAPH_INSTANTIATE(int16_t)
TGRAPH_INSTANTIATE(uint16_t)
TGRAPH_INSTANTIATE(int32_t)
TGRAPH_INSTANTIATE(uint32_t)
TGRAPH_INSTANTIATE(int64_t)
TGRAPH_INSTANTIATE(uint64_t)
TGRAPH_INSTANTIATE(float)
TGRAPH_INSTANTIATE(double)
#undef TGRAPH_INSTANTIATE

} // namespace tgraph
