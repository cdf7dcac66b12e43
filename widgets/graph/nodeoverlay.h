// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QColor>
#include <QRect>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace tgraph {
struct GraphDocument;
}

namespace tgraph::widgets {

// A value per node (a feature column, later attribution scores) that the graph views show as
// node colours with a colour bar. Shared by the graph view and the analysis views.
struct NodeOverlay
{
    QString name;
    std::vector<float> values; // per full-graph node id; NaN = no value
    // The values' range (updateRange); the colours span colourRange(), which can be wider.
    float minimum = 0;
    float maximum = 0;
    // Signed values on the diverging map (blue < 0 < red, white at 0), over a range symmetric
    // about 0 (updateRange makes it so).
    bool diverging = false;
    // Diverging: the magnitude of the values the differences were taken of (0 = not known); a
    // difference of rounding noise against it is painted pale (ColorMaps::divergingHalfRange).
    float reference = 0;

    bool isEmpty() const { return values.empty(); }
    bool hasValue(int64_t node) const
    {
        return node >= 0 && size_t(node) < values.size() && !std::isnan(values[size_t(node)]);
    }
    // The colour of `node`'s value on the colour map; invalid QColor when it has none.
    QColor colorOf(int64_t node) const;
    // The colour of any value on the colour map (a collapsed group's mean); invalid for NaN.
    QColor colorOfValue(float value) const;
    // The range the colours span: minimum..maximum widened to ColorMaps::kMinimumRelativeSpan of
    // the values' magnitude (sequential), or -m..m with m at least ColorMaps::kDivergingNoise of
    // `reference`.
    std::pair<double, double> colourRange() const;
    // Every value the same (NaN aside): the colour bar says "all v" instead of a range.
    bool allEqual() const;
    // Some node has no value: it is painted kNoValueColor, not in its opcode's colour.
    bool hasMissingValues() const;
    // The colour map: t in [0, 1] from dark blue through teal to yellow.
    static QColor colorAt(double t);
    // Nodes without a value while an overlay is shown: a light grey no colour of either map has,
    // so that they are not read as a value or as an opcode family.
    static QColor noValueColor() { return QColor(0xdc, 0xdc, 0xdc); }
    // Sets minimum and maximum from the values (-m..m with m the largest |value| when diverging).
    void updateRange();

    // Column `column` of the document's node features.
    static NodeOverlay featureColumn(const tgraph::GraphDocument& document, int column);
};

// The colour bar of an overlay: its name (elided, whole in the tooltip), the colour map between
// its range's labels (with the digits that tell them apart, or "all v"), and a "no value" swatch
// when some nodes have none. Its minimum size keeps every label whole.
class OverlayColorBar : public QWidget
{
    Q_OBJECT
public:
    explicit OverlayColorBar(QWidget* parent = nullptr);
    void setOverlay(const NodeOverlay& overlay);
    // The range's labels as painted: { low, high }, or { "all v" }.
    QStringList labels() const { return m_labels; }
    bool showsMissing() const { return m_missing; }
    // Where the parts are painted at the current size (tests read them back).
    struct Parts
    {
        QRect name, low, bar, high, missing;
    };
    Parts parts() const;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    Parts partsFor(int width) const;

    QString m_name;
    QStringList m_labels;
    std::pair<double, double> m_range { 0.0, 1.0 };
    bool m_diverging = false;
    bool m_allEqual = false;
    bool m_missing = false;
    QColor m_equalColor;
};

} // namespace tgraph::widgets
