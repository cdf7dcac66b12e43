// SPDX-License-Identifier: Apache-2.0
#pragma once

// For the fuzz targets whose reader takes a path (npz, project, weights): the input written to a
// file of a private folder, removed with its SQLite side files on destruction. The folder is on
// /dev/shm when there is one: tmpfs never reuses an inode number, so a project file is always new
// to the reader (core/store checks a file it has not seen with PRAGMA quick_check, by device and
// inode), and nothing touches a disk. TGRAPH_MEMORY_BUDGET defaults to 256M here, so that a
// declared size the budget admits still fits libFuzzer's -rss_limit_mb=2048.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace tgraph::fuzz {

inline const std::string& scratchFolder()
{
    static const std::string folder = [] {
        ::setenv("TGRAPH_MEMORY_BUDGET", "256M", 0);
        std::string pattern = (::access("/dev/shm", W_OK) == 0 ? std::string("/dev/shm") : std::string("/tmp"))
            + "/tgraph-fuzz-XXXXXX";
        if (!::mkdtemp(pattern.data())) {
            std::perror("mkdtemp");
            std::abort();
        }
        return pattern;
    }();
    return folder;
}

class InputFile
{
public:
    InputFile(const uint8_t* data, size_t size, const char* name)
        : m_path(scratchFolder() + "/" + name)
    {
        std::FILE* f = std::fopen(m_path.c_str(), "wb");
        if (!f || (size && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) {
            std::perror(m_path.c_str());
            std::abort();
        }
    }
    ~InputFile()
    {
        for (const char* suffix : { "", "-wal", "-shm", "-journal" })
            std::remove((m_path + suffix).c_str());
    }
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
};

} // namespace tgraph::fuzz
