// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "app/studio/session/studiosession.h"

#include <QWidget>

class QLabel;
class QSplitter;
class QTabWidget;

namespace tgraph::widgets {
class GraphPane;
}

namespace tgraph::studio {

class ExplainPanel;
class InferencePanel;
class TunePanel;

// The Analysis page (docs/studio.md §0, §5): the model's views of a graph, Inference, Explain and
// Tune, as tabs that take the whole page, beside a graph pane (at least 300 pixels wide) that
// shows the analysed graph with the colours the current view gives its nodes. Explain draws the
// model's own graph in its page, so the side pane folds away while it is in front. The rules
// between the three views live here: Inference's and Tune's "explain this" open Explain on the
// pair; Tune reuses Inference's model while it has not been given another; a selected
// configuration colours the graph by its layout values.
class AnalysisPage : public QWidget
{
    Q_OBJECT
public:
    explicit AnalysisPage(StudioSession* session, QWidget* parent = nullptr);
    ~AnalysisPage() override;

    void showView(AnalysisView view);
    AnalysisView currentView() const;

    InferencePanel* inferencePanel() const { return m_inference; }
    ExplainPanel* explainPanel() const { return m_explain; }
    TunePanel* tunePanel() const { return m_tune; }
    QTabWidget* viewTabs() const { return m_views; }
    // The side pane: the analysed graph with the current overlay.
    widgets::GraphPane* graphPane() const { return m_pane; }
    QWidget* graphPaneContainer() const { return m_paneBox; }
    QSplitter* splitter() const { return m_splitter; }

    QByteArray saveState() const;
    void restoreState(const QByteArray& state);

    static constexpr int kMinimumPaneWidth = 300;

private:
    void updateDocuments();
    void showInPane(const QString& path);
    void onOverlayChanged(const QString& path);
    void onConfigSelected(const QString& path, qint64 config);
    void explainFrom(const QString& a, const QString& b, bool fromTune);
    void updatePaneVisibility();

    StudioSession* m_session;
    QSplitter* m_splitter = nullptr;
    QTabWidget* m_views = nullptr;
    InferencePanel* m_inference = nullptr;
    ExplainPanel* m_explain = nullptr;
    TunePanel* m_tune = nullptr;
    QWidget* m_paneBox = nullptr;
    widgets::GraphPane* m_pane = nullptr;
    QString m_panePath;
};

} // namespace tgraph::studio
