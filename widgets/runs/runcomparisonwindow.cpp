// SPDX-License-Identifier: Apache-2.0
#include "widgets/runs/runcomparisonwindow.h"

#include "widgets/runs/runcomparisonview.h"
#include "widgets/runs/runparamsview.h"

#include "widgets/common/windowplacement.h"

#include <QGuiApplication>
#include <QScreen>
#include <QTabWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace tgraph::widgets {

RunComparisonWindow::RunComparisonWindow(QWidget* parent)
    : QDialog(parent, Qt::Window)
    , m_view(new RunComparisonView)
    , m_params(new RunParamsModel(this))
{
    setObjectName(QStringLiteral("runComparisonWindow"));
    setWindowTitle(tr("Compare runs"));
    setModal(false);
    setSizeGripEnabled(true);
    m_params->setOnlyDifferences(true);
    m_paramsView = new RunParamsView(m_params);
    m_tabs = new QTabWidget;
    m_tabs->addTab(m_view, tr("Metrics and τ per graph"));
    m_tabs->addTab(m_paramsView, tr("Parameters"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_tabs);
    connect(m_view, &RunComparisonView::graphActivated, this, &RunComparisonWindow::graphActivated);
    WindowPlacement::placeWhenShown(this); // centred on the monitor's window, inside its screen
}

void RunComparisonWindow::setComparison(
    tgraph::RunComparison comparison, std::vector<RunParamsModel::Run> params, const QString& title)
{
    const int runs = int(comparison.runs.size());
    m_view->setComparison(std::move(comparison));
    m_params->setRuns(std::move(params));
    setWindowTitle(title.isEmpty() ? tr("Compare %n run(s)", nullptr, runs)
                                   : tr("Compare %n run(s) of %1", nullptr, runs).arg(title));
}

QSize RunComparisonWindow::initialSize(const QSize& available)
{
    return { std::min(kMaxWidth, available.width() * 9 / 10), std::min(kMaxHeight, available.height() * 9 / 10) };
}

void RunComparisonWindow::showInFront()
{
    if (!m_sized) {
        // Most of the screen, within kMaxWidth x kMaxHeight: room for the tables and the chart.
        const QScreen* screen = parentWidget() ? parentWidget()->screen() : QGuiApplication::primaryScreen();
        resize(initialSize(screen ? screen->availableGeometry().size() : QSize(kMaxWidth, kMaxHeight)));
        m_sized = true;
    }
    show();
    raise();
    activateWindow();
}

} // namespace tgraph::widgets
