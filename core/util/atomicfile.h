// SPDX-License-Identifier: Apache-2.0
#pragma once

// Files written whole or not at all (docs/formats.md §10). The bytes go to a new temporary file
// beside the target, created exclusively under a name no other writer uses
// ("TARGET.tmp-PID-N"); commit() flushes it to disk, renames it over the target and syncs the
// folder, so after a crash or power loss a reader finds the old file or the new one, never a part.
// Until commit() the target is untouched; destruction without commit() removes the temporary
// file. Every failure throws InputError naming the target.
//
// A target that exists and is not a regular file (/dev/null, a FIFO) is written in place: there
// is no file to replace. A symbolic link to a file is followed, so the file it names is replaced.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace tgraph {

class AtomicFile
{
public:
    explicit AtomicFile(std::string path);
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    // Appends bytes at the end.
    void write(const void* data, size_t size);
    void write(std::string_view text) { write(text.data(), text.size()); }
    // Overwrites bytes already written (a header patched once its sizes are known).
    void writeAt(uint64_t offset, const void* data, size_t size);
    // Bytes written so far (the end offset).
    uint64_t size() const { return m_size; }

    void commit();

    const std::string& path() const { return m_path; }
    // The file being written until commit() (the target itself when written in place).
    const std::string& tempPath() const { return m_tempPath; }

private:
    [[noreturn]] void fail(const std::string& what, int error);
    // All the bytes, appended (offset < 0: write(2), which FIFOs and devices take) or at `offset`.
    void writeFully(const void* data, size_t size, int64_t offset);

    std::string m_path; // as the caller named it (errors)
    std::string m_target; // the file to replace (symbolic links followed)
    std::string m_tempPath;
    int m_fd = -1;
    uint64_t m_size = 0;
    bool m_inPlace = false;
    bool m_committed = false;
};

// Writes `bytes` to `path` through an AtomicFile.
void writeFileAtomically(const std::string& path, std::string_view bytes);

// The streaming form: `writer` fills the file. When it throws, the temporary file is removed, the
// target keeps its old content and the exception propagates.
void writeFileAtomically(const std::string& path, const std::function<void(AtomicFile&)>& writer);

// Makes entries created, renamed or removed in `folder` durable (fsync of the folder).
// InputError naming the folder.
void syncFolder(const std::string& folder);

} // namespace tgraph
