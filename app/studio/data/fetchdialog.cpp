// SPDX-License-Identifier: Apache-2.0
#include "fetchdialog.h"

#include "ui_fetchdialog.h"

#include "core/data/collections.h"
#include "widgets/common/errorbanner.h"
#include "widgets/common/formatting.h"
#include "widgets/common/jobchannel.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QListWidgetItem>
#include <QPushButton>

#include <memory>

FetchDialog::FetchDialog(QWidget* parent)
    : QDialog(parent)
    , m_ui(std::make_unique<Ui::FetchDialog>())
{
    m_ui->setupUi(this);
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
    connect(m_channel, &JobChannel::failed, this, [this](quint64, const QString& message) {
        setRunning(false);
        m_banner->addMessage(message);
        m_ui->status->setText(tr("Stopped: nothing half-extracted was left; a partial download resumes next time."));
    });
    connect(m_channel, &JobChannel::cancelled, this, [this](quint64) {
        setRunning(false);
        m_ui->status->setText(tr("Cancelled: a partial download resumes next time."));
    });
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
    return o;
}

bool FetchDialog::isRunning() const { return m_channel->isBusy(); }
QString FetchDialog::statusText() const { return m_ui->status->text(); }

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
            setRunning(false);
            m_ui->progress->setRange(0, 1);
            m_ui->progress->setValue(1);
            m_ui->status->setText(done == 0
                    ? tr("Nothing to fetch: all %1 archives are already present.").arg(Formatting::count(present))
                    : tr("Fetched %1 archives (%2 transferred, %3 graphs checked); %4 already present.")
                          .arg(Formatting::count(done), Formatting::bytes(bytes), Formatting::count(files),
                              Formatting::count(present)));
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
