// SPDX-License-Identifier: Apache-2.0
// The core of the graph views: real Graphviz layouts (in process and as a `dot` child process,
// cancellation, bad input), graph documents opened from generated HLO, the computation hierarchy
// and its budgeted expansion, search, neighbourhood and path selections, high-degree aliasing,
// feature names and the child-process runner.

#include "core/util/childprocess.h"
#include "core/util/error.h"
#include "core/graph/featurenames.h"
#include "core/view/graphdocument.h"
#include "core/view/graphlayout.h"
#include "core/synth/hlogen.h"
#include "core/view/nodehierarchy.h"
#include "core/view/nodesearch.h"
#include "core/util/progress.h"
#include "core/view/subgraphselection.h"
#include "core/view/viewgraph.h"
#include "testutil.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <fstream>
#include <set>
#include <thread>

using namespace tgraph;

namespace {

// A sink that reports cancelled once `after` checks have been made (0 = at once).
class CancellingSink final : public ProgressSink
{
public:
    explicit CancellingSink(std::chrono::milliseconds after)
        : m_deadline(std::chrono::steady_clock::now() + after)
    { }
    void begin(std::string_view, uint64_t) override { }
    void update(uint64_t) override { }
    bool isCancelled() const override { return std::chrono::steady_clock::now() >= m_deadline; }

private:
    std::chrono::steady_clock::time_point m_deadline;
};

LayoutInput chain(int nodes)
{
    LayoutInput input;
    input.nodes.resize(size_t(nodes));
    for (int i = 0; i + 1 < nodes; ++i)
        input.edges.push_back({ i, i + 1, 1 });
    return input;
}

// A random-ish DAG that takes dot a while (many crossings).
LayoutInput tangle(int nodes)
{
    LayoutInput input;
    input.nodes.resize(size_t(nodes));
    uint64_t state = 12345;
    for (int i = 1; i < nodes; ++i) {
        for (int k = 0; k < 3; ++k) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            input.edges.push_back({ int32_t((state >> 33) % uint64_t(i)), i, 1 });
        }
    }
    return input;
}

bool inside(const GraphLayout::Box& inner, const GraphLayout::Box& outer)
{
    constexpr double slack = 0.5;
    return inner.x >= outer.x - slack && inner.y >= outer.y - slack
        && inner.x + inner.width <= outer.x + outer.width + slack
        && inner.y + inner.height <= outer.y + outer.height + slack;
}

double distance(GraphLayout::Point a, GraphLayout::Point b) { return std::hypot(a.x - b.x, a.y - b.y); }

} // namespace

class TestGraphView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void layoutPlacesProducersAboveConsumers_data();
    void layoutPlacesProducersAboveConsumers();
    void layoutDrawsClustersAroundMembers();
    void layoutLeftToRight();
    void layoutRefusesBadInput();
    void layoutCancelsDotProcess();
    void layoutReportsMissingDot();
    void parseRejectsGarbage();

    void documentFromGeneratedHlo();
    void documentRejectsBadFiles();
    void splitFileOpensOneDocumentPerModule();
    void hierarchyCoversEveryNode();
    void hierarchyExpandsWithinBudget();
    void hierarchyViewMergesEdges();
    void largeModuleFirstViewIsBounded();

    void searchByIdOpcodeAndName();
    void neighbourhoodStaysWithinRadius();
    void neighbourhoodIsCapped();
    void pathsConnectTheEnds();
    void aliasingSplitsHighDegreeNodes();
    void disconnectedPartsArePacked();
    void disconnectedClusteredPartsArePacked();
    void soleOuterClusterIsDropped();

    void featureNamesCoverEveryColumn();
    void childProcessRunsAndTimesOut();
    void childProcessGroupIsKilled();
    void childProcessOutputIsCapped();

private:
    std::shared_ptr<GraphDocument> openGenerated(const std::string& family, int64_t size);

    QTemporaryDir m_dir;
    std::shared_ptr<GraphDocument> m_doc; // ~400-instruction resnet
};

void TestGraphView::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_doc = openGenerated("resnet", 400);
    QVERIFY(m_doc);
}

std::shared_ptr<GraphDocument> TestGraphView::openGenerated(const std::string& family, int64_t size)
{
    HloGenSpec spec;
    spec.family = family;
    spec.instructions = size;
    const std::string path
        = m_dir.filePath(QStringLiteral("%1_%2.hlo").arg(QString::fromStdString(family)).arg(size)).toStdString();
    std::ofstream(path) << generateHloText(spec);
    auto docs = openGraphDocuments(path);
    return docs.size() == 1 ? docs.front() : nullptr;
}

void TestGraphView::layoutPlacesProducersAboveConsumers_data()
{
    QTest::addColumn<int>("engine");
    QTest::newRow("in process") << int(LayoutOptions::Engine::InProcess);
    QTest::newRow("dot process") << int(LayoutOptions::Engine::DotProcess);
}

void TestGraphView::layoutPlacesProducersAboveConsumers()
{
    QFETCH(int, engine);
    LayoutInput input = chain(6);
    input.nodes[2].width = 150; // sizes are kept
    input.nodes[2].height = 20;
    input.edges.push_back({ 0, 5, 1 });
    LayoutOptions options;
    options.engine = LayoutOptions::Engine(engine);
    const GraphLayout layout = layoutGraph(input, options);
    QCOMPARE(layout.engine,
        engine == int(LayoutOptions::Engine::InProcess) ? GraphLayout::Engine::InProcess
                                                        : GraphLayout::Engine::DotProcess);
    QCOMPARE(layout.nodes.size(), size_t(6));
    QCOMPARE(layout.edges.size(), input.edges.size());
    QCOMPARE(layout.nodes[2].width, 150.0);
    QCOMPARE(layout.nodes[2].height, 20.0);
    GraphLayout::Box all { 0, 0, layout.width, layout.height };
    for (size_t i = 0; i < layout.nodes.size(); ++i) {
        QVERIFY(inside(layout.nodes[i], all));
        if (i > 0) // y grows downwards: every consumer lies below its producer
            QVERIFY2(layout.nodes[i].y > layout.nodes[i - 1].y + layout.nodes[i - 1].height - 1,
                qPrintable(QString::number(i)));
    }
    for (size_t e = 0; e < layout.edges.size(); ++e) {
        const auto& points = layout.edges[e].points;
        QVERIFY(points.size() >= 4);
        QCOMPARE(points.size() % 3, size_t(1));
        // Starts at the producer's border, ends at the consumer's.
        const GraphLayout::Box& from = layout.nodes[size_t(input.edges[e].from)];
        const GraphLayout::Box& to = layout.nodes[size_t(input.edges[e].to)];
        QVERIFY(distance(points.front(), from.center()) < distance(points.front(), to.center()));
        QVERIFY(distance(points.back(), to.center()) < distance(points.back(), from.center()));
    }
    QVERIFY(layout.seconds > 0);
    QVERIFY(!layout.fast);
}

void TestGraphView::layoutDrawsClustersAroundMembers()
{
    LayoutInput input = chain(8);
    input.clusters = { { -1, true }, { 0, true }, { -1, false } };
    for (int i = 1; i <= 4; ++i)
        input.nodes[size_t(i)].cluster = 0;
    input.nodes[3].cluster = 1;
    input.nodes[4].cluster = 1;
    input.nodes[6].cluster = 2;
    for (const auto engine : { LayoutOptions::Engine::InProcess, LayoutOptions::Engine::DotProcess }) {
        LayoutOptions options;
        options.engine = engine;
        const GraphLayout layout = layoutGraph(input, options);
        QCOMPARE(layout.clusters.size(), size_t(3));
        for (size_t i = 0; i < input.nodes.size(); ++i) {
            for (int c = input.nodes[i].cluster; c >= 0; c = input.clusters[size_t(c)].parent)
                QVERIFY(inside(layout.nodes[i], layout.clusters[size_t(c)]));
        }
        QVERIFY(inside(layout.clusters[1], layout.clusters[0]));
        // Nodes outside a cluster are outside its box.
        QVERIFY(!inside(layout.nodes[0], layout.clusters[0]));
        QVERIFY(!inside(layout.nodes[7], layout.clusters[0]));
    }
}

void TestGraphView::layoutLeftToRight()
{
    LayoutInput input = chain(4);
    input.direction = LayoutInput::Direction::LeftToRight;
    const GraphLayout layout = layoutGraph(input);
    for (size_t i = 1; i < layout.nodes.size(); ++i)
        QVERIFY(layout.nodes[i].x > layout.nodes[i - 1].x + layout.nodes[i - 1].width - 1);
    QVERIFY(layout.width > layout.height);
}

void TestGraphView::layoutRefusesBadInput()
{
    LayoutOptions options;
    options.maxNodes = 10;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, layoutGraph(chain(11), options));
    LayoutInput badEdge = chain(3);
    badEdge.edges.push_back({ 0, 3, 1 });
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, layoutGraph(badEdge));
    LayoutInput badCluster = chain(3);
    badCluster.nodes[1].cluster = 0;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, layoutGraph(badCluster));
    LayoutInput badParent = chain(3);
    badParent.clusters = { { 0, true } };
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, layoutGraph(badParent));
    LayoutInput badSize = chain(2);
    badSize.nodes[0].width = 0;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, layoutGraph(badSize));
    // An empty graph is fine.
    const GraphLayout empty = layoutGraph(LayoutInput {});
    QVERIFY(empty.nodes.empty());
}

void TestGraphView::layoutCancelsDotProcess()
{
    // Cancelled before it starts.
    CancellingSink now(std::chrono::milliseconds(0));
    LayoutOptions options;
    options.engine = LayoutOptions::Engine::DotProcess;
    options.progress = &now;
    QVERIFY_THROWS_EXCEPTION(Cancelled, layoutGraph(chain(5), options));

    // Cancelled while dot works on a tangle that takes it far longer than the 100 ms we allow.
    const LayoutInput big = tangle(2000);
    CancellingSink soon(std::chrono::milliseconds(100));
    options.progress = &soon;
    options.maxNodes = 5000;
    QElapsedTimer timer;
    timer.start();
    QVERIFY_THROWS_EXCEPTION(Cancelled, layoutGraph(big, options));
    qInfo("dot killed %lld ms after the start of a 2000-node layout (cancel asked at 100 ms)",
        qlonglong(timer.elapsed()));
}

void TestGraphView::layoutReportsMissingDot()
{
    LayoutOptions options;
    options.dotProgram = "/nonexistent/dot";
    options.engine = LayoutOptions::Engine::DotProcess;
    QVERIFY_THROWS_EXCEPTION(ChildProcessStartError, layoutGraph(chain(3), options));
    // Auto falls back to the library.
    options.engine = LayoutOptions::Engine::Auto;
    const GraphLayout layout = layoutGraph(chain(3), options);
    QCOMPARE(layout.engine, GraphLayout::Engine::InProcess);
    QCOMPARE(layout.nodes.size(), size_t(3));
}

void TestGraphView::parseRejectsGarbage()
{
    const LayoutInput input = chain(2);
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, parseLayoutDot("", input));
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, parseLayoutDot("digraph G { n0; n1; }", input));
    QVERIFY_THROWS_EXCEPTION(
        std::runtime_error, parseLayoutDot("digraph G { graph [bb=\"0,0,x,10\"]; n0 [pos=\"1,1\"]; }", input));
    // The DOT we write parses back once Graphviz has positioned it.
    const std::string dot = layoutDotSource(input);
    QVERIFY(dot.find("n0 -> n1") != std::string::npos);
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, parseLayoutDot(dot, input)); // no positions yet
}

void TestGraphView::documentFromGeneratedHlo()
{
    const GraphDocument& doc = *m_doc;
    QVERIFY(doc.module);
    QCOMPARE(doc.kind, GraphKind::Layout);
    QCOMPARE(doc.full.nodeCount(), doc.nodeCount());
    QVERIFY(doc.full.edgeCount() > 0);
    QCOMPARE(doc.summary.nodes, doc.nodeCount());
    QVERIFY(doc.layout.configurableCount() > 0);
    QVERIFY2(doc.pruned, doc.pruneError.c_str());
    const GraphSource& pruned = *doc.pruned;
    QVERIFY(pruned.nodeCount() > 0 && pruned.nodeCount() < doc.nodeCount());
    int64_t configurable = 0;
    for (int64_t local = 0; local < pruned.nodeCount(); ++local) {
        const int64_t global = pruned.toGlobal(local);
        QCOMPARE(pruned.toLocal(global), local);
        configurable += doc.isConfigurable(global);
    }
    // Pruning keeps every configurable node.
    for (int64_t node = 0; node < doc.nodeCount(); ++node)
        if (doc.isConfigurable(node))
            QVERIFY(pruned.contains(node));
    QCOMPARE(configurable, doc.layout.configurableCount());

    // Names, opcodes, shapes and the instruction's own line of the text.
    const int64_t conv = searchNodes(doc, "op:convolution").front();
    QCOMPARE(doc.opcodeName(conv), std::string("convolution"));
    QCOMPARE(doc.findNode(doc.nodeName(conv)), conv);
    QCOMPARE(doc.findNode("%" + doc.nodeName(conv)), conv);
    QCOMPARE(doc.findNode("#" + std::to_string(conv)), conv);
    QCOMPARE(doc.findNode("no such node"), int64_t(-1));
    const std::string text = doc.instructionText(conv);
    QVERIFY2(text.find(doc.nodeName(conv)) != std::string::npos, text.c_str());
    QVERIFY2(text.find("convolution(") != std::string::npos, text.c_str());
    QVERIFY(doc.shapeText(conv).find('[') != std::string::npos);
    QVERIFY(text.find(doc.shapeText(conv).substr(0, doc.shapeText(conv).find('{'))) != std::string::npos);
    if (doc.isConfigurable(conv) && doc.configCount() > 0) {
        QVERIFY(doc.configValues(conv, 0));
        QVERIFY(!doc.configValues(conv, doc.configCount()));
    }
    // Computations: one entry; fusion bodies are embedded in their fusion instruction.
    int entries = 0;
    bool embeddedFusion = false;
    for (const DocumentComputation& c : doc.computations) {
        entries += c.entry;
        if (c.embedded) {
            QVERIFY(c.owner >= 0);
            embeddedFusion |= c.fusion && doc.opcodeName(c.owner) == "fusion";
        }
    }
    QCOMPARE(entries, 1);
    QVERIFY(embeddedFusion);
}

void TestGraphView::documentRejectsBadFiles()
{
    const QString garbage = m_dir.filePath(QStringLiteral("garbage.hlo"));
    {
        QFile f(garbage);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("HloModule m\n\nENTRY %e {\n  %p = f32[2] parameter(0)\n  ROOT %x = f32[2] add(%p, %nope)\n}\n");
    }
    try {
        openGraphDocuments(garbage.toStdString());
        QFAIL("no error for a module with an unknown operand");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("garbage.hlo") != std::string::npos, e.what());
    }
    const QString project = m_dir.filePath(QStringLiteral("runs.tgproj"));
    {
        QFile f(project);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("SQLite format 3");
        f.write(QByteArray(100, '\0'));
    }
    QVERIFY_THROWS_EXCEPTION(InputError, openGraphDocuments(project.toStdString()));
    QVERIFY_THROWS_EXCEPTION(std::exception, openGraphDocuments(m_dir.filePath("missing.npz").toStdString()));
}

// docs/formats.md §8.2: a text file of modules separated by `// -----` lines opens as one document
// per module (the studio's tabs), each showing its own instruction lines.
void TestGraphView::splitFileOpensOneDocumentPerModule()
{
    const QString path = m_dir.filePath(QStringLiteral("split.hlo"));
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("HloModule first\nENTRY e {\n  p = f32[2]{0} parameter(0)\n  ROOT n = f32[2]{0} negate(p)\n}\n"
                "// -----\n"
                "ENTRY main {\n  q = f32[3]{0} parameter(0)\n  ROOT a = f32[3]{0} abs(q)\n}\n");
    }
    const auto docs = openGraphDocuments(path.toStdString());
    QCOMPARE(docs.size(), size_t(2));
    QCOMPARE(docs[0]->title, std::string("split.hlo [first]"));
    QCOMPARE(docs[1]->title, std::string("split.hlo [module_main]"));
    QCOMPARE(docs[1]->summary.module->index, 1);
    QCOMPARE(docs[1]->summary.module->count, 2);
    QCOMPARE(docs[0]->instructionText(docs[0]->findNode("n")), std::string("ROOT n = f32[2]{0} negate(p)"));
    QCOMPARE(docs[1]->instructionText(docs[1]->findNode("a")), std::string("ROOT a = f32[3]{0} abs(q)"));
    QCOMPARE(docs[1]->module->instructions[size_t(docs[1]->findNode("q"))].line, 8u); // the line in the file
}

void TestGraphView::hierarchyCoversEveryNode()
{
    for (const GraphSource* source : { &m_doc->full, &*m_doc->pruned }) {
        const NodeHierarchy& h = source->hierarchy;
        std::vector<int> seen(size_t(m_doc->nodeCount()), 0);
        int64_t rootTotal = 0;
        for (const int32_t root : h.roots())
            rootTotal += h.groups()[size_t(root)].total;
        QCOMPARE(rootTotal, source->nodeCount());
        for (size_t g = 0; g < h.groups().size(); ++g) {
            const NodeHierarchy::Group& group = h.groups()[g];
            QVERIFY(int64_t(group.nodes.size()) <= NodeHierarchy::kChunkSize);
            for (const int64_t node : group.nodes) {
                ++seen[size_t(node)];
                QCOMPARE(h.groupOfNode(node), int32_t(g));
            }
            for (const int32_t child : group.children)
                QCOMPARE(h.groups()[size_t(child)].parent, int32_t(g));
            if (group.kind == NodeHierarchy::GroupKind::Embedded) {
                const std::vector<int32_t> owned = h.groupsOwnedBy(group.owner);
                QVERIFY(std::find(owned.begin(), owned.end(), int32_t(g)) != owned.end());
            }
        }
        for (int64_t node = 0; node < m_doc->nodeCount(); ++node)
            QCOMPARE(seen[size_t(node)], source->contains(node) ? 1 : 0);
        // The entry computation comes first.
        QVERIFY(m_doc->computations[size_t(h.groups()[size_t(h.roots().front())].computation)].entry);
    }
}

void TestGraphView::hierarchyExpandsWithinBudget()
{
    const NodeHierarchy& h = m_doc->full.hierarchy;
    for (const int64_t budget : { int64_t(1), int64_t(20), int64_t(60), int64_t(150) }) {
        const std::vector<uint8_t> expanded = h.expandWithin(budget);
        const int64_t visible = h.visibleCount(expanded);
        QVERIFY2(visible <= std::max<int64_t>(budget, int64_t(h.roots().size())), qPrintable(QString::number(budget)));
        const ViewGraph view = h.view(*m_doc, m_doc->full, expanded);
        int64_t drawn = 0;
        for (const ViewNode& v : view.nodes)
            drawn += v.kind == ViewNode::Kind::Node || v.kind == ViewNode::Kind::Group;
        QCOMPARE(drawn, visible);
    }
    // A budget above the graph opens everything: every node is drawn, no boxes.
    const std::vector<uint8_t> all = h.expandWithin(m_doc->nodeCount() + 1);
    const ViewGraph view = h.view(*m_doc, m_doc->full, all);
    QCOMPARE(view.nodesShown(), m_doc->nodeCount());
    QCOMPARE(view.indexOfGroup(h.roots().front()), -1);
}

void TestGraphView::hierarchyViewMergesEdges()
{
    const NodeHierarchy& h = m_doc->full.hierarchy;
    // All collapsed: one box per top-level computation, edges between boxes only.
    const std::vector<uint8_t> none(h.groups().size(), 0);
    const ViewGraph collapsed = h.view(*m_doc, m_doc->full, none);
    QCOMPARE(collapsed.nodes.size(), h.roots().size());
    for (const ViewNode& v : collapsed.nodes) {
        QCOMPARE(v.kind, ViewNode::Kind::Group);
        QCOMPARE(v.count, h.groups()[size_t(v.group)].total);
    }
    // The entry opened: its instructions show, the embedded fusion bodies fold into their owner
    // (no nodes of theirs show) and their owners can be expanded.
    std::vector<uint8_t> entry = none;
    const int32_t root = h.roots().front();
    for (const int32_t g : h.ancestry(root))
        entry[size_t(g)] = 1;
    const NodeHierarchy::Group& rootGroup = h.groups()[size_t(root)];
    std::vector<uint8_t> open = entry;
    std::vector<int32_t> stack { root };
    while (!stack.empty()) { // open the entry's scopes and chunks, not the embedded groups
        const int32_t g = stack.back();
        stack.pop_back();
        open[size_t(g)] = 1;
        for (const int32_t child : h.groups()[size_t(g)].children)
            if (h.groups()[size_t(child)].kind != NodeHierarchy::GroupKind::Embedded)
                stack.push_back(child);
    }
    const ViewGraph view = h.view(*m_doc, m_doc->full, open);
    int64_t expandable = 0;
    for (const ViewNode& v : view.nodes) {
        if (v.kind != ViewNode::Kind::Node)
            continue;
        QCOMPARE(m_doc->computationOfNode[size_t(v.node)], rootGroup.computation);
        if (v.expandable) {
            ++expandable;
            QVERIFY(!h.groupsOwnedBy(v.node).empty());
        }
    }
    QVERIFY(expandable > 0);
    QCOMPARE(
        view.nodesShown(), rootGroup.total - [&] {
            int64_t embedded = 0;
            for (const auto& g : h.groups())
                if (g.kind == NodeHierarchy::GroupKind::Embedded
                    && m_doc->computationOfNode[size_t(g.owner)] == rootGroup.computation)
                    embedded += g.total;
            return embedded;
        }());
    // No duplicate edges; merged counts are at least one; endpoints valid.
    std::set<std::pair<int32_t, int32_t>> pairs;
    for (const ViewEdge& e : view.edges) {
        QVERIFY(e.count >= 1);
        QVERIFY(e.from != e.to);
        QVERIFY(e.from >= 0 && size_t(e.from) < view.nodes.size());
        QVERIFY(e.to >= 0 && size_t(e.to) < view.nodes.size());
        QVERIFY(pairs.emplace(e.from, e.to).second);
    }
}

void TestGraphView::largeModuleFirstViewIsBounded()
{
    QElapsedTimer timer;
    timer.start();
    const auto doc = openGenerated("transformer", 40000);
    QVERIFY(doc);
    const qint64 openMs = timer.elapsed();
    QVERIFY(doc->nodeCount() > 30000);
    timer.restart();
    const NodeHierarchy& h = doc->full.hierarchy;
    const std::vector<uint8_t> expanded = h.expandWithin(300);
    ViewGraph view = h.view(*doc, doc->full, expanded);
    aliasHighDegreeNodes(view);
    const qint64 viewMs = timer.elapsed();
    QVERIFY(!view.nodes.empty());
    QVERIFY(view.nodesShown() + int64_t(std::count_if(view.nodes.begin(), view.nodes.end(), [](const ViewNode& v) {
        return v.kind == ViewNode::Kind::Group;
    })) <= 300);
    for (const NodeHierarchy::Group& g : h.groups()) {
        QVERIFY(int64_t(g.nodes.size()) <= NodeHierarchy::kChunkSize);
        QVERIFY(int64_t(g.children.size()) <= NodeHierarchy::kChunkSize + int64_t(g.nodes.size()));
    }
    timer.restart();
    LayoutInput input;
    input.nodes.resize(view.nodes.size());
    for (const ViewEdge& e : view.edges)
        input.edges.push_back({ e.from, e.to, 1 });
    for (const ViewNode& v : view.nodes)
        input.nodes[&v - view.nodes.data()].cluster = v.cluster;
    for (const ViewCluster& c : view.clusters)
        input.clusters.push_back({ c.parent, true });
    const GraphLayout layout = layoutGraph(input);
    qInfo("40k module: %lld nodes, opened in %lld ms; first view of %zu boxes/nodes (%zu edges, %zu clusters) built "
          "in %lld ms, laid out in %.0f ms (%s)",
        qlonglong(doc->nodeCount()), openMs, view.nodes.size(), view.edges.size(), view.clusters.size(), viewMs,
        layout.seconds * 1000, layout.engine == GraphLayout::Engine::DotProcess ? "dot process" : "in process");
    QCOMPARE(layout.nodes.size(), view.nodes.size());
}

void TestGraphView::searchByIdOpcodeAndName()
{
    const GraphDocument& doc = *m_doc;
    const std::vector<int64_t> convs = searchNodes(doc, "convolution");
    QVERIFY(!convs.empty());
    QVERIFY(std::is_sorted(convs.begin(), convs.end()));
    for (const int64_t n : convs)
        QVERIFY(doc.opcodeName(n) == "convolution" || doc.nodeName(n).find("convolution") != std::string::npos);
    const std::vector<int64_t> byOpcode = searchNodes(doc, "op:CONVOLUTION");
    for (const int64_t n : byOpcode)
        QCOMPARE(doc.opcodeName(n), std::string("convolution"));
    QVERIFY(!byOpcode.empty());
    QCOMPARE(searchNodes(doc, "#7"), std::vector<int64_t> { 7 });
    const std::vector<int64_t> seven = searchNodes(doc, "7");
    QVERIFY(std::find(seven.begin(), seven.end(), 7) != seven.end());
    const std::string name = doc.nodeName(convs.front());
    const std::vector<int64_t> byName = searchNodes(doc, "name:" + name);
    QVERIFY(std::find(byName.begin(), byName.end(), convs.front()) != byName.end());
    QVERIFY(searchNodes(doc, "   ").empty());
    QVERIFY(searchNodes(doc, "zzz-no-such-thing").empty());
    QCOMPARE(searchNodes(doc, "op:convolution", nullptr, 2).size(), std::min<size_t>(2, byOpcode.size()));
    // Restricted to the pruned graph: only its nodes.
    const std::vector<int64_t> pruned = searchNodes(doc, "a", &*doc.pruned);
    QVERIFY(!pruned.empty());
    for (const int64_t n : pruned)
        QVERIFY(doc.pruned->contains(n));
}

void TestGraphView::neighbourhoodStaysWithinRadius()
{
    const GraphDocument& doc = *m_doc;
    const int64_t center = searchNodes(doc, "op:convolution").front();
    NeighbourhoodOptions options;
    options.radius = 1;
    options.maxNeighbours = 1000;
    const ViewGraph view = neighbourhoodView(doc, doc.full, center, options);
    std::set<int64_t> expected { center };
    for (const int64_t n : doc.full.topology.operandsOf(center))
        expected.insert(n);
    for (const int64_t n : doc.full.topology.usersOf(center))
        expected.insert(n);
    std::set<int64_t> shown;
    for (const ViewNode& v : view.nodes)
        if (v.kind == ViewNode::Kind::Node)
            shown.insert(v.node);
    QCOMPARE(shown, expected);
    QVERIFY(view.nodes[size_t(view.indexOfNode(center))].focus);
    QVERIFY(!view.truncated);
    // Radius 2 holds radius 1.
    options.radius = 2;
    const ViewGraph wider = neighbourhoodView(doc, doc.full, center, options);
    for (const int64_t n : expected)
        QVERIFY(wider.indexOfNode(n) >= 0);
    QVERIFY(wider.nodesShown() >= view.nodesShown());
    // A node outside the source is refused.
    int64_t outside = -1;
    for (int64_t n = 0; n < doc.nodeCount() && outside < 0; ++n)
        if (!doc.pruned->contains(n))
            outside = n;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, neighbourhoodView(doc, *doc.pruned, outside));
}

void TestGraphView::neighbourhoodIsCapped()
{
    const GraphDocument& doc = *m_doc;
    // The node with the most users.
    int64_t hub = 0;
    for (int64_t n = 0; n < doc.nodeCount(); ++n)
        if (doc.full.topology.usersOf(n).size() > doc.full.topology.usersOf(hub).size())
            hub = n;
    NeighbourhoodOptions options;
    options.radius = 3;
    options.maxNodes = 10;
    options.maxNeighbours = 3;
    const ViewGraph view = neighbourhoodView(doc, doc.full, hub, options);
    QVERIFY(view.nodesShown() <= 10);
    int64_t more = 0;
    for (const ViewNode& v : view.nodes)
        more += v.kind == ViewNode::Kind::More ? v.count : 0;
    QVERIFY(more > 0);
    QVERIFY(view.note.find("left out") != std::string::npos);
}

void TestGraphView::pathsConnectTheEnds()
{
    const GraphDocument& doc = *m_doc;
    // From a parameter of the entry to the entry's root.
    const int64_t to = doc.nodeCount() - 1; // the entry's ROOT comes last in generated modules
    int64_t from = -1;
    for (int64_t n = 0; n < doc.nodeCount() && from < 0; ++n)
        if (doc.opcodeName(n) == "parameter" && doc.computations[size_t(doc.computationOfNode[size_t(n)])].entry)
            from = n;
    QVERIFY(from >= 0);
    PathOptions options;
    options.maxNodes = 100000;
    const ViewGraph view = pathsView(doc, doc.full, from, to, options);
    QVERIFY2(view.nodesShown() >= 2, view.note.c_str());
    QVERIFY(!view.truncated);
    QVERIFY(view.nodes[size_t(view.indexOfNode(from))].focus);
    QVERIFY(view.nodes[size_t(view.indexOfNode(to))].focus);
    // Every shown node other than the start has an operand in the view (it lies on a path).
    std::vector<int> hasOperand(view.nodes.size(), 0);
    for (const ViewEdge& e : view.edges)
        hasOperand[size_t(e.to)] = 1;
    for (size_t i = 0; i < view.nodes.size(); ++i)
        if (view.nodes[i].node != from)
            QVERIFY(hasOperand[i]);
    // The reverse order finds the same paths; a cap keeps the ends and says so.
    QCOMPARE(pathsView(doc, doc.full, to, from, options).nodesShown(), view.nodesShown());
    options.maxNodes = 5;
    const ViewGraph capped = pathsView(doc, doc.full, from, to, options);
    if (view.nodesShown() > 5) {
        QVERIFY(capped.truncated);
        QCOMPARE(capped.nodesShown(), int64_t(5));
        QVERIFY(capped.indexOfNode(from) >= 0 && capped.indexOfNode(to) >= 0);
    }
    // Two parameters: no path between them.
    int64_t other = -1;
    for (int64_t n = from + 1; n < doc.nodeCount() && other < 0; ++n)
        if (doc.opcodeName(n) == "parameter" && doc.computationOfNode[size_t(n)] == doc.computationOfNode[size_t(from)])
            other = n;
    if (other >= 0) {
        const ViewGraph none = pathsView(doc, doc.full, from, other);
        QVERIFY(none.edges.empty());
        QVERIFY(none.note.find("no dataflow path") != std::string::npos);
    }
}

void TestGraphView::aliasingSplitsHighDegreeNodes()
{
    ViewGraph view;
    view.nodes.resize(31);
    for (int i = 0; i <= 30; ++i)
        view.nodes[size_t(i)].node = i;
    for (int i = 1; i <= 30; ++i)
        view.edges.push_back({ 0, i, 1 });
    aliasHighDegreeNodes(view, 12, 4);
    int direct = 0;
    int aliases = 0;
    for (const ViewEdge& e : view.edges) {
        if (e.from == 0)
            ++direct;
        else {
            QCOMPARE(view.nodes[size_t(e.from)].kind, ViewNode::Kind::Alias);
            QCOMPARE(view.nodes[size_t(e.from)].aliasOf, 0);
            QCOMPARE(view.nodes[size_t(e.from)].node, int64_t(0));
            ++aliases;
        }
    }
    QCOMPARE(direct, 4);
    QCOMPARE(aliases, 26);
    QCOMPARE(view.nodes.size(), size_t(31 + 26));
    // Below the bound nothing changes.
    ViewGraph small;
    small.nodes.resize(4);
    small.edges = { { 0, 1, 1 }, { 0, 2, 1 }, { 0, 3, 1 } };
    aliasHighDegreeNodes(small);
    QCOMPARE(small.nodes.size(), size_t(4));
}

void TestGraphView::disconnectedPartsArePacked()
{
    // 40 separate producer -> consumer pairs: packed into rows, not one 40-wide row.
    LayoutInput input;
    input.nodes.resize(80);
    for (int i = 0; i < 40; ++i)
        input.edges.push_back({ 2 * i, 2 * i + 1, 1 });
    const GraphLayout layout = layoutGraph(input);
    QVERIFY2(
        layout.width < 6 * layout.height, qPrintable(QStringLiteral("%1 x %2").arg(layout.width).arg(layout.height)));
    for (const LayoutInput::Edge& e : input.edges)
        QVERIFY(layout.nodes[size_t(e.to)].y > layout.nodes[size_t(e.from)].y);
}

void TestGraphView::disconnectedClusteredPartsArePacked()
{
    // Graphviz 2.42 frees cluster subgraphs it still uses when it packs a graph with clusters, so
    // the DOT text never asks for packing then; layoutGraph packs the parts itself.
    LayoutInput input;
    for (int i = 0; i < 30; ++i) {
        const int32_t cluster = i % 3 == 2 ? -1 : int32_t(input.clusters.size());
        if (cluster >= 0)
            input.clusters.push_back({ -1, i % 2 == 0 });
        if (i % 5 == 0 && cluster >= 0)
            input.clusters.push_back({ cluster, true }); // a nested cluster around the consumer
        const int32_t inner = i % 5 == 0 && cluster >= 0 ? int32_t(input.clusters.size()) - 1 : cluster;
        input.nodes.push_back({ 72, 36, cluster });
        input.nodes.push_back({ 72, 36, inner });
        input.edges.push_back({ 2 * i, 2 * i + 1, 1 });
    }
    QVERIFY(layoutDotSource(input).find("pack") == std::string::npos);
    QVERIFY(layoutDotSource(chain(3)).find("pack=true") != std::string::npos);
    for (const auto engine : { LayoutOptions::Engine::InProcess, LayoutOptions::Engine::DotProcess }) {
        LayoutOptions options;
        options.engine = engine;
        const GraphLayout layout = layoutGraph(input, options);
        QVERIFY2(layout.width < 6 * layout.height && layout.height < 6 * layout.width,
            qPrintable(QStringLiteral("%1 x %2").arg(layout.width).arg(layout.height)));
        for (size_t i = 0; i < input.nodes.size(); ++i) {
            const GraphLayout::Box& b = layout.nodes[i];
            QVERIFY(b.x >= 0 && b.y >= 0 && b.x + b.width <= layout.width + 0.5 && b.y + b.height <= layout.height + 0.5);
            for (int c = input.nodes[i].cluster; c >= 0; c = input.clusters[size_t(c)].parent)
                QVERIFY(inside(layout.nodes[i], layout.clusters[size_t(c)]));
        }
        for (const LayoutInput::Edge& e : input.edges) {
            QVERIFY(layout.nodes[size_t(e.to)].y > layout.nodes[size_t(e.from)].y);
            // The edge's ends touch its nodes, after the part was moved.
            const GraphLayout::Edge& drawn = layout.edges[size_t(&e - input.edges.data())];
            QVERIFY(!drawn.points.empty());
            const GraphLayout::Box& from = layout.nodes[size_t(e.from)];
            QVERIFY(std::abs(drawn.points.front().x - from.center().x) < from.width);
        }
        // Top-level clusters do not overlap.
        for (size_t a = 0; a < input.clusters.size(); ++a)
            for (size_t b = a + 1; b < input.clusters.size(); ++b) {
                if (input.clusters[a].parent >= 0 || input.clusters[b].parent >= 0)
                    continue;
                const GraphLayout::Box& p = layout.clusters[a];
                const GraphLayout::Box& q = layout.clusters[b];
                QVERIFY(p.x + p.width <= q.x || q.x + q.width <= p.x || p.y + p.height <= q.y || q.y + q.height <= p.y);
            }
    }
}

void TestGraphView::soleOuterClusterIsDropped()
{
    ViewGraph view;
    view.clusters = { { -1, -1, "entry" }, { 0, 3, "fusion" } };
    view.nodes.resize(3);
    view.nodes[0].cluster = 0;
    view.nodes[1].cluster = 1;
    view.nodes[2].cluster = 0;
    QCOMPARE(dropSoleOuterCluster(view), std::string("entry"));
    QCOMPARE(view.clusters.size(), size_t(1));
    QCOMPARE(view.clusters[0].parent, -1);
    QCOMPARE(view.clusters[0].title, std::string("fusion"));
    QCOMPARE(view.nodes[0].cluster, -1);
    QCOMPARE(view.nodes[1].cluster, 0);
    // Two top-level clusters, or a node outside: nothing to drop.
    ViewGraph two;
    two.clusters = { { -1, -1, "a" }, { -1, -1, "b" } };
    two.nodes.resize(2);
    two.nodes[1].cluster = 1;
    two.nodes[0].cluster = 0;
    QVERIFY(dropSoleOuterCluster(two).empty());
    ViewGraph outside;
    outside.clusters = { { -1, -1, "a" } };
    outside.nodes.resize(2);
    outside.nodes[0].cluster = 0;
    QVERIFY(dropSoleOuterCluster(outside).empty());
    QCOMPARE(outside.clusters.size(), size_t(1));
}

void TestGraphView::featureNamesCoverEveryColumn()
{
    const auto& groups = nodeFeatureGroups();
    QCOMPARE(groups.size(), size_t(22));
    int next = 0;
    for (size_t g = 0; g < groups.size(); ++g) {
        QCOMPARE(groups[g].first, next);
        QVERIFY(groups[g].count > 0);
        for (int c = groups[g].first; c < groups[g].first + groups[g].count; ++c)
            QCOMPARE(nodeFeatureGroupOf(c), int(g));
        next += groups[g].count;
    }
    QCOMPARE(next, 140);
    QCOMPARE(nodeFeatureName(0), std::string("is_root"));
    QCOMPARE(nodeFeatureGroupOf(140), -1);
    QCOMPARE(nodeFeatureName(500), std::string("feature_500"));
    std::set<std::string> names;
    for (int c = 0; c < 140; ++c)
        names.insert(nodeFeatureName(c));
    QCOMPARE(names.size(), size_t(140));
    QCOMPARE(layoutConfigTensors().size(), size_t(3));
    QVERIFY(layoutConfigFeatureName(0) != layoutConfigFeatureName(6));
}

void TestGraphView::childProcessRunsAndTimesOut()
{
    const ChildProcessResult echo = runChildProcess({ "cat" }, "hello\n");
    QCOMPARE(echo.exitCode, 0);
    QCOMPARE(echo.out, std::string("hello\n"));
    // A large input to a child that does not read it: no SIGPIPE, no hang.
    const ChildProcessResult ignored = runChildProcess({ "true" }, std::string(4 << 20, 'x'));
    QCOMPARE(ignored.exitCode, 0);
    const ChildProcessResult failed = runChildProcess({ "sh", "-c", "echo oops >&2; exit 3" }, "");
    QCOMPARE(failed.exitCode, 3);
    QCOMPARE(failed.err, std::string("oops\n"));
    QVERIFY_THROWS_EXCEPTION(ChildProcessStartError, runChildProcess({ "/nonexistent/program" }, ""));
    ChildProcessOptions timeout;
    timeout.timeoutMs = 100;
    QVERIFY_THROWS_EXCEPTION(ChildProcessTimeout, runChildProcess({ "sleep", "10" }, "", timeout));
    ChildProcessOptions cancel;
    std::atomic<int> polls { 0 };
    cancel.cancelled = [&polls] { return ++polls > 3; };
    QElapsedTimer timer;
    timer.start();
    QVERIFY_THROWS_EXCEPTION(Cancelled, runChildProcess({ "sleep", "10" }, "", cancel));
    QVERIFY(timer.elapsed() < 5000);
}

// Whether a process is gone (or a zombie waiting for whoever adopted it: it runs no more).
static bool processGone(const std::string& pidText)
{
    std::ifstream stat("/proc/" + pidText + "/stat");
    std::string line;
    if (!std::getline(stat, line))
        return true;
    const size_t paren = line.rfind(')');
    return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z';
}

static bool waitGone(const std::string& pidText)
{
    for (int i = 0; i < 200 && !processGone(pidText); ++i)
        QThread::msleep(10);
    return processGone(pidText);
}

void TestGraphView::childProcessGroupIsKilled()
{
    QTemporaryDir dir;
    const std::string pidFile = dir.filePath(QStringLiteral("pid")).toStdString();
    // A shell command's own child outlives a kill of the shell alone; on a timeout the group goes.
    ChildProcessOptions timeout;
    timeout.timeoutMs = 300;
    QVERIFY_THROWS_EXCEPTION(ChildProcessTimeout,
        runChildProcess({ "/bin/sh", "-c", "sleep 30 & echo $! > '" + pidFile + "'; wait" }, "", timeout));
    std::string pid;
    std::ifstream(pidFile) >> pid;
    QVERIFY(!pid.empty());
    QVERIFY2(waitGone(pid), ("the shell's child " + pid + " still runs after the timeout").c_str());

    // A background job left behind by a command that finished goes with it too.
    const ChildProcessResult done = runChildProcess({ "/bin/sh", "-c", "sleep 30 >/dev/null 2>&1 & echo $!" }, "");
    QCOMPARE(done.exitCode, 0);
    std::string straggler = done.out;
    while (!straggler.empty() && straggler.back() == '\n')
        straggler.pop_back();
    QVERIFY(!straggler.empty());
    QVERIFY2(waitGone(straggler), ("the background job " + straggler + " still runs").c_str());
}

void TestGraphView::childProcessOutputIsCapped()
{
    ChildProcessOptions capped;
    capped.maxOutputBytes = 1 << 20;
    const ChildProcessResult small = runChildProcess({ "head", "-c", "1048576", "/dev/zero" }, "", capped);
    QCOMPARE(small.out.size(), size_t(1) << 20); // exactly the cap is kept
    try {
        runChildProcess({ "yes" }, "", capped); // never ends by itself
        QFAIL("an endless writer was not stopped");
    } catch (const ChildProcessOutputLimit& e) {
        QVERIFY2(std::string(e.what()).find("more than 1048576 bytes to stdout") != std::string::npos, e.what());
    }
    try {
        runChildProcess({ "/bin/sh", "-c", "head -c 2000000 /dev/zero >&2" }, "", capped);
        QFAIL("stderr over the cap was accepted");
    } catch (const ChildProcessOutputLimit& e) {
        QVERIFY2(std::string(e.what()).find("to stderr") != std::string::npos, e.what());
    }
}

QTEST_GUILESS_MAIN(TestGraphView)
#include "tst_graphview.moc"
