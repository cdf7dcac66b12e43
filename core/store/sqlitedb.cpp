// SPDX-License-Identifier: Apache-2.0
#include "core/store/sqlitedb.h"

#include "core/util/error.h"

#include <sqlite3.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

namespace tgraph {

namespace {

std::string shortSql(std::string_view sql)
{
    std::string s;
    for (char c : sql.substr(0, 60))
        s += (c == '\n' || c == '\t') ? ' ' : c;
    if (sql.size() > 60)
        s += "...";
    return s;
}

} // namespace

// ---- SqliteDb -------------------------------------------------------------------------------

std::string SqliteDb::readFileHead(const std::string& path, size_t count)
{
    sqlite3_vfs* vfs = sqlite3_vfs_find(nullptr);
    if (!vfs)
        throw InputError(path, "open", "no SQLite file layer");
    std::string full(size_t(vfs->mxPathname) + 1, '\0');
    if (vfs->xFullPathname(vfs, path.c_str(), int(full.size()), full.data()) != SQLITE_OK)
        throw InputError(path, "open", "cannot resolve the path");
    full.resize(std::strlen(full.c_str()));
    // xOpen keeps the name pointer: `full` outlives the file.
    std::unique_ptr<char[]> storage(new char[size_t(vfs->szOsFile)]());
    auto* file = reinterpret_cast<sqlite3_file*>(storage.get());
    int outFlags = 0;
    if (vfs->xOpen(vfs, full.c_str(), file, SQLITE_OPEN_READONLY | SQLITE_OPEN_MAIN_DB, &outFlags) != SQLITE_OK) {
        if (file->pMethods)
            file->pMethods->xClose(file);
        throw InputError(path, "", "cannot be read");
    }
    sqlite3_int64 size = 0;
    std::string head(count, '\0');
    int rc = file->pMethods->xFileSize(file, &size);
    if (rc == SQLITE_OK) {
        head.resize(size_t(std::min<sqlite3_int64>(size, sqlite3_int64(count))));
        rc = head.empty() ? SQLITE_OK : file->pMethods->xRead(file, head.data(), int(head.size()), 0);
    }
    file->pMethods->xClose(file);
    if (rc != SQLITE_OK)
        throw InputError(path, "", "cannot be read");
    return head;
}

SqliteDb::SqliteDb(const std::string& path, Mode mode)
    : m_path(path)
{
    int flags = SQLITE_OPEN_NOMUTEX;
    switch (mode) {
    case Mode::ReadOnly:
        flags |= SQLITE_OPEN_READONLY;
        break;
    case Mode::ReadWrite:
        flags |= SQLITE_OPEN_READWRITE;
        break;
    case Mode::Create:
        flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
        break;
    }
    const int rc = sqlite3_open_v2(path.c_str(), &m_db, flags, nullptr);
    if (rc != SQLITE_OK) {
        const std::string message = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
        sqlite3_close_v2(m_db);
        m_db = nullptr;
        throw InputError(path, "open", message);
    }
    sqlite3_extended_result_codes(m_db, 1);
    // Project files come from anywhere (a colleague, a download), so every connection distrusts
    // the file: defensive mode refuses what could corrupt a database on purpose (writable_schema,
    // writes to shadow tables, journal_mode=OFF, ...), and trusted_schema=OFF keeps the schema of a
    // crafted file (views, triggers, CHECK and DEFAULT expressions) from calling SQL functions or
    // virtual tables with side effects. Neither touches the file.
    if (const int config = sqlite3_db_config(m_db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr); config != SQLITE_OK) {
        sqlite3_close_v2(m_db);
        m_db = nullptr;
        throw InputError(path, "open", std::string("cannot enable SQLite's defensive mode: ") + sqlite3_errstr(config));
    }
    try {
        exec("PRAGMA trusted_schema=OFF");
    } catch (...) {
        sqlite3_close_v2(m_db);
        m_db = nullptr;
        throw;
    }
}

SqliteDb::~SqliteDb() { sqlite3_close_v2(m_db); }

void SqliteDb::fail(int rc, std::string_view where) const
{
    std::string message = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
    const int primary = rc & 0xff;
    if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB)
        message += " (the project file is damaged)";
    else if (primary == SQLITE_FULL)
        message += " (no space left for the project file)";
    else if (primary == SQLITE_READONLY || primary == SQLITE_CANTOPEN || primary == SQLITE_PERM)
        message += " (the project file or its folder is not writable)";
    throw InputError(m_path, std::string(where), message);
}

void SqliteDb::exec(std::string_view sql)
{
    const std::string text(sql);
    const int rc = sqlite3_exec(m_db, text.c_str(), nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK)
        fail(rc, shortSql(sql));
}

int64_t SqliteDb::queryInt(std::string_view sql)
{
    SqliteStatement s(*this, sql);
    return s.step() ? s.int64(0) : 0;
}

std::string SqliteDb::queryText(std::string_view sql)
{
    SqliteStatement s(*this, sql);
    return s.step() ? s.text(0) : std::string();
}

void SqliteDb::setBusyTimeout(int ms) { sqlite3_busy_timeout(m_db, ms); }
int64_t SqliteDb::lastInsertRowId() const { return sqlite3_last_insert_rowid(m_db); }
int64_t SqliteDb::changes() const { return sqlite3_changes64(m_db); }

// ---- SqliteStatement ------------------------------------------------------------------------

SqliteStatement::SqliteStatement(SqliteDb& db, std::string_view sql)
    : m_db(&db)
    , m_sql(sql)
{
    const int rc
        = sqlite3_prepare_v3(db.handle(), m_sql.data(), int(m_sql.size()), SQLITE_PREPARE_PERSISTENT, &m_stmt, nullptr);
    if (rc != SQLITE_OK)
        db.fail(rc, shortSql(m_sql));
}

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : m_db(other.m_db)
    , m_stmt(other.m_stmt)
    , m_sql(std::move(other.m_sql))
{
    other.m_stmt = nullptr;
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(m_stmt); }

SqliteStatement& SqliteStatement::bind(int index, int64_t value)
{
    if (const int rc = sqlite3_bind_int64(m_stmt, index, value); rc != SQLITE_OK)
        m_db->fail(rc, shortSql(m_sql));
    return *this;
}

SqliteStatement& SqliteStatement::bind(int index, double value)
{
    if (std::isnan(value))
        return bindNull(index);
    if (const int rc = sqlite3_bind_double(m_stmt, index, value); rc != SQLITE_OK)
        m_db->fail(rc, shortSql(m_sql));
    return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::string_view text)
{
    if (const int rc = sqlite3_bind_text64(m_stmt, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
        rc != SQLITE_OK)
        m_db->fail(rc, shortSql(m_sql));
    return *this;
}

SqliteStatement& SqliteStatement::bindNull(int index)
{
    if (const int rc = sqlite3_bind_null(m_stmt, index); rc != SQLITE_OK)
        m_db->fail(rc, shortSql(m_sql));
    return *this;
}

bool SqliteStatement::step()
{
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    sqlite3_reset(m_stmt);
    m_db->fail(rc, shortSql(m_sql));
}

void SqliteStatement::run()
{
    while (step()) { }
    reset();
}

void SqliteStatement::reset()
{
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
}

bool SqliteStatement::isNull(int column) const { return sqlite3_column_type(m_stmt, column) == SQLITE_NULL; }
int64_t SqliteStatement::int64(int column) const { return sqlite3_column_int64(m_stmt, column); }

double SqliteStatement::real(int column) const
{
    return isNull(column) ? std::numeric_limits<double>::quiet_NaN() : sqlite3_column_double(m_stmt, column);
}

std::string SqliteStatement::text(int column) const
{
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, column));
    return p ? std::string(p, size_t(sqlite3_column_bytes(m_stmt, column))) : std::string();
}

// ---- SqliteTransaction ----------------------------------------------------------------------

SqliteTransaction::SqliteTransaction(SqliteDb& db, bool exclusive)
    : m_db(db)
{
    m_db.exec(exclusive ? "BEGIN EXCLUSIVE" : "BEGIN IMMEDIATE");
}

SqliteTransaction::~SqliteTransaction()
{
    if (m_open)
        sqlite3_exec(m_db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void SqliteTransaction::commit()
{
    m_db.exec("COMMIT");
    m_open = false;
}

std::string sqliteVersion() { return sqlite3_libversion(); }

} // namespace tgraph
