// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/util/progress.h"

#include <chrono>
#include <string>

namespace tgraph::cli {

// A progress bar on stderr when it is a terminal (nothing otherwise), cancelled by Ctrl-C: the
// SIGINT handler installed by installInterruptHandler() makes isCancelled() true, so long work
// unwinds through tgraph::Cancelled and removes its temporary files.
class TerminalProgress final : public ProgressSink
{
public:
    TerminalProgress();
    ~TerminalProgress() override;

    void begin(std::string_view label, uint64_t total) override;
    void update(uint64_t done) override;
    void end() override;
    bool isCancelled() const override;

private:
    void draw(bool force);
    void clear();

    bool m_tty;
    int m_depth = 0;
    std::string m_label;
    uint64_t m_total = 0;
    uint64_t m_done = 0;
    std::chrono::steady_clock::time_point m_lastDraw;
    std::chrono::steady_clock::time_point m_start;
    bool m_drawn = false;
};

void installInterruptHandler();
bool interruptRequested();

} // namespace tgraph::cli
