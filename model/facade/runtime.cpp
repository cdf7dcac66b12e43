// SPDX-License-Identifier: Apache-2.0
#include "model/facade/runtime.h"

#include "model/runtime/cachingcpuallocator.h"
#include "model/runtime/torchruntime.h"

namespace tgraph::facade {

int initRuntime(int threads) { return model::initTorchRuntime(threads); }

std::string runtimeVersion() { return model::torchVersion(); }

void releaseIdleMemory() { model::releaseIdleCpuBlocks(); }

} // namespace tgraph::facade
