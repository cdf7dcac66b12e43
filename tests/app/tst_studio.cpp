// SPDX-License-Identifier: Apache-2.0
// The studio window under the offscreen platform: about box versions, background loading into
// tabs, inline errors for corrupt files, cancel, recent files, geometry, drag and drop, screenshot.

#include "app/studio/window/aboutdialog.h"
#include "app/studio/window/mainwindow.h"
#include "core/graph/graphio.h"
#include "core/synth/hlogen.h"
#include "core/hlo/hloproto.h"
#include "core/hlo/hlotext.h"
#include "core/graph/opcodes.h"
#include "core/synth/synthetic.h"
#include "core/io/npz.h"
#include "core/store/sqlitedb.h"
#include "core/util/version.h"
#include "core/view/graphlayout.h"
#include "model/runtime/torchruntime.h"
#include "testutil.h"
#include "widgets/graph/arraytablemodel.h"
#include "widgets/common/errorbanner.h"
#include "widgets/graph/graphpage.h"
#include "widgets/graph/graphsummaryview.h"
#include "widgets/graph/opcodetablemodel.h"

#include <QAbstractButton>
#include <QApplication>
#include <QDialog>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMimeData>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QThread>
#include <QUrl>
#include <QtTest>

#include <set>

using Field = GraphSummaryView::Field;

namespace {
constexpr int kLoadTimeoutMs = 30000;
}

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
    void corruptFileShowsBanner();
    void cancelDropsTheLoad();
    void recentFilesRememberOpenedFiles();
    void geometryIsRestored();
    void dropOpensFiles();
    void screenshot();

private:
    QString copyOfGraph(const QString& name) const;
    static bool waitForLoads(MainWindow& window);
    static bool anyDialogVisible();
    void saveScreenshot(QWidget& window, const QString& name);

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
        QVERIFY(pixmap.save(QDir(extra).filePath(name), "PNG"));
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
    window.graphPage(0)->innerTabs()->setCurrentWidget(view); // the graph comes first
    QVERIFY(view->isVisible());
    QCOMPARE(view->fieldText(Field::Nodes), QLocale().toString(qlonglong(m_nodes)));
    QCOMPARE(view->fieldText(Field::Configs), QLocale().toString(qlonglong(m_configs)));
    auto* nodesLabel = view->findChild<QLabel*>(QStringLiteral("nodesValue"));
    QVERIFY(nodesLabel);
    QCOMPARE(nodesLabel->text(), QLocale().toString(qlonglong(m_nodes)));
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
        QCOMPARE(window.size(), QSize(1200, 800)); // default without saved settings
        window.resize(901, 613);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.close();
    }
    QVERIFY(!QSettings().value(QStringLiteral("MainWindow/geometry")).toByteArray().isEmpty());
    MainWindow restored;
    QCOMPARE(restored.size(), QSize(901, 613));
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

QTEST_MAIN(TestStudio)
#include "tst_studio.moc"
