// SPDX-License-Identifier: Apache-2.0
// dtypes, npy headers, float16 and element conversion.

#include "core/util/error.h"
#include "core/io/npy.h"
#include "testutil.h"

#include <QTemporaryDir>
#include <QtTest>

#include <bit>
#include <cmath>
#include <random>

using namespace tgraph;

namespace {
NpyHeader parse(const std::string& bytes)
{
    return parseNpyHeader(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size(), "f.npy", "");
}

std::string wrapHeader(const std::string& dict, int major)
{
    const size_t prefix = major == 1 ? 10 : 12;
    std::string text = dict;
    text.append((64 - (prefix + text.size() + 1) % 64) % 64, ' ');
    text += '\n';
    std::string out("\x93NUMPY", 6);
    out += char(major);
    out += char(0);
    for (size_t i = 0; i < prefix - 8; ++i)
        out += char((text.size() >> (8 * i)) & 0xff);
    return out + text;
}
} // namespace

class TestNpy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void dtypeDescrRoundTrip()
    {
        int count = 0;
        for (int s = int(ScalarType::Bool); s <= int(ScalarType::Float64); ++s) {
            for (bool big : { false, true }) {
                DType t { ScalarType(s), big };
                if (t.itemSize() == 1)
                    t.bigEndian = false;
                auto back = DType::fromDescr(t.descr());
                QVERIFY2(back.has_value(), t.descr().c_str());
                QCOMPARE(*back, t);
                ++count;
            }
        }
        QCOMPARE(count, 24);
        QCOMPARE(DType::fromDescr("<f4")->name(), std::string("float32"));
        QCOMPARE(DType::fromDescr("|b1")->scalar, ScalarType::Bool);
        QCOMPARE(DType::fromDescr("?")->scalar, ScalarType::Bool);
        QCOMPARE(DType::fromDescr("=i8")->bigEndian, false);
        QCOMPARE(DType::fromDescr("!i2")->bigEndian, true);
        QCOMPARE(DType::fromDescr(">u1")->bigEndian, false); // byte order is meaningless for 1 byte
        std::string why;
        QVERIFY(!DType::fromDescr("|O", &why));
        QVERIFY(QString::fromStdString(why).contains("pickle"));
        for (const char* bad : { "<c8", "<U5", "|S3", "|V8", "<M8[ns]", "<f16", "<i3", "", "<", "<x4" })
            QVERIFY2(!DType::fromDescr(bad), bad);
    }

    void halfFloatKnownValues()
    {
        QCOMPARE(halfToFloat(0x3c00), 1.0f);
        QCOMPARE(halfToFloat(0xc000), -2.0f);
        QCOMPARE(halfToFloat(0x7bff), 65504.0f);
        QCOMPARE(halfToFloat(0x0001), std::ldexp(1.0f, -24));
        QVERIFY(std::isinf(halfToFloat(0x7c00)));
        QVERIFY(std::isnan(halfToFloat(0x7e00)));
        QCOMPARE(floatToHalf(1.0f), uint16_t(0x3c00));
        QCOMPARE(floatToHalf(65504.0f), uint16_t(0x7bff));
        QCOMPARE(floatToHalf(65520.0f), uint16_t(0x7c00)); // rounds to infinity
        QCOMPARE(floatToHalf(std::ldexp(1.0f, -25)), uint16_t(0x0000)); // ties to even: zero
        QCOMPARE(floatToHalf(std::ldexp(3.0f, -26)), uint16_t(0x0001));
        QCOMPARE(floatToHalf(-0.0f), uint16_t(0x8000));
        QCOMPARE(floatToHalf(1.0f + std::ldexp(1.0f, -11)), uint16_t(0x3c00)); // halfway, even stays
        QCOMPARE(floatToHalf(1.0f + std::ldexp(3.0f, -11)), uint16_t(0x3c02)); // halfway, odd rounds up
    }

    void halfFloatExhaustiveAndAgainstCompiler()
    {
        for (uint32_t h = 0; h < 0x10000; ++h) {
            const float f = halfToFloat(uint16_t(h));
            if (std::isnan(f))
                continue;
            QCOMPARE(floatToHalf(f), uint16_t(h));
            QCOMPARE(f, float(std::bit_cast<_Float16>(uint16_t(h))));
        }
        std::mt19937 rng(7);
        for (int i = 0; i < 2000000; ++i) {
            // Bit patterns spanning subnormal half, normal half and overflow ranges.
            const uint32_t bits = (rng() & 0x80000000u) | ((0x30000000u + rng() % 0x18000000u) & 0x7fffffffu);
            const float f = std::bit_cast<float>(bits);
            const uint16_t want = std::bit_cast<uint16_t>(static_cast<_Float16>(f));
            if (floatToHalf(f) != want)
                QFAIL(qPrintable(QString("float %1 (0x%2): got 0x%3, compiler 0x%4")
                                     .arg(double(f))
                                     .arg(bits, 8, 16, QChar('0'))
                                     .arg(floatToHalf(f), 4, 16, QChar('0'))
                                     .arg(want, 4, 16, QChar('0'))));
        }
    }

    void headerVersionsAndSyntax()
    {
        NpyHeader h = parse(makeNpyHeader(DType { ScalarType::Float32, false }, { 3, 4 }, false));
        QCOMPARE(h.shape, (std::vector<int64_t> { 3, 4 }));
        QCOMPARE(h.headerBytes % 64, uint64_t(0));
        QCOMPARE(h.majorVersion, uint8_t(1));

        h = parse(wrapHeader("{'descr': '>i2', 'fortran_order': True, 'shape': (2, 5, 7), }", 2));
        QCOMPARE(h.majorVersion, uint8_t(2));
        QCOMPARE(h.dtype, (DType { ScalarType::Int16, true }));
        QVERIFY(h.fortranOrder);
        QCOMPARE(h.elementCount(), int64_t(70));

        h = parse(wrapHeader("{\"shape\": (5L,), \"fortran_order\": False, \"descr\": \"<u8\"}", 3));
        QCOMPARE(h.shape, std::vector<int64_t> { 5 });
        QCOMPARE(h.dtype.scalar, ScalarType::UInt64);

        h = parse(wrapHeader("{'descr': '<f8', 'fortran_order': False, 'shape': ()}", 1));
        QVERIFY(h.shape.empty());
        QCOMPARE(h.elementCount(), int64_t(1));

        auto expectError = [](const std::string& bytes, const char* part) {
            try {
                parse(bytes);
            } catch (const InputError& e) {
                QVERIFY2(QString(e.what()).contains(part), e.what());
                QVERIFY2(QString(e.what()).startsWith("f.npy: "), e.what());
                return;
            }
            QFAIL(part);
        };
        expectError(wrapHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (2,)}", 4),
            "unsupported npy format version 4.0");
        expectError(std::string("\x93NUMPZ\x01\x00\x10\x00", 10), "bad magic");
        expectError(std::string("\x93NUMPY\x01\x00\xff\xff", 10), "truncated");
        expectError(std::string("\x93NUMPY\x02\x00\xff\xff\xff\x7f", 12), "exceeds the limit");
        expectError(wrapHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'extra': 1}", 1), "unexpected");
        expectError(wrapHeader("{'descr': '<f8', 'fortran_order': 0, 'shape': (2,)}", 1), "unexpected value");
        expectError(wrapHeader("{'descr': '<f8', 'fortran_order': False, 'shape': [2]}", 1), "shape is not a tuple");
        expectError(wrapHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (2, -1)}", 1), "negative dimension");
        expectError(wrapHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (2,)", 1), "header dict ends early");
        expectError(wrapHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (2,)} x", 1), "unexpected text");
    }

    void fortranReorder()
    {
        // 2x3 Fortran storage: a[0,0], a[1,0], a[0,1], a[1,1], a[0,2], a[1,2]
        const int32_t f[6] = { 0, 3, 1, 4, 2, 5 };
        int32_t c[6] = {};
        fortranToC(reinterpret_cast<const std::byte*>(f), reinterpret_cast<std::byte*>(c), { 2, 3 }, 4);
        for (int i = 0; i < 6; ++i)
            QCOMPARE(c[i], i);
        // 2x3x4: C index (i*3+j)*4+k, Fortran index i + 2*(j + 3*k)
        std::vector<int16_t> fs(24), cs(24);
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 3; ++j)
                for (int k = 0; k < 4; ++k)
                    fs[size_t(i + 2 * (j + 3 * k))] = int16_t((i * 3 + j) * 4 + k);
        fortranToC(
            reinterpret_cast<const std::byte*>(fs.data()), reinterpret_cast<std::byte*>(cs.data()), { 2, 3, 4 }, 2);
        for (int i = 0; i < 24; ++i)
            QCOMPARE(int(cs[size_t(i)]), i);
    }

    void conversionChecksValues()
    {
        auto expectError = [](auto fn, const char* part) {
            try {
                fn();
            } catch (const InputError& e) {
                QVERIFY2(QString(e.what()).contains(part), e.what());
                return;
            }
            QFAIL(part);
        };
        const double d[3] = { 1.0, 2.5, 3.0 };
        int64_t out[3];
        expectError(
            [&] {
                convertElements<int64_t>(reinterpret_cast<const std::byte*>(d), DType { ScalarType::Float64, false },
                    out, 3, 0, "g.npz", "ids");
            },
            "ids[1]: value 2.5");
        const double nan[1] = { std::nan("") };
        expectError(
            [&] {
                convertElements<int64_t>(reinterpret_cast<const std::byte*>(nan), DType { ScalarType::Float64, false },
                    out, 1, 4, "g.npz", "ids");
            },
            "ids[4]");
        const uint64_t big[1] = { ~uint64_t(0) };
        expectError(
            [&] {
                convertElements<int64_t>(reinterpret_cast<const std::byte*>(big), DType { ScalarType::UInt64, false },
                    out, 1, 0, "g.npz", "ids");
            },
            "does not fit in int64");
        const int8_t neg[1] = { -1 };
        uint32_t u[1];
        expectError(
            [&] {
                convertElements<uint32_t>(
                    reinterpret_cast<const std::byte*>(neg), DType { ScalarType::Int8, false }, u, 1, 0, "g.npz", "x");
            },
            "does not fit in uint32");
        // Big-endian int32 [1, -2] and an exact float -> int conversion.
        const uint8_t be[8] = { 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe };
        int32_t v[2];
        convertElements<int32_t>(
            reinterpret_cast<const std::byte*>(be), DType { ScalarType::Int32, true }, v, 2, 0, "", "");
        QCOMPARE(v[0], 1);
        QCOMPARE(v[1], -2);
        const std::vector<int64_t> shape { 2, 3 };
        const float grid[6] = { 0, 1, 2, 3, 4.5f, 5 };
        expectError(
            [&] {
                convertElements<int64_t>(reinterpret_cast<const std::byte*>(grid + 3),
                    DType { ScalarType::Float32, false }, out, 3, 3, "g.npz", "node_opcode", &shape);
            },
            "node_opcode[1,1]");
    }

    void npyFileRoundTrip()
    {
        QTemporaryDir dir;
        NdArray<double> a({ 2, 2 });
        a(0, 0) = 1.5;
        a(0, 1) = -2;
        a(1, 0) = 1e300;
        a(1, 1) = 0;
        const std::string path = testutil::str(dir.filePath("a.npy"));
        writeNpyFile(path, NpyArray::from(a, DType { ScalarType::Float64, true }));
        const NpyArray back = readNpyFile(path);
        QCOMPARE(back.header.dtype.descr(), std::string(">f8"));
        QCOMPARE(back.to<double>(), a);
        // A file whose header promises more data than it holds.
        testutil::writeAll(dir.filePath("short.npy"), testutil::readAll(dir.filePath("a.npy")).chopped(8));
        QVERIFY_THROWS_EXCEPTION(InputError, readNpyFile(testutil::str(dir.filePath("short.npy"))));
    }
};

QTEST_GUILESS_MAIN(TestNpy)
#include "tst_npy.moc"
