// SPDX-License-Identifier: Apache-2.0
#include "core/dump/dumpstage.h"

#include "core/dump/decompress.h"
#include "core/hlo/hloproto.h"
#include "core/hlo/hlotext.h"
#include "core/hlo/hloverify.h"
#include "core/util/error.h"
#include "core/util/format.h"
#include "core/util/memorybudget.h"
#include "core/util/terminaltext.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tgraph {

namespace {

struct Fd
{
    int fd = -1;
    ~Fd()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

std::string realPath(const std::string& path)
{
    char* resolved = ::realpath(path.c_str(), nullptr);
    if (!resolved)
        return {};
    std::string out(resolved);
    std::free(resolved);
    return out;
}

} // namespace

std::string readDumpFile(const DumpIndex& index, size_t file)
{
    const DumpFile& f = index.files.at(file);
    const std::string path = index.path(file);
    const std::string shown = terminalText(path);
    std::string openPath = path;
    if (f.entry.type == DumpEntry::Type::LinkInside) {
        // Where the link leads now, which must still be inside the folder.
        const std::string root = realPath(index.folder);
        const std::string target = realPath(path);
        const std::string inside = root == "/" ? root : root + "/";
        if (root.empty() || target.empty())
            throw InputError(shown, "", "link to nothing");
        if (target.size() <= inside.size() || target.compare(0, inside.size(), inside) != 0)
            throw InputError(shown, "", "link out of the folder (not followed)");
        openPath = target;
    }
    Fd fd { ::open(openPath.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) };
    if (fd.fd < 0) {
        const int err = errno;
        if (err == ELOOP)
            throw InputError(shown, "", "became a link since the folder was listed (not followed)");
        throw InputError(shown, "", std::string("cannot open: ") + std::strerror(err));
    }
    struct stat st
    { };
    if (::fstat(fd.fd, &st) != 0 || !S_ISREG(st.st_mode))
        throw InputError(shown, "", "not a regular file");
    const uint64_t budget = memoryBudgetBytes();
    if (uint64_t(st.st_size) > budget)
        throw InputError(shown, "", formatBytes(uint64_t(st.st_size)) + ", more than " + describeMemoryBudget(budget));
    std::string bytes(size_t(st.st_size), '\0');
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t got = ::read(fd.fd, bytes.data() + done, bytes.size() - done);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (got < 0)
            throw InputError(shown, "", std::string("read failed: ") + std::strerror(errno));
        if (got == 0)
            break; // shrank while reading: what is there
        done += size_t(got);
    }
    bytes.resize(done);
    switch (f.name.compression) {
    case DumpCompression::None:
        return bytes;
    case DumpCompression::Gzip:
        return gunzip(bytes, shown, budget);
    case DumpCompression::Xz:
        return unxz(bytes, shown, budget);
    }
    return bytes;
}

HloModule openDumpStage(const DumpIndex& index, const DumpStage& stage)
{
    if (stage.hloFiles.empty()) {
        const size_t any = stage.mainFile();
        throw InputError(terminalText(any == SIZE_MAX ? index.folder : index.path(any)),
            "stage " + terminalText(stage.stage), "no HLO text or protobuf file for this stage");
    }
    const size_t file = stage.hloFiles.front();
    const std::string shown = terminalText(index.path(file));
    const std::string bytes = readDumpFile(index, file);
    if (looksLikeHloText(bytes)) {
        HloTextOptions lean;
        lean.keepAttributes = false;
        return parseHloText(bytes, shown, lean); // verified by the parser
    }
    const auto span = std::as_bytes(std::span(bytes.data(), bytes.size()));
    if (bytes.empty())
        throw InputError(shown, "", "empty file");
    if (!looksLikeHloProto(span.first(std::min<size_t>(span.size(), 4096))))
        throw InputError(shown, "", "neither HLO text nor an HLO protobuf");
    HloProtoFile proto = readHloProto(span, shown);
    for (ModuleTuningData& d : proto.modules)
        if (d.hasModule) {
            verifyHloModule(d.module, shown);
            return std::move(d.module);
        }
    throw InputError(shown, "", "a protobuf without an HLO module");
}

DumpStageCounts countHloModule(const HloModule& module)
{
    DumpStageCounts c;
    c.instructions = int64_t(module.instructions.size());
    c.computations = int64_t(module.computations.size());
    for (const HloInstruction& i : module.instructions)
        c.fusions += i.opcode == "fusion" ? 1 : 0;
    return c;
}

DumpStageCounts countDumpStage(const DumpIndex& index, const DumpStage& stage)
{
    return countHloModule(openDumpStage(index, stage));
}

} // namespace tgraph
