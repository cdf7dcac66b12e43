// SPDX-License-Identifier: Apache-2.0
#include "core/io/filebytes.h"

#include "core/util/error.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tgraph {

FileBytes FileBytes::read(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw InputError(path, "", std::string("cannot open: ") + std::strerror(errno));
    struct stat st
    { };
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw InputError(path, "", "not a regular file");
    }
    FileBytes f;
    f.m_size = size_t(st.st_size);
    f.m_data.reset(static_cast<char*>(allocateArrayMemory(std::max<size_t>(f.m_size, 1))));
    size_t done = 0;
    while (done < f.m_size) {
        const ssize_t got = ::read(fd, f.m_data.get() + done, f.m_size - done);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            const int err = errno;
            ::close(fd);
            throw InputError(
                path, "", got < 0 ? std::string("read failed: ") + std::strerror(err) : "file shrank while reading");
        }
        done += size_t(got);
    }
    ::close(fd);
    return f;
}

} // namespace tgraph
