// SPDX-License-Identifier: Apache-2.0
#include "model/nn/weights.h"

#include "core/util/error.h"
#include "core/util/format.h"
#include "core/util/memorybudget.h"
#include "core/io/npz.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

namespace tgraph::model {

namespace {

const std::string kNormalizerMean = "normalizer.mean";
const std::string kNormalizerStd = "normalizer.std";
const std::string kMetaCrossAttn = "meta.use_cross_attn";
const std::string kMetaResidualAfter = "meta.residual_after_activation";
const std::string kMetaBidirectional = "meta.bidirectional_edges";
const std::string kMetaModel = "meta.model";
const std::string kMetaTile = "meta.tile";
const std::string kMetaHidden = "meta.hidden";
const std::string kMetaReduction = "meta.reduction";

using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

// Parameters then buffers, by their dotted state-dict names.
NamedTensors namedArrays(const torch::nn::Module& module)
{
    NamedTensors out;
    for (const auto& item : module.named_parameters())
        out.emplace_back(item.key(), item.value());
    for (const auto& item : module.named_buffers())
        out.emplace_back(item.key(), item.value());
    return out;
}

std::vector<int64_t> shapeOf(const torch::Tensor& t)
{
    return std::vector<int64_t>(t.sizes().begin(), t.sizes().end());
}

NdArray<int64_t> scalar(int64_t value) { return NdArray<int64_t>(std::vector<int64_t> {}, value); }

NdArray<uint8_t> textArray(const std::string& text)
{
    NdArray<uint8_t> a({ int64_t(text.size()) });
    std::copy(text.begin(), text.end(), a.data());
    return a;
}

void addArrays(NpzWriter& w, const NamedTensors& arrays, const Normalizer& normalizer, const ModelOptions& options)
{
    if (!normalizer.isFinished())
        throw std::logic_error("saving weights: the normalizer is not finished");
    for (const auto& [name, tensor] : arrays) {
        const auto t = tensor.detach().to(torch::kCPU, torch::kFloat32).contiguous();
        NdArray<float> a(shapeOf(t));
        std::copy_n(t.data_ptr<float>(), t.numel(), a.data());
        w.add(name, a);
    }
    NdArray<double> mean({ Normalizer::kColumns });
    NdArray<double> stddev({ Normalizer::kColumns });
    std::copy(normalizer.mean().begin(), normalizer.mean().end(), mean.data());
    std::copy(normalizer.stddev().begin(), normalizer.stddev().end(), stddev.data());
    w.add(kNormalizerMean, mean);
    w.add(kNormalizerStd, stddev);
    if (options.family != ModelFamily::TGraph)
        return; // the zoo's own meta keys are added by addZooMeta
    w.add(kMetaCrossAttn, scalar(options.useCrossAttn ? 1 : 0));
    if (options.residualAfterActivation)
        w.add(kMetaResidualAfter, scalar(1));
    if (options.bidirectionalEdges)
        w.add(kMetaBidirectional, scalar(1));
}

void save(
    const NamedTensors& arrays, const Normalizer& normalizer, const ModelOptions& options, const std::string& path)
{
    NpzWriter w(path, NpzCompression::Stored);
    addArrays(w, arrays, normalizer, options);
    w.commit();
}

bool isTrainingStateKey(const std::string& key)
{
    for (const char* prefix : kCheckpointPrefixes)
        if (key.rfind(prefix, 0) == 0)
            return true;
    return false;
}

class WeightsFile
{
public:
    explicit WeightsFile(const std::string& path)
        : m_npz(path)
    {
        for (const std::string& key : m_npz.keys())
            m_keys.insert(key);
    }

    const std::string& path() const { return m_npz.path(); }
    // Bytes of array data the file declares (members' uncompressed sizes).
    uint64_t arrayBytes() const
    {
        uint64_t total = 0;
        for (const ZipMember& m : m_npz.members())
            total += m.uncompressedSize;
        return total;
    }
    bool contains(const std::string& key) const { return m_keys.count(key) > 0; }

    void require(const std::string& key, const char* kind) const
    {
        if (!contains(key))
            throw InputError(path(), key, std::string("missing (needed by a ") + kind + "-model weights file)");
    }

    std::vector<int64_t> shape(const std::string& key) { return m_npz.header(key).shape; }

    std::vector<int64_t> shapeOfRank(const std::string& key, size_t rank)
    {
        auto s = shape(key);
        if (s.size() != rank)
            throw InputError(
                path(), key, "shape " + shapeToString(s) + " should have " + std::to_string(rank) + " axes");
        return s;
    }

    // A 0-d (or one-element) int flag: 0 or 1; `fallback` when the key is absent.
    bool flag(const std::string& key, bool fallback)
    {
        if (!contains(key))
            return fallback;
        const NdArray<int64_t> v = m_npz.read<int64_t>(key);
        if (v.size() != 1 || (v[0] != 0 && v[0] != 1))
            throw InputError(path(), key, "should be a 0-d integer 0 or 1, got shape " + shapeToString(v.shape()));
        return v[0] == 1;
    }

    // Highest K of "convs.K." keys, plus one.
    int64_t blockCount() const
    {
        int64_t blocks = 0;
        for (const std::string& key : m_keys) {
            if (key.rfind("convs.", 0) != 0)
                continue;
            const size_t end = key.find('.', 6);
            const std::string index = key.substr(6, end == std::string::npos ? std::string::npos : end - 6);
            if (index.empty() || index.size() > 4 || index.find_first_not_of("0123456789") != std::string::npos)
                throw InputError(path(), key, "unexpected key: block keys are convs.<index>.<name>");
            blocks = std::max<int64_t>(blocks, std::stoll(index) + 1);
        }
        return blocks;
    }

    // Copies every named tensor from the file, checking presence and shape, then refuses keys that
    // belong to nothing.
    void loadInto(const NamedTensors& arrays, const ModelOptions& options, const char* kind)
    {
        std::set<std::string> known = { kNormalizerMean, kNormalizerStd };
        if (options.family == ModelFamily::TGraph)
            known.insert({ kMetaCrossAttn, kMetaResidualAfter, kMetaBidirectional });
        else
            known.insert({ kMetaModel, kMetaTile, kMetaHidden, kMetaReduction });
        torch::NoGradGuard noGrad;
        for (const auto& [name, tensor] : arrays) {
            known.insert(name);
            const auto expected = shapeOf(tensor);
            if (!contains(name))
                throw InputError(path(), name,
                    "missing; the " + std::string(kind) + " model (" + describe(options) + ") needs shape "
                        + shapeToString(expected));
            const auto stored = shape(name);
            if (stored != expected)
                throw InputError(path(), name,
                    "shape " + shapeToString(stored) + " does not match the model's " + shapeToString(expected) + " ("
                        + describe(options) + ")");
            const NdArray<float> values = m_npz.read<float>(name);
            for (int64_t i = 0; i < values.size(); ++i)
                if (!std::isfinite(values[i]))
                    throw InputError(path(), name, "element " + std::to_string(i) + " is not finite");
            tensor.copy_(torch::from_blob(const_cast<float*>(values.data()), tensor.sizes(), torch::kFloat32));
        }
        // A checkpoint (checkpoint.h) also holds the training state, under its own prefixes.
        const bool checkpoint = contains(kCheckpointVersionKey);
        for (const std::string& key : m_keys)
            if (!known.count(key) && !(checkpoint && isTrainingStateKey(key)))
                throw InputError(path(), key,
                    "unexpected key: not a parameter of the " + std::string(kind) + " model (" + describe(options)
                        + ")");
    }

    // A 0-d integer; InputError when absent or not one value.
    int64_t integer(const std::string& key, const char* kind)
    {
        require(key, kind);
        const NdArray<int64_t> v = m_npz.read<int64_t>(key);
        if (v.size() != 1)
            throw InputError(path(), key, "should be a 0-d integer, got shape " + shapeToString(v.shape()));
        return v[0];
    }

    std::string text(const std::string& key, const char* kind)
    {
        require(key, kind);
        const NdArray<uint8_t> v = m_npz.read<uint8_t>(key);
        return std::string(v.data(), v.data() + v.size());
    }

    Normalizer normalizer()
    {
        require(kNormalizerMean, "layout- or tile");
        require(kNormalizerStd, "layout- or tile");
        const NdArray<double> mean = m_npz.read<double>(kNormalizerMean);
        const NdArray<double> stddev = m_npz.read<double>(kNormalizerStd);
        const std::vector<int64_t> columns { Normalizer::kColumns };
        for (const auto& [key, a] : { std::pair { &kNormalizerMean, &mean }, std::pair { &kNormalizerStd, &stddev } }) {
            if (a->shape() != columns)
                throw InputError(path(), *key, "shape " + shapeToString(a->shape()) + " should be (134,)");
            for (int64_t c = 0; c < a->size(); ++c)
                if (!std::isfinite((*a)[c]) || (a == &stddev && !((*a)[c] > 0)))
                    throw InputError(path(), *key + "[" + std::to_string(c) + "]",
                        a == &stddev ? "must be finite and > 0" : "is not finite");
        }
        std::array<double, Normalizer::kColumns> m {}, s {};
        std::copy(mean.data(), mean.data() + Normalizer::kColumns, m.begin());
        std::copy(stddev.data(), stddev.data() + Normalizer::kColumns, s.begin());
        return Normalizer::fromStatistics(m, s);
    }

private:
    NpzReader m_npz;
    std::set<std::string> m_keys;
};

ModelOptions commonOptions(WeightsFile& file, const char* kind)
{
    file.require(kMetaCrossAttn, kind);
    file.require("embedding_op.weight", kind);
    ModelOptions options;
    options.useCrossAttn = file.flag(kMetaCrossAttn, true);
    options.residualAfterActivation = file.flag(kMetaResidualAfter, false);
    options.bidirectionalEdges = file.flag(kMetaBidirectional, false);
    options.opTableSize = file.shapeOfRank("embedding_op.weight", 2)[0];
    options.blocks = file.blockCount();
    if (options.opTableSize < 1)
        throw InputError(file.path(), "embedding_op.weight", "the opcode table has no rows");
    return options;
}

void checkWidth(const WeightsFile& file, const std::string& key, const ModelOptions& options)
{
    const int64_t width = options.layerWidth();
    if (options.hidden < 1 || (options.useCrossAttn && options.hidden % 2) || width % kGateReduction)
        throw InputError(file.path(), key,
            "width " + std::to_string(options.hidden) + " is not a usable model width (layers of "
                + std::to_string(width) + " channels must be a multiple of " + std::to_string(kGateReduction) + ")");
}

// Every parameter of a model is loaded from its weights file, so a model the file cannot hold is
// refused before it is built (docs/formats.md, "Declared sizes"): `minParameters` is a lower bound
// of the parameters the declared width and block count give, checked against the file's arrays and
// the memory budget.
void checkModelFits(const WeightsFile& file, const std::string& key, const ModelOptions& options, uint64_t minParameters)
{
    const uint64_t needed = minParameters * sizeof(float);
    const std::string model = "a model of width " + std::to_string(options.hidden)
        + (options.blocks > 0 ? " with " + std::to_string(options.blocks) + " blocks" : std::string());
    if (needed > file.arrayBytes())
        throw InputError(file.path(), key,
            model + " has at least " + std::to_string(minParameters) + " parameters (" + formatBytes(needed)
                + ") but the file holds only " + formatBytes(file.arrayBytes()) + " of arrays");
    const uint64_t budget = memoryBudgetBytes();
    if (needed > budget)
        throw InputError(file.path(), key, model + " needs at least " + formatBytes(needed) + ", more than "
                + describeMemoryBudget(budget));
}

// Lower bound of a TGraph layout or tile model's parameters: its opcode table and, after the first,
// each block's W x W projection (W the layer width).
uint64_t minTGraphParameters(const ModelOptions& options)
{
    const uint64_t width = uint64_t(std::max<int64_t>(options.layerWidth(), 0));
    const uint64_t blocks = uint64_t(std::max<int64_t>(options.blocks, 1));
    return uint64_t(options.opTableSize) * uint64_t(kOpEmbedding) + (blocks - 1) * width * width;
}

// The width H is read from classifier.weight (1, H) for the layout model, head.3.weight (H, H) for
// the tile model; each kind's signature key tells the other kind apart.
void refuseZooFile(WeightsFile& file, const char* kind)
{
    if (file.contains(kMetaModel))
        throw InputError(file.path(), kMetaModel,
            "this is a '" + file.text(kMetaModel, "zoo") + "' model's weights file, not a TGraph " + kind
                + "-model one");
}

template <class Weights> Weights loadWeights(const std::string& path, bool tile)
{
    WeightsFile file(path);
    const char* kind = tile ? "tile" : "layout";
    refuseZooFile(file, kind);
    const std::string widthKey = tile ? "head.3.weight" : "classifier.weight";
    const bool otherKind
        = tile ? file.contains("classifier.weight") && !file.contains("head.0.weight") : file.contains("head.0.weight");
    if (otherKind)
        throw InputError(path, tile ? "classifier.weight" : "head.0.weight",
            std::string("this is a ") + (tile ? "layout" : "tile") + "-model weights file, not a " + kind
                + "-model one");
    ModelOptions options = commonOptions(file, kind);
    file.require(widthKey, kind);
    options.hidden = file.shapeOfRank(widthKey, 2)[tile ? 0 : 1];
    checkWidth(file, widthKey, options);
    checkModelFits(file, widthKey, options, minTGraphParameters(options));
    Weights w;
    w.model = decltype(w.model)(options);
    file.loadInto(namedArrays(*w.model), options, kind);
    w.normalizer = file.normalizer();
    w.model->eval();
    return w;
}

} // namespace

void saveWeightsNpz(const TGraphModel& model, const Normalizer& normalizer, const std::string& path)
{
    save(namedArrays(*model), normalizer, model->options(), path);
}

void saveTileWeightsNpz(const TileModel& model, const Normalizer& normalizer, const std::string& path)
{
    save(namedArrays(*model), normalizer, model->options(), path);
}

void addWeightArrays(NpzWriter& writer, const TGraphModel& model, const Normalizer& normalizer)
{
    addArrays(writer, namedArrays(*model), normalizer, model->options());
}

void addWeightArrays(NpzWriter& writer, const TileModel& model, const Normalizer& normalizer)
{
    addArrays(writer, namedArrays(*model), normalizer, model->options());
}

void addZooArrays(NpzWriter& w, const ZooModel& model, const Normalizer& normalizer)
{
    const ModelOptions& options = model->options();
    addArrays(w, namedArrays(*model), normalizer, options);
    w.add(kMetaModel, textArray(modelFamilyName(options.family)));
    w.add(kMetaTile, scalar(model->kind() == GraphKind::Tile ? 1 : 0));
    w.add(kMetaHidden, scalar(options.hidden));
    if (options.family == ModelFamily::Kaufman)
        w.add(kMetaReduction, textArray(nodeReductionName(options.reduction)));
}

ZooModel loadZoo(WeightsFile& file, Normalizer* normalizer)
{
    const char* kind = "zoo";
    ModelOptions options;
    const std::string family = file.text(kMetaModel, kind);
    if (!parseModelFamily(family, &options.family) || options.family == ModelFamily::TGraph)
        throw InputError(file.path(), kMetaModel,
            "unknown model '" + family + "' (this build knows tpugraphs-baseline, kaufman, tpgnn)");
    const int64_t tile = file.integer(kMetaTile, kind);
    if (tile != 0 && tile != 1)
        throw InputError(file.path(), kMetaTile, "should be 0 (layout model) or 1 (tile model)");
    options.hidden = file.integer(kMetaHidden, kind);
    if (options.hidden < 4 || options.hidden > 65536)
        throw InputError(
            file.path(), kMetaHidden, "width " + std::to_string(options.hidden) + " is out of range 4..65536");
    if (options.family == ModelFamily::Kaufman) {
        const std::string reduction = file.text(kMetaReduction, kind);
        if (!parseNodeReduction(reduction, &options.reduction))
            throw InputError(file.path(), kMetaReduction,
                "unknown reduction '" + reduction + "' (mean-max, per-node, lstm, transformer)");
        if (options.reduction == NodeReduction::Transformer && options.hidden % 4)
            throw InputError(file.path(), kMetaHidden, "the transformer reduction needs a width divisible by 4");
    }
    file.require("op_embedding.weight", kind);
    options.opTableSize = file.shapeOfRank("op_embedding.weight", 2)[0];
    if (options.opTableSize < 1)
        throw InputError(file.path(), "op_embedding.weight", "the opcode table has no rows");
    // Every zoo model has at least one H x H layer besides its opcode table.
    checkModelFits(file, kMetaHidden, options,
        uint64_t(options.opTableSize) * uint64_t(kOpEmbedding) + uint64_t(options.hidden) * uint64_t(options.hidden));
    ZooModel model = makeZooModel(options, tile ? GraphKind::Tile : GraphKind::Layout);
    file.loadInto(namedArrays(*model), options, family.c_str());
    *normalizer = file.normalizer();
    model->eval();
    return model;
}

LayoutWeights loadWeightsNpz(const std::string& path) { return loadWeights<LayoutWeights>(path, false); }

TileWeights loadTileWeightsNpz(const std::string& path) { return loadWeights<TileWeights>(path, true); }

void saveZooWeightsNpz(const ZooModel& model, const Normalizer& normalizer, const std::string& path)
{
    NpzWriter w(path, NpzCompression::Stored);
    addZooArrays(w, model, normalizer);
    w.commit();
}

void addWeightArrays(NpzWriter& writer, const ZooModel& model, const Normalizer& normalizer)
{
    addZooArrays(writer, model, normalizer);
}

bool isZooWeights(const std::string& path) { return NpzReader(path).contains(kMetaModel); }

torch::nn::Module& AnyWeights::module() const
{
    if (zoo)
        return *zoo;
    if (kind == GraphKind::Layout)
        return *layout.ptr();
    return *tile.ptr();
}

const ModelOptions& AnyWeights::options() const
{
    if (zoo)
        return zoo->options();
    return kind == GraphKind::Layout ? layout->options() : tile->options();
}

GraphKind weightsKind(const std::string& path)
{
    NpzReader npz(path);
    if (npz.contains(kMetaModel)) {
        if (!npz.contains(kMetaTile))
            throw InputError(path, kMetaTile, "missing (needed by a zoo-model weights file)");
        const NdArray<int64_t> tile = npz.read<int64_t>(kMetaTile);
        return tile.size() == 1 && tile[0] == 1 ? GraphKind::Tile : GraphKind::Layout;
    }
    if (npz.contains("head.0.weight"))
        return GraphKind::Tile;
    if (npz.contains("classifier.weight"))
        return GraphKind::Layout;
    throw InputError(path, "",
        "neither a layout-model (classifier.weight) nor a tile-model (head.0.weight) weights file or checkpoint");
}

AnyWeights loadAnyWeightsNpz(const std::string& path)
{
    AnyWeights any;
    any.kind = weightsKind(path);
    if (isZooWeights(path)) {
        WeightsFile file(path);
        any.zoo = loadZoo(file, &any.normalizer);
    } else if (any.kind == GraphKind::Layout) {
        LayoutWeights w = loadWeightsNpz(path);
        any.layout = w.model;
        any.normalizer = std::move(w.normalizer);
    } else {
        TileWeights w = loadTileWeightsNpz(path);
        any.tile = w.model;
        any.normalizer = std::move(w.normalizer);
    }
    return any;
}

} // namespace tgraph::model
