// SPDX-License-Identifier: Apache-2.0
#include "widgets/runs/runparamsview.h"

#include "widgets/runs/runparamsmodel.h"

#include <QCheckBox>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace tgraph::widgets {

RunParamsView::RunParamsView(RunParamsModel* model, QWidget* parent)
    : QWidget(parent)
    , m_model(model)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    m_onlyDifferences = new QCheckBox(tr("Only parameters that differ"));
    m_onlyDifferences->setChecked(m_model->onlyDifferences());
    m_note = new QLabel;
    m_note->setObjectName(QStringLiteral("paramsNote"));
    m_note->setWordWrap(true);
    m_note->setAlignment(Qt::AlignCenter);
    m_note->setForegroundRole(QPalette::PlaceholderText);
    m_table = new QTableView;
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    layout->addWidget(m_onlyDifferences);
    layout->addWidget(m_note, 1);
    layout->addWidget(m_table, 1);

    connect(m_onlyDifferences, &QCheckBox::toggled, m_model, &RunParamsModel::setOnlyDifferences);
    connect(m_model, &QAbstractItemModel::modelReset, this, &RunParamsView::update);
    update();
}

void RunParamsView::update()
{
    {
        const QSignalBlocker block(m_onlyDifferences); // the model may be switched from elsewhere
        m_onlyDifferences->setChecked(m_model->onlyDifferences());
    }
    const QString empty = m_model->emptyText();
    m_note->setText(empty);
    m_note->setVisible(!empty.isEmpty());
    m_table->setVisible(empty.isEmpty());
    if (empty.isEmpty())
        m_table->resizeColumnToContents(0);
}

} // namespace tgraph::widgets
