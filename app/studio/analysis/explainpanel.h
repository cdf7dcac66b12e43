// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "app/studio/analysis/explainjob.h"

#include "widgets/analysis/attributionoverlay.h"

#include <QWidget>

#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTableView;

namespace tgraph::widgets {
class AttributionTableModel;
class ErrorBanner;
class GraphPane;
class JobChannel;
class OverlayColorBar;
}

namespace tgraph::studio {

namespace Ui {
class ExplainPanel;
}

// "Why is #12 faster than the default?": config A against config B of a layout graph, explained by
// the model (model/infer/explain.h) on the explain thread. Shows the scores and ranks of A and B, the
// nodes ranked by counterfactual effect (or share difference), clickable (the graph view selects
// the node), the model's graph with the contribution overlay (diverging map: blue favours A, red
// favours B) which also goes to the main graph view, and a what-if editor: change one configurable
// node's layout (minor-to-major per tensor) of A or B and see the new score and rank.
class ExplainPanel : public QWidget
{
    Q_OBJECT
public:
    explicit ExplainPanel(QWidget* parent = nullptr);
    ~ExplainPanel() override;

    // What to explain: the model, the graph and its config set (ExplainRequest::a / b are ignored:
    // the A and B choices of the panel apply). Clears the shown explanation when the graph changes.
    void setContext(ExplainRequest context);
    const ExplainRequest& context() const { return m_context; }
    // A and B: "fastest", "slowest", "default" or a config id (as shown in the inference table).
    void setConfigs(const QString& a, const QString& b);
    void run();
    void cancel();
    bool isRunning() const;

    // What-if: row `base` (0 = A, 1 = B) with node `fileNode`'s layout per tensor ("1,0", "default").
    void setWhatIfNode(qint64 fileNode);
    void runWhatIf(int base, const QString& out, const QString& in, const QString& kernel);

    const ExplainOutcome* outcome() const { return m_outcome.get(); }
    const WhatIfOutcome* whatIf() const { return m_whatIf.get(); }
    // The overlay for the graph views (empty when none is chosen).
    const widgets::NodeOverlay& overlay() const { return m_overlay; }
    void setOverlayQuantity(int index); // 0 = none, 1 = share A − B, 2 = counterfactual effect
    void setOrder(tgraph::AttributionOrder order);

    widgets::ErrorBanner* banner() const { return m_banner; }
    widgets::AttributionTableModel* tableModel() const { return m_table; }
    QTableView* tableView() const { return m_tableView; }
    widgets::GraphPane* graphPane() const { return m_graph; }
    QLabel* summary() const { return m_summary; }
    QLabel* whatIfResult() const { return m_whatIfResult; }

Q_SIGNALS:
    // A node was clicked in the ranked list (a full-graph id of `graphPath`).
    void nodeActivated(const QString& graphPath, qint64 node);
    // The overlay changed (overlay() holds it; empty = remove it) for the graph `graphPath`.
    void overlayChanged(const QString& graphPath);
    void statusMessage(const QString& message);
    void finished();

private:
    // The banner's conditions (ErrorBanner::showCondition): withdrawn when their cause goes.
    static constexpr const char* kNoGraph = "no-graph";
    static constexpr const char* kNoModel = "no-model";

    void setupUi();
    void showOutcome(std::shared_ptr<const ExplainOutcome> outcome);
    void updateSummary();
    void updateOverlay();
    void updateControls();
    void showWhatIf();
    bool selectorOf(const QString& text, tgraph::ConfigSelector* selector, QString* error) const;

    std::unique_ptr<Ui::ExplainPanel> m_ui; // the form: explainpanel.ui; the widget pointers below point into it
    ExplainRequest m_context;
    widgets::JobChannel* m_channel = nullptr; // the model lane
    widgets::JobChannel* m_whatIfChannel = nullptr;
    std::shared_ptr<const ExplainOutcome> m_outcome;
    std::shared_ptr<const WhatIfOutcome> m_whatIf;
    widgets::NodeOverlay m_overlay;
    qint64 m_whatIfNode = -1;
    int m_whatIfBaseShown = 0; // 0 = A, 1 = B: the config the last what-if edited

    widgets::ErrorBanner* m_banner = nullptr;
    QComboBox* m_configA = nullptr;
    QComboBox* m_configB = nullptr;
    QPushButton* m_runButton = nullptr;
    QPushButton* m_cancelButton = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_summary = nullptr;
    QComboBox* m_order = nullptr;
    QCheckBox* m_differingOnly = nullptr;
    QComboBox* m_overlayChoice = nullptr;
    widgets::AttributionTableModel* m_table = nullptr;
    QTableView* m_tableView = nullptr;
    widgets::GraphPane* m_graph = nullptr;
    widgets::OverlayColorBar* m_colorBar = nullptr;
    QLabel* m_whatIfNodeLabel = nullptr;
    QComboBox* m_whatIfBase = nullptr;
    QLineEdit* m_whatIfOut = nullptr;
    QLineEdit* m_whatIfIn = nullptr;
    QLineEdit* m_whatIfKernel = nullptr;
    QPushButton* m_whatIfButton = nullptr;
    QLabel* m_whatIfResult = nullptr;
};

} // namespace tgraph::studio
