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

// One archive of the dataset: a split of a collection.
struct FetchArchive
{
    std::string collection; // "layout:xla:default"
    std::string split;
    std::string archive; // "npz_layout_xla_default_train.tar"
    std::string folder; // "npz/layout/xla/default/train"
};

struct FetchItem : FetchArchive
{
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

// What a fetch with `options` would do with one archive, found without fetching anything.
struct FetchPlanItem : FetchArchive
{
    bool present = false; // its split folder is complete: skipped
    bool downloaded = false; // the whole archive waits in the work folder (kept): extracted, not downloaded
    uint64_t partBytes = 0; // bytes of a broken-off download the fetch resumes from
};

// The archives of `options` (collections x splits, in fetch order) and what a fetch would find of
// each in the output folder; nothing is written or asked. Throws InputError for an unknown
// collection or split.
std::vector<FetchPlanItem> planFetch(const FetchOptions& options);

// The size of a published archive where a fetch would take it from.
struct ArchiveSize
{
    std::string archive;
    int64_t bytes = -1; // -1: unknown
    std::string problem; // why it is unknown ("" when the server just does not tell)
};

// The sizes of `archives` at `mirror` (empty = kTpuGraphsBaseUrl): the files' in a mirror folder,
// else the server's answers to HEAD requests (Content-Length). A server that does not answer
// within `connectTimeoutSeconds` is not asked again for the other archives. Never throws for a
// size it cannot learn: that size is -1 with the problem.
std::vector<ArchiveSize> archiveSizes(
    const std::string& mirror, const std::vector<std::string>& archives, int connectTimeoutSeconds = 10);

// Fetches every requested archive that is not already present. `onItem` is called after each
// archive (fetched or found present). Throws InputError naming the archive (and member) when an
// archive is refused or damaged or a download fails: that split folder is not created, temporary
// files are removed (a download broken off stays as .part for the next call to resume), and
// archives finished before stay. Cancelled through `progress`, likewise. Whether it ends well or
// not, it leaves no folder it created empty: not the work folder, not the output folder.
std::vector<FetchItem> fetchTpuGraphs(
    const FetchOptions& options, ProgressSink* progress, const std::function<void(const FetchItem&)>& onItem = {});

} // namespace tgraph
