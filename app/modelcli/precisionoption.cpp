// SPDX-License-Identifier: Apache-2.0
#include "precisionoption.h"

#include "model/nn/products.h"

namespace tgraph::cli {

std::string applyPrecision(tgraph::Precision requested)
{
    model::applyPrecision(requested);
    return model::precisionSummary(requested);
}

std::string applyPrecisionOption(const ArgParser& p)
{
    return applyPrecision(precisionOption(p));
}

} // namespace tgraph::cli
