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
#include "widgets/common/jobtracker.h"

#include <QApplication>
#include <QCheckBox>
#include <QListWidget>
#include <QPushButton>
#include <QTableView>
#include <QTemporaryDir>

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
