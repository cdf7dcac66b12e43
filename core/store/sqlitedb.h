// SPDX-License-Identifier: Apache-2.0
#pragma once

// A thin RAII layer over the sqlite3 C API for the project store: one connection, prepared
// statements, transactions. Every failure throws InputError naming the database file, the
// statement (or "open") and SQLite's message, so a full disk, a read-only folder or a corrupted
// file reach the user as one clear line.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace tgraph {

class SqliteDb;

class SqliteStatement
{
public:
    SqliteStatement(SqliteDb& db, std::string_view sql);
    ~SqliteStatement();
    SqliteStatement(const SqliteStatement&) = delete;
    SqliteStatement& operator=(const SqliteStatement&) = delete;
    SqliteStatement(SqliteStatement&& other) noexcept;

    // 1-based parameter index, as SQLite counts.
    SqliteStatement& bind(int index, int64_t value);
    SqliteStatement& bind(int index, int value) { return bind(index, int64_t(value)); }
    SqliteStatement& bind(int index, double value); // NaN is stored as NULL
    SqliteStatement& bind(int index, std::string_view text);
    SqliteStatement& bind(int index, const char* text) { return bind(index, std::string_view(text)); }
    SqliteStatement& bind(int index, const std::string& text) { return bind(index, std::string_view(text)); }
    SqliteStatement& bindNull(int index);

    // True while a row is available; false when done.
    bool step();
    // Runs to completion (for statements without rows) and resets.
    void run();
    void reset(); // and clears the bindings

    bool isNull(int column) const;
    int64_t int64(int column) const;
    double real(int column) const; // NULL reads as NaN
    std::string text(int column) const;

private:
    SqliteDb* m_db;
    sqlite3_stmt* m_stmt = nullptr;
    std::string m_sql;
};

class SqliteDb
{
public:
    enum class Mode { ReadOnly, ReadWrite, Create };

    // Opens without changing anything in the file (no journal mode, no schema); callers configure.
    // Every connection distrusts the file: SQLite's defensive mode and trusted_schema=OFF
    // (docs/store.md §2).
    SqliteDb(const std::string& path, Mode mode);
    ~SqliteDb();
    SqliteDb(const SqliteDb&) = delete;
    SqliteDb& operator=(const SqliteDb&) = delete;

    void exec(std::string_view sql); // one or more statements without results
    int64_t queryInt(std::string_view sql); // first column of the first row; 0 when none
    std::string queryText(std::string_view sql);

    void setBusyTimeout(int ms);
    int64_t lastInsertRowId() const;
    int64_t changes() const;

    const std::string& path() const { return m_path; }
    sqlite3* handle() const { return m_db; }

    // The first `count` bytes of a file (fewer when it is shorter), read through SQLite's own file
    // layer: POSIX advisory locks belong to a process and a file, and closing any descriptor of
    // the file drops all of them, so a plain open/read/close of a database that a connection of
    // this process has open would silently release that connection's locks (other processes
    // could then checkpoint and reset the WAL under it). SQLite's layer keeps such a descriptor
    // open until the process's locks on the file are gone. InputError naming the file.
    static std::string readFileHead(const std::string& path, size_t count);

    // Throws InputError(path, where, sqlite message) for result code `rc` (not OK/ROW/DONE).
    [[noreturn]] void fail(int rc, std::string_view where) const;

private:
    sqlite3* m_db = nullptr;
    std::string m_path;
};

// BEGIN IMMEDIATE ... COMMIT; rolls back when destroyed without commit() (an exception).
class SqliteTransaction
{
public:
    explicit SqliteTransaction(SqliteDb& db, bool exclusive = false);
    ~SqliteTransaction();
    SqliteTransaction(const SqliteTransaction&) = delete;
    SqliteTransaction& operator=(const SqliteTransaction&) = delete;
    void commit();

private:
    SqliteDb& m_db;
    bool m_open = true;
};

// The SQLite this process runs with, as the library reports it (--version, About).
std::string sqliteVersion();

} // namespace tgraph
