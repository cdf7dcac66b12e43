// SPDX-License-Identifier: Apache-2.0
#include "model/train/checkpoint.h"

#include "model/nn/weights.h"

#include "core/io/npz.h"
#include "core/util/error.h"
#include "core/util/json.h"

#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <random>
#include <set>
#include <sstream>

namespace tgraph::model {

namespace {

const std::string kOptimizerStep = "optimizer.step";
const std::string kExpAvg = "optimizer.exp_avg.";
const std::string kExpAvgSq = "optimizer.exp_avg_sq.";
const std::string kTotalSteps = "scheduler.total_steps";
const std::string kWarmupSteps = "scheduler.warmup_steps";
const std::string kRngTorch = "rng.torch";
const std::string kRngSampler = "rng.sampler";
const std::string kStep = "train.step";
const std::string kHparams = "train.hparams";
const std::string kBestTau = "train.best_tau";
const std::string kBestStep = "train.best_step";
const std::string kNonFiniteTotal = "train.nonfinite_total";
const std::string kNonFiniteRun = "train.nonfinite_run";
const std::string kDataFiles = "train.data_files";

NdArray<int64_t> int64Scalar(int64_t v) { return NdArray<int64_t>(std::vector<int64_t> {}, v); }
NdArray<double> doubleScalar(double v) { return NdArray<double>(std::vector<int64_t> {}, v); }

NdArray<uint8_t> bytesOf(const std::string& text)
{
    NdArray<uint8_t> a({ int64_t(text.size()) });
    std::copy(text.begin(), text.end(), a.data());
    return a;
}

NdArray<float> floatArray(const torch::Tensor& t)
{
    const auto c = t.detach().to(torch::kCPU, torch::kFloat32).contiguous();
    NdArray<float> a(std::vector<int64_t>(c.sizes().begin(), c.sizes().end()));
    std::copy_n(c.data_ptr<float>(), c.numel(), a.data());
    return a;
}

std::string dataFilesJson(const std::vector<DataFile>& files)
{
    Json list = Json::array();
    for (const DataFile& f : files) {
        Json& item = list.emplace_back();
        item["path"] = f.path;
        item["split"] = dataSplitName(f.split);
    }
    return jsonText(list, true);
}

torch::Tensor currentTorchRng() { return at::detail::getDefaultCPUGenerator().get_state(); }

std::string currentSamplerRng(uint64_t seed)
{
    std::ostringstream s;
    s << std::mt19937_64(seed);
    return s.str();
}

std::vector<std::pair<std::string, torch::Tensor>> namedParameters(const torch::nn::Module& m)
{
    std::vector<std::pair<std::string, torch::Tensor>> out;
    for (const auto& item : m.named_parameters())
        out.emplace_back(item.key(), item.value());
    return out;
}

// Reads and checks the training-state keys of an open checkpoint.
class StateReader
{
public:
    explicit StateReader(const std::string& path)
        : m_npz(path)
    {
        for (const std::string& key : m_npz.keys())
            m_keys.insert(key);
    }

    const std::string& path() const { return m_npz.path(); }
    bool contains(const std::string& key) const { return m_keys.count(key) > 0; }
    const std::set<std::string>& keys() const { return m_keys; }

    void require(const std::string& key)
    {
        if (!contains(key))
            throw InputError(path(), key, "missing (needed by a training checkpoint)");
        m_used.insert(key);
    }

    std::vector<int64_t> shape(const std::string& key) { return m_npz.header(key).shape; }

    int64_t integer(const std::string& key, int64_t min)
    {
        require(key);
        if (!shape(key).empty())
            throw InputError(path(), key, "shape " + shapeToString(shape(key)) + " should be () (a 0-d integer)");
        const int64_t v = m_npz.read<int64_t>(key)[0];
        if (v < min)
            throw InputError(path(), key, "value " + std::to_string(v) + " is below " + std::to_string(min));
        return v;
    }

    double real(const std::string& key)
    {
        require(key);
        if (!shape(key).empty())
            throw InputError(path(), key, "shape " + shapeToString(shape(key)) + " should be () (a 0-d float)");
        return m_npz.read<double>(key)[0];
    }

    std::string text(const std::string& key)
    {
        require(key);
        if (shape(key).size() != 1)
            throw InputError(path(), key, "shape " + shapeToString(shape(key)) + " should be (K,) bytes");
        const NdArray<uint8_t> bytes = m_npz.read<uint8_t>(key);
        return std::string(reinterpret_cast<const char*>(bytes.data()), size_t(bytes.size()));
    }

    torch::Tensor tensor(const std::string& key, const torch::Tensor& like, bool nonNegative)
    {
        require(key);
        const auto expected = std::vector<int64_t>(like.sizes().begin(), like.sizes().end());
        if (shape(key) != expected)
            throw InputError(path(), key,
                "shape " + shapeToString(shape(key)) + " does not match the parameter's " + shapeToString(expected));
        const NdArray<float> values = m_npz.read<float>(key);
        for (int64_t i = 0; i < values.size(); ++i)
            if (!std::isfinite(values[i]) || (nonNegative && values[i] < 0))
                throw InputError(path(), key,
                    "element " + std::to_string(i) + (nonNegative ? " is not finite and >= 0" : " is not finite"));
        return torch::from_blob(const_cast<float*>(values.data()), like.sizes(), torch::kFloat32).clone();
    }

    NdArray<uint8_t> bytes(const std::string& key)
    {
        require(key);
        if (shape(key).size() != 1)
            throw InputError(path(), key, "shape " + shapeToString(shape(key)) + " should be (K,) bytes");
        return m_npz.read<uint8_t>(key);
    }

    // Training-state keys nobody asked for.
    void refuseUnused() const
    {
        for (const std::string& key : m_keys) {
            bool training = false;
            for (const char* prefix : kCheckpointPrefixes)
                training = training || key.rfind(prefix, 0) == 0;
            if (training && !m_used.count(key))
                throw InputError(path(), key, "unexpected key: not part of a version-1 training checkpoint");
        }
    }

private:
    NpzReader m_npz;
    std::set<std::string> m_keys;
    std::set<std::string> m_used;
};

std::vector<DataFile> parseDataFiles(const std::string& json, const std::string& path)
{
    std::vector<DataFile> files;
    try {
        const Json root = parseJson(json);
        if (!root.is_array())
            throw std::runtime_error("not an array");
        for (const Json& item : root) {
            DataFile f;
            f.path = jsonString(item, "path");
            const std::string split = jsonString(item, "split");
            if (split != "train" && split != "valid")
                throw std::runtime_error("split \"" + split + "\" is neither train nor valid");
            f.split = split == "train" ? DataSplit::Train : DataSplit::Valid;
            files.push_back(std::move(f));
        }
    } catch (const std::runtime_error& e) {
        throw InputError(path, kDataFiles, std::string("not a JSON list of {path, split}: ") + e.what());
    }
    return files;
}

bool sameModel(const ModelOptions& a, const ModelOptions& b)
{
    if (a.family != b.family)
        return false;
    if (a.family != ModelFamily::TGraph) // zoo models: no blocks, cross-attn or paper switches
        return a.hidden == b.hidden && a.opTableSize == b.opTableSize
            && (a.family != ModelFamily::Kaufman || a.reduction == b.reduction);
    return a.hidden == b.hidden && a.blocks == b.blocks && a.useCrossAttn == b.useCrossAttn
        && a.opTableSize == b.opTableSize && a.residualAfterActivation == b.residualAfterActivation
        && a.bidirectionalEdges == b.bidirectionalEdges && a.simInputs == b.simInputs;
}

} // namespace

torch::nn::Module& Checkpoint::module() const
{
    if (zoo)
        return *zoo;
    if (kind == GraphKind::Layout)
        return *layout.ptr();
    return *tile.ptr();
}

const ModelOptions& Checkpoint::modelOptions() const
{
    if (zoo)
        return zoo->options();
    return kind == GraphKind::Layout ? layout->options() : tile->options();
}

void saveCheckpoint(const Checkpoint& c, const std::string& path)
{
    NpzWriter w(path, NpzCompression::Stored);
    if (c.zoo)
        addWeightArrays(w, c.zoo, c.normalizer);
    else if (c.kind == GraphKind::Layout)
        addWeightArrays(w, c.layout, c.normalizer);
    else
        addWeightArrays(w, c.tile, c.normalizer);
    w.add(kCheckpointVersionKey, int64Scalar(kCheckpointVersion));
    w.add(kOptimizerStep, int64Scalar(c.optimizerStep));
    for (const auto& [name, p] : namedParameters(c.module())) {
        const auto it = c.moments.find(name);
        TORCH_CHECK(it != c.moments.end(), "saveCheckpoint: no optimizer moments for ", name);
        w.add(kExpAvg + name, floatArray(it->second.expAvg));
        w.add(kExpAvgSq + name, floatArray(it->second.expAvgSq));
    }
    w.add(kTotalSteps, int64Scalar(c.totalSteps));
    w.add(kWarmupSteps, int64Scalar(c.warmupSteps));
    const auto rng = c.torchRng.contiguous();
    NdArray<uint8_t> rngBytes({ rng.numel() });
    std::copy_n(rng.data_ptr<uint8_t>(), rng.numel(), rngBytes.data());
    w.add(kRngTorch, rngBytes);
    w.add(kRngSampler, bytesOf(c.samplerRng));
    w.add(kStep, int64Scalar(c.counters.step));
    w.add(kHparams, bytesOf(toJson(c.options)));
    w.add(kBestTau, doubleScalar(c.counters.bestTau));
    w.add(kBestStep, int64Scalar(c.counters.bestStep));
    w.add(kNonFiniteTotal, int64Scalar(c.counters.nonFiniteTotal));
    w.add(kNonFiniteRun, int64Scalar(c.counters.nonFiniteRun));
    w.add(kDataFiles, bytesOf(dataFilesJson(c.dataFiles)));
    w.commit();
}

bool isCheckpoint(const std::string& path) { return NpzReader(path).contains(kCheckpointVersionKey); }

Checkpoint loadCheckpoint(const std::string& path)
{
    Checkpoint c;
    {
        StateReader probe(path);
        if (!probe.contains(kCheckpointVersionKey))
            throw InputError(path, kCheckpointVersionKey,
                "missing: this is a weights file, not a training checkpoint (make one with 'tgraph weights import')");
        const int64_t version = probe.integer(kCheckpointVersionKey, 0);
        if (version != kCheckpointVersion)
            throw InputError(path, kCheckpointVersionKey,
                "version " + std::to_string(version) + " is not supported (this build reads version "
                    + std::to_string(kCheckpointVersion) + ")");
    }
    // The weights part, with all of weights.h's checks.
    AnyWeights w = loadAnyWeightsNpz(path);
    c.kind = w.kind;
    c.layout = w.layout;
    c.tile = w.tile;
    c.zoo = w.zoo;
    c.normalizer = w.normalizer;

    StateReader r(path);
    r.require(kCheckpointVersionKey);
    const std::string hparams = r.text(kHparams);
    try {
        c.options = trainOptionsFromJson(hparams);
    } catch (const std::runtime_error& e) {
        throw InputError(path, kHparams, std::string("not valid hyper-parameter JSON: ") + e.what());
    }
    // Shapes and switches must agree; the dropout rate is only in the hyper-parameters.
    if (!sameModel(c.options.model, c.modelOptions()))
        throw InputError(path, kHparams,
            "model options (" + describe(c.options.model) + ") disagree with the weights (" + describe(c.modelOptions())
                + ")");

    c.optimizerStep = r.integer(kOptimizerStep, 0);
    for (const auto& [name, p] : namedParameters(c.module()))
        c.moments[name] = { r.tensor(kExpAvg + name, p, false), r.tensor(kExpAvgSq + name, p, true) };
    c.totalSteps = r.integer(kTotalSteps, 0);
    c.warmupSteps = r.integer(kWarmupSteps, 0);
    if (c.warmupSteps > c.totalSteps)
        throw InputError(path, kWarmupSteps,
            std::to_string(c.warmupSteps) + " warm-up steps exceed the run's " + std::to_string(c.totalSteps));

    const NdArray<uint8_t> rng = r.bytes(kRngTorch);
    const int64_t expected = currentTorchRng().numel();
    if (rng.size() != expected)
        throw InputError(path, kRngTorch,
            "holds " + std::to_string(rng.size()) + " bytes; LibTorch's CPU generator state has "
                + std::to_string(expected));
    c.torchRng = torch::empty({ rng.size() }, torch::kUInt8);
    std::copy_n(rng.data(), rng.size(), c.torchRng.data_ptr<uint8_t>());
    try {
        at::Generator probe = at::make_generator<at::CPUGeneratorImpl>();
        probe.set_state(c.torchRng);
    } catch (const c10::Error&) {
        throw InputError(path, kRngTorch, "not a valid LibTorch CPU generator state");
    }
    c.samplerRng = r.text(kRngSampler);
    {
        std::istringstream s(c.samplerRng);
        std::mt19937_64 probe;
        s >> probe;
        if (s.fail())
            throw InputError(path, kRngSampler, "not a std::mt19937_64 state");
    }

    c.counters.step = r.integer(kStep, 0);
    if (c.totalSteps > 0 && c.counters.step > c.totalSteps)
        throw InputError(path, kStep,
            "step " + std::to_string(c.counters.step) + " is beyond the run's " + std::to_string(c.totalSteps)
                + " steps");
    if (c.optimizerStep > c.counters.step)
        throw InputError(path, kOptimizerStep,
            std::to_string(c.optimizerStep) + " updates in " + std::to_string(c.counters.step) + " steps");
    c.counters.bestTau = r.real(kBestTau);
    c.counters.bestStep = r.integer(kBestStep, -1);
    c.counters.nonFiniteTotal = r.integer(kNonFiniteTotal, 0);
    c.counters.nonFiniteRun = r.integer(kNonFiniteRun, 0);
    if (c.counters.nonFiniteRun > c.counters.nonFiniteTotal || c.counters.nonFiniteTotal > c.counters.step)
        throw InputError(path, kNonFiniteRun, "skipped-step counters are inconsistent with train.step");
    c.dataFiles = parseDataFiles(r.text(kDataFiles), path);
    r.refuseUnused();
    return c;
}

Checkpoint checkpointFromWeights(const std::string& weightsPath)
{
    Checkpoint c;
    AnyWeights w = loadAnyWeightsNpz(weightsPath);
    c.kind = w.kind;
    c.layout = w.layout;
    c.tile = w.tile;
    c.zoo = w.zoo;
    c.normalizer = w.normalizer;
    c.options.model = c.modelOptions();
    for (const auto& [name, p] : namedParameters(c.module()))
        c.moments[name] = { torch::zeros_like(p), torch::zeros_like(p) };
    c.torchRng = currentTorchRng();
    c.samplerRng = currentSamplerRng(c.options.seed);
    return c;
}

} // namespace tgraph::model
