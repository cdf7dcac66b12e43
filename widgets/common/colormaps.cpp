// SPDX-License-Identifier: Apache-2.0
#include "widgets/common/colormaps.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace tgraph::widgets {

namespace {

template <size_t N> QColor interpolate(const std::array<QColor, N>& stops, double t)
{
    t = std::clamp(std::isnan(t) ? 0.0 : t, 0.0, 1.0) * double(N - 1);
    const auto k = std::min(size_t(t), N - 2);
    const double f = t - double(k);
    const QColor& a = stops[k];
    const QColor& b = stops[k + 1];
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * f),
        float(a.greenF() + (b.greenF() - a.greenF()) * f), float(a.blueF() + (b.blueF() - a.blueF()) * f));
}

} // namespace

namespace ColorMaps {

QColor viridis(double t)
{
    static const std::array<QColor, 9> stops { QColor(0x44, 0x01, 0x54), QColor(0x47, 0x2c, 0x7a),
        QColor(0x3b, 0x51, 0x8b), QColor(0x2c, 0x71, 0x8e), QColor(0x21, 0x90, 0x8d), QColor(0x27, 0xad, 0x81),
        QColor(0x5c, 0xc8, 0x63), QColor(0xaa, 0xdc, 0x32), QColor(0xfd, 0xe7, 0x25) };
    return interpolate(stops, t);
}

QColor diverging(double t)
{
    static const std::array<QColor, 7> stops { QColor(0x21, 0x66, 0xac), QColor(0x67, 0xa9, 0xcf),
        QColor(0xd1, 0xe5, 0xf0), QColor(0xf7, 0xf7, 0xf7), QColor(0xfd, 0xdb, 0xc7), QColor(0xef, 0x8a, 0x62),
        QColor(0xb2, 0x18, 0x2b) };
    if (std::isnan(t))
        t = 0;
    return interpolate(stops, (std::clamp(t, -1.0, 1.0) + 1.0) / 2.0);
}

std::pair<double, double> sequentialRange(double lo, double hi)
{
    if (!(hi > lo))
        return { lo - 0.5, lo + 0.5 };
    const double minimum = kMinimumRelativeSpan * std::max(std::abs(lo), std::abs(hi));
    if (hi - lo >= minimum)
        return { lo, hi };
    const double centre = lo / 2 + hi / 2;
    return { centre - minimum / 2, centre + minimum / 2 };
}

double divergingHalfRange(double largest, double reference)
{
    const double m = std::max(std::abs(largest), kDivergingNoise * std::abs(reference));
    return m > 0 && std::isfinite(m) ? m : 1.0;
}

} // namespace ColorMaps

} // namespace tgraph::widgets
