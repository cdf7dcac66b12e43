// SPDX-License-Identifier: Apache-2.0
// The studio window under the offscreen platform: about box versions, background loading into
// tabs, inline errors for corrupt files, cancel, recent files, geometry, drag and drop, screenshot;
// the window's docks, actions and graph views (a 40 000-instruction module, project files, real
// files) and the studio's offscreen renderer of graph views.

#include "app/studio/analysis/inferencepanel.h"
#include "app/studio/analysis/tunepanel.h"
#include "app/studio/analysis/explainpanel.h"
#include "app/studio/runs/trainingmonitor.h"
#include "widgets/runs/runcomparisonwindow.h"
#include "widgets/runs/runtablemodel.h"
#include "app/studio/window/aboutdialog.h"
#include "app/studio/render/headlessrender.h"
#include "app/studio/window/mainwindow.h"
#include "app/studio/pages/analysispage.h"
#include "widgets/common/modebar.h"
#include "core/graph/graphio.h"
#include "core/synth/hlogen.h"
#include "core/hlo/hloproto.h"
#include "core/hlo/hlotext.h"
#include "core/graph/opcodes.h"
#include "core/synth/synthetic.h"
#include "core/io/npz.h"
#include "core/store/sqlitedb.h"
#include "core/store/project.h"
#include "core/util/version.h"
#include "core/view/graphdocument.h"
#include "core/view/graphlayout.h"
#include "core/view/nodesearch.h"
#include "model/runtime/torchruntime.h"
#include "graphtestutil.h"
#include "testutil.h"
#include "widgets/graph/arraytablemodel.h"
#include "widgets/analysis/rankscatterdata.h"
#include "widgets/analysis/rankscatterview.h"
#include "widgets/common/axispolicy.h"
#include "widgets/common/errorbanner.h"
#include "widgets/graph/graphpage.h"
#include "widgets/graph/graphpane.h"
#include "widgets/graph/graphscene.h"
#include "widgets/graph/graphview.h"
#include "widgets/graph/graphsummaryview.h"
#include "widgets/graph/nodeinspector.h"
#include "widgets/graph/opcodepalette.h"
#include "widgets/graph/opcodetablemodel.h"

#include <QAbstractButton>
#include <QChart>
#include <QLegend>
#include <QTextDocument>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDialog>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMimeData>
#include <QRegularExpression>
#include <QScreen>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QThread>
#include <QToolButton>
#include <QTreeWidget>
#include <QUrl>
#include <QDirIterator>
#include <QSignalSpy>
#include <QtTest>

#include <functional>
#include <set>

using namespace tgraph::widgets;
using namespace tgraph::studio;

using Field = GraphSummaryView::Field;

namespace {
constexpr int kLoadTimeoutMs = 30000;
}

using graphtest::kLayoutTimeoutMs;
using graphtest::near;
using graphtest::StallMeter;
using graphtest::waitForLayout;

class TestStudio : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void aboutDialogListsVersions();
    void openAddsSummaryTab();
    void opensHloModulesAndTuningRecords();
    void opensProtobufModulesAndTileGraphs();
    void opensSplitTextFilesAsTabs();
    void corruptFileShowsBanner();
    void cancelDropsTheLoad();
    void recentFilesRememberOpenedFiles();
    void geometryIsRestored();
    void tunePageFitsSmallScreens();
    void analysisPagesAreReadable();
    void pageShortcutsShowPages();
    void tuneReusesTheInferenceModel();
    void dropOpensFiles();
    void screenshot();
    void windowFitsLaptopScreens();
    void splitViewFitsBothPanes();
    void npzOpensOnAnOverview();
    void populatedPagesFitLaptopScreens();
    // The main window and the studio's renderer with graph views (from tst_graphwidgets, which
    // links no model).
    void mainWindowWiresPagesAndActions();
    void mainWindowOpensLargeModules();
    void projectFilesListTheirRuns();
    void renderDrawsConfigurableNodes();
    void renderRejectsBadRequests();
    void realFilesScreenshots();

private:
    QString copyOfGraph(const QString& name) const;
    QString generatedFile(const std::string& family, int64_t size); // written once
    static bool waitForLoads(MainWindow& window);
    static bool anyDialogVisible();
    void saveScreenshot(QWidget& window, const QString& name);
    QString longNamesModule(); // a generated module named like a TensorFlow XLA cluster

    QTemporaryDir m_dir;
    QString m_graphPath;
    int64_t m_nodes = 0;
    int64_t m_configs = 0;
    int64_t m_configurable = 0;
    int m_convolutionLike = 0; // distinct opcodes whose name contains "conv"
    int m_distinctOpcodes = 0;
};

void TestStudio::initTestCase()
{
    QVERIFY(m_dir.isValid());
    // Keep the user's settings out of it: our own organization, INI files under the temp dir.
    QCoreApplication::setOrganizationName(QStringLiteral("TGraphStudioTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_studio"));
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.filePath(QStringLiteral("settings")));
    QVERIFY2(QSettings().fileName().startsWith(m_dir.path()), qPrintable(QSettings().fileName()));

    tgraph::SyntheticLayoutSpec spec;
    spec.nodes = 1234;
    spec.configurableNodes = 17;
    spec.configs = 57;
    spec.seed = 11;
    const tgraph::LayoutGraph graph = tgraph::makeSyntheticLayoutGraph(spec);
    m_nodes = graph.nodeCount();
    m_configs = graph.configCount();
    std::set<int64_t> opcodes(graph.nodeOpcode.values().begin(), graph.nodeOpcode.values().end());
    m_distinctOpcodes = int(opcodes.size());
    m_configurable = graph.configurableCount();
    for (const int64_t id : opcodes)
        m_convolutionLike += QString::fromStdString(tgraph::opcodeName(int(id))).contains(QStringLiteral("conv"));
    QVERIFY(m_nodes > 0 && m_configs > 0 && m_distinctOpcodes > 1);

    m_graphPath = m_dir.filePath(QStringLiteral("synthetic.npz"));
    tgraph::saveLayoutGraph(graph, testutil::str(m_graphPath));
    QVERIFY(QFileInfo(m_graphPath).size() > 100);
}

void TestStudio::init()
{
    QSettings settings;
    settings.clear();
    settings.sync();
}

void TestStudio::cleanup()
{
    // A failed test must not leave a dialog or window behind for the next one.
    const QWidgetList widgets = QApplication::topLevelWidgets();
    for (QWidget* widget : widgets) {
        if (qobject_cast<QDialog*>(widget) && widget->isVisible())
            widget->close();
    }
}

QString TestStudio::copyOfGraph(const QString& name) const
{
    const QString path = m_dir.filePath(name);
    QFile::remove(path);
    return QFile::copy(m_graphPath, path) ? path : QString();
}

QString TestStudio::generatedFile(const std::string& family, int64_t size)
{
    return graphtest::generatedHlo(QDir(m_dir.path()), family, size);
}

bool TestStudio::waitForLoads(MainWindow& window)
{
    return QTest::qWaitFor([&window] { return !window.isLoading(); }, kLoadTimeoutMs);
}

bool TestStudio::anyDialogVisible()
{
    const QWidgetList widgets = QApplication::topLevelWidgets();
    for (QWidget* widget : widgets) {
        if (qobject_cast<QDialog*>(widget) && widget->isVisible())
            return true;
    }
    return false;
}

void TestStudio::saveScreenshot(QWidget& window, const QString& name)
{
    const QPixmap pixmap = window.grab();
    QVERIFY(!pixmap.isNull());
    QCOMPARE(pixmap.size(), window.size() * pixmap.devicePixelRatio());
    QVERIFY(pixmap.save(m_dir.filePath(name), "PNG"));
    QVERIFY(QFileInfo(m_dir.filePath(name)).size() > 0);
    const QString extra = testutil::env("TGRAPH_SCREENSHOT_DIR");
    if (!extra.isEmpty()) {
        QVERIFY(QDir().mkpath(extra));
        // The README's pictures (doc-*) in 256 colours: a third of the size, the same to the eye.
        const QImage image = name.startsWith(QStringLiteral("doc-"))
            ? pixmap.toImage().convertToFormat(QImage::Format_Indexed8, Qt::ThresholdDither | Qt::AvoidDither)
            : pixmap.toImage();
        QVERIFY(image.save(QDir(extra).filePath(name), "PNG"));
    }
}

void TestStudio::aboutDialogListsVersions()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(window.windowTitle(), QStringLiteral("TGraph Studio"));

    AboutDialog dialog(&window);
    auto* label = dialog.findChild<QLabel*>(QStringLiteral("aboutVersions"));
    QVERIFY(label);
    const QString text = label->text(); // what the user sees
    const QStringList expected = {
        QString::fromLatin1(qVersion()),
        QString::fromStdString(tgraph::model::torchVersion()),
        QString::fromStdString(tgraph::graphvizVersion()),
        QString::fromStdString(tgraph::sqliteVersion()),
        QString::fromStdString(tgraph::zlibVersion()),
    };
    for (const QString& version : expected) {
        QVERIFY(!version.isEmpty());
        QVERIFY2(text.contains(version), qPrintable(version + QStringLiteral(" not in:\n") + text));
    }
    // One line per library, selectable for copying into bug reports.
    QCOMPARE(text.split(QLatin1Char('\n')).size(), expected.size());
    QVERIFY(label->textInteractionFlags() & Qt::TextSelectableByMouse);
    QVERIFY(dialog.findChild<QLabel*>(QStringLiteral("aboutTitle"))
                ->text()
                .contains(QString::fromStdString(tgraph::projectVersion())));
}

void TestStudio::opensHloModulesAndTuningRecords()
{
    // An HLO text module: featurized, shown with its source and instruction count.
    tgraph::HloGenSpec spec;
    spec.family = "resnet";
    spec.instructions = 600;
    const std::string text = tgraph::generateHloText(spec);
    const QString hlo = m_dir.filePath(QStringLiteral("module.hlo"));
    QFile f(hlo);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text.data(), qint64(text.size()));
    f.close();
    tgraph::HloTextOptions lean;
    lean.keepAttributes = false;
    const auto instructions = qlonglong(tgraph::parseHloText(text, "module.hlo", lean).instructions.size());

    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.openFiles({ hlo });
    QTRY_COMPARE_WITH_TIMEOUT(window.tabWidget()->count(), 1, kLoadTimeoutMs);
    QVERIFY(waitForLoads(window));
    GraphSummaryView* view = window.summaryView(0);
    QVERIFY(view);
    QCOMPARE(view->fieldText(Field::Nodes), QLocale().toString(instructions));
    QVERIFY2(view->fieldText(Field::Source).startsWith(QStringLiteral("HLO text")),
        qPrintable(view->fieldText(Field::Source)));
    QVERIFY(
        view->fieldText(Field::Source).contains(QLocale().toString(instructions) + QStringLiteral(" instructions")));
    QVERIFY(view->fieldText(Field::TuningRuns).startsWith(QStringLiteral("none")));

    // The real tuning record, when ../shared is here: 122 runs, 112 kept.
    const QString data = testutil::sharedDataDir();
    if (data.isEmpty())
        return;
    window.openFiles({ data + QStringLiteral("/tpu_graphs/module_tuning_data_layout.pb") });
    QTRY_COMPARE_WITH_TIMEOUT(window.tabWidget()->count(), 2, kLoadTimeoutMs);
    QVERIFY(waitForLoads(window));
    GraphSummaryView* record = window.summaryView(1);
    QVERIFY(record->fieldText(Field::Source).startsWith(QStringLiteral("tpu_graphs.ModuleTuningData")));
    QVERIFY2(record->fieldText(Field::TuningRuns).startsWith(QStringLiteral("122: 112 kept, 10 with errors")),
        qPrintable(record->fieldText(Field::TuningRuns)));
    QCOMPARE(record->fieldText(Field::Configs), QLocale().toString(112));
    saveScreenshot(window, QStringLiteral("studio-tuning-record.png"));
}

// The other formats: a serialized xla.HloModuleProto, the same module wrapped in an xla.HloProto
// (field 1, hlo_module), and a tile-collection .npz. Each opens in a tab with its format named.
void TestStudio::opensProtobufModulesAndTileGraphs()
{
    tgraph::HloGenSpec spec;
    spec.family = "mlp";
    spec.instructions = 300;
    const tgraph::HloModule module = tgraph::parseHloText(tgraph::generateHloText(spec), "mlp.hlo");
    const std::string proto = tgraph::encodeHloModuleProto(module);
    std::string wrapped = "\x0a"; // HloProto.hlo_module: field 1, length-delimited
    for (uint64_t n = proto.size();; n >>= 7) {
        wrapped += char((n & 0x7f) | (n >= 0x80 ? 0x80 : 0));
        if (n < 0x80)
            break;
    }
    wrapped += proto;
    const QString modulePb = m_dir.filePath(QStringLiteral("module.pb"));
    const QString hloProto = m_dir.filePath(QStringLiteral("hloproto.pb"));
    testutil::writeAll(modulePb, QByteArray::fromStdString(proto));
    testutil::writeAll(hloProto, QByteArray::fromStdString(wrapped));
    const QString tiles = m_dir.filePath(QStringLiteral("tiles"));
    const auto r = testutil::run(testutil::binDir() + QStringLiteral("/tgraph"),
        { "synth", "--collection", "tile", "-o", tiles, "--graphs", "3", "--configs", "12", "--max-size", "400" });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QStringList tileFiles = QDir(tiles + QStringLiteral("/train")).entryList({ QStringLiteral("*.npz") });
    QVERIFY(!tileFiles.isEmpty());

    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.openFiles({ modulePb, hloProto, tiles + QStringLiteral("/train/") + tileFiles.front() });
    QTRY_COMPARE_WITH_TIMEOUT(window.tabWidget()->count(), 3, kLoadTimeoutMs);
    QVERIFY(waitForLoads(window));
    QVERIFY(!window.errorBanner()->isVisible());
    const auto nodes = QLocale().toString(qlonglong(module.instructions.size()));
    QStringList sources;
    for (int i = 0; i < 3; ++i)
        sources << window.summaryView(i)->fieldText(Field::Source);
    QVERIFY2(std::count_if(sources.begin(), sources.end(),
                 [](const QString& s) { return s.startsWith(QStringLiteral("xla.HloModuleProto")); })
            == 1,
        qPrintable(sources.join(QStringLiteral(" | "))));
    QVERIFY2(std::count_if(sources.begin(), sources.end(),
                 [](const QString& s) { return s.startsWith(QStringLiteral("xla.HloProto")); })
            == 1,
        qPrintable(sources.join(QStringLiteral(" | "))));
    int tile = 0;
    for (int i = 0; i < 3; ++i) {
        GraphSummaryView* view = window.summaryView(i);
        if (view->fieldText(Field::Kind).contains(QStringLiteral("tile"), Qt::CaseInsensitive))
            ++tile;
        else
            QCOMPARE(view->fieldText(Field::Nodes), nodes); // both protobufs: the whole module
    }
    QCOMPARE(tile, 1);
}

// docs/formats.md §8.2: a text file of several modules separated by `// -----` lines opens one tab
// per module, as a TuningData does; opening it again refreshes those tabs instead of adding more.
void TestStudio::opensSplitTextFilesAsTabs()
{
    const QString split = m_dir.filePath(QStringLiteral("split.hlo"));
    testutil::writeAll(split,
        "HloModule first\nENTRY e {\n  p = f32[2]{0} parameter(0)\n  ROOT n = f32[2]{0} negate(p)\n}\n"
        "// -----\n"
        "ENTRY main {\n  p = f32[3]{0} parameter(0)\n  q = f32[3]{0} abs(p)\n  ROOT r = f32[1,3]{1,0} reshape(q)\n}\n");
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.openFiles({ split });
    QTRY_COMPARE_WITH_TIMEOUT(window.tabWidget()->count(), 2, kLoadTimeoutMs);
    QVERIFY(waitForLoads(window));
    QCOMPARE(window.tabWidget()->tabText(0), QStringLiteral("split.hlo [first]"));
    QCOMPARE(window.tabWidget()->tabText(1), QStringLiteral("split.hlo [module_main]"));
    QCOMPARE(window.summaryView(0)->fieldText(Field::Nodes), QLocale().toString(2));
    QCOMPARE(window.summaryView(1)->fieldText(Field::Nodes), QLocale().toString(3));
    QVERIFY2(window.summaryView(1)->fieldText(Field::Source).contains(QStringLiteral("(2 of 2)")),
        qPrintable(window.summaryView(1)->fieldText(Field::Source)));
    QVERIFY(window.errorBanner()->isHidden());

    window.openFiles({ split }); // the load starts at once
    QVERIFY(waitForLoads(window));
    QCOMPARE(window.tabWidget()->count(), 2);
    QCOMPARE(window.tabWidget()->tabText(1), QStringLiteral("split.hlo [module_main]"));
}

void TestStudio::openAddsSummaryTab()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(window.tabWidget()->count(), 0);

    window.openFiles({ m_graphPath });
    QTRY_COMPARE_WITH_TIMEOUT(window.tabWidget()->count(), 1, kLoadTimeoutMs);
    QVERIFY(waitForLoads(window));
    QCOMPARE(window.tabWidget()->tabText(0), QStringLiteral("synthetic.npz"));
    QCOMPARE(window.tabWidget()->tabToolTip(0), QDir::toNativeSeparators(QFileInfo(m_graphPath).absoluteFilePath()));

    GraphSummaryView* view = window.summaryView(0);
    QVERIFY(view);
    window.graphPage(0)->innerTabs()->setCurrentIndex(1); // the graph comes first, then the summary
    QVERIFY(view->isVisible());
    QCOMPARE(view->fieldText(Field::Nodes), QLocale().toString(qlonglong(m_nodes)));
    QCOMPARE(view->fieldText(Field::Configs), QLocale().toString(qlonglong(m_configs)));
    auto* nodesLabel = view->findChild<QLabel*>(QStringLiteral("nodesValue"));
    QVERIFY(nodesLabel);
    QTRY_COMPARE(nodesLabel->text(), QLocale().toString(qlonglong(m_nodes))); // shown whole once laid out
    QVERIFY(view->fieldText(Field::Kind).startsWith(QStringLiteral("layout")));

    QCOMPARE(view->opcodeModel()->rowCount(), m_distinctOpcodes);
    QCOMPARE(view->opcodeProxy()->rowCount(), m_distinctOpcodes);
    // Sorted by node count, most frequent first.
    const auto countAt = [](QAbstractItemModel* model, int row) {
        return model->index(row, OpcodeTableModel::CountColumn).data(OpcodeTableModel::SortRole).toLongLong();
    };
    for (int row = 1; row < view->opcodeProxy()->rowCount(); ++row)
        QVERIFY(countAt(view->opcodeProxy(), row - 1) >= countAt(view->opcodeProxy(), row));
    qlonglong total = 0;
    for (int row = 0; row < view->opcodeModel()->rowCount(); ++row)
        total += countAt(view->opcodeModel(), row);
    QCOMPARE(total, qlonglong(m_nodes));
    qlonglong configurable = 0;
    for (int row = 0; row < view->opcodeModel()->rowCount(); ++row) {
        configurable += view->opcodeModel()
                            ->index(row, OpcodeTableModel::ConfigurableColumn)
                            .data(OpcodeTableModel::SortRole)
                            .toLongLong();
    }
    QCOMPARE(configurable, qlonglong(m_configurable));

    // The filter box narrows the table by opcode name (case-insensitive).
    QVERIFY(m_convolutionLike > 0 && m_convolutionLike < m_distinctOpcodes);
    view->opcodeFilter()->setText(QStringLiteral("CONV"));
    QCOMPARE(view->opcodeProxy()->rowCount(), m_convolutionLike);
    view->opcodeFilter()->clear();
    QCOMPARE(view->opcodeProxy()->rowCount(), m_distinctOpcodes);

    QVERIFY(view->arrayModel()->rowCount() >= 5); // node_feat, node_opcode, edge_index, node_config_*, config_runtime
    QVERIFY(window.errorBanner()->isHidden());
    QVERIFY(!window.statusBar()->currentMessage().isEmpty());
}

void TestStudio::corruptFileShowsBanner()
{
    const QString corrupt = m_dir.filePath(QStringLiteral("corrupt.npz"));
    testutil::writeAll(corrupt, testutil::readAll(m_graphPath).left(100));
    QCOMPARE(QFileInfo(corrupt).size(), 100);

    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.errorBanner()->isHidden());

    window.openFiles({ corrupt });
    QTRY_VERIFY_WITH_TIMEOUT(window.errorBanner()->isVisible(), kLoadTimeoutMs);
    QVERIFY(waitForLoads(window));
    const QString message = window.errorBanner()->text();
    QVERIFY2(message.contains(QStringLiteral("corrupt.npz")), qPrintable(message));
    QVERIFY2(!message.contains(QLatin1Char('\n')), qPrintable(message)); // one line
    QCOMPARE(window.tabWidget()->count(), 0);
    QCOMPARE(QApplication::activeModalWidget(), nullptr);
    QVERIFY(!anyDialogVisible());
    QVERIFY(!window.recentFiles().contains(QFileInfo(corrupt).absoluteFilePath()));
    saveScreenshot(window, QStringLiteral("studio-error.png"));

    // The window keeps working.
    window.openFiles({ m_graphPath });
    QTRY_COMPARE_WITH_TIMEOUT(window.tabWidget()->count(), 1, kLoadTimeoutMs);
    QVERIFY(window.summaryView(0));
    QCOMPARE(window.summaryView(0)->fieldText(Field::Nodes), QLocale().toString(qlonglong(m_nodes)));

    // Dismissing hides the banner and forgets the message.
    auto* close = window.errorBanner()->findChild<QAbstractButton*>(QStringLiteral("errorBannerClose"));
    QVERIFY(close);
    close->click();
    QVERIFY(window.errorBanner()->isHidden());
    QVERIFY(window.errorBanner()->text().isEmpty());
}

void TestStudio::cancelDropsTheLoad()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    // Cancelled before the event loop can deliver the worker's result: it must be dropped.
    window.openFiles({ m_graphPath, copyOfGraph(QStringLiteral("queued.npz")) });
    QVERIFY(window.isLoading());
    window.cancelLoading();
    QVERIFY(!window.isLoading());
    QCOMPARE(window.statusBar()->currentMessage(), QStringLiteral("Loading cancelled"));
    QTest::qWait(1500); // let the worker finish and its result arrive
    QCOMPARE(window.tabWidget()->count(), 0);
    QVERIFY(window.errorBanner()->isHidden());
    QVERIFY(!window.isLoading()); // the queued file was dropped too

    // Cancelled after the worker has finished but before its result was delivered (the event
    // loop does not run while we sleep): the late result belongs to a dropped job id.
    window.openFiles({ m_graphPath });
    QVERIFY(window.isLoading());
    QThread::msleep(2000);
    window.cancelLoading();
    QTest::qWait(500);
    QCOMPARE(window.tabWidget()->count(), 0);
    QVERIFY(!window.isLoading());

    window.openFiles({ m_graphPath });
    QTRY_COMPARE_WITH_TIMEOUT(window.tabWidget()->count(), 1, kLoadTimeoutMs);
}

void TestStudio::recentFilesRememberOpenedFiles()
{
    const QString second = copyOfGraph(QStringLiteral("second.npz"));
    QVERIFY(!second.isEmpty());
    const QString first = QFileInfo(m_graphPath).absoluteFilePath();
    {
        MainWindow window;
        QVERIFY(window.recentFiles().isEmpty());
        window.openFiles({ m_graphPath, second });
        QTRY_COMPARE_WITH_TIMEOUT(window.tabWidget()->count(), 2, kLoadTimeoutMs);
        QVERIFY(waitForLoads(window));
        QCOMPARE(window.recentFiles(), (QStringList { QFileInfo(second).absoluteFilePath(), first }));
    }
    // Persisted in QSettings for the next window.
    QVERIFY(QSettings().value(QStringLiteral("RecentFiles/files")).toStringList().contains(first));
    MainWindow window;
    QCOMPARE(window.recentFiles().size(), 2);

    // A file that vanished is dropped from the list.
    QVERIFY(QFile::remove(second));
    QCOMPARE(window.recentFiles(), QStringList { first });
}

void TestStudio::geometryIsRestored()
{
    {
        MainWindow window;
        // Default without saved settings: the screen less a title bar on a laptop screen (the
        // start maximizes it there), 80 % of a bigger one (docs/studio.md §9).
        QVERIFY(window.screen());
        const QSize available = window.screen()->availableSize();
        QCOMPARE(window.size(), MainWindow::freshSize(window.screen()));
        QVERIFY(window.width() <= available.width() && window.height() <= available.height() - 40);
        QVERIFY(window.width() >= available.width() * 3 / 4);
        window.resize(1101, 613);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.close();
    }
    QVERIFY(!QSettings().value(QStringLiteral("MainWindow/geometry")).toByteArray().isEmpty());
    MainWindow restored;
    QCOMPARE(restored.size(), QSize(1101, 613));
}

void TestStudio::tunePageFitsSmallScreens()
{
    // A 1366x768 laptop screen less a title bar and a task bar holds the window with the Tune view
    // in front (its controls in one row once made the window 1 600 pixels wide), beside the
    // Analysis page's graph pane.
    const QSize available(1366, 768 - 72);
    MainWindow window;
    window.showAnalysis(MainWindow::AnalysisView::Tune);
    window.resize(available);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.tunePanel()->isVisible());
    const QSize panel = window.tunePanel()->minimumSizeHint();
    const QSize min = window.minimumSizeHint();
    qInfo("Tune view: minimum %dx%d; window with it: minimum %dx%d", panel.width(), panel.height(), min.width(),
        min.height());
    QVERIFY(panel.width() <= available.width() && panel.height() <= available.height());
    QVERIFY(min.width() <= available.width() && min.height() <= available.height());
    QCOMPARE(window.size(), available); // not grown past the screen
    QVERIFY(window.analysisPage()->graphPaneContainer()->isVisible());
    QVERIFY(window.analysisPage()->graphPaneContainer()->width() >= tgraph::studio::AnalysisPage::kMinimumPaneWidth);
    QTest::qWait(50);
    saveScreenshot(window, QStringLiteral("studio-tune-1366.png"));
}

void TestStudio::analysisPagesAreReadable()
{
    // The rank scatter on the Analysis page, at the default window size and on a 1366x768 laptop
    // screen: the run settings fold away once results are shown, the chart keeps a plot that can be
    // read, labelled on both axes (in a dock below the graphs it once was about 50 pixels high, its
    // title elided and its legend without text), and the graph pane beside it keeps 300 pixels.
    const int n = 1182;
    std::vector<double> scores(n), runtimes(n);
    for (int i = 0; i < n; ++i) {
        scores[size_t(i)] = double((i * 7919) % n) / n + 0.001 * i;
        runtimes[size_t(i)] = 9.1e8 + 1500.0 * i;
    }
    for (const QSize size : { QSize(1200, 800), QSize(1366, 768 - 72) }) {
        QSettings().clear();
        MainWindow window;
        window.resize(size);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.showAnalysis(MainWindow::AnalysisView::Inference);
        InferencePanel* panel = window.inferencePanel();
        panel->scatter()->setData(makeRankScatterData(QStringLiteral("layout graph"), scores, runtimes));
        panel->setSettingsShown(false);
        QTRY_VERIFY(panel->isVisible());
        QVERIFY(panel->height() >= size.height() * 3 / 4);
        QVERIFY(window.analysisPage()->graphPaneContainer()->width()
            >= tgraph::studio::AnalysisPage::kMinimumPaneWidth);
        QChart* chart = panel->scatter()->rankChart();
        QTRY_VERIFY2(chart->plotArea().height() >= 160,
            qPrintable(QStringLiteral("plot %1x%2").arg(chart->plotArea().width()).arg(chart->plotArea().height())));
        for (const Qt::Orientation o : { Qt::Horizontal, Qt::Vertical }) {
            auto* axis = qobject_cast<NiceAxis*>(chart->axes(o).value(0));
            QVERIFY(axis);
            QVERIFY2(axis->categoriesLabels().size() >= 3, qPrintable(axis->categoriesLabels().join(' ')));
        }
        // The title whole: each of its lines fits the width the chart leaves it.
        const double titleRoom = chart->size().width() - chart->margins().left() - chart->margins().right();
        const QStringList titleLines = chart->title().split(QStringLiteral("<br>"));
        QVERIFY(titleLines.join(' ').contains(QStringLiteral("top-5 slowdown")));
        for (const QString& line : titleLines) {
            QTextDocument text;
            text.setHtml(line);
            QVERIFY2(QFontMetricsF(chart->titleFont()).horizontalAdvance(text.toPlainText()) <= titleRoom,
                qPrintable(line));
        }
        // The legend beside or above the square plot (whichever side has the room), wide enough for
        // its longest entry.
        QVERIFY(chart->legend()->alignment() == Qt::AlignRight || chart->legend()->alignment() == Qt::AlignTop);
        QTRY_VERIFY(chart->legend()->alignment() == Qt::AlignTop
            || chart->legend()->geometry().width()
                >= QFontMetricsF(chart->legend()->font()).horizontalAdvance(QStringLiteral("predicted top-5")));
        QCOMPARE(window.size(), size); // not grown past the screen
        QTest::qWait(100);
        if (const QString shots = testutil::env("TGRAPH_SCREENSHOT_DIR"); !shots.isEmpty())
            window.grab().save(shots + QStringLiteral("/studio-scatter-%1x%2.png").arg(size.width()).arg(size.height()));
    }
}

// Ctrl+1 .. Ctrl+4 show the pages; Ctrl+I, Ctrl+Y and Ctrl+U the Analysis page on Inference,
// Explain and Tune; Ctrl+T the Runs page; Ctrl+F the Graph page with its search field focused, in
// sight (it once hid behind a tool bar's overflow button that did not open).
void TestStudio::pageShortcutsShowPages()
{
    using Page = MainWindow::Page;
    using View = MainWindow::AnalysisView;
    MainWindow window;
    window.resize(1366, 768 - 72);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QCOMPARE(window.currentStudioPage(), Page::Graph);
    QCOMPARE(window.pageAction(Page::Analysis)->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_2));
    QCOMPARE(window.analysisAction(View::Tune)->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_U));

    QTest::keyClick(&window, Qt::Key_U, Qt::ControlModifier);
    QCOMPARE(window.currentStudioPage(), Page::Analysis);
    QCOMPARE(window.analysisPage()->currentView(), View::Tune);
    QTRY_VERIFY(window.tunePanel()->isVisible());
    QTest::keyClick(&window, Qt::Key_I, Qt::ControlModifier);
    QCOMPARE(window.analysisPage()->currentView(), View::Inference);
    QTRY_VERIFY(window.inferencePanel()->isVisible());
    QVERIFY(!window.tunePanel()->isVisible());
    QTest::keyClick(&window, Qt::Key_Y, Qt::ControlModifier);
    QCOMPARE(window.analysisPage()->currentView(), View::Explain);
    QTRY_VERIFY(window.explainPanel()->isVisible());
    // Explain draws its own graph: the page's pane folds away.
    QVERIFY(!window.analysisPage()->graphPaneContainer()->isVisible());
    QTest::keyClick(&window, Qt::Key_T, Qt::ControlModifier);
    QCOMPARE(window.currentStudioPage(), Page::Runs);
    QTRY_VERIFY(window.trainingMonitor()->isVisible());
    QTest::keyClick(&window, Qt::Key_1, Qt::ControlModifier);
    QCOMPARE(window.currentStudioPage(), Page::Graph);
    // The mode bar shows the same pages.
    window.modeBar()->button(int(Page::Runs))->click();
    QCOMPARE(window.currentStudioPage(), Page::Runs);

    // Ctrl+F from another page: the Graph page with the search field focused and in sight.
    window.openFiles({ m_graphPath });
    QTRY_COMPARE_WITH_TIMEOUT(window.tabWidget()->count(), 1, kLoadTimeoutMs);
    window.showPage(Page::Runs);
    QTest::keyClick(&window, Qt::Key_F, Qt::ControlModifier);
    QCOMPARE(window.currentStudioPage(), Page::Graph);
    auto* search = window.currentPage()->findChild<QLineEdit*>(QStringLiteral("searchField"));
    QVERIFY(search);
    QTRY_VERIFY(search->hasFocus());
    QVERIFY(search->isVisible() && !search->visibleRegion().isEmpty());
    const QRect inWindow(search->mapTo(&window, QPoint(0, 0)), search->size());
    QVERIFY(window.rect().contains(inWindow));
}

// The Tune panel takes the model chosen in the inference panel, and keeps following it until
// another model is chosen for Tune itself.
void TestStudio::tuneReusesTheInferenceModel()
{
    MainWindow window;
    InferencePanel* inference = window.inferencePanel();
    TunePanel* tune = window.tunePanel();
    QVERIFY(tune->modelFiles().isEmpty());
    const QString first = m_dir.filePath(QStringLiteral("first.npz"));
    const QString second = m_dir.filePath(QStringLiteral("second.npz"));
    inference->setModelFiles({ first });
    QCOMPARE(inference->modelFiles(), QStringList { first });
    QCOMPARE(tune->modelFiles(), QStringList { first });
    inference->setModelFiles({ first, second }); // an ensemble
    QCOMPARE(tune->modelFiles(), (QStringList { first, second }));
    // A model chosen for Tune itself stays.
    const QString own = m_dir.filePath(QStringLiteral("tune-only.npz"));
    tune->setModelFiles({ own });
    inference->setModelFiles({ second });
    QCOMPARE(tune->modelFiles(), QStringList { own });
}

void TestStudio::dropOpensFiles()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    QMimeData text;
    text.setText(QStringLiteral("not a file"));
    QDragEnterEvent refused(QPoint(20, 20), Qt::CopyAction, &text, Qt::LeftButton, Qt::NoModifier);
    refused.setAccepted(false);
    QCoreApplication::sendEvent(&window, &refused);
    QVERIFY(!refused.isAccepted());

    QMimeData files;
    files.setUrls({ QUrl::fromLocalFile(m_graphPath) });
    QDragEnterEvent enter(QPoint(20, 20), Qt::CopyAction, &files, Qt::LeftButton, Qt::NoModifier);
    enter.setAccepted(false);
    QCoreApplication::sendEvent(&window, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(20, 20), Qt::CopyAction, &files, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &drop);
    QTRY_COMPARE_WITH_TIMEOUT(window.tabWidget()->count(), 1, kLoadTimeoutMs);
    QCOMPARE(window.tabWidget()->tabText(0), QStringLiteral("synthetic.npz"));
}

void TestStudio::screenshot()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    saveScreenshot(window, QStringLiteral("studio-empty.png"));

    window.openFiles({ m_graphPath });
    QTRY_COMPARE_WITH_TIMEOUT(window.tabWidget()->count(), 1, kLoadTimeoutMs);
    QVERIFY(waitForLoads(window));
    QTest::qWait(50); // let the tables lay out
    saveScreenshot(window, QStringLiteral("studio-loaded.png"));

    // The loaded window does not look like the empty one.
    const QImage empty(m_dir.filePath(QStringLiteral("studio-empty.png")));
    const QImage loaded(m_dir.filePath(QStringLiteral("studio-loaded.png")));
    QVERIFY(!empty.isNull() && !loaded.isNull());
    QVERIFY(empty != loaded);
}

namespace {

// What makes `root` as wide (or high) as it is at least: the visible widgets whose minimum extent
// along `o` exceeds `limit`, as an indented tree.
QStringList widestWidgets(QWidget* root, Qt::Orientation o, int limit)
{
    const auto extent = [o](QWidget* w) {
        const QSize hint = w->minimumSizeHint().expandedTo(w->minimumSize());
        return o == Qt::Horizontal ? hint.width() : hint.height();
    };
    QStringList out;
    const std::function<void(QWidget*, int)> walk = [&](QWidget* w, int depth) {
        // A stacked widget is as wide as its widest page, shown or not.
        const bool page = qobject_cast<QStackedWidget*>(w->parentWidget());
        if ((w->isHidden() && !page) || extent(w) <= limit)
            return;
        out << QStringLiteral("%1%2 '%3' %4")
                   .arg(QString(depth, QLatin1Char(' ')), QString::fromLatin1(w->metaObject()->className()),
                       w->objectName())
                   .arg(extent(w));
        for (QWidget* c : w->findChildren<QWidget*>(Qt::FindDirectChildrenOnly))
            if (!c->isWindow())
                walk(c, depth + 1);
    };
    walk(root, 0);
    return out;
}

} // namespace

QString TestStudio::longNamesModule()
{
    // TensorFlow's XLA clusters name their computations like this; the generator's names are short.
    const QString path = m_dir.filePath(QStringLiteral("cluster_0__XlaCompiledKernel_true.hlo"));
    if (!QFileInfo::exists(path)) {
        QFile in(generatedFile("transformer", 300));
        if (!in.open(QIODevice::ReadOnly))
            return {};
        QString text = QString::fromUtf8(in.readAll());
        text.replace(QStringLiteral("while_body.1"),
            QStringLiteral("cluster_0__XlaCompiledKernel_true__XlaNumConstantArgs_0__XlaNumResourceArgs_0_.v42"));
        text.replace(QStringLiteral("cluster_transformer_main"),
            QStringLiteral("cluster_0__XlaCompiledKernel_true__XlaHasReferenceVars_false__XlaNumConstantArgs_0__"
                           "XlaNumResourceArgs_0_.1"));
        QFile out(path);
        if (!out.open(QIODevice::WriteOnly) || out.write(text.toUtf8()) != text.toUtf8().size())
            return {};
    }
    return path;
}

// At 1366x768 and 1920x1080 the window fits the screen: its minimum size stays within 1280x720
// whatever it shows (long computation names, the split view, search, every page and analysis
// view), and it never grows itself past the size it was given (docs/studio.md §9).
void TestStudio::windowFitsLaptopScreens()
{
    const QString data = testutil::sharedDataDir();
    QStringList files { longNamesModule(), generatedFile("resnet", 400) };
    QVERIFY(!files.front().isEmpty());
    if (!data.isEmpty())
        files << data + QStringLiteral("/hlo/ssd_mobilenet_tf.hlo");
    const QSize limit(1280, 720);
    for (const QSize screen : { QSize(1366, 768), QSize(1920, 1080) }) {
        QSettings().clear();
        MainWindow window;
        window.resize(screen);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const auto fits = [&](const QString& state) {
            QTest::qWait(50);
            const QSize min = window.minimumSizeHint().expandedTo(window.minimumSize());
            qInfo("%dx%d, %s: minimum %dx%d", screen.width(), screen.height(), qPrintable(state), min.width(),
                min.height());
            if (min.width() > limit.width() || min.height() > limit.height() || window.size() != screen) {
                qWarning("%s: window %dx%d, minimum %dx%d; the widest and highest parts:\n%s\n%s", qPrintable(state),
                    window.width(), window.height(), min.width(), min.height(),
                    qPrintable(widestWidgets(&window, Qt::Horizontal, 200).join(QLatin1Char('\n'))),
                    qPrintable(widestWidgets(&window, Qt::Vertical, 150).join(QLatin1Char('\n'))));
                return false;
            }
            return true;
        };
        const QString suffix = QStringLiteral("-%1x%2.png").arg(screen.width()).arg(screen.height());
        QVERIFY(fits(QStringLiteral("fresh settings")));

        window.openFiles(files);
        QTRY_COMPARE_WITH_TIMEOUT(window.tabWidget()->count(), files.size(), kLayoutTimeoutMs);
        QVERIFY(waitForLoads(window));
        window.tabWidget()->setCurrentIndex(0);
        GraphPage* page = window.currentPage();
        QVERIFY(waitForLayout(page->fullPane()));
        QVERIFY(fits(QStringLiteral("graphs loaded")));

        // A node of the long-named computation: its name and computation in the inspector.
        const int64_t node = tgraph::searchNodes(*page->document(), "op:dot").front();
        page->selectNode(node);
        QVERIFY(waitForLayout(page->fullPane()));
        QVERIFY(fits(QStringLiteral("node selected")));

        page->setSplit(true);
        QVERIFY(waitForLayout(page->prunedPane()));
        QVERIFY(fits(QStringLiteral("split view")));
        saveScreenshot(window, QStringLiteral("fit-split") + suffix);

        page->focusSearch();
        QVERIFY(page->find(QStringLiteral("multiply")) > 0);
        QVERIFY(fits(QStringLiteral("search")));

        for (const MainWindow::AnalysisView v :
            { MainWindow::AnalysisView::Inference, MainWindow::AnalysisView::Explain, MainWindow::AnalysisView::Tune }) {
            window.showAnalysis(v);
            QVERIFY(fits(window.analysisPage()->viewTabs()->currentWidget()->objectName()));
            saveScreenshot(window, QStringLiteral("fit-%1").arg(window.analysisPage()->viewTabs()->currentWidget()->objectName()) + suffix);
        }
        window.showPage(MainWindow::Page::Runs);
        QVERIFY(fits(QStringLiteral("runs page")));
    }
}

// The split view opens with both drawings fitted to their panes (the pruned pane, laid out while
// hidden, once opened as a dot-sized blob), and Ctrl+0 fits both (docs/studio.md §1.3).
void TestStudio::splitViewFitsBothPanes()
{
    const QString path = generatedFile("resnet", 400);
    MainWindow window;
    window.resize(1366, 768);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.openFiles({ path });
    QTRY_COMPARE_WITH_TIMEOUT(window.tabWidget()->count(), 1, kLayoutTimeoutMs);
    GraphPage* page = window.currentPage();
    QVERIFY(waitForLayout(page->fullPane()));
    QVERIFY(waitForLayout(page->prunedPane())); // laid out while hidden
    // Fitted: the whole drawing in sight, filling the pane's width or height (or at its natural size).
    const auto fitted = [](GraphPane* pane) {
        GraphView* view = pane->view();
        const QRectF drawn = view->mapFromScene(view->sceneRect()).boundingRect();
        const QRectF port = view->viewport()->rect();
        const bool whole = port.adjusted(-2, -2, 2, 2).contains(drawn);
        const bool fills = drawn.width() >= 0.9 * port.width() || drawn.height() >= 0.9 * port.height();
        if (!whole || !(fills || view->zoom() >= 1.0))
            qWarning("%s: drawing %gx%g at %g,%g, zoom %g in a %gx%g viewport", qPrintable(pane->objectName()), drawn.width(),
                drawn.height(), drawn.x(), drawn.y(), view->zoom(), port.width(), port.height());
        return whole && (fills || view->zoom() >= 1.0);
    };
    QAction* split = nullptr;
    QAction* fit = nullptr;
    for (QAction* a : window.findChildren<QAction*>()) {
        if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_B))
            split = a;
        if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_0))
            fit = a;
    }
    QVERIFY(split && fit);
    split->trigger();
    QVERIFY(page->isSplit());
    QTRY_VERIFY(page->prunedPane()->view()->viewport()->width() > 200);
    // The full pane opened on its first view (fitted, or at the legible zoom when it does not fit:
    // docs/studio.md §1.2); the pruned one, laid out while hidden, fits its pane.
    QTRY_VERIFY(fitted(page->fullPane()) || page->fullPane()->view()->zoom() >= GraphView::kLegibleZoom - 1e-9);
    QTRY_VERIFY(fitted(page->prunedPane()));
    QVERIFY(page->prunedPane()->view()->zoom() < 1.0); // 400 instructions do not fit at full size
    saveScreenshot(window, QStringLiteral("split-fitted.png"));

    // Zoomed in both, then Ctrl+0 (used last in the full pane): both fit again.
    for (GraphPane* pane : { page->fullPane(), page->prunedPane() }) {
        pane->view()->setZoom(2.0);
        QVERIFY(!fitted(pane));
    }
    fit->trigger();
    QTRY_VERIFY(fitted(page->fullPane()));
    QTRY_VERIFY(fitted(page->prunedPane()));
}

// A TpuGraphs .npz has no computations: it opens on an overview of consecutive node ranges whose
// drawing has about the viewport's shape (it once was one strip of boxes 16 000 pixels wide), and
// its boxes open on a double-click (docs/studio.md §1.2).
void TestStudio::npzOpensOnAnOverview()
{
    const QString data = testutil::sharedDataDir();
    if (data.isEmpty())
        QSKIP("../shared/data is not here");
    for (const QString& name : { QStringLiteral("layout_xla_default_train_unet3d.npz"),
             QStringLiteral("layout_xla_random_train_openai_v0_rnn_optimized.npz") }) {
        MainWindow window;
        window.resize(1366, 768);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.openFiles({ data + QStringLiteral("/tpu_graphs/npz/") + name });
        QTRY_COMPARE_WITH_TIMEOUT(window.tabWidget()->count(), 1, kLayoutTimeoutMs);
        GraphPage* page = window.currentPage();
        QVERIFY(waitForLayout(page->fullPane()));
        const ViewLayout& shown = *page->fullPane()->scene()->viewLayout();
        const QRectF drawing = page->fullPane()->scene()->sceneRect();
        const QRectF port = page->fullPane()->view()->viewport()->rect();
        const double aspect = drawing.width() / drawing.height();
        const double wanted = port.width() / port.height();
        qInfo("%s: %zu boxes for %lld nodes, drawing %.0fx%.0f (aspect %.2f, the pane's %.2f), zoom %.2f",
            qPrintable(name), shown.view.nodes.size(), qlonglong(page->document()->nodeCount()), drawing.width(),
            drawing.height(), aspect, wanted, page->fullPane()->view()->zoom());
        QVERIFY(shown.view.nodes.size() <= size_t(GraphPane::kMaxViewNodes));
        QVERIFY(shown.view.nodes.size() < size_t(page->document()->nodeCount()) / 10); // grouped
        QVERIFY2(aspect > wanted / 3 && aspect < wanted * 3, "the drawing has about the pane's shape");
        QVERIFY(page->fullPane()->view()->zoom() >= 0.25); // its titles can be read
        saveScreenshot(window, QStringLiteral("npz-overview-%1.png").arg(QFileInfo(name).completeBaseName()));
    }
}

// The studio as a user sees it on a 1366x768 laptop, with results on every page: a model trained by
// `tgraph train` into a project, its inference (rank scatter, heatmaps), explain, tune, the runs
// with their curves and Compare. The window never needs more than 1280x720 with any of them; with
// TGRAPH_SCREENSHOT_DIR the states are saved as doc-*.png (tools/screenshots.sh copies them into
// docs/screenshots/ for the README).
void TestStudio::populatedPagesFitLaptopScreens()
{
    const QString work = m_dir.filePath(QStringLiteral("populated"));
    QVERIFY(QDir().mkpath(work));
    const QString tgraph = testutil::binDir() + QStringLiteral("/tgraph");
    const auto tg = [&](const QStringList& args) {
        const testutil::ProcessResult r = testutil::run(tgraph, args, 300000);
        if (r.exitCode != 0 || r.crashed)
            qWarning("tgraph %s: %s", qPrintable(args.join(' ')), r.err.constData());
        return r.exitCode == 0 && !r.crashed;
    };
    const QString collection = work + QStringLiteral("/collection");
    const QString project = work + QStringLiteral("/runs.tgproj");
    QVERIFY(tg({ "synth", "--collection", "layout", "-o", collection, "--graphs", "4", "--configs", "60", "--max-size",
        "500", "--seed", "3" }));
    for (const QString& seed : { QStringLiteral("1"), QStringLiteral("2") })
        QVERIFY(tg({ "train", "--data", collection, "--steps", "16", "--configs-per-step", "16", "--eval-every", "8",
            "--log-every", "2", "--seed", seed, "--threads", "1", "--project", project, "--run-name",
            QStringLiteral("seed-%1").arg(seed) }));
    QString weights;
    QDirIterator checkpoints(project + QStringLiteral(".d"), { QStringLiteral("last.npz") }, QDir::Files,
        QDirIterator::Subdirectories);
    QVERIFY(checkpoints.hasNext());
    weights = checkpoints.next();
    const QString graph = collection + QStringLiteral("/valid/")
        + QDir(collection + QStringLiteral("/valid")).entryList({ QStringLiteral("*.npz") }, QDir::Files, QDir::Name)
              .value(0);

    const QSize screen(1366, 768);
    const QSize limit(1280, 720);
    MainWindow window;
    window.resize(screen);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const auto fits = [&](const char* state) {
        QTest::qWait(100);
        const QSize min = window.minimumSizeHint().expandedTo(window.minimumSize());
        qInfo("%s: minimum %dx%d", state, min.width(), min.height());
        return min.width() <= limit.width() && min.height() <= limit.height() && window.size() == screen;
    };
    window.openFiles({ graph });
    QTRY_COMPARE_WITH_TIMEOUT(window.tabWidget()->count(), 1, kLayoutTimeoutMs);
    QVERIFY(waitForLayout(window.currentPage()->fullPane()));
    QVERIFY(fits("graph"));
    saveScreenshot(window, QStringLiteral("doc-graph.png"));
    window.currentPage()->setSplit(true);
    QVERIFY(waitForLayout(window.currentPage()->prunedPane()));
    QVERIFY(fits("split view"));
    saveScreenshot(window, QStringLiteral("doc-split.png"));
    window.currentPage()->setSplit(false);

    // Inference: the rank scatter, then the cross-config heatmap.
    InferencePanel* inference = window.inferencePanel();
    window.showAnalysis(MainWindow::AnalysisView::Inference);
    inference->setModelFiles({ weights });
    QSignalSpy inferred(inference, &InferencePanel::finished);
    inference->run();
    QVERIFY(inferred.count() > 0 || inferred.wait(120000));
    QVERIFY2(inference->outcome(), qPrintable(inference->banner()->text()));
    QVERIFY(waitForLayout(window.analysisPage()->graphPane()));
    QVERIFY(fits("inference"));
    saveScreenshot(window, QStringLiteral("doc-inference.png"));
    inference->viewTabs()->setCurrentIndex(2); // channel attention: a 16-step model's cross-config map is flat
    QVERIFY(fits("channel attention"));
    saveScreenshot(window, QStringLiteral("doc-attention.png"));

    // Explain the predicted fastest against the compiler default.
    ExplainPanel* explain = window.explainPanel();
    window.showAnalysis(MainWindow::AnalysisView::Explain);
    explain->setContext(inference->explainContext());
    explain->setConfigs(QStringLiteral("fastest"), QStringLiteral("default"));
    QSignalSpy explained(explain, &ExplainPanel::finished);
    explain->run();
    QVERIFY(explained.count() > 0 || explained.wait(120000));
    QVERIFY2(explain->outcome(), qPrintable(explain->banner()->text()));
    QVERIFY(waitForLayout(explain->graphPane())); // the model's graph drawn beside the table
    QVERIFY(fits("explain"));
    saveScreenshot(window, QStringLiteral("doc-explain.png"));

    // Tune the open graph with the same model.
    TunePanel* tune = window.tunePanel();
    window.showAnalysis(MainWindow::AnalysisView::Tune);
    QCOMPARE(tune->modelFiles(), QStringList { weights });
    tune->setBudget(256);
    tune->setBatch(32);
    tune->setSimulate(true);
    QSignalSpy tuned(tune, &TunePanel::finished);
    tune->run();
    QVERIFY(tuned.count() > 0 || tuned.wait(120000));
    QVERIFY2(tune->result(), qPrintable(tune->banner()->text()));
    QVERIFY(waitForLayout(window.analysisPage()->graphPane())); // the tuned graph beside it
    QVERIFY(fits("tune"));
    saveScreenshot(window, QStringLiteral("doc-tune.png"));

    // The runs of the project with their curves, and Compare in its own window.
    window.openFiles({ project });
    TrainingMonitor* monitor = window.trainingMonitor();
    QTRY_COMPARE_WITH_TIMEOUT(monitor->runsModel()->rowCount(), 2, kLoadTimeoutMs);
    QStringList ids;
    for (const RunRow& r : monitor->runsModel()->runs())
        ids << QString::fromStdString(r.record.id);
    monitor->selectRuns(ids);
    QTest::qWait(500);
    QVERIFY(fits("training runs"));
    saveScreenshot(window, QStringLiteral("doc-runs.png"));
    QSignalSpy compared(monitor, &TrainingMonitor::comparisonShown);
    monitor->compareSelected();
    QVERIFY(compared.count() > 0 || compared.wait(60000));
    QDialog* comparison = monitor->comparisonWindow();
    QVERIFY(comparison && comparison->isVisible());
    comparison->resize(std::min(comparison->width(), 1280), std::min(comparison->height(), 720));
    QTest::qWait(200);
    saveScreenshot(*comparison, QStringLiteral("doc-compare.png"));
    comparison->close();

    // The same pages on a 1920x1080 screen: the canvas and the analysis pane grow with the window.
    window.resize(1920, 1080 - 40);
    const auto page = [&](const QString& name, const std::function<void()>& show) {
        show();
        QTest::qWait(150);
        const int canvas = window.currentPage()->fullPane()->view()->viewport()->height();
        if (window.currentStudioPage() == MainWindow::Page::Graph)
            QVERIFY2(canvas >= window.height() * 6 / 10, qPrintable(QStringLiteral("canvas %1").arg(canvas)));
        if (window.currentStudioPage() == MainWindow::Page::Analysis
            && window.analysisPage()->graphPaneContainer()->isVisible())
            QVERIFY(window.analysisPage()->graphPaneContainer()->width()
                >= tgraph::studio::AnalysisPage::kMinimumPaneWidth);
        saveScreenshot(window, QStringLiteral("doc-%1-1920.png").arg(name));
    };
    page(QStringLiteral("graph"), [&] { window.showPage(MainWindow::Page::Graph); });
    page(QStringLiteral("inference"), [&] {
        window.showAnalysis(MainWindow::AnalysisView::Inference);
        inference->viewTabs()->setCurrentIndex(0);
    });
    page(QStringLiteral("explain"), [&] { window.showAnalysis(MainWindow::AnalysisView::Explain); });
    page(QStringLiteral("tune"), [&] { window.showAnalysis(MainWindow::AnalysisView::Tune); });
    page(QStringLiteral("runs"), [&] { window.showPage(MainWindow::Page::Runs); });
}

void TestStudio::mainWindowWiresPagesAndActions()
{
    QSettings().clear();
    const QString path = generatedFile("resnet", 150);
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.openFiles({ path });
    QTRY_COMPARE_WITH_TIMEOUT(window.tabWidget()->count(), 1, kLayoutTimeoutMs);
    GraphPage* page = window.currentPage();
    QVERIFY(page);
    QVERIFY(waitForLayout(page->fullPane()));
    // Sidebar lists the graph with its counts.
    QCOMPARE(window.sidebar()->topLevelItemCount(), 1);
    QCOMPARE(window.sidebar()->topLevelItem(0)->text(1), QLocale().toString(qlonglong(page->document()->nodeCount())));
    // Selecting a node shows it in the inspector; links navigate.
    QVERIFY(window.inspector()->isVisible());
    const int64_t conv = tgraph::searchNodes(*page->document(), "op:convolution").front();
    page->selectNode(conv);
    QCOMPARE(window.inspector()->node(), conv);
    const int64_t operand = page->document()->full.topology.operandsOf(conv).front();
    Q_EMIT window.inspector()->nodeRequested(operand);
    QCOMPARE(page->selectedNode(), operand);
    QCOMPARE(window.inspector()->node(), operand);
    // Shortcuts and navigation.
    const auto action = [&window](const QString& text) -> QAction* {
        for (QAction* a : window.findChildren<QAction*>())
            if (a->text().remove(QLatin1Char('&')).startsWith(text))
                return a;
        return nullptr;
    };
    QVERIFY(action(QStringLiteral("Find Node")));
    QCOMPARE(action(QStringLiteral("Find Node"))->shortcut(), QKeySequence(QKeySequence::Find));
    QCOMPARE(action(QStringLiteral("Fit to View"))->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_0));
    QAction* back = action(QStringLiteral("Back"));
    QVERIFY(back && back->isEnabled());
    back->trigger();
    QCOMPARE(page->selectedNode(), conv);
    QCOMPARE(window.inspector()->node(), conv);
    QAction* split = action(QStringLiteral("Before / After"));
    QVERIFY(split && split->isEnabled());
    split->trigger();
    QVERIFY(page->isSplit());
    QVERIFY(waitForLayout(page->prunedPane()));
    // Export to a bad place: the banner names the file, no dialog.
    QVERIFY(!window.exportCurrentView(QStringLiteral("/nonexistent-dir/graph.png")));
    QVERIFY(window.errorBanner()->isVisible());
    QVERIFY(window.errorBanner()->text().contains(QStringLiteral("graph.png")));
    QVERIFY(window.exportCurrentView(m_dir.filePath(QStringLiteral("split.svg"))));
    QVERIFY(QFileInfo(m_dir.filePath(QStringLiteral("split.svg"))).size() > 0);
    saveScreenshot(window, QStringLiteral("studio-graph.png"));
    // The splitter sizes survive the tab.
    page->splitter()->setSizes({ 300, 900 });
    window.closeTab(0);
    QVERIFY(!QSettings().value(QStringLiteral("GraphPage/splitter")).toByteArray().isEmpty());
}

void TestStudio::mainWindowOpensLargeModules()
{
    // The whole path a user takes: open a 40k-instruction module in the window. Loading runs in
    // the background; the GUI thread only builds the page and the first (collapsed) view.
    const QString path = generatedFile("transformer", 40000);
    MainWindow window;
    window.resize(1600, 1000);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    StallMeter stalls;
    QElapsedTimer timer;
    timer.start();
    window.openFiles({ path });
    QTRY_COMPARE_WITH_TIMEOUT(window.tabWidget()->count(), 1, kLayoutTimeoutMs);
    const qint64 loadedMs = timer.elapsed();
    GraphPage* page = window.currentPage();
    QVERIFY(waitForLayout(page->fullPane()));
    const qint64 firstViewMs = timer.elapsed();
    QVERIFY(page->fullPane()->scene()->viewLayout()->view.nodes.size() < size_t(GraphPane::kMaxViewNodes));
    // Search and select somewhere deep: the view opens around it.
    const int64_t target = page->document()->nodeCount() - 100;
    page->selectNode(target);
    QVERIFY(waitForLayout(page->fullPane()));
    QTRY_VERIFY(page->fullPane()->scene()->itemForNode(target));
    QCOMPARE(window.inspector()->node(), target);
    qInfo("MainWindow, 40k module: tab after %lld ms, first view drawn after %lld ms (from File > Open); longest "
          "GUI-thread stall %lld ms",
        loadedMs, firstViewMs, stalls.longestMs());
    saveScreenshot(window, QStringLiteral("studio-40k.png"));
    // Copy as image puts the drawing on the clipboard.
    window.copyImage();
    QVERIFY(!QApplication::clipboard()->image().isNull());
}

void TestStudio::projectFilesListTheirRuns()
{
    const QString path = m_dir.filePath(QStringLiteral("runs.tgproj"));
    {
        tgraph::Project project = tgraph::Project::create(path.toStdString());
        tgraph::RunStart start;
        start.name = "first-run";
        project.startRun(start);
        start.name = "second-run";
        const std::string second = project.startRun(start);
        project.setRunStatus(second, tgraph::RunStatus::Finished);
    }
    const QString broken = m_dir.filePath(QStringLiteral("broken.tgproj"));
    {
        QFile f(broken);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("SQLite format 3");
        f.write(QByteArray(50, '\x01'));
    }
    MainWindow window;
    window.show();
    window.openFiles({ path, broken });
    QTRY_COMPARE_WITH_TIMEOUT(window.projects().size(), size_t(1), kLayoutTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), kLayoutTimeoutMs);
    QCOMPARE(window.tabWidget()->count(), 0);
    QTreeWidgetItem* top = window.sidebar()->topLevelItem(0);
    QVERIFY(top);
    QCOMPARE(top->text(0), QStringLiteral("runs.tgproj"));
    QCOMPARE(top->childCount(), 2);
    QStringList names;
    for (int i = 0; i < top->childCount(); ++i)
        names << top->child(i)->text(0) + QLatin1Char(' ') + top->child(i)->text(2);
    QVERIFY2(names.contains(QStringLiteral("second-run FINISHED")), qPrintable(names.join(QLatin1Char(','))));
    QCOMPARE(top->text(2), QStringLiteral("2 run(s)"));
    // The sidebar follows the project file: a run added elsewhere (with a fold run, which counts in
    // its run) and a run that ended show up without reopening the project.
    {
        tgraph::Project project = tgraph::Project::open(path.toStdString(), tgraph::Project::Access::Write);
        tgraph::RunStart start;
        start.name = "third-run";
        const std::string third = project.startRun(start);
        start.name = "fold-0";
        start.parentRun = third;
        project.startRun(start);
        project.setRunStatus(project.findRun("first-run")->id, tgraph::RunStatus::Killed);
    }
    const auto sidebarText = [&window] {
        QTreeWidgetItem* project = window.sidebar()->topLevelItem(0);
        QStringList rows { project ? project->text(2) : QString() };
        for (int i = 0; project && i < project->childCount(); ++i)
            rows << project->child(i)->text(0) + QLatin1Char(' ') + project->child(i)->text(2);
        return rows.join(QLatin1Char(','));
    };
    QTRY_VERIFY2_WITH_TIMEOUT(sidebarText().startsWith(QStringLiteral("3 run(s),")), qPrintable(sidebarText()),
        3 * tgraph::studio::StudioSession::kProjectPollMs + 5000);
    QVERIFY2(sidebarText().contains(QStringLiteral("third-run RUNNING")), qPrintable(sidebarText()));
    QVERIFY2(sidebarText().contains(QStringLiteral("first-run KILLED")), qPrintable(sidebarText()));
    QVERIFY2(!sidebarText().contains(QStringLiteral("fold-0")), qPrintable(sidebarText()));
    // A broken project: a banner naming it, the window keeps working.
    QVERIFY(window.errorBanner()->isVisible());
    QVERIFY2(window.errorBanner()->text().contains(QStringLiteral("broken.tgproj")),
        qPrintable(window.errorBanner()->text()));
    QVERIFY(window.recentFiles().contains(QFileInfo(path).absoluteFilePath()));
}

void TestStudio::renderDrawsConfigurableNodes()
{
    // A generated module without its op_name scopes: only computations to group its nodes, so at
    // this size it is drawn whole (GraphPane::kWholeGraphNodes).
    QString input;
    {
        QFile in(generatedFile("resnet", 150));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QString text = QString::fromUtf8(in.readAll());
        text.remove(QRegularExpression(QStringLiteral(R"(, metadata=\{[^}]*\})")));
        input = m_dir.filePath(QStringLiteral("resnet_150_plain.hlo"));
        QFile out(input);
        QVERIFY(out.open(QIODevice::WriteOnly) && out.write(text.toUtf8()) > 0);
    }
    const auto documents = tgraph::openGraphDocuments(testutil::str(input));
    QCOMPARE(documents.size(), size_t(1));
    const tgraph::GraphDocumentPtr small = documents.front();
    QVERIFY(small->nodeCount() <= GraphPane::kWholeGraphNodes); // drawn whole
    RenderRequest request;
    request.input = input;
    request.output = m_dir.filePath(QStringLiteral("render.png"));
    RenderResult result;
    QString error;
    QVERIFY2(renderGraph(request, &result, &error), qPrintable(error));
    QCOMPARE(result.nodesDrawn, small->nodeCount());
    const QImage written(request.output);
    QCOMPARE(written.size(), result.image.size());
    QVERIFY(written.width() > 200 && written.height() > 200);
    // A configurable node's border is drawn in the configurable colour at its position; a plain
    // node is filled with its opcode colour.
    int checked = 0;
    for (const auto& [node, box] : result.nodeBoxes) {
        // The 3.5-point border straddles the box's edge; at scale 1 one of these pixels is fully in it.
        QColor border;
        for (const double dx : { -1.0, 0.0, 1.0 }) {
            const QColor c = written.pixelColor(QPointF(box.left() + dx, box.center().y()).toPoint());
            const QColor want = OpcodePalette::configurableBorder();
            const auto distance = [&want](const QColor& x) {
                return std::abs(x.red() - want.red()) + std::abs(x.green() - want.green())
                    + std::abs(x.blue() - want.blue());
            };
            if (!border.isValid() || distance(c) < distance(border))
                border = c;
        }
        const QColor inside = written.pixelColor(QPointF(box.left() + 4, box.top() + 4).toPoint());
        if (small->isConfigurable(node)) {
            QVERIFY2(near(border, OpcodePalette::configurableBorder()), qPrintable(border.name()));
            ++checked;
        } else {
            QVERIFY2(near(inside, OpcodePalette::color(small->opcodeName(node))), qPrintable(inside.name()));
        }
    }
    QVERIFY(checked > 0);

    // Split: both panels, the full graph's removed nodes tinted.
    request.view = QStringLiteral("split");
    request.output = m_dir.filePath(QStringLiteral("split.png"));
    RenderResult split;
    QVERIFY2(renderGraph(request, &split, &error), qPrintable(error));
    QCOMPARE(split.nodesDrawn, small->nodeCount() + small->pruned->nodeCount());
    QVERIFY(split.image.width() > result.image.width());
    int tinted = 0;
    for (const auto& [node, box] : split.nodeBoxes) {
        if (small->pruned->contains(node) || small->isConfigurable(node))
            continue;
        const QColor inside = split.image.pixelColor(QPointF(box.left() + 4, box.top() + 4).toPoint());
        QVERIFY(!near(inside, OpcodePalette::color(small->opcodeName(node)), 10)
            || OpcodePalette::color(small->opcodeName(node)).lightness() > 225);
        ++tinted;
    }
    QVERIFY(tinted > 0);

    // The neighbourhood of a node; the computations view; SVG output.
    const int64_t conv = tgraph::searchNodes(*small, "op:convolution").front();
    request.view = QStringLiteral("graph");
    request.node = QString::fromStdString(small->nodeName(conv));
    request.radius = 1;
    request.output = m_dir.filePath(QStringLiteral("node.svg"));
    RenderResult around;
    QVERIFY2(renderGraph(request, &around, &error), qPrintable(error));
    QCOMPARE(around.nodesDrawn,
        int64_t(1 + small->full.topology.operandsOf(conv).size() + small->full.topology.usersOf(conv).size()));
    QVERIFY(QFileInfo(request.output).size() > 1000);
    request.node.clear();
    request.view = QStringLiteral("computations");
    RenderResult collapsed;
    QVERIFY2(renderGraph(request, &collapsed, &error), qPrintable(error));
    QCOMPARE(collapsed.nodesDrawn, int64_t(0)); // boxes only
}

void TestStudio::renderRejectsBadRequests()
{
    const QString input = generatedFile("resnet", 150);
    const auto failure = [](RenderRequest request) {
        RenderResult result;
        QString error;
        return renderGraph(request, &result, &error) ? QString() : error;
    };
    RenderRequest request;
    request.input = input;
    request.output = m_dir.filePath(QStringLiteral("bad.png"));
    request.view = QStringLiteral("sideways");
    QVERIFY(failure(request).contains(QStringLiteral("unknown view 'sideways'")));
    request.view = QStringLiteral("graph");
    request.node = QStringLiteral("no.such.node");
    QVERIFY(failure(request).contains(QStringLiteral("no node named 'no.such.node'")));
    request.node.clear();
    request.output = m_dir.filePath(QStringLiteral("bad.jpg"));
    QVERIFY(failure(request).contains(QStringLiteral(".png or .svg")));
    request.output = QStringLiteral("/nonexistent-dir/out.png");
    QVERIFY(failure(request).contains(QStringLiteral("out.png")));
    const QString garbage = m_dir.filePath(QStringLiteral("garbage.npz"));
    {
        QFile f(garbage);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("PK\x03\x04 this is not a zip archive at all");
    }
    request.input = garbage;
    request.output = m_dir.filePath(QStringLiteral("bad.png"));
    const QString error = failure(request);
    QVERIFY2(error.contains(QStringLiteral("garbage.npz")), qPrintable(error));
    QVERIFY(!QFile::exists(request.output));
}

void TestStudio::realFilesScreenshots()
{
    const QString data = testutil::sharedDataDir();
    if (data.isEmpty())
        QSKIP("../shared/data is not here");
    MainWindow window;
    window.resize(1600, 1000);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.openFiles({ data + QStringLiteral("/hlo/ssd_mobilenet_tf.hlo") });
    QTRY_COMPARE_WITH_TIMEOUT(window.tabWidget()->count(), 1, kLayoutTimeoutMs);
    GraphPage* page = window.currentPage();
    QVERIFY(waitForLayout(page->fullPane()));
    page->setSplit(true);
    QVERIFY(waitForLayout(page->prunedPane()));
    QVERIFY(page->find(QStringLiteral("op:convolution")) > 0);
    QVERIFY(waitForLayout(page->fullPane()));
    QVERIFY(waitForLayout(page->prunedPane()));
    QCOMPARE(window.inspector()->node(), page->selectedNode());
    QTRY_VERIFY(page->prunedPane()->scene()->itemForNode(page->selectedNode()));
    saveScreenshot(window, QStringLiteral("ssd-mobilenet-split.png"));
    QString error;
    QVERIFY2(page->exportSvg(m_dir.filePath(QStringLiteral("ssd.svg")), &error), qPrintable(error));

    window.openFiles({ data + QStringLiteral("/tpu_graphs/module_tuning_data_layout.pb") });
    QTRY_COMPARE_WITH_TIMEOUT(window.tabWidget()->count(), 2, kLayoutTimeoutMs);
    page = window.currentPage();
    QVERIFY(waitForLayout(page->fullPane()));
    QVERIFY(page->document()->configCount() > 0);
    const int64_t conv = tgraph::searchNodes(*page->document(), "op:convolution").front();
    page->selectNode(conv);
    QVERIFY(waitForLayout(page->fullPane()));
    QTRY_VERIFY(page->fullPane()->scene()->itemForNode(conv));
    if (page->document()->isConfigurable(conv))
        QCOMPARE(window.inspector()->configTree()->topLevelItemCount(), 3);
    saveScreenshot(window, QStringLiteral("tuning-record.png"));
}

QTEST_MAIN(TestStudio)
#include "tst_studio.moc"
