// SPDX-License-Identifier: Apache-2.0
#include "core/dump/dumpindex.h"

#include "core/util/error.h"
#include "core/util/terminaltext.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <map>
#include <set>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>

namespace tgraph {

namespace {

int64_t mtimeOf(const struct stat& st) { return int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec; }

void setFileFacts(DumpEntry& e, const struct stat& st)
{
    e.size = uint64_t(st.st_size);
    e.mtimeNs = mtimeOf(st);
    e.inode = uint64_t(st.st_ino);
}

// Where a link leads, as seen from the folder whose real path is `root`.
void classifyLink(DumpEntry& e, const std::string& root)
{
    const std::string path = (root == "/" ? std::string() : root) + "/" + e.name;
    char* resolved = ::realpath(path.c_str(), nullptr);
    if (!resolved) {
        e.type = DumpEntry::Type::LinkBroken;
        return;
    }
    const std::string target(resolved);
    std::free(resolved);
    const std::string inside = root == "/" ? root : root + "/";
    if (target.size() <= inside.size() || target.compare(0, inside.size(), inside) != 0) {
        e.type = DumpEntry::Type::LinkOutside;
        return;
    }
    struct stat st
    { };
    if (::stat(target.c_str(), &st) != 0) {
        e.type = DumpEntry::Type::LinkBroken;
        return;
    }
    if (S_ISREG(st.st_mode)) {
        e.type = DumpEntry::Type::LinkInside;
        setFileFacts(e, st);
    } else {
        e.type = S_ISDIR(st.st_mode) ? DumpEntry::Type::Folder : DumpEntry::Type::Special;
    }
}

// Order of the stages of a module (docs/formats.md §17.2).
int stageRank(const DumpStage& s)
{
    switch (s.kind) {
    case DumpStageKind::BeforeOptimizations:
        return 0;
    case DumpStageKind::Named:
        return s.stage.starts_with("before_") ? 1 : 6;
    case DumpStageKind::Pass:
    case DumpStageKind::DuringPass:
        return 2;
    case DumpStageKind::AfterOptimizationsBeforeBufferAssignment:
        return 3;
    case DumpStageKind::AfterOptimizations:
        return 4;
    case DumpStageKind::AfterOptimizationsAfterBufferAssignment:
        return 5;
    }
    return 7;
}

bool isAfterOptimizations(DumpStageKind k)
{
    return k == DumpStageKind::AfterOptimizations || k == DumpStageKind::AfterOptimizationsBeforeBufferAssignment
        || k == DumpStageKind::AfterOptimizationsAfterBufferAssignment;
}

std::string whyOther(DumpEntry::Type type)
{
    switch (type) {
    case DumpEntry::Type::File:
    case DumpEntry::Type::LinkInside:
        return "not named like an XLA dump file";
    case DumpEntry::Type::LinkOutside:
        return "link out of the folder (not followed)";
    case DumpEntry::Type::LinkBroken:
        return "link to nothing";
    case DumpEntry::Type::Folder:
        return "folder (not searched)";
    case DumpEntry::Type::Special:
        return "not a regular file (not opened)";
    }
    return "?";
}

using ModuleKey = std::tuple<int64_t, std::string, std::optional<uint64_t>>;

} // namespace

const char* dumpEntryTypeName(DumpEntry::Type type)
{
    switch (type) {
    case DumpEntry::Type::File:
        return "file";
    case DumpEntry::Type::LinkInside:
        return "link";
    case DumpEntry::Type::LinkOutside:
        return "link-outside";
    case DumpEntry::Type::LinkBroken:
        return "link-broken";
    case DumpEntry::Type::Folder:
        return "folder";
    case DumpEntry::Type::Special:
        return "special";
    }
    return "?";
}

std::vector<DumpEntry> listDumpFolder(const std::string& folder)
{
    const std::string shown = terminalText(folder);
    const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        const int err = errno;
        if (err == ENOTDIR)
            throw InputError(shown, "", "not a folder");
        if (err == ENOENT)
            throw InputError(shown, "", "no such folder");
        throw InputError(shown, "", std::string("cannot open the folder: ") + std::strerror(err));
    }
    char* real = ::realpath(folder.c_str(), nullptr);
    DIR* dir = ::fdopendir(fd);
    if (!real || !dir) {
        const int err = errno;
        std::free(real);
        if (dir)
            ::closedir(dir);
        else
            ::close(fd);
        throw InputError(shown, "", std::string("cannot read the folder: ") + std::strerror(err));
    }
    const std::string root(real);
    std::free(real);
    std::vector<DumpEntry> entries;
    errno = 0;
    while (const dirent* d = ::readdir(dir)) {
        const std::string_view n(d->d_name);
        if (n == "." || n == "..")
            continue;
        struct stat st
        { };
        if (::fstatat(::dirfd(dir), d->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue; // removed since readdir saw it
        DumpEntry e;
        e.name = std::string(n);
        if (S_ISREG(st.st_mode)) {
            e.type = DumpEntry::Type::File;
            setFileFacts(e, st);
        } else if (S_ISDIR(st.st_mode)) {
            e.type = DumpEntry::Type::Folder;
        } else if (S_ISLNK(st.st_mode)) {
            classifyLink(e, root);
        } else {
            e.type = DumpEntry::Type::Special;
        }
        entries.push_back(std::move(e));
        errno = 0;
    }
    const int err = errno;
    ::closedir(dir);
    if (err != 0)
        throw InputError(shown, "", std::string("cannot read the folder: ") + std::strerror(err));
    std::sort(entries.begin(), entries.end(), [](const DumpEntry& a, const DumpEntry& b) { return a.name < b.name; });
    return entries;
}

size_t DumpStage::mainFile() const
{
    if (!hloFiles.empty())
        return hloFiles.front();
    return attachments.empty() ? SIZE_MAX : attachments.front();
}

size_t DumpIndex::stageCount() const
{
    size_t n = 0;
    for (const DumpModule& m : modules)
        n += m.stages.size();
    return n;
}

std::string DumpIndex::path(size_t file) const { return folder + "/" + files[file].entry.name; }

DumpIndex buildDumpIndex(std::string folder, std::vector<DumpEntry> entries)
{
    DumpIndex index;
    index.folder = std::move(folder);
    std::sort(entries.begin(), entries.end(), [](const DumpEntry& a, const DumpEntry& b) { return a.name < b.name; });
    for (DumpEntry& e : entries) {
        std::optional<DumpFileName> name;
        if (e.type == DumpEntry::Type::File || e.type == DumpEntry::Type::LinkInside)
            name = parseDumpFileName(e.name);
        if (name)
            index.files.push_back({ std::move(e), std::move(*name) });
        else
            index.others.push_back({ e, whyOther(e.type) });
    }

    // The names each module id's files give for certain, then the guessed ones settled with them.
    std::map<int64_t, std::vector<std::string>> namesOfId;
    for (const DumpFile& f : index.files)
        if (f.name.nameCertain && !f.name.moduleName.empty()) {
            auto& names = namesOfId[f.name.moduleId];
            if (std::find(names.begin(), names.end(), f.name.moduleName) == names.end())
                names.push_back(f.name.moduleName);
        }
    for (DumpFile& f : index.files)
        if (!f.name.nameCertain)
            if (const auto it = namesOfId.find(f.name.moduleId); it != namesOfId.end())
                resolveDumpFileName(f.name, it->second);

    // Module of each file: a nameless file joins the one named module of its id; a file without a
    // timestamp joins the one timestamped module of its id and name.
    auto nameOf = [&](const DumpFile& f) -> std::string {
        if (!f.name.moduleName.empty())
            return f.name.moduleName;
        const auto it = namesOfId.find(f.name.moduleId);
        return it != namesOfId.end() && it->second.size() == 1 ? it->second.front() : std::string();
    };
    std::map<std::pair<int64_t, std::string>, std::set<uint64_t>> timestampsOf;
    for (const DumpFile& f : index.files)
        if (f.name.timestamp)
            timestampsOf[{ f.name.moduleId, nameOf(f) }].insert(*f.name.timestamp);
    std::map<ModuleKey, std::vector<size_t>> filesOfModule;
    for (size_t k = 0; k < index.files.size(); ++k) {
        const DumpFile& f = index.files[k];
        const std::string name = nameOf(f);
        std::optional<uint64_t> timestamp = f.name.timestamp;
        if (!timestamp) {
            const auto it = timestampsOf.find({ f.name.moduleId, name });
            if (it != timestampsOf.end() && it->second.size() == 1)
                timestamp = *it->second.begin();
        }
        filesOfModule[{ f.name.moduleId, name, timestamp }].push_back(k);
    }

    for (auto& [key, fileIds] : filesOfModule) {
        DumpModule m;
        std::tie(m.id, m.name, m.timestamp) = key;
        std::map<std::string, size_t> stageOf;
        bool hasPtx = false;
        for (size_t k : fileIds) {
            const DumpFileName& n = index.files[k].name;
            if (m.changelist.empty())
                m.changelist = n.changelist;
            if (!n.isStageFile()) {
                hasPtx = hasPtx || n.kind == DumpFileKind::Ptx;
                m.artifacts.push_back(k);
                continue;
            }
            auto [it, fresh] = stageOf.try_emplace(n.stage, m.stages.size());
            if (fresh) {
                DumpStage s;
                s.kind = n.stageKind;
                s.stage = n.stage;
                s.index = n.stageIndex;
                s.backend = n.backend;
                s.pipeline = n.pipeline;
                s.pass = n.pass;
                s.nextPass = n.nextPass;
                s.step = n.step;
                m.stages.push_back(std::move(s));
            }
            DumpStage& s = m.stages[it->second];
            if (n.kind == DumpFileKind::HloText || n.kind == DumpFileKind::HloProto)
                s.hloFiles.push_back(k);
            else
                s.attachments.push_back(k);
        }
        const auto& files = index.files;
        for (DumpStage& s : m.stages)
            std::stable_sort(s.hloFiles.begin(), s.hloFiles.end(), [&](size_t a, size_t b) {
                const DumpFileName& x = files[a].name;
                const DumpFileName& y = files[b].name;
                return std::tie(x.kind, x.compression) < std::tie(y.kind, y.compression);
            });
        std::stable_sort(m.stages.begin(), m.stages.end(), [](const DumpStage& a, const DumpStage& b) {
            return std::make_tuple(stageRank(a), a.index, std::string_view(a.stage))
                < std::make_tuple(stageRank(b), b.index, std::string_view(b.stage));
        });
        bool tpu = false;
        for (const DumpStage& s : m.stages) {
            if (!isAfterOptimizations(s.kind))
                continue;
            tpu = tpu || s.kind != DumpStageKind::AfterOptimizations;
            if (!s.backend.empty() && ("," + m.backend + ",").find("," + s.backend + ",") == std::string::npos)
                m.backend += (m.backend.empty() ? "" : ",") + s.backend;
        }
        if (m.backend.empty())
            m.backend = tpu ? "tpu" : hasPtx ? "gpu" : "";
        index.modules.push_back(std::move(m));
    }
    return index;
}

DumpIndex indexDumpFolder(const std::string& folder) { return buildDumpIndex(folder, listDumpFolder(folder)); }

DumpChanges diffDumpListings(const std::vector<DumpEntry>& before, const std::vector<DumpEntry>& after)
{
    DumpChanges c;
    size_t i = 0, j = 0;
    while (i < before.size() || j < after.size()) {
        if (j == after.size() || (i < before.size() && before[i].name < after[j].name)) {
            c.removed.push_back(before[i++].name);
        } else if (i == before.size() || after[j].name < before[i].name) {
            c.added.push_back(after[j++].name);
        } else {
            if (!(before[i] == after[j]))
                c.changed.push_back(after[j].name);
            ++i;
            ++j;
        }
    }
    return c;
}

} // namespace tgraph
