// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "app/studio/analysis/explainjob.h"

#include "core/view/graphdocument.h"
#include "core/tune/tunesearch.h"
#include "widgets/graph/nodeoverlay.h"

#include <QWidget>

#include <map>
#include <memory>
#include <mutex>
#include <vector>

class QCheckBox;
class QChart;
class QComboBox;
class QLabel;
class QLineSeries;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QStandardItemModel;
class QTableView;
class QTimer;

namespace tgraph::widgets {
class ErrorBanner;
class JobChannel;
class NiceAxis;
}

namespace tgraph::studio {

namespace Ui {
class TunePanel;
}

// What the search reports while it runs (written on the tune thread, read by the panel's timer).
struct TuneLive
{
    std::mutex mutex;
    std::vector<double> bestScore; // per batch: best predicted score so far
    std::vector<int64_t> evaluations; // per batch: candidates scored so far
    std::vector<double> bestRuntime; // per batch: simulated ns of the best so far (NaN: not simulated)
};

// One finished search, as the panel shows it.
struct TuneView
{
    std::string path; // the graph
    tgraph::GraphKind kind = tgraph::GraphKind::Layout;
    std::string verification; // "simulated", "measured" or ""
    QString simulatorProblem; // why the simulator could not verify this graph ("" = it could)
    int64_t evaluated = 0;
    double seconds = 0;
    int winner = 0; // rank to apply, 0 = keep the default
    struct Row
    {
        int rank = 0; // 0 = the compiler default
        double score = 0;
        double searchScore = 0;
        double runtime = 0; // NaN = not verified
        int changedNodes = 0;
        std::string layouts; // the changed layouts, one line per instruction
        std::vector<float> values; // the config row (layout: Nc x 18)
    };
    std::vector<Row> rows; // the default first, then the top-k
    std::vector<int64_t> configurableNodes; // layout: the configurable nodes (full-graph ids)
    std::vector<std::string> weights;
};

// The autotuner (model/facade/autotuner.h) in the studio: pick a graph, a model, a strategy and a budget;
// the search runs on its own thread with a live best-so-far curve (predicted score, and the
// simulated runtime of the best when verifying with the simulator) and Cancel; the top-k table
// (re-scored together, verified) links to the explain view ("why is #3 faster than the default?")
// and colours the graph view's nodes whose layouts the selected config changes.
class TunePanel : public QWidget
{
    Q_OBJECT
public:
    explicit TunePanel(QWidget* parent = nullptr);
    ~TunePanel() override;

    void setDocuments(const std::vector<tgraph::GraphDocumentPtr>& documents, const tgraph::GraphDocumentPtr& current);
    void setModelFiles(const QStringList& files);
    QStringList modelFiles() const; // as typed (';'-separated entries)
    void setStrategy(tgraph::TuneStrategy strategy);
    void setBudget(int budget);
    void setBatch(int batch);
    // Verify the top-k with the simulator when the selected graph's HLO module is known (the check box
    // is ticked then); without a module the box stays unticked and disabled, its tooltip says why.
    void setSimulate(bool simulate);
    // Why the selected graph cannot be verified with the simulator; empty when it can.
    QString simulatorProblem() const;
    // True while the selected graph's module is being looked for (a `tgraph synth` graph's module is
    // generated again off the GUI thread); the check box is disabled meanwhile.
    bool isCheckingModule() const;

    void run();
    void cancel();
    bool isRunning() const;

    const TuneView* result() const { return m_view.get(); }
    // Selects a row of the top-k table (0 = the default): overlay and explain follow it.
    void selectRow(int row);
    const widgets::NodeOverlay& overlay() const { return m_overlay; }
    // The explain view's request for the selected row against the default.
    ExplainRequest explainContext() const;

    widgets::ErrorBanner* banner() const { return m_banner; }
    QChart* chart() const { return m_chart; }
    QStandardItemModel* tableModel() const { return m_table; }
    QLabel* summary() const { return m_summary; }

Q_SIGNALS:
    void statusMessage(const QString& message);
    void finished();
    void overlayChanged(const QString& graphPath); // overlay(); empty = remove it
    void explainRequested(); // explainContext() against the default

private:
    void updateLive();
    void showView();
    void browseModel();
    // The check box "Verify with the simulator" for the selected graph (docs/studio.md §5.6).
    void updateVerification();
    tgraph::GraphDocumentPtr currentDocument() const;

    widgets::JobChannel* m_channel = nullptr; // the model lane
    std::vector<tgraph::GraphDocumentPtr> m_documents;
    std::shared_ptr<TuneLive> m_live;
    std::shared_ptr<const TuneView> m_view;
    tgraph::GraphDocumentPtr m_viewDocument;
    size_t m_livePoints = 0;
    int m_selectedRow = -1;
    widgets::NodeOverlay m_overlay;
    bool m_simulateWanted = true; // the user's choice, applied when the graph's module is known
    std::map<const tgraph::GraphDocument*, QString> m_simulatorProblems; // per open document
    widgets::JobChannel* m_moduleCheck = nullptr; // looks for a synth graph's module (io lane)
    const tgraph::GraphDocument* m_checking = nullptr; // the document it looks at
    // The banner's conditions (ErrorBanner::showCondition): withdrawn when their cause goes.
    static constexpr const char* kNoGraph = "no-graph";
    static constexpr const char* kNoModel = "no-model";

    std::unique_ptr<Ui::TunePanel> m_ui; // the form: tunepanel.ui; the widget pointers below point into it
    widgets::ErrorBanner* m_banner = nullptr;
    QComboBox* m_graph = nullptr;
    QComboBox* m_model = nullptr;
    QComboBox* m_strategy = nullptr;
    QSpinBox* m_budget = nullptr;
    QSpinBox* m_batch = nullptr;
    QSpinBox* m_topK = nullptr;
    QSpinBox* m_seed = nullptr;
    QCheckBox* m_simulate = nullptr;
    QPushButton* m_runButton = nullptr;
    QPushButton* m_cancelButton = nullptr;
    QPushButton* m_explainButton = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_summary = nullptr;
    QChart* m_chart = nullptr;
    QLineSeries* m_scoreSeries = nullptr;
    QLineSeries* m_runtimeSeries = nullptr;
    widgets::NiceAxis* m_xAxis = nullptr;
    widgets::NiceAxis* m_scoreAxis = nullptr;
    widgets::NiceAxis* m_runtimeAxis = nullptr;
    QStandardItemModel* m_table = nullptr;
    QTableView* m_tableView = nullptr;
    QTimer* m_liveTimer = nullptr;
};

} // namespace tgraph::studio
