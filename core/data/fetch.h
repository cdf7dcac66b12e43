// SPDX-License-Identifier: Apache-2.0
#pragma once

// `tgraph data fetch` and the studio's Fetch TpuGraphs dialog (docs/formats.md §16): the public
// archives downloaded (or read from a mirror folder), extracted into the dataset's own tree and
// checked, one archive (collection x split) at a time.

#include "collections.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tgraph {

class ProgressSink;

struct FetchOptions
{
    std::vector<std::string> collections; // ids ("tile:xla"); empty = all five
    std::vector<std::string> splits; // empty = train, valid, test
    // Where the archives are: a URL ending in '/' or not (default: kTpuGraphsBaseUrl), or a local
    // folder holding the .tar files (read in place, never copied).
    std::string mirror;
    std::string output; // the dataset tree's root: DIR/npz/...
    bool keepArchives = false; // keep downloaded .tar files in DIR/.tgraph-download/ after extraction
    int attempts = 4; // requests per archive when a transfer breaks off (resumed each time)
};

struct FetchItem
{
    std::string collection; // "layout:xla:default"
    std::string split;
    std::string archive; // "npz_layout_xla_default_train.tar"
    std::string folder; // "npz/layout/xla/default/train"
    bool present = false; // already there from an earlier fetch: nothing done
    uint64_t archiveBytes = 0;
    uint64_t transferred = 0; // bytes received over the network
    uint64_t resumedFrom = 0; // bytes of an earlier partial download that were kept
    int requests = 0; // GET requests sent
    int files = 0; // npz files extracted and checked
    int ignored = 0; // archive members outside the split's folder, not extracted
};

// The name of the marker file written into each extracted split folder, with the archive's name,
// size and file count (JSON); a split folder holding it is complete.
constexpr const char* kFetchMarker = ".tgraph-fetch.json";
// Downloads in progress and temporary extraction folders, inside the output folder.
constexpr const char* kFetchWorkFolder = ".tgraph-download";

// True when `mirror` names a local folder rather than a URL.
bool isMirrorFolder(const std::string& mirror);

// Fetches every requested archive that is not already present. `onItem` is called after each
// archive (fetched or found present). Throws InputError naming the archive (and member) when an
// archive is refused or damaged or a download fails: that split folder is not created, temporary
// files are removed (a download broken off stays as .part for the next call to resume), and
// archives finished before stay. Cancelled through `progress`, likewise.
std::vector<FetchItem> fetchTpuGraphs(
    const FetchOptions& options, ProgressSink* progress, const std::function<void(const FetchItem&)>& onItem = {});

} // namespace tgraph
