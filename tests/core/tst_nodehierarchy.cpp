// SPDX-License-Identifier: Apache-2.0
// The groups of the graph views (docs/studio.md §1.2): op_name scopes of HLO modules, blocks of
// .npz graphs cut where few edges cross, chunks of big levels, group summaries, similar groups and
// the first view's expansion, on hand-written modules, a generated 22,000-node graph and the real
// inputs in ../shared/data.

#include "core/graph/opcodes.h"
#include "core/view/graphdocument.h"
#include "core/view/nodehierarchy.h"
#include "core/view/opnamescope.h"
#include "core/view/rangecuts.h"
#include "testutil.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <map>
#include <set>
#include <tuple>

using namespace tgraph;

namespace {

using Group = NodeHierarchy::Group;
using GroupKind = NodeHierarchy::GroupKind;

std::vector<std::string> scopeOf(std::string_view opName)
{
    std::vector<std::string_view> parts;
    opNameScope(opName, parts);
    return { parts.begin(), parts.end() };
}

// A layout graph of `blocks` blocks of `blockSize` nodes in a chain: inside a block each node reads
// the two before it, a block's first node reads the previous block's last one. The first
// `convBlocks` blocks are mostly convolutions, the others mostly dots.
std::shared_ptr<GraphDocument> blockChain(int64_t blocks, int64_t blockSize, int64_t convBlocks)
{
    auto doc = std::make_shared<GraphDocument>();
    doc->path = "blocks.npz";
    doc->title = "blocks.npz";
    doc->kind = GraphKind::Layout;
    const int64_t n = blocks * blockSize;
    LayoutGraph& g = doc->layout;
    g.nodeFeat = NdArray<float>({ n, 140 }, 0.0f);
    g.nodeOpcode = NdArray<int64_t>({ n });
    std::vector<int64_t> edges; // rows of [consumer, producer]
    for (int64_t b = 0; b < blocks; ++b) {
        const int main = b < convBlocks ? kOpcodeConvolution : kOpcodeDot;
        for (int64_t k = 0; k < blockSize; ++k) {
            const int64_t node = b * blockSize + k;
            g.nodeOpcode[node] = k == blockSize - 1 ? kOpcodeReshape : k % 3 == 0 ? opcodeId("add") : main;
            if (k >= 1)
                edges.insert(edges.end(), { node, node - 1 });
            if (k >= 2)
                edges.insert(edges.end(), { node, node - 2 });
            if (k == 0 && b > 0)
                edges.insert(edges.end(), { node, node - 1 });
        }
    }
    g.edgeIndex = NdArray<int64_t>::fromVector({ int64_t(edges.size() / 2), 2 }, edges);
    g.nodeConfigIds = NdArray<int64_t>({ 0 });
    g.nodeConfigFeat = NdArray<float>({ 0, 0, 18 });
    g.configRuntime = NdArray<int64_t>({ 0 });
    finishGraphDocument(*doc);
    return doc;
}

std::shared_ptr<GraphDocument> openOne(const QString& path)
{
    auto docs = openGraphDocuments(testutil::str(path));
    return docs.empty() ? nullptr : docs.front();
}

std::shared_ptr<GraphDocument> openText(const QTemporaryDir& dir, const std::string& name, const std::string& text)
{
    const QString path = dir.filePath(QString::fromStdString(name));
    std::ofstream(testutil::str(path)) << text;
    return openOne(path);
}

int32_t findGroup(const NodeHierarchy& h, GroupKind kind, const std::string& title)
{
    for (size_t g = 0; g < h.groups().size(); ++g)
        if (h.groups()[g].kind == kind && h.groups()[g].title == title)
            return int32_t(g);
    return -1;
}

// The group's direct members that are drawn (nodes and non-embedded child groups).
int64_t directMembers(const NodeHierarchy& h, const Group& g)
{
    int64_t count = int64_t(g.nodes.size());
    for (const int32_t child : g.children)
        count += h.groups()[size_t(child)].kind != GroupKind::Embedded;
    return count;
}

// The structure every hierarchy keeps: each node in exactly one group, parents and children
// agree, totals add up, every level small, node ranges and opcodes consistent.
void checkStructure(const GraphDocument& doc, const GraphSource& source)
{
    const NodeHierarchy& h = source.hierarchy;
    std::vector<int> seen(size_t(doc.nodeCount()), 0);
    for (size_t g = 0; g < h.groups().size(); ++g) {
        const Group& group = h.groups()[g];
        QVERIFY2(directMembers(h, group) <= NodeHierarchy::kChunkSize, group.path.c_str());
        QVERIFY(!group.title.empty());
        QVERIFY(!group.path.empty());
        int64_t total = int64_t(group.nodes.size());
        for (const int64_t node : group.nodes) {
            ++seen[size_t(node)];
            QCOMPARE(h.groupOfNode(node), int32_t(g));
            QVERIFY(group.first <= node && node <= group.last);
        }
        for (const int32_t child : group.children) {
            QCOMPARE(h.groups()[size_t(child)].parent, int32_t(g));
            total += h.groups()[size_t(child)].total;
        }
        QCOMPARE(group.total, total);
        QVERIFY(!group.opcodes.empty() && group.opcodes.size() <= 3);
        for (size_t k = 1; k < group.opcodes.size(); ++k)
            QVERIFY(group.opcodes[k - 1].count >= group.opcodes[k].count);
    }
    for (int64_t node = 0; node < doc.nodeCount(); ++node)
        QCOMPARE(seen[size_t(node)], source.contains(node) ? 1 : 0);
}

// Siblings (and roots) tell themselves apart by title or node range.
void checkSiblingsDistinct(const NodeHierarchy& h)
{
    const auto check = [&](const std::vector<int32_t>& siblings) {
        std::set<std::tuple<std::string, int64_t, int64_t>> labels;
        for (const int32_t g : siblings) {
            const Group& group = h.groups()[size_t(g)];
            if (group.kind == GroupKind::Embedded)
                continue;
            QVERIFY2(labels.emplace(group.title, group.first, group.last).second, group.path.c_str());
        }
    };
    check(h.roots());
    for (const Group& group : h.groups())
        check(group.children);
}

} // namespace

class TestNodeHierarchy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void opNameScopes()
    {
        using V = std::vector<std::string>;
        QCOMPARE(scopeOf("FeatureExtractor/MobilenetV1/Conv2d_1/Relu6"),
            (V { "FeatureExtractor", "MobilenetV1", "Conv2d_1" }));
        QCOMPARE(scopeOf("Relu6"), V {});
        QCOMPARE(scopeOf(""), V {});
        // TensorFlow's joined names: the first one.
        QCOMPARE(scopeOf("a/b/Add;c/d/e/Mul"), (V { "a", "b" }));
        // JAX: parameters in brackets, with '/' and ';' inside them, are part of the op.
        QCOMPARE(scopeOf("jit(train_step)/jit(main)/transformer/layer_3/attn/"
                         "dot_general[dimension_numbers=(((2,), (1,)), ((0,), (0,))) precision=None]"),
            (V { "jit(train_step)", "jit(main)", "transformer", "layer_3", "attn" }));
        QCOMPARE(scopeOf("jit(f)/pjit[name=a/b;c]/add"), (V { "jit(f)", "pjit[name=a/b;c]" }));
        // Empty components do not count; a trailing '/' leaves the last name as the op.
        QCOMPARE(scopeOf("/a//b/op"), (V { "a", "b" }));
        QCOMPARE(scopeOf("a/b/"), (V { "a" }));
        // Unbalanced closers do not hide later separators.
        QCOMPARE(scopeOf("a)/b]/op"), (V { "a)", "b]" }));
        std::string deep;
        for (int k = 0; k < 100; ++k)
            deep += "s" + std::to_string(k) + "/";
        QCOMPARE(scopeOf(deep + "op").size(), kMaxScopeDepth);
    }

    void cutWidthsCountCrossingEdges()
    {
        // Brute force on a pseudo-random edge list.
        std::vector<std::pair<int64_t, int64_t>> edges;
        uint64_t state = 7;
        const int64_t n = 300;
        for (int k = 0; k < 900; ++k) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            const auto u = int64_t((state >> 33) % uint64_t(n));
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            const auto v = int64_t((state >> 33) % uint64_t(n));
            edges.emplace_back(u, v);
        }
        edges.emplace_back(-1, 3); // out of range: ignored
        const std::vector<int32_t> widths = cutWidths(n, edges);
        QCOMPARE(widths.size(), size_t(n + 1));
        for (int64_t p = 0; p <= n; ++p) {
            int32_t crossing = 0;
            for (const auto& [u, v] : edges)
                crossing += u >= 0 && v >= 0 && std::min(u, v) < p && p <= std::max(u, v);
            QCOMPARE(widths[size_t(p)], crossing);
        }
    }

    void narrowCutsFollowBlocks()
    {
        // Blocks of 20 positions: inside a block every cut is crossed by 2-3 edges, between blocks by 1.
        const int64_t n = 2000, block = 20;
        std::vector<std::pair<int64_t, int64_t>> edges;
        for (int64_t i = 1; i < n; ++i) {
            edges.emplace_back(i - 1, i);
            if (i % block >= 2)
                edges.emplace_back(i - 2, i);
        }
        const std::vector<int32_t> widths = cutWidths(n, edges);
        for (const int parts : { 2, 5, 7, 12 }) {
            const std::vector<int64_t> cuts = narrowCuts(widths, 0, n, parts);
            QCOMPARE(cuts.size(), size_t(parts - 1));
            int64_t previous = 0;
            for (size_t j = 0; j < cuts.size(); ++j) {
                QVERIFY(cuts[j] > previous);
                QCOMPARE(cuts[j] % block, int64_t(0));
                // within a quarter of a part of the equal-size position
                QVERIFY(std::abs(double(cuts[j]) - double(n) * double(j + 1) / parts) <= double(n) / parts / 4 + 1);
                previous = cuts[j];
            }
        }
        // Without narrow places (a chain: every cut crossed once) the cuts are the equal-size ones.
        std::vector<std::pair<int64_t, int64_t>> chain;
        for (int64_t i = 1; i < 100; ++i)
            chain.emplace_back(i - 1, i);
        QCOMPARE(narrowCuts(cutWidths(100, chain), 0, 100, 4), (std::vector<int64_t> { 25, 50, 75 }));
        // Tiny ranges still give non-empty parts.
        QCOMPARE(narrowCuts(cutWidths(100, chain), 10, 13, 12), (std::vector<int64_t> { 11, 12 }));
        // Part counts: 1 for a leaf, 2..12 otherwise, and leaves small enough after cuts move.
        QCOMPARE(partsFor(120, 120), 1);
        for (const int64_t size : { 121, 200, 1000, 2774, 22000, 1000000 }) {
            const int parts = partsFor(size, 120);
            QVERIFY(parts >= 2 && parts <= 12);
            if (size <= 12 * 96)
                QVERIFY2(double(size) / parts * 1.25 <= 120, qPrintable(QString::number(size)));
        }
    }

    void scopesFromOpNames()
    {
        // A JAX-like module: every op under jit(step)/jit(main), two similar layers, a scope of one
        // instruction, a chain of scopes without instructions of their own, a fusion body.
        const std::string md = "jit(step)/jit(main)/";
        const auto meta = [&](const std::string& path) { return ", metadata={op_name=\"" + md + path + "\"}\n"; };
        std::string text = "HloModule m\n\n"
                           "fused (fp: f32[8]) -> f32[8] {\n"
                           "  fp = f32[8]{0} parameter(0)\n"
                           "  ROOT fn = f32[8]{0} negate(fp)"
            + meta("enc/fused/neg")
            + "}\n\n"
              "ENTRY main {\n"
              "  p = f32[8]{0} parameter(0)\n";
        std::string previous = "p";
        int k = 0;
        const auto addNamed = [&](const std::string& opName) {
            const std::string name = "i" + std::to_string(k++);
            text += "  " + name + " = f32[8]{0} negate(" + previous + "), metadata={op_name=\"" + opName + "\"}\n";
            previous = name;
        };
        const auto add = [&](const std::string& path) { addNamed(md + path); };
        for (const std::string layer : { "layer_0", "layer_1" }) {
            add("enc/" + layer + "/attn/q");
            add("enc/" + layer + "/attn/k");
            add("enc/" + layer + "/mlp/up");
            if (layer == "layer_1") { // instructions without op_name feeding one scope join it
                text += "  h0 = f32[] constant(2)\n  h1 = f32[8]{0} broadcast(h0), dimensions={}\n";
                text += "  scaled = f32[8]{0} add(" + previous + ", h1)" + meta("enc/layer_1/mlp/scale");
                previous = "scaled";
            }
            add("enc/" + layer + "/mlp/down");
            add("enc/" + layer + "/norm"); // in the layer itself
        }
        add("enc/final/scale/mul"); // enc/final/scale: one instruction, joins enc/final
        add("enc/final/out");
        add("dec/x/y/a"); // dec -> x -> y: a chain, one group "x/y" under dec... then "dec" has only it
        add("dec/x/y/b");
        add("dec/z");
        add("dec/w");
        addNamed("Top"); // op names without a scope: the ones shared by several instructions group them
        addNamed("Top");
        addNamed("Solo");
        text += "  f = f32[8]{0} fusion(" + previous + "), kind=kLoop, calls=fused" + meta("enc/fused/fusion");
        text += "  ROOT t = (f32[8]{0}, f32[8]{0}) tuple(f, p)\n}\n"; // p: used at two levels
        const auto doc = openText(m_dir, "scopes.hlo", text);
        QVERIFY(doc);
        checkStructure(*doc, doc->full);
        const NodeHierarchy& h = doc->full.hierarchy;

        // The shared prefix is left out of titles, kept in paths.
        const int32_t enc = findGroup(h, GroupKind::Scope, "enc");
        QVERIFY(enc >= 0);
        QCOMPARE(h.groups()[size_t(enc)].path, md.substr(0, md.size() - 1) + "/enc");
        const int32_t entry = h.roots().front();
        QCOMPARE(h.groups()[size_t(enc)].parent, entry);
        const int32_t layer0 = findGroup(h, GroupKind::Scope, "layer_0");
        const int32_t layer1 = findGroup(h, GroupKind::Scope, "layer_1");
        QVERIFY(layer0 >= 0 && layer1 >= 0);
        QCOMPARE(h.groups()[size_t(layer0)].parent, enc);
        QCOMPARE(h.groups()[size_t(layer0)].total, int64_t(5));
        QCOMPARE(h.groups()[size_t(layer0)].nodes.size(), size_t(1)); // norm
        QCOMPARE(h.groups()[size_t(layer0)].children.size(), size_t(2)); // attn, mlp
        QCOMPARE(h.groups()[size_t(layer1)].total, int64_t(5 + 3));
        const int32_t mlp1 = h.groupOfNode(doc->findNode("scaled"));
        QCOMPARE(h.groups()[size_t(mlp1)].title, std::string("mlp"));
        QCOMPARE(h.groups()[size_t(mlp1)].parent, layer1);
        QCOMPARE(h.groupOfNode(doc->findNode("h0")), mlp1);
        QCOMPARE(h.groupOfNode(doc->findNode("h1")), mlp1);
        // Similar layers: same kind, same depth, titles equal up to digits.
        QCOMPARE(h.similarGroups(layer0), (std::vector<int32_t> { layer0, layer1 }));
        QVERIFY(h.groups()[size_t(layer0)].repeats);
        QVERIFY(!h.groups()[size_t(enc)].repeats);
        const int32_t attn0 = findGroup(h, GroupKind::Scope, "attn");
        QCOMPARE(h.similarGroups(attn0).size(), size_t(2)); // both layers' attn (cousins)
        QCOMPARE(h.breadcrumbs(attn0), (std::vector<int32_t> { entry, enc, layer0, attn0 }));
        // A scope of one instruction is no group: the instruction joins its parent.
        QCOMPARE(findGroup(h, GroupKind::Scope, "scale"), -1);
        const int32_t final = findGroup(h, GroupKind::Scope, "final");
        QVERIFY(final >= 0);
        QCOMPARE(h.groups()[size_t(final)].nodes.size(), size_t(2));
        // dec holds x/y (a chain merged into one group), z and w.
        const int32_t dec = findGroup(h, GroupKind::Scope, "dec");
        const int32_t xy = findGroup(h, GroupKind::Scope, "x/y");
        QVERIFY(dec >= 0 && xy >= 0);
        QCOMPARE(h.groups()[size_t(xy)].parent, dec);
        QCOMPARE(h.groups()[size_t(xy)].path, md + "dec/x/y");
        QCOMPARE(h.groups()[size_t(dec)].nodes.size(), size_t(2));
        const int32_t top = findGroup(h, GroupKind::Scope, "Top");
        QVERIFY(top >= 0);
        QCOMPARE(h.groups()[size_t(top)].parent, entry);
        QCOMPARE(h.groups()[size_t(top)].path, std::string("Top"));
        QCOMPARE(h.groups()[size_t(top)].total, int64_t(2));
        QCOMPARE(findGroup(h, GroupKind::Scope, "Solo"), -1);
        QCOMPARE(h.groupOfNode(doc->findNode("i" + std::to_string(k - 1))), entry);
        // Instructions without op_name stay at the computation's level; the fusion body is embedded
        // in its fusion, which is in scope enc/fused.
        QCOMPARE(h.groupOfNode(doc->findNode("p")), entry);
        QCOMPARE(h.groupOfNode(doc->findNode("t")), entry);
        const int32_t fusedScope = findGroup(h, GroupKind::Scope, "fused");
        QCOMPARE(fusedScope, -1); // one instruction in the entry (the fusion): joins enc
        QCOMPARE(h.groupOfNode(doc->findNode("f")), enc);
        const std::vector<int32_t> owned = h.groupsOwnedBy(doc->findNode("f"));
        QCOMPARE(owned.size(), size_t(1));
        QCOMPARE(h.groups()[size_t(owned[0])].kind, GroupKind::Embedded);
        QCOMPARE(h.groups()[size_t(owned[0])].parent, enc);
        // Summaries: node range and main opcodes (the fusion body's negate counts for itself only).
        const Group& e = h.groups()[size_t(enc)];
        QCOMPARE(e.first, doc->findNode("i0"));
        QCOMPARE(e.last, doc->findNode("f"));
        QCOMPARE(e.opcodes.front().name, std::string("negate"));
        QCOMPARE(e.opcodes.front().count, int64_t(12));
        QCOMPARE(e.total, int64_t(13 + 3 + 2));

        // Views: an open scope is a frame titled by it; members of collapsed scopes merge into boxes.
        std::vector<uint8_t> open(h.groups().size(), 0);
        open[size_t(entry)] = open[size_t(enc)] = 1;
        const ViewGraph view = h.view(*doc, doc->full, open);
        bool framed = false;
        for (const ViewCluster& c : view.clusters)
            framed = framed || (c.group == enc && c.title == "enc");
        QVERIFY(framed);
        QVERIFY(view.indexOfGroup(layer0) >= 0);
        QVERIFY(view.indexOfGroup(dec) >= 0);
        QVERIFY(view.indexOfNode(doc->findNode("p")) >= 0);
        QCOMPARE(int64_t(view.nodes.size()), h.visibleCount(open));
    }

    void bigScopeLevelsAreChunked()
    {
        // 300 instructions in one scope: chunks titled by the scope and their range.
        std::string text = "HloModule big\nENTRY main {\n  p = f32[4]{0} parameter(0)\n";
        std::string previous = "p";
        for (int k = 0; k < 300; ++k) {
            text += "  n" + std::to_string(k) + " = f32[4]{0} negate(" + previous + "), metadata={op_name=\"net/"
                + (k < 150 ? "a" : "b") + "/wide/op" + std::to_string(k) + "\"}\n";
            previous = "n" + std::to_string(k);
        }
        text += "  ROOT r = f32[4]{0} add(" + previous + ", p)\n}\n";
        const auto doc = openText(m_dir, "big.hlo", text);
        QVERIFY(doc);
        checkStructure(*doc, doc->full);
        const NodeHierarchy& h = doc->full.hierarchy;
        const int32_t wide = findGroup(h, GroupKind::Scope, "a/wide");
        QVERIFY(wide >= 0);
        QCOMPARE(h.groups()[size_t(wide)].total, int64_t(150));
        QCOMPARE(h.groups()[size_t(wide)].children.size(), size_t(2));
        const Group& chunk = h.groups()[size_t(h.groups()[size_t(wide)].children[0])];
        QCOMPARE(chunk.kind, GroupKind::Chunk);
        QCOMPARE(chunk.title, std::string("a/wide [1\u2013120 of 150]"));
        QCOMPARE(chunk.path, std::string("net/a/wide [1\u2013120 of 150]"));
        QCOMPARE(h.similarGroups(h.groups()[size_t(wide)].children[0]).size(), size_t(1));
        checkSiblingsDistinct(h);
        // An open chunk has no frame of its own: its nodes join the scope's.
        std::vector<uint8_t> open(h.groups().size(), 0);
        for (const int32_t g : h.ancestry(h.groups()[size_t(wide)].children[0]))
            open[size_t(g)] = 1;
        const ViewGraph view = h.view(*doc, doc->full, open);
        for (const ViewCluster& c : view.clusters)
            QVERIFY(h.groups()[size_t(c.group)].kind != GroupKind::Chunk);
        QCOMPARE(view.nodesShown(), int64_t(1 + 1 + 120)); // p, r and the chunk's nodes
    }

    void wideLevelsFoldLooseInstructions()
    {
        // Three scopes and 73 instructions without op_name that feed no scope (a chain of adds of
        // constants up to the root): the loose ones go into one box, so the level opens on four.
        std::string text = "HloModule wide\nENTRY main {\n  p = f32[4]{0} parameter(0)\n";
        std::string previous = "p";
        for (int k = 0; k < 40; ++k) {
            text += "  n" + std::to_string(k) + " = f32[4]{0} negate(" + previous + "), metadata={op_name=\"net/s"
                + std::to_string(k % 3) + "/op\"}\n";
            previous = "n" + std::to_string(k);
        }
        for (int k = 0; k < 36; ++k) {
            text += "  c" + std::to_string(k) + " = f32[4]{0} constant({1,2,3,4})\n";
            text += "  a" + std::to_string(k) + " = f32[4]{0} add(" + previous + ", c" + std::to_string(k) + ")\n";
            previous = "a" + std::to_string(k);
        }
        text += "  ROOT r = f32[4]{0} negate(" + previous + ")\n}\n";
        const auto doc = openText(m_dir, "wide.hlo", text);
        QVERIFY(doc);
        checkStructure(*doc, doc->full);
        const NodeHierarchy& h = doc->full.hierarchy;
        const Group& entry = h.groups()[size_t(h.roots().front())];
        QVERIFY(entry.nodes.empty());
        QCOMPARE(entry.children.size(), size_t(4));
        const int32_t other = findGroup(h, GroupKind::Chunk, "other instructions");
        QVERIFY(other >= 0);
        QCOMPARE(h.groups()[size_t(other)].parent, h.roots().front());
        QCOMPARE(h.groups()[size_t(other)].total, int64_t(72 + 1)); // the constants and adds, r
        QCOMPARE(h.groupOfNode(doc->findNode("r")), other);
        // The parameter feeds only s0: it joins it.
        const int32_t s0 = findGroup(h, GroupKind::Scope, "s0");
        QCOMPARE(h.groupOfNode(doc->findNode("p")), s0);
        QCOMPARE(h.groups()[size_t(s0)].total, int64_t(14 + 1));
        QVERIFY(h.firstViewExpansion(12)[size_t(h.roots().front())]);
    }

    void npzBlocksFollowNarrowCuts()
    {
        QElapsedTimer timer;
        timer.start();
        const auto doc = blockChain(1100, 20, 550); // 22,000 nodes
        const qint64 openMs = timer.elapsed();
        checkStructure(*doc, doc->full);
        const NodeHierarchy& h = doc->full.hierarchy;
        timer.restart();
        const NodeHierarchy again(*doc, doc->full);
        const qint64 buildMs = timer.elapsed();
        QCOMPARE(again.groups().size(), h.groups().size());
        size_t blocks = 0, leaves = 0;
        for (const Group& g : h.groups()) {
            if (g.kind != GroupKind::Block)
                continue;
            ++blocks;
            QVERIFY(g.children.size() <= 12);
            leaves += g.children.empty();
            // Every cut falls between two of the graph's blocks.
            QCOMPARE(g.first % 20, int64_t(0));
            QCOMPARE(g.last % 20, int64_t(19));
            QCOMPARE(g.path.substr(0, 5), std::string("graph"));
            // Titled by its main opcodes.
            QVERIFY(g.title.find(g.opcodes.front().name + " \u00d7" + std::to_string(g.opcodes.front().count)) == 0);
        }
        QVERIFY(h.groups()[size_t(h.roots().front())].children.size() <= 12);
        checkSiblingsDistinct(h);
        // A leaf of convolution blocks is similar to the other convolution leaves at its depth,
        // not to the dot ones.
        const int32_t leaf = h.groupOfNode(0);
        QCOMPARE(h.groups()[size_t(leaf)].kind, GroupKind::Block);
        QCOMPARE(h.groups()[size_t(leaf)].opcodes.front().name, std::string("convolution"));
        const std::vector<int32_t> similar = h.similarGroups(leaf);
        QVERIFY(similar.size() > 1);
        QVERIFY(std::find(similar.begin(), similar.end(), leaf) != similar.end());
        for (const int32_t g : similar) {
            QCOMPARE(h.groups()[size_t(g)].opcodes.front().name, std::string("convolution"));
            QCOMPARE(h.ancestry(g).size(), h.ancestry(leaf).size());
        }
        QVERIFY(h.groups()[size_t(leaf)].repeats);
        qInfo("22,000-node chain of blocks: document in %lld ms, hierarchy built in %lld ms: %zu top-level boxes, "
              "%zu groups (%zu blocks, %zu leaves)",
            openMs, buildMs, h.groups()[size_t(h.roots().front())].children.size(), h.groups().size(), blocks, leaves);
    }

    void firstViewFitsBudget_data()
    {
        QTest::addColumn<QString>("path");
        const QString data = testutil::sharedDataDir();
        QTest::newRow("chain of blocks") << QString();
        QTest::newRow("ssd_mobilenet") << (data.isEmpty() ? QString("-") : data + "/hlo/ssd_mobilenet_tf.hlo");
        QTest::newRow("tuning record") << (data.isEmpty() ? QString("-")
                                                          : data + "/tpu_graphs/module_tuning_data_layout.pb");
        QTest::newRow("unet3d npz") << (data.isEmpty() ? QString("-")
                                                       : data + "/tpu_graphs/npz/layout_xla_default_train_unet3d.npz");
    }
    void firstViewFitsBudget()
    {
        QFETCH(QString, path);
        if (path == "-")
            QSKIP("../shared/data is absent: real inputs not available");
        const auto doc = path.isEmpty() ? blockChain(1100, 20, 550) : openOne(path);
        QVERIFY(doc);
        for (const GraphSource* source : { &doc->full, doc->pruned ? &*doc->pruned : nullptr }) {
            if (!source)
                continue;
            checkStructure(*doc, *source);
            const NodeHierarchy& h = source->hierarchy;
            checkSiblingsDistinct(h);
            QElapsedTimer timer;
            timer.start();
            const NodeHierarchy again(*doc, *source);
            const qint64 buildMs = timer.elapsed();
            QCOMPARE(again.groups().size(), h.groups().size());
            for (const int64_t budget : { int64_t(12), int64_t(40), int64_t(60) }) {
                const std::vector<uint8_t> expanded = h.firstViewExpansion(budget);
                const ViewGraph view = h.view(*doc, *source, expanded);
                int64_t drawn = 0, boxes = 0;
                for (const ViewNode& v : view.nodes) {
                    drawn += v.kind == ViewNode::Kind::Node || v.kind == ViewNode::Kind::Group;
                    if (v.kind == ViewNode::Kind::Group) {
                        ++boxes;
                        QVERIFY(!h.groups()[size_t(v.group)].title.empty());
                    }
                }
                QCOMPARE(drawn, h.visibleCount(expanded));
                const int64_t floor = std::min<int64_t>({ 8, budget, source->nodeCount() });
                QVERIFY2(drawn >= floor, qPrintable(QString("budget %1: %2 shown").arg(budget).arg(drawn)));
                if (budget == 40) {
                    QVERIFY2(drawn <= 40, qPrintable(QString("%1 shown").arg(drawn)));
                    qInfo("%s (%s, %lld nodes): hierarchy built in %lld ms, %zu top-level boxes, %zu groups; first "
                          "view (budget 40): %lld boxes + %lld nodes",
                        qPrintable(QTest::currentDataTag()), source == &doc->full ? "full" : "pruned",
                        qlonglong(source->nodeCount()), buildMs, h.roots().size(), h.groups().size(), qlonglong(boxes),
                        qlonglong(drawn - boxes));
                }
            }
            // The entry computation is opened first.
            QVERIFY(h.firstViewExpansion(40)[size_t(h.roots().front())]);
        }
        if (QString(QTest::currentDataTag()) == "ssd_mobilenet") {
            // What the real module's op_names hold: its TensorFlow layers.
            const NodeHierarchy& h = doc->full.hierarchy;
            std::set<std::string> top;
            for (const int32_t g : h.groups()[size_t(h.roots().front())].children)
                top.insert(h.groups()[size_t(g)].title);
            QVERIFY(top.count("FeatureExtractor/MobilenetV1"));
            QVERIFY(top.count("Postprocessor"));
            QVERIFY(top.count("BoxPredictor_0"));
            const int32_t conv = findGroup(h, GroupKind::Scope, "Conv2d_9_pointwise");
            QVERIFY(conv >= 0);
            const std::vector<int32_t> similar = h.similarGroups(conv);
            QVERIFY(std::find(similar.begin(), similar.end(), findGroup(h, GroupKind::Scope, "Conv2d_10_pointwise"))
                != similar.end());
            QVERIFY(std::find(similar.begin(), similar.end(), findGroup(h, GroupKind::Scope, "Conv2d_9_depthwise"))
                == similar.end());
        }
    }

    // A whole graph within the budget is opened completely; an empty budget still shows something.
    void firstViewOfSmallGraphs()
    {
        const auto doc = blockChain(5, 20, 5);
        const NodeHierarchy& h = doc->full.hierarchy;
        const std::vector<uint8_t> all = h.firstViewExpansion(200);
        QCOMPARE(h.view(*doc, doc->full, all).nodesShown(), int64_t(100));
        const std::vector<uint8_t> tiny = h.firstViewExpansion(0);
        QVERIFY(h.visibleCount(tiny) >= 1);
    }

private:
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestNodeHierarchy)
#include "tst_nodehierarchy.moc"
