// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/io/npy.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace tgraph {

class AtomicFile;
class ProgressSink;

// One member of a zip archive, from its central directory entry.
struct ZipMember
{
    std::string name; // "node_feat.npy"
    uint16_t method = 0; // 0 stored, 8 deflated
    uint16_t flags = 0;
    uint32_t crc32 = 0;
    uint64_t compressedSize = 0;
    uint64_t uncompressedSize = 0;
    uint64_t localHeaderOffset = 0;
};

// Reads .npz archives as numpy writes them (np.savez: stored, np.savez_compressed: deflated),
// including zip64. Members are streamed: a deflated member is inflated straight into the
// destination array and a stored one read in chunks, CRC-32 checked in both cases, so loading
// holds the arrays themselves plus a small constant. Every error names the file and member.
class NpzReader
{
public:
    explicit NpzReader(std::string path);
    ~NpzReader();
    NpzReader(const NpzReader&) = delete;
    NpzReader& operator=(const NpzReader&) = delete;

    const std::string& path() const { return m_path; }
    uint64_t fileSize() const { return m_fileSize; }
    const std::vector<ZipMember>& members() const { return m_members; }
    // Array names: member names with ".npy" removed, in archive order.
    std::vector<std::string> keys() const;
    bool contains(std::string_view key) const;
    const ZipMember& member(std::string_view key) const;

    // Header only (reads and inflates just the first bytes of the member).
    NpyHeader header(std::string_view key);
    // Raw array, stored dtype and order preserved.
    NpyArray readRaw(std::string_view key, ProgressSink* progress = nullptr);
    // Native C-ordered array of T, converted and checked element by element while streaming.
    template <class T> NdArray<T> read(std::string_view key, ProgressSink* progress = nullptr);

private:
    class MemberStream;
    NpyHeader readNpyHeader(MemberStream& stream) const;
    const ZipMember& findMember(std::string_view key) const;
    void readCentralDirectory();

    std::string m_path;
    int m_fd = -1;
    uint64_t m_fileSize = 0;
    std::vector<ZipMember> m_members;
};

enum class NpzCompression { Stored, Deflated };

// Writes .npz archives that np.load reads with identical keys, dtypes, shapes and values
// (zip64 extra fields as numpy writes them, so members may exceed 4 GiB). Writes through an
// AtomicFile (core/util/atomicfile.h): commit() syncs the archive to disk and renames it into
// place, and destruction without commit() removes it, so a failed write never leaves a partial
// file behind and a crash leaves the old file or the new one.
class NpzWriter
{
public:
    NpzWriter(std::string path, NpzCompression compression, int level = 6);
    ~NpzWriter();
    NpzWriter(const NpzWriter&) = delete;
    NpzWriter& operator=(const NpzWriter&) = delete;

    void add(const std::string& key, const NpyArray& array);
    template <class T> void add(const std::string& key, const NdArray<T>& array) { add(key, array, dtypeOf<T>()); }
    // Stores `array` with dtype `storeAs` (e.g. int64 values as uint8); values must fit.
    template <class T> void add(const std::string& key, const NdArray<T>& array, const DType& storeAs);

    // Reports bytes written (of `totalBytes`, the caller's estimate) and stops with
    // tgraph::Cancelled, removing the temporary file, when the sink asks to.
    void setProgress(ProgressSink* progress, uint64_t totalBytes);

    // A member with arbitrary bytes (e.g. a JSON metadata file); `name` is used as is.
    void addFile(const std::string& name, const void* data, size_t size);

    void commit();
    const std::string& path() const { return m_path; }

private:
    class MemberSink;
    void beginMember(const std::string& name);
    void writeMemberBytes(const void* data, size_t size);
    void endMember();
    void writeRaw(const void* data, size_t size);

    std::string m_path;
    NpzCompression m_compression;
    int m_level;
    std::unique_ptr<AtomicFile> m_file;
    bool m_committed = false;
    std::vector<ZipMember> m_written;
    std::unordered_set<std::string> m_names;
    std::unique_ptr<MemberSink> m_sink;
    ProgressSink* m_progress = nullptr;
    uint64_t m_bytesIn = 0;
};

// The zlib this process runs with, as the library reports it (--version, About).
std::string zlibVersion();

} // namespace tgraph
