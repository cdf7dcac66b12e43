// SPDX-License-Identifier: Apache-2.0
#pragma once

// What data-parallel training needs from its workers' transport (the Trainer's only view of it):
// a rank, a world size, an in-place sum over workers, and a small key-value board for the
// workers' identities. GlooCommunicator (gloocommunicator.h) implements it with LibTorch's c10d
// (TCPStore + ProcessGroupGloo); tests and a single process need none.

#include <torch/types.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace tgraph::model {

// A collective or the store failed: a worker ended, stopped responding within the timeout, or
// could not be reached. The run cannot continue (its state on the other workers is unknown).
class WorkerLost : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

class Communicator
{
public:
    virtual ~Communicator() = default;
    virtual int rank() const = 0;
    virtual int worldSize() const = 0;
    // Sums each tensor (contiguous CPU float32 or float64) over all workers, in place; every
    // worker passes tensors of the same shapes in the same order. Throws WorkerLost.
    virtual void allReduceSum(std::vector<torch::Tensor>& tensors) = 0;
    // This worker's identity (e.g. "pid 123 on host"), readable by every worker. Throws WorkerLost.
    virtual void publish(const std::string& key, const std::string& value) = 0;
    virtual std::string read(const std::string& key) = 0;
};

} // namespace tgraph::model
