// SPDX-License-Identifier: Apache-2.0
// The first view of a graph, read as a person reads it (docs/studio.md §1.2, docs/testing.md): the
// studio's window at 1366x768 with a fresh configuration opens a real module or TpuGraphs graph;
// the screen is grabbed and read back with tesseract (OCR); the names of the drawn nodes and groups
// that the OCR finds are counted. A name counts when the OCR read it (nearly) letter for letter, so
// a label drawn too small, cut off or covered does not count.

#include "app/studio/window/mainwindow.h"
#include "graphtestutil.h"
#include "testutil.h"
#include "widgets/graph/graphitems.h"
#include "widgets/graph/graphpage.h"
#include "widgets/graph/graphpane.h"
#include "widgets/graph/graphscene.h"
#include "widgets/graph/graphview.h"

#include <QDir>
#include <QFileInfo>
#include <QGraphicsItem>
#include <QLineEdit>
#include <QPainter>
#include <QProcess>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <set>

using namespace tgraph::widgets;
using namespace tgraph::studio;

namespace {

constexpr int kLoadTimeoutMs = 120000;

// Lower case, letters and digits only: what the OCR and the labels have in common (the OCR reads
// the multiplication sign of "convolution ×12" as an x).
QString normalised(const QString& text)
{
    QString out;
    for (const QChar c : text)
        if (c.isLetterOrNumber())
            out += c.toLower();
        else if (c == QChar(0x00d7))
            out += QLatin1Char('x');
    return out;
}

// Edit distance, for the OCR's slips (l for 1, O for 0).
int distance(const QString& a, const QString& b)
{
    std::vector<int> row(size_t(b.size()) + 1);
    for (size_t j = 0; j < row.size(); ++j)
        row[j] = int(j);
    for (int i = 1; i <= a.size(); ++i) {
        int diagonal = row[0];
        row[0] = i;
        for (int j = 1; j <= b.size(); ++j) {
            const int up = row[size_t(j)];
            row[size_t(j)] = std::min({ row[size_t(j)] + 1, row[size_t(j - 1)] + 1,
                diagonal + (a[i - 1] == b[j - 1] ? 0 : 1) });
            diagonal = up;
        }
    }
    return row.back();
}

// True when `name` (normalised) occurs in the OCR's words: one word or up to six neighbours
// joined, with one slip allowed from 8 characters on and two from 16 (never for short names, which
// would match words of other labels).
bool readByOcr(const QString& name, const QStringList& words)
{
    if (name.size() < 3)
        return false;
    const int allowed = (name.size() >= 8 ? 1 : 0) + (name.size() >= 16 ? 1 : 0);
    for (int i = 0; i < words.size(); ++i) {
        QString joined;
        for (int k = i; k < std::min<int>(int(words.size()), i + 6); ++k) {
            joined += words[k];
            if (joined.size() > name.size() + allowed)
                break;
            if (std::abs(int(joined.size()) - int(name.size())) <= allowed && distance(joined, name) <= allowed)
                return true;
        }
    }
    return false;
}

} // namespace

class TestFirstView : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void firstViewReads_data();
    void firstViewReads();

private:
    QTemporaryDir m_dir;
};

void TestFirstView::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QCoreApplication::setOrganizationName(QStringLiteral("TGraphStudioTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_firstview"));
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.filePath(QStringLiteral("settings")));
    QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("tesseract")).isEmpty(),
        "tesseract is not installed (tools/install-deps.sh installs it)");
}

void TestFirstView::firstViewReads_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("wanted");
    const QString data = testutil::sharedDataDir();
    if (data.isEmpty())
        QSKIP("../shared/data is not here");
    QTest::newRow("ssd_mobilenet") << data + QStringLiteral("/hlo/ssd_mobilenet_tf.hlo") << 15;
    QTest::newRow("graphsage") << data + QStringLiteral("/hlo/graphsage_tf.hlo") << 15;
    QTest::newRow("tuning record") << data + QStringLiteral("/tpu_graphs/module_tuning_data_layout.pb") << 15;
    QTest::newRow("unet3d npz") << data + QStringLiteral("/tpu_graphs/npz/layout_xla_default_train_unet3d.npz") << 10;
    QTest::newRow("rnn npz") << data
            + QStringLiteral("/tpu_graphs/npz/layout_xla_random_train_openai_v0_rnn_optimized.npz")
                             << 10;
}

void TestFirstView::firstViewReads()
{
    QFETCH(QString, file);
    QFETCH(int, wanted);
    QSettings().clear();
    MainWindow window;
    window.resize(1366, 768);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.openFiles({ file });
    QTRY_VERIFY_WITH_TIMEOUT(window.tabWidget()->count() >= 1, kLoadTimeoutMs);
    GraphPage* page = window.currentPage();
    QVERIFY(page);
    GraphPane* pane = page->fullPane();
    QVERIFY(graphtest::waitForLayout(pane));
    QTest::qWait(300); // layouts redone for legibility, the first paint
    QVERIFY(graphtest::waitForLayout(pane));
    QTest::qWait(100);

    // The search box is in sight.
    auto* search = page->findChild<QLineEdit*>(QStringLiteral("searchField"));
    QVERIFY(search);
    QVERIFY2(search->isVisible() && !search->visibleRegion().isEmpty(), "the search field is hidden");
    // The canvas keeps at least 60 % of the window's height.
    const int canvas = pane->view()->viewport()->height();
    qInfo("canvas %dx%d in a %dx%d window", pane->view()->viewport()->width(), canvas, window.width(),
        window.height());

    // The names drawn in the visible part of the canvas.
    GraphView* view = pane->view();
    const QRectF visible = view->mapToScene(view->viewport()->rect()).boundingRect();
    std::set<QString> names;
    // Boxes whose centre is in sight, and the titles of open groups' frames whose title strip is.
    for (QGraphicsItem* item : pane->scene()->items(visible)) {
        if (item->type() == GraphNodeItem::Type) {
            const auto* node = static_cast<GraphNodeItem*>(item);
            if (visible.contains(node->sceneBoundingRect().center()))
                names.insert(normalised(node->title()));
        } else if (item->type() == GraphClusterItem::Type) {
            const QRectF frame = item->sceneBoundingRect();
            if (visible.contains(QRectF(frame.topLeft(), QSizeF(std::min(frame.width(), 120.0), 20))))
                names.insert(normalised(static_cast<GraphClusterItem*>(item)->title()));
        }
    }

    const QString shot = m_dir.filePath(QStringLiteral("%1.png").arg(QTest::currentDataTag()).replace(' ', '_'));
    // The canvas alone (names in the legend, the tool bar or the inspector do not count), drawn at
    // twice the pixels as a high-density screen would show the same view: OCR engines want text about
    // 20 pixels high, and the screen's 12-pixel titles are read by a person, not by tesseract.
    // Tesseract's own thresholding loses dark text on the mid-tone fills of the opcode colours, so
    // the picture is made black on white first: the near-black text black, the rest (fills, borders,
    // edges) white.
    QWidget* port = view->viewport();
    QImage canvasImage(port->size() * 2, QImage::Format_RGB32);
    canvasImage.fill(Qt::white);
    {
        QPainter painter(&canvasImage);
        painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
        view->render(&painter, QRectF(canvasImage.rect()), port->rect());
    }
    canvasImage = canvasImage.convertToFormat(QImage::Format_Grayscale8);
    for (int y = 0; y < canvasImage.height(); ++y) {
        uchar* row = canvasImage.scanLine(y);
        for (int x = 0; x < canvasImage.width(); ++x)
            row[x] = row[x] < 64 ? 0 : 255;
    }
    QVERIFY(canvasImage.save(shot));
    QProcess ocr;
    ocr.start(QStringLiteral("tesseract"), { shot, QStringLiteral("stdout"), QStringLiteral("--psm"), QStringLiteral("11") });
    QVERIFY(ocr.waitForFinished(120000));
    QCOMPARE(ocr.exitCode(), 0);
    const QString text = QString::fromUtf8(ocr.readAllStandardOutput());
    QStringList words;
    for (const QString& w : text.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts))
        if (const QString n = normalised(w); !n.isEmpty())
            words << n;
    QStringList read;
    for (const QString& name : names)
        if (readByOcr(name, words))
            read << name;
    qInfo("%s: %d of %d drawn names read by OCR (zoom %.2f, %d boxes laid out): %s", qPrintable(QFileInfo(file).fileName()),
        int(read.size()), int(names.size()), view->zoom(), int(pane->scene()->viewLayout()->view.nodes.size()),
        qPrintable(read.mid(0, 30).join(QStringLiteral(", "))));
    if (const QString shots = testutil::env("TGRAPH_SCREENSHOT_DIR"); !shots.isEmpty()) {
        window.grab().save(shots + QStringLiteral("/firstview-") + QFileInfo(shot).fileName());
        if (qEnvironmentVariableIsSet("TGRAPH_OCR_DEBUG")) {
            QFile::copy(shot, shots + QStringLiteral("/ocr-") + QFileInfo(shot).fileName());
            QFile text(shots + QStringLiteral("/ocr-") + QFileInfo(shot).completeBaseName() + QStringLiteral(".txt"));
            if (text.open(QIODevice::WriteOnly))
                text.write((words.join(' ') + QStringLiteral("\n--\n") + QStringList(names.begin(), names.end()).join(' ')).toUtf8());
        }
    }
    QVERIFY2(canvas >= window.height() * 6 / 10, qPrintable(QStringLiteral("canvas %1 px high").arg(canvas)));
    QVERIFY2(read.size() >= wanted, qPrintable(QStringLiteral("%1 names read, %2 wanted").arg(read.size()).arg(wanted)));
}

QTEST_MAIN(TestFirstView)
#include "tst_firstview.moc"
