// SPDX-License-Identifier: Apache-2.0
#include "terminalprogress.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <unistd.h>

namespace tgraph::cli {

namespace {
std::atomic<bool> g_interrupted { false };

extern "C" void onInterrupt(int)
{
    if (g_interrupted.exchange(true))
        _exit(130); // second Ctrl-C: give up immediately
}
} // namespace

void installInterruptHandler()
{
    struct sigaction sa
    { };
    sa.sa_handler = onInterrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

bool interruptRequested() { return g_interrupted.load(); }

TerminalProgress::TerminalProgress()
    : m_tty(::isatty(STDERR_FILENO) == 1)
{ }

TerminalProgress::~TerminalProgress() { clear(); }

void TerminalProgress::begin(std::string_view label, uint64_t total)
{
    // Nested begin() calls (a file load inside a command) keep the outermost bar.
    if (m_depth++ > 0)
        return;
    m_label = std::string(label);
    m_total = total;
    m_done = 0;
    m_start = std::chrono::steady_clock::now();
    m_lastDraw = {};
}

void TerminalProgress::update(uint64_t done)
{
    if (m_depth > 1)
        return;
    m_done = done;
    draw(false);
}

void TerminalProgress::end()
{
    if (m_depth > 0 && --m_depth == 0)
        clear();
}

bool TerminalProgress::isCancelled() const { return g_interrupted.load(); }

void TerminalProgress::draw(bool force)
{
    if (!m_tty)
        return;
    const auto now = std::chrono::steady_clock::now();
    // Only after 300 ms of work, then at most 10 times a second.
    if (!force && (now - m_start < std::chrono::milliseconds(300) || now - m_lastDraw < std::chrono::milliseconds(100)))
        return;
    m_lastDraw = now;
    const double fraction = m_total ? std::min(1.0, double(m_done) / double(m_total)) : 0.0;
    constexpr int kWidth = 30;
    const int filled = int(fraction * kWidth);
    std::string bar(size_t(filled), '#');
    bar.append(size_t(kWidth - filled), '.');
    std::string label = m_label.size() > 50 ? "..." + m_label.substr(m_label.size() - 47) : m_label;
    std::fprintf(stderr, "\r\033[K[%s] %3d%% %s", bar.c_str(), int(fraction * 100), label.c_str());
    std::fflush(stderr);
    m_drawn = true;
}

void TerminalProgress::clear()
{
    if (m_drawn) {
        std::fprintf(stderr, "\r\033[K");
        std::fflush(stderr);
        m_drawn = false;
    }
}

} // namespace tgraph::cli
