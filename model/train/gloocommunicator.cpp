// SPDX-License-Identifier: Apache-2.0
#include "model/train/gloocommunicator.h"

#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/torch.h>

#include <cstdlib>

namespace tgraph::model {

struct GlooCommunicator::State
{
    c10::intrusive_ptr<c10d::Store> store;
    c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
};

namespace {

// c10::Error's what() carries a C++ backtrace: users get the message alone.
std::string messageOf(const std::exception& e)
{
    if (const auto* c10 = dynamic_cast<const c10::Error*>(&e))
        return c10->what_without_backtrace();
    return e.what();
}

bool isLoopback(const std::string& host) { return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0; }

std::string where(const GlooOptions& o)
{
    return o.rendezvousFile.empty() ? o.masterHost + ":" + std::to_string(o.masterPort)
                                    : "the rendezvous file " + o.rendezvousFile;
}

std::string seconds(std::chrono::milliseconds t) { return std::to_string(t.count() / 1000) + " s"; }

} // namespace

GlooCommunicator::GlooCommunicator(const GlooOptions& options)
    : m_options(options)
    , m_state(std::make_unique<State>())
{
    if (options.worldSize < 1 || options.rank < 0 || options.rank >= options.worldSize)
        throw std::invalid_argument("GlooCommunicator: rank must be in 0..worldSize-1");
    if (options.masterPort < 1 || options.masterPort > 65535)
        throw std::invalid_argument("GlooCommunicator: port must be in 1..65535");
    try {
        if (!options.rendezvousFile.empty()) {
            // No listening socket: LibTorch 1.13's TCPStore server binds every interface.
            auto store = c10::make_intrusive<c10d::FileStore>(options.rendezvousFile, options.worldSize);
            store->setTimeout(options.timeout);
            m_state->store = store;
        } else {
            c10d::TCPStoreOptions storeOptions;
            storeOptions.port = uint16_t(options.masterPort);
            storeOptions.isServer = options.rank == 0;
            storeOptions.numWorkers = size_t(options.worldSize);
            storeOptions.waitWorkers = true;
            storeOptions.timeout = options.timeout;
            m_state->store = c10::make_intrusive<c10d::TCPStore>(options.masterHost, storeOptions);
        }
    } catch (const std::exception& e) {
        throw WorkerLost("worker " + std::to_string(options.rank) + " of " + std::to_string(options.worldSize)
            + " could not meet the others at " + where(options) + " within " + seconds(options.timeout) + ": "
            + messageOf(e));
    }
    try {
        auto groupOptions = c10d::ProcessGroupGloo::Options::create(options.timeout);
        std::string interface = options.interface;
        if (interface.empty())
            if (const char* env = std::getenv("GLOO_SOCKET_IFNAME"))
                interface = env;
        if (!interface.empty())
            groupOptions->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(interface));
        else if (isLoopback(options.masterHost))
            groupOptions->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
        else
            groupOptions->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
        groupOptions->threads = 2;
        m_state->group = c10::make_intrusive<c10d::ProcessGroupGloo>(
            m_state->store, options.rank, options.worldSize, groupOptions);
    } catch (const std::exception& e) {
        throw WorkerLost("worker " + std::to_string(options.rank) + " could not connect to the other workers ("
            + where(options) + "): " + messageOf(e));
    }
}

GlooCommunicator::~GlooCommunicator() = default;

void GlooCommunicator::allReduceSum(std::vector<torch::Tensor>& tensors)
{
    if (m_options.worldSize == 1 || tensors.empty())
        return;
    // Buckets of consecutive tensors of one dtype, each at most bucketBytes (a larger tensor alone).
    size_t begin = 0;
    try {
        while (begin < tensors.size()) {
            size_t end = begin + 1;
            int64_t bytes = tensors[begin].nbytes();
            while (end < tensors.size() && tensors[end].scalar_type() == tensors[begin].scalar_type()
                && bytes + int64_t(tensors[end].nbytes()) <= m_options.bucketBytes) {
                bytes += int64_t(tensors[end].nbytes());
                ++end;
            }
            std::vector<at::Tensor> flat;
            if (end - begin == 1 && tensors[begin].is_contiguous()) {
                flat.push_back(tensors[begin]);
            } else {
                std::vector<torch::Tensor> parts;
                for (size_t i = begin; i < end; ++i)
                    parts.push_back(tensors[i].reshape({ -1 }));
                flat.push_back(torch::cat(parts));
            }
            m_state->group->allreduce(flat)->wait(m_options.timeout);
            if (flat.front().data_ptr() != tensors[begin].data_ptr()) {
                int64_t offset = 0;
                for (size_t i = begin; i < end; ++i) {
                    const int64_t n = tensors[i].numel();
                    tensors[i].copy_(flat.front().narrow(0, offset, n).view(tensors[i].sizes()));
                    offset += n;
                }
            }
            begin = end;
        }
    } catch (const WorkerLost&) {
        throw;
    } catch (const std::exception& e) {
        throw WorkerLost("a worker ended or did not answer within " + seconds(m_options.timeout)
            + " (all-reduce on worker " + std::to_string(m_options.rank) + "): " + messageOf(e));
    }
}

void GlooCommunicator::publish(const std::string& key, const std::string& value)
{
    try {
        m_state->store->set(key, std::vector<uint8_t>(value.begin(), value.end()));
    } catch (const std::exception& e) {
        throw WorkerLost("the workers' store at " + where(m_options) + " is gone: " + messageOf(e));
    }
}

std::string GlooCommunicator::read(const std::string& key)
{
    try {
        const std::vector<uint8_t> v = m_state->store->get(key);
        return std::string(v.begin(), v.end());
    } catch (const std::exception& e) {
        throw WorkerLost("the workers' store at " + where(m_options) + " did not give '" + key + "': " + messageOf(e));
    }
}

} // namespace tgraph::model
