// SPDX-License-Identifier: Apache-2.0
#include "widgets/common/windowplacement.h"

#include <QEvent>
#include <QGuiApplication>
#include <QScreen>
#include <QWidget>

namespace tgraph::widgets {

namespace WindowPlacement {

namespace {

// The title bar and borders around a window's client area; zero until the window has a frame.
QMargins frameMarginsOf(const QWidget* window)
{
    const QRect frame = window->frameGeometry();
    const QRect inner = window->geometry();
    return { inner.left() - frame.left(), inner.top() - frame.top(), frame.right() - inner.right(),
        frame.bottom() - inner.bottom() };
}

QScreen* screenOf(const QWidget* window, const QWidget* anchorWindow)
{
    QScreen* screen = anchorWindow ? anchorWindow->screen() : window->screen();
    return screen ? screen : QGuiApplication::primaryScreen();
}

// Moves `window` so that its frame is `frame`, shrinking its client area to fit.
void applyFrame(
    QWidget* window, const QMargins& margins, const QSize& wanted, const QRect& anchor, const QRect& available)
{
    const QRect frame = placedFrame(wanted.grownBy(margins), anchor, available);
    const QSize inner = frame.size().shrunkBy(margins);
    if (inner != window->size())
        window->resize(inner); // within its minimum and maximum sizes
    // The size it took (a minimum size larger than the screen wins), placed again.
    window->move(placedFrame(window->size().grownBy(margins), anchor, available).topLeft());
}

class Placer : public QObject
{
public:
    explicit Placer(QWidget* window)
        : QObject(window)
        , m_window(window)
    { }

    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (watched == m_window && event->type() == QEvent::Show && !event->spontaneous()) {
            if (m_placed) {
                keepOnScreen(m_window);
            } else {
                place(m_window);
                m_placed = true;
            }
        }
        return false;
    }

private:
    QWidget* m_window;
    bool m_placed = false;
};

} // namespace

QRect placedFrame(const QSize& frame, const QRect& anchor, const QRect& available)
{
    QRect r(QPoint(0, 0), frame.boundedTo(available.size()).expandedTo(QSize(1, 1)));
    r.moveCenter(anchor.isEmpty() ? available.center() : anchor.center());
    if (r.right() > available.right())
        r.moveRight(available.right());
    if (r.bottom() > available.bottom())
        r.moveBottom(available.bottom());
    // Last: a frame larger than the screen keeps its title bar and left edge on it.
    if (r.left() < available.left())
        r.moveLeft(available.left());
    if (r.top() < available.top())
        r.moveTop(available.top());
    return r;
}

void place(QWidget* window, const QWidget* anchor)
{
    if (!window)
        return;
    const QWidget* anchorWindow = anchor ? anchor->window()
        : window->parentWidget()         ? window->parentWidget()->window()
                                         : nullptr;
    if (anchorWindow == window)
        anchorWindow = nullptr;
    const QScreen* screen = screenOf(window, anchorWindow);
    if (!screen)
        return;
    QMargins margins = frameMarginsOf(window);
    if (margins.isNull() && anchorWindow)
        margins = frameMarginsOf(anchorWindow);
    const QRect anchorFrame = anchorWindow && anchorWindow->isVisible() ? anchorWindow->frameGeometry() : QRect();
    applyFrame(window, margins, window->size(), anchorFrame, screen->availableGeometry());
}

void keepOnScreen(QWidget* window)
{
    if (!window)
        return;
    const QScreen* screen = screenOf(window, nullptr);
    if (!screen)
        return;
    const QRect available = screen->availableGeometry();
    const QRect frame = window->frameGeometry();
    if (available.contains(frame))
        return;
    // Centred on itself, then moved inside: the smallest move that brings it back.
    applyFrame(window, frameMarginsOf(window), window->size(), frame, available);
}

void placeWhenShown(QWidget* window)
{
    if (window)
        window->installEventFilter(new Placer(window));
}

} // namespace WindowPlacement

} // namespace tgraph::widgets
