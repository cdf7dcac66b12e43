// SPDX-License-Identifier: Apache-2.0
#pragma once

// The torch-free half of reading a weights file or checkpoint (the format: weights.h): its arrays
// by name, and the model it declares (family, kind, width, blocks, opcode table) with every check
// made before that model is built: the other kind's or family's file, a missing key, an unusable
// width, a model larger than the file's arrays or the memory budget (docs/formats.md, "Declared
// sizes"). weights.cpp builds the model from what these functions return and copies each
// parameter with parameter(). Kept free of LibTorch (its own library, tgraph_model_weightsfile), so
// that the weights fuzz target (tests/fuzz/fuzzweights.cpp) and the sanitizer build reach it.

#include "model/nn/modeloptions.h"

#include "core/graph/normalizer.h"
#include "core/io/ndarray.h"
#include "core/io/npz.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace tgraph::model {

// Marks a checkpoint; the prefixes of its training-state keys.
// The names of a weights file's normalizer arrays and model metadata (docs/formats.md), shared by
// the reader and checks here and by the torch side that writes and loads them (weights.cpp).
inline const std::string kNormalizerMean = "normalizer.mean";
inline const std::string kNormalizerStd = "normalizer.std";
inline const std::string kMetaCrossAttn = "meta.use_cross_attn";
inline const std::string kMetaResidualAfter = "meta.residual_after_activation";
inline const std::string kMetaBidirectional = "meta.bidirectional_edges";
// The number of simulator input columns (docs/model.md §4.9); absent: the model takes none.
inline const std::string kMetaSimInputs = "meta.sim_inputs";
inline const std::string kMetaModel = "meta.model";
inline const std::string kMetaTile = "meta.tile";
inline const std::string kMetaHidden = "meta.hidden";
inline const std::string kMetaReduction = "meta.reduction";
inline constexpr const char* kCheckpointVersionKey = "checkpoint.version";
inline constexpr const char* kCheckpointPrefixes[] = { "optimizer.", "scheduler.", "rng.", "train.", "checkpoint." };

// One model's arrays: a whole weights file or checkpoint, or (with `prefix` "member.K.") one member
// of an ensemble file (ensemblefile.h), whose keys are then read without their prefix and named with
// it in errors. Without a prefix an ensemble file is refused (it is no single model's file).
class WeightsFile
{
public:
    explicit WeightsFile(const std::string& path, std::string prefix = {});

    const std::string& path() const { return m_npz.path(); }
    const std::string& prefix() const { return m_prefix; }
    // The key as stored in the file (with the member's prefix), for messages.
    std::string place(const std::string& key) const { return m_prefix + key; }
    // Bytes of array data the file (the member) declares (its arrays' uncompressed sizes).
    uint64_t arrayBytes() const;
    bool contains(const std::string& key) const { return m_keys.count(key) > 0; }
    const std::set<std::string>& keys() const { return m_keys; }
    // InputError naming the key when it is absent ("needed by a <kind>-model weights file").
    void require(const std::string& key, const char* kind) const;
    std::vector<int64_t> shape(const std::string& key);
    std::vector<int64_t> shapeOfRank(const std::string& key, size_t rank);
    // A 0-d (or one-element) int flag: 0 or 1; `fallback` when the key is absent.
    bool flag(const std::string& key, bool fallback);
    // Highest K of "convs.K." keys, plus one.
    int64_t blockCount() const;
    // A 0-d integer; InputError when absent or not one value.
    int64_t integer(const std::string& key, const char* kind);
    std::string text(const std::string& key, const char* kind);
    // normalizer.mean and normalizer.std: (134,), finite, std > 0.
    Normalizer normalizer();
    // One parameter of the model `options` describes, as float32: present, of the `expected` shape
    // (the model's), every element finite; InputError naming the key otherwise.
    NdArray<float> parameter(
        const std::string& name, const std::vector<int64_t>& expected, const ModelOptions& options, const char* kind);
    // Refuses a key that is none of `parameters` (the model's), the normalizer's, the family's meta
    // keys, or (in a checkpoint, never in an ensemble's member) training state.
    void refuseUnknownKeys(const std::set<std::string>& parameters, const ModelOptions& options, const char* kind) const;

private:
    NpzReader m_npz;
    std::string m_prefix;
    std::set<std::string> m_keys; // without the prefix
};

// The TGraph layout (tile false) or tile model a weights file declares, checked: not a zoo file nor
// the other kind's, meta.use_cross_attn and embedding_op.weight present, the width from
// classifier.weight (layout) or head.3.weight (tile) usable, the model within the file's arrays and
// the memory budget.
ModelOptions declaredTGraphModel(WeightsFile& file, bool tile);
// The zoo model a weights file with meta.model declares, with the same checks; *tile from meta.tile.
ModelOptions declaredZooModel(WeightsFile& file, bool* tile);

} // namespace tgraph::model
