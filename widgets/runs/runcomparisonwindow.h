// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/store/runcomparison.h"
#include "widgets/runs/runparamsmodel.h"

#include <QDialog>

#include <vector>

class QLabel;
class QTabWidget;

namespace tgraph::widgets {

class RunComparisonView;
class RunParamsView;

// Compare, in a window of its own (docs/studio.md §2.7): the comparison view (metrics table, τ per
// graph, pairwise table) and the parameters that differ, on two tabs. Not modal: the monitor stays
// usable beside it, and a newer Compare replaces what it shows. The first time it opens it takes
// most of the screen it is on (up to 1280 x 820), so it fits a 1366 x 768 laptop screen; it can be
// resized and maximized like any window. It opens centred on its parent's window and inside the
// available geometry of that screen (widgets/common/windowplacement.h).
class RunComparisonWindow : public QDialog
{
    Q_OBJECT
public:
    explicit RunComparisonWindow(QWidget* parent = nullptr);

    // `params`: the compared runs' parameters, in the comparison's order; `title` names the project.
    void setComparison(
        tgraph::RunComparison comparison, std::vector<RunParamsModel::Run> params, const QString& title = {});
    // Shows the window in front (sized to its screen the first time).
    void showInFront();

    RunComparisonView* view() const { return m_view; }
    RunParamsView* paramsView() const { return m_paramsView; }
    RunParamsModel* paramsModel() const { return m_params; }
    QTabWidget* tabs() const { return m_tabs; }

    static constexpr int kMaxWidth = 1280;
    static constexpr int kMaxHeight = 820;
    // The size it opens at on a screen with `available` room: 90% of it, within kMaxWidth x kMaxHeight.
    static QSize initialSize(const QSize& available);

Q_SIGNALS:
    void graphActivated(const QString& graph);

private:
    RunComparisonView* m_view = nullptr;
    RunParamsModel* m_params = nullptr;
    RunParamsView* m_paramsView = nullptr;
    QTabWidget* m_tabs = nullptr;
    bool m_sized = false;
};

} // namespace tgraph::widgets
