// SPDX-License-Identifier: Apache-2.0
#include "collectionview.h"

#include "collectioncheckmodel.h"

#include "widgets/common/errorbanner.h"
#include "widgets/common/formatting.h"
#include "widgets/common/jobchannel.h"
#include "widgets/common/jobcontrol.h"

#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QProgressBar>
#include <QTableView>
#include <QVBoxLayout>

#include <memory>

namespace tgraph::studio {

using namespace tgraph::widgets;

CollectionView::CollectionView(QWidget* parent)
    : QWidget(parent)
    , m_model(new CollectionCheckModel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_banner = new ErrorBanner(this);
    m_banner->hide();
    m_title = new QLabel(tr("Open a collection folder (File > Open Folder…) to check it."), this);
    m_title->setObjectName(QStringLiteral("collectionTitle"));
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_progress = new QProgressBar(this);
    m_progress->setTextVisible(false);
    m_progress->hide();
    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("collectionTable"));
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_problems = new QListWidget(this);
    m_problems->setObjectName(QStringLiteral("collectionProblems"));
    layout->addWidget(m_banner);
    layout->addWidget(m_title);
    layout->addWidget(m_progress);
    layout->addWidget(m_table, 2);
    layout->addWidget(m_problems, 1);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &CollectionView::showProblems);
    connect(m_model, &QAbstractItemModel::modelReset, this, &CollectionView::showProblems);

    m_channel = new JobChannel(JobLane::Io, tr("Check collection"), this);
    auto* control = new JobControl(m_channel, m_progress, m_banner, this);
    connect(control, &JobControl::stopped, this, [this, control] {
        if (control->lastOutcome() == JobControl::Outcome::Failed)
            m_title->setText(tr("%1: not checked").arg(m_folder));
    });
}

bool CollectionView::isBusy() const { return m_channel->isBusy(); }

void CollectionView::openFolder(const QString& folder)
{
    m_folder = folder;
    m_banner->dismiss();
    m_title->setText(tr("Checking %1…").arg(folder));
    const std::string path = folder.toStdString();
    m_channel->start([this, path, folder](JobProgress& progress) -> JobTracker::Continuation {
        auto check = std::make_shared<tgraph::TreeCheck>(tgraph::checkDatasetTree(path, &progress));
        return [this, check, folder] {
            m_title->setText(
                tr("%1: %2 errors, %3 warnings")
                    .arg(folder, Formatting::count(check->errors()), Formatting::count(check->warnings())));
            m_model->setCheck(std::move(*check));
            if (m_model->rowCount() > 0)
                m_table->selectRow(0);
            Q_EMIT checked(folder);
        };
    });
}

void CollectionView::showProblems()
{
    m_problems->clear();
    const int row = m_table->currentIndex().isValid() ? m_table->currentIndex().row() : 0;
    const auto& collections = m_model->check().collections;
    if (row < 0 || size_t(row) >= collections.size())
        return;
    for (const auto& p : collections[size_t(row)].problems)
        m_problems->addItem(QStringLiteral("%1: %2: %3")
                                .arg(p.severity == tgraph::TreeProblem::Severity::Error ? tr("error") : tr("warning"),
                                    QString::fromStdString(p.file), QString::fromStdString(p.problem)));
    if (m_problems->count() == 0)
        m_problems->addItem(tr("No problem in %1.").arg(QString::fromStdString(collections[size_t(row)].id)));
}

} // namespace tgraph::studio
