// SPDX-License-Identifier: Apache-2.0
#include "model/facade/runtime.h"

#include "model/nn/products.h"
#include "model/runtime/cachingcpuallocator.h"
#include "model/runtime/torchruntime.h"

namespace tgraph::facade {

int initRuntime(int threads, Precision precision)
{
    const int count = model::initTorchRuntime(threads);
    model::applyPrecision(precision);
    return count;
}

std::string productPrecision()
{
    if (!model::bf16Products())
        return "fp32";
    const CpuBf16Units units = cpuBf16Units();
    return std::string("bf16 (") + (units.any() ? describe(units) : "emulated: no bf16 units") + ")";
}

std::string applyPrecision(Precision precision)
{
    model::applyPrecision(precision);
    return productPrecision();
}

std::string runtimeVersion() { return model::torchVersion(); }

void releaseIdleMemory() { model::releaseIdleCpuBlocks(); }

} // namespace tgraph::facade
