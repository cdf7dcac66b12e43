// SPDX-License-Identifier: Apache-2.0
#pragma once

// Fixtures shared by the model test executables (tst_model, tst_inference): small synthetic
// graphs, model options, parameter jitter, error measures.

#include "model/nn/modeloptions.h"

#include "core/graph/graph.h"
#include "core/graph/normalizer.h"
#include "core/io/npz.h"
#include "core/graph/prune.h"
#include "core/synth/synthetic.h"

#include <torch/torch.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace modeltest {

using namespace tgraph;
using namespace tgraph::model;

inline ModelOptions options(bool cross, int64_t opTable = kDefaultOpTableSize)
{
    ModelOptions o;
    o.useCrossAttn = cross;
    o.opTableSize = opTable;
    return o;
}

inline Normalizer fitNormalizer(const NdArray<float>& nodeFeat)
{
    Normalizer n;
    n.add(nodeFeat);
    n.finish();
    return n;
}

// A synthetic layout graph (tgraph synth's generator) of `nodes` nodes, pruned.
inline LayoutGraph prunedSyntheticGraph(int64_t nodes, int64_t configurable, int64_t configs, uint64_t seed)
{
    SyntheticLayoutSpec spec;
    spec.nodes = nodes;
    spec.configurableNodes = configurable;
    spec.configs = configs;
    spec.seed = seed;
    return pruneToConfigurable(makeSyntheticLayoutGraph(spec)).graph;
}

// A pruned synthetic layout graph of a few dozen nodes with `configs` configurations.
inline LayoutGraph smallSyntheticGraph(int64_t configs, uint64_t seed)
{
    return prunedSyntheticGraph(90, 6, configs, seed);
}

// A tile graph on the nodes and edges of a synthetic graph, with tile-size-like config_feat.
inline TileGraph smallTileGraph(int64_t configs)
{
    SyntheticLayoutSpec spec;
    spec.nodes = 30;
    spec.configurableNodes = 3;
    spec.configs = 2;
    spec.seed = 11;
    LayoutGraph layout = makeSyntheticLayoutGraph(spec);
    TileGraph t;
    t.nodeFeat = layout.nodeFeat;
    t.nodeOpcode = layout.nodeOpcode;
    t.edgeIndex = layout.edgeIndex;
    t.configFeat = NdArray<float>({ configs, kTileConfigFeatures }, 0.0f);
    t.configRuntime = NdArray<int64_t>({ configs });
    t.configRuntimeNormalizers = NdArray<int64_t>({ configs }, 1000);
    for (int64_t c = 0; c < configs; ++c) {
        float sum = 0;
        float product = 1;
        for (int k = 0; k < 6; ++k) {
            const float v = float(int64_t(1) << ((c * 3 + k * 5) % 6));
            t.configFeat(c, k) = v;
            t.configFeat(c, 8 + k) = v * 2;
            sum += v;
            product *= v;
        }
        t.configFeat(c, 6) = sum;
        t.configFeat(c, 7) = product;
        t.configRuntime[c] = 900 + 17 * c;
    }
    setPublishedStorage(t);
    return t;
}

// Jitters every parameter so no two biases or temperatures are equal (the parity test should not
// pass by symmetry), temperatures in 0.3..1.0.
inline void randomize(torch::nn::Module& m)
{
    torch::NoGradGuard noGrad;
    for (const auto& p : m.named_parameters()) {
        if (p.key().find("temperature") != std::string::npos)
            p.value().fill_(0.3 + 0.7 * torch::rand({}).item<double>());
        else
            p.value().add_(torch::randn_like(p.value()) * 0.05);
    }
}

// Copies an npz, dropping `drop` and adding/replacing `put`.
inline void rewriteNpz(const std::string& from, const std::string& to, const std::set<std::string>& drop,
    const std::map<std::string, NpyArray>& put = {})
{
    NpzReader in(from);
    NpzWriter out(to, NpzCompression::Stored);
    for (const std::string& key : in.keys())
        if (!drop.count(key) && !put.count(key))
            out.add(key, in.readRaw(key));
    for (const auto& [key, array] : put)
        out.add(key, array);
    out.commit();
}

inline double maxAbs(const torch::Tensor& t) { return t.abs().max().item<double>(); }
inline double relativeError(const torch::Tensor& ours, const torch::Tensor& ref)
{
    return maxAbs(ours - ref) / std::max(maxAbs(ref), 1e-12);
}

} // namespace modeltest
