// SPDX-License-Identifier: Apache-2.0
#include "app/python/pyerrors.h"

#include "core/util/error.h"

#include <new>
#include <stdexcept>
#include <string_view>

namespace tgraph::python {

namespace {

PyObject* g_inputError = nullptr;

void raiseInputError(const InputError& e)
{
    py::gil_scoped_acquire gil;
    // A message quotes the file's bytes (names, headers): undecodable bytes are shown escaped.
    const std::string_view what = e.what();
    PyObject* message = PyUnicode_DecodeUTF8(what.data(), Py_ssize_t(what.size()), "backslashreplace");
    if (!message)
        return;
    PyObject* instance = PyObject_CallFunctionObjArgs(g_inputError, message, nullptr);
    Py_DECREF(message);
    if (!instance)
        return; // the call's own error stays set
    for (const auto& [name, value] :
        { std::pair { "file", &e.file() }, std::pair { "place", &e.place() }, std::pair { "problem", &e.problem() } }) {
        PyObject* text = PyUnicode_DecodeUTF8(value->data(), Py_ssize_t(value->size()), "backslashreplace");
        if (!text || PyObject_SetAttrString(instance, name, text) != 0) {
            Py_XDECREF(text);
            Py_DECREF(instance);
            return;
        }
        Py_DECREF(text);
    }
    PyErr_SetObject(g_inputError, instance);
    Py_DECREF(instance);
}

} // namespace

void bindErrors(py::module_& module)
{
    g_inputError = PyErr_NewExceptionWithDoc("tgraph.InputError",
        "Bad input: a file, an array or an argument the library refuses.\n\n"
        "str(e) is the command line's message, 'FILE: PLACE: PROBLEM'; the parts are the attributes\n"
        "file, place and problem (place may be empty). A subclass of ValueError.",
        PyExc_ValueError, nullptr);
    if (!g_inputError)
        throw py::error_already_set();
    module.add_object("InputError", py::handle(g_inputError));

    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p)
                std::rethrow_exception(p);
        } catch (const InputError& e) {
            raiseInputError(e);
        } catch (const Cancelled&) {
            // Only our progress sinks cancel, after keeping the Python error that asked for it; a
            // Cancelled reaching here means Ctrl+C was seen without an error to restore.
            PyErr_SetNone(PyExc_KeyboardInterrupt);
        } catch (const std::overflow_error& e) {
            PyErr_SetString(PyExc_OverflowError, e.what());
        }
    });
}

} // namespace tgraph::python
