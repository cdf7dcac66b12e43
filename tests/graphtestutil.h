// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the graph-view tests share (tests/widgets/tst_graphwidgets.cpp and the window cases of
// tests/app/tst_studio.cpp): generated HLO modules, waiting for a pane's layout, colour
// comparison, and a meter of GUI-thread stalls.

#include "core/synth/hlogen.h"
#include "widgets/graph/graphpane.h"
#include "widgets/graph/graphscene.h"

#include <QColor>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QObject>
#include <QString>
#include <QTimer>
#include <QtTest>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

namespace graphtest {

constexpr int kLayoutTimeoutMs = 60000;

// `dir`/FAMILY_SIZE.hlo: an HLO module of `tgraph gen-hlo`'s generator, written once.
inline QString generatedHlo(const QDir& dir, const std::string& family, int64_t size)
{
    const QString path = dir.filePath(QStringLiteral("%1_%2.hlo").arg(QString::fromStdString(family)).arg(size));
    if (!QFileInfo::exists(path)) {
        tgraph::HloGenSpec spec;
        spec.family = family;
        spec.instructions = size;
        std::ofstream(path.toStdString()) << tgraph::generateHloText(spec);
    }
    return path;
}

inline bool waitForLayout(tgraph::widgets::GraphPane* pane)
{
    return QTest::qWaitFor(
        [pane] { return !pane->isLayoutPending() && pane->scene()->viewLayout(); }, kLayoutTimeoutMs);
}

inline bool near(const QColor& a, const QColor& b, int tolerance = 40)
{
    return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue()) <= tolerance;
}

// Measures the longest gap between 10 ms timer ticks on the GUI thread: how long it was blocked.
class StallMeter : public QObject
{
public:
    StallMeter()
    {
        m_clock.start();
        m_timer.setInterval(10);
        QObject::connect(
            &m_timer, &QTimer::timeout, this, [this] { m_longest = std::max(m_longest, m_clock.restart()); });
        m_timer.start();
    }
    qint64 longestMs() const { return m_longest; }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_longest = 0;
};

} // namespace graphtest
