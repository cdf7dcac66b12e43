// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <functional>
#include <memory>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace tgraph {

// Memory for array data. Large blocks are 2 MiB aligned and marked for transparent huge pages,
// which cuts page faults ~500x when a reader fills a freshly allocated gigabyte array.
void* allocateArrayMemory(size_t bytes);
struct ArrayMemoryDeleter
{
    void operator()(void* p) const noexcept;
};

// A std::allocator replacement for byte buffers filled right after allocation: default-initializes
// (no zeroing) and uses allocateArrayMemory, so resize() of a gigabyte buffer costs no extra pass.
template <class T> struct UninitializedAllocator
{
    using value_type = T;
    UninitializedAllocator() = default;
    template <class U> UninitializedAllocator(const UninitializedAllocator<U>&) noexcept { }
    T* allocate(size_t n) { return static_cast<T*>(allocateArrayMemory(n * sizeof(T))); }
    void deallocate(T* p, size_t) noexcept { ArrayMemoryDeleter()(p); }
    template <class U> void construct(U* p) noexcept { ::new (static_cast<void*>(p)) U; }
    template <class U, class... Args> void construct(U* p, Args&&... args)
    {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
    friend bool operator==(const UninitializedAllocator&, const UninitializedAllocator&) { return true; }
};

// Number of elements of a shape; throws std::overflow_error when it does not fit in int64.
int64_t shapeElementCount(const std::vector<int64_t>& shape);
// "(2, 3)" as numpy prints shapes; "()" for 0-d, "(5,)" for 1-d.
std::string shapeToString(const std::vector<int64_t>& shape);

// A dense, C-ordered, owning n-d array of a trivially copyable type. Memory is not zeroed on
// construction (large arrays are filled by readers right after). Copies are deep.
template <class T> class NdArray
{
public:
    NdArray() = default;
    explicit NdArray(std::vector<int64_t> shape)
        : m_shape(std::move(shape))
        , m_size(shapeElementCount(m_shape))
        , m_data(m_size ? static_cast<T*>(allocateArrayMemory(size_t(m_size) * sizeof(T))) : nullptr)
    { }
    NdArray(std::vector<int64_t> shape, T fill)
        : NdArray(std::move(shape))
    {
        std::fill_n(m_data.get(), m_size, fill);
    }
    static NdArray fromVector(std::vector<int64_t> shape, const std::vector<T>& values)
    {
        NdArray a(std::move(shape));
        if (int64_t(values.size()) != a.m_size)
            throw std::invalid_argument("NdArray::fromVector: value count does not match shape");
        std::copy(values.begin(), values.end(), a.m_data.get());
        return a;
    }

    NdArray(const NdArray& o)
        : NdArray(o.m_shape)
    {
        std::copy_n(o.m_data.get(), m_size, m_data.get());
    }
    NdArray& operator=(const NdArray& o)
    {
        if (this != &o)
            *this = NdArray(o);
        return *this;
    }
    NdArray(NdArray&&) noexcept = default;
    NdArray& operator=(NdArray&&) noexcept = default;

    const std::vector<int64_t>& shape() const { return m_shape; }
    int ndim() const { return int(m_shape.size()); }
    int64_t dim(int axis) const { return m_shape.at(size_t(axis)); }
    int64_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    // Elements per index of the first axis (1 for 0-d and 1-d arrays).
    int64_t rowSize() const { return m_shape.size() <= 1 ? 1 : m_size / std::max<int64_t>(m_shape[0], 1); }

    T* data() { return m_data.get(); }
    const T* data() const { return m_data.get(); }
    std::span<T> values() { return { m_data.get(), size_t(m_size) }; }
    std::span<const T> values() const { return { m_data.get(), size_t(m_size) }; }
    T* row(int64_t i) { return m_data.get() + i * rowSize(); }
    const T* row(int64_t i) const { return m_data.get() + i * rowSize(); }

    T& operator[](int64_t i) { return m_data.get()[i]; }
    const T& operator[](int64_t i) const { return m_data.get()[i]; }
    T& operator()(int64_t i, int64_t j) { return m_data.get()[i * m_shape[1] + j]; }
    const T& operator()(int64_t i, int64_t j) const { return m_data.get()[i * m_shape[1] + j]; }
    T& operator()(int64_t i, int64_t j, int64_t k) { return m_data.get()[(i * m_shape[1] + j) * m_shape[2] + k]; }
    const T& operator()(int64_t i, int64_t j, int64_t k) const
    {
        return m_data.get()[(i * m_shape[1] + j) * m_shape[2] + k];
    }

    // Same elements, new shape of the same element count.
    void reshape(std::vector<int64_t> shape)
    {
        if (shapeElementCount(shape) != m_size)
            throw std::invalid_argument("NdArray::reshape: element count differs");
        m_shape = std::move(shape);
    }

    friend bool operator==(const NdArray& a, const NdArray& b)
    {
        return a.m_shape == b.m_shape && std::equal(a.m_data.get(), a.m_data.get() + a.m_size, b.m_data.get());
    }

private:
    std::vector<int64_t> m_shape { 0 }; // default: an empty 1-d array (a 0-d array has shape {})
    int64_t m_size = 0;
    std::unique_ptr<T, ArrayMemoryDeleter> m_data;
};

} // namespace tgraph
