// SPDX-License-Identifier: Apache-2.0
#include "app/python/pyprogress.h"

namespace tgraph::python {

namespace {
constexpr auto kInterval = std::chrono::milliseconds(50);
}

PythonProgress::PythonProgress(py::object callback)
    : m_callback(std::move(callback))
    , m_last(std::chrono::steady_clock::now())
{ }

PythonProgress::~PythonProgress()
{
    // Destroyed with the GIL held (the bound functions own their sinks), so the Python objects
    // it holds are released safely.
}

void PythonProgress::begin(std::string_view label, uint64_t total)
{
    m_label = std::string(label);
    m_total = total;
    m_done = 0;
    report(0, true);
}

void PythonProgress::update(uint64_t done)
{
    m_done = done;
    report(done, done >= m_total);
}

void PythonProgress::end()
{
    if (m_done != m_reported)
        report(m_done, true); // the last step the throttle left out
}

void PythonProgress::report(uint64_t done, bool force)
{
    if (m_cancelled.load())
        return;
    const auto now = std::chrono::steady_clock::now();
    if (!force && now - m_last < kInterval)
        return;
    m_last = now;
    m_reported = done;
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) {
        m_error.emplace();
        m_cancelled = true;
        return;
    }
    if (m_callback.is_none())
        return;
    try {
        m_callback(m_label, done, m_total);
    } catch (py::error_already_set& e) {
        m_error.emplace(std::move(e));
        m_cancelled = true;
    }
}

void PythonProgress::raisePending()
{
    if (!m_error)
        return;
    py::error_already_set error = std::move(*m_error);
    m_error.reset();
    throw error;
}

} // namespace tgraph::python
