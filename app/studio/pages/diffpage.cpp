// SPDX-License-Identifier: Apache-2.0
#include "app/studio/pages/diffpage.h"

#include "app/studio/common/studiolog.h"
#include "app/studio/session/studiosession.h"

#include "widgets/common/errorbanner.h"
#include "widgets/common/jobchannel.h"
#include "widgets/common/jobcontrol.h"
#include "widgets/common/jobprogress.h"
#include "widgets/diff/diffview.h"

#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMimeData>
#include <QProgressBar>
#include <QSettings>
#include <QStyle>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>

namespace tgraph::studio {

namespace {

const QString kLastDirKey = QStringLiteral("DiffPage/lastDir");

QStringList droppedFiles(const QMimeData* mime)
{
    QStringList files;
    if (mime && mime->hasUrls())
        for (const QUrl& url : mime->urls())
            if (url.isLocalFile() && QFileInfo(url.toLocalFile()).isFile())
                files << url.toLocalFile();
    return files;
}

} // namespace

DiffPage::DiffPage(StudioSession* session, QWidget* parent)
    : QWidget(parent)
    , m_session(session)
    , m_view(new DiffView(this))
    , m_banner(new ErrorBanner(this))
    , m_channel(new JobChannel(JobLane::Io, QStringLiteral("Diff"), this))
    , m_openButton(new QToolButton(this))
    , m_swapButton(new QToolButton(this))
    , m_progressBox(new QWidget(this))
    , m_progressLabel(new QLabel(m_progressBox))
    , m_progress(new QProgressBar(m_progressBox))
    , m_cancelButton(new QToolButton(m_progressBox))
{
    setObjectName(QStringLiteral("diffPage"));
    setAcceptDrops(true);
    m_openButton->setObjectName(QStringLiteral("compareButton"));
    m_openButton->setText(tr("Compare Modules…"));
    m_openButton->setIcon(QIcon::fromTheme(QStringLiteral("document-open")));
    m_openButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_openButton->setAutoRaise(true);
    m_openButton->setToolTip(tr("Choose two HLO modules A and B (text, protobuf, .gz / .xz dump stages); "
                                "or drop two files on this page"));
    connect(m_openButton, &QToolButton::clicked, this, &DiffPage::chooseFiles);
    m_swapButton->setObjectName(QStringLiteral("swapButton"));
    m_swapButton->setText(tr("Swap A and B"));
    m_swapButton->setIcon(QIcon::fromTheme(QStringLiteral("object-flip-horizontal")));
    m_swapButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_swapButton->setAutoRaise(true);
    m_swapButton->setEnabled(false);
    connect(m_swapButton, &QToolButton::clicked, this, [this] { compare(m_pathB, m_pathA); });
    m_progress->setObjectName(QStringLiteral("diffProgress"));
    m_progress->setMaximumWidth(220);
    m_progress->setTextVisible(false);
    m_cancelButton->setObjectName(QStringLiteral("diffCancelButton"));
    m_cancelButton->setText(tr("Cancel"));
    m_cancelButton->setIcon(style()->standardIcon(QStyle::SP_DialogCancelButton));
    m_cancelButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_cancelButton->setAutoRaise(true);
    m_cancelButton->setToolTip(tr("Stop the diff"));

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 0);
    bar->setSpacing(6);
    bar->addWidget(m_openButton);
    bar->addWidget(m_swapButton);
    bar->addStretch(1);
    auto* box = new QHBoxLayout(m_progressBox);
    box->setContentsMargins(0, 0, 0, 0);
    box->setSpacing(6);
    box->addWidget(m_progressLabel);
    box->addWidget(m_progress);
    box->addWidget(m_cancelButton);
    m_progressBox->setObjectName(QStringLiteral("diffProgressBox"));
    bar->addWidget(m_progressBox);
    layout->addLayout(bar);
    auto* bannerMargins = new QVBoxLayout;
    bannerMargins->setContentsMargins(6, 2, 6, 0);
    bannerMargins->addWidget(m_banner);
    layout->addLayout(bannerMargins);
    layout->addWidget(m_view, 1);
    setBusy(false);

    // The bar, Cancel, the banner's error and "cancelled" on the status line: the studio's one job
    // control (docs/studio.md §3.7); the label says which step runs.
    auto* control = new JobControl(m_channel, m_progress, m_banner, this);
    control->setCancelButton(m_cancelButton);
    control->setCancelledMessage(tr("Diff cancelled"));
    connect(control, &JobControl::statusMessage, m_session, &StudioSession::showMessage);
    connect(control, &JobControl::busyChanged, this, &DiffPage::setBusy);
    connect(m_channel, &JobChannel::progressChanged, this,
        [this](quint64, const QString& label, quint64, quint64) { m_progressLabel->setText(label); });
    connect(m_channel, &JobChannel::failed, this, [this](quint64, const QString& message) {
        qCWarning(lcStudio).noquote() << "diff failed:" << message;
        Q_EMIT diffFailed(message);
    });
    connect(m_view, &DiffView::message, m_session, &StudioSession::showMessage);
    connect(m_session, &StudioSession::diffRequested, this, [this](const QString& a, const QString& b) {
        compare(a, b);
        m_session->requestPage(Page::Diff);
    });
}

DiffPage::~DiffPage() = default; // m_channel cancels and waits

bool DiffPage::isBusy() const { return m_channel->isBusy(); }

void DiffPage::setBusy(bool busy)
{
    m_progressBox->setVisible(busy);
    m_swapButton->setEnabled(!busy && m_view->result());
}

void DiffPage::cancel() { m_channel->cancel(); }

void DiffPage::compare(const QString& pathA, const QString& pathB)
{
    m_pathA = QFileInfo(pathA).absoluteFilePath();
    m_pathB = QFileInfo(pathB).absoluteFilePath();
    m_banner->dismiss();
    m_progressLabel->setText(tr("Reading %1").arg(QFileInfo(m_pathA).fileName()));
    setBusy(true);
    auto timer = std::make_shared<QElapsedTimer>();
    timer->start();
    m_channel->start([this, a = m_pathA.toStdString(), b = m_pathB.toStdString(), timer](
                         JobProgress& progress) -> JobTracker::Continuation {
        DiffResultPtr result;
        try {
            result = computeDiff(a, b, &progress);
        } catch (const std::bad_alloc&) {
            throw std::runtime_error("not enough memory to compare these modules");
        }
        return [this, result, timer] {
            m_view->setResult(result);
            m_swapButton->setEnabled(true);
            const tgraph::HloDiff& d = result->diff;
            qCDebug(lcStudio) << "diff shown in" << timer->elapsed() << "ms";
            m_session->showMessage(d.same()
                    ? tr("The modules are the same")
                    : tr("Compared %1 with %2").arg(QFileInfo(m_pathA).fileName(), QFileInfo(m_pathB).fileName()));
            Q_EMIT diffShown();
        };
    });
}

void DiffPage::chooseFiles()
{
    QSettings settings;
    const QString dir = settings.value(kLastDirKey, QDir::homePath()).toString();
    const QString filter = tr("HLO modules (*.hlo *.txt *.pb *.gz *.xz);;All files (*)");
    QStringList files = QFileDialog::getOpenFileNames(this, tr("Compare Modules: A (and B)"), dir, filter);
    if (files.isEmpty())
        return;
    settings.setValue(kLastDirKey, QFileInfo(files.front()).absolutePath());
    if (files.size() == 1) {
        const QString b = QFileDialog::getOpenFileName(
            this, tr("Compare Modules: B"), QFileInfo(files.front()).absolutePath(), filter);
        if (b.isEmpty())
            return;
        files << b;
    }
    if (files.size() != 2) {
        m_banner->addMessage(tr("Choose two modules to compare, not %1").arg(files.size()));
        return;
    }
    compare(files[0], files[1]);
}

void DiffPage::dragEnterEvent(QDragEnterEvent* event)
{
    if (droppedFiles(event->mimeData()).size() == 2)
        event->acceptProposedAction();
}

void DiffPage::dropEvent(QDropEvent* event)
{
    const QStringList files = droppedFiles(event->mimeData());
    if (files.size() != 2)
        return;
    event->acceptProposedAction();
    compare(files[0], files[1]);
}

} // namespace tgraph::studio
