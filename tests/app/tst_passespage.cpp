// SPDX-License-Identifier: Apache-2.0
// The Passes page (docs/studio.md §10) in the real window: a dump folder written by the test (a
// module's stages as a layout pass, a fusion pass, a pass that changed nothing and a clean-up
// would leave them, one stage gzip-compressed, an artifact and a buffer assignment, a module with
// an odd name, a stage that does not parse) opened from the command line's path; the module
// list, the timeline's added / removed / changed against diffHloModules run here, the simulator's
// estimates against LayoutSimulator run here, hiding passes that changed nothing, the diff
// requests, opening stages (the compressed one too) on the Graph page, an artifact as text, the
// history of one instruction against traceInstruction, a folder that grows while open, the
// 1366x768 laptop screen, and the real dump folder when present (label external; its pictures for
// docs/screenshots/passes.png and diff-stages.png).

#include "app/studio/dump/moduletablemodel.h"
#include "app/studio/dump/passtimelinemodel.h"
#include "app/studio/dump/timelinefiller.h"
#include "app/studio/pages/diffpage.h"
#include "app/studio/pages/passespage.h"
#include "app/studio/session/studiosession.h"
#include "app/studio/window/mainwindow.h"

#include "core/diff/hlodiff.h"
#include "core/diff/instructionhistory.h"
#include "core/dump/dumpindex.h"
#include "core/dump/dumpstage.h"
#include "core/hlo/hlotext.h"
#include "core/sim/simulator.h"
#include "passstages.h"
#include "testutil.h"

#include "widgets/common/errorbanner.h"
#include "widgets/common/modebar.h"
#include "widgets/diff/diffview.h"
#include "widgets/graph/graphpane.h"

#include <QAction>
#include <QCheckBox>
#include <QDialog>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeWidget>
#include <QtTest>

#include <zlib.h>

#include <optional>

using namespace tgraph::widgets;
using namespace tgraph::studio;

using tgraph::studio::ModuleTableModel;
using tgraph::studio::PassesPage;
using tgraph::studio::PassTimelineModel;

namespace {

constexpr int kTimeoutMs = 60000;

const char* kBigger = R"(HloModule jit_f

ENTRY main {
  p0 = f32[64,128]{1,0} parameter(0)
  p1 = f32[128,256]{1,0} parameter(1)
  ROOT dot = f32[64,256]{1,0} dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)";

QByteArray gzip(const QByteArray& data)
{
    z_stream z {};
    if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return {};
    QByteArray out(int(deflateBound(&z, uLong(data.size()))) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    z.avail_in = uInt(data.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = uInt(out.size());
    const int rc = deflate(&z, Z_FINISH);
    out.resize(int(z.total_out));
    deflateEnd(&z);
    return rc == Z_STREAM_END ? out : QByteArray();
}

struct Stage
{
    QString file;
    const char* text;
    bool gz = false;
};

// Module 1's HLO stages in pass order.
const Stage kStages[] = {
    { "module_0001.jit_f.before_optimizations.txt", passstages::kStage0 },
    { "module_0001.jit_f.0001.layout.after_layout-assignment.before_fusion.txt", passstages::kStage1 },
    { "module_0001.jit_f.0002.fusion.after_fusion.before_dce.txt.gz", passstages::kStage2, true },
    { "module_0001.jit_f.0003.cleanup.after_dce.before_algsimp.txt", passstages::kStage2 }, // changed nothing
    { "module_0001.jit_f.0004.cleanup.after_algsimp.before_cse.txt", passstages::kStage3 },
    { "module_0001.jit_f.sm_7.0_gpu_after_optimizations.txt", passstages::kStage3 },
};

QString cell(const QAbstractItemModel* model, int row, int column, int role = Qt::DisplayRole)
{
    return model->index(row, column).data(role).toString();
}

} // namespace

class TestPassesPage : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_folder;
    std::vector<tgraph::HloModule> m_modules; // kStages parsed here

    void write(const QString& name, const QByteArray& bytes)
    {
        testutil::writeAll(QDir(m_folder).filePath(name), bytes);
    }

    // Waits until every row of the timeline has its figures.
    static bool waitForFigures(PassesPage* page)
    {
        return QTest::qWaitFor(
            [page] {
                const auto& rows = page->timelineModel()->rows();
                return !rows.empty()
                    && std::all_of(rows.begin(), rows.end(), [](const auto& r) { return r.figures.has_value(); });
            },
            kTimeoutMs);
    }

    static bool selectModuleById(PassesPage* page, int64_t id)
    {
        const tgraph::studio::DumpIndexPtr index = page->moduleModel()->dumpIndex();
        if (!index)
            return false;
        for (const tgraph::DumpModule& m : index->modules)
            if (m.id == id)
                return page->selectModule(ModuleTableModel::moduleKey(m));
        return false;
    }

    // The window at 1366x768, shown and active (for keys and shortcuts).
    static bool showActive(MainWindow& window)
    {
        window.resize(1366, 768);
        window.show();
        if (!QTest::qWaitForWindowExposed(&window))
            return false;
        window.activateWindow();
        return QTest::qWaitForWindowActive(&window);
    }

    // A window with the folder opened as a user would (a folder path given to openFiles).
    static void openFolder(MainWindow& window, const QString& folder)
    {
        window.openFiles({ folder });
        QCOMPARE(window.currentStudioPage(), MainWindow::Page::Passes);
        QTRY_VERIFY_WITH_TIMEOUT(window.passesPage()->moduleModel()->dumpIndex() != nullptr, kTimeoutMs);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QCoreApplication::setOrganizationName(QStringLiteral("TGraphStudioTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_passespage"));
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.filePath(QStringLiteral("settings")));

        m_folder = m_dir.filePath(QStringLiteral("dump"));
        QVERIFY(QDir().mkpath(m_folder));
        for (const Stage& s : kStages) {
            const QByteArray text(s.text);
            write(s.file, s.gz ? gzip(text) : text);
            m_modules.push_back(tgraph::parseHloText(s.text, testutil::str(s.file)));
        }
        QVERIFY(QFileInfo(QDir(m_folder).filePath(kStages[2].file)).size() > 10);
        write("module_0001.jit_f.ir-no-opt.ll", "; ModuleID = 'jit_f'\ndefine void @main() {\n  ret void\n}\n");
        write("module_0001.jit_f.sm_7.0_gpu_after_optimizations-buffer-assignment.txt",
            "BufferAssignment:\nallocation 0\n");
        write("module_0002.other.before_optimizations.txt", kBigger);
        write("module_0002.other.0001.broken.after_x.before_y.txt", "this is not an HLO module\n");
        write(QStringLiteral("module_0003.odd\tname.before_optimizations.txt"), kBigger);
    }

    void init() { QSettings().clear(); }

    void cleanup()
    {
        for (QWidget* w : QApplication::topLevelWidgets())
            if (qobject_cast<QDialog*>(w) && w->isVisible())
                w->close();
    }

    void modulesListed()
    {
        QVERIFY(tgraph::studio::looksLikeDumpFolder(m_folder));
        QVERIFY(!tgraph::studio::looksLikeDumpFolder(m_dir.filePath(QStringLiteral("settings"))));
        MainWindow window;
        openFolder(window, m_folder);
        PassesPage* page = window.passesPage();
        QCOMPARE(page->folder(), QFileInfo(m_folder).absoluteFilePath());
        QVERIFY(window.recentFiles().contains(QFileInfo(m_folder).absoluteFilePath()));

        const tgraph::DumpIndex index = tgraph::indexDumpFolder(testutil::str(m_folder));
        const QAbstractItemModel* modules = page->moduleProxy();
        QCOMPARE(modules->rowCount(), int(index.modules.size()));
        QCOMPARE(modules->rowCount(), 3);
        QStringList names;
        for (int row = 0; row < modules->rowCount(); ++row)
            names << cell(modules, row, ModuleTableModel::NameColumn);
        QCOMPARE(names, (QStringList { "jit_f", "other", "odd\\tname" })); // the tab escaped
        QCOMPARE(cell(modules, 0, ModuleTableModel::StagesColumn), QString::number(std::size(kStages)));
        QCOMPARE(cell(modules, 0, ModuleTableModel::BackendColumn), QStringLiteral("sm_7.0_gpu"));

        // Sorted by stage count, then filtered by name.
        page->moduleView()->sortByColumn(ModuleTableModel::StagesColumn, Qt::DescendingOrder);
        QCOMPARE(cell(modules, 0, ModuleTableModel::NameColumn), QStringLiteral("jit_f"));
        page->moduleView()->sortByColumn(ModuleTableModel::StagesColumn, Qt::AscendingOrder);
        QCOMPARE(cell(modules, 2, ModuleTableModel::NameColumn), QStringLiteral("jit_f"));
        page->moduleFilter()->setText(QStringLiteral("OTH"));
        QCOMPARE(modules->rowCount(), 1);
        QCOMPARE(cell(modules, 0, ModuleTableModel::NameColumn), QStringLiteral("other"));
        page->moduleFilter()->clear();
        QCOMPARE(modules->rowCount(), 3);

        // The module's other files are listed.
        QVERIFY(selectModuleById(page, 1));
        QStringList artifacts;
        for (int i = 0; i < page->artifactList()->count(); ++i)
            artifacts << page->artifactList()->item(i)->text();
        QVERIFY2(artifacts.contains(QStringLiteral("module_0001.jit_f.ir-no-opt.ll")), qPrintable(artifacts.join(' ')));
        QVERIFY(artifacts.contains(
            QStringLiteral("module_0001.jit_f.sm_7.0_gpu_after_optimizations-buffer-assignment.txt")));
    }

    // Ctrl+5 and the mode bar's Passes show the page; File > Open Dump Folder… is Ctrl+Shift+D; no
    // shortcut of the window is taken twice.
    void shortcutsAndModeBar()
    {
        MainWindow window;
        QVERIFY(showActive(window));
        QCOMPARE(window.pageAction(MainWindow::Page::Passes)->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_5));
        QTest::keyClick(&window, Qt::Key_5, Qt::ControlModifier);
        QCOMPARE(window.currentStudioPage(), MainWindow::Page::Passes);
        QCOMPARE(window.pages()->currentWidget(), static_cast<QWidget*>(window.passesPage()));
        window.modeBar()->button(int(MainWindow::Page::Graph))->click();
        QCOMPARE(window.currentStudioPage(), MainWindow::Page::Graph);
        window.modeBar()->button(int(MainWindow::Page::Passes))->click();
        QCOMPARE(window.currentStudioPage(), MainWindow::Page::Passes);
        auto* open = window.findChild<QAction*>(QStringLiteral("openDumpFolderAction"));
        QVERIFY(open);
        QCOMPARE(open->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D));
        QMap<QString, QString> taken;
        for (QAction* a : window.findChildren<QAction*>())
            for (const QKeySequence& k : a->shortcuts()) {
                const QString key = k.toString();
                QVERIFY2(!taken.contains(key) || taken[key] == a->text(),
                    qPrintable(key + ": " + taken.value(key) + " and " + a->text()));
                taken[key] = a->text();
            }
    }

    void timelineFigures()
    {
        MainWindow window;
        openFolder(window, m_folder);
        PassesPage* page = window.passesPage();
        QVERIFY(selectModuleById(page, 1));
        PassTimelineModel* timeline = page->timelineModel();
        QCOMPARE(timeline->rowCount(), int(std::size(kStages)));
        QVERIFY(waitForFigures(page));
        for (int row = 0; row < timeline->rowCount(); ++row) {
            QVERIFY(timeline->stagePath(row).endsWith(kStages[row].file));
            const tgraph::DumpStageCounts counts = tgraph::countHloModule(m_modules[size_t(row)]);
            QCOMPARE(cell(timeline, row, PassTimelineModel::InstructionsColumn), QString::number(counts.instructions));
            QCOMPARE(cell(timeline, row, PassTimelineModel::FusionsColumn), QString::number(counts.fusions));
            const tgraph::LayoutSimulator simulator(m_modules[size_t(row)], {});
            const float none = 0;
            QCOMPARE(timeline->rows()[size_t(row)].figures->estimatedNs.value_or(-1), simulator.runtime(&none));
            if (row == 0) {
                QVERIFY(!timeline->index(0, 0).data(PassTimelineModel::AddedRole).isValid());
                continue;
            }
            const tgraph::HloDiff d = tgraph::diffHloModules(m_modules[size_t(row - 1)], m_modules[size_t(row)]);
            QCOMPARE(timeline->index(row, 0).data(PassTimelineModel::AddedRole).toULongLong(), d.added.size());
            QCOMPARE(timeline->index(row, 0).data(PassTimelineModel::RemovedRole).toULongLong(), d.removed.size());
            QCOMPARE(timeline->index(row, 0).data(PassTimelineModel::ChangedRole).toULongLong(), d.changed.size());
            QCOMPARE(cell(timeline, row, PassTimelineModel::AddedColumn), QString::number(d.added.size()));
            QCOMPARE(timeline->index(row, 0).data(PassTimelineModel::DidSomethingRole).toBool(), !d.same());
        }
        // The fusion pass added the fusion, the layout pass changed a layout, the dce pass nothing.
        QVERIFY(timeline->rows()[2].figures->added.value() > 0);
        QVERIFY(timeline->rows()[1].figures->changed.value() > 0);
        QVERIFY(!timeline->rows()[3].figures->didSomething());
        QVERIFY(timeline->rows()[4].figures->removed.value() > 0);

        // Hiding passes that changed nothing hides the dce pass and the copy after_optimizations is.
        size_t unchanged = 0;
        for (const auto& r : timeline->rows())
            unchanged += !r.figures->didSomething();
        QCOMPARE(unchanged, size_t(2));
        page->hideUnchangedBox()->setChecked(true);
        QCOMPARE(page->timelineView()->model()->rowCount(), timeline->rowCount() - 2);
        page->hideUnchangedBox()->setChecked(false);
        QCOMPARE(page->timelineView()->model()->rowCount(), timeline->rowCount());

        // A module whose second stage does not parse: the reason, no crash, no estimate.
        QVERIFY(selectModuleById(page, 2));
        QVERIFY(waitForFigures(page));
        QCOMPARE(timeline->rowCount(), 2);
        const tgraph::studio::StageFigures& broken = *timeline->rows()[1].figures;
        QVERIFY(!broken.counts);
        QVERIFY(broken.readError.contains(QStringLiteral("module_0002.other.0001.broken.after_x.before_y.txt")));
        QCOMPARE(cell(timeline, 1, PassTimelineModel::EstimateColumn), QStringLiteral("–"));
        QVERIFY(cell(timeline, 1, PassTimelineModel::EstimateColumn, Qt::ToolTipRole).contains(broken.readError));
        QVERIFY(timeline->rows()[0].figures->estimatedNs.has_value());

        // Back to module 1: its figures come from the cache, at once.
        const size_t cached = page->filler()->cachedCount();
        QVERIFY(selectModuleById(page, 1));
        QVERIFY(waitForFigures(page));
        QCOMPARE(page->filler()->cachedCount(), cached);
    }

    void diffRequests()
    {
        MainWindow window;
        openFolder(window, m_folder);
        PassesPage* page = window.passesPage();
        QVERIFY(selectModuleById(page, 1));
        QSignalSpy spy(window.session(), &tgraph::studio::StudioSession::diffRequested);
        page->selectStage(0);
        page->diffWithPrevious(); // none before the first stage
        QCOMPARE(spy.count(), 0);
        page->selectStage(2);
        QCOMPARE(page->currentStage(), 2);
        QTest::mouseClick(page->findChild<QPushButton*>(QStringLiteral("diffPreviousButton")), Qt::LeftButton);
        QCOMPARE(spy.count(), 1);
        const QString folder = QFileInfo(m_folder).absoluteFilePath() + QLatin1Char('/');
        QCOMPARE(spy.at(0).at(0).toString(), folder + kStages[1].file);
        QCOMPARE(spy.at(0).at(1).toString(), folder + kStages[2].file);
        page->diffWith(5); // a later stage: this one is A
        QCOMPARE(spy.count(), 2);
        QCOMPARE(spy.at(1).at(0).toString(), folder + kStages[2].file);
        QCOMPARE(spy.at(1).at(1).toString(), folder + kStages[5].file);
        page->diffWith(2); // itself: nothing
        QCOMPARE(spy.count(), 2);
    }

    // The Diff page opened from the timeline names the module and both stages, steps the pair
    // along the module's stages (buttons and Alt+Up / Alt+Down, disabled at the ends), returns to
    // the timeline with B's stage selected and offers the history of a selected instruction.
    void diffPageSteppedAlongTheTimeline()
    {
        MainWindow window;
        QVERIFY(showActive(window));
        openFolder(window, m_folder);
        PassesPage* page = window.passesPage();
        QVERIFY(selectModuleById(page, 1));
        tgraph::studio::DiffPage* diff = window.diffPage();
        QSignalSpy shown(diff, &tgraph::studio::DiffPage::diffShown);
        const PassTimelineModel* timeline = page->timelineModel();
        const int n = timeline->rowCount();
        QCOMPARE(n, int(std::size(kStages)));

        // The names of the instructions a side shows, against the stage parsed here.
        const auto names = [](const tgraph::HloModule& m) {
            QStringList out;
            for (const tgraph::HloInstruction& i : m.instructions)
                out << QString::fromUtf8(i.name.data(), qsizetype(i.name.size()));
            return out;
        };
        const auto expectPair = [&](int a, int b) {
            QVERIFY(shown.wait(kTimeoutMs));
            QCOMPARE(window.currentStudioPage(), MainWindow::Page::Diff);
            QCOMPARE(diff->stagePair().a, a);
            QCOMPARE(diff->stagePair().b, b);
            QCOMPARE(diff->pathA(), timeline->stagePath(a));
            QCOMPARE(diff->pathB(), timeline->stagePath(b));
            const DiffResultPtr& result = diff->view()->result();
            QVERIFY(result);
            QCOMPARE(names(result->moduleA()), names(m_modules[size_t(a)]));
            QCOMPARE(names(result->moduleB()), names(m_modules[size_t(b)]));
            const QString text = diff->stageText();
            QVERIFY2(text.contains(QStringLiteral("A: ") + timeline->stageLabel(a)), qPrintable(text));
            QVERIFY2(text.contains(QStringLiteral("B: ") + timeline->stageLabel(b)), qPrintable(text));
            QVERIFY2(text.contains(QStringLiteral("jit_f")), qPrintable(text));
            QCOMPARE(diff->previousPassAction()->isEnabled(), a > 0 && b > 0);
            QCOMPARE(diff->nextPassAction()->isEnabled(), a + 1 < n && b + 1 < n);
            QVERIFY(diff->findChild<QWidget*>(QStringLiteral("stageBar"))->isVisible());
        };

        page->selectStage(2);
        page->diffWithPrevious();
        expectPair(1, 2);
        diff->nextPassAction()->trigger();
        expectPair(2, 3);
        // The keys, with the focus on the page's view.
        QCOMPARE(diff->nextPassAction()->shortcut(), QKeySequence(Qt::ALT | Qt::Key_Down));
        diff->view()->setFocus();
        QTest::keyClick(diff->view(), Qt::Key_Down, Qt::AltModifier);
        expectPair(3, 4);
        QTest::keyClick(diff->view(), Qt::Key_Up, Qt::AltModifier);
        expectPair(2, 3);
        diff->previousPassAction()->trigger();
        expectPair(1, 2);
        diff->previousPassAction()->trigger();
        expectPair(0, 1);
        QVERIFY(!diff->previousPassAction()->isEnabled()); // the first pair
        diff->stepPass(-1);
        QVERIFY(!shown.wait(300));
        QCOMPARE(diff->stagePair().a, 0);

        // Show in Timeline: B's stage selected, also when it is a pass that changed nothing and
        // those are hidden.
        for (int i = 0; i < 2; ++i) {
            diff->nextPassAction()->trigger();
            expectPair(i + 1, i + 2);
        }
        QVERIFY(waitForFigures(page));
        page->hideUnchangedBox()->setChecked(true);
        page->selectStage(0);
        diff->findChild<QAction*>(QStringLiteral("showInTimelineAction"))->trigger();
        QCOMPARE(window.currentStudioPage(), MainWindow::Page::Passes);
        QCOMPARE(page->currentStage(), 3);
        QVERIFY(!page->hideUnchangedBox()->isChecked());

        // Diff with… a later stage: the pair keeps its distance; no step past the last stage.
        page->diffWith(5);
        expectPair(3, 5);
        QVERIFY(!diff->nextPassAction()->isEnabled());
        diff->previousPassAction()->trigger();
        expectPair(2, 4);

        // History across Passes of the instruction selected in B.
        QAction* history = diff->findChild<QAction*>(QStringLiteral("diffHistoryAction"));
        QVERIFY(history);
        diff->view()->pane(DiffView::Side::B)->selectNode(-1, false);
        diff->view()->pane(DiffView::Side::A)->selectNode(-1, false);
        QVERIFY(history->isEnabled());
        QVERIFY(!diff->showHistoryOfSelection()); // nothing selected
        int64_t node = -1;
        const tgraph::HloModule& b = diff->view()->result()->moduleB();
        for (size_t i = 0; i < b.instructions.size(); ++i)
            if (b.instructions[i].name == "multiply.1")
                node = int64_t(i);
        QVERIFY(node >= 0);
        diff->view()->selectInstruction(DiffView::Side::B, node);
        QCOMPARE(diff->view()->pane(DiffView::Side::B)->selectedNode(), node);
        QSignalSpy traced(page, &PassesPage::historyShown);
        history->trigger();
        QVERIFY(traced.wait(kTimeoutMs));
        QCOMPARE(window.currentStudioPage(), MainWindow::Page::Passes);
        QCOMPARE(page->currentStage(), 4);
        QVERIFY(page->historySummary()->text().contains(QStringLiteral("multiply.1")));

        // Two files compared otherwise: no stages named, nothing to step.
        window.session()->requestDiff(timeline->stagePath(0), timeline->stagePath(5));
        QVERIFY(shown.wait(kTimeoutMs));
        QVERIFY(!diff->stagePair().isValid());
        QVERIFY(!diff->findChild<QWidget*>(QStringLiteral("stageBar"))->isVisible());
        QVERIFY(!diff->nextPassAction()->isEnabled() && !diff->previousPassAction()->isEnabled());
        QVERIFY(history->isEnabled()); // both files are still stages of the open folder
    }

    void stagesOpenOnTheGraphPage()
    {
        MainWindow window;
        openFolder(window, m_folder);
        PassesPage* page = window.passesPage();
        QVERIFY(selectModuleById(page, 1));
        page->openStage(1); // plain text
        QTRY_COMPARE_WITH_TIMEOUT(window.tabWidget()->count(), 1, kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), kTimeoutMs);
        QCOMPARE(window.currentStudioPage(), MainWindow::Page::Graph);
        page->openStage(2); // gzip: through a decompressed copy
        QTRY_COMPARE_WITH_TIMEOUT(window.tabWidget()->count(), 2, kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), kTimeoutMs);
        QVERIFY(window.errorBanner()->isHidden());
        const auto docs = window.documents();
        QCOMPARE(docs.size(), size_t(2));
        // Both are stages of the open folder to the Graph page (its node menu offers their
        // history), the copy too; the copy's history is the original stage's.
        QVERIFY(window.session()->isDumpStage(QString::fromStdString(docs[0]->path)));
        QVERIFY(window.session()->isDumpStage(QString::fromStdString(docs[1]->path)));
        QVERIFY(!QString::fromStdString(docs[1]->path).endsWith(QStringLiteral(".gz")));
        QVERIFY(!window.session()->isDumpStage(QDir(m_folder).filePath("module_0001.jit_f.ir-no-opt.ll")));
        QSignalSpy shown(page, &PassesPage::historyShown);
        window.session()->requestHistory(QString::fromStdString(docs[1]->path), QStringLiteral("fusion"));
        QVERIFY(shown.wait(kTimeoutMs));
        QCOMPARE(page->currentStage(), 2);
        QCOMPARE(page->historyView()->topLevelItem(0)->text(1), QStringLiteral("created"));
        // The copy holds the fusion stage: its module has the fused computation.
        const tgraph::DumpStageCounts counts = tgraph::countHloModule(m_modules[2]);
        QVERIFY(docs[1]->module);
        QCOMPARE(int64_t(docs[1]->module->instructions.size()), counts.instructions);
    }

    void artifactAsText()
    {
        MainWindow window;
        openFolder(window, m_folder);
        PassesPage* page = window.passesPage();
        QVERIFY(selectModuleById(page, 1));
        QListWidget* list = page->artifactList();
        int row = -1;
        for (int i = 0; i < list->count(); ++i)
            if (list->item(i)->text().endsWith(QStringLiteral(".ll")))
                row = i;
        QVERIFY(row >= 0);
        QSignalSpy spy(page, &PassesPage::textShown);
        list->setCurrentRow(row);
        QTest::mouseClick(page->findChild<QPushButton*>(QStringLiteral("openArtifactButton")), Qt::LeftButton);
        QVERIFY(spy.wait(kTimeoutMs));
        auto* text = page->findChild<QPlainTextEdit*>(QStringLiteral("artifactText"));
        QVERIFY(text);
        QCOMPARE(
            text->toPlainText().toUtf8(), testutil::readAll(QDir(m_folder).filePath("module_0001.jit_f.ir-no-opt.ll")));
    }

    void historyOfAnInstruction()
    {
        MainWindow window;
        openFolder(window, m_folder);
        PassesPage* page = window.passesPage();
        QVERIFY(selectModuleById(page, 1));
        std::vector<const tgraph::HloModule*> stages;
        for (const tgraph::HloModule& m : m_modules)
            stages.push_back(&m);
        const std::vector<tgraph::HloDiff> diffs = tgraph::diffNeighbourStages(stages);

        // Picked in the last stage under its fused name.
        page->selectStage(5);
        QSignalSpy shown(page, &PassesPage::historyShown);
        page->traceHistory(QStringLiteral("multiply.1"));
        QVERIFY(shown.wait(kTimeoutMs));
        const tgraph::InstructionHistory expected = tgraph::traceInstruction(stages, diffs, 5, "multiply.1");
        QTreeWidget* view = page->historyView();
        QCOMPARE(view->topLevelItemCount(), int(expected.events.size()));
        for (int i = 0; i < view->topLevelItemCount(); ++i) {
            QCOMPARE(view->topLevelItem(i)->data(0, Qt::UserRole).toULongLong(), expected.events[size_t(i)].stage);
            // The change kinds are named where the pass changed it, and only there.
            QCOMPARE(view->topLevelItem(i)->text(3).isEmpty(), expected.events[size_t(i)].kinds == 0);
            if (expected.events[size_t(i)].has(tgraph::HloChangeKind::Layout))
                QVERIFY(view->topLevelItem(i)->text(3).contains(QStringLiteral("layout")));
        }
        QCOMPARE(view->topLevelItem(int(expected.events.size()) - 1)->text(1), QStringLiteral("fused"));
        QVERIFY(page->historySummary()->text().contains(QStringLiteral("multiply.1")));

        // Asked through the session (the Graph page's context menu does so): the stage file and a name.
        window.showPage(MainWindow::Page::Graph);
        window.session()->requestHistory(page->timelineModel()->stagePath(0), QStringLiteral("neg"));
        QVERIFY(shown.wait(kTimeoutMs));
        QCOMPARE(window.currentStudioPage(), MainWindow::Page::Passes);
        QCOMPARE(page->currentStage(), 0);
        const tgraph::InstructionHistory neg = tgraph::traceInstruction(stages, diffs, 0, "neg");
        QCOMPARE(view->topLevelItemCount(), int(neg.events.size()));
        QCOMPARE(view->topLevelItem(view->topLevelItemCount() - 1)->text(1), QStringLiteral("removed"));
        QVERIFY(page->historySummary()->text().contains(QStringLiteral("removed by")));

        // A name the stage does not have: said, not thrown.
        page->traceHistory(QStringLiteral("no_such_instruction"));
        QVERIFY(shown.wait(kTimeoutMs));
        QVERIFY(page->historySummary()->text().contains(QStringLiteral("no_such_instruction")));
        QCOMPARE(view->topLevelItemCount(), 0);
    }

    void folderGrowsWhileOpen()
    {
        const QString folder = m_dir.filePath(QStringLiteral("growing"));
        QVERIFY(QDir().mkpath(folder));
        for (int i = 0; i < 3; ++i)
            testutil::writeAll(QDir(folder).filePath(kStages[i].file),
                kStages[i].gz ? gzip(kStages[i].text) : QByteArray(kStages[i].text));
        MainWindow window;
        window.passesPage()->follower()->setPollInterval(100);
        openFolder(window, folder);
        PassesPage* page = window.passesPage();
        QVERIFY(selectModuleById(page, 1));
        QCOMPARE(page->timelineModel()->rowCount(), 3);
        QVERIFY(waitForFigures(page));
        page->selectStage(1);
        const QString key = page->currentModuleKey();

        // The program dumps the next passes, and another module.
        for (int i = 3; i < 5; ++i)
            testutil::writeAll(QDir(folder).filePath(kStages[i].file), QByteArray(kStages[i].text));
        QTRY_COMPARE_WITH_TIMEOUT(page->timelineModel()->rowCount(), 5, kTimeoutMs);
        QCOMPARE(page->currentModuleKey(), key);
        QCOMPARE(page->currentStage(), 1);
        QVERIFY(waitForFigures(page));
        const tgraph::HloDiff d = tgraph::diffHloModules(m_modules[3], m_modules[4]);
        QCOMPARE(page->timelineModel()->rows()[4].figures->removed.value(), d.removed.size());

        testutil::writeAll(QDir(folder).filePath("module_0007.later.before_optimizations.txt"), kBigger);
        QTRY_COMPARE_WITH_TIMEOUT(page->moduleModel()->rowCount(), 2, kTimeoutMs);
        QCOMPARE(page->currentModuleKey(), key);
        QCOMPARE(page->currentStage(), 1);
        // A stage in the middle of the order (after_optimizations sorts last, this one before it).
        testutil::writeAll(QDir(folder).filePath(kStages[5].file), QByteArray(kStages[5].text));
        QTRY_COMPARE_WITH_TIMEOUT(page->timelineModel()->rowCount(), 6, kTimeoutMs);
        QCOMPARE(page->currentStage(), 1);
    }

    void fitsALaptopScreen()
    {
        MainWindow window;
        window.resize(1366, 768);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        openFolder(window, m_folder);
        PassesPage* page = window.passesPage();
        QVERIFY(selectModuleById(page, 1));
        QVERIFY(waitForFigures(page));
        page->traceHistory(QStringLiteral("mul"));
        QTRY_VERIFY_WITH_TIMEOUT(page->historyView()->topLevelItemCount() > 0, kTimeoutMs);
        QTest::qWait(50);
        const QSize min = window.minimumSizeHint().expandedTo(window.minimumSize());
        QVERIFY2(min.width() <= 1280 && min.height() <= 720,
            qPrintable(QStringLiteral("%1x%2").arg(min.width()).arg(min.height())));
        QCOMPARE(window.size(), QSize(1366, 768));
        // The timeline takes most of the page.
        QVERIFY2(page->timelineView()->height() > page->height() / 2,
            qPrintable(QString::number(page->timelineView()->height())));
        QVERIFY(page->timelineView()->width() > page->width() * 2 / 3);
    }

    void realDumpFolder()
    {
        const QString data = testutil::sharedDataDir();
        const QString folder = data + QStringLiteral("/dumps/alpa_gpu_sm70");
        if (data.isEmpty() || !QFileInfo(folder).isDir())
            QSKIP("the real dump folder is absent");
        const tgraph::DumpIndex index = tgraph::indexDumpFolder(testutil::str(folder));
        MainWindow window;
        window.resize(1366, 768);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        // Opened through a link in the test's folder, as a user's link to a shared folder (and the
        // picture names no path of the machine it was drawn on).
        const QString link = m_dir.filePath(QStringLiteral("alpa_gpu_sm70"));
        QFile::remove(link);
        QVERIFY(QFile::link(folder, link));
        QElapsedTimer clock;
        clock.start();
        openFolder(window, link);
        const qint64 listedMs = clock.elapsed();
        PassesPage* page = window.passesPage();
        QCOMPARE(page->moduleModel()->rowCount(), int(index.modules.size()));
        // The module with most stages.
        const auto most = std::max_element(index.modules.begin(), index.modules.end(),
            [](const tgraph::DumpModule& a, const tgraph::DumpModule& b) { return a.stages.size() < b.stages.size(); });
        clock.restart();
        QVERIFY(selectModuleById(page, most->id));
        const PassTimelineModel* timeline = page->timelineModel();
        QVERIFY(timeline->rowCount() > 10);
        QVERIFY(waitForFigures(page));
        // Figures printed for docs/studio.md §10, not asserted (speed is checked by benchmarks).
        qInfo("%zu files listed in %lld ms; the %d stages of module %lld figured in %lld ms", index.files.size(),
            listedMs, timeline->rowCount(), qlonglong(most->id), clock.elapsed());
        size_t did = 0;
        std::optional<tgraph::HloModule> previous;
        for (int row = 0; row < timeline->rowCount(); ++row) {
            const auto& r = timeline->rows()[size_t(row)];
            QVERIFY2(r.figures->readError.isEmpty(), qPrintable(r.figures->readError));
            tgraph::HloModule module = tgraph::openDumpStage(index, r.stage);
            QCOMPARE(r.figures->counts->instructions, tgraph::countHloModule(module).instructions);
            if (previous) {
                const tgraph::HloDiff d = tgraph::diffHloModules(*previous, module);
                QCOMPARE(r.figures->added.value(), d.added.size());
                QCOMPARE(r.figures->removed.value(), d.removed.size());
                QCOMPARE(r.figures->changed.value(), d.changed.size());
                did += !d.same();
            }
            previous = std::move(module);
        }
        qInfo("module %lld: %d stages, %zu passes changed something", qlonglong(most->id), timeline->rowCount(), did);
        QVERIFY(did > 0 && did < size_t(timeline->rowCount()));
        page->hideUnchangedBox()->setChecked(true);
        QVERIFY(page->timelineView()->model()->rowCount() < timeline->rowCount());
        page->hideUnchangedBox()->setChecked(false);

        // The picture of docs/screenshots/passes.png: a stage selected and one instruction's history.
        page->selectStage(timeline->rowCount() - 1);
        QTRY_VERIFY_WITH_TIMEOUT(!page->isTracing(), kTimeoutMs);
        QString name;
        {
            const tgraph::HloModule last = tgraph::openDumpStage(index, timeline->rows().back().stage);
            for (const tgraph::HloInstruction& i : last.instructions)
                if (i.opcode == "fusion") {
                    name = QString::fromUtf8(i.name.data(), qsizetype(i.name.size()));
                    break;
                }
        }
        if (!name.isEmpty()) {
            QSignalSpy shown(page, &PassesPage::historyShown);
            page->traceHistory(name);
            QVERIFY(shown.wait(kTimeoutMs));
        }
        QTest::qWait(100);
        const QSize min = window.minimumSizeHint().expandedTo(window.minimumSize());
        QVERIFY(min.width() <= 1280 && min.height() <= 720);
        const QPixmap pixmap = window.grab();
        QVERIFY(!pixmap.isNull());
        if (const QString shots = testutil::env("TGRAPH_SCREENSHOT_DIR"); !shots.isEmpty()) {
            QVERIFY(QDir().mkpath(shots));
            QVERIFY(pixmap.toImage()
                        .convertToFormat(QImage::Format_Indexed8, Qt::ThresholdDither | Qt::AvoidDither)
                        .save(QDir(shots).filePath(QStringLiteral("doc-passes.png")), "PNG"));
        }

        // The first pass that changed something, diffed with the stage before from the timeline:
        // the Diff page names both stages and returns to that row.
        int changed = -1;
        for (int i = 1; i < timeline->rowCount() && changed < 0; ++i) {
            const auto& f = *timeline->rows()[size_t(i)].figures;
            if (f.added.value_or(0) + f.removed.value_or(0) + f.changed.value_or(0) > 0)
                changed = i;
        }
        QVERIFY(changed > 0);
        tgraph::studio::DiffPage* diff = window.diffPage();
        QSignalSpy diffShown(diff, &tgraph::studio::DiffPage::diffShown);
        page->selectStage(changed);
        page->diffWithPrevious();
        QVERIFY(diffShown.wait(kTimeoutMs));
        QCOMPARE(diff->stagePair().a, changed - 1);
        QCOMPARE(diff->stagePair().b, changed);
        QVERIFY(diff->stageText().contains(timeline->stageLabel(changed)));
        for (const DiffView::Side side : { DiffView::Side::A, DiffView::Side::B })
            QTRY_VERIFY_WITH_TIMEOUT(!diff->view()->pane(side)->isLayoutPending(), kTimeoutMs);
        QTest::qWait(100);
        if (const QString shots = testutil::env("TGRAPH_SCREENSHOT_DIR"); !shots.isEmpty())
            QVERIFY(window.grab()
                        .toImage()
                        .convertToFormat(QImage::Format_Indexed8, Qt::ThresholdDither | Qt::AvoidDither)
                        .save(QDir(shots).filePath(QStringLiteral("doc-diff-stages.png")), "PNG"));
        page->selectStage(0);
        diff->showInTimeline();
        QCOMPARE(window.currentStudioPage(), MainWindow::Page::Passes);
        QCOMPARE(page->currentStage(), changed);
    }
};

QTEST_MAIN(TestPassesPage)
#include "tst_passespage.moc"
