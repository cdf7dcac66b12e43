// SPDX-License-Identifier: Apache-2.0
#include "fetchdialog.h"

#include "ui_fetchdialog.h"

#include "core/data/collections.h"
#include "core/util/error.h"
#include "widgets/common/errorbanner.h"
#include "widgets/common/formatting.h"
#include "widgets/common/jobchannel.h"
#include "widgets/common/jobcontrol.h"
#include "widgets/common/windowplacement.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QHeaderView>
#include <QListWidgetItem>
#include <QPushButton>
#include <QTimer>
#include <QTreeWidget>

#include <memory>

namespace tgraph::studio {

using namespace tgraph::widgets;

namespace {

constexpr int kPlanDelayMs = 300; // after the last keystroke in the destination or mirror
constexpr int kSizeTimeoutSeconds = 5; // per HEAD request's connection

// The mirror a fetch takes the archives from.
QString effectiveMirror(const QString& typed)
{
    const QString mirror = typed.trimmed();
    return mirror.isEmpty() ? QString::fromLatin1(tgraph::kTpuGraphsBaseUrl) : mirror;
}

} // namespace

FetchDialog::FetchDialog(QWidget* parent)
    : QDialog(parent)
    , m_ui(std::make_unique<Ui::FetchDialog>())
{
    m_ui->setupUi(this);
    WindowPlacement::placeWhenShown(this);
    m_banner = new ErrorBanner(this);
    m_banner->setObjectName(QStringLiteral("fetchErrors"));
    m_banner->hide();
    m_ui->mainLayout->insertWidget(0, m_banner);
    for (const auto& c : tgraph::tpuCollections()) {
        auto* item = new QListWidgetItem(QString::fromStdString(c.id), m_ui->collections);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Checked);
    }
    m_ui->mirror->setText(QString::fromLatin1(tgraph::kTpuGraphsBaseUrl));
    m_fetchButton = m_ui->buttons->addButton(tr("&Fetch"), QDialogButtonBox::AcceptRole);
    m_fetchButton->setObjectName(QStringLiteral("fetchButton"));
    m_fetchButton->setDefault(true);
    m_cancelButton = m_ui->buttons->addButton(tr("Cancel"), QDialogButtonBox::ActionRole);
    m_cancelButton->setObjectName(QStringLiteral("cancelFetchButton"));
    m_cancelButton->setEnabled(false);
    m_ui->progress->setRange(0, 1);
    m_ui->progress->setValue(0);
    m_ui->plan->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_ui->plan->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_ui->plan->header()->setStretchLastSection(true);
    m_planTimer = new QTimer(this);
    m_planTimer->setSingleShot(true);
    m_planTimer->setInterval(kPlanDelayMs);
    connect(m_planTimer, &QTimer::timeout, this, &FetchDialog::updatePlan);
    connect(m_ui->collections, &QListWidget::itemChanged, this, &FetchDialog::updatePlan);
    for (QCheckBox* box : { m_ui->train, m_ui->valid, m_ui->test })
        connect(box, &QCheckBox::toggled, this, &FetchDialog::updatePlan);
    for (QLineEdit* edit : { m_ui->destination, m_ui->mirror })
        connect(edit, &QLineEdit::textChanged, m_planTimer, qOverload<>(&QTimer::start));
    // Fetch must not close the dialog: the button box's accepted() is not connected to accept().
    connect(m_fetchButton, &QPushButton::clicked, this, &FetchDialog::startFetch);
    connect(m_cancelButton, &QPushButton::clicked, this, &FetchDialog::cancelFetch);
    connect(m_ui->buttons, &QDialogButtonBox::rejected, this, &FetchDialog::reject);
    connect(m_ui->browse, &QToolButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Destination"), m_ui->destination->text());
        if (!dir.isEmpty())
            m_ui->destination->setText(dir);
    });

    m_channel = new JobChannel(JobLane::Io, tr("Fetch TpuGraphs"), this);
    connect(m_channel, &JobChannel::progressChanged, this,
        [this](quint64, const QString& label, quint64 done, quint64 total) {
            showJobProgress(m_ui->progress, label, done, total);
            m_ui->status->setText(
                total > 0 ? tr("%1: %2 of %3").arg(label, Formatting::bytes(done), Formatting::bytes(total)) : label);
        });
    // The bar stays in the dialog (it shows the last fetch's end); the control keeps the buttons
    // and the banner.
    auto* control = new JobControl(m_channel, nullptr, m_banner, this);
    connect(control, &JobControl::busyChanged, this, &FetchDialog::setRunning);
    connect(control, &JobControl::stopped, this, [this, control] {
        switch (control->lastOutcome()) {
        case JobControl::Outcome::Failed:
            m_ui->status->setText(
                tr("Stopped: nothing half-extracted was left; a partial download resumes next time."));
            updatePlan();
            break;
        case JobControl::Outcome::Cancelled:
            m_ui->status->setText(tr("Cancelled: a partial download resumes next time."));
            // The worker removes what it leaves empty when it unwinds: the plan then reads the folder again.
            QTimer::singleShot(1000, this, &FetchDialog::updatePlan);
            break;
        default:
            break;
        }
    });

    m_sizeChannel = new JobChannel(JobLane::Io, tr("Archive sizes"), this);
    const auto sizesUnknown = [this](const QString& problem) {
        for (const auto& c : tgraph::tpuCollections())
            for (const auto& split : tgraph::tpuSplits())
                m_sizes[QString::fromStdString(tgraph::archiveName(c, split))] = { -1, problem };
        updatePlan();
    };
    connect(m_sizeChannel, &JobChannel::failed, this,
        [sizesUnknown](quint64, const QString& message) { sizesUnknown(message); });
    connect(m_sizeChannel, &JobChannel::cancelled, this, [this](quint64) { m_sizesMirror.clear(); });
    updatePlan();
}

FetchDialog::~FetchDialog() = default;

void FetchDialog::setDestination(const QString& folder) { m_ui->destination->setText(folder); }
void FetchDialog::setMirror(const QString& mirror) { m_ui->mirror->setText(mirror); }

void FetchDialog::setCollections(const QStringList& ids)
{
    for (int i = 0; i < m_ui->collections->count(); ++i) {
        QListWidgetItem* item = m_ui->collections->item(i);
        item->setCheckState(ids.contains(item->text()) ? Qt::Checked : Qt::Unchecked);
    }
}

tgraph::FetchOptions FetchDialog::options(QString* error) const
{
    tgraph::FetchOptions o;
    for (int i = 0; i < m_ui->collections->count(); ++i)
        if (m_ui->collections->item(i)->checkState() == Qt::Checked)
            o.collections.push_back(m_ui->collections->item(i)->text().toStdString());
    for (QCheckBox* box : { m_ui->train, m_ui->valid, m_ui->test })
        if (box->isChecked())
            o.splits.push_back(box->objectName().toStdString());
    o.output = m_ui->destination->text().trimmed().toStdString();
    o.mirror = m_ui->mirror->text().trimmed().toStdString();
    if (o.collections.empty())
        *error = tr("Check at least one collection.");
    else if (o.splits.empty())
        *error = tr("Check at least one split.");
    else if (o.output.empty())
        *error = tr("Choose a destination folder.");
    else if (!o.mirror.empty() && !tgraph::isMirrorFolder(o.mirror) && o.mirror.find("://") == std::string::npos)
        *error = tr("The mirror \"%1\" is neither a folder nor a URL (http://, https://, ftp:// or file://).")
                     .arg(QString::fromStdString(o.mirror));
    return o;
}

bool FetchDialog::isRunning() const { return m_channel->isBusy(); }
QString FetchDialog::statusText() const { return m_ui->status->text(); }
QTreeWidget* FetchDialog::planView() const { return m_ui->plan; }
QString FetchDialog::planSummary() const { return m_ui->planSummary->text(); }
bool FetchDialog::isAskingSizes() const { return m_sizeChannel->isBusy(); }

void FetchDialog::showEvent(QShowEvent* event)
{
    QDialog::showEvent(event);
    updatePlan(); // asks the sizes, now that someone looks
}

void FetchDialog::askSizes(const QString& mirror)
{
    m_sizesMirror = mirror;
    m_sizes.clear();
    std::vector<std::string> archives; // all of them at once: ticking another split needs no new request
    for (const auto& c : tgraph::tpuCollections())
        for (const auto& split : tgraph::tpuSplits())
            archives.push_back(tgraph::archiveName(c, split));
    m_sizeChannel->start([this, mirror, archives](JobProgress&) -> JobTracker::Continuation {
        const auto sizes = std::make_shared<const std::vector<tgraph::ArchiveSize>>(
            tgraph::archiveSizes(mirror.toStdString(), archives, kSizeTimeoutSeconds));
        return [this, mirror, sizes] {
            if (mirror != m_sizesMirror)
                return;
            for (const tgraph::ArchiveSize& s : *sizes)
                m_sizes[QString::fromStdString(s.archive)] = { s.bytes, QString::fromStdString(s.problem) };
            updatePlan();
        };
    });
}

void FetchDialog::updatePlan()
{
    m_planTimer->stop();
    QTreeWidget* view = m_ui->plan;
    view->clear();
    QString error;
    tgraph::FetchOptions o = options(&error);
    if (o.collections.empty() || o.splits.empty()) {
        m_ui->planSummary->setText(tr("Check a collection and a split to see what will be downloaded."));
        return;
    }
    std::vector<tgraph::FetchPlanItem> plan;
    try {
        plan = tgraph::planFetch(o);
    } catch (const std::exception& e) {
        m_ui->planSummary->setText(QString::fromStdString(e.what()));
        return;
    }
    const QString mirror = effectiveMirror(m_ui->mirror->text());
    const bool folderMirror = tgraph::isMirrorFolder(mirror.toStdString());
    if (isVisible() && mirror != m_sizesMirror)
        askSizes(mirror);
    const bool asking = m_sizeChannel->isBusy();

    int toDownload = 0, toExtract = 0, present = 0, unknown = 0;
    quint64 bytes = 0; // what will come over the network (or, from a mirror folder, be read)
    for (const tgraph::FetchPlanItem& item : plan) {
        const QString archive = QString::fromStdString(item.archive);
        const auto known = m_sizes.constFind(archive);
        const bool sized = known != m_sizes.constEnd() && known->bytes >= 0;
        QString size = tr("size unknown");
        if (sized)
            size = Formatting::bytes(quint64(known->bytes));
        else if (known == m_sizes.constEnd() && asking)
            size = tr("asking…");
        QString action;
        if (item.present) {
            action = tr("already fetched: skipped");
            ++present;
        } else if (folderMirror) {
            action = tr("read from the mirror folder and extracted");
            ++toExtract;
        } else if (item.downloaded) {
            action = tr("downloaded before: extracted");
            ++toExtract;
        } else if (item.partBytes > 0) {
            action = tr("download resumed after %1, then extracted").arg(Formatting::bytes(item.partBytes));
            ++toDownload;
        } else {
            action = tr("downloaded, then extracted");
            ++toDownload;
        }
        const bool counted = !item.present && (folderMirror || !item.downloaded);
        if (counted && sized)
            bytes += quint64(known->bytes) - std::min<quint64>(quint64(known->bytes), item.partBytes);
        else if (counted)
            ++unknown;
        auto* row = new QTreeWidgetItem(view, { archive, size, action });
        row->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
        row->setToolTip(0,
            tr("%1, %2 split: into %3")
                .arg(QString::fromStdString(item.collection), QString::fromStdString(item.split),
                    QString::fromStdString(item.folder)));
        if (known != m_sizes.constEnd() && !known->problem.isEmpty())
            row->setToolTip(1, known->problem);
    }

    // In words: how many archives, how large, what is skipped.
    const auto archives = [](int n) { return n == 1 ? tr("1 archive") : tr("%1 archives").arg(Formatting::count(n)); };
    const auto amount = [&] {
        if (unknown == 0)
            return Formatting::bytes(bytes);
        if (bytes == 0)
            return asking ? tr("size not known yet") : tr("size unknown");
        return tr("%1 and %2 of unknown size").arg(Formatting::bytes(bytes), Formatting::count(unknown));
    };
    QString text;
    if (folderMirror)
        text = toExtract == 0 ? tr("Nothing to fetch.")
                              : tr("%1 to read from the mirror folder (%2) and extract; nothing is downloaded.")
                                    .arg(archives(toExtract), amount());
    else if (toDownload == 0 && toExtract == 0)
        text = tr("Nothing to download.");
    else if (toDownload == 0)
        text = tr("Nothing to download: %1 downloaded before to extract.").arg(archives(toExtract));
    else
        text = tr("To download: %1, %2.").arg(archives(toDownload), amount());
    if (present > 0)
        text += QLatin1Char(' ') + tr("%1 already fetched (skipped).").arg(Formatting::count(present));
    if (asking && unknown > 0)
        text += QLatin1Char(' ') + tr("Asking the server for the sizes…");
    m_ui->planSummary->setText(text);
}

void FetchDialog::startFetch()
{
    m_banner->dismiss();
    QString error;
    const tgraph::FetchOptions o = options(&error);
    if (!error.isEmpty()) {
        m_banner->addMessage(error, ErrorBanner::Severity::Warning);
        return;
    }
    setRunning(true);
    m_ui->status->setText(tr("Starting…"));
    const QString destination = m_ui->destination->text().trimmed();
    m_channel->start([this, o, destination](JobProgress& progress) -> JobTracker::Continuation {
        const std::vector<tgraph::FetchItem> items = tgraph::fetchTpuGraphs(o, &progress);
        int fetchedCount = 0, present = 0, files = 0;
        uint64_t bytes = 0;
        for (const auto& item : items) {
            (item.present ? present : fetchedCount) += 1;
            files += item.files;
            bytes += item.transferred;
        }
        return [this, destination, done = fetchedCount, present, files, bytes] {
            m_ui->progress->setRange(0, 1);
            m_ui->progress->setValue(1);
            m_ui->status->setText(done == 0
                    ? tr("Nothing to fetch: all %1 archives are already present.").arg(Formatting::count(present))
                    : tr("Fetched %1 archives (%2 transferred, %3 graphs checked); %4 already present.")
                          .arg(Formatting::count(done), Formatting::bytes(bytes), Formatting::count(files),
                              Formatting::count(present)));
            updatePlan();
            Q_EMIT fetched(destination);
        };
    });
}

void FetchDialog::cancelFetch()
{
    if (m_channel->isBusy())
        m_channel->cancel();
}

void FetchDialog::reject()
{
    cancelFetch();
    QDialog::reject();
}

void FetchDialog::setRunning(bool running)
{
    m_fetchButton->setEnabled(!running);
    m_cancelButton->setEnabled(running);
    for (QWidget* w : std::initializer_list<QWidget*> {
             m_ui->collections, m_ui->train, m_ui->valid, m_ui->test, m_ui->destination, m_ui->browse, m_ui->mirror })
        w->setEnabled(!running);
}

} // namespace tgraph::studio
