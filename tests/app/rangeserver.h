// SPDX-License-Identifier: Apache-2.0
#pragma once

// tests/tools/range_server.py as a test's child process: a loopback HTTP server over a folder that
// answers Range requests, can cut or slow a transfer, and logs every request (tst_datafetch,
// tst_datastudio).

#include "testutil.h"

#include <QElapsedTimer>
#include <QThread>

namespace testutil {

// A loopback server over a folder, stopped when the object goes.
class RangeServer
{
public:
    RangeServer(const QString& root, const QString& workDir, const QStringList& extra = {})
        : m_log(workDir + "/requests.log")
    {
        const QString portFile = workDir + "/port";
        QFile::remove(portFile);
        QFile::remove(m_log);
        m_process.start(python(),
            QStringList { toolsDir() + "/range_server.py", "--root", root, "--port-file", portFile, "--log", m_log,
                "--lifetime", "120" }
                + extra);
        QElapsedTimer timer;
        timer.start();
        while (!QFileInfo::exists(portFile) && timer.elapsed() < 15000)
            QThread::msleep(20);
        m_port = QString::fromLatin1(readAll(portFile)).trimmed().toInt();
    }
    ~RangeServer()
    {
        m_process.kill();
        m_process.waitForFinished(5000);
    }
    bool ok() const { return m_port > 0; }
    QString url() const { return QString("http://127.0.0.1:%1/").arg(m_port); }
    QStringList requests() const { return QString::fromUtf8(readAll(m_log)).split('\n', Qt::SkipEmptyParts); }

private:
    QString m_log;
    QProcess m_process;
    int m_port = 0;
};

} // namespace testutil
