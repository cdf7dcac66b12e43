// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/view/graphdocument.h"

#include <QWidget>

class QAction;
class QSplitter;
class QStackedWidget;
class QTabWidget;
class QTreeWidget;

namespace tgraph::widgets {
class GraphPage;
class GraphSummaryView;
class NodeInspector;
}

namespace tgraph::studio {

class StudioSession;

// The Graph page (docs/studio.md §0): the canvas first. One tab per open graph (a GraphPage:
// graph view, before / after pruning, summary) between two side panels that fold away: the open
// graphs and projects on the left, the node inspector on the right. It keeps the session's list
// of open graphs and answers its requests: overlays of a graph, a node to select, a configuration
// to show (the inspector and the node colours follow it).
class GraphsPage : public QWidget
{
    Q_OBJECT
public:
    explicit GraphsPage(StudioSession* session, QWidget* parent = nullptr);
    ~GraphsPage() override;

    // Adds a tab for `document` under `key` (its path, plus "#k" for one module of several), or
    // replaces the tab with that key; makes it current.
    void showDocument(const tgraph::GraphDocumentPtr& document, const QString& key, const QString& title,
        const QString& toolTip);
    void closeTab(int index);

    QTabWidget* tabWidget() const { return m_tabs; }
    widgets::GraphPage* graphPage(int index) const;
    widgets::GraphPage* currentPage() const;
    // The tab showing the graph read from `path` (a document's path); nullptr when none does.
    widgets::GraphPage* pageForPath(const QString& path) const;
    int indexOfPage(const widgets::GraphPage* page) const;
    std::vector<tgraph::GraphDocumentPtr> documents() const;

    widgets::NodeInspector* inspector() const { return m_inspector; }
    QTreeWidget* sidebar() const { return m_sidebar; }
    QSplitter* splitter() const { return m_splitter; }
    // Fold or unfold the side panels (View menu; the fold state is part of saveState()).
    QAction* graphListAction() const { return m_graphListAction; }
    QAction* inspectorAction() const { return m_inspectorAction; }
    bool isGraphListShown() const;
    bool isInspectorShown() const;

    QByteArray saveState() const;
    void restoreState(const QByteArray& state);

    // The open graphs and projects in the list on the left.
    void updateSidebar();

Q_SIGNALS:
    void currentPageChanged(widgets::GraphPage* page);
    void countChanged(int tabs);
    void openRequested(); // the empty state's Open button

private:
    QWidget* createEmptyState();
    void onCurrentChanged();
    void applyOverlay(const QString& path);
    void overlayConfig(const QString& path, qint64 config);
    void publishDocuments();
    // Tab titles shortened together, so that what tells them apart stays (DistinctNames).
    void updateTabTitles();
    void setPanelShown(int index, bool shown);

    StudioSession* m_session;
    QSplitter* m_splitter = nullptr;
    QStackedWidget* m_centre = nullptr;
    QTabWidget* m_tabs = nullptr;
    QTreeWidget* m_sidebar = nullptr;
    widgets::NodeInspector* m_inspector = nullptr;
    QAction* m_graphListAction = nullptr;
    QAction* m_inspectorAction = nullptr;
    std::vector<int> m_panelWidths; // widths of the side panels before they were folded
    widgets::GraphPage* m_connected = nullptr;
    bool m_inspectorFoldedByUser = false; // else it unfolds when a node is selected
};

} // namespace tgraph::studio
