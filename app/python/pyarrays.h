// SPDX-License-Identifier: Apache-2.0
#pragma once
// numpy arrays of C++ data for the Python module (docs/python.md §3): views that keep their owner
// alive (zero-copy, read-only) and owning arrays whose buffer a capsule frees.
#include "core/io/ndarray.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tgraph::python {

namespace py = pybind11;

// Marks `array` read-only (numpy raises "assignment destination is read-only" on a write).
inline void makeReadOnly(py::array& array)
{
    py::detail::array_proxy(array.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
}

// A read-only view of `count` elements of T at `data` with `shape`, whose base object is `owner`:
// numpy holds a reference to `owner` for as long as the view (or a view of it) lives.
template <class T> py::array viewOf(const T* data, const std::vector<int64_t>& shape, py::handle owner)
{
    std::vector<py::ssize_t> dims(shape.begin(), shape.end());
    static const T empty {};
    py::array a(py::dtype::of<T>(), dims, {}, data ? data : &empty, owner);
    makeReadOnly(a);
    return a;
}

template <class T> py::array viewOf(const NdArray<T>& array, py::handle owner)
{
    return viewOf(array.data(), array.shape(), owner);
}

// An owning, writable numpy array taking over `array`'s buffer (no copy): a capsule frees it.
template <class T> py::array ownedArray(NdArray<T>&& array)
{
    auto* held = new NdArray<T>(std::move(array));
    py::capsule owner(held, [](void* p) { delete static_cast<NdArray<T>*>(p); });
    std::vector<py::ssize_t> dims(held->shape().begin(), held->shape().end());
    static const T empty {};
    return py::array(py::dtype::of<T>(), dims, {}, held->data() ? held->data() : &empty, owner);
}

template <class T> py::array ownedArray(std::vector<T>&& values)
{
    auto* held = new std::vector<T>(std::move(values));
    py::capsule owner(held, [](void* p) { delete static_cast<std::vector<T>*>(p); });
    static const T empty {};
    return py::array(
        py::dtype::of<T>(), { py::ssize_t(held->size()) }, {}, held->empty() ? &empty : held->data(), owner);
}

// A copy of `values` converted to U (std::vector<bool> too).
template <class U, class V> py::array copiedArray(const V& values)
{
    NdArray<U> out({ int64_t(values.size()) });
    std::copy(values.begin(), values.end(), out.data());
    return ownedArray(std::move(out));
}

} // namespace tgraph::python
