// SPDX-License-Identifier: Apache-2.0
#include "model/nn/recompute.h"

namespace tgraph::model {

const char* recomputeModeName(RecomputeMode mode)
{
    switch (mode) {
    case RecomputeMode::On:
        return "on";
    case RecomputeMode::Off:
        return "off";
    case RecomputeMode::Auto:
        break;
    }
    return "auto";
}

bool parseRecomputeMode(const std::string& text, RecomputeMode* mode)
{
    for (const RecomputeMode m : { RecomputeMode::Auto, RecomputeMode::On, RecomputeMode::Off })
        if (text == recomputeModeName(m)) {
            *mode = m;
            return true;
        }
    return false;
}

bool recomputes(RecomputeMode mode, int64_t nodes, int64_t configs, int64_t hidden)
{
    if (mode != RecomputeMode::Auto)
        return mode == RecomputeMode::On;
    return nodes * configs * hidden * int64_t(sizeof(float)) >= kRecomputeAutoBytes;
}

} // namespace tgraph::model
