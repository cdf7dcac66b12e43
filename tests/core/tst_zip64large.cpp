// SPDX-License-Identifier: Apache-2.0
// A real > 4 GiB archive: zip64 sizes and offsets in the central directory, written by us and
// read by us and by Python's zipfile/numpy. Needs ~5 GiB of disk in the build tree and ~5 GiB of
// RAM; skips with a message when the machine has less.

#include "core/io/npz.h"
#include "testutil.h"

#include <QStorageInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace tgraph;

namespace {
constexpr int64_t kBig = (int64_t(4) << 30) + 123457; // just over 4 GiB of uint8

uint8_t pattern(int64_t i) { return uint8_t((i * 31) % 251); }

uint64_t memAvailable()
{
    std::ifstream in("/proc/meminfo");
    std::string key;
    uint64_t kb = 0;
    std::string unit;
    while (in >> key >> kb >> unit)
        if (key == "MemAvailable:")
            return kb * 1024;
    return 0;
}
} // namespace

class TestZip64Large : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void overFourGiB()
    {
        const QString base = QStringLiteral(TGRAPH_BINARY_DIR) + "/test-large";
        QDir().mkpath(base);
        if (QStorageInfo(base).bytesAvailable() < (qint64(10) << 30))
            QSKIP("needs 10 GiB free disk in the build tree for a > 4 GiB archive");
        if (memAvailable() < (uint64_t(8) << 30))
            QSKIP("needs 8 GiB of available memory for a > 4 GiB array");
        QTemporaryDir dir(base + "/zip64-XXXXXX");
        QVERIFY(dir.isValid());
        const std::string file = testutil::str(dir.filePath("big.npz"));
        {
            NdArray<uint8_t> big({ kBig });
            for (int64_t i = 0; i < kBig; ++i)
                big[i] = pattern(i);
            NpzWriter w(file, NpzCompression::Stored);
            w.add("before", NdArray<int32_t>::fromVector({ 3 }, { 1, 2, 3 }));
            w.add("big", big);
            w.add("after", NdArray<float>::fromVector({ 2 }, { 0.5f, -7.0f })); // local header beyond 4 GiB
            w.commit();
        }
        NpzReader r(file);
        QCOMPARE(r.member("big").uncompressedSize, uint64_t(kBig) + r.header("big").headerBytes);
        QVERIFY(r.member("after").localHeaderOffset > (uint64_t(1) << 32));
        QCOMPARE(r.read<float>("after")[1], -7.0f);
        QCOMPARE(r.read<int32_t>("before")[2], 3);
        {
            const NdArray<uint8_t> big = r.read<uint8_t>("big"); // CRC-checked
            QCOMPARE(big.size(), kBig);
            for (int64_t i = 0; i < kBig; i += 4099)
                QCOMPARE(big[i], pattern(i));
            QCOMPARE(big[kBig - 1], pattern(kBig - 1));
        }
        QString why;
        if (!testutil::havePythonModules({ "numpy" }, &why))
            QSKIP(qPrintable(why));
        const auto p = testutil::run(testutil::python(),
            { "-c",
                "import numpy as np, zipfile, sys\n"
                "z = zipfile.ZipFile(sys.argv[1])\n"
                "assert z.getinfo('big.npy').file_size > 2**32\n"
                "assert z.getinfo('after.npy').header_offset > 2**32\n"
                "f = z.open('big.npy'); v = np.lib.format.read_magic(f)\n"
                "shape, fortran, dtype = np.lib.format._read_array_header(f, v)\n"
                "assert shape == (int(sys.argv[2]),) and dtype == np.uint8, shape\n"
                "d = np.load(sys.argv[1])\n"
                "assert d['after'].tolist() == [0.5, -7.0] and d['before'].tolist() == [1, 2, 3]\n",
                QString::fromStdString(file), QString::number(kBig) });
        QVERIFY2(p.exitCode == 0, p.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestZip64Large)
#include "tst_zip64large.moc"
