// SPDX-License-Identifier: Apache-2.0
#pragma once

// Safe extraction of a dataset archive (tar, through libarchive; docs/formats.md §16.3).

#include <cstdint>
#include <string>
#include <vector>

namespace tgraph {

class ProgressSink;

struct ExtractResult
{
    std::vector<std::string> files; // extracted, as named in the archive ("npz/tile/xla/train/a.npz")
    std::vector<std::string> ignored; // regular files outside `prefix`, not extracted
    uint64_t bytes = 0; // bytes written
};

// Extracts the regular files of the tar `archive` that lie directly in the folder `prefix`
// ("npz/tile/xla/train") into the folder `dest` (created if needed) under their file names.
// Member paths are checked before anything is written: an absolute path, a ".." component, a
// symbolic or hard link, a device or FIFO, a file below a subfolder of `prefix`, a name seen twice
// and a member larger than the free space of `dest` are refused. A damaged archive (bad header,
// truncated data) is refused too. Every refusal is an InputError naming the archive, the member
// and the problem; files already written to `dest` stay for the caller to remove (extract into a
// fresh folder). Cancelled through `progress`.
ExtractResult extractArchive(
    const std::string& archive, const std::string& prefix, const std::string& dest, ProgressSink* progress);

// libarchive's version, for --version texts.
std::string archiveLibraryVersion();

} // namespace tgraph
