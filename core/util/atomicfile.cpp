// SPDX-License-Identifier: Apache-2.0
#include "core/util/atomicfile.h"

#include "core/util/error.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tgraph {

namespace {

std::string folderOf(const std::string& path)
{
    const size_t slash = path.find_last_of('/');
    if (slash == std::string::npos)
        return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

// fsync, treating "this kind of file cannot be synced" (EINVAL, e.g. some virtual file systems) as
// nothing to do.
bool syncDescriptor(int fd) { return ::fsync(fd) == 0 || errno == EINVAL; }

} // namespace

AtomicFile::AtomicFile(std::string path)
    : m_path(std::move(path))
    , m_target(m_path)
{
    struct stat st
    { };
    if (::stat(m_path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        // A device or a FIFO: nothing to replace, and renaming over it would remove it.
        m_fd = ::open(m_path.c_str(), O_WRONLY | O_CLOEXEC);
        if (m_fd < 0)
            throw InputError(m_path, "", std::string("cannot open for writing: ") + std::strerror(errno));
        m_tempPath = m_path;
        m_inPlace = true;
        return;
    }
    struct stat link
    { };
    if (::lstat(m_path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
        if (char* real = ::realpath(m_path.c_str(), nullptr)) {
            m_target = real;
            std::free(real);
        }
    }
    static std::atomic<unsigned> counter { 0 };
    int error = 0;
    for (int attempt = 0; attempt < 100 && m_fd < 0; ++attempt) {
        m_tempPath = m_target + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
        m_fd = ::open(m_tempPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        error = errno;
        if (m_fd < 0 && error != EEXIST)
            break;
    }
    if (m_fd < 0) {
        m_tempPath.clear();
        throw InputError(m_path, "", std::string("cannot create: ") + std::strerror(error));
    }
}

AtomicFile::~AtomicFile()
{
    if (m_fd >= 0)
        ::close(m_fd);
    if (!m_committed && !m_inPlace && !m_tempPath.empty())
        ::unlink(m_tempPath.c_str());
}

void AtomicFile::fail(const std::string& what, int error)
{
    throw InputError(m_path, "", what + ": " + std::strerror(error));
}

void AtomicFile::writeFully(const void* data, size_t size, int64_t offset)
{
    if (m_fd < 0)
        throw std::logic_error("AtomicFile: write after commit()");
    const auto* p = static_cast<const char*>(data);
    while (size) {
        const size_t chunk = std::min<size_t>(size, size_t(1) << 30);
        const ssize_t w = offset < 0 ? ::write(m_fd, p, chunk) : ::pwrite(m_fd, p, chunk, off_t(offset));
        if (w < 0) {
            if (errno == EINTR)
                continue;
            fail("write failed", errno);
        }
        p += w;
        size -= size_t(w);
        if (offset >= 0)
            offset += w;
    }
}

void AtomicFile::write(const void* data, size_t size)
{
    writeFully(data, size, -1);
    m_size += size;
}

void AtomicFile::writeAt(uint64_t offset, const void* data, size_t size)
{
    if (offset > m_size || size > m_size - offset)
        throw std::logic_error("AtomicFile: writeAt beyond the bytes written");
    writeFully(data, size, int64_t(offset));
}

void AtomicFile::commit()
{
    if (m_committed)
        return;
    if (m_fd < 0)
        throw std::logic_error("AtomicFile: commit() after a failed commit()");
    const int fd = m_fd;
    m_fd = -1;
    if (m_inPlace) {
        if (::close(fd) != 0)
            fail("write failed", errno);
        m_committed = true;
        return;
    }
    // The data must be on disk before the rename makes it the target: otherwise a power loss can
    // leave the new name pointing at a file whose blocks were never written.
    if (!syncDescriptor(fd)) {
        const int error = errno;
        ::close(fd);
        fail("cannot flush to disk", error);
    }
    if (::close(fd) != 0)
        fail("write failed", errno);
    if (::rename(m_tempPath.c_str(), m_target.c_str()) != 0)
        fail("cannot rename into place", errno);
    m_committed = true;
    syncFolder(folderOf(m_target));
}

void writeFileAtomically(const std::string& path, std::string_view bytes)
{
    AtomicFile file(path);
    file.write(bytes);
    file.commit();
}

void writeFileAtomically(const std::string& path, const std::function<void(AtomicFile&)>& writer)
{
    AtomicFile file(path);
    writer(file);
    file.commit();
}

void syncFolder(const std::string& folder)
{
    const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        throw InputError(folder, "", std::string("cannot open the folder to sync it: ") + std::strerror(errno));
    const bool synced = syncDescriptor(fd);
    const int error = errno;
    ::close(fd);
    if (!synced)
        throw InputError(folder, "", std::string("cannot flush the folder to disk: ") + std::strerror(error));
}

} // namespace tgraph
