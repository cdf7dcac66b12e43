// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QColor>
#include <QString>
#include <QWidget>

#include <cmath>
#include <cstdint>
#include <vector>

namespace tgraph {
struct GraphDocument;
}

// A value per node (a feature column, later attribution scores) that the graph views show as
// node colours with a colour bar. Shared by the graph view and the analysis views.
struct NodeOverlay
{
    QString name;
    std::vector<float> values; // per full-graph node id; NaN = no value
    float minimum = 0;
    float maximum = 0;
    // Signed values on the diverging map (blue < 0 < red, white at 0), over a range symmetric
    // about 0 (updateRange makes it so).
    bool diverging = false;

    bool isEmpty() const { return values.empty(); }
    bool hasValue(int64_t node) const
    {
        return node >= 0 && size_t(node) < values.size() && !std::isnan(values[size_t(node)]);
    }
    // The colour of `node`'s value on the colour map; invalid QColor when it has none.
    QColor colorOf(int64_t node) const;
    // The colour map: t in [0, 1] from dark blue through teal to yellow.
    static QColor colorAt(double t);
    // Sets minimum and maximum from the values (-m..m with m the largest |value| when diverging).
    void updateRange();

    // Column `column` of the document's node features.
    static NodeOverlay featureColumn(const tgraph::GraphDocument& document, int column);
};

// The colour bar of an overlay: the colour map with its name and range.
class OverlayColorBar : public QWidget
{
    Q_OBJECT
public:
    explicit OverlayColorBar(QWidget* parent = nullptr);
    void setOverlay(const QString& name, float minimum, float maximum, bool diverging = false);
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QString m_name;
    float m_minimum = 0;
    float m_maximum = 0;
    bool m_diverging = false;
};
