// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QMargins>
#include <QRect>
#include <QSize>

class QWidget;

namespace tgraph::widgets {

// Where the studio's own windows and dialogs open (docs/studio.md §9): on the screen of their
// parent, centred on the parent's window, moved inside the screen's available geometry (no title
// bar above its top, no edge past a task bar) and never larger than it. The window manager may
// still move a window; this is where the studio asks for it.
namespace WindowPlacement {

// The frame (title bar and borders included) of a window whose frame is `frame` large: centred
// on `anchor` (an empty rectangle: on `available`), shrunk to `available` where larger, then moved
// inside `available`. Pure geometry, tested on its own.
QRect placedFrame(const QSize& frame, const QRect& anchor, const QRect& available);

// Moves, and shrinks when larger than the screen, `window` (a top-level widget) as placedFrame()
// says, on the screen of `anchor`'s window (of the window's parent when `anchor` is null; the
// primary screen without either). A window not yet shown has no frame yet: its title bar and
// borders are taken to be those of the anchor's window.
void place(QWidget* window, const QWidget* anchor = nullptr);

// Keeps `window` where it is when it lies inside the available geometry of its screen, else moves
// (and shrinks) it inside: for a window shown again after the user moved it.
void keepOnScreen(QWidget* window);

// Places `window` when it is first shown (place(), centred on its parent's window) and keeps it on
// its screen when shown again (keepOnScreen()), whoever shows it: an event filter owned by the
// window. Called once from the constructor of each of the studio's windows and dialogs.
void placeWhenShown(QWidget* window);

} // namespace WindowPlacement

} // namespace tgraph::widgets
