// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

namespace tgraph::model {

// LibTorch version the binary was built against ("1.13.0").
std::string torchVersion();

// Call once at start-up, before any tensor: installs the caching CPU allocator
// (cachingcpuallocator.h; TGRAPH_TORCH_CACHE=0 keeps LibTorch's own) and sets the intra-op
// threads, as LibTorch starts with one on this kind of VM (docs/build.md §4). `threads` <= 0
// means std::thread::hardware_concurrency(). The same count goes to OpenBLAS's own thread pool when
// OpenBLAS is the BLAS in use (it ignores LibTorch's setting). Returns the count in use.
int initTorchRuntime(int threads = 0);

// Threads of OpenBLAS's pool, 0 when the BLAS in use is not OpenBLAS.
int blasThreads();

// The BLAS LibTorch's products run on, as loaded in this process: "OpenBLAS (OpenMP)" (LibTorch's
// threads; the build links it when libopenblas0-openmp is installed, docs/build.md §4), "OpenBLAS
// (pthreads)" (a pool of its own), "OpenBLAS (serial)", or "not OpenBLAS".
std::string blasName();

} // namespace tgraph::model
