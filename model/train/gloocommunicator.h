// SPDX-License-Identifier: Apache-2.0
#pragma once

// Data-parallel workers over LibTorch's own c10d: a TCPStore served by rank 0 at the master
// address (the rendezvous and the workers' board) and a ProcessGroupGloo for the all-reduces.
// Tensors are summed in buckets of at most `bucketBytes` (flattened copies, one collective each),
// as DistributedDataParallel does, so a model of many small tensors costs a few collectives.
// Every store operation and collective has `timeout`: a worker that dies closes its sockets (the
// others fail at once), one that hangs is given up after the timeout; both raise WorkerLost.

#include "model/train/communicator.h"

#include <chrono>
#include <memory>
#include <string>

namespace tgraph::model {

struct GlooOptions
{
    std::string masterHost = "127.0.0.1";
    int masterPort = 29500;
    int rank = 0;
    int worldSize = 1;
    std::chrono::milliseconds timeout { 300000 };
    int64_t bucketBytes = 25 << 20;
    // Network interface of this worker's Gloo device ("" = GLOO_SOCKET_IFNAME, else the address
    // the master is reached from: loopback for a loopback master, the host's own name otherwise).
    std::string interface;
    // Non-empty: the workers meet through this file (c10d FileStore, one machine or a shared file
    // system) instead of a TCP store served by rank 0, so no store socket listens at all; a local
    // launch uses it (docs/model.md, "Data-parallel workers").
    std::string rendezvousFile;
    // The workers' shared secret: before the Gloo group forms, every worker proves it holds the same
    // token (HMAC-SHA256 of a nonce rank 0 draws) and rank 0 proves it back; a mismatch ends the
    // rendezvous with WorkerLost naming the worker. Empty is a token too (the default for all).
    std::string token;
};

class GlooCommunicator final : public Communicator
{
public:
    // Rendezvous: blocks until all `worldSize` workers joined (or throws WorkerLost after the
    // timeout, naming the master address).
    explicit GlooCommunicator(const GlooOptions& options);
    ~GlooCommunicator() override;

    int rank() const override { return m_options.rank; }
    int worldSize() const override { return m_options.worldSize; }
    void allReduceSum(std::vector<torch::Tensor>& tensors) override;
    void publish(const std::string& key, const std::string& value) override;
    std::string read(const std::string& key) override;

private:
    struct State;
    GlooOptions m_options;
    std::unique_ptr<State> m_state;
};

} // namespace tgraph::model
