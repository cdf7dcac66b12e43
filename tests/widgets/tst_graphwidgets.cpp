// SPDX-License-Identifier: Apache-2.0
// The graph view widgets under the offscreen platform: a whole small graph drawn with opcode
// colours and configurable borders (checked on rendered pixels), the before/after-pruning split
// view keeping the selection in sync, search and navigation history, collapsed computations for a
// 40 000-instruction module, stale layouts dropped, the "laying out" placeholder, the inspector,
// overlays, SVG/PNG export, and `tgraph-studio --render` on the command line. The cases that need the
// whole main window or the studio's renderer (which link the models) are in tests/app/tst_studio.cpp.

#include "core/graph/graphio.h"
#include "core/graph/opcodes.h"
#include "core/synth/synthetic.h"
#include "core/view/graphdocument.h"
#include "core/view/nodesearch.h"
#include "graphtestutil.h"
#include "testutil.h"
#include "widgets/common/colormaps.h"
#include "widgets/common/errorbanner.h"
#include "widgets/common/formatting.h"
#include "widgets/graph/arraytablemodel.h"
#include "widgets/graph/graphitems.h"
#include "widgets/graph/graphpage.h"
#include "widgets/graph/graphpane.h"
#include "widgets/graph/graphscene.h"
#include "widgets/graph/graphsummaryview.h"
#include "widgets/graph/graphview.h"
#include "widgets/graph/layoutrunner.h"
#include "widgets/graph/nodeinspector.h"
#include "widgets/graph/opcodepalette.h"
#include "widgets/graph/opcodetablemodel.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QLayout>
#include <QLineEdit>
#include <QScrollBar>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeWidget>
#include <QtTest>

#include <set>

using namespace tgraph::widgets;

using namespace tgraph;

using graphtest::kLayoutTimeoutMs;
using graphtest::near;
using graphtest::StallMeter;
using graphtest::waitForLayout;

class TestGraphWidgets : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void smallGraphIsDrawnWhole();
    void splitViewKeepsSelectionInSync();
    void searchAndNavigationHistory();
    void largeModuleStartsCollapsed();
    void staleLayoutsAreDropped();
    void slowLayoutShowsPlaceholder();
    void inspectorShowsTheNode();
    void npzGraphsWithoutModule();
    void inspectorFollowsTheSelectedConfiguration();
    void overlayColoursNodes();
    void overlayColourBarReadsWell();
    void toolBarFlowsAndSearchStaysInSight();
    void exportWritesSvgAndPng();
    void summaryModelsPassTheTester();
    void summaryOpcodesStayWholeWhenNarrow();
    void renderCommandLine();

private:
    QString generatedFile(const std::string& family, int64_t size); // written once
    GraphDocumentPtr generated(const std::string& family, int64_t size);
    GraphDocumentPtr generatedWithoutScopes(const std::string& family, int64_t size);
    void saveScreenshot(QWidget& widget, const QString& name);

    QTemporaryDir m_dir;
    GraphDocumentPtr m_small; // ~150 instructions without op_name scopes: drawn whole
    GraphDocumentPtr m_medium; // ~600 instructions: starts collapsed
};

void TestGraphWidgets::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QCoreApplication::setOrganizationName(QStringLiteral("TGraphStudioTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_graphwidgets"));
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.filePath(QStringLiteral("settings")));
    QVERIFY(QSettings().fileName().startsWith(m_dir.path()));
    m_small = generatedWithoutScopes("resnet", 150);
    m_medium = generated("resnet", 600);
    QVERIFY(m_small && m_medium);
    QVERIFY(m_small->nodeCount() <= GraphPane::kWholeGraphNodes);
    QVERIFY(m_medium->nodeCount() > GraphPane::kWholeGraphNodes);
}

QString TestGraphWidgets::generatedFile(const std::string& family, int64_t size)
{
    return graphtest::generatedHlo(QDir(m_dir.path()), family, size);
}

GraphDocumentPtr TestGraphWidgets::generatedWithoutScopes(const std::string& family, int64_t size)
{
    // The generator writes TensorFlow-like op_name scopes; without them the hierarchy holds only
    // computations, and a graph this small opens whole (GraphPane::kWholeGraphNodes).
    QFile in(generatedFile(family, size));
    if (!in.open(QIODevice::ReadOnly))
        return nullptr;
    QString text = QString::fromUtf8(in.readAll());
    text.remove(QRegularExpression(QStringLiteral(R"(, metadata=\{[^}]*\})")));
    const QString path = m_dir.filePath(QStringLiteral("%1_%2_plain.hlo").arg(QString::fromStdString(family)).arg(size));
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly) || out.write(text.toUtf8()) < 0)
        return nullptr;
    out.close();
    auto docs = openGraphDocuments(path.toStdString());
    return docs.size() == 1 ? GraphDocumentPtr(docs.front()) : nullptr;
}

GraphDocumentPtr TestGraphWidgets::generated(const std::string& family, int64_t size)
{
    const QString path = generatedFile(family, size);
    auto docs = openGraphDocuments(path.toStdString());
    return docs.size() == 1 ? GraphDocumentPtr(docs.front()) : nullptr;
}

void TestGraphWidgets::saveScreenshot(QWidget& widget, const QString& name)
{
    const QPixmap pixmap = widget.grab();
    QVERIFY(!pixmap.isNull());
    QVERIFY(pixmap.save(m_dir.filePath(name), "PNG"));
    const QString extra = testutil::env("TGRAPH_SCREENSHOT_DIR");
    if (!extra.isEmpty()) {
        QVERIFY(QDir().mkpath(extra));
        QVERIFY(pixmap.save(extra + QLatin1Char('/') + name, "PNG"));
    }
}

void TestGraphWidgets::smallGraphIsDrawnWhole()
{
    GraphPage page(m_small);
    page.resize(1200, 800);
    page.show();
    QVERIFY(waitForLayout(page.fullPane()));
    GraphScene* scene = page.fullPane()->scene();
    const ViewLayout* layout = scene->viewLayout();
    QCOMPARE(layout->view.nodesShown(), m_small->nodeCount());
    QVERIFY(page.fullPane()->titleText().contains(QLocale().toString(qlonglong(m_small->nodeCount()))));
    QVERIFY(page.fullPane()->titleText().contains(QLocale().toString(qlonglong(m_small->full.edgeCount()))));
    QVERIFY(!page.fullPane()->noteText().contains(QStringLiteral("Showing"))); // nothing left out

    // Every node has its box, coloured by its opcode; configurable ones are marked.
    int64_t configurable = -1;
    for (int64_t node = 0; node < m_small->nodeCount(); ++node) {
        GraphNodeItem* item = scene->itemForNode(node);
        QVERIFY2(item, qPrintable(QString::number(node)));
        QCOMPARE(item->fill(), OpcodePalette::color(m_small->opcodeName(node)));
        QCOMPARE(item->isConfigurable(), m_small->isConfigurable(node));
        QVERIFY(!item->isRemoved());
        if (m_small->isConfigurable(node) && configurable < 0)
            configurable = node;
    }
    QVERIFY(configurable >= 0);
    // Edges run producer -> consumer: the consumer's box lies below the producer's.
    const ViewGraph& view = layout->view;
    int downwards = 0;
    for (const ViewEdge& e : view.edges)
        downwards += layout->layout.nodes[size_t(e.to)].y > layout->layout.nodes[size_t(e.from)].y;
    QVERIFY(downwards > int(view.edges.size()) * 9 / 10);

    // Rendered pixels: a configurable node's border has the configurable colour, a plain node's
    // interior its opcode colour.
    constexpr double scale = 2.0;
    const QImage image = page.renderImage(scale);
    QVERIFY(!image.isNull());
    const QRectF sceneRect = scene->sceneRect();
    QCOMPARE(image.width(), qRound(std::max(sceneRect.width(), 9.0 * page.fullPane()->titleText().size() + 8) * scale));
    const auto pixelAt = [&](QPointF scenePoint) {
        const QPointF p = (scenePoint - sceneRect.topLeft() + QPointF(0, 28)) * scale; // 28: the title strip
        return image.pixelColor(p.toPoint());
    };
    const QRectF box = scene->itemForNode(configurable)->rect();
    const QColor border = pixelAt(QPointF(box.left() + 0.5, box.center().y()));
    QVERIFY2(near(border, OpcodePalette::configurableBorder()), qPrintable(border.name()));
    int64_t plain = 0;
    while (m_small->isConfigurable(plain))
        ++plain;
    const QRectF plainBox = scene->itemForNode(plain)->rect();
    const QColor inside = pixelAt(QPointF(plainBox.left() + 4, plainBox.top() + 4));
    QVERIFY2(near(inside, OpcodePalette::color(m_small->opcodeName(plain))), qPrintable(inside.name()));
    // Outside every box: white background.
    QCOMPARE(pixelAt(sceneRect.topLeft() + QPointF(2, 2)), QColor(Qt::white));

    // Fit, zoom in and out keep within bounds.
    GraphView* v = page.fullPane()->view();
    v->fitToView();
    const double fitted = v->zoom();
    QVERIFY(fitted > 0 && fitted <= 1);
    // Zoom in and out glide (~150 ms); a second request continues from the first one's target.
    QSignalSpy zoomSteps(v, &GraphView::zoomChanged);
    v->zoomIn();
    QTRY_VERIFY(qAbs(v->zoom() - 1.25 * fitted) < 1e-6 * fitted || fitted * 1.25 > 8);
    QVERIFY(zoomSteps.count() > 2); // several intermediate steps, not one jump
    v->zoomIn();
    v->zoomOut(); // while gliding: back to 1.25 x fitted, not 1.25 x 0.8 x (somewhere in between)
    QTRY_VERIFY(qAbs(v->zoom() - 1.25 * fitted) < 1e-6 * fitted);
    v->zoomOut();
    QTRY_VERIFY(qAbs(v->zoom() - fitted) < 1e-6 * fitted);
    saveScreenshot(page, QStringLiteral("graph-small.png"));
}

void TestGraphWidgets::splitViewKeepsSelectionInSync()
{
    GraphPage page(m_small);
    page.resize(1400, 800);
    page.show();
    QVERIFY(m_small->pruned);
    page.setSplit(true);
    QVERIFY(page.isSplit());
    QVERIFY(waitForLayout(page.fullPane()));
    QVERIFY(waitForLayout(page.prunedPane()));
    const GraphSource& pruned = *m_small->pruned;
    QVERIFY(page.prunedPane()->titleText().contains(QLocale().toString(qlonglong(pruned.nodeCount()))));
    QVERIFY(page.prunedPane()->titleText().startsWith(QStringLiteral("After pruning")));

    // Nodes pruning removes are tinted in the full pane, kept nodes are not.
    int64_t kept = -1;
    int64_t removed = -1;
    for (int64_t node = 0; node < m_small->nodeCount(); ++node) {
        GraphNodeItem* item = page.fullPane()->scene()->itemForNode(node);
        QVERIFY(item);
        QCOMPARE(item->isRemoved(), !pruned.contains(node));
        if (pruned.contains(node) && m_small->isConfigurable(node) && kept < 0)
            kept = node;
        if (!pruned.contains(node) && removed < 0)
            removed = node;
    }
    QVERIFY(kept >= 0 && removed >= 0);
    QVERIFY(page.fullPane()->scene()->itemForNode(removed)->paintedFill()
        != page.fullPane()->scene()->itemForNode(removed)->fill());

    // A click in the full pane selects and centres the same node on the right.
    QSignalSpy selected(&page, &GraphPage::nodeSelected);
    page.fullPane()->scene()->itemForNode(kept)->setSelected(true);
    QCOMPARE(selected.count(), 1);
    QCOMPARE(selected.front().front().toLongLong(), kept);
    QCOMPARE(page.prunedPane()->selectedNode(), kept);
    GraphNodeItem* right = page.prunedPane()->scene()->itemForNode(kept);
    QVERIFY(right && right->isSelected());
    GraphView* rightView = page.prunedPane()->view();
    const QPointF centre = rightView->mapToScene(rightView->viewport()->rect().center());
    QVERIFY(QLineF(centre, right->sceneBoundingRect().center()).length() < 60
        || !rightView->horizontalScrollBar()->isVisible());

    // And back: a click on the right selects it on the left.
    GraphNodeItem* other = nullptr;
    for (int64_t local = 0; local < pruned.nodeCount() && !other; ++local)
        if (pruned.toGlobal(local) != kept)
            other = page.prunedPane()->scene()->itemForNode(pruned.toGlobal(local));
    QVERIFY(other);
    other->setSelected(true);
    QCOMPARE(page.fullPane()->selectedNode(), other->node());
    QVERIFY(page.fullPane()->scene()->itemForNode(other->node())->isSelected());

    // A node that pruning removed: selected on the left, nothing selected on the right.
    page.fullPane()->scene()->itemForNode(removed)->setSelected(true);
    QCOMPARE(page.selectedNode(), removed);
    QVERIFY(page.prunedPane()->scene()->selectedItems().isEmpty());
    saveScreenshot(page, QStringLiteral("graph-split.png"));

    page.setSplit(false);
    QVERIFY(!page.isSplit());
    QVERIFY(!page.fullPane()->scene()->itemForNode(removed)->isRemoved());
}

void TestGraphWidgets::searchAndNavigationHistory()
{
    GraphPage page(m_medium);
    page.resize(1200, 800);
    page.show();
    QVERIFY(waitForLayout(page.fullPane()));
    const std::vector<int64_t> convs = searchNodes(*m_medium, "op:convolution");
    QVERIFY(convs.size() >= 3);
    QCOMPARE(page.find(QStringLiteral("op:convolution")), int(convs.size()));
    QCOMPARE(page.selectedNode(), convs[0]);
    // The node may have been inside a collapsed group: the view opens it and selects it.
    QVERIFY(waitForLayout(page.fullPane()));
    QTRY_VERIFY(page.fullPane()->scene()->itemForNode(convs[0])
        && page.fullPane()->scene()->itemForNode(convs[0])->isSelected());
    QVERIFY(page.fullPane()->scene()->itemForNode(convs[0])->isHighlighted());
    page.findNext();
    QCOMPARE(page.selectedNode(), convs[1]);
    page.findNext();
    QCOMPARE(page.selectedNode(), convs[2]);
    page.findPrevious();
    QCOMPARE(page.selectedNode(), convs[1]);
    QVERIFY(waitForLayout(page.fullPane()));
    QTRY_VERIFY(page.fullPane()->scene()->itemForNode(convs[1])
        && page.fullPane()->scene()->itemForNode(convs[1])->isSelected());

    // History: conv0, conv1, conv2, conv1.
    QVERIFY(page.canGoBack());
    QVERIFY(!page.canGoForward());
    page.goBack();
    QCOMPARE(page.selectedNode(), convs[2]);
    page.goBack();
    QCOMPARE(page.selectedNode(), convs[1]);
    QVERIFY(page.canGoForward());
    page.goForward();
    QCOMPARE(page.selectedNode(), convs[2]);
    // A new selection drops the forward part.
    page.goBack();
    page.selectNode(convs[0]);
    QVERIFY(!page.canGoForward());

    QCOMPARE(page.find(QStringLiteral("no-such-node-anywhere")), 0);
    QCOMPARE(page.find(QStringLiteral("#3")), 1);
    QCOMPARE(page.selectedNode(), int64_t(3));
}

void TestGraphWidgets::largeModuleStartsCollapsed()
{
    QElapsedTimer timer;
    timer.start();
    const GraphDocumentPtr doc = generated("transformer", 40000);
    const qint64 openMs = timer.elapsed();
    QVERIFY(doc && doc->nodeCount() > 30000);

    StallMeter stalls;
    timer.restart();
    GraphPage page(doc);
    page.resize(1400, 900);
    page.show();
    const qint64 constructMs = timer.elapsed();
    QVERIFY(waitForLayout(page.fullPane()));
    const qint64 firstViewMs = timer.elapsed();
    const ViewLayout* layout = page.fullPane()->scene()->viewLayout();
    int64_t boxes = 0;
    for (const ViewNode& v : layout->view.nodes)
        boxes += v.kind == ViewNode::Kind::Node || v.kind == ViewNode::Kind::Group;
    QVERIFY(boxes <= 2 * GraphPane::kMaxFirstView);
    QVERIFY(layout->view.nodesShown() < doc->nodeCount());
    QVERIFY(page.fullPane()->noteText().contains(QStringLiteral("double-click")));

    // Double-clicking a collapsed box opens it.
    int group = -1;
    for (size_t i = 0; i < layout->view.nodes.size() && group < 0; ++i)
        if (layout->view.nodes[i].kind == ViewNode::Kind::Group && layout->view.nodes[i].count < 500)
            group = int(i);
    QVERIFY(group >= 0);
    const int32_t groupId = layout->view.nodes[size_t(group)].group;
    page.fullPane()->activateViewNode(group);
    QVERIFY(waitForLayout(page.fullPane()));
    QCOMPARE(page.fullPane()->scene()->viewLayout()->view.indexOfGroup(groupId), -1);
    // Double-clicking inside the frame around it (open chunks have none of their own: the
    // computation's) folds that group again.
    int frame = -1;
    int32_t framed = -1;
    const auto& clusters = page.fullPane()->scene()->viewLayout()->view.clusters;
    for (const int32_t g : doc->full.hierarchy.ancestry(groupId))
        for (size_t c = 0; c < clusters.size(); ++c)
            if (clusters[c].group == g) {
                frame = int(c);
                framed = g;
            }
    QVERIFY(frame >= 0);
    page.fullPane()->collapseCluster(frame);
    QVERIFY(waitForLayout(page.fullPane()));
    QVERIFY(page.fullPane()->scene()->viewLayout()->view.indexOfGroup(framed) >= 0);

    // The neighbourhood of a node anywhere in the module.
    const int64_t deep = doc->nodeCount() / 2;
    timer.restart();
    page.showNeighbourhood(deep, 2);
    QVERIFY(waitForLayout(page.fullPane()));
    const qint64 neighbourhoodMs = timer.elapsed();
    QCOMPARE(page.fullPane()->mode(), GraphPane::Mode::Neighbourhood);
    QVERIFY(page.fullPane()->scene()->itemForNode(deep));
    QVERIFY(page.fullPane()->scene()->viewLayout()->view.nodesShown() <= 400);

    // Selecting a node deep in a collapsed computation from the computation view.
    page.showComputations();
    QVERIFY(waitForLayout(page.fullPane()));
    page.selectNode(deep + 7);
    QVERIFY(waitForLayout(page.fullPane()));
    QTRY_VERIFY(page.fullPane()->scene()->itemForNode(deep + 7));
    QVERIFY(page.fullPane()->scene()->viewLayout()->view.nodes.size() <= size_t(GraphPane::kMaxViewNodes) * 3);
    const qint64 stallSoFar = stalls.longestMs();

    // The biggest view the pane allows: laid out in the background, drawn in one go.
    StallMeter bigStalls;
    QSignalSpy failures(page.fullPane(), &GraphPane::layoutFailed);
    QSignalSpy shown(page.fullPane(), &GraphPane::layoutShown);
    timer.restart();
    page.fullPane()->showComputations(GraphPane::kMaxViewNodes);
    QVERIFY(waitForLayout(page.fullPane()));
    QVERIFY2(failures.isEmpty(), failures.isEmpty() ? "" : qPrintable(failures.front().front().toString()));
    QCOMPARE(shown.count(), 1);
    const qint64 bigMs = timer.elapsed();
    const size_t bigBoxes = page.fullPane()->scene()->viewLayout()->view.nodes.size();
    QVERIFY(page.fullPane()->scene()->viewLayout()->view.nodesShown() <= GraphPane::kMaxViewNodes);
    qInfo("40k module (%lld nodes): opened in %lld ms; page built in %lld ms; first view (%lld boxes) drawn after "
          "%lld ms; neighbourhood after %lld ms; longest GUI-thread stall %lld ms; a %zu-box view (with aliases) "
          "drawn after %lld ms, longest stall meanwhile %lld ms",
        qlonglong(doc->nodeCount()), openMs, constructMs, qlonglong(boxes), firstViewMs, neighbourhoodMs, stallSoFar,
        bigBoxes, bigMs, bigStalls.longestMs());
    saveScreenshot(page, QStringLiteral("graph-40k.png"));
}

void TestGraphWidgets::staleLayoutsAreDropped()
{
    LayoutRunner runner;
    QSignalSpy finished(&runner, &LayoutRunner::finished);
    LayoutInput big;
    big.nodes.resize(600);
    for (int i = 1; i < 600; ++i)
        big.edges.push_back({ (i * 7919) % i, i, 1 });
    ViewGraph bigView;
    bigView.nodes.resize(600);
    const quint64 first = runner.request(bigView, big);
    LayoutInput small;
    small.nodes.resize(2);
    small.edges.push_back({ 0, 1, 1 });
    ViewGraph smallView;
    smallView.nodes.resize(2);
    const quint64 second = runner.request(smallView, small);
    QVERIFY(second > first);
    QVERIFY(finished.wait(kLayoutTimeoutMs));
    QCOMPARE(finished.count(), 1);
    QCOMPARE(finished.front().front().toULongLong(), second);
    QCOMPARE(finished.front().at(1).value<ViewLayoutPtr>()->layout.nodes.size(), size_t(2));
    // Nothing else arrives later.
    QTest::qWait(300);
    QCOMPARE(finished.count(), 1);
    QVERIFY(!runner.isBusy());

    // A failing layout reports, naming the problem.
    QSignalSpy failed(&runner, &LayoutRunner::failed);
    LayoutInput bad = small;
    bad.edges.push_back({ 0, 5, 1 });
    runner.request(smallView, bad);
    QVERIFY(failed.wait(kLayoutTimeoutMs));
    QVERIFY(failed.front().at(1).toString().contains(QStringLiteral("out of range")));
}

void TestGraphWidgets::slowLayoutShowsPlaceholder()
{
    // A `dot` that takes a second to start: the pane says what it is doing meanwhile.
    const QString script = m_dir.filePath(QStringLiteral("slowdot.sh"));
    {
        QFile f(script);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("#!/bin/sh\nsleep 1.2\nexec dot \"$@\"\n");
    }
    QFile::setPermissions(script, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    GraphPane pane;
    pane.resize(800, 600);
    pane.show();
    LayoutOptions options;
    options.engine = LayoutOptions::Engine::DotProcess;
    options.dotProgram = script.toStdString();
    pane.runner()->setOptions(options);
    pane.setDocument(m_small, GraphSource::Kind::Full);
    QVERIFY(pane.isLayoutPending());
    QVERIFY(pane.view()->placeholder().isEmpty()); // not before ~0.5 s
    QTRY_VERIFY_WITH_TIMEOUT(pane.view()->placeholder().startsWith(QStringLiteral("Laying out")), 1100);
    QVERIFY(pane.view()->placeholder().contains(QLocale().toString(qlonglong(m_small->nodeCount()))));
    QVERIFY(waitForLayout(&pane));
    QVERIFY(pane.view()->placeholder().isEmpty());
    QVERIFY(pane.lastLayoutMs() >= 1000);
}

void TestGraphWidgets::inspectorShowsTheNode()
{
    NodeInspector inspector;
    inspector.setDocument(m_small);
    QVERIFY(inspector.headerText().contains(QStringLiteral("Select a node")));
    const int64_t conv = searchNodes(*m_small, "op:convolution").front();
    inspector.setNode(conv);
    const QString name = QString::fromStdString(m_small->nodeName(conv));
    QVERIFY(inspector.headerText().contains(name));
    QVERIFY(inspector.headerText().contains(QStringLiteral("convolution")));
    QVERIFY(inspector.headerText().contains(QStringLiteral("configurable")) == m_small->isConfigurable(conv));
    QVERIFY(inspector.instructionText().contains(name));
    QVERIFY(inspector.instructionText().contains(QStringLiteral("convolution(")));
    // The 140 features in their 22 groups.
    QCOMPARE(inspector.featureTree()->topLevelItemCount(), 22);
    int features = 0;
    for (int i = 0; i < inspector.featureTree()->topLevelItemCount(); ++i)
        features += inspector.featureTree()->topLevelItem(i)->childCount();
    QCOMPARE(features, 140);
    QCOMPARE(inspector.featureTree()->topLevelItem(0)->child(0)->text(0), QStringLiteral("is_root"));
    // Operands as links that ask for the node.
    const int64_t operand = m_small->full.topology.operandsOf(conv).front();
    QVERIFY(inspector.linksText().contains(QString::fromStdString(m_small->nodeName(operand))));
    QSignalSpy requested(&inspector, &NodeInspector::nodeRequested);
    auto* links = inspector.findChild<QLabel*>(QStringLiteral("inspectorLinks"));
    QVERIFY(links);
    Q_EMIT links->linkActivated(QStringLiteral("node:%1").arg(operand));
    QCOMPARE(requested.count(), 1);
    QCOMPARE(requested.front().front().toLongLong(), operand);
    inspector.setNode(-1);
    QVERIFY(inspector.instructionText().isEmpty());
    inspector.setNode(m_small->nodeCount() + 5); // out of range: cleared, no crash
    QCOMPARE(inspector.node(), int64_t(-1));
}

void TestGraphWidgets::npzGraphsWithoutModule()
{
    SyntheticLayoutSpec spec;
    spec.nodes = 900;
    spec.configurableNodes = 12;
    spec.configs = 20;
    spec.seed = 5;
    const QString path = m_dir.filePath(QStringLiteral("synthetic.npz"));
    saveLayoutGraph(makeSyntheticLayoutGraph(spec), path.toStdString());
    auto docs = openGraphDocuments(path.toStdString());
    QCOMPARE(docs.size(), size_t(1));
    const GraphDocumentPtr doc = docs.front();
    QVERIFY(!doc->module);
    GraphPage page(doc);
    page.resize(1200, 800);
    page.show();
    page.setSplit(true);
    QVERIFY(waitForLayout(page.fullPane()));
    QVERIFY(waitForLayout(page.prunedPane()));
    int64_t configurable = 0;
    while (!doc->isConfigurable(configurable))
        ++configurable;
    page.selectNode(configurable);
    QVERIFY(waitForLayout(page.fullPane()));
    QTRY_VERIFY(page.fullPane()->scene()->itemForNode(configurable));
    QTRY_VERIFY(page.prunedPane()->scene()->itemForNode(configurable));
    QCOMPARE(page.fullPane()->scene()->itemForNode(configurable)->title(), QStringLiteral("node %1").arg(configurable));

    NodeInspector inspector;
    inspector.setDocument(doc);
    inspector.setNode(configurable);
    QVERIFY(inspector.instructionText().isEmpty()); // no HLO text for .npz graphs
    QVERIFY(inspector.headerText().contains(QStringLiteral("node %1").arg(configurable)));
    QCOMPARE(inspector.configTree()->topLevelItemCount(), 3); // output, input, kernel
    QCOMPARE(inspector.configTree()->topLevelItem(0)->childCount(), 6);
    // The values shown are those of the chosen configuration.
    for (const int64_t config : { int64_t(0), int64_t(7) }) {
        inspector.setConfiguration(config);
        const float* values = doc->configValues(configurable, config);
        QVERIFY(values);
        QCOMPARE(
            inspector.configTree()->topLevelItem(1)->child(2)->text(1), Formatting::significant(double(values[8]), 6));
    }
}

// The inspector shows the configuration the studio selects (InferencePanel::configSelected's
// graph path and config id), announces one picked in its spin box, and keeps one per graph file.
void TestGraphWidgets::inspectorFollowsTheSelectedConfiguration()
{
    const auto openSynthetic = [this](const QString& name, int64_t configs, uint64_t seed) -> GraphDocumentPtr {
        SyntheticLayoutSpec spec;
        spec.nodes = 300;
        spec.configurableNodes = 8;
        spec.configs = configs;
        spec.seed = seed;
        const QString path = m_dir.filePath(name);
        saveLayoutGraph(makeSyntheticLayoutGraph(spec), path.toStdString());
        auto docs = openGraphDocuments(path.toStdString());
        return docs.size() == 1 ? GraphDocumentPtr(docs.front()) : nullptr;
    };
    const GraphDocumentPtr a = openSynthetic(QStringLiteral("configs-a.npz"), 500, 11);
    const GraphDocumentPtr b = openSynthetic(QStringLiteral("configs-b.npz"), 20, 12);
    QVERIFY(a && b);
    const QString pathA = QString::fromStdString(a->path);
    const QString pathB = QString::fromStdString(b->path);
    int64_t node = 0;
    while (!a->isConfigurable(node))
        ++node;
    // The values the inspector shows, and those of configuration `config` of `doc`.
    const auto shown = [](const NodeInspector& inspector) {
        QStringList values;
        QTreeWidget* tree = inspector.configTree();
        for (int t = 0; t < tree->topLevelItemCount(); ++t)
            for (int k = 0; k < tree->topLevelItem(t)->childCount(); ++k)
                values << tree->topLevelItem(t)->child(k)->text(1);
        return values;
    };
    const auto valuesOf = [](const GraphDocument& doc, int64_t n, int64_t config) {
        QStringList values;
        const float* v = doc.configValues(n, config);
        for (int k = 0; v && k < 18; ++k)
            values << Formatting::significant(double(v[k]), 6); // as the inspector shows numbers
        return values;
    };
    // A node whose layouts differ between configurations 0 and 450, so the check can fail.
    while (node < a->nodeCount() && (!a->isConfigurable(node) || valuesOf(*a, node, 0) == valuesOf(*a, node, 450)))
        ++node;
    QVERIFY(node < a->nodeCount());

    NodeInspector inspector;
    QSignalSpy changed(&inspector, &NodeInspector::configurationChanged);
    // Selected before the graph is shown: remembered.
    inspector.showConfiguration(pathA, 450);
    inspector.setDocument(a);
    inspector.setNode(node);
    QCOMPARE(inspector.configuration(), int64_t(450));
    QCOMPARE(shown(inspector), valuesOf(*a, node, 450));
    QVERIFY(changed.isEmpty()); // showing a graph is no new selection
    // Selected while shown: shown at once and announced; another node keeps it.
    inspector.showConfiguration(pathA, 3);
    QCOMPARE(inspector.configuration(), int64_t(3));
    QCOMPARE(shown(inspector), valuesOf(*a, node, 3));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.takeFirst().front().toLongLong(), qint64(3));
    QVERIFY(inspector.setConfiguration(450));
    QCOMPARE(changed.takeFirst().front().toLongLong(), qint64(450));
    int64_t other = node + 1;
    while (!a->isConfigurable(other))
        ++other;
    inspector.setNode(other);
    QCOMPARE(shown(inspector), valuesOf(*a, other, 450));
    inspector.setNode(node);
    // Picked in the spin box: announced like a selection.
    auto* spin = inspector.findChild<QSpinBox*>(QStringLiteral("inspectorConfigIndex"));
    QVERIFY(spin);
    spin->setValue(12);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.takeFirst().front().toLongLong(), qint64(12));
    QCOMPARE(shown(inspector), valuesOf(*a, node, 12));
    // A configuration the graph does not have changes nothing.
    QVERIFY(!inspector.setConfiguration(500));
    inspector.showConfiguration(pathA, 100000);
    QCOMPARE(inspector.configuration(), int64_t(12));
    QVERIFY(changed.isEmpty());
    // A selection for another graph waits for that graph; each graph keeps its own.
    inspector.showConfiguration(pathB, 5);
    QCOMPARE(inspector.configuration(), int64_t(12));
    inspector.setDocument(b);
    QCOMPARE(inspector.configuration(), int64_t(5));
    inspector.setDocument(a);
    QCOMPARE(inspector.configuration(), int64_t(12));
    inspector.setNode(node);
    QCOMPARE(shown(inspector), valuesOf(*a, node, 12));
    QVERIFY(changed.isEmpty());
}

void TestGraphWidgets::overlayColoursNodes()
{
    GraphPage page(m_small);
    page.show();
    QVERIFY(waitForLayout(page.fullPane()));
    constexpr int column = 28; // shape_element_count-like column: varies between nodes
    page.setOverlayColumn(column);
    const NodeOverlay& overlay = page.overlay();
    QVERIFY(!overlay.isEmpty());
    QVERIFY(overlay.maximum >= overlay.minimum);
    int differing = 0;
    for (int64_t node = 0; node < m_small->nodeCount(); ++node) {
        GraphNodeItem* item = page.fullPane()->scene()->itemForNode(node);
        QCOMPARE(item->fill(), overlay.colorOf(node));
        differing += item->fill() != overlay.colorOf(0);
    }
    QVERIFY(differing > 0);
    QCOMPARE(NodeOverlay::colorAt(0), QColor(0x44, 0x01, 0x54));
    QCOMPARE(NodeOverlay::colorAt(1), QColor(0xfd, 0xe7, 0x25));
    page.setOverlayColumn(-1);
    QCOMPARE(page.fullPane()->scene()->itemForNode(0)->fill(), OpcodePalette::color(m_small->opcodeName(0)));
}

// An overlay that covers part of the graph paints the rest grey (not in opcode colours that read
// as values); its colour bar keeps both labels whole at its minimum width, prints the digits that
// tell a narrow range apart, says "all v" for one value, and paints noise pale (docs/studio.md §8.2).
// The page's form (graphpage.ui) leaves the view controls and the legend without a layout; the
// code lays them out as flows. Narrow, the controls and the legend wrap into more rows while the
// search box keeps its place at the top right; the tab order runs through the controls to search.
void TestGraphWidgets::toolBarFlowsAndSearchStaysInSight()
{
    GraphPage page(m_small);
    page.resize(1300, 600);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    auto* controls = page.findChild<QWidget*>(QStringLiteral("graphControls"));
    auto* legend = page.findChild<QWidget*>(QStringLiteral("opcodeLegend"));
    auto* search = page.findChild<QLineEdit*>(QStringLiteral("searchField"));
    QVERIFY(controls && legend && search);
    QVERIFY(controls->layout() && legend->layout());
    const QList<QWidget*> flowing { page.findChild<QComboBox*>(QStringLiteral("viewMode")),
        page.findChild<QSpinBox*>(QStringLiteral("radius")),
        page.findChild<QToolButton*>(QStringLiteral("splitButton")),
        page.findChild<QComboBox*>(QStringLiteral("colorBy")) };
    for (QWidget* w : flowing) {
        QVERIFY(w && w->parentWidget() == controls);
        QVERIFY(controls->layout()->indexOf(w) >= 0);
    }
    // One entry per opcode family, "configurable" and "removed by pruning".
    QCOMPARE(legend->layout()->count(), int(OpcodePalette::families().size()) + 2);
    const auto rows = [](const QList<QWidget*>& widgets) {
        std::set<int> tops;
        for (QWidget* w : widgets)
            tops.insert(w->y());
        return tops.size();
    };
    const auto searchInSight = [&] {
        const QRect field(search->mapTo(&page, QPoint(0, 0)), search->size());
        return search->isVisible() && field.width() >= 150 && page.rect().contains(field)
            && field.top() < legend->mapTo(&page, QPoint(0, 0)).y();
    };
    QTRY_COMPARE(rows(flowing), size_t(1));
    QVERIFY(searchInSight());
    const int wideLegend = legend->height();

    page.resize(560, 600);
    QTRY_VERIFY(rows(flowing) > 1);
    QVERIFY(searchInSight());
    QTRY_VERIFY(legend->height() > wideLegend);

    QWidget* stop = flowing.front();
    for (QWidget* expected : { flowing[1], flowing[2], flowing[3], static_cast<QWidget*>(search) }) {
        QWidget* next = stop->nextInFocusChain(); // the next tab stop past `stop` and its own parts
        while (!(next->focusPolicy() & Qt::TabFocus) || !next->isVisible() || stop->isAncestorOf(next))
            next = next->nextInFocusChain();
        QCOMPARE(next, expected);
        stop = next;
    }
}

void TestGraphWidgets::overlayColourBarReadsWell()
{
    GraphPage page(m_small);
    page.resize(900, 600);
    page.show();
    QVERIFY(waitForLayout(page.fullPane()));
    const int64_t n = m_small->nodeCount();
    NodeOverlay overlay;
    overlay.name = QStringLiteral("cross-config weight (block 2), row 0 of a rather long overlay name");
    overlay.values.assign(size_t(n), std::nanf(""));
    for (int64_t node = 0; node < n; node += 2)
        overlay.values[size_t(node)] = 0.00862f + 0.00008f * float(node) / float(n); // 0.00862..0.0087
    overlay.updateRange();
    GraphMinimap* minimap = page.fullPane()->view()->minimap();
    QVERIFY(minimap->isVisible()); // 140 nodes at 900x600: the thumbnail is shown
    const QImage before = minimap->grab().toImage();
    page.setOverlay(overlay);
    QVERIFY(minimap->grab().toImage() != before); // the thumbnail follows the new colours
    const NodeOverlay& shown = page.overlay();
    int grey = 0;
    for (int64_t node = 0; node < n; ++node) {
        const GraphNodeItem* item = page.fullPane()->scene()->itemForNode(node);
        if (!item)
            continue;
        if (node % 2) {
            QCOMPARE(item->fill(), NodeOverlay::noValueColor());
            ++grey;
        } else {
            QCOMPARE(item->fill(), shown.colorOf(node));
        }
    }
    QVERIFY(grey > 0);
    // A spread of 1 % of the values paints the middle of the map, not its two ends.
    const auto [lo, hi] = shown.colourRange();
    QVERIFY(hi - lo >= ColorMaps::kMinimumRelativeSpan * 0.0087 * 0.999);
    QVERIFY(shown.colorOf(0) != NodeOverlay::colorAt(0) && shown.colorOf(0) != NodeOverlay::colorAt(1));

    auto* bar = page.findChild<OverlayColorBar*>(QStringLiteral("colorBar"));
    QVERIFY(bar && bar->isVisible());
    QCOMPARE(bar->labels().size(), 2);
    QVERIFY(bar->labels()[0] != bar->labels()[1]);
    QVERIFY(bar->showsMissing());
    QVERIFY(bar->toolTip().contains(overlay.name));
    saveScreenshot(page, QStringLiteral("overlay-partial.png"));
    for (const int width : { bar->minimumSizeHint().width(), bar->sizeHint().width(), 1200 }) {
        bar->resize(width, bar->minimumSizeHint().height());
        const OverlayColorBar::Parts parts = bar->parts();
        const QFontMetrics fm = bar->fontMetrics();
        QVERIFY2(parts.bar.width() >= 60, qPrintable(QString::number(parts.bar.width())));
        QVERIFY(parts.low.width() >= fm.horizontalAdvance(bar->labels()[0]));
        QVERIFY(parts.high.width() >= fm.horizontalAdvance(bar->labels()[1]));
        QVERIFY(parts.low.right() <= parts.bar.left() && parts.bar.right() < parts.high.left());
        QVERIFY(parts.high.right() < parts.missing.left() && parts.missing.right() < width);
        QVERIFY(parts.bar.height() >= fm.height() - 2);
    }
    QVERIFY(bar->minimumSizeHint().width() <= 480); // fits beside the graph on a laptop

    // One value everywhere: "all v" and one colour.
    overlay.values.assign(size_t(n), 0.5f);
    overlay.updateRange();
    page.setOverlay(overlay);
    QCOMPARE(bar->labels(), QStringList { QStringLiteral("all 0.5") });
    QVERIFY(!bar->showsMissing());
    QCOMPARE(page.fullPane()->scene()->itemForNode(0)->fill(), page.fullPane()->scene()->itemForNode(1)->fill());

    // A difference of rounding noise against values near 1 is pale, near white.
    overlay.diverging = true;
    overlay.reference = 1.0f;
    for (int64_t node = 0; node < n; ++node)
        overlay.values[size_t(node)] = node % 2 ? 1e-7f : -1e-7f;
    overlay.updateRange();
    page.setOverlay(overlay);
    for (const int64_t node : { int64_t(0), int64_t(1) }) {
        const QColor c = page.overlay().colorOf(node);
        QVERIFY2(std::min({ c.red(), c.green(), c.blue() }) >= 0xe8, qPrintable(c.name()));
    }
    overlay.reference = 0; // nothing to compare with: the differences span the map
    page.setOverlay(overlay);
    QCOMPARE(page.overlay().colorOf(1), ColorMaps::diverging(1.0));
    page.setOverlayColumn(-1);
    QVERIFY(!bar->isVisible());
}

void TestGraphWidgets::exportWritesSvgAndPng()
{
    GraphPage page(m_small);
    page.show();
    QVERIFY(waitForLayout(page.fullPane()));
    QString error;
    const QString svg = m_dir.filePath(QStringLiteral("view.svg"));
    QVERIFY2(page.exportSvg(svg, &error), qPrintable(error));
    QFile file(svg);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    QVERIFY(text.contains("<svg"));
    QVERIFY(text.size() > 10000);
    const QString png = m_dir.filePath(QStringLiteral("view.png"));
    QVERIFY2(page.exportPng(png, &error), qPrintable(error));
    const QImage image(png);
    QVERIFY(!image.isNull());
    QCOMPARE(image.width(),
        qRound(std::max(page.fullPane()->scene()->sceneRect().width(), 9.0 * page.fullPane()->titleText().size() + 8)));
    // A folder that does not exist: an error naming the file, nothing written.
    QVERIFY(!page.exportSvg(QStringLiteral("/nonexistent-dir/out.svg"), &error));
    QVERIFY2(error.contains(QStringLiteral("out.svg")), qPrintable(error));
    QVERIFY(!QFile::exists(QStringLiteral("/nonexistent-dir/out.svg")));
}

void TestGraphWidgets::summaryModelsPassTheTester()
{
    GraphSummaryView view;
    QAbstractItemModelTester opcodes(view.opcodeModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester arrays(view.arrayModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester proxy(view.opcodeProxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    view.setSummary(m_small->summary);
    view.setSummary(m_medium->summary);
    QVERIFY(view.opcodeModel()->rowCount() > 0);
}

// The opcode column of a narrow summary (a docked window) once shrank to "…": it keeps the width
// of its longest name and the table scrolls sideways (docs/studio.md §9).
void TestGraphWidgets::summaryOpcodesStayWholeWhenNarrow()
{
    // A module's opcodes with long names among them (XLA's own).
    tgraph::GraphSummary summary = m_medium->summary;
    for (const char* name : { "dynamic-update-slice", "select-and-scatter", "batch-norm-inference" })
        summary.opcodeHistogram.push_back({ tgraph::opcodeId(name), 1 });
    GraphSummaryView view;
    view.setSummary(summary);
    view.resize(420, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    auto* table = view.findChild<QTableView*>(QStringLiteral("opcodeTable"));
    QVERIFY(table);
    QTest::qWait(50);
    int longest = 0;
    QString longestName;
    for (int row = 0; row < view.opcodeModel()->rowCount(); ++row) {
        const QString name = view.opcodeModel()->index(row, OpcodeTableModel::NameColumn).data().toString();
        if (table->fontMetrics().horizontalAdvance(name) > longest) {
            longest = table->fontMetrics().horizontalAdvance(name);
            longestName = name;
        }
    }
    QVERIFY(longest > 0);
    const int width = table->horizontalHeader()->sectionSize(OpcodeTableModel::NameColumn);
    QVERIFY2(width >= longest,
        qPrintable(QStringLiteral("%1 px for \"%2\" (%3 px)").arg(width).arg(longestName).arg(longest)));
}

void TestGraphWidgets::renderCommandLine()
{
    const QString studio = testutil::binDir() + QStringLiteral("/tgraph-studio");
    if (!QFileInfo(studio).isExecutable())
        QSKIP("tgraph-studio is not built");
    const QString input = generatedFile("resnet", 150);
    const QString out = m_dir.filePath(QStringLiteral("cli.svg"));
    const auto ok = testutil::run(studio,
        { QStringLiteral("--render"), input, QStringLiteral("--view"), QStringLiteral("pruned"), QStringLiteral("-o"),
            out });
    QVERIFY2(ok.exitCode == 0, ok.err.constData());
    QVERIFY(ok.out.contains("nodes drawn"));
    QFile svg(out);
    QVERIFY(svg.open(QIODevice::ReadOnly));
    QVERIFY(svg.readAll().contains("<svg"));
    const auto bad = testutil::run(studio,
        { QStringLiteral("--render"), input, QStringLiteral("--node"), QStringLiteral("nope"), QStringLiteral("-o"),
            m_dir.filePath(QStringLiteral("x.png")) });
    QCOMPARE(bad.exitCode, 1);
    QVERIFY(bad.err.contains("no node named 'nope'"));
    QVERIFY(bad.err.contains("resnet_150.hlo"));
}

QTEST_MAIN(TestGraphWidgets)
#include "tst_graphwidgets.moc"
