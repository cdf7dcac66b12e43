// SPDX-License-Identifier: Apache-2.0
// The atomic file writer (core/util/atomicfile.h): the target holds the old content or the new,
// never a part; failures leave no temporary file and name the target; concurrent writers never
// mix their bytes. (Tests run as root, so failures come from a missing folder, a directory in the
// target's place or a throwing writer, not from permissions.)

#include "core/util/atomicfile.h"
#include "core/util/error.h"
#include "testutil.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace tgraph;

class TestAtomicFile : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    QString path(const QString& name) const { return m_dir.filePath(name); }
    std::string spath(const QString& name) const { return path(name).toStdString(); }
    QStringList entries(const QString& folder = {}) const
    {
        return QDir(folder.isEmpty() ? m_dir.path() : folder)
            .entryList(QDir::Files | QDir::Dirs | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
    }

private Q_SLOTS:
    void init()
    {
        QVERIFY(m_dir.isValid());
        for (const QString& e : entries()) {
            QFileInfo info(path(e));
            if (info.isDir() && !info.isSymLink())
                QVERIFY(QDir(path(e)).removeRecursively());
            else
                QVERIFY(QFile::remove(path(e)));
        }
    }

    void writesAndReplaces()
    {
        writeFileAtomically(spath("a.txt"), "first version, longer than the second\n");
        QCOMPARE(testutil::readAll(path("a.txt")), QByteArray("first version, longer than the second\n"));
        writeFileAtomically(spath("a.txt"), "second\n");
        QCOMPARE(testutil::readAll(path("a.txt")), QByteArray("second\n")); // replaced, not overwritten in place
        writeFileAtomically(spath("empty.txt"), "");
        QVERIFY(QFileInfo(path("empty.txt")).isFile());
        QCOMPARE(QFileInfo(path("empty.txt")).size(), 0);
        QCOMPARE(entries(), QStringList({ "a.txt", "empty.txt" })); // no temporary file left
    }

    void aThrowingWriterLeavesTheOldFile()
    {
        writeFileAtomically(spath("keep.txt"), "old content\n");
        bool threw = false;
        try {
            writeFileAtomically(spath("keep.txt"), [](AtomicFile& f) {
                f.write("new content that never lands");
                QVERIFY(QFileInfo::exists(QString::fromStdString(f.tempPath())));
                throw std::runtime_error("the writer failed");
            });
        } catch (const std::runtime_error& e) {
            threw = QString(e.what()) == "the writer failed"; // the writer's exception, as it was
        }
        QVERIFY(threw);
        QCOMPARE(testutil::readAll(path("keep.txt")), QByteArray("old content\n"));
        QCOMPARE(entries(), QStringList({ "keep.txt" }));
        // Destroyed without commit(): the same.
        {
            AtomicFile f(spath("keep.txt"));
            f.write("abandoned");
        }
        QCOMPARE(testutil::readAll(path("keep.txt")), QByteArray("old content\n"));
        QCOMPARE(entries(), QStringList({ "keep.txt" }));
    }

    void failuresNameTheTargetAndLeaveNothing()
    {
        // A folder that does not exist: nothing can be created.
        testutil::expectInputError([&] { writeFileAtomically(spath("missing/dir/out.txt"), "x"); },
            { path("missing/dir/out.txt"), "cannot create" });
        QVERIFY(entries().isEmpty());
        // A non-empty directory where the file should go: the rename fails after the bytes were
        // written; the temporary file is removed and the directory untouched.
        QVERIFY(QDir().mkpath(path("taken")));
        testutil::writeAll(path("taken/inside.txt"), "inside");
        testutil::expectInputError(
            [&] { writeFileAtomically(spath("taken"), "payload"); }, { path("taken"), "cannot rename into place" });
        QCOMPARE(entries(), QStringList({ "taken" }));
        QCOMPARE(testutil::readAll(path("taken/inside.txt")), QByteArray("inside"));
        // An exception from a commit() that failed leaves nothing either.
        {
            AtomicFile f(spath("taken"));
            f.write("x");
            testutil::expectInputError([&] { f.commit(); }, { path("taken") });
        }
        QCOMPARE(entries(), QStringList({ "taken" }));
    }

    void streamingWritesAndPatches()
    {
        writeFileAtomically(spath("stream.bin"), [](AtomicFile& f) {
            f.write("hello ");
            QCOMPARE(f.size(), uint64_t(6));
            std::string big(3 << 20, 'x'); // several MiB in one call
            f.write(big.data(), big.size());
            f.write(" world");
            f.writeAt(0, "J", 1); // a header patched once its content is known
            QVERIFY_THROWS_EXCEPTION(std::logic_error, f.writeAt(f.size(), "y", 1));
        });
        const QByteArray bytes = testutil::readAll(path("stream.bin"));
        QCOMPARE(bytes.size(), qsizetype(6 + (3 << 20) + 6));
        QVERIFY(bytes.startsWith("Jello xxx") && bytes.endsWith("xx world"));
        QCOMPARE(entries(), QStringList({ "stream.bin" }));
    }

    void concurrentWritersNeverMixTheirBytes()
    {
        // Two writers replace the same file while a reader watches: every read finds one writer's
        // complete content (each fills 256 KiB with its own letter).
        const std::string target = spath("shared.bin");
        constexpr size_t kSize = 256 << 10;
        writeFileAtomically(target, std::string(kSize, 'a'));
        std::atomic<int> writing { 2 };
        std::atomic<int> failures { 0 };
        std::vector<std::thread> writers;
        for (const char letter : { 'a', 'b' })
            writers.emplace_back([&, letter] {
                try {
                    for (int i = 0; i < 20; ++i)
                        writeFileAtomically(target, std::string(kSize, letter));
                } catch (...) {
                    ++failures;
                }
                --writing;
            });
        int reads = 0;
        int torn = 0;
        while (writing > 0 || reads < 10) {
            const QByteArray bytes = testutil::readAll(path("shared.bin"));
            ++reads;
            if (bytes.size() != qsizetype(kSize) || bytes.count(bytes.front()) != bytes.size()
                || (bytes.front() != 'a' && bytes.front() != 'b'))
                ++torn;
        }
        for (std::thread& t : writers)
            t.join();
        QCOMPARE(failures.load(), 0);
        QCOMPARE(torn, 0);
        QVERIFY(reads >= 10);
        QCOMPARE(entries(), QStringList({ "shared.bin" }));
    }

    void symbolicLinksAndDevicesStay()
    {
        // A link to a file: the file it names is replaced, the link stays a link.
        writeFileAtomically(spath("real.txt"), "old");
        QVERIFY(QFile::link(path("real.txt"), path("link.txt")));
        writeFileAtomically(spath("link.txt"), "new");
        QVERIFY(QFileInfo(path("link.txt")).isSymLink());
        QCOMPARE(testutil::readAll(path("real.txt")), QByteArray("new"));
        QCOMPARE(entries(), QStringList({ "link.txt", "real.txt" }));
        // A FIFO (like a device) is written in place, never replaced by a regular file.
        QCOMPARE(::mkfifo(spath("fifo").c_str(), 0600), 0);
        QByteArray received;
        std::thread reader([&] { received = testutil::readAll(path("fifo")); });
        writeFileAtomically(spath("fifo"), "through the pipe");
        reader.join();
        QCOMPARE(received, QByteArray("through the pipe"));
        struct stat st
        { };
        QCOMPARE(::lstat(spath("fifo").c_str(), &st), 0);
        QVERIFY(S_ISFIFO(st.st_mode));
        QCOMPARE(entries(), QStringList({ "fifo", "link.txt", "real.txt" }));
    }
};

QTEST_GUILESS_MAIN(TestAtomicFile)
#include "tst_atomicfile.moc"
