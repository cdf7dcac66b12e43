// SPDX-License-Identifier: Apache-2.0
#include "collections.h"

#include <filesystem>

namespace tgraph {

const std::vector<TpuCollection>& tpuCollections()
{
    static const std::vector<TpuCollection> list = {
        { "tile:xla", "npz_tile_xla", "npz/tile/xla", GraphKind::Tile },
        { "layout:xla:default", "npz_layout_xla_default", "npz/layout/xla/default", GraphKind::Layout },
        { "layout:xla:random", "npz_layout_xla_random", "npz/layout/xla/random", GraphKind::Layout },
        { "layout:nlp:default", "npz_layout_nlp_default", "npz/layout/nlp/default", GraphKind::Layout },
        { "layout:nlp:random", "npz_layout_nlp_random", "npz/layout/nlp/random", GraphKind::Layout },
    };
    return list;
}

std::vector<std::string> tpuCollectionIds()
{
    std::vector<std::string> ids;
    for (const auto& c : tpuCollections())
        ids.push_back(c.id);
    return ids;
}

const std::vector<std::string>& tpuSplits()
{
    static const std::vector<std::string> splits = { "train", "valid", "test" };
    return splits;
}

const TpuCollection* findTpuCollection(const std::string& id)
{
    for (const auto& c : tpuCollections())
        if (c.id == id)
            return &c;
    return nullptr;
}

const TpuCollection* tpuCollectionOfPath(const std::string& path)
{
    std::vector<std::string> parts;
    for (const auto& part : std::filesystem::path(path).lexically_normal())
        parts.push_back(part.string());
    // The last "npz" component followed by a collection's folder.
    for (size_t i = parts.size(); i-- > 0;) {
        if (parts[i] != "npz")
            continue;
        for (const auto& c : tpuCollections()) {
            std::vector<std::string> folder;
            for (const auto& part : std::filesystem::path(c.folder))
                folder.push_back(part.string());
            if (i + folder.size() > parts.size())
                continue;
            bool match = true;
            for (size_t k = 0; k < folder.size() && match; ++k)
                match = parts[i + k] == folder[k];
            if (match)
                return &c;
        }
    }
    return nullptr;
}

std::string archiveName(const TpuCollection& collection, const std::string& split)
{
    return collection.stem + "_" + split + ".tar";
}

std::string splitFolder(const TpuCollection& collection, const std::string& split)
{
    return collection.folder + "/" + split;
}

} // namespace tgraph
