// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "app/studio/session/stagepair.h"

#include "widgets/diff/diffresult.h"

#include "core/diffcost/diffmodelscore.h"

#include <QWidget>

#include <optional>

class QAction;
class QLabel;
class QProgressBar;
class QToolButton;

namespace tgraph::widgets {
class DiffView;
class ElidedLabel;
class ErrorBanner;
class JobChannel;
}

namespace tgraph::studio {

class StudioSession;

// The Diff page (docs/studio.md §11): two HLO modules side by side in the diff view. Opened by
// the session's requestDiff() (File › Compare Modules…, a dump folder's "diff with previous
// stage"), or by dropping two files on it. Reading, diffing and pricing run in the background
// (the io lane, channel "Diff") with progress and Cancel (progressWidget(), which the main window
// puts in its status bar); a newer request cancels the one before.
class DiffPage : public QWidget
{
    Q_OBJECT
public:
    explicit DiffPage(StudioSession* session, QWidget* parent = nullptr);
    ~DiffPage() override;

    widgets::DiffView* view() const { return m_view; }
    // Reads both files and shows their diff (the page does not come forward by itself).
    void compare(const QString& pathA, const QString& pathB);
    void cancel();
    bool isBusy() const;
    // Asks for two files and compares them.
    void chooseFiles();
    // The files of the diff shown (or being computed).
    QString pathA() const { return m_pathA; }
    QString pathB() const { return m_pathB; }
    // The diff's progress label, bar and Cancel button, shown while a diff runs: on the page's tool
    // bar until someone (the main window's status bar) takes it.
    QWidget* progressWidget() const { return m_progressBox; }

    // The two stages of a dump-folder module compared, when the diff came from the Passes page
    // (StudioSession::requestStageDiff); invalid otherwise. The bar above the view names the module
    // and both stages (stageText()).
    const StagePair& stagePair() const { return m_pair; }
    QString stageText() const;
    // Steps the pair along the module's stages (-1 the pass before, +1 the one after; Alt+Up and
    // Alt+Down); nothing at the ends.
    void stepPass(int delta);
    QAction* previousPassAction() const { return m_previousPass; }
    QAction* nextPassAction() const { return m_nextPass; }
    // Back to the Passes page with B's stage selected in the timeline.
    void showInTimeline();
    // The history across the module's stages of the instruction selected (B's when both sides
    // have one), asked of the Passes page through the session; false when none is selected or
    // its side is no stage of the open dump folder (said on the status line).
    bool showHistoryOfSelection();

    // The layout model's scores of both sides (docs/diff.md §11), when the session has a model
    // (StudioSession::sharedModel, the Analysis page's) and they are computed: on the model lane,
    // after each diff and when the model changes. modelText() is what the page says about them:
    // the scores, "no model open", "scoring…" or the error.
    const std::optional<tgraph::HloDiffModelScore>& modelScore() const { return m_modelScore; }
    QString modelText() const;
    bool isScoring() const;

Q_SIGNALS:
    void modelScoreShown(); // modelText() holds new scores or an error
    void diffShown(); // a new result is in the view
    void diffFailed(const QString& message);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void setBusy(bool busy);
    void setStagePair(const StagePair& pair);
    void scoreWithModel();
    void showModelText(const QString& text, const QString& toolTip = QString());
    void updateStageActions();
    // The instruction selected on one side (name, and that side's file), when any.
    bool selectedInstruction(bool sideB, QString* path, QString* name) const;

    StudioSession* m_session;
    widgets::DiffView* m_view;
    widgets::ErrorBanner* m_banner;
    widgets::JobChannel* m_channel;
    QToolButton* m_openButton;
    QToolButton* m_swapButton;
    QWidget* m_progressBox;
    QLabel* m_progressLabel;
    QProgressBar* m_progress;
    QToolButton* m_cancelButton;
    QString m_pathA;
    QString m_pathB;
    StagePair m_pair;
    QWidget* m_stageBar;
    widgets::ElidedLabel* m_stageLabel;
    QAction* m_previousPass;
    QAction* m_nextPass;
    QAction* m_timelineAction;
    QAction* m_historyAction;
    widgets::JobChannel* m_modelChannel;
    widgets::ElidedLabel* m_modelLabel;
    std::optional<tgraph::HloDiffModelScore> m_modelScore;
};

} // namespace tgraph::studio
