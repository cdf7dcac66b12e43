// SPDX-License-Identifier: Apache-2.0
#pragma once
// Long calls of the Python module (docs/python.md §5): the GIL released while C++ works, progress
// reported to an optional Python callable, Ctrl+C honoured. The sink re-acquires the GIL at most
// every 50 ms, runs the signal handlers (PyErr_CheckSignals) and the callback; a pending
// KeyboardInterrupt or an exception of the callback cancels the C++ work (tgraph::Cancelled at its
// next checkpoint) and is raised again once the call has unwound.
#include "core/util/error.h"
#include "core/util/progress.h"

#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <utility>

namespace tgraph::python {

namespace py = pybind11;

class PythonProgress : public ProgressSink
{
public:
    // `callback`: None, or called as callback(label: str, done: int, total: int).
    explicit PythonProgress(py::object callback = py::none());
    ~PythonProgress() override;

    void begin(std::string_view label, uint64_t total) override;
    void update(uint64_t done) override;
    void end() override;
    bool isCancelled() const override { return m_cancelled.load(); }

    // With the GIL held: raises the Python error that cancelled the work, if any.
    void raisePending();

private:
    void report(uint64_t done, bool force);

    py::object m_callback;
    std::string m_label;
    uint64_t m_total = 0;
    uint64_t m_done = 0; // the last update
    uint64_t m_reported = 0; // the last update passed to Python
    std::chrono::steady_clock::time_point m_last;
    std::atomic<bool> m_cancelled { false };
    std::optional<py::error_already_set> m_error;
};

// Runs `work` with the GIL released. A tgraph::Cancelled raised because of `progress` becomes the
// Python error that asked for it (KeyboardInterrupt, or the callback's exception).
template <class F> auto withoutGil(PythonProgress& progress, F&& work) -> decltype(work())
{
    try {
        py::gil_scoped_release release;
        return work();
    } catch (const Cancelled&) {
        progress.raisePending();
        throw;
    }
}

} // namespace tgraph::python
