// SPDX-License-Identifier: Apache-2.0
#include "model/nn/weights.h"
#include "model/nn/ensemblefile.h"
#include "model/nn/weightsfile.h"

#include "core/graph/graph.h"
#include "core/util/error.h"
#include "core/io/npz.h"

#include <set>

namespace tgraph::model {

namespace {

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
    if (options.simInputs)
        w.add(kMetaSimInputs, scalar(int(kSimInputColumns)));
}

void save(
    const NamedTensors& arrays, const Normalizer& normalizer, const ModelOptions& options, const std::string& path)
{
    NpzWriter w(path, NpzCompression::Stored);
    addArrays(w, arrays, normalizer, options);
    w.commit();
}

// Copies every named tensor from the file (WeightsFile::parameter checks presence, shape and
// values), then refuses keys that belong to nothing.
void loadInto(WeightsFile& file, const NamedTensors& arrays, const ModelOptions& options, const char* kind)
{
    std::set<std::string> parameters;
    torch::NoGradGuard noGrad;
    for (const auto& [name, tensor] : arrays) {
        parameters.insert(name);
        const NdArray<float> values = file.parameter(name, shapeOf(tensor), options, kind);
        tensor.copy_(torch::from_blob(const_cast<float*>(values.data()), tensor.sizes(), torch::kFloat32));
    }
    file.refuseUnknownKeys(parameters, options, kind);
}

template <class Weights> Weights loadWeights(const std::string& path, bool tile, const std::string& prefix = {})
{
    WeightsFile file(path, prefix);
    const ModelOptions options = declaredTGraphModel(file, tile);
    Weights w;
    w.model = decltype(w.model)(options);
    loadInto(file, namedArrays(*w.model), options, tile ? "tile" : "layout");
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
    bool tile = false;
    const ModelOptions options = declaredZooModel(file, &tile);
    ZooModel model = makeZooModel(options, tile ? GraphKind::Tile : GraphKind::Layout);
    loadInto(file, namedArrays(*model), options, modelFamilyName(options.family));
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

bool isZooWeights(const std::string& path, const std::string& prefix)
{
    return NpzReader(path).contains(prefix + kMetaModel);
}

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

GraphKind weightsKind(const std::string& path, const std::string& prefix)
{
    NpzReader npz(path);
    if (prefix.empty())
        refuseEnsembleFile(npz);
    if (npz.contains(prefix + kMetaModel)) {
        if (!npz.contains(prefix + kMetaTile))
            throw InputError(path, prefix + kMetaTile, "missing (needed by a zoo-model weights file)");
        if (npz.header(prefix + kMetaTile).elementCount() != 1)
            throw InputError(path, prefix + kMetaTile, "should be a 0-d integer");
        const NdArray<int64_t> tile = npz.read<int64_t>(prefix + kMetaTile);
        return tile.size() == 1 && tile[0] == 1 ? GraphKind::Tile : GraphKind::Layout;
    }
    if (npz.contains(prefix + "head.0.weight"))
        return GraphKind::Tile;
    if (npz.contains(prefix + "classifier.weight"))
        return GraphKind::Layout;
    if (!prefix.empty())
        throw InputError(path, prefix + "*",
            "member " + prefix.substr(7, prefix.size() - 8)
                + " is neither a layout-model (classifier.weight) nor a tile-model (head.0.weight) model");
    throw InputError(path, "",
        "neither a layout-model (classifier.weight) nor a tile-model (head.0.weight) weights file or checkpoint");
}

AnyWeights loadAnyWeightsNpz(const std::string& path, const std::string& prefix)
{
    AnyWeights any;
    any.kind = weightsKind(path, prefix);
    if (isZooWeights(path, prefix)) {
        WeightsFile file(path, prefix);
        any.zoo = loadZoo(file, &any.normalizer);
    } else if (any.kind == GraphKind::Layout) {
        LayoutWeights w = loadWeights<LayoutWeights>(path, false, prefix);
        any.layout = w.model;
        any.normalizer = std::move(w.normalizer);
    } else {
        TileWeights w = loadWeights<TileWeights>(path, true, prefix);
        any.tile = w.model;
        any.normalizer = std::move(w.normalizer);
    }
    return any;
}

} // namespace tgraph::model
