// SPDX-License-Identifier: Apache-2.0
// The studio's Diff page (docs/studio.md §11): two small modules written here opened through the
// session's requestDiff(); the change list checked against diffHloModules run in the test; the
// sync (an instruction selected in A selects its match in B, "no match" said otherwise), the
// filters by kind and next / previous; a module against itself (no change); a gzip-compressed
// dump stage; a bad file shown inline; a cancelled diff; large modules starting collapsed; the page
// on a 1366x768 laptop screen; and a real before/after pair of the dump folder drawn for the
// README (label external).

#include "app/studio/pages/diffpage.h"
#include "app/studio/session/studiosession.h"
#include "app/studio/window/mainwindow.h"
#include "graphtestutil.h"
#include "testutil.h"
#include "widgets/common/errorbanner.h"
#include "widgets/common/formatting.h"
#include "widgets/common/modebar.h"
#include "widgets/diff/changelistmodel.h"
#include "widgets/diff/computationdiffmodel.h"
#include "widgets/diff/diffcolors.h"
#include "widgets/diff/diffview.h"
#include "widgets/graph/graphitems.h"
#include "widgets/graph/graphpane.h"
#include "widgets/graph/graphscene.h"

#include "model/facade/runtime.h"

#include "core/diff/diffreport.h"
#include "core/diff/hlodiff.h"
#include "core/hlo/hlotext.h"
#include "core/util/json.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

#include <zlib.h>

using namespace tgraph::widgets;
using namespace tgraph::studio;

using tgraph::studio::DiffPage;
using tgraph::studio::Page;
using Side = DiffView::Side;

namespace {

constexpr int kDiffTimeoutMs = 60000;

const char* kModuleA = R"(HloModule m

ENTRY main {
  p0 = f32[4,200]{1,0} parameter(0)
  p1 = f32[4,200]{1,0} parameter(1)
  mul = f32[4,200]{1,0} multiply(p0, p1)
  neg = f32[4,200]{1,0} negate(mul)
  ROOT add = f32[4,200]{1,0} add(neg, p0)
}
)";

// mul's layout edited, neg removed, exp added: add reads other operands.
const char* kModuleB = R"(HloModule m

ENTRY main {
  p0 = f32[4,200]{1,0} parameter(0)
  p1 = f32[4,200]{1,0} parameter(1)
  mul = f32[4,200]{0,1} multiply(p0, p1)
  exp = f32[4,200]{1,0} exponential(p1)
  ROOT add = f32[4,200]{1,0} add(mul, exp)
}
)";

int64_t position(const tgraph::HloModule& m, const char* name)
{
    for (size_t i = 0; i < m.instructions.size(); ++i)
        if (m.instructions[i].name == name)
            return int64_t(i);
    return -1;
}

QString nameOf(const tgraph::HloModule& m, int64_t i)
{
    return i < 0 ? QString() : QString::fromStdString(std::string(m.instructions[size_t(i)].name));
}

} // namespace

class TestDiffView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QCoreApplication::setOrganizationName(QStringLiteral("TGraphStudioTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_diffview"));
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.filePath(QStringLiteral("settings")));
        m_a = m_dir.filePath("a.hlo");
        m_b = m_dir.filePath("b.hlo");
        testutil::writeAll(m_a, kModuleA);
        testutil::writeAll(m_b, kModuleB);
    }

    void pageAndShortcut()
    {
        MainWindow window;
        QAction* action = window.pageAction(Page::Diff);
        QVERIFY(action);
        QCOMPARE(action->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_6));
        QVERIFY(window.findChild<QAction*>("compareModulesAction"));
        action->trigger();
        QCOMPARE(window.currentStudioPage(), Page::Diff);
        QVERIFY(window.diffPage()->isVisibleTo(&window));
    }

    // With the session's model (the Analysis page's), the page shows the layout model's scores of
    // both sides at their own layouts, equal to `tgraph diff --weights`'s (run here), labelled as
    // the model's estimate; "no model open" without one; a tile model's error inline.
    void modelScoresOfBothSides()
    {
        const QString bin = testutil::binDir();
        if (!QFileInfo(bin + "/tgraph-model").isExecutable())
            QSKIP("no tgraph-model (a build without LibTorch)");
        const QString tgraph = bin + "/tgraph";
        QString error;
        const QString weights = testutil::trainSmallLayoutModel(m_dir.path(), &error);
        QVERIFY2(!weights.isEmpty(), qPrintable(error));
        const QByteArray text = testutil::kDotAndReshapeModule;
        QByteArray edited = text;
        edited.replace("r = f32[128,64]{1,0}", "r = f32[128,64]{0,1}");
        const QString a = m_dir.filePath("scored-a.hlo"), b = m_dir.filePath("scored-b.hlo");
        testutil::writeAll(a, text);
        testutil::writeAll(b, edited);

        // The page and the command agree to 1e-6 when their products run alike: both in fp32 here
        // (the studio runs auto, docs/model.md §10.12).
        tgraph::facade::applyPrecision(tgraph::Precision::Fp32);
        MainWindow window;
        DiffPage* page = window.diffPage();
        QSignalSpy shown(page, &DiffPage::diffShown);
        QSignalSpy scored(page, &DiffPage::modelScoreShown);
        window.session()->setSharedModel({});
        window.session()->requestDiff(a, b);
        QVERIFY(shown.wait(kDiffTimeoutMs));
        QVERIFY2(page->modelText().contains(QStringLiteral("no model open")), qPrintable(page->modelText()));
        QVERIFY(!page->modelScore());

        // A model opened: both sides scored on the model lane.
        window.session()->setSharedModel({ weights });
        QVERIFY(scored.wait(kDiffTimeoutMs));
        QVERIFY2(page->modelScore().has_value(), qPrintable(page->modelText()));
        const auto r = testutil::run(tgraph, { "diff", a, b, "--json", "--weights", weights, "--precision", "fp32" });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const tgraph::Json cli = tgraph::parseJson(r.out.toStdString())["model"];
        QVERIFY(std::abs(page->modelScore()->a - cli["a"].get<double>()) < 1e-6);
        QVERIFY(std::abs(page->modelScore()->b - cli["b"].get<double>()) < 1e-6);
        QVERIFY(page->modelScore()->a != page->modelScore()->b); // the reshape's layout moved
        const QString line = page->modelText();
        QVERIFY2(line.contains(QStringLiteral("Layout model's estimate")), qPrintable(line));
        QVERIFY2(line.contains(Formatting::number(page->modelScore()->a, 4)), qPrintable(line));
        QVERIFY2(line.contains(Formatting::number(page->modelScore()->b, 4)), qPrintable(line));
        QVERIFY2(line.contains(Formatting::signedNumber(page->modelScore()->delta(), 4)), qPrintable(line));

        // Another diff with the model still open: scored again.
        scored.clear();
        window.session()->requestDiff(b, a);
        QVERIFY(scored.wait(kDiffTimeoutMs));
        QVERIFY(std::abs(page->modelScore()->a - cli["b"].get<double>()) < 1e-6);

        // A tile model: said on the page, no scores.
        const QString tile = testutil::trainSmallTileModel(m_dir.path(), &error);
        QVERIFY2(!tile.isEmpty(), qPrintable(error));
        scored.clear();
        window.session()->setSharedModel({ tile });
        QVERIFY(scored.wait(kDiffTimeoutMs));
        QVERIFY(!page->modelScore());
        QVERIFY2(page->modelText().contains(QStringLiteral("tile model")), qPrintable(page->modelText()));
    }

    void changeListMatchesTheDiff()
    {
        MainWindow window;
        QVERIFY(openThroughSession(window, m_a, m_b));
        QCOMPARE(window.currentStudioPage(), Page::Diff);
        DiffView* view = window.diffPage()->view();
        const tgraph::HloModule a = tgraph::parseHloText(kModuleA, "a.hlo");
        const tgraph::HloModule b = tgraph::parseHloText(kModuleB, "b.hlo");
        const tgraph::HloDiff d = tgraph::diffHloModules(a, b);
        QVERIFY(!d.changed.empty() && !d.removed.empty() && !d.added.empty());

        ChangeListModel* model = view->changeModel();
        QCOMPARE(size_t(model->rowCount()), d.changed.size() + d.removed.size() + d.added.size());
        // Every row is one of the diff's entries, and every entry has a row.
        QSet<QString> expected, shown;
        for (const uint32_t p : d.changed)
            expected << QStringLiteral("%1|%2|%3")
                            .arg(nameOf(a, d.pairs[p].a), nameOf(b, d.pairs[p].b),
                                QString::fromStdString(tgraph::hloDiffKindList(d.pairs[p].kinds)));
        for (const uint32_t i : d.removed)
            expected << QStringLiteral("%1||removed").arg(nameOf(a, i));
        for (const uint32_t i : d.added)
            expected << QStringLiteral("|%1|added").arg(nameOf(b, i));
        for (int r = 0; r < model->rowCount(); ++r)
            shown << QStringLiteral("%1|%2|%3")
                         .arg(model->index(r, ChangeListModel::AColumn).data().toString(),
                             model->index(r, ChangeListModel::BColumn).data().toString(),
                             model->index(r, ChangeListModel::KindColumn).data().toString());
        QCOMPARE(shown, expected);
        // The layout edit is a layout change of mul on both sides.
        QVERIFY(shown.contains(QStringLiteral("mul|mul|layout")));
        // Costs: the rows' deltas add up to the total (the simulator's estimate, labelled so).
        double sum = 0;
        for (int r = 0; r < model->rowCount(); ++r)
            sum += model->index(r, ChangeListModel::CostColumn).data(Qt::UserRole).toDouble();
        QVERIFY(std::fabs(sum - view->result()->cost.delta()) < 1e-6);
        QVERIFY(model->headerData(ChangeListModel::CostColumn, Qt::Horizontal, Qt::DisplayRole)
                    .toString()
                    .contains("est."));
        QVERIFY(view->summaryText().contains(QStringLiteral("estimate")));
        // One computation row, its counts those of the diff.
        QCOMPARE(size_t(view->computationModel()->rowCount()), d.computations.size());
        QCOMPARE(view->computationModel()->row(0).changed, d.computations[0].changed);
        // The panes are coloured by kind: mul in the layout colour on both sides, neg removed, exp added.
        QVERIFY(graphtest::waitForLayout(view->pane(Side::A)));
        QVERIFY(graphtest::waitForLayout(view->pane(Side::B)));
        auto fill = [](GraphPane* pane, int64_t node) {
            GraphNodeItem* item = pane->scene()->itemForNode(node);
            return item ? item->fill() : QColor();
        };
        QCOMPARE(fill(view->pane(Side::A), position(a, "mul")), DiffColors::changed(tgraph::HloChangeKind::Layout));
        QCOMPARE(fill(view->pane(Side::B), position(b, "mul")), DiffColors::changed(tgraph::HloChangeKind::Layout));
        QCOMPARE(fill(view->pane(Side::A), position(a, "neg")), DiffColors::removed());
        QCOMPARE(fill(view->pane(Side::B), position(b, "exp")), DiffColors::added());
        QCOMPARE(fill(view->pane(Side::A), position(a, "p1")), DiffColors::unchanged());
    }

    void selectionStaysInSync()
    {
        MainWindow window;
        QVERIFY(openThroughSession(window, m_a, m_b));
        DiffView* view = window.diffPage()->view();
        const tgraph::HloDiff& d = view->result()->diff;
        const tgraph::HloModule& a = view->result()->moduleA();
        const tgraph::HloModule& b = view->result()->moduleB();
        QVERIFY(graphtest::waitForLayout(view->pane(Side::A)));
        QVERIFY(graphtest::waitForLayout(view->pane(Side::B)));

        // A click on mul in A (the pane's signal, as the scene sends it): its match in B is selected.
        const int64_t mulA = position(a, "mul");
        view->pane(Side::A)->selectNode(mulA, false);
        Q_EMIT view->pane(Side::A)->nodeSelected(mulA);
        QCOMPARE(view->pane(Side::B)->selectedNode(), int64_t(d.matchOfA[size_t(mulA)]));
        QCOMPARE(nameOf(b, view->pane(Side::B)->selectedNode()), QStringLiteral("mul"));
        QVERIFY2(view->syncText().contains("layout"), qPrintable(view->syncText()));
        // The change list follows: its current row is mul's.
        QCOMPARE(view->currentChange(), view->changeModel()->rowOfA(mulA));
        // And from B to A.
        const int64_t addB = position(b, "add");
        Q_EMIT view->pane(Side::B)->nodeSelected(addB);
        QCOMPARE(view->pane(Side::A)->selectedNode(), int64_t(d.matchOfB[size_t(addB)]));
        // No match: said, and nothing selected on the other side.
        const int64_t negA = position(a, "neg");
        Q_EMIT view->pane(Side::A)->nodeSelected(negA);
        QVERIFY2(view->syncText().contains("no match") && view->syncText().contains("removed"),
            qPrintable(view->syncText()));
        QCOMPARE(view->pane(Side::B)->selectedNode(), int64_t(-1));
        const int64_t expB = position(b, "exp");
        Q_EMIT view->pane(Side::B)->nodeSelected(expB);
        QVERIFY2(
            view->syncText().contains("no match") && view->syncText().contains("added"), qPrintable(view->syncText()));
        QCOMPARE(view->pane(Side::A)->selectedNode(), int64_t(-1));
        // An unchanged instruction: matched, not in the list.
        const int64_t p1 = position(a, "p1");
        Q_EMIT view->pane(Side::A)->nodeSelected(p1);
        QCOMPARE(nameOf(b, view->pane(Side::B)->selectedNode()), QStringLiteral("p1"));
        QVERIFY(view->syncText().contains("unchanged"));
        QCOMPARE(view->currentChange(), -1);
    }

    void filtersAndNextPrevious()
    {
        MainWindow window;
        QVERIFY(openThroughSession(window, m_a, m_b));
        DiffView* view = window.diffPage()->view();
        const tgraph::HloDiff& d = view->result()->diff;
        ChangeListModel* model = view->changeModel();
        const int all = model->rowCount();

        // Layout only.
        const uint32_t layout = tgraph::hloChangeBit(tgraph::HloChangeKind::Layout);
        view->setFilter(layout);
        QCOMPARE(size_t(model->rowCount()), d.byKind[size_t(tgraph::HloChangeKind::Layout)].size());
        QVERIFY(view->filterButton(layout)->isChecked());
        QVERIFY(!view->filterButton(ChangeListModel::kAddedBit)->isChecked());
        // A toggle clicked: added rows join.
        view->filterButton(ChangeListModel::kAddedBit)->click();
        QCOMPARE(size_t(model->rowCount()), d.byKind[size_t(tgraph::HloChangeKind::Layout)].size() + d.added.size());
        for (int r = 0; r < model->rowCount(); ++r)
            QVERIFY(ChangeListModel::bitsOf(model->entry(r)) & (layout | ChangeListModel::kAddedBit));
        // The buttons say how many rows each kind has.
        QVERIFY2(view->filterButton(ChangeListModel::kRemovedBit)->text().contains(QString::number(d.removed.size())),
            qPrintable(view->filterButton(ChangeListModel::kRemovedBit)->text()));
        // Fused kinds are there to filter by.
        QVERIFY(view->filterButton(tgraph::hloChangeBit(tgraph::HloChangeKind::FusedInto)));
        QVERIFY(view->filterButton(tgraph::hloChangeBit(tgraph::HloChangeKind::FusedOutOf)));
        view->setFilter(ChangeListModel::kAllBits);
        QCOMPARE(model->rowCount(), all);

        // Next / previous walk the rows, wrapping; each selects both sides.
        QCOMPARE(view->nextAction()->shortcut(), QKeySequence(Qt::Key_F8));
        QCOMPARE(view->previousAction()->shortcut(), QKeySequence(Qt::SHIFT | Qt::Key_F8));
        QCOMPARE(view->currentChange(), -1);
        view->nextAction()->trigger();
        QCOMPARE(view->currentChange(), 0);
        view->nextAction()->trigger();
        QCOMPARE(view->currentChange(), 1);
        view->previousAction()->trigger();
        QCOMPARE(view->currentChange(), 0);
        view->previousAction()->trigger();
        QCOMPARE(view->currentChange(), all - 1);
        view->nextAction()->trigger();
        QCOMPARE(view->currentChange(), 0);
        for (int r = 0; r < all; ++r) {
            view->selectChange(r);
            const ChangeListModel::Entry& e = model->entry(r);
            if (e.a >= 0)
                QCOMPARE(view->pane(Side::A)->selectedNode(), e.a);
            if (e.b >= 0)
                QCOMPARE(view->pane(Side::B)->selectedNode(), e.b);
        }
        // The shortcut reaches the view when focus is inside it.
        window.show();
        QApplication::setActiveWindow(&window);
        QVERIFY(QTest::qWaitForWindowActive(&window));
        view->changeTable()->setFocus();
        view->selectChange(0);
        QTest::keyClick(view->changeTable(), Qt::Key_F8);
        QCOMPARE(view->currentChange(), 1);
        QTest::keyClick(view->changeTable(), Qt::Key_F8, Qt::ShiftModifier);
        QCOMPARE(view->currentChange(), 0);
    }

    void moduleAgainstItself()
    {
        MainWindow window;
        QVERIFY(openThroughSession(window, m_b, m_b));
        DiffView* view = window.diffPage()->view();
        QVERIFY(view->result()->diff.same());
        QCOMPARE(view->changeModel()->rowCount(), 0);
        QVERIFY(!view->nextAction()->isEnabled());
        QCOMPARE(view->result()->cost.delta(), 0.0);
        QVERIFY2(view->summaryText().startsWith("No change"), qPrintable(view->summaryText()));
    }

    void compressedDumpStage()
    {
        // A gzip stage file, named as XLA names it, read through core/dump's stage reader.
        const QString gz = m_dir.filePath("module_0001.m.before_optimizations.txt.gz");
        gzFile f = gzopen(gz.toLocal8Bit().constData(), "wb");
        QVERIFY(f);
        QCOMPARE(gzwrite(f, kModuleA, unsigned(std::strlen(kModuleA))), int(std::strlen(kModuleA)));
        QCOMPARE(gzclose(f), Z_OK);
        MainWindow window;
        QVERIFY(openThroughSession(window, gz, m_b));
        const DiffView* view = window.diffPage()->view();
        QCOMPARE(view->result()->diff.instructionsA, size_t(5));
        const tgraph::HloDiff& d = view->result()->diff;
        QVERIFY(!d.changed.empty());
        QCOMPARE(size_t(view->changeModel()->rowCount()), d.changed.size() + d.removed.size() + d.added.size());
        QVERIFY(view->syncText().isEmpty());
    }

    void badInputShownInline()
    {
        const QString bad = m_dir.filePath("bad.hlo");
        testutil::writeAll(bad, "HloModule m\n\nENTRY main {\n  p0 = f32[2] parameter(0\n}\n");
        MainWindow window;
        DiffPage* page = window.diffPage();
        QSignalSpy failed(page, &DiffPage::diffFailed);
        window.session()->requestDiff(m_a, bad);
        QVERIFY(failed.wait(kDiffTimeoutMs));
        QVERIFY2(failed.front().front().toString().contains("bad.hlo"), qPrintable(failed.front().front().toString()));
        QVERIFY(!page->isBusy());
        // Shown on the page's banner, naming the file and the place.
        const ErrorBanner* banner = page->findChild<ErrorBanner*>();
        QVERIFY(banner && banner->isVisibleTo(page));
        QVERIFY2(banner->text().contains("bad.hlo") && banner->text().contains("line 5"), qPrintable(banner->text()));
        // Gzip data that are damaged: the stage reader's error, naming the file.
        const QString broken = m_dir.filePath("module_0002.m.before_optimizations.txt.gz");
        testutil::writeAll(broken, QByteArray("\x1f\x8b\x08\x00garbage", 12));
        window.session()->requestDiff(broken, m_b);
        QVERIFY(failed.wait(kDiffTimeoutMs));
        QVERIFY2(
            failed.back().front().toString().contains("module_0002"), qPrintable(failed.back().front().toString()));
    }

    void fitsALaptopScreen()
    {
        MainWindow window;
        window.resize(1366, 768 - 72);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(openThroughSession(window, m_a, m_b));
        DiffView* view = window.diffPage()->view();
        QVERIFY(window.minimumSizeHint().width() <= 1366 && window.minimumSizeHint().height() <= 768 - 72);
        QCOMPARE(window.size(), QSize(1366, 768 - 72));
        QApplication::processEvents();
        // Both canvases, the list and the legend get room.
        for (const Side side : { Side::A, Side::B }) {
            QVERIFY2(view->pane(side)->width() >= 450, qPrintable(QString::number(view->pane(side)->width())));
            QVERIFY2(view->pane(side)->height() >= 250, qPrintable(QString::number(view->pane(side)->height())));
        }
        QVERIFY(view->changeTable()->viewport()->height() >= 100);
        QVERIFY(view->findChild<QWidget*>("diffLegend")->isVisible());
        QVERIFY(view->findChild<QWidget*>("diffLegend")->height() < 60);
    }

    void largeModulesStartCollapsedWithChangesMarked()
    {
        // Two 20 000-instruction modules, one add's layout edited: each side opens on its first
        // view of collapsed groups, and the group holding the edit is coloured as a layout change.
        const QString pathA = graphtest::generatedHlo(QDir(m_dir.path()), "transformer", 20000);
        QString text = QString::fromUtf8(testutil::readAll(pathA));
        const QRegularExpression add(QStringLiteral("^(  %(add\\.\\d+) = f32\\[(\\d+),(\\d+)\\])\\{1,0\\}( add\\()"),
            QRegularExpression::MultilineOption);
        QRegularExpressionMatch edit;
        for (auto it = add.globalMatch(text); it.hasNext();) {
            const QRegularExpressionMatch m = it.next();
            if (m.captured(3) != m.captured(4)) {
                edit = m;
                break;
            }
        }
        QVERIFY(edit.hasMatch());
        text.replace(edit.capturedStart(0), edit.capturedLength(0), edit.captured(1) + "{0,1}" + edit.captured(5));
        const QString pathB = m_dir.filePath("transformer-edited.hlo");
        testutil::writeAll(pathB, text.toUtf8());

        MainWindow window;
        window.resize(1366, 768 - 72);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        // Cancelled at once: nothing shown, the page idle, and it can start again.
        {
            DiffPage* page = window.diffPage();
            QSignalSpy shown(page, &DiffPage::diffShown);
            window.session()->requestDiff(pathA, pathB);
            QVERIFY(page->isBusy());
            // Its progress and Cancel in the main window's status bar.
            QVERIFY(page->progressWidget()->isVisible());
            QVERIFY(window.statusBar()->isAncestorOf(page->progressWidget()));
            page->cancel();
            QVERIFY(!page->progressWidget()->isVisible());
            QVERIFY(!page->isBusy());
            QTest::qWait(300);
            QVERIFY(shown.isEmpty());
            QVERIFY(!page->view()->result());
        }
        graphtest::StallMeter stalls;
        QElapsedTimer clock;
        clock.start();
        QVERIFY(openThroughSession(window, pathA, pathB));
        DiffView* view = window.diffPage()->view();
        QVERIFY(graphtest::waitForLayout(view->pane(Side::A)));
        QVERIFY(graphtest::waitForLayout(view->pane(Side::B)));
        qInfo("2 x %zu instructions: diff shown and both sides laid out in %lld ms; longest GUI stall %lld ms",
            view->result()->diff.instructionsA, qint64(clock.elapsed()), qint64(stalls.longestMs()));
        const tgraph::HloDiff& d = view->result()->diff;
        QCOMPARE(d.changed.size(), size_t(1));
        QCOMPARE(view->changeModel()->rowCount(), 1);
        const int64_t edited = d.pairs[d.changed[0]].b;
        QCOMPARE(nameOf(view->result()->moduleB(), edited), edit.captured(2));
        GraphPane* pane = view->pane(Side::B);
        const ViewLayout* layout = pane->scene()->viewLayout();
        int boxes = 0;
        int markedGroups = 0;
        for (size_t i = 0; i < layout->view.nodes.size(); ++i) {
            const tgraph::ViewNode& v = layout->view.nodes[i];
            boxes += v.kind == tgraph::ViewNode::Kind::Node || v.kind == tgraph::ViewNode::Kind::Group;
            if (v.kind == tgraph::ViewNode::Kind::Group && pane->scene()->itemAt(int(i))
                && pane->scene()->itemAt(int(i))->fill() == DiffColors::changed(tgraph::HloChangeKind::Layout))
                ++markedGroups;
        }
        QVERIFY2(boxes <= GraphPane::kMaxFirstView * 2, qPrintable(QString::number(boxes)));
        QVERIFY(pane->scene()->itemForNode(edited) == nullptr); // inside a collapsed group
        QCOMPARE(markedGroups, 1); // the group around it, and only that one
        // Selecting the change opens the groups around it on both sides.
        view->selectChange(0);
        QVERIFY(graphtest::waitForLayout(view->pane(Side::A)));
        QVERIFY(graphtest::waitForLayout(view->pane(Side::B)));
        QVERIFY(pane->scene()->itemForNode(edited));
        QCOMPARE(pane->selectedNode(), edited);
        QCOMPARE(view->pane(Side::A)->selectedNode(), int64_t(d.pairs[d.changed[0]].a));
    }

    void realBeforeAfterPair()
    {
        const QString data = testutil::sharedDataDir();
        const QString dir = data.isEmpty() ? QString() : data + "/dumps/alpa_gpu_sm70";
        if (dir.isEmpty() || !QFileInfo(dir).isDir())
            QSKIP("the real dump folder (../shared/data/dumps/alpa_gpu_sm70) is absent");
        const QString before = dir + "/module_0082.func_shard_parallel__1.68.before_optimizations.txt";
        const QStringList after
            = QDir(dir).entryList({ "module_0082.func_shard_parallel__1.68.*_after_optimizations.txt" }, QDir::Files);
        if (!QFileInfo::exists(before) || after.isEmpty())
            QSKIP("the module of the screenshot is not in the dump folder");
        MainWindow window;
        window.resize(1366, 768);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(openThroughSession(window, before, dir + "/" + after.front()));
        DiffView* view = window.diffPage()->view();
        const DiffResult& r = *view->result();
        // The view lists what the diff says; the counts add up.
        QCOMPARE(r.diff.matched() + r.diff.removed.size(), r.diff.instructionsA);
        QCOMPARE(r.diff.matched() + r.diff.added.size(), r.diff.instructionsB);
        QCOMPARE(size_t(view->changeModel()->rowCount()),
            r.diff.changed.size() + r.diff.removed.size() + r.diff.added.size());
        QVERIFY(graphtest::waitForLayout(view->pane(Side::A)));
        QVERIFY(graphtest::waitForLayout(view->pane(Side::B)));
        // A change selected: a layout change if there is one (else the first fused into a kernel).
        int shown = 0;
        for (int row = view->changeModel()->rowCount(); row-- > 0;) {
            const uint32_t bits = ChangeListModel::bitsOf(view->changeModel()->entry(row));
            if (bits & tgraph::hloChangeBit(tgraph::HloChangeKind::Layout))
                shown = row;
        }
        const int fused = shown;
        view->selectChange(std::max(fused, 0));
        QVERIFY(graphtest::waitForLayout(view->pane(Side::A)));
        QVERIFY(graphtest::waitForLayout(view->pane(Side::B)));
        QTest::qWait(200);
        const QPixmap shot = window.grab();
        QVERIFY(shot.save(m_dir.filePath("diff.png"), "PNG"));
        if (const QString shots = testutil::env("TGRAPH_SCREENSHOT_DIR"); !shots.isEmpty()) {
            QVERIFY(QDir().mkpath(shots));
            const QImage image
                = shot.toImage().convertToFormat(QImage::Format_Indexed8, Qt::ThresholdDither | Qt::AvoidDither);
            QVERIFY(image.save(QDir(shots).filePath("doc-diff.png"), "PNG"));
        }
    }

private:
    bool openThroughSession(MainWindow& window, const QString& a, const QString& b)
    {
        DiffPage* page = window.diffPage();
        QSignalSpy shown(page, &DiffPage::diffShown);
        QSignalSpy failed(page, &DiffPage::diffFailed);
        window.session()->requestDiff(a, b);
        if (!QTest::qWaitFor([&] { return !shown.isEmpty() || !failed.isEmpty(); }, kDiffTimeoutMs))
            return false;
        if (!failed.isEmpty())
            qWarning("diff failed: %s", qPrintable(failed.front().front().toString()));
        return !shown.isEmpty();
    }

    QTemporaryDir m_dir;
    QString m_a;
    QString m_b;
};

QTEST_MAIN(TestDiffView)
#include "tst_diffview.moc"
