// SPDX-License-Identifier: Apache-2.0
#include "fetch.h"

#include "archive.h"
#include "download.h"
#include "treecheck.h"

#include "core/util/atomicfile.h"
#include "core/util/error.h"
#include "core/util/json.h"
#include "core/util/progress.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/file.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace tgraph {

namespace {

// Removes a folder when it goes out of scope, unless released.
class FolderGuard
{
public:
    explicit FolderGuard(fs::path path)
        : m_path(std::move(path))
    { }
    ~FolderGuard()
    {
        if (!m_path.empty()) {
            std::error_code ec;
            fs::remove_all(m_path, ec);
        }
    }
    FolderGuard(const FolderGuard&) = delete;
    FolderGuard& operator=(const FolderGuard&) = delete;
    void release() { m_path.clear(); }

private:
    fs::path m_path;
};

std::string joinUrl(std::string base, const std::string& name)
{
    if (!base.empty() && base.back() != '/')
        base += '/';
    return base + name;
}

// Flushes every file written below `folder` to disk (one syncfs for the file system).
void syncFileSystem(const fs::path& folder)
{
    const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return;
    ::syncfs(fd);
    ::close(fd);
}

std::vector<const TpuCollection*> resolveCollections(const std::vector<std::string>& ids)
{
    std::vector<const TpuCollection*> list;
    if (ids.empty()) {
        for (const auto& c : tpuCollections())
            list.push_back(&c);
        return list;
    }
    for (const auto& id : ids) {
        const TpuCollection* c = findTpuCollection(id);
        if (!c)
            throw InputError("--collections", id, "not a TpuGraphs collection");
        list.push_back(c);
    }
    return list;
}

std::vector<std::string> resolveSplits(const std::vector<std::string>& requested)
{
    std::vector<std::string> splits = requested.empty() ? tpuSplits() : requested;
    for (const auto& s : splits)
        if (std::find(tpuSplits().begin(), tpuSplits().end(), s) == tpuSplits().end())
            throw InputError("--splits", s, "not a split (train, valid, test)");
    return splits;
}

FetchArchive fetchArchive(const TpuCollection& collection, const std::string& split)
{
    return { collection.id, split, archiveName(collection, split), splitFolder(collection, split) };
}

// The folders create_directories(path) would make: path and its parents that do not exist yet,
// deepest first.
std::vector<fs::path> missingFolders(const fs::path& path)
{
    std::vector<fs::path> missing;
    std::error_code ec;
    for (fs::path p = fs::absolute(path, ec).lexically_normal(); !p.empty() && !fs::exists(p, ec);
         p = p.parent_path()) {
        if (p.has_filename())
            missing.push_back(p);
        else if (p == p.parent_path())
            break;
    }
    return missing;
}

// At the end of a fetch, however it ends: the work folder goes when nothing is left in it (no .part
// to resume, no kept archive), and so do the folders the fetch made when they stayed empty.
class EmptyFolderSweeper
{
public:
    EmptyFolderSweeper(fs::path work, std::vector<fs::path> created)
        : m_work(std::move(work))
        , m_created(std::move(created))
    { }
    ~EmptyFolderSweeper()
    {
        std::error_code ec;
        if (fs::is_directory(m_work, ec) && fs::is_empty(m_work, ec))
            fs::remove(m_work, ec);
        for (const fs::path& folder : m_created) // deepest first
            if (fs::is_directory(folder, ec) && fs::is_empty(folder, ec))
                fs::remove(folder, ec);
    }
    EmptyFolderSweeper(const EmptyFolderSweeper&) = delete;
    EmptyFolderSweeper& operator=(const EmptyFolderSweeper&) = delete;

private:
    fs::path m_work;
    std::vector<fs::path> m_created;
};

// Loads every extracted file as a graph of `kind` with the published dtypes; InputError naming
// the archive and the member on the first that fails.
void checkExtracted(const fs::path& folder, const std::string& archive, const std::vector<std::string>& members,
    const TpuCollection& collection, const std::string& split, ProgressSink* progress)
{
    ProgressScope scope(progress, "check " + archive, members.size());
    CollectionCheck check;
    check.id = collection.id;
    check.kind = collection.kind;
    check.folder = folder.string();
    for (const auto& member : members) {
        const fs::path file = folder / fs::path(member).filename();
        check.problems.clear();
        checkGraphFile(file.string(), split, folder.string(), check);
        // Schema and dtypes only: implausible runtimes are `data verify`'s to report.
        for (const auto& p : check.problems) {
            const bool schema
                = p.severity == TreeProblem::Severity::Error && p.problem.find("runtimes are") == std::string::npos;
            if (schema)
                throw InputError(archive, "member '" + member + "'", p.problem);
        }
        scope.advanceBy(1);
    }
}

// An exclusive lock on the output folder itself (flock on its descriptor: no lock file left
// behind), so that two fetches (a terminal and the studio) never extract into one tree at once.
class FolderLock
{
public:
    explicit FolderLock(const fs::path& folder)
        : m_fd(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC))
    {
        if (m_fd < 0)
            throw InputError(folder.string(), "open", std::strerror(errno));
        if (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
            ::close(m_fd);
            throw InputError(folder.string(), "", "another tgraph data fetch is writing into this folder");
        }
    }
    ~FolderLock() { ::close(m_fd); } // closing releases the lock
    FolderLock(const FolderLock&) = delete;
    FolderLock& operator=(const FolderLock&) = delete;

private:
    int m_fd;
};

} // namespace

bool isMirrorFolder(const std::string& mirror)
{
    if (mirror.find("://") != std::string::npos)
        return false;
    std::error_code ec;
    return fs::is_directory(mirror, ec);
}

std::vector<FetchPlanItem> planFetch(const FetchOptions& options)
{
    const auto collections = resolveCollections(options.collections);
    const std::vector<std::string> splits = resolveSplits(options.splits);
    const bool folderMirror = !options.mirror.empty() && isMirrorFolder(options.mirror);
    const fs::path root(options.output);
    const fs::path work = root / kFetchWorkFolder;
    std::vector<FetchPlanItem> plan;
    std::error_code ec;
    for (const TpuCollection* c : collections)
        for (const auto& split : splits) {
            FetchPlanItem item;
            static_cast<FetchArchive&>(item) = fetchArchive(*c, split);
            if (!options.output.empty()) {
                item.present = fs::exists(root / item.folder / kFetchMarker, ec);
                if (!item.present && !folderMirror) {
                    item.downloaded = fs::is_regular_file(work / item.archive, ec);
                    const auto part = fs::file_size(work / (item.archive + ".part"), ec);
                    item.partBytes = ec ? 0 : uint64_t(part);
                }
            }
            plan.push_back(item);
        }
    return plan;
}

std::vector<ArchiveSize> archiveSizes(
    const std::string& mirror, const std::vector<std::string>& archives, int connectTimeoutSeconds)
{
    const std::string base = mirror.empty() ? std::string(kTpuGraphsBaseUrl) : mirror;
    const bool folder = isMirrorFolder(base);
    std::string unreachable; // set once the server could not be reached: not asked again
    std::vector<ArchiveSize> sizes;
    for (const std::string& archive : archives) {
        ArchiveSize size;
        size.archive = archive;
        if (folder) {
            std::error_code ec;
            const auto bytes = fs::file_size(fs::path(base) / archive, ec);
            if (ec)
                size.problem = "not in the mirror folder";
            else
                size.bytes = int64_t(bytes);
        } else if (base.find("://") == std::string::npos) {
            size.problem = "the mirror is neither a folder nor a URL";
        } else if (!unreachable.empty()) {
            size.problem = unreachable;
        } else {
            try {
                size.bytes = remoteFileSize(joinUrl(base, archive), connectTimeoutSeconds);
            } catch (const InputError& e) {
                size.problem = e.problem();
                if (e.place() == "request") // no answer at all (rather than "not offered")
                    unreachable = e.problem();
            }
        }
        sizes.push_back(std::move(size));
    }
    return sizes;
}

std::vector<FetchItem> fetchTpuGraphs(
    const FetchOptions& options, ProgressSink* progress, const std::function<void(const FetchItem&)>& onItem)
{
    const auto collections = resolveCollections(options.collections);
    const std::vector<std::string> splits = resolveSplits(options.splits);
    const std::string mirror = options.mirror.empty() ? std::string(kTpuGraphsBaseUrl) : options.mirror;
    const bool folderMirror = isMirrorFolder(mirror);
    if (!folderMirror && mirror.find("://") == std::string::npos)
        throw InputError("--mirror", mirror, "neither a folder nor a URL (http://, https://, ftp://, file://)");

    const fs::path root(options.output);
    const fs::path work = root / kFetchWorkFolder;
    // Declared before the lock: the folders go after the lock is released.
    const EmptyFolderSweeper sweeper(work, missingFolders(root));
    std::error_code ec;
    fs::create_directories(root, ec);
    if (ec)
        throw InputError(options.output, "create folder", ec.message());
    const FolderLock lock(root);

    std::vector<FetchItem> items;
    for (const TpuCollection* c : collections) {
        for (const auto& split : splits) {
            FetchItem item;
            static_cast<FetchArchive&>(item) = fetchArchive(*c, split);
            const fs::path final = root / item.folder;
            if (fs::exists(final / kFetchMarker, ec)) {
                item.present = true;
                items.push_back(item);
                if (onItem)
                    onItem(item);
                continue;
            }
            if (fs::exists(final, ec))
                throw InputError(final.string(), "",
                    std::string("exists but was not made by tgraph data fetch (no ") + kFetchMarker
                        + "): move it away, or check it with tgraph data verify");

            fs::create_directories(work, ec);
            if (ec)
                throw InputError(work.string(), "create folder", ec.message());
            // The archive: in the mirror folder as it is, or downloaded beside the tree.
            fs::path archivePath;
            bool downloaded = false;
            if (folderMirror) {
                archivePath = fs::path(mirror) / item.archive;
                if (!fs::is_regular_file(archivePath, ec))
                    throw InputError(archivePath.string(), "", "not in the mirror folder");
            } else {
                archivePath = work / item.archive;
                if (!fs::is_regular_file(archivePath, ec)) {
                    const DownloadResult d
                        = downloadFile(joinUrl(mirror, item.archive), archivePath.string(), progress, options.attempts);
                    item.transferred = d.transferred;
                    item.resumedFrom = d.resumedFrom;
                    item.requests = d.requests;
                }
                downloaded = true;
            }
            item.archiveBytes = fs::file_size(archivePath, ec);

            // Extract into a temporary folder beside the target, check, mark, rename.
            const fs::path temp = work / (item.archive + ".extracting");
            fs::remove_all(temp, ec);
            FolderGuard guard(temp);
            ExtractResult extracted;
            try {
                extracted = extractArchive(archivePath.string(), item.folder, temp.string(), progress);
                if (extracted.files.empty())
                    throw InputError(item.archive, "", "holds no file in " + item.folder + "/");
                checkExtracted(temp, item.archive, extracted.files, *c, split, progress);
            } catch (const InputError&) {
                // A damaged download is not kept for the next call to reuse.
                if (downloaded)
                    fs::remove(archivePath, ec);
                throw;
            }
            item.files = int(extracted.files.size());
            item.ignored = int(extracted.ignored.size());
            Json marker;
            marker["collection"] = item.collection;
            marker["split"] = item.split;
            marker["archive"] = item.archive;
            marker["archive_bytes"] = item.archiveBytes;
            marker["files"] = item.files;
            writeFileAtomically((temp / kFetchMarker).string(), jsonText(marker) + "\n");
            syncFileSystem(temp);
            fs::create_directories(final.parent_path(), ec);
            if (ec)
                throw InputError(final.parent_path().string(), "create folder", ec.message());
            fs::rename(temp, final, ec);
            if (ec)
                throw InputError(final.string(), "rename", ec.message());
            guard.release();
            syncFolder(final.parent_path().string());
            if (downloaded && !options.keepArchives)
                fs::remove(archivePath, ec);
            items.push_back(item);
            if (onItem)
                onItem(item);
        }
    }
    return items; // the sweeper removes the work folder when nothing is left in it
}

} // namespace tgraph
