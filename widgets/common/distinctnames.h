// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <QStringList>

class QFontMetrics;

namespace tgraph::widgets {

// Shortens a list of names shown side by side (legends, tabs, table cells) so that they stay
// distinct: what all of them share is elided, what tells them apart is kept (docs/studio.md §9).
//
//   {"sweep-a / c0-s42", "sweep-a / c0-s43"}, 12 characters -> {"sweep…c0-s42", "sweep…c0-s43"}
//   {"ssd_mobilenet_tf.hlo", "graphsage_tf.hlo"}, 14        -> {"ssd_mobilenet…", "graphsage…"}
//
// Names are cut only between words (runs of letters and digits) and single other characters, so a
// number is never cut in two. Names that fit are returned whole; otherwise every name is shown as
// [shared head][its own part][shared tail], the shared parts elided with "…" the same way for all
// names, the own parts whole while they fit (cut at their end when even they do not). A single
// name, or names that are all equal, are elided in the middle. The caller shows each whole name
// in a tooltip.
namespace DistinctNames {

// At most `maxCharacters` characters each (at least 1).
QStringList shorten(const QStringList& names, int maxCharacters);
// At most `maxPixels` wide each in `metrics`' font.
QStringList shorten(const QStringList& names, const QFontMetrics& metrics, int maxPixels);

} // namespace DistinctNames

} // namespace tgraph::widgets
