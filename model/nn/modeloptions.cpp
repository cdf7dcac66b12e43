// SPDX-License-Identifier: Apache-2.0
#include "model/nn/modeloptions.h"

namespace tgraph::model {

const char* modelFamilyName(ModelFamily family)
{
    switch (family) {
    case ModelFamily::TGraph:
        return "tgraph";
    case ModelFamily::TpuGraphsBaseline:
        return "tpugraphs-baseline";
    case ModelFamily::Kaufman:
        return "kaufman";
    case ModelFamily::Tpgnn:
        return "tpgnn";
    }
    return "?";
}

bool parseModelFamily(const std::string& text, ModelFamily* family)
{
    for (ModelFamily f :
        { ModelFamily::TGraph, ModelFamily::TpuGraphsBaseline, ModelFamily::Kaufman, ModelFamily::Tpgnn })
        if (text == modelFamilyName(f)) {
            *family = f;
            return true;
        }
    return false;
}

int64_t defaultHidden(ModelFamily family)
{
    switch (family) {
    case ModelFamily::TGraph:
        return 256;
    case ModelFamily::TpuGraphsBaseline:
        return 32;
    case ModelFamily::Kaufman:
    case ModelFamily::Tpgnn:
        return 128;
    }
    return 256;
}

const char* nodeReductionName(NodeReduction reduction)
{
    switch (reduction) {
    case NodeReduction::MeanMax:
        return "mean-max";
    case NodeReduction::PerNode:
        return "per-node";
    case NodeReduction::Lstm:
        return "lstm";
    case NodeReduction::Transformer:
        return "transformer";
    }
    return "?";
}

bool parseNodeReduction(const std::string& text, NodeReduction* reduction)
{
    for (NodeReduction r :
        { NodeReduction::MeanMax, NodeReduction::PerNode, NodeReduction::Lstm, NodeReduction::Transformer })
        if (text == nodeReductionName(r)) {
            *reduction = r;
            return true;
        }
    return false;
}

std::string describe(const ModelOptions& options)
{
    if (options.family != ModelFamily::TGraph) {
        std::string text = std::string(modelFamilyName(options.family)) + ", hidden " + std::to_string(options.hidden);
        if (options.family == ModelFamily::Kaufman)
            text += std::string(", reduction ") + nodeReductionName(options.reduction);
        return text + ", op table " + std::to_string(options.opTableSize);
    }
    std::string text = "hidden " + std::to_string(options.hidden) + ", " + std::to_string(options.blocks)
        + " blocks, cross-attn " + (options.useCrossAttn ? "on" : "off") + ", op table "
        + std::to_string(options.opTableSize);
    if (options.residualAfterActivation)
        text += ", residual after activation (paper)";
    if (options.bidirectionalEdges)
        text += ", both edge directions (paper)";
    if (options.simInputs)
        text += ", simulator inputs";
    return text;
}

} // namespace tgraph::model
