// SPDX-License-Identifier: Apache-2.0
#include "model/train/gloocommunicator.h"

#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/torch.h>

#include <cstdlib>
#include <random>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

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

std::string hex(const unsigned char* bytes, size_t n)
{
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (size_t i = 0; i < n; ++i) {
        out += digits[bytes[i] >> 4];
        out += digits[bytes[i] & 15];
    }
    return out;
}

// What worker `rank` presents for `nonce`: HMAC-SHA256 keyed by the token.
std::string proof(const std::string& token, const std::string& nonce, int rank)
{
    const std::string message = "tgraph-worker/" + nonce + "/" + std::to_string(rank);
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (!HMAC(EVP_sha256(), token.data(), int(token.size()), reinterpret_cast<const unsigned char*>(message.data()),
            message.size(), digest, &length))
        throw std::runtime_error("HMAC-SHA256 failed");
    return hex(digest, length);
}

bool sameProof(const std::string& a, const std::string& b)
{
    return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string storeText(c10d::Store& store, const std::string& key)
{
    const std::vector<uint8_t> v = store.get(key);
    return std::string(v.begin(), v.end());
}

void storeSet(c10d::Store& store, const std::string& key, const std::string& value)
{
    store.set(key, std::vector<uint8_t>(value.begin(), value.end()));
}

// Every worker proves to rank 0 that it holds the token and rank 0 proves it back, before any
// connection between workers or gradient (docs/model.md, "Data-parallel workers").
void checkToken(c10d::Store& store, const GlooOptions& o)
{
    if (o.worldSize < 2)
        return;
    const std::string hint = " (the workers must share one token: --token-file or TGRAPH_WORKER_TOKEN)";
    if (o.rank == 0) {
        std::random_device random;
        unsigned char bytes[16];
        for (unsigned char& b : bytes)
            b = static_cast<unsigned char>(random());
        const std::string nonce = hex(bytes, sizeof bytes);
        storeSet(store, "tgraph/auth/nonce", nonce);
        storeSet(store, "tgraph/auth/proof/0", proof(o.token, nonce, 0));
        std::string refused;
        for (int r = 1; r < o.worldSize; ++r)
            if (!sameProof(storeText(store, "tgraph/auth/proof/" + std::to_string(r)), proof(o.token, nonce, r)))
                refused += (refused.empty() ? "" : ", ") + std::to_string(r);
        storeSet(store, "tgraph/auth/verdict", refused.empty() ? "ok" : "refused " + refused);
        if (!refused.empty())
            throw WorkerLost("worker " + refused + " presented a wrong token; the run does not start" + hint);
        return;
    }
    const std::string nonce = storeText(store, "tgraph/auth/nonce");
    storeSet(store, "tgraph/auth/proof/" + std::to_string(o.rank), proof(o.token, nonce, o.rank));
    if (!sameProof(storeText(store, "tgraph/auth/proof/0"), proof(o.token, nonce, 0)))
        throw WorkerLost("rank 0 at " + where(o) + " presented a wrong token; this worker does not join" + hint);
    const std::string verdict = storeText(store, "tgraph/auth/verdict");
    if (verdict != "ok")
        throw WorkerLost("rank 0 at " + where(o) + " " + verdict.substr(0, 7) + " worker "
            + verdict.substr(std::min<size_t>(verdict.size(), 8)) + ": a wrong token" + hint);
}

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
        checkToken(*m_state->store, options);
    } catch (const WorkerLost&) {
        throw;
    } catch (const std::exception& e) {
        throw WorkerLost("worker " + std::to_string(options.rank) + " could not check the workers' token at "
            + where(options) + " within " + seconds(options.timeout) + ": " + messageOf(e));
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
