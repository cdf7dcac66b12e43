// SPDX-License-Identifier: Apache-2.0
// Synthetic HLO generator (tgraph gen-hlo): every family parses with our parser from a few hundred
// to 40 000 instructions, lands near the requested size, featurizes, has configurable nodes and
// called computations, is byte-identical for a seed and changes with it.

#include "core/util/error.h"
#include "core/hlo/featurizer.h"
#include "core/synth/hlogen.h"
#include "core/hlo/hlotext.h"
#include "testutil.h"

#include <QtTest>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <stdexcept>

using namespace tgraph;

namespace {

const int64_t kSizes[] = { 300, 5000, 40000 };

std::string generate(const std::string& family, int64_t size, uint64_t seed)
{
    HloGenSpec spec;
    spec.family = family;
    spec.instructions = size;
    spec.seed = seed;
    return generateHloText(spec);
}

HloModule parseGenerated(const std::string& text, const std::string& family)
{
    HloTextOptions lean;
    lean.keepAttributes = false;
    return parseHloText(text, family + ".hlo", lean);
}

std::multiset<std::string> opcodesOf(const HloModule& m)
{
    std::multiset<std::string> ops;
    for (const HloInstruction& i : m.instructions)
        ops.insert(std::string(i.opcode));
    return ops;
}

// Number of convolutions whose result has `rank` dimensions (4 = 2-D NHWC, 5 = 3-D NDHWC).
int64_t convolutionsOfRank(const HloModule& m, uint32_t rank)
{
    int64_t n = 0;
    for (const HloInstruction& i : m.instructions)
        n += i.opcode == "convolution" && m.shapes[i.shape].dims.count == rank;
    return n;
}

// The module without its first line (`HloModule <family>_<seed>`), i.e. what the seed may change.
std::string body(const std::string& text) { return text.substr(text.find('\n')); }

} // namespace

class TestHloGen : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void familiesAreListed()
    {
        const std::vector<std::string> families = hloGenFamilies();
        for (const char* f : { "mlp", "resnet", "transformer", "unet", "gnn" })
            QVERIFY2(std::find(families.begin(), families.end(), f) != families.end(), f);
    }

    void unknownFamilyThrows()
    {
        for (const char* name : { "", "UNet", "gcn", "resnet " }) {
            HloGenSpec spec;
            spec.family = name;
            bool thrown = false;
            try {
                generateHloText(spec);
            } catch (const std::invalid_argument& e) {
                thrown = true;
                const QString msg = QString::fromUtf8(e.what());
                QVERIFY2(msg.contains("unet") && msg.contains("gnn"), qPrintable(msg));
            }
            QVERIFY2(thrown, name);
        }
    }

    void modulesParseAndFeaturize_data()
    {
        QTest::addColumn<QString>("family");
        QTest::addColumn<qint64>("size");
        for (const std::string& f : hloGenFamilies())
            for (const int64_t size : kSizes)
                QTest::addRow("%s/%lld", f.c_str(), static_cast<long long>(size))
                    << QString::fromStdString(f) << qint64(size);
    }

    void modulesParseAndFeaturize()
    {
        QFETCH(QString, family);
        QFETCH(qint64, size);
        const std::string f = testutil::str(family);
        const std::string text = generate(f, size, 1);
        ModuleTuningData data;
        data.hasModule = true;
        try {
            data.module = parseGenerated(text, f);
        } catch (const InputError& e) {
            QFAIL(e.what());
        }
        const HloModule& m = data.module;
        // the size target is met within 15 % (modules grow in whole blocks or layers)
        const int64_t count = int64_t(m.instructions.size());
        QVERIFY2(std::abs(count - size) * 100 <= 15 * size,
            qPrintable(QString("%1 instructions for a target of %2").arg(count).arg(size)));
        // configurable nodes and called computations (fusions, reducers, loop bodies)
        const std::multiset<std::string> ops = opcodesOf(m);
        QVERIFY(ops.count("convolution") + ops.count("dot") + ops.count("reshape") > 0);
        QVERIFY(m.computations.size() > 1);
        int64_t callers = 0;
        for (const HloInstruction& i : m.instructions)
            callers += i.calledComputationIds.count > 0;
        QVERIFY(callers > 0);
        QVERIFY(ops.count("fusion") + ops.count("while") + ops.count("reduce") + ops.count("scatter") > 0);
        if (f == "unet") {
            QVERIFY(ops.count("convolution") > 0);
            QVERIFY(ops.count("reshape") > 0);
            QVERIFY(ops.count("concatenate") > 0);
            QVERIFY(ops.count("fusion") > 0);
        }
        if (f == "gnn") {
            QVERIFY(ops.count("gather") > 0);
            QVERIFY(ops.count("scatter") > 0);
            QVERIFY(ops.count("dot") > 0);
            QVERIFY(ops.count("reshape") > 0);
        }
        // the featurizer accepts it: one node per instruction, convs/dots/reshapes configurable
        const LayoutGraph g = featurizeLayout(data, f + ".hlo");
        QCOMPARE(g.nodeCount(), count);
        QVERIFY(g.edgeCount() > 0);
        QCOMPARE(g.configurableCount(), int64_t(defaultConfigurableNodes(m).size()));
        QVERIFY(g.configurableCount() > 0);
        QCOMPARE(g.configCount(), int64_t(0));
    }

    void deterministicPerSeed_data()
    {
        QTest::addColumn<QString>("family");
        for (const std::string& f : hloGenFamilies())
            QTest::newRow(f.c_str()) << QString::fromStdString(f);
    }

    void deterministicPerSeed()
    {
        QFETCH(QString, family);
        const std::string f = testutil::str(family);
        const std::string a = generate(f, 3000, 7);
        QVERIFY(a == generate(f, 3000, 7));
        QVERIFY(a != generate(f, 3000, 8));
        // Every family varies its structure (shapes, widths, block kinds) with the seed.
        int differing = 0;
        for (uint64_t seed = 8; seed <= 11; ++seed)
            differing += body(a) != body(generate(f, 3000, seed));
        QCOMPARE(differing, 4);
    }

    void unetHasTwoAndThreeDimensionalVariants()
    {
        int64_t flat = 0, volumetric = 0;
        std::set<int64_t> sizes;
        for (uint64_t seed = 1; seed <= 12; ++seed) {
            ModuleTuningData data;
            data.hasModule = true;
            data.module = parseGenerated(generate("unet", 300, seed), "unet");
            const HloModule& m = data.module;
            QVERIFY(std::abs(int64_t(m.instructions.size()) - 300) <= 45);
            QCOMPARE(featurizeLayout(data, "unet.hlo").nodeCount(), int64_t(m.instructions.size()));
            flat += convolutionsOfRank(m, 4);
            volumetric += convolutionsOfRank(m, 5);
            sizes.insert(int64_t(m.instructions.size()));
            const std::multiset<std::string> ops = opcodesOf(m);
            QVERIFY(ops.count("reduce-window") + ops.count("convolution") > 0);
        }
        QVERIFY(flat > 0);
        QVERIFY(volumetric > 0);
        QVERIFY(sizes.size() > 1); // the structure changes with the seed
        // both downsampling and both upsampling kinds occur in a larger module
        const std::string text = generate("unet", 5000, 1);
        QVERIFY(text.find("window={size=1x2x2x1 stride=1x2x2x1}") != std::string::npos
            || text.find("window={size=1x2x2x2x1 stride=1x2x2x2x1}") != std::string::npos);
        QVERIFY(text.find("lhs_dilate=2x2") != std::string::npos);
        QVERIFY(text.find("stride=2x2") != std::string::npos);
        QVERIFY(text.find("ResizeNearestNeighbor") != std::string::npos);
        QVERIFY(text.find("dimensions={3}") != std::string::npos || text.find("dimensions={4}") != std::string::npos);
    }

    void gnnGathersAndScatters()
    {
        std::set<int64_t> sizes;
        for (uint64_t seed = 1; seed <= 6; ++seed) {
            ModuleTuningData data;
            data.hasModule = true;
            data.module = parseGenerated(generate("gnn", 300, seed), "gnn");
            const HloModule& m = data.module;
            QVERIFY(std::abs(int64_t(m.instructions.size()) - 300) <= 45);
            QCOMPARE(featurizeLayout(data, "gnn.hlo").nodeCount(), int64_t(m.instructions.size()));
            const std::multiset<std::string> ops = opcodesOf(m);
            QVERIFY(ops.count("gather") > 0);
            QVERIFY(ops.count("scatter") > 0);
            sizes.insert(int64_t(m.instructions.size()));
            // edge endpoints are int32 parameters of the entry
            int64_t indices = 0;
            for (const HloInstruction& i : m.instructions)
                indices += i.opcode == "parameter" && m.shapes[i.shape].elementType == PrimitiveType::S32;
            QCOMPARE(indices, int64_t(2));
        }
        QVERIFY(sizes.size() > 1);
        const std::string text = generate("gnn", 300, 1);
        QVERIFY(text.find("offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1")
            != std::string::npos);
        QVERIFY(text.find("update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
                          "index_vector_dim=1, to_apply=")
            != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestHloGen)
#include "tst_hlogen.moc"
