// SPDX-License-Identifier: Apache-2.0
#include "modeloptions.h"

namespace tgraph::model {

std::string describe(const ModelOptions& options)
{
    std::string text = "hidden " + std::to_string(options.hidden) + ", " + std::to_string(options.blocks)
        + " blocks, cross-attn " + (options.useCrossAttn ? "on" : "off") + ", op table "
        + std::to_string(options.opTableSize);
    if (options.residualAfterActivation)
        text += ", residual after activation (paper)";
    if (options.bidirectionalEdges)
        text += ", both edge directions (paper)";
    return text;
}

} // namespace tgraph::model
