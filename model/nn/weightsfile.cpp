// SPDX-License-Identifier: Apache-2.0
#include "model/nn/weightsfile.h"
#include "model/nn/ensemblefile.h"

#include "core/graph/graph.h"
#include "core/util/error.h"
#include "core/util/format.h"
#include "core/util/memorybudget.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace tgraph::model {

namespace {

bool isTrainingStateKey(const std::string& key)
{
    for (const char* prefix : kCheckpointPrefixes)
        if (key.rfind(prefix, 0) == 0)
            return true;
    return false;
}

ModelOptions commonOptions(WeightsFile& file, const char* kind)
{
    file.require(kMetaCrossAttn, kind);
    file.require("embedding_op.weight", kind);
    ModelOptions options;
    options.useCrossAttn = file.flag(kMetaCrossAttn, true);
    options.residualAfterActivation = file.flag(kMetaResidualAfter, false);
    options.bidirectionalEdges = file.flag(kMetaBidirectional, false);
    if (file.contains(kMetaSimInputs)) {
        const int64_t columns = file.integer(kMetaSimInputs, kind);
        if (columns != kSimInputColumns)
            throw InputError(file.path(), file.place(kMetaSimInputs),
                "the model takes " + std::to_string(columns) + " simulator input columns; this build computes "
                    + std::to_string(kSimInputColumns) + " (docs/model.md §4.9)");
        options.simInputs = true;
    }
    options.opTableSize = file.shapeOfRank("embedding_op.weight", 2)[0];
    options.blocks = file.blockCount();
    if (options.opTableSize < 1)
        throw InputError(file.path(), file.place("embedding_op.weight"), "the opcode table has no rows");
    return options;
}

void checkWidth(const WeightsFile& file, const std::string& key, const ModelOptions& options)
{
    const int64_t width = options.layerWidth();
    if (options.hidden < 1 || (options.useCrossAttn && options.hidden % 2) || width % kGateReduction)
        throw InputError(file.path(), file.place(key),
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
        throw InputError(file.path(), file.place(key),
            model + " has at least " + std::to_string(minParameters) + " parameters (" + formatBytes(needed)
                + ") but the file holds only " + formatBytes(file.arrayBytes()) + " of arrays");
    const uint64_t budget = memoryBudgetBytes();
    if (needed > budget)
        throw InputError(file.path(), file.place(key),
            model + " needs at least " + formatBytes(needed) + ", more than " + describeMemoryBudget(budget));
}

// Lower bound of a TGraph layout or tile model's parameters: its opcode table and, after the first,
// each block's W x W projection (W the layer width).
uint64_t minTGraphParameters(const ModelOptions& options)
{
    const uint64_t width = uint64_t(std::max<int64_t>(options.layerWidth(), 0));
    const uint64_t blocks = uint64_t(std::max<int64_t>(options.blocks, 1));
    return uint64_t(options.opTableSize) * uint64_t(kOpEmbedding) + (blocks - 1) * width * width;
}

void refuseZooFile(WeightsFile& file, const char* kind)
{
    if (file.contains(kMetaModel))
        throw InputError(file.path(), file.place(kMetaModel),
            "this is a '" + file.text(kMetaModel, "zoo") + "' model's weights file, not a TGraph " + kind
                + "-model one");
}

} // namespace

WeightsFile::WeightsFile(const std::string& path, std::string prefix)
    : m_npz(path)
    , m_prefix(std::move(prefix))
{
    if (m_prefix.empty())
        refuseEnsembleFile(m_npz);
    for (const std::string& key : m_npz.keys())
        if (key.size() > m_prefix.size() && key.compare(0, m_prefix.size(), m_prefix) == 0)
            m_keys.insert(key.substr(m_prefix.size()));
}

uint64_t WeightsFile::arrayBytes() const
{
    uint64_t total = 0;
    for (const ZipMember& m : m_npz.members())
        if (m.name.compare(0, m_prefix.size(), m_prefix) == 0)
            total += m.uncompressedSize;
    return total;
}

void WeightsFile::require(const std::string& key, const char* kind) const
{
    if (!contains(key))
        throw InputError(path(), place(key), std::string("missing (needed by a ") + kind + "-model weights file)");
}

std::vector<int64_t> WeightsFile::shape(const std::string& key) { return m_npz.header(place(key)).shape; }

std::vector<int64_t> WeightsFile::shapeOfRank(const std::string& key, size_t rank)
{
    auto s = shape(key);
    if (s.size() != rank)
        throw InputError(
            path(), place(key), "shape " + shapeToString(s) + " should have " + std::to_string(rank) + " axes");
    return s;
}

bool WeightsFile::flag(const std::string& key, bool fallback)
{
    if (!contains(key))
        return fallback;
    const NdArray<int64_t> v = m_npz.read<int64_t>(place(key));
    if (v.size() != 1 || (v[0] != 0 && v[0] != 1))
        throw InputError(path(), place(key), "should be a 0-d integer 0 or 1, got shape " + shapeToString(v.shape()));
    return v[0] == 1;
}

int64_t WeightsFile::blockCount() const
{
    int64_t blocks = 0;
    for (const std::string& key : m_keys) {
        if (key.rfind("convs.", 0) != 0)
            continue;
        const size_t end = key.find('.', 6);
        const std::string index = key.substr(6, end == std::string::npos ? std::string::npos : end - 6);
        if (index.empty() || index.size() > 4 || index.find_first_not_of("0123456789") != std::string::npos)
            throw InputError(path(), place(key), "unexpected key: block keys are convs.<index>.<name>");
        blocks = std::max<int64_t>(blocks, std::stoll(index) + 1);
    }
    return blocks;
}

int64_t WeightsFile::integer(const std::string& key, const char* kind)
{
    require(key, kind);
    const NdArray<int64_t> v = m_npz.read<int64_t>(place(key));
    if (v.size() != 1)
        throw InputError(path(), place(key), "should be a 0-d integer, got shape " + shapeToString(v.shape()));
    return v[0];
}

std::string WeightsFile::text(const std::string& key, const char* kind)
{
    require(key, kind);
    const NdArray<uint8_t> v = m_npz.read<uint8_t>(place(key));
    return std::string(v.data(), v.data() + v.size());
}

Normalizer WeightsFile::normalizer()
{
    require(kNormalizerMean, "layout- or tile");
    require(kNormalizerStd, "layout- or tile");
    const NdArray<double> mean = m_npz.read<double>(place(kNormalizerMean));
    const NdArray<double> stddev = m_npz.read<double>(place(kNormalizerStd));
    const std::vector<int64_t> columns { Normalizer::kColumns };
    for (const auto& [key, a] : { std::pair { &kNormalizerMean, &mean }, std::pair { &kNormalizerStd, &stddev } }) {
        if (a->shape() != columns)
            throw InputError(path(), place(*key), "shape " + shapeToString(a->shape()) + " should be (134,)");
        for (int64_t c = 0; c < a->size(); ++c)
            if (!std::isfinite((*a)[c]) || (a == &stddev && !((*a)[c] > 0)))
                throw InputError(path(), place(*key + "[" + std::to_string(c) + "]"),
                    a == &stddev ? "must be finite and > 0" : "is not finite");
    }
    std::array<double, Normalizer::kColumns> m {}, s {};
    std::copy(mean.data(), mean.data() + Normalizer::kColumns, m.begin());
    std::copy(stddev.data(), stddev.data() + Normalizer::kColumns, s.begin());
    return Normalizer::fromStatistics(m, s);
}

NdArray<float> WeightsFile::parameter(
    const std::string& name, const std::vector<int64_t>& expected, const ModelOptions& options, const char* kind)
{
    if (!contains(name))
        throw InputError(path(), place(name),
            "missing; the " + std::string(kind) + " model (" + describe(options) + ") needs shape "
                + shapeToString(expected));
    const auto stored = shape(name);
    if (stored != expected)
        throw InputError(path(), place(name),
            "shape " + shapeToString(stored) + " does not match the model's " + shapeToString(expected) + " ("
                + describe(options) + ")");
    NdArray<float> values = m_npz.read<float>(place(name));
    for (int64_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i]))
            throw InputError(path(), place(name), "element " + std::to_string(i) + " is not finite");
    return values;
}

void WeightsFile::refuseUnknownKeys(
    const std::set<std::string>& parameters, const ModelOptions& options, const char* kind) const
{
    std::set<std::string> known = { kNormalizerMean, kNormalizerStd };
    if (options.family == ModelFamily::TGraph)
        known.insert({ kMetaCrossAttn, kMetaResidualAfter, kMetaBidirectional, kMetaSimInputs });
    else
        known.insert({ kMetaModel, kMetaTile, kMetaHidden, kMetaReduction });
    // A checkpoint (checkpoint.h) also holds the training state, under its own prefixes; a member
    // of an ensemble file holds weights only.
    const bool checkpoint = m_prefix.empty() && contains(kCheckpointVersionKey);
    for (const std::string& key : m_keys)
        if (!known.count(key) && !parameters.count(key) && !(checkpoint && isTrainingStateKey(key)))
            throw InputError(path(), place(key),
                "unexpected key: not a parameter of the " + std::string(kind) + " model (" + describe(options) + ")");
}

ModelOptions declaredTGraphModel(WeightsFile& file, bool tile)
{
    const char* kind = tile ? "tile" : "layout";
    refuseZooFile(file, kind);
    const std::string widthKey = tile ? "head.3.weight" : "classifier.weight";
    const bool otherKind
        = tile ? file.contains("classifier.weight") && !file.contains("head.0.weight") : file.contains("head.0.weight");
    if (otherKind)
        throw InputError(file.path(), file.place(tile ? "classifier.weight" : "head.0.weight"),
            std::string("this is a ") + (tile ? "layout" : "tile") + "-model weights file, not a " + kind
                + "-model one");
    ModelOptions options = commonOptions(file, kind);
    if (tile && options.simInputs)
        throw InputError(file.path(), file.place(kMetaSimInputs),
            "simulator inputs belong to layout models; a tile-model file cannot declare them");
    file.require(widthKey, kind);
    options.hidden = file.shapeOfRank(widthKey, 2)[tile ? 0 : 1];
    checkWidth(file, widthKey, options);
    checkModelFits(file, widthKey, options, minTGraphParameters(options));
    return options;
}

ModelOptions declaredZooModel(WeightsFile& file, bool* tile)
{
    const char* kind = "zoo";
    ModelOptions options;
    const std::string family = file.text(kMetaModel, kind);
    if (!parseModelFamily(family, &options.family) || options.family == ModelFamily::TGraph)
        throw InputError(file.path(), file.place(kMetaModel),
            "unknown model '" + family + "' (this build knows tpugraphs-baseline, kaufman, tpgnn)");
    const int64_t tileFlag = file.integer(kMetaTile, kind);
    if (tileFlag != 0 && tileFlag != 1)
        throw InputError(file.path(), file.place(kMetaTile), "should be 0 (layout model) or 1 (tile model)");
    *tile = tileFlag == 1;
    options.hidden = file.integer(kMetaHidden, kind);
    if (options.hidden < 4 || options.hidden > 65536)
        throw InputError(
            file.path(), kMetaHidden, "width " + std::to_string(options.hidden) + " is out of range 4..65536");
    if (options.family == ModelFamily::Kaufman) {
        const std::string reduction = file.text(kMetaReduction, kind);
        if (!parseNodeReduction(reduction, &options.reduction))
            throw InputError(file.path(), file.place(kMetaReduction),
                "unknown reduction '" + reduction + "' (mean-max, per-node, lstm, transformer)");
        if (options.reduction == NodeReduction::Transformer && options.hidden % 4)
            throw InputError(
                file.path(), file.place(kMetaHidden), "the transformer reduction needs a width divisible by 4");
    }
    file.require("op_embedding.weight", kind);
    options.opTableSize = file.shapeOfRank("op_embedding.weight", 2)[0];
    if (options.opTableSize < 1)
        throw InputError(file.path(), file.place("op_embedding.weight"), "the opcode table has no rows");
    // Every zoo model has at least one H x H layer besides its opcode table.
    checkModelFits(file, kMetaHidden, options,
        uint64_t(options.opTableSize) * uint64_t(kOpEmbedding) + uint64_t(options.hidden) * uint64_t(options.hidden));
    return options;
}

} // namespace tgraph::model
