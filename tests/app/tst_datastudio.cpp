// SPDX-License-Identifier: Apache-2.0
// The studio's dataset parts (app/studio/data): the Fetch TpuGraphs dialog runs a real fetch from a
// mirror folder on the io lane, shows errors inline and fits a 1366x768 screen; the collection view
// checks a folder and shows one row per collection with the problems of the selected one.

#include "rangeserver.h"
#include "testutil.h"

#include "app/studio/data/collectioncheckmodel.h"
#include "app/studio/data/collectionview.h"
#include "app/studio/data/fetchdialog.h"
#include "widgets/common/errorbanner.h"
#include "widgets/common/formatting.h"
#include "widgets/common/jobtracker.h"

#include <QApplication>
#include <QCheckBox>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeWidget>

using namespace tgraph::widgets;
using namespace tgraph::studio;

using namespace testutil;

class TestDataStudio : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_mirror, m_tile;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_tile = m_dir.filePath("tile");
        const QString layout = m_dir.filePath("layout");
        for (const auto& [kind, out] : { std::pair { QString("tile"), m_tile }, { QString("layout"), layout } }) {
            const ProcessResult r = run(binDir() + "/tgraph",
                { "synth", "--collection", kind, "-o", out, "--graphs", "4", "--configs", "8", "--min-size", "60",
                    "--max-size", "150" });
            QVERIFY2(r.exitCode == 0, r.err.constData());
        }
        m_mirror = m_dir.filePath("mirror");
        const ProcessResult r = run(python(),
            { toolsDir() + "/dataset_archives.py", "mirror", "--tile", m_tile, "--layout", layout, "--out", m_mirror });
        QVERIFY2(r.exitCode == 0, r.err.constData());
    }

    void dialogFitsSmallScreens()
    {
        FetchDialog dialog;
        const QSize hint = dialog.sizeHint();
        QVERIFY2(hint.width() <= 1366 && hint.height() <= 700,
            qPrintable(QString("%1x%2").arg(hint.width()).arg(hint.height())));
        QCOMPARE(dialog.findChild<QListWidget*>("collections")->count(), 5);
        QString error;
        dialog.setDestination({});
        dialog.options(&error);
        QVERIFY(!error.isEmpty());
    }

    // Before a fetch the dialog says, in its own words, which archives the collections and splits
    // checked stand for, how large they are (the server's HEAD answers, asked once while the dialog
    // is shown) and what will happen to each; "size unknown" where the server does not tell.
    void dialogShowsWhatItFetches()
    {
        RangeServer server(m_mirror, m_dir.path());
        QVERIFY(server.ok());
        FetchDialog dialog;
        const QString intro = dialog.findChild<QLabel*>("intro")->text();
        QVERIFY2(!intro.contains("docs/") && !intro.contains(QChar(0x00a7)), qPrintable(intro));
        dialog.setDestination(m_dir.filePath("tree-plan"));
        dialog.setMirror(server.url());
        dialog.setCollections({ "tile:xla", "layout:nlp:random" }); // the mirror has no layout:nlp:random
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.isAskingSizes(), 30000);
        QTreeWidget* plan = dialog.planView();
        QCOMPARE(plan->topLevelItemCount(), 6);
        qint64 tileBytes = 0;
        for (int i = 0; i < plan->topLevelItemCount(); ++i) {
            const QTreeWidgetItem* row = plan->topLevelItem(i);
            const QString archive = row->text(0);
            QVERIFY2(row->text(2).contains("downloaded"), qPrintable(row->text(2)));
            if (archive.startsWith("npz_tile_xla_")) {
                const qint64 size = QFileInfo(m_mirror + "/" + archive).size();
                QCOMPARE(row->text(1), Formatting::bytes(quint64(size)));
                tileBytes += size;
            } else {
                QVERIFY2(archive.startsWith("npz_layout_nlp_random_"), qPrintable(archive));
                QCOMPARE(row->text(1), QString("size unknown"));
                QVERIFY2(row->toolTip(1).contains("does not offer"), qPrintable(row->toolTip(1)));
            }
        }
        QVERIFY2(dialog.planSummary().contains("To download: 6 archives")
                && dialog.planSummary().contains(Formatting::bytes(quint64(tileBytes)))
                && dialog.planSummary().contains("3 of unknown size"),
            qPrintable(dialog.planSummary()));
        // Another split unchecked: the sizes known are used again, the server is not asked.
        const int asked = server.requests().size();
        QCOMPARE(asked, 15); // one HEAD per archive of the dataset
        dialog.findChild<QCheckBox*>("test")->setChecked(false);
        QCOMPARE(plan->topLevelItemCount(), 4);
        QCOMPARE(server.requests().size(), asked);
        // A server that does not tell sizes: every size unknown, said so.
        RangeServer silent(m_mirror, m_dir.path(), { "--no-head" });
        QVERIFY(silent.ok());
        dialog.setCollections({ "tile:xla" });
        dialog.setMirror(silent.url());
        QTRY_VERIFY_WITH_TIMEOUT(dialog.planSummary().contains("size unknown"), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.isAskingSizes(), 30000);
        QCOMPARE(plan->topLevelItemCount(), 2);
        QCOMPARE(plan->topLevelItem(0)->text(1), QString("size unknown"));
        QVERIFY2(
            dialog.planSummary().startsWith("To download: 2 archives, size unknown"), qPrintable(dialog.planSummary()));
        // A mirror folder: read in place, nothing downloaded; a split fetched before is skipped.
        const QString fetched = m_dir.filePath("tree-plan-fetched");
        dialog.setDestination(fetched);
        dialog.setMirror(m_mirror);
        dialog.findChild<QCheckBox*>("valid")->setChecked(false); // train only
        QSignalSpy done(&dialog, &FetchDialog::fetched);
        dialog.findChild<QPushButton*>("fetchButton")->click();
        QVERIFY(done.wait(60000));
        dialog.findChild<QCheckBox*>("valid")->setChecked(true);
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.isAskingSizes(), 30000);
        QCOMPARE(plan->topLevelItemCount(), 2);
        QVERIFY2(plan->topLevelItem(0)->text(2).contains("skipped"), qPrintable(plan->topLevelItem(0)->text(2)));
        QVERIFY2(plan->topLevelItem(1)->text(2).contains("mirror folder"), qPrintable(plan->topLevelItem(1)->text(2)));
        QCOMPARE(plan->topLevelItem(1)->text(1),
            Formatting::bytes(quint64(QFileInfo(m_mirror + "/npz_tile_xla_valid.tar").size())));
        QVERIFY2(dialog.planSummary().contains("1 archive to read from the mirror folder")
                && dialog.planSummary().contains("1 already fetched"),
            qPrintable(dialog.planSummary()));
    }

    void fetchFromMirror()
    {
        FetchDialog dialog;
        const QString out = m_dir.filePath("tree");
        dialog.setDestination(out);
        dialog.setMirror(m_mirror);
        dialog.setCollections({ "tile:xla", "layout:xla:default" });
        QSignalSpy fetched(&dialog, &FetchDialog::fetched);
        dialog.findChild<QPushButton*>("fetchButton")->click();
        QVERIFY(dialog.isRunning());
        QVERIFY(fetched.wait(60000));
        QCOMPARE(fetched.front().front().toString(), out);
        QVERIFY2(dialog.statusText().contains("Fetched 6 archives"), qPrintable(dialog.statusText()));
        QVERIFY(QFileInfo::exists(out + "/npz/tile/xla/train/.tgraph-fetch.json"));
        // Again: nothing to fetch.
        dialog.findChild<QPushButton*>("fetchButton")->click();
        QVERIFY(fetched.wait(60000));
        QVERIFY2(dialog.statusText().contains("Nothing to fetch"), qPrintable(dialog.statusText()));

        // The collection view over the fetched tree.
        CollectionView view;
        QSignalSpy checked(&view, &CollectionView::checked);
        view.openFolder(out);
        QVERIFY(checked.wait(60000));
        QCOMPARE(view.model()->rowCount(), 2);
        QCOMPARE(view.model()->index(0, CollectionCheckModel::Collection).data().toString(), QString("tile:xla"));
        QCOMPARE(
            view.model()->index(1, CollectionCheckModel::Collection).data().toString(), QString("layout:xla:default"));
        QCOMPARE(view.model()->index(0, CollectionCheckModel::Errors).data().toInt(), 0);
        QVERIFY(view.problems()->item(0)->text().contains("No problem"));
    }

    // Cancel during a (slow) download: the job stops, no split folder appears, the part stays.
    void cancelDownload()
    {
        RangeServer slow(m_mirror, m_dir.path(), { "--throttle", "2000" });
        QVERIFY(slow.ok());
        FetchDialog dialog;
        const QString out = m_dir.filePath("tree-cancel");
        dialog.setDestination(out);
        dialog.setMirror(slow.url());
        dialog.setCollections({ "tile:xla" });
        dialog.findChild<QCheckBox*>("train")->setChecked(false);
        dialog.findChild<QCheckBox*>("test")->setChecked(false);
        dialog.findChild<QPushButton*>("fetchButton")->click();
        const QString part = out + "/.tgraph-download/npz_tile_xla_valid.tar.part";
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(part).size() > 0, 20000);
        QVERIFY(dialog.findChild<QPushButton*>("cancelFetchButton")->isEnabled());
        dialog.findChild<QPushButton*>("cancelFetchButton")->click();
        QVERIFY(dialog.statusText().startsWith("Cancelled"));
        QVERIFY(dialog.findChild<QPushButton*>("fetchButton")->isEnabled());
        // The worker unwinds at its next chunk; the tracker drops its result.
        QTRY_VERIFY_WITH_TIMEOUT(JobTracker::instance()->pendingJobs(JobLane::Io) == 0, 20000);
        QVERIFY(QFileInfo::exists(part));
        QVERIFY(!QFileInfo::exists(out + "/npz"));
    }

    void errorsInline()
    {
        const QString hostile = m_dir.filePath("hostile");
        QDir().mkpath(hostile);
        const ProcessResult r = run(python(),
            { toolsDir() + "/dataset_archives.py", "hostile", "--kind", "symlink", "--tile", m_tile, "--out",
                hostile + "/npz_tile_xla_train.tar" });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        FetchDialog dialog;
        dialog.setDestination(m_dir.filePath("tree-hostile"));
        dialog.setMirror(hostile);
        dialog.setCollections({ "tile:xla" });
        dialog.findChild<QCheckBox*>("valid")->setChecked(false);
        dialog.findChild<QCheckBox*>("test")->setChecked(false);
        dialog.findChild<QPushButton*>("fetchButton")->click();
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.isRunning(), 60000);
        QVERIFY(dialog.errorBanner()->isVisibleTo(&dialog));
        QVERIFY2(
            dialog.errorBanner()->text().contains("symbolic link refused"), qPrintable(dialog.errorBanner()->text()));
        QVERIFY(!QFileInfo::exists(m_dir.filePath("tree-hostile/npz/tile/xla/train")));

        // A folder that is no collection: the view says so inline.
        CollectionView view;
        view.openFolder(m_dir.filePath("hostile"));
        QTRY_VERIFY_WITH_TIMEOUT(!view.isBusy(), 30000);
        QVERIFY(view.errorBanner()->text().contains("collection folder"));
    }
};

QTEST_MAIN(TestDataStudio)
#include "tst_datastudio.moc"
