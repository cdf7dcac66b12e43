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

std::string productPrecision() { return model::bf16Products() ? "bf16 products" : "fp32 products"; }

std::string runtimeVersion() { return model::torchVersion(); }

void releaseIdleMemory() { model::releaseIdleCpuBlocks(); }

} // namespace tgraph::facade
