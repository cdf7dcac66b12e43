// SPDX-License-Identifier: Apache-2.0
#include "widgets/analysis/attributionoverlay.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tgraph::widgets {

namespace AttributionOverlay {

NodeOverlay make(const tgraph::Attribution& attribution, int64_t nodeCount, Quantity quantity)
{
    NodeOverlay overlay;
    overlay.diverging = true;
    overlay.values.assign(size_t(std::max<int64_t>(nodeCount, 0)), std::numeric_limits<float>::quiet_NaN());
    double reference = 0; // share differences: the largest share they are taken of
    for (const tgraph::NodeAttribution& n : attribution.nodes) {
        if (n.fileNode < 0 || n.fileNode >= nodeCount)
            continue;
        const double v = quantity == Quantity::ShareDifference ? n.difference() : -n.effect();
        if (std::isfinite(v))
            overlay.values[size_t(n.fileNode)] = float(v);
        if (quantity == Quantity::ShareDifference && std::isfinite(n.shareA) && std::isfinite(n.shareB))
            reference = std::max({ reference, std::abs(n.shareA), std::abs(n.shareB) });
    }
    overlay.reference = float(reference);
    overlay.name = quantity == Quantity::ShareDifference
        ? QCoreApplication::translate("AttributionOverlay", "share A − B (blue: favours A)")
        : QCoreApplication::translate("AttributionOverlay", "−effect (blue: A's layout faster)");
    overlay.updateRange();
    return overlay;
}

} // namespace AttributionOverlay

} // namespace tgraph::widgets
