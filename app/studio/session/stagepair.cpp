// SPDX-License-Identifier: Apache-2.0
#include "app/studio/session/stagepair.h"

#include <utility>

namespace tgraph::studio {

namespace {

bool inside(int i, size_t n) { return i >= 0 && size_t(i) < n; }

} // namespace

bool StagePair::isValid() const { return inside(a, stages.size()) && inside(b, stages.size()) && a != b; }

QString StagePair::pathA() const { return inside(a, stages.size()) ? stages[size_t(a)].path : QString(); }

QString StagePair::pathB() const { return inside(b, stages.size()) ? stages[size_t(b)].path : QString(); }

bool StagePair::canStep(int delta) const
{
    return isValid() && inside(a + delta, stages.size()) && inside(b + delta, stages.size());
}

StagePair StagePair::stepped(int delta) const
{
    StagePair next = *this;
    if (canStep(delta)) {
        next.a += delta;
        next.b += delta;
    }
    return next;
}

StagePair StagePair::swapped() const
{
    StagePair other = *this;
    std::swap(other.a, other.b);
    return other;
}

} // namespace tgraph::studio
