// SPDX-License-Identifier: Apache-2.0
#pragma once

// The collections of the public TpuGraphs dataset (docs/formats.md §16): their competition names
// ("layout:xla:default"), the archives they are published as ("npz_layout_xla_default_train.tar")
// and the folders those archives hold ("npz/layout/xla/default/train/").

#include "core/graph/graph.h"

#include <string>
#include <vector>

namespace tgraph {

struct TpuCollection
{
    std::string id; // competition name: "tile:xla", "layout:nlp:random"
    std::string stem; // archive name without the split: "npz_layout_nlp_random"
    std::string folder; // inside a dataset tree: "npz/layout/nlp/random"
    GraphKind kind = GraphKind::Layout;
};

// Where the published archives are (docs/formats.md §16).
constexpr const char* kTpuGraphsBaseUrl = "http://download.tensorflow.org/data/tpu_graphs/v0/";

// The five collections, in the competition's order: tile:xla, layout:xla:default,
// layout:xla:random, layout:nlp:default, layout:nlp:random.
const std::vector<TpuCollection>& tpuCollections();
std::vector<std::string> tpuCollectionIds();
const std::vector<std::string>& tpuSplits(); // train, valid, test

// nullptr when `id` names no collection.
const TpuCollection* findTpuCollection(const std::string& id);
// The collection whose folder `path` (a file or folder of a dataset tree) lies in, matched on the
// path's components ".../npz/layout/xla/default/..."; nullptr when none.
const TpuCollection* tpuCollectionOfPath(const std::string& path);

// "npz_layout_xla_default_train.tar"
std::string archiveName(const TpuCollection& collection, const std::string& split);
// "npz/layout/xla/default/train"
std::string splitFolder(const TpuCollection& collection, const std::string& split);

} // namespace tgraph
