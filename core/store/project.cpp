// SPDX-License-Identifier: Apache-2.0
#include "core/store/project.h"

#include "core/util/error.h"

#include <sqlite3.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace tgraph {

namespace {

// Schema version 1. Later versions append migrations (kMigrations[k] brings k+1 to k+2).
const char* kSchemaV1 = R"SQL(
CREATE TABLE experiments(
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    created_ms INTEGER NOT NULL);
CREATE TABLE runs(
    id TEXT PRIMARY KEY,
    experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    parent_run TEXT REFERENCES runs(id) ON DELETE CASCADE,
    status TEXT NOT NULL CHECK(status IN ('PENDING','RUNNING','FINISHED','FAILED','KILLED','CRASHED')),
    start_ms INTEGER NOT NULL,
    end_ms INTEGER,
    heartbeat_ms INTEGER,
    pid INTEGER,
    pid_start INTEGER,
    host TEXT,
    cmdline TEXT,
    resumed_from TEXT,
    checkpoint TEXT,
    message TEXT);
CREATE INDEX runs_by_experiment ON runs(experiment_id, start_ms);
CREATE INDEX runs_by_parent ON runs(parent_run);
CREATE TABLE params(
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY(run_id, key)) WITHOUT ROWID;
CREATE TABLE tags(
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY(run_id, key)) WITHOUT ROWID;
CREATE TABLE series(
    id INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    context TEXT NOT NULL,
    points INTEGER NOT NULL DEFAULT 0,
    first_step INTEGER,
    last_step INTEGER,
    last_ts_ms INTEGER,
    last_value REAL,
    UNIQUE(run_id, key, context));
CREATE TABLE metrics(
    series INTEGER NOT NULL REFERENCES series(id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    ts_ms INTEGER NOT NULL,
    value REAL,
    PRIMARY KEY(series, step)) WITHOUT ROWID;
CREATE TABLE artifacts(
    id INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    path TEXT NOT NULL,
    step INTEGER,
    created_ms INTEGER NOT NULL);
CREATE INDEX artifacts_by_run ON artifacts(run_id);
CREATE TABLE graphs(
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    collection TEXT,
    added_ms INTEGER NOT NULL);
CREATE TABLE graph_metrics(
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    graph_id INTEGER NOT NULL REFERENCES graphs(id),
    configs INTEGER,
    kendall_tau REAL,
    opa REAL,
    top5_slowdown REAL,
    tile_score REAL,
    PRIMARY KEY(run_id, step, graph_id)) WITHOUT ROWID;
CREATE TABLE predictions(
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    graph_id INTEGER NOT NULL REFERENCES graphs(id),
    config INTEGER NOT NULL,
    score REAL,
    runtime_ns INTEGER,
    PRIMARY KEY(run_id, step, graph_id, config)) WITHOUT ROWID;
)SQL";

// Version 2 (sweeps, docs/store.md §9): one row per child run of a sweep. The sweep itself is a run
// (its parent, `runs.parent_run`); a queued child is a PENDING run.
const char* kSweepRunsV2 = R"SQL(
CREATE TABLE sweep_runs(
    run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    sweep_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    config INTEGER NOT NULL,
    config_text TEXT NOT NULL,
    seed INTEGER NOT NULL,
    arguments TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    UNIQUE(sweep_id, position));
)SQL";

// kMigrations[k] brings version k + 1 to k + 2; a new project runs kSchemaV1 and then all of them.
const char* const kMigrations[] = { kSweepRunsV2 };
static_assert(sizeof kMigrations / sizeof kMigrations[0] == Project::kSchemaVersion - 1);

// The only run ids this store makes: 32 lowercase hex digits (isRunId accepts exactly these).
std::string randomRunId()
{
    std::random_device device;
    std::mt19937_64 rng((uint64_t(device()) << 32) ^ device() ^ uint64_t(nowMs()) ^ (uint64_t(getpid()) << 17));
    static const char* hex = "0123456789abcdef";
    std::string id(32, '0');
    for (char& c : id)
        c = hex[rng() % 16];
    return id;
}

} // namespace

std::string newRunId() { return randomRunId(); }

namespace {

RunStatus statusFrom(const std::string& text)
{
    RunStatus s = RunStatus::Pending;
    parseRunStatus(text, &s);
    return s;
}

// The last column is the furthest step the project records for the run: its series' last steps
// and its checkpoints' steps (both by the run's index; no scan of the histories).
const char* kRunColumns
    = "r.id, e.name, r.name, r.parent_run, r.status, r.start_ms, r.end_ms, r.heartbeat_ms, r.pid, "
      "r.host, r.cmdline, r.resumed_from, r.checkpoint, r.message, r.pid_start, "
      "max(coalesce((SELECT max(last_step) FROM series WHERE run_id = r.id AND points > 0), 0), "
      "coalesce((SELECT max(step) FROM artifacts WHERE run_id = r.id AND kind = 'checkpoint'), 0))";

std::string goneMessage(int64_t pid)
{
    return "its process (pid " + std::to_string(pid) + ") is gone: killed, out of memory or a crash";
}

// `text` for an error message: control bytes and non-ASCII as \xNN, at most 80 bytes, so a
// crafted value cannot break the one-line message or drive the terminal.
std::string printable(std::string_view text)
{
    std::string out;
    for (const char c : text.substr(0, 80)) {
        const auto b = uint8_t(c);
        if (b >= 0x20 && b < 0x7f) {
            out += c;
        } else {
            static const char* hex = "0123456789abcdef";
            out += "\\x";
            out += hex[b >> 4];
            out += hex[b & 15];
        }
    }
    if (text.size() > 80)
        out += "...";
    return out;
}

InputError badRunId(const std::string& file, const std::string& id)
{
    return InputError(file, "run '" + printable(id) + "'",
        "not a run id of a TGraph Studio project (32 hex digits): the project file was written by something "
        "else; refused");
}

// A run as stored; its ids are checked (isRunId), since they become folder names.
RunRecord readRun(const SqliteStatement& s, const std::string& file)
{
    RunRecord r;
    r.id = s.text(0);
    r.experiment = s.text(1);
    r.name = s.text(2);
    r.parentRun = s.text(3);
    r.status = statusFrom(s.text(4));
    r.startMs = s.int64(5);
    r.endMs = s.int64(6);
    r.heartbeatMs = s.int64(7);
    r.pid = s.int64(8);
    r.host = s.text(9);
    r.commandLine = s.text(10);
    r.resumedFrom = s.text(11);
    r.checkpoint = s.text(12);
    r.message = s.text(13);
    r.pidStart = s.int64(14);
    r.lastStep = s.int64(15);
    for (const std::string* id : { &r.id, &r.parentRun, &r.resumedFrom })
        if (!isRunId(*id) && (id == &r.id || !id->empty()))
            throw badRunId(file, *id);
    return r;
}

// Whether `path` is strictly inside `root` (both absolute and canonical).
bool strictlyInside(const fs::path& root, const fs::path& path)
{
    const fs::path relative = path.lexically_relative(root);
    return !relative.empty() && !relative.is_absolute() && *relative.begin() != ".." && relative != ".";
}

// A RUNNING run of this host whose process is gone reads as CRASHED, whatever the connection: the
// pid decides on this host, at once (docs/store.md §5). markCrashedRuns records it.
void readProcessState(RunRecord& r, const std::string& thisHost)
{
    if (r.status != RunStatus::Running || r.pid <= 0 || r.host != thisHost || !localProcessGone(r.pid, r.pidStart))
        return;
    r.status = RunStatus::Crashed;
    r.endMs = r.heartbeatMs > 0 ? r.heartbeatMs : r.startMs;
    r.message = goneMessage(r.pid);
    r.crashNotRecorded = true;
}

// Fields 3 (state) and 22 (start time in clock ticks since boot) of /proc/PID/stat; false when the
// file cannot be read (no such process, no /proc).
bool readProcStat(int64_t pid, char* state, int64_t* startTicks)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!in || !std::getline(in, text))
        return false;
    // "pid (comm) state ppid ..." - comm may hold spaces and parentheses: fields after the last ')'
    const size_t close = text.rfind(')');
    if (close == std::string::npos || close + 2 >= text.size())
        return false;
    *state = text[close + 2];
    size_t at = close + 2;
    for (int field = 3; field < 22; ++field) { // skip to field 22, starttime
        at = text.find(' ', at);
        if (at == std::string::npos)
            return false;
        ++at;
    }
    *startTicks = std::strtoll(text.c_str() + at, nullptr, 10);
    return true;
}

// Checks done on the raw bytes before SQLite sees the file, so a wrong file is never touched.
void checkHeader(const std::string& path)
{
    std::error_code ec;
    if (!fs::exists(path, ec))
        throw InputError(path, "", "no such project file");
    if (fs::is_directory(path, ec))
        throw InputError(path, "", "is a directory, not a project file");
    const auto size = fs::file_size(path, ec);
    if (ec)
        throw InputError(path, "", "cannot be read");
    // Not std::ifstream: closing a descriptor of a database this process has open would drop its
    // connections' locks (SqliteDb::readFileHead).
    const std::string head = SqliteDb::readFileHead(path, 100);
    unsigned char header[100] = {};
    std::memcpy(header, head.data(), head.size());
    if (head.size() < 100 || std::memcmp(header, "SQLite format 3\0", 16) != 0)
        throw InputError(path, "header", "not a TGraph Studio project (not an SQLite database)");
    auto be32 = [&](int at) {
        return (uint32_t(header[at]) << 24) | (uint32_t(header[at + 1]) << 16) | (uint32_t(header[at + 2]) << 8)
            | uint32_t(header[at + 3]);
    };
    uint32_t pageSize = (uint32_t(header[16]) << 8) | header[17];
    if (pageSize == 1)
        pageSize = 65536;
    const uint32_t pages = be32(28);
    const bool pagesValid = be32(92) == be32(24) && pages > 0; // "in-header database size" is current
    if (pagesValid && uint64_t(pages) * pageSize > size)
        throw InputError(path, "size",
            "the project file is truncated: " + std::to_string(size) + " bytes, its header says "
                + std::to_string(uint64_t(pages) * pageSize));
    const int64_t applicationId = int64_t(be32(68));
    if (applicationId != 0 && applicationId != Project::kApplicationId)
        throw InputError(path, "header", "an SQLite database of another application, not a TGraph Studio project");
}

// Project files whose integrity this process has checked or that it created itself, by device
// and inode: the first open of a file in a process runs PRAGMA quick_check, later opens (the
// studio's poller reopens its project every second) trust that check.
class CheckedFiles
{
public:
    static std::optional<std::pair<dev_t, ino_t>> identity(const std::string& path)
    {
        struct stat st { };
        if (::stat(path.c_str(), &st) != 0)
            return std::nullopt;
        return std::make_pair(st.st_dev, st.st_ino);
    }
    bool contains(const std::string& path)
    {
        const auto id = identity(path);
        std::lock_guard lock(m_mutex);
        return id && m_files.count(*id);
    }
    void add(const std::string& path)
    {
        if (const auto id = identity(path)) {
            std::lock_guard lock(m_mutex);
            m_files.insert(*id);
        }
    }

private:
    std::mutex m_mutex;
    std::set<std::pair<dev_t, ino_t>> m_files;
};

CheckedFiles& checkedFiles()
{
    static CheckedFiles files;
    return files;
}

} // namespace

// ---- helpers --------------------------------------------------------------------------------

const char* runStatusName(RunStatus status)
{
    switch (status) {
    case RunStatus::Pending:
        return "PENDING";
    case RunStatus::Running:
        return "RUNNING";
    case RunStatus::Finished:
        return "FINISHED";
    case RunStatus::Failed:
        return "FAILED";
    case RunStatus::Killed:
        return "KILLED";
    case RunStatus::Crashed:
        return "CRASHED";
    }
    return "PENDING";
}

bool parseRunStatus(const std::string& text, RunStatus* status)
{
    for (RunStatus s : { RunStatus::Pending, RunStatus::Running, RunStatus::Finished, RunStatus::Failed,
             RunStatus::Killed, RunStatus::Crashed })
        if (text == runStatusName(s)) {
            *status = s;
            return true;
        }
    return false;
}

bool isTerminal(RunStatus status) { return status != RunStatus::Pending && status != RunStatus::Running; }

bool isRunId(std::string_view id)
{
    return id.size() == 32
        && std::all_of(id.begin(), id.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

int64_t nowMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::string hostName()
{
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0)
        return {};
    return name;
}

int64_t processStartTicks(int64_t pid)
{
    char state = 0;
    int64_t started = 0;
    return readProcStat(pid, &state, &started) ? started : 0;
}

bool localProcessGone(int64_t pid, int64_t startTicks)
{
    if (pid <= 0)
        return false;
    if (::kill(pid_t(pid), 0) != 0 && errno == ESRCH)
        return true;
    char state = 0;
    int64_t started = 0;
    if (readProcStat(pid, &state, &started)) {
        if (state == 'Z' || state == 'X') // exited, not yet reaped by its parent
            return true;
        if (startTicks != 0 && started != 0 && started != startTicks) // a recycled pid: another process
            return true;
    }
    return false; // alive, or another user's process (EPERM); without /proc the pid decides
}

// ---- open / create --------------------------------------------------------------------------

Project::Project(std::string path, std::unique_ptr<SqliteDb> db, Access access)
    : m_path(std::move(path))
    , m_db(std::move(db))
    , m_access(access)
{ }

Project::Project(Project&&) noexcept = default;
Project& Project::operator=(Project&&) noexcept = default;
Project::~Project() = default;

Project Project::create(const std::string& path)
{
    std::error_code ec;
    if (fs::exists(path, ec))
        throw InputError(path, "", "already exists; open it instead of creating it");
    const fs::path parent = fs::absolute(path).parent_path();
    if (!fs::is_directory(parent, ec))
        throw InputError(path, "", "its folder " + parent.string() + " does not exist");
    try {
        auto db = std::make_unique<SqliteDb>(path, SqliteDb::Mode::Create);
        db->setBusyTimeout(10000);
        db->exec("PRAGMA journal_mode=WAL");
        db->exec("PRAGMA synchronous=NORMAL");
        db->exec("PRAGMA foreign_keys=ON");
        SqliteTransaction t(*db, true);
        db->exec(kSchemaV1);
        for (const char* sql : kMigrations)
            db->exec(sql);
        db->exec("PRAGMA application_id=" + std::to_string(kApplicationId));
        db->exec("PRAGMA user_version=" + std::to_string(kSchemaVersion));
        t.commit();
        checkedFiles().add(path); // made here: no integrity check when this process reopens it
        return Project(path, std::move(db), Access::Write);
    } catch (...) {
        // nothing half-written: a failed creation leaves no file
        fs::remove(path, ec);
        fs::remove(path + "-wal", ec);
        fs::remove(path + "-shm", ec);
        throw;
    }
}

Project Project::open(const std::string& path, Access access)
{
    checkHeader(path);
    // Version checks read-only first: a file from a newer build is not touched at all.
    int64_t version = 0;
    {
        SqliteDb probe(path, SqliteDb::Mode::ReadOnly);
        probe.setBusyTimeout(10000);
        version = probe.queryInt("PRAGMA user_version");
        const int64_t app = probe.queryInt("PRAGMA application_id");
        if (app != kApplicationId)
            throw InputError(path, "header", "an SQLite database but not a TGraph Studio project");
        if (version > kSchemaVersion)
            throw InputError(path, "schema",
                "written by a newer TGraph Studio (project schema " + std::to_string(version)
                    + "; this version reads up to " + std::to_string(kSchemaVersion) + ")");
        if (version < 1)
            throw InputError(path, "schema", "project schema version " + std::to_string(version) + " is not valid");
        // A file from elsewhere (or one a crash or a disk damaged) is checked whole before it is
        // used: a damaged file is refused, not opened read-only, since reading damaged pages
        // gives wrong runs and metrics or fails at a random later point, and writing would spread
        // the damage. The error names the file and SQLite's first finding; the file is not
        // touched (sqlite3's .recover can still salvage what it holds). quick_check is
        // integrity_check without the index-content cross-checks: it reads every page once.
        if (!checkedFiles().contains(path)) {
            std::string verdict;
            try {
                verdict = probe.queryText("PRAGMA quick_check(1)");
            } catch (const InputError& e) { // SQLite gave up reading (SQLITE_CORRUPT, ...)
                verdict = e.problem();
            }
            if (verdict != "ok")
                throw InputError(path, "integrity",
                    "the project file is damaged (SQLite's quick_check: " + printable(verdict)
                        + "); refused, nothing was changed");
            checkedFiles().add(path);
        }
        probe.queryInt("SELECT count(*) FROM runs"); // the core table must be readable
    }
    auto db = std::make_unique<SqliteDb>(
        path, access == Access::Write ? SqliteDb::Mode::ReadWrite : SqliteDb::Mode::ReadOnly);
    db->setBusyTimeout(10000);
    db->exec("PRAGMA foreign_keys=ON");
    Project project(path, std::move(db), access);
    if (access == Access::Write) {
        project.m_db->exec("PRAGMA journal_mode=WAL");
        // WAL + NORMAL: a commit survives a crash of the process (kill -9: the tests check it) and
        // never corrupts the file; only a power cut can lose the last commits. One fsync per
        // checkpoint instead of per commit (1.8k -> ~15k commits/s here).
        project.m_db->exec("PRAGMA synchronous=NORMAL");
        if (version < kSchemaVersion) {
            // Forward migrations, only by a writer, inside one exclusive transaction that re-reads
            // the version (two processes opening an old project at once migrate it once).
            SqliteTransaction t(*project.m_db, true);
            int64_t current = project.m_db->queryInt("PRAGMA user_version");
            for (; current < kSchemaVersion; ++current)
                if (const char* sql = kMigrations[current - 1])
                    project.m_db->exec(sql);
            project.m_db->exec("PRAGMA user_version=" + std::to_string(kSchemaVersion));
            t.commit();
        }
        project.markCrashedRuns();
    }
    return project;
}

Project Project::openOrCreate(const std::string& path)
{
    std::error_code ec;
    return fs::exists(path, ec) ? open(path, Access::Write) : create(path);
}

std::string Project::folder() const { return fs::absolute(m_path).parent_path().string(); }
std::string Project::dataDir() const { return fs::absolute(m_path).string() + ".d"; }
std::string Project::runDir(const std::string& runId) const
{
    requireRunId(runId);
    // The data folder itself may be a link (to a larger disk, say); below it, runs/ and the run's
    // folder must stay inside it once links are resolved.
    std::error_code rootError, dirError;
    const fs::path dir = fs::path(dataDir()) / "runs" / runId;
    const fs::path root = fs::weakly_canonical(dataDir(), rootError) / "runs";
    const fs::path real = fs::weakly_canonical(dir, dirError);
    if (rootError || dirError)
        throw InputError(m_path, "run " + runId,
            "its folder " + dir.string() + " cannot be resolved: " + (rootError ? rootError : dirError).message());
    if (!strictlyInside(root, real))
        throw InputError(m_path, "run " + runId,
            "its folder " + dir.string() + " leads to " + real.string() + ", outside the project's run folders "
                + root.string() + " (a symbolic link?); refused: nothing is read, written or deleted there");
    return dir.string();
}

std::string Project::dataPath(const std::string& stored, const std::string& what) const
{
    std::error_code rootError, pathError;
    const fs::path root = fs::weakly_canonical(dataDir(), rootError);
    // Lexically normal first: in "a/missing/../link/x" weakly_canonical would resolve nothing after
    // "missing" and leave "link" to be followed by whoever opens the result. An absolute `stored`
    // replaces the folder.
    const fs::path real = fs::weakly_canonical((fs::path(folder()) / stored).lexically_normal(), pathError);
    if (stored.empty() || rootError || pathError || !strictlyInside(root, real))
        throw InputError(m_path, what,
            "the stored path '" + printable(stored) + "' leads outside the project's data folder " + root.string()
                + "; refused");
    return real.string();
}

void Project::requireRunId(const std::string& runId) const
{
    if (!isRunId(runId))
        throw badRunId(m_path, runId);
}

int Project::schemaVersion() const { return int(m_db->queryInt("PRAGMA user_version")); }

void Project::requireWrite(const char* what) const
{
    if (m_access != Access::Write)
        throw std::logic_error(std::string("Project::") + what + " needs write access");
}

// ---- writing --------------------------------------------------------------------------------

int64_t Project::experimentId(const std::string& name)
{
    SqliteStatement find(*m_db, "SELECT id FROM experiments WHERE name = ?1");
    if (find.bind(1, name).step())
        return find.int64(0);
    requireWrite("experimentId");
    SqliteStatement insert(*m_db, "INSERT OR IGNORE INTO experiments(name, created_ms) VALUES (?1, ?2)");
    insert.bind(1, name).bind(2, nowMs()).run();
    find.reset();
    find.bind(1, name).step();
    return find.int64(0);
}

std::string Project::startRun(const RunStart& start)
{
    requireWrite("startRun");
    const std::string experiment = start.experiment.empty() ? std::string("Default") : start.experiment;
    SqliteTransaction t(*m_db);
    const int64_t experimentKey = experimentId(experiment);
    std::string name = start.name;
    if (name.empty()) {
        SqliteStatement count(*m_db, "SELECT count(*) FROM runs WHERE experiment_id = ?1");
        count.bind(1, experimentKey).step();
        name = "run-" + std::to_string(count.int64(0) + 1);
    }
    const std::string id = randomRunId();
    const int64_t pid = start.pid > 0 ? start.pid : int64_t(getpid());
    const int64_t now = nowMs();
    SqliteStatement insert(*m_db,
        "INSERT INTO runs(id, experiment_id, name, parent_run, status, start_ms, heartbeat_ms, pid, pid_start, host, "
        "cmdline) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
    insert.bind(1, id).bind(2, experimentKey).bind(3, name);
    if (start.parentRun.empty())
        insert.bindNull(4);
    else
        insert.bind(4, start.parentRun);
    insert.bind(5, runStatusName(start.status)).bind(6, now).bind(7, now).bind(8, pid);
    insert.bind(9, processStartTicks(pid)).bind(10, hostName()).bind(11, start.commandLine).run();
    t.commit();
    return id;
}

void Project::setRunStatus(const std::string& runId, RunStatus status, const std::string& message)
{
    requireWrite("setRunStatus");
    SqliteStatement s(*m_db,
        "UPDATE runs SET status = ?2, end_ms = CASE WHEN ?3 THEN ?4 ELSE NULL END, heartbeat_ms = ?4, "
        "message = CASE WHEN ?5 = '' THEN message ELSE ?5 END WHERE id = ?1");
    s.bind(1, runId).bind(2, runStatusName(status)).bind(3, int64_t(isTerminal(status))).bind(4, nowMs());
    s.bind(5, message).run();
    if (m_db->changes() == 0)
        throw InputError(m_path, "run " + runId, "no such run");
}

void Project::adoptRun(const std::string& runId, int64_t pid, const std::string& commandLine)
{
    requireWrite("adoptRun");
    SqliteStatement s(*m_db,
        "UPDATE runs SET status = 'RUNNING', end_ms = NULL, heartbeat_ms = ?2, pid = ?3, pid_start = ?4, host = ?5, "
        "resumed_from = ?1, cmdline = CASE WHEN ?6 = '' THEN cmdline ELSE ?6 END, message = NULL WHERE id = ?1");
    s.bind(1, runId).bind(2, nowMs()).bind(3, pid).bind(4, processStartTicks(pid)).bind(5, hostName());
    s.bind(6, commandLine).run();
    if (m_db->changes() == 0)
        throw InputError(m_path, "run " + runId, "no such run");
}

void Project::heartbeat(const std::string& runId)
{
    SqliteStatement s(*m_db, "UPDATE runs SET heartbeat_ms = ?2 WHERE id = ?1");
    s.bind(1, runId).bind(2, nowMs()).run();
}

void Project::truncateRun(const std::string& runId, int64_t step)
{
    requireWrite("truncateRun");
    SqliteTransaction t(*m_db);
    const std::string runs = "(SELECT id FROM runs WHERE id = ?1 OR parent_run = ?1)";
    for (const std::string& sql :
        { "DELETE FROM metrics WHERE step > ?2 AND series IN (SELECT id FROM series WHERE run_id IN " + runs + ")",
            "DELETE FROM graph_metrics WHERE step > ?2 AND run_id IN " + runs,
            "DELETE FROM predictions WHERE step > ?2 AND run_id IN " + runs,
            // the series' summary columns from what is left
            "UPDATE series SET points = (SELECT count(*) FROM metrics m WHERE m.series = series.id), "
            "first_step = (SELECT min(step) FROM metrics m WHERE m.series = series.id), "
            "last_step = (SELECT max(step) FROM metrics m WHERE m.series = series.id), "
            "last_ts_ms = (SELECT ts_ms FROM metrics m WHERE m.series = series.id ORDER BY step DESC LIMIT 1), "
            "last_value = (SELECT value FROM metrics m WHERE m.series = series.id ORDER BY step DESC LIMIT 1) "
            "WHERE run_id IN "
                + runs + " AND (last_step > ?2 OR ?2 < 0)" }) {
        SqliteStatement s(*m_db, sql);
        s.bind(1, runId).bind(2, step).run();
    }
    t.commit();
}

void Project::setCheckpoint(const std::string& runId, const std::string& path, int64_t step)
{
    requireWrite("setCheckpoint");
    const std::string relative = relativePath(path);
    SqliteTransaction t(*m_db);
    SqliteStatement s(*m_db, "UPDATE runs SET checkpoint = ?2 WHERE id = ?1");
    s.bind(1, runId).bind(2, relative).run();
    SqliteStatement a(*m_db, "INSERT INTO artifacts(run_id, kind, path, step, created_ms) VALUES (?1, ?2, ?3, ?4, ?5)");
    a.bind(1, runId).bind(2, "checkpoint").bind(3, relative).bind(4, step).bind(5, nowMs()).run();
    t.commit();
}

void Project::setParams(const std::string& runId, const std::vector<std::pair<std::string, std::string>>& params)
{
    requireWrite("setParams");
    SqliteTransaction t(*m_db);
    SqliteStatement find(*m_db, "SELECT value FROM params WHERE run_id = ?1 AND key = ?2");
    SqliteStatement insert(*m_db, "INSERT INTO params(run_id, key, value) VALUES (?1, ?2, ?3)");
    for (const auto& [key, value] : params) {
        find.bind(1, runId).bind(2, key);
        if (find.step()) {
            const std::string old = find.text(0);
            find.reset();
            if (old != value)
                throw InputError(m_path, "run " + runId + " param " + key,
                    "parameters are write-once: it is '" + old + "', not '" + value + "'");
            continue;
        }
        find.reset();
        insert.bind(1, runId).bind(2, key).bind(3, value).run();
    }
    t.commit();
}

void Project::setTag(const std::string& runId, const std::string& key, const std::string& value)
{
    requireWrite("setTag");
    SqliteStatement s(*m_db,
        "INSERT INTO tags(run_id, key, value) VALUES (?1, ?2, ?3) "
        "ON CONFLICT(run_id, key) DO UPDATE SET value = excluded.value");
    s.bind(1, runId).bind(2, key).bind(3, value).run();
}

void Project::addArtifact(const std::string& runId, const std::string& kind, const std::string& path, int64_t step)
{
    requireWrite("addArtifact");
    SqliteStatement a(*m_db, "INSERT INTO artifacts(run_id, kind, path, step, created_ms) VALUES (?1, ?2, ?3, ?4, ?5)");
    a.bind(1, runId).bind(2, kind).bind(3, relativePath(path)).bind(4, step).bind(5, nowMs()).run();
}

void Project::deleteRun(const std::string& runId)
{
    requireWrite("deleteRun");
    requireRunId(runId);
    SqliteTransaction t(*m_db);
    // The run and its folds, read inside the transaction that deletes them; every folder is
    // checked before anything is deleted, so a refused run keeps its rows and its files.
    std::vector<std::string> dirs { runDir(runId) };
    {
        SqliteStatement folds(*m_db, "SELECT id FROM runs WHERE parent_run = ?1");
        folds.bind(1, runId);
        while (folds.step())
            dirs.push_back(runDir(folds.text(0)));
    }
    SqliteStatement del(*m_db, "DELETE FROM runs WHERE id = ?1");
    del.bind(1, runId).run();
    if (m_db->changes() == 0)
        throw InputError(m_path, "run " + runId, "no such run");
    t.commit();
    // Files only after the rows are gone (a crash leaves files, not rows). remove_all does not
    // follow symbolic links: a run folder that is a link (to a place inside the data folder;
    // runDir refused the others) loses the link, and links inside a folder are removed as links.
    std::error_code ec;
    for (const std::string& dir : dirs)
        fs::remove_all(dir, ec);
}

int Project::markCrashedRuns(int64_t staleMs)
{
    requireWrite("markCrashedRuns");
    const int64_t now = nowMs();
    {
        // A look without the write lock first: most opens find no running run and take no lock. (A
        // run of this host whose process is gone is marked whatever its heartbeat, so every RUNNING
        // run is a candidate.)
        SqliteStatement any(*m_db, "SELECT 1 FROM runs WHERE status = 'RUNNING' LIMIT 1");
        if (!any.step())
            return 0;
    }
    const std::string host = hostName();
    // What is marked is decided from rows read inside the write transaction: a run taken over
    // (adoptRun: a new pid, a fresh heartbeat) between a read outside it and the update would
    // otherwise be marked CRASHED while its new process runs.
    SqliteTransaction t(*m_db);
    std::vector<std::pair<std::string, std::string>> crashed; // id, message
    {
        SqliteStatement s(*m_db, "SELECT id, heartbeat_ms, pid, pid_start, host FROM runs WHERE status = 'RUNNING'");
        while (s.step()) {
            const int64_t pid = s.int64(2);
            if (s.text(4) == host && pid > 0) {
                // This host: the process decides, whatever the heartbeat says.
                if (localProcessGone(pid, s.int64(3)))
                    crashed.emplace_back(s.text(0), goneMessage(pid));
            } else if (now - s.int64(1) > staleMs) {
                // Another host (or no pid): only the heartbeat tells.
                crashed.emplace_back(s.text(0),
                    "no heartbeat from host " + (s.text(4).empty() ? std::string("?") : s.text(4))
                        + " any more: killed, out of memory, a crash or the host is gone");
            }
        }
    }
    if (crashed.empty())
        return 0; // the transaction ends without a change
    SqliteStatement u(*m_db,
        "UPDATE runs SET status = 'CRASHED', end_ms = coalesce(heartbeat_ms, start_ms), message = ?2 WHERE id = ?1 "
        "AND status = 'RUNNING'");
    int marked = 0;
    for (const auto& [id, message] : crashed) {
        u.bind(1, id).bind(2, message).run();
        marked += int(m_db->changes());
    }
    t.commit();
    return marked;
}

std::string Project::storedGraphPath(const std::string& path) const
{
    try {
        return relativePath(path);
    } catch (const InputError&) {
        return fs::absolute(path).lexically_normal().string(); // data outside the project: absolute
    }
}

int64_t Project::graphId(const std::string& path, const std::string& collection)
{
    const std::string stored = storedGraphPath(path);
    SqliteStatement find(*m_db, "SELECT id FROM graphs WHERE path = ?1");
    if (find.bind(1, stored).step())
        return find.int64(0);
    requireWrite("graphId");
    // Several processes may register the same graph at once (a sweep's runs start together): the
    // one that loses the race reads the winner's row instead of failing on the UNIQUE path.
    SqliteStatement insert(*m_db, "INSERT OR IGNORE INTO graphs(path, collection, added_ms) VALUES (?1, ?2, ?3)");
    insert.bind(1, stored).bind(2, collection).bind(3, nowMs()).run();
    find.reset();
    find.bind(1, stored).step();
    return find.int64(0);
}

// ---- reading --------------------------------------------------------------------------------

std::vector<std::string> Project::experiments() const
{
    std::vector<std::string> out;
    SqliteStatement s(*m_db, "SELECT name FROM experiments ORDER BY id");
    while (s.step())
        out.push_back(s.text(0));
    return out;
}

std::vector<RunRecord> Project::runs(const std::string& experiment) const
{
    std::vector<RunRecord> out;
    SqliteStatement s(*m_db,
        std::string("SELECT ") + kRunColumns
            + " FROM runs r JOIN experiments e ON e.id = r.experiment_id WHERE ?1 = '' OR e.name = ?1 "
              "ORDER BY r.start_ms DESC, r.rowid DESC");
    s.bind(1, experiment);
    const std::string host = hostName();
    while (s.step()) {
        out.push_back(readRun(s, m_path));
        readProcessState(out.back(), host);
    }
    return out;
}

std::optional<RunRecord> Project::findRun(const std::string& key) const
{
    if (key.empty())
        return std::nullopt;
    std::vector<RunRecord> found;
    SqliteStatement s(*m_db,
        std::string("SELECT ") + kRunColumns
            + " FROM runs r JOIN experiments e ON e.id = r.experiment_id WHERE r.id = ?1 "
              "OR (length(?1) >= 4 AND substr(r.id, 1, length(?1)) = ?1) OR r.name = ?1");
    s.bind(1, key);
    while (s.step())
        found.push_back(readRun(s, m_path));
    const auto withProcessState = [](RunRecord r) {
        readProcessState(r, hostName());
        return r;
    };
    for (const RunRecord& r : found)
        if (r.id == key)
            return withProcessState(r);
    if (found.size() != 1)
        return std::nullopt;
    return withProcessState(found.front());
}

std::map<std::string, std::string> Project::params(const std::string& runId) const
{
    std::map<std::string, std::string> out;
    SqliteStatement s(*m_db, "SELECT key, value FROM params WHERE run_id = ?1");
    s.bind(1, runId);
    while (s.step())
        out[s.text(0)] = s.text(1);
    return out;
}

std::map<std::string, std::string> Project::tags(const std::string& runId) const
{
    std::map<std::string, std::string> out;
    SqliteStatement s(*m_db, "SELECT key, value FROM tags WHERE run_id = ?1");
    s.bind(1, runId);
    while (s.step())
        out[s.text(0)] = s.text(1);
    return out;
}

std::vector<ArtifactRecord> Project::artifacts(const std::string& runId) const
{
    std::vector<ArtifactRecord> out;
    SqliteStatement s(*m_db, "SELECT kind, path, step, created_ms FROM artifacts WHERE run_id = ?1 ORDER BY id");
    s.bind(1, runId);
    while (s.step())
        out.push_back({ s.text(0), s.text(1), s.int64(2), s.int64(3) });
    return out;
}

std::vector<std::string> Project::metricKeys(const std::string& runId) const
{
    std::vector<std::string> out;
    SqliteStatement s(*m_db, "SELECT context, key FROM series WHERE run_id = ?1 ORDER BY context, key");
    s.bind(1, runId);
    while (s.step())
        out.push_back(s.text(0) + "/" + s.text(1));
    return out;
}

std::vector<LatestMetric> Project::latestMetrics(const std::vector<std::string>& runIds) const
{
    std::vector<LatestMetric> out;
    auto read = [&](SqliteStatement& s) {
        while (s.step())
            out.push_back({ s.text(0), s.text(1), s.text(2), s.int64(3), s.int64(4), s.real(5) });
    };
    const std::string columns = "SELECT run_id, key, context, last_step, last_ts_ms, last_value FROM series";
    if (runIds.empty()) {
        SqliteStatement s(*m_db, columns + " WHERE points > 0");
        read(s);
        return out;
    }
    SqliteStatement s(*m_db, columns + " WHERE run_id = ?1 AND points > 0");
    for (const std::string& id : runIds) {
        s.bind(1, id);
        read(s);
        s.reset();
    }
    return out;
}

MetricSeries Project::metricHistory(
    const std::string& runId, const std::string& key, const std::string& context, int64_t maxPoints) const
{
    MetricSeries series;
    series.key = key;
    series.context = context;
    SqliteStatement find(
        *m_db, "SELECT id, points, first_step, last_step FROM series WHERE run_id = ?1 AND key = ?2 AND context = ?3");
    if (!find.bind(1, runId).bind(2, key).bind(3, context).step())
        return series;
    const int64_t id = find.int64(0);
    series.totalPoints = find.int64(1);
    // The stored count is the file's word, not a size to allocate by (a hostile or damaged file may
    // say -1 or 10^15): refused when negative, and only a bounded part of it is reserved.
    if (series.totalPoints < 0)
        throw InputError(m_path, "run " + runId + ", series " + key,
            "declares " + std::to_string(series.totalPoints) + " points (the file is damaged)");
    constexpr int64_t kReserveCap = int64_t(1) << 16;
    SqliteStatement s(*m_db, "SELECT step, ts_ms, value FROM metrics WHERE series = ?1 ORDER BY step");
    s.bind(1, id);
    if (maxPoints <= 0 || series.totalPoints <= maxPoints) {
        series.points.reserve(size_t(std::min(series.totalPoints, kReserveCap)));
        while (s.step())
            series.points.push_back({ s.int64(0), s.int64(1), s.real(2) });
        return series;
    }
    // Buckets of equal step ranges, streamed in step order (the primary key's order, no sort); per
    // bucket the first, minimum, maximum and last points, so a plot keeps the envelope and the
    // spikes of the full series; the first missing (non-finite) value of a bucket marks a gap.
    series.downsampled = true;
    const int64_t lo = find.int64(2), hi = find.int64(3);
    const int64_t buckets = std::max<int64_t>(1, maxPoints / 4);
    const int64_t width = std::max<int64_t>(1, (hi - lo) / buckets + 1);
    series.points.reserve(size_t(std::min(maxPoints, kReserveCap)));
    int64_t bucket = -1;
    MetricPoint first {}, low {}, high {}, last {}, gap {};
    bool any = false, hasGap = false;
    auto emit = [&] {
        std::vector<MetricPoint> picks;
        if (any)
            picks = { first, low, high, last };
        if (hasGap)
            picks.push_back(gap);
        std::sort(
            picks.begin(), picks.end(), [](const MetricPoint& a, const MetricPoint& b) { return a.step < b.step; });
        for (const MetricPoint& p : picks)
            if (series.points.empty() || series.points.back().step != p.step)
                series.points.push_back(p);
        any = hasGap = false;
    };
    while (s.step()) {
        const MetricPoint p { s.int64(0), s.int64(1), s.real(2) };
        const int64_t b = (p.step - lo) / width;
        if (b != bucket) {
            emit();
            bucket = b;
        }
        if (std::isnan(p.value)) {
            if (!hasGap)
                gap = p;
            hasGap = true;
            continue;
        }
        if (!any) {
            first = low = high = p;
            any = true;
        }
        if (p.value < low.value)
            low = p;
        if (p.value > high.value)
            high = p;
        last = p;
    }
    emit();
    return series;
}

std::vector<GraphMetricRecord> Project::graphMetrics(const std::string& runId, int64_t step) const
{
    std::vector<GraphMetricRecord> out;
    if (step < 0) {
        SqliteStatement last(*m_db, "SELECT max(step) FROM graph_metrics WHERE run_id = ?1");
        last.bind(1, runId).step();
        if (last.isNull(0))
            return out;
        step = last.int64(0);
    }
    SqliteStatement s(*m_db,
        "SELECT g.path, m.step, m.configs, m.kendall_tau, m.opa, m.top5_slowdown, m.tile_score FROM graph_metrics m "
        "JOIN graphs g ON g.id = m.graph_id WHERE m.run_id = ?1 AND m.step = ?2 ORDER BY g.path");
    s.bind(1, runId).bind(2, step);
    while (s.step())
        out.push_back({ s.text(0), s.int64(1), s.int64(2), s.real(3), s.real(4), s.real(5), s.real(6) });
    return out;
}

std::vector<PredictionRecord> Project::predictions(
    const std::string& runId, int64_t step, const std::string& graph) const
{
    std::vector<PredictionRecord> out;
    SqliteStatement s(*m_db,
        "SELECT p.config, p.score, p.runtime_ns FROM predictions p JOIN graphs g ON g.id = p.graph_id "
        "WHERE p.run_id = ?1 AND p.step = ?2 AND g.path = ?3 ORDER BY p.config");
    s.bind(1, runId).bind(2, step).bind(3, graph);
    while (s.step())
        out.push_back({ s.int64(0), s.real(1), s.int64(2) });
    if (out.empty() && storedGraphPath(graph) != graph) // a path as the user gives it
        return predictions(runId, step, storedGraphPath(graph));
    return out;
}

std::vector<std::string> Project::predictedGraphs(const std::string& runId, int64_t step) const
{
    std::vector<std::string> out;
    SqliteStatement s(*m_db,
        "SELECT DISTINCT g.path FROM predictions p JOIN graphs g ON g.id = p.graph_id "
        "WHERE p.run_id = ?1 AND p.step = ?2 ORDER BY g.path");
    s.bind(1, runId).bind(2, step);
    while (s.step())
        out.push_back(s.text(0));
    return out;
}

// ---- paths ----------------------------------------------------------------------------------

std::string Project::relativePath(const std::string& path) const
{
    const fs::path base = fs::weakly_canonical(folder());
    const fs::path target = fs::weakly_canonical(fs::absolute(path));
    const fs::path relative = target.lexically_relative(base);
    if (relative.empty() || relative.is_absolute() || *relative.begin() == "..")
        throw InputError(m_path, path, "is outside the project folder " + base.string());
    return relative.generic_string();
}

std::string Project::absolutePath(const std::string& relative) const
{
    if (fs::path(relative).is_absolute())
        return relative;
    return (fs::path(folder()) / relative).lexically_normal().string();
}

// ---- the processes of runs ----------------------------------------------------------------

bool Project::runProcessAlive(const std::string& runId) const
{
    SqliteStatement s(*m_db, "SELECT pid, pid_start, host FROM runs WHERE id = ?1");
    s.bind(1, runId);
    if (!s.step())
        return false;
    if (s.text(2) != hostName())
        return true;
    const int64_t pid = s.int64(0);
    return pid > 0 && !localProcessGone(pid, s.int64(1));
}

} // namespace tgraph
