// SPDX-License-Identifier: Apache-2.0
#include "torchruntime.h"

#include <ATen/Parallel.h>
#include <torch/version.h>

#include <thread>

namespace tgraph::model {

std::string torchVersion() { return TORCH_VERSION; }

int initTorchThreads(int threads)
{
    if (threads <= 0)
        threads = int(std::max(1u, std::thread::hardware_concurrency()));
    at::set_num_threads(threads);
    return at::get_num_threads();
}

} // namespace tgraph::model
