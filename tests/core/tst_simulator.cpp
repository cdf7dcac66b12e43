// SPDX-License-Identifier: Apache-2.0
// Layout candidates, the analytical cost simulator (layout and tile), kernel extraction and
// synthetic collections.

#include "core/hlo/featurizer.h"
#include "core/graph/graphio.h"
#include "core/hlo/hloproto.h"
#include "core/hlo/hlotext.h"
#include "core/sim/layoutcandidates.h"
#include "core/metrics/metrics.h"
#include "core/io/npz.h"
#include "core/sim/simulator.h"
#include "core/sim/siminputs.h"
#include "core/synth/synthcollection.h"
#include "testutil.h"

#include <QDirIterator>
#include <QTemporaryDir>
#include <QtTest>

#include <set>

using namespace tgraph;

namespace {

HloModule parse(const std::string& text)
{
    HloTextOptions keep; // attributes kept: backend_config carries trip counts
    return parseHloText(text, "sim.hlo", keep);
}

// A convolution reading a parameter (NHWC, feature minor) and feeding a negate (not configurable).
const char* kConvModule = "HloModule c\n"
                          "ENTRY e {\n"
                          "  x = f32[8,32,32,64]{3,2,1,0} parameter(0)\n"
                          "  w = f32[3,3,64,64]{3,2,1,0} parameter(1)\n"
                          "  c = f32[8,32,32,64]{3,2,1,0} convolution(x, w), window={size=3x3 pad=1_1x1_1}, "
                          "dim_labels=b01f_01io->b01f\n"
                          "  ROOT n = f32[8,32,32,64]{3,2,1,0} negate(c)\n"
                          "}\n";

// One config row for one configurable node: output, input, kernel pins (-1 = default).
std::vector<float> row(std::vector<float> out, std::vector<float> in = {}, std::vector<float> kernel = {})
{
    std::vector<float> r(18, -1.0f);
    for (size_t i = 0; i < out.size(); ++i)
        r[i] = out[i];
    for (size_t i = 0; i < in.size(); ++i)
        r[6 + i] = in[i];
    for (size_t i = 0; i < kernel.size(); ++i)
        r[12 + i] = kernel[i];
    return r;
}

} // namespace

class TestSimulator : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void tensorChoicesEnumerateDistinctLayouts()
    {
        for (int rank : { 1, 2, 3, 4, 5 }) {
            for (int pinned : { std::min(rank, 2), rank }) {
                TensorLayoutChoices c { rank, pinned };
                std::set<std::vector<float>> seen;
                for (int64_t k = 0; k < c.count(); ++k) {
                    std::vector<float> six(6);
                    c.write(k, six.data());
                    std::set<float> dims;
                    for (int s = 0; s < 6; ++s) {
                        if (s < pinned) {
                            QVERIFY(six[size_t(s)] >= 0 && six[size_t(s)] < rank);
                            dims.insert(six[size_t(s)]);
                        } else {
                            QCOMPARE(six[size_t(s)], -1.0f);
                        }
                    }
                    QCOMPARE(int(dims.size()), pinned); // distinct dims
                    seen.insert(six);
                }
                QCOMPARE(int64_t(seen.size()), c.count()); // every choice different
            }
        }
        QCOMPARE((TensorLayoutChoices { 4, 2 }.count()), int64_t(12));
        QCOMPARE((TensorLayoutChoices { 3, 3 }.count()), int64_t(6));
        QCOMPARE((TensorLayoutChoices { 0, 0 }.count()), int64_t(0));
    }

    void choicesFollowTheRealData()
    {
        const HloModule m = parse("HloModule r\nENTRY e {\n  p = f32[2,3,4]{2,1,0} parameter(0)\n"
                                  "  q = f32[2,3,4,1,1,1,1]{6,5,4,3,2,1,0} reshape(p)\n"
                                  "  ROOT r = f32[6,4]{1,0} reshape(p)\n}\n");
        const auto c = layoutChoices(m, defaultConfigurableNodes(m));
        QCOMPARE(c.size(), size_t(2));
        QCOMPARE(c[0].tensors.size(), size_t(2)); // reshape: output, input
        QCOMPARE(c[0].tensors[0].pinned, 0); // rank 7: values 0..5 cannot describe it
        QCOMPARE(c[0].tensors[1].pinned, 3); // full permutation of the rank-3 input
        QCOMPARE(c[1].tensors[0].pinned, 2);
        const HloModule conv = parse(kConvModule);
        const auto cc = layoutChoices(conv, defaultConfigurableNodes(conv));
        QCOMPARE(cc.size(), size_t(1));
        QCOMPARE(cc[0].tensors.size(), size_t(3)); // output, input, kernel
        for (const auto& t : cc[0].tensors)
            QCOMPARE(t.pinned, 2); // the two most-minor dims, as the real convolution configs
    }

    void samplersGiveDistinctRowsDefaultFirst()
    {
        const HloModule conv = parse(kConvModule);
        const auto choices = layoutChoices(conv, defaultConfigurableNodes(conv));
        for (LayoutSampler s : { LayoutSampler::Random, LayoutSampler::Default }) {
            const NdArray<float> rows = sampleLayoutConfigs(choices, 300, s, 7);
            QCOMPARE(rows.dim(0), int64_t(300));
            for (int k = 0; k < 18; ++k)
                QCOMPARE(rows(0, 0, k), -1.0f); // row 0: the compiler default
            std::set<std::vector<float>> distinct;
            for (int64_t c = 0; c < rows.dim(0); ++c)
                distinct.insert(std::vector<float>(rows.row(c), rows.row(c) + rows.rowSize()));
            QCOMPARE(int64_t(distinct.size()), rows.dim(0));
            QVERIFY(sampleLayoutConfigs(choices, 300, s, 7) == rows); // deterministic for a seed
        }
        // The space of this node is 13^3 = 2197 rows: asking for more gives all of them.
        QCOMPARE(sampleLayoutConfigs(choices, 5000, LayoutSampler::Random, 1).dim(0), int64_t(2197));
        // The default sampler stays closer to the default than the random one.
        const HloModule big = parseHloText(
            [] {
                std::string t = "HloModule b\nENTRY e {\n  p = f32[4,8,16]{2,1,0} parameter(0)\n";
                for (int i = 0; i < 30; ++i)
                    t += "  r" + std::to_string(i) + " = f32[8,4,16]{2,1,0} reshape(p)\n";
                return t + "  ROOT z = f32[] constant(0)\n}\n";
            }(),
            "b.hlo");
        const auto many = layoutChoices(big, defaultConfigurableNodes(big));
        auto changedNodes = [&](LayoutSampler s) {
            const NdArray<float> rows = sampleLayoutConfigs(many, 200, s, 3);
            double changed = 0;
            for (int64_t c = 0; c < rows.dim(0); ++c)
                for (int64_t k = 0; k < rows.dim(1); ++k)
                    changed += rows(c, k, 0) >= 0 || rows(c, k, 6) >= 0;
            return changed / double(rows.dim(0));
        };
        QVERIFY2(changedNodes(LayoutSampler::Default) < 0.5 * changedNodes(LayoutSampler::Random),
            qPrintable(QString("%1 vs %2")
                           .arg(changedNodes(LayoutSampler::Default))
                           .arg(changedNodes(LayoutSampler::Random))));
        // A set that cannot fit in memory is refused with the estimate.
        testutil::expectInputError(
            [&] { sampleLayoutConfigs(many, 1000000, LayoutSampler::Random, 1, "m.hlo", 1 << 20); },
            { "m.hlo", "1000000 configurations", "need", "ask for fewer" });
    }

    void layoutEffects()
    {
        const HloModule m = parse(kConvModule);
        const std::vector<int64_t> ids = defaultConfigurableNodes(m);
        const LayoutSimulator sim(m, ids);
        const double base = sim.runtime(row({}).data());
        QVERIFY(base > 0);
        // Pinning the compiler's own layouts changes nothing.
        QCOMPARE(sim.runtime(row({ 3, 2 }, { 3, 2 }, { 3, 2 }).data()), base);
        // Input read with H minor: the parameter must be transposed and the conv loses efficiency.
        const double inputOff = sim.runtime(row({}, { 1, 3 }).data());
        QVERIFY2(inputOff > base * 1.2, qPrintable(QString("%1 vs %2").arg(inputOff).arg(base)));
        // Output with W minor: the negate (not configurable) expects the default, so a copy appears.
        const double outputOff = sim.runtime(row({ 2, 3 }).data());
        QVERIFY(outputOff > base);
        // The breakdown sums to the runtime.
        const std::vector<double> parts = sim.breakdown(row({ 2, 3 }).data());
        double sum = 0;
        for (double v : parts)
            sum += v;
        QVERIFY(std::abs(sum - outputOff) < 1e-6 * outputOff);
    }

    void paddingMakesSmallMinorDimsExpensive()
    {
        // A copy of a (4096, 3) tensor: with the size-3 dim minor it is padded to 128 lanes.
        const HloModule m = parse("HloModule p\nENTRY e {\n  x = f32[4096,3]{1,0} parameter(0)\n"
                                  "  ROOT y = f32[4096,3]{1,0} reshape(x)\n}\n");
        const LayoutSimulator sim(m, defaultConfigurableNodes(m));
        // reshape as a bitcast costs nothing; reading it through a transposed input layout costs a copy
        QCOMPARE(sim.runtime(row({}).data()), 1.0); // floor of 1 ns: only free ops
        QVERIFY(sim.runtime(row({}, { 0, 1 }).data()) > 1000.0);
    }

    // A changed output layout flows through the element-wise ops after it (as XLA's layout
    // assignment propagates it) and is converted back only where a layout is fixed: here the
    // reduce at the root. An explicit copy does not propagate.
    void layoutPropagatesThroughElementwiseOps()
    {
        auto module = [](const char* middle) {
            return std::string("HloModule p\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
                               "  ROOT s = f32[] add(a, b)\n}\n"
                               "ENTRY e {\n  x = f32[1,256,256,8]{3,2,1,0} parameter(0)\n"
                               "  w = f32[3,3,8,8]{3,2,1,0} parameter(1)\n"
                               "  c = f32[1,256,256,8]{3,2,1,0} convolution(x, w), window={size=3x3 pad=1_1x1_1}, "
                               "dim_labels=b01f_01io->b01f\n")
                + middle
                + "  z = f32[] constant(0)\n"
                  "  ROOT r = f32[] reduce(e3, z), dimensions={0,1,2,3}, to_apply=add\n}\n";
        };
        const HloModule m = parse(module("  e1 = f32[1,256,256,8]{3,2,1,0} negate(c)\n"
                                         "  e2 = f32[1,256,256,8]{3,2,1,0} exponential(e1)\n"
                                         "  e3 = f32[1,256,256,8]{3,2,1,0} add(e2, c)\n"));
        const auto ids = defaultConfigurableNodes(m);
        QCOMPARE(ids.size(), size_t(1));
        const LayoutSimulator sim(m, ids);
        // The conv writes W minor (256 lanes, 8 sublanes: no padding) instead of 8 features padded to 128.
        const std::vector<float> wMinor = row({ 2, 3 });
        const std::vector<double> base = sim.breakdown(row({}).data());
        const std::vector<double> changed = sim.breakdown(wMinor.data());
        auto at = [&](const char* name) {
            for (size_t i = 0; i < m.instructions.size(); ++i)
                if (m.instructions[i].name == name)
                    return i;
            return size_t(0);
        };
        for (const char* follower : { "e1", "e2", "e3" }) // no copy, 16x fewer bytes
            QVERIFY2(changed[at(follower)] < base[at(follower)] / 4, follower);
        QVERIFY(changed[at("r")] > base[at("r")]); // the reduce reads the default: a copy back
        QVERIFY(sim.runtime(wMinor.data()) < sim.runtime(row({}).data()));

        // The same chain behind an explicit copy: the copy keeps its layout, the followers stay.
        const HloModule fixed = parse(module("  k = f32[1,256,256,8]{3,2,1,0} copy(c)\n"
                                             "  e1 = f32[1,256,256,8]{3,2,1,0} negate(k)\n"
                                             "  e3 = f32[1,256,256,8]{3,2,1,0} add(e1, k)\n"));
        const LayoutSimulator sim2(fixed, defaultConfigurableNodes(fixed));
        const std::vector<double> b2 = sim2.breakdown(row({}).data());
        const std::vector<double> c2 = sim2.breakdown(wMinor.data());
        for (size_t i = 0; i < fixed.instructions.size(); ++i)
            if (fixed.instructions[i].name == "e1" || fixed.instructions[i].name == "e3")
                QCOMPARE(c2[i], b2[i]);
    }

    // The simulator inputs of a hybrid model (core/sim/siminputs.h, docs/model.md §4.9): zero
    // against the default, the program column is the runtime ratio, the per-node changes add up to
    // the program's change, and each node's columns move only with its own layout.
    void simulatorInputsPerConfigurableNode()
    {
        // Two convolutions, each with its follower, so that two configurable nodes own regions.
        const HloModule m = parse("HloModule two\nENTRY e {\n"
                                  "  x = f32[8,32,32,64]{3,2,1,0} parameter(0)\n"
                                  "  w = f32[3,3,64,64]{3,2,1,0} parameter(1)\n"
                                  "  c1 = f32[8,32,32,64]{3,2,1,0} convolution(x, w), window={size=3x3 pad=1_1x1_1}, "
                                  "dim_labels=b01f_01io->b01f\n"
                                  "  n1 = f32[8,32,32,64]{3,2,1,0} negate(c1)\n"
                                  "  c2 = f32[8,32,32,64]{3,2,1,0} convolution(n1, w), window={size=3x3 pad=1_1x1_1}, "
                                  "dim_labels=b01f_01io->b01f\n"
                                  "  ROOT n2 = f32[8,32,32,64]{3,2,1,0} negate(c2)\n}\n");
        const std::vector<int64_t> ids = defaultConfigurableNodes(m);
        QCOMPARE(ids.size(), size_t(2));
        const LayoutSimulator sim(m, ids);
        QCOMPARE(sim.configurableCount(), int64_t(2));
        // Rows: default; node 0's output W minor; node 1's input H minor; both.
        const std::vector<float> d = row({});
        const std::vector<float> a = row({ 2, 3 });
        const std::vector<float> b = row({}, { 1, 3 });
        std::vector<std::vector<float>> rows { d, d, a, d, d, b, a, b };
        NdArray<float> configs({ 4, 2, 18 });
        for (int64_t r = 0; r < 4; ++r)
            for (int64_t k = 0; k < 2; ++k)
                std::copy_n(rows[size_t(2 * r + k)].data(), 18, configs.data() + (r * 2 + k) * 18);
        const NdArray<float> in = simulatorInputs(sim, configs);
        QCOMPARE(in.shape(), (std::vector<int64_t> { 4, 2, kSimInputColumns }));
        for (int64_t k = 0; k < 2; ++k) {
            for (int64_t col = 0; col < 4; ++col)
                QCOMPARE(in(0, k, col), 0.0f); // the default against itself
            for (int64_t r = 0; r < 4; ++r)
                QCOMPARE(in(r, k, 4), 1.0f); // priced
        }
        const double base = sim.runtime(configs.row(0));
        for (int64_t r = 1; r < 4; ++r) {
            const double t = sim.runtime(configs.row(r));
            QVERIFY(t > base); // each change costs here
            QVERIFY(std::abs(in(r, 0, 2) - std::log(t / base)) < 1e-5);
            QCOMPARE(in(r, 0, 2), in(r, 1, 2));
            // The nodes' region changes add up to the program's change.
            QVERIFY2(std::abs(double(in(r, 0, 3)) + double(in(r, 1, 3)) - (t - base) / base) < 1e-5,
                qPrintable(QString("row %1: %2 + %3 vs %4").arg(r).arg(in(r, 0, 3)).arg(in(r, 1, 3)).arg((t - base) / base)));
        }
        // Row 1 writes node 0's output W minor: its follower n1 and everything after change, so its
        // region does. Row 2 reads node 1's input H minor: only node 1 itself pays (a transposing
        // copy and a slower conv); node 0 and its region are untouched.
        QVERIFY(in(1, 0, 1) > 0);
        QVERIFY(in(2, 1, 0) > 0);
        QCOMPARE(in(2, 0, 0), 0.0f);
        QCOMPARE(in(2, 0, 1), 0.0f);
        QCOMPARE(in(2, 0, 3), 0.0f);
        // Unknown modules: zeros, the priced flag 0. A wrong shape is a caller bug.
        const NdArray<float> none = unpricedSimInputs(3, 2);
        QCOMPARE(none.shape(), (std::vector<int64_t> { 3, 2, kSimInputColumns }));
        for (int64_t i = 0; i < none.size(); ++i)
            QCOMPARE(none[i], 0.0f);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, simulatorInputs(sim, NdArray<float>({ 2, 3, 18 })));
    }

    // The default sampler, steered by the simulator, finds configurations faster than the default
    // where they exist; without guidance it is a blind walk.
    void guidedSearchFindsFasterConfigs()
    {
        const HloModule m
            = parse(std::string("HloModule g\nadd {\n  a = f32[] parameter(0)\n"
                                "  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"
                                "ENTRY e {\n  x = f32[1,256,256,8]{3,2,1,0} parameter(0)\n"
                                "  w = f32[3,3,8,8]{3,2,1,0} parameter(1)\n"
                                "  c = f32[1,256,256,8]{3,2,1,0} convolution(x, w), "
                                "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f\n"
                                "  e1 = f32[1,256,256,8]{3,2,1,0} negate(c)\n"
                                "  e2 = f32[1,256,256,8]{3,2,1,0} exponential(e1)\n"
                                "  z = f32[] constant(0)\n"
                                "  ROOT r = f32[] reduce(e2, z), dimensions={0,1,2,3}, to_apply=add\n}\n"));
        const auto ids = defaultConfigurableNodes(m);
        const LayoutSimulator sim(m, ids);
        const auto cost = [&](const float* r) { return sim.runtime(r); };
        const auto choices = layoutChoices(m, ids);
        const NdArray<float> guided = sampleLayoutConfigs(choices, 60, LayoutSampler::Default, 3, {}, 1 << 30, cost);
        QCOMPARE(guided.dim(0), int64_t(60));
        const double base = sim.runtime(guided.row(0));
        double best = base;
        int faster = 0;
        for (int64_t c = 1; c < guided.dim(0); ++c) {
            best = std::min(best, sim.runtime(guided.row(c)));
            faster += sim.runtime(guided.row(c)) < base;
        }
        QVERIFY2(best < 0.8 * base, qPrintable(QString("best %1 vs default %2").arg(best).arg(base)));
        QVERIFY(faster >= 5);
        // Same seed, same rows; the cost function only steers the default sampler.
        QVERIFY(sampleLayoutConfigs(choices, 60, LayoutSampler::Default, 3, {}, 1 << 30, cost) == guided);
        QVERIFY(sampleLayoutConfigs(choices, 60, LayoutSampler::Random, 3, {}, 1 << 30, cost)
            == sampleLayoutConfigs(choices, 60, LayoutSampler::Random, 3));
    }

    void parametersFromText()
    {
        SimulatorParams p;
        std::string error;
        QVERIFY(!p.assign("copyEfficiency=1, laneTile=256", &error)); // " laneTile" is not a name
        QVERIFY(error.find("' laneTile'") != std::string::npos);
        QCOMPARE(p.copyEfficiency, SimulatorParams().copyEfficiency); // all or nothing
        QVERIFY(p.assign("copyEfficiency=1,laneTile=256,defaultTripCount=4", &error));
        QCOMPARE(p.copyEfficiency, 1.0);
        QCOMPARE(p.laneTile, 256);
        QCOMPARE(p.defaultTripCount, int64_t(4));
        QVERIFY(p.explain().find("laneTile             = 256") != std::string::npos);
        for (const char* bad :
            { "bogus=1", "laneTile=1.5", "matrixPenalty=2", "noiseSigma=", "copyEfficiency=x", "matrixFlops=1e5" }) {
            SimulatorParams q = p;
            error.clear();
            QVERIFY2(!q.assign(bad, &error), bad);
            QVERIFY(!error.empty());
            QCOMPARE(q.laneTile, 256); // unchanged
        }
        QVERIFY(p.assign("", &error)); // nothing to change
    }

    void whileBodiesCountTheirTripCount()
    {
        auto module = [](const std::string& trip) {
            return "HloModule w\n"
                   "cond {\n  p = (s32[], f32[256,256]{1,0}) parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n"
                   "  l = s32[] constant(3)\n  ROOT lt = pred[] compare(i, l), direction=LT\n}\n"
                   "body {\n  p = (s32[], f32[256,256]{1,0}) parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n"
                   "  x = f32[256,256]{1,0} get-tuple-element(p), index=1\n  e = f32[256,256]{1,0} exponential(x)\n"
                   "  ROOT t = (s32[], f32[256,256]{1,0}) tuple(i, e)\n}\n"
                   "ENTRY main {\n  x = f32[256,256]{1,0} parameter(0)\n  z = s32[] constant(0)\n"
                   "  t = (s32[], f32[256,256]{1,0}) tuple(z, x)\n"
                   "  w = (s32[], f32[256,256]{1,0}) while(t), condition=cond, body=body"
                + trip + "\n  ROOT r = f32[256,256]{1,0} get-tuple-element(w), index=1\n}\n";
        };
        SimulatorParams p;
        p.opOverheadNs = 0;
        const HloModule three = parse(module(", backend_config={\"known_trip_count\":{\"n\":\"3\"}}"));
        const HloModule fallback = parse(module(""));
        const double t3 = LayoutSimulator(three, {}, p).runtime(row({}).data());
        const double t10 = LayoutSimulator(fallback, {}, p).runtime(row({}).data()); // default trip count 10
        QVERIFY2(std::abs(t10 / t3 - 10.0 / 3.0) < 1e-6, qPrintable(QString("%1 %2").arg(t3).arg(t10)));
    }

    void measurementsNoiseAndFailures()
    {
        const HloModule m = parse(kConvModule);
        const auto ids = defaultConfigurableNodes(m);
        const NdArray<float> rows = sampleLayoutConfigs(layoutChoices(m, ids), 100, LayoutSampler::Random, 5);
        SimulatorParams exact;
        exact.noiseSigma = 0;
        exact.failureRate = 0;
        std::vector<bool> failed;
        const auto ns = LayoutSimulator(m, ids, exact).measure(rows, 1, &failed);
        for (int64_t c = 0; c < rows.dim(0); ++c) {
            QCOMPARE(ns[size_t(c)], std::llround(LayoutSimulator(m, ids, exact).runtime(rows.row(c))));
            QVERIFY(!failed[size_t(c)]);
        }
        SimulatorParams noisy;
        noisy.failureRate = 1.0;
        const LayoutSimulator sim(m, ids, noisy);
        const auto a = sim.measure(rows, 9, &failed);
        QVERIFY(!failed[0]); // the default never fails
        QCOMPARE(int(std::count(failed.begin(), failed.end(), true)), 99);
        QCOMPARE(sim.measure(rows, 9, nullptr), a); // deterministic for a seed
        QVERIFY(sim.measure(rows, 10, nullptr) != a);
        double worst = 0; // noise stays within a few sigma
        for (int64_t c = 0; c < rows.dim(0); ++c)
            worst = std::max(worst, std::abs(double(a[size_t(c)]) / double(ns[size_t(c)]) - 1.0));
        QVERIFY(worst > 0 && worst < 5 * noisy.noiseSigma);
    }

    void tileModel()
    {
        const HloModule kernel = parse("HloModule k\nENTRY f {\n  x = f32[512,1024]{1,0} parameter(0)\n"
                                       "  y = f32[512,1024]{1,0} parameter(1)\n"
                                       "  ROOT a = f32[512,1024]{1,0} add(x, y)\n}\n");
        const TileSimulator sim(kernel);
        QVERIFY(sim.tileable());
        const auto choices = sim.candidates(30, 1);
        QVERIFY(choices.size() >= 10);
        for (const auto& c : choices) {
            QCOMPARE(c.outputBounds.size(), size_t(2));
            QVERIFY(c.outputBounds[1] % 128 == 0 || c.outputBounds[1] == 1024); // lanes
            QVERIFY(c.outputBounds[0] % 8 == 0 || c.outputBounds[0] == 512); // sublanes
            QCOMPARE(c.kernelBounds[0], (512 + c.outputBounds[0] - 1) / c.outputBounds[0]);
        }
        SimulatorParams half;
        half.vmemBytes /= 2;
        QVERIFY(TileSimulator(kernel, half).runtime(choices[0]) > 0); // the default fits half the scratchpad
        const double small = sim.runtime({ { 8, 128 }, {} });
        const double large = sim.runtime({ { 256, 1024 }, {} });
        QVERIFY2(small > large, "many small tiles pay the per-tile overhead"); // 512 tiles vs 2
        SimulatorParams tiny;
        tiny.vmemBytes = 1 << 16;
        QCOMPARE(TileSimulator(kernel, tiny).runtime({ { 512, 1024 }, {} }), -1.0); // does not fit: fails
    }

    void extractKernel()
    {
        const HloModule m = parse("HloModule x\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
                                  "  ROOT s = f32[] add(a, b)\n}\n"
                                  "fused {\n  p = f32[64,128]{1,0} parameter(0)\n  z = f32[] constant(0)\n"
                                  "  ROOT r = f32[64]{0} reduce(p, z), dimensions={1}, to_apply=add\n}\n"
                                  "ENTRY e {\n  x = f32[64,128]{1,0} parameter(0)\n"
                                  "  ROOT f = f32[64]{0} fusion(x), kind=kInput, calls=fused\n}\n");
        const HloModule k = extractComputation(m, 1);
        QCOMPARE(k.computations.size(), size_t(2)); // the reducer it calls, then the kernel
        QCOMPARE(k.computations.back().name, std::string_view("fused"));
        QCOMPARE(k.entryIndex(), int64_t(1));
        QCOMPARE(k.instructions.size(), size_t(6));
        for (size_t i = 0; i < k.instructions.size(); ++i)
            QCOMPARE(k.instructions[i].id, int64_t(i));
        QCOMPARE(k.span(k.instructions[5].calledComputationIds)[0], int64_t(0));
        QCOMPARE(k.span(k.instructions[5].operandIds)[0], int64_t(3));
        ModuleTuningData d;
        d.hasModule = true;
        d.module = extractComputation(m, 1);
        const LayoutGraph g = featurizeLayout(d, "k");
        QCOMPARE(g.nodeCount(), int64_t(6));
        QCOMPARE(g.nodeFeat(5, 0), 1.0f); // the kernel's root
    }

    void layoutCollection()
    {
        QTemporaryDir dir;
        SynthCollectionSpec spec;
        spec.graphs = 5;
        spec.configs = 25;
        spec.minInstructions = 200;
        spec.maxInstructions = 500;
        spec.seed = 11;
        const SynthCollectionResult r = writeSynthCollection(spec, testutil::str(dir.path()), nullptr);
        QCOMPARE(r.files.size(), size_t(5));
        QCOMPARE(r.train + r.valid + r.test, 5);
        QVERIFY(r.test >= 1 && r.valid >= 1);
        for (const std::string& f : r.files) {
            const LayoutGraph g = loadLayoutGraph(testutil::str(dir.filePath(QString::fromStdString(f))));
            QVERIFY(QString::fromStdString(g.syntheticMeta).contains("\"synthetic\": true"));
            QVERIFY(g.configCount() >= 2);
            QCOMPARE(QString::fromStdString(f).startsWith("test/"), !g.hasRuntimes());
        }
        // Same seed, same bytes.
        QTemporaryDir again;
        writeSynthCollection(spec, testutil::str(again.path()), nullptr);
        for (const std::string& f : r.files)
            QCOMPARE(testutil::readAll(again.filePath(QString::fromStdString(f))),
                testutil::readAll(dir.filePath(QString::fromStdString(f))));
        // numpy reads it, meta_synthetic decodes as JSON
        QString why;
        if (!testutil::havePythonModules({ "numpy" }, &why))
            QSKIP(qPrintable(why));
        const auto p = testutil::run(testutil::python(),
            { "-c",
                "import numpy as np, json, glob, sys\n"
                "files = glob.glob(sys.argv[1] + '/*/*.npz'); assert len(files) == 5\n"
                "for f in files:\n"
                "    d = np.load(f); m = json.loads(bytes(d['meta_synthetic']).decode())\n"
                "    assert m['synthetic'] and m['generator'] == 'tgraph synth'\n"
                "    assert d['node_config_feat'].shape[1:] == (d['node_config_ids'].shape[0], 18)\n"
                "    assert d['node_opcode'].dtype == np.uint8 and d['node_splits'].shape[0] == 1\n",
                dir.path() });
        QVERIFY2(p.exitCode == 0, p.err.constData());
    }

    void tileCollection()
    {
        QTemporaryDir dir;
        SynthCollectionSpec spec;
        spec.kind = GraphKind::Tile;
        spec.graphs = 6;
        spec.configs = 20;
        spec.minInstructions = 200;
        spec.maxInstructions = 600;
        const SynthCollectionResult r = writeSynthCollection(spec, testutil::str(dir.path()), nullptr);
        QCOMPARE(r.files.size(), size_t(6));
        for (const std::string& f : r.files) {
            const TileGraph t = loadTileGraph(testutil::str(dir.filePath(QString::fromStdString(f))));
            QVERIFY(!t.syntheticMeta.empty());
            if (t.hasRuntimes()) {
                // the normalizer is the default run's runtime: the first kept run
                QCOMPARE(t.configRuntimeNormalizers[0], t.configRuntime[0]);
            }
        }
    }

    // Report, not a threshold (issue: calibration against reality): the simulator's ranking of the
    // real module's 112 measured configurations.
    void calibrationOnTheRealTuningRecord()
    {
        const QString data = testutil::sharedDataDir();
        if (data.isEmpty())
            QSKIP("../shared/data is absent: the real tuning record is not available");
        const HloProtoFile file = readHloProtoFile(testutil::str(data + "/tpu_graphs/module_tuning_data_layout.pb"));
        const ModuleTuningData& d = file.modules[0];
        const LayoutGraph g = featurizeLayout(d, "record");
        const LayoutSimulator sim(d.module, std::vector<int64_t>(g.nodeConfigIds.data(), g.nodeConfigIds.data() + 62));
        std::vector<double> measured, simulated;
        for (int64_t c = 0; c < g.configCount(); ++c) {
            measured.push_back(double(g.configRuntime[c]));
            simulated.push_back(sim.runtime(g.nodeConfigFeat.row(c)));
            QVERIFY(simulated.back() > 0);
        }
        QCOMPARE(simulated.size(), size_t(112));
        const double tau = kendallTauB(measured, simulated);
        QVERIFY(std::isfinite(tau));
        qInfo("calibration: Kendall tau %.4f, OPA %.4f, top-5 slowdown %.5f%% over 112 measured configs", tau,
            orderedPairAccuracy(measured, simulated), 100 * topKSlowdown(measured, simulated, 5));
    }
};

QTEST_GUILESS_MAIN(TestSimulator)
#include "tst_simulator.moc"
