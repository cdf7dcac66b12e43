// SPDX-License-Identifier: Apache-2.0
#include "archive.h"

#include "core/util/error.h"
#include "core/util/format.h"
#include "core/util/progress.h"

#include <archive.h>
#include <archive_entry.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <set>
#include <sys/statvfs.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace tgraph {

namespace {

struct Reader
{
    Reader()
        : a(archive_read_new())
    {
        if (!a)
            throw std::bad_alloc();
    }
    ~Reader() { archive_read_free(a); }
    Reader(const Reader&) = delete;
    Reader& operator=(const Reader&) = delete;
    struct archive* a;
};

struct Fd
{
    explicit Fd(int f)
        : fd(f)
    { }
    ~Fd()
    {
        if (fd >= 0)
            ::close(fd);
    }
    int fd;
};

std::string libarchiveError(struct archive* a)
{
    const char* s = archive_error_string(a);
    return s && *s ? s : "damaged archive";
}

// "./npz/x" -> "npz/x"; trailing '/' of folders dropped.
std::string cleanName(std::string name)
{
    while (name.rfind("./", 0) == 0)
        name.erase(0, 2);
    while (name.size() > 1 && name.back() == '/')
        name.pop_back();
    return name;
}

// The problem with a member's path, empty when it is acceptable.
std::string pathProblem(const std::string& name)
{
    if (name.empty())
        return "empty member name";
    if (name.front() == '/')
        return "absolute path refused";
    for (const auto& part : fs::path(name))
        if (part == "..")
            return "'..' in the path refused";
    return {};
}

uint64_t freeBytes(const std::string& folder)
{
    struct statvfs s
    { };
    if (::statvfs(folder.c_str(), &s) != 0)
        return UINT64_MAX;
    return uint64_t(s.f_bavail) * uint64_t(s.f_frsize);
}

} // namespace

ExtractResult extractArchive(
    const std::string& archive, const std::string& prefixIn, const std::string& dest, ProgressSink* progress)
{
    const std::string prefix = cleanName(prefixIn);
    const std::string archiveLabel = fs::path(archive).filename().string();
    std::error_code ec;
    const uint64_t archiveSize = fs::file_size(archive, ec);
    if (ec)
        throw InputError(archive, "open", ec.message());
    fs::create_directories(dest, ec);
    if (ec)
        throw InputError(dest, "create folder", ec.message());

    Reader r;
    archive_read_support_format_tar(r.a);
    archive_read_support_filter_none(r.a);
    if (archive_read_open_filename(r.a, archive.c_str(), 1 << 20) != ARCHIVE_OK)
        throw InputError(archive, "open", libarchiveError(r.a));

    ExtractResult result;
    std::set<std::string> seen;
    ProgressScope scope(progress, "extract " + archiveLabel, archiveSize);
    std::vector<char> buffer(1 << 20);
    for (;;) {
        struct archive_entry* entry = nullptr;
        const int rc = archive_read_next_header(r.a, &entry);
        if (rc == ARCHIVE_EOF)
            break;
        if (rc < ARCHIVE_WARN)
            throw InputError(
                archive, "after " + std::to_string(result.files.size()) + " members", libarchiveError(r.a));
        const char* rawName = archive_entry_pathname(entry);
        const std::string name = cleanName(rawName ? rawName : "");
        const std::string place = "member '" + name + "'";
        if (const std::string problem = pathProblem(name); !problem.empty())
            throw InputError(archive, place, problem);
        if (archive_entry_hardlink(entry))
            throw InputError(archive, place, "hard link refused");
        const mode_t type = archive_entry_filetype(entry);
        if (type == AE_IFLNK)
            throw InputError(archive, place, "symbolic link refused");
        if (type == AE_IFDIR)
            continue; // folders are made as the files need them
        if (type != AE_IFREG)
            throw InputError(archive, place, "not a regular file (device, FIFO or socket) refused");
        const fs::path path(name);
        if (cleanName(path.parent_path().string()) != prefix) {
            if (name.rfind(prefix + "/", 0) == 0)
                throw InputError(archive, place, "file below a subfolder of " + prefix + "/ refused");
            result.ignored.push_back(name);
            continue;
        }
        const std::string fileName = path.filename().string();
        if (fileName.empty() || fileName == "." || fileName.front() == '.')
            throw InputError(archive, place, "hidden or empty file name refused");
        if (!seen.insert(fileName).second)
            throw InputError(archive, place, "appears twice in the archive");
        const int64_t declared = archive_entry_size_is_set(entry) ? archive_entry_size(entry) : -1;
        if (declared >= 0) {
            const uint64_t room = freeBytes(dest);
            if (uint64_t(declared) > room)
                throw InputError(archive, place,
                    "declares " + formatBytes(uint64_t(declared)) + ", more than the " + formatBytes(room) + " free in "
                        + dest);
        }
        const std::string out = (fs::path(dest) / fileName).string();
        Fd fd(::open(out.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
        if (fd.fd < 0)
            throw InputError(out, "create", std::strerror(errno));
        uint64_t written = 0;
        for (;;) {
            const la_ssize_t n = archive_read_data(r.a, buffer.data(), buffer.size());
            if (n == 0)
                break;
            if (n < 0)
                throw InputError(archive, place, libarchiveError(r.a));
            for (la_ssize_t off = 0; off < n;) {
                const ssize_t w = ::write(fd.fd, buffer.data() + off, size_t(n - off));
                if (w < 0) {
                    if (errno == EINTR)
                        continue;
                    throw InputError(out, "write", std::strerror(errno));
                }
                off += w;
            }
            written += uint64_t(n);
            scope.advanceTo(std::min<uint64_t>(uint64_t(archive_filter_bytes(r.a, -1)), archiveSize));
        }
        if (declared >= 0 && written != uint64_t(declared))
            throw InputError(archive, place,
                "holds " + std::to_string(written) + " bytes of the " + std::to_string(declared) + " declared");
        if (::fsync(fd.fd) != 0)
            throw InputError(out, "write", std::strerror(errno));
        result.files.push_back(name);
        result.bytes += written;
    }
    scope.advanceTo(archiveSize);
    return result;
}

std::string archiveLibraryVersion() { return archive_version_string(); }

} // namespace tgraph
