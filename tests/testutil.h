// SPDX-License-Identifier: Apache-2.0
#pragma once

// Helpers shared by the Qt Test executables: where the real data, Debian's python3 and the
// built binaries are (CTest sets TGRAPH_* in the environment), and running child processes.

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QtTest>

#include "core/io/npz.h"
#include "core/util/error.h"

#include <map>
#include <vector>

#include <string>

namespace testutil {

inline QString env(const char* name, const QString& fallback = {})
{
    const QByteArray v = qgetenv(name);
    return v.isEmpty() ? fallback : QString::fromLocal8Bit(v);
}

// ../shared next to the repository; empty when absent (tests labelled `external` then QSKIP).
inline QString sharedDataDir()
{
    const QString dir = env("TGRAPH_SHARED_DIR", QStringLiteral(TGRAPH_SOURCE_DIR "/../shared")) + "/data";
    return QFileInfo(dir).isDir() ? QDir(dir).absolutePath() : QString();
}

inline QString python() { return env("TGRAPH_PYTHON", QStringLiteral("/usr/bin/python3")); }
inline QString toolsDir() { return env("TGRAPH_TEST_TOOLS", QStringLiteral(TGRAPH_SOURCE_DIR "/tests/tools")); }
inline QString binDir() { return env("TGRAPH_BIN_DIR", QStringLiteral(TGRAPH_BINARY_DIR "/bin")); }

struct ProcessResult
{
    int exitCode = -1;
    bool crashed = false;
    QByteArray out;
    QByteArray err;
};

inline ProcessResult run(const QString& program, const QStringList& args, int timeoutMs = 120000)
{
    QProcess p;
    p.start(program, args);
    ProcessResult r;
    if (!p.waitForStarted(10000)) {
        r.err = "cannot start " + program.toLocal8Bit();
        return r;
    }
    p.closeWriteChannel();
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.err = "timeout";
        return r;
    }
    r.crashed = p.exitStatus() == QProcess::CrashExit;
    r.exitCode = p.exitCode();
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

// True when Debian's python3 with numpy (and scipy if asked) is usable; reason otherwise.
inline bool havePythonModules(const QStringList& modules, QString* why)
{
    const ProcessResult r = run(python(), { "-c", "import " + modules.join(", ") });
    if (r.exitCode == 0 && !r.crashed)
        return true;
    *why = python() + " cannot import " + modules.join(", ") + " (install python3-numpy python3-scipy)";
    return false;
}

inline std::string str(const QString& s) { return s.toStdString(); }

inline QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

inline void writeAll(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(bytes), bytes.size());
}

// Expects fn() to throw tgraph::InputError with a one-line message containing every part.
template <class Fn> void expectInputError(Fn fn, const QStringList& parts)
{
    try {
        fn();
    } catch (const tgraph::InputError& e) {
        const QString msg = QString::fromStdString(e.what());
        QVERIFY2(!msg.contains('\n'), qPrintable(msg));
        for (const QString& p : parts)
            QVERIFY2(msg.contains(p), qPrintable("expected '" + p + "' in: " + msg));
        return;
    }
    QFAIL(qPrintable("no InputError for " + parts.join(", ")));
}

// A module with two configurable nodes (a reshape, then a dot) for the layout model to score.
inline constexpr const char* kDotAndReshapeModule = "HloModule m\n\nENTRY main {\n"
                                                    "  p0 = f32[64,128]{1,0} parameter(0)\n"
                                                    "  p1 = f32[128,256]{1,0} parameter(1)\n"
                                                    "  r = f32[128,64]{1,0} reshape(p0)\n"
                                                    "  ROOT dot = f32[64,256]{1,0} dot(p0, p1), "
                                                    "lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n";

// A small layout model trained by `tgraph train` (a few steps on a synthetic collection) under
// `dir`: its weights file, or "" with `error` set. Needs tgraph-model beside `tgraph`.
inline QString trainSmallLayoutModel(const QString& dir, QString* error)
{
    const QString tgraph = binDir() + "/tgraph", data = dir + "/layout-data";
    ProcessResult r = run(tgraph,
        { "synth", "--collection", "layout", "-o", data, "--graphs", "3", "--configs", "40", "--min-size", "200",
            "--max-size", "300", "--families", "mlp,resnet", "--seed", "7" });
    if (r.exitCode == 0)
        r = run(tgraph,
            { "train", "--data", data, "--steps", "4", "--configs-per-step", "16", "--threads", "1", "--eval-every",
                "0", "-o", dir + "/run" });
    if (r.exitCode != 0) {
        *error = QString::fromUtf8(r.err);
        return {};
    }
    return dir + "/run/last.npz";
}

// The same for a tile model.
inline QString trainSmallTileModel(const QString& dir, QString* error)
{
    const QString tgraph = binDir() + "/tgraph", data = dir + "/tile-data";
    ProcessResult r = run(
        tgraph, { "synth", "--collection", "tile", "-o", data, "--graphs", "2", "--configs", "12", "--seed", "3" });
    if (r.exitCode == 0)
        r = run(tgraph,
            { "train", "--data", data, "--steps", "2", "--threads", "1", "--eval-every", "0", "-o",
                dir + "/run-tile" });
    if (r.exitCode != 0) {
        *error = QString::fromUtf8(r.err);
        return {};
    }
    return dir + "/run-tile/last.npz";
}

// Every array of an npz (a score file) read as T, by key.
template <typename T>
std::map<std::string, std::vector<T>> readNpzArrays(const QString& path)
{
    std::map<std::string, std::vector<T>> out;
    tgraph::NpzReader npz(str(path));
    for (const std::string& key : npz.keys()) {
        const tgraph::NdArray<T> a = npz.read<T>(key);
        out[key] = std::vector<T>(a.data(), a.data() + a.size());
    }
    return out;
}

} // namespace testutil
