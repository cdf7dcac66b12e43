// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "widgets/graph/nodeoverlay.h"

#include "core/view/graphdocument.h"

#include <QImage>
#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QSplitter;
class QTabWidget;
class QToolButton;

namespace tgraph::widgets {

class GraphPane;
class GraphSummaryView;
class OverlayColorBar;

namespace Ui {
class GraphPage;
}

// The tab of one opened graph: the graph view (full graph, optionally beside the pruned graph
// with selection kept in sync), search, navigation history, colour overlays and export; and the
// summary of the file.
class GraphPage : public QWidget
{
    Q_OBJECT
public:
    explicit GraphPage(tgraph::GraphDocumentPtr document, QWidget* parent = nullptr);
    ~GraphPage() override;

    const tgraph::GraphDocumentPtr& document() const { return m_document; }
    GraphSummaryView* summaryView() const { return m_summary; }
    GraphPane* fullPane() const { return m_full; }
    GraphPane* prunedPane() const { return m_pruned; }
    // The pane the user worked in last (zoom, fit and export act on it).
    GraphPane* currentPane() const;
    QSplitter* splitter() const { return m_splitter; }
    QTabWidget* innerTabs() const { return m_inner; }

    // Before / after pruning side by side.
    void setSplit(bool split);
    bool isSplit() const;

    // Selects `node` in both panes and records it in the navigation history.
    void selectNode(int64_t node);
    int64_t selectedNode() const { return m_selected; }
    void showNeighbourhood(int64_t node, int radius);
    void showComputations();
    void showPathsToSelection(); // from the previously selected node to the selected one

    // Search by name, opcode or id; selects the first match. Returns the number of matches.
    int find(const QString& query);
    void findNext();
    void findPrevious();
    void focusSearch();
    // Fits the drawing to its pane; in the split view both panes (Ctrl+0).
    void fitToView();
    int matchCount() const { return int(m_matches.size()); }

    bool canGoBack() const { return m_historyIndex > 0; }
    bool canGoForward() const { return m_historyIndex + 1 < int(m_history.size()); }
    void goBack();
    void goForward();

    // Colour nodes by node_feat column `column` (-1 = by opcode).
    void setOverlayColumn(int column);
    // Colour nodes by any per-node values (a config's layout choices, attributions); an empty
    // overlay goes back to colouring by opcode.
    void setOverlay(NodeOverlay overlay);
    const NodeOverlay& overlay() const { return m_overlay; }

    // The drawing as shown: both panes in the split view, else the current pane.
    QImage renderImage(double scale = 1.0) const;
    bool exportSvg(const QString& path, QString* error) const;
    bool exportPng(const QString& path, QString* error) const;

    QByteArray saveSplitterState() const;
    void restoreSplitterState(const QByteArray& state);

Q_SIGNALS:
    void nodeSelected(qint64 node);
    void historyChanged();
    void message(const QString& text);

private:
    void onPaneSelected(GraphPane* pane, qint64 node);
    void applySelection(int64_t node, GraphPane* origin);
    void record(int64_t node);
    void showMatch();
    void setUpToolBar();
    void setUpLegend();

    tgraph::GraphDocumentPtr m_document;
    std::unique_ptr<Ui::GraphPage> m_ui; // the form: graphpage.ui; the widget pointers below point into it
    GraphPane* m_full = nullptr;
    GraphPane* m_pruned = nullptr;
    GraphPane* m_current = nullptr;
    GraphSummaryView* m_summary = nullptr;
    QTabWidget* m_inner = nullptr;
    QSplitter* m_splitter = nullptr;
    QComboBox* m_modeCombo = nullptr;
    QSpinBox* m_radius = nullptr;
    QToolButton* m_splitButton = nullptr;
    QComboBox* m_colorCombo = nullptr;
    OverlayColorBar* m_colorBar = nullptr;
    QWidget* m_legend = nullptr;
    QLineEdit* m_search = nullptr;
    QLabel* m_matchLabel = nullptr;

    NodeOverlay m_overlay;
    std::vector<int64_t> m_matches;
    int m_matchIndex = -1;
    int64_t m_selected = -1;
    int64_t m_previousSelected = -1;
    std::vector<int64_t> m_history;
    int m_historyIndex = -1;
    bool m_navigating = false;
};

} // namespace tgraph::widgets
