// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "widgets/diff/diffresult.h"

#include <QWidget>

class DiffView;
class ErrorBanner;
class JobChannel;
class QLabel;
class QProgressBar;
class QToolButton;

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

    DiffView* view() const { return m_view; }
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

Q_SIGNALS:
    void diffShown(); // a new result is in the view
    void diffFailed(const QString& message);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void setBusy(bool busy);

    StudioSession* m_session;
    DiffView* m_view;
    ErrorBanner* m_banner;
    JobChannel* m_channel;
    QToolButton* m_openButton;
    QToolButton* m_swapButton;
    QWidget* m_progressBox;
    QLabel* m_progressLabel;
    QProgressBar* m_progress;
    QToolButton* m_cancelButton;
    QString m_pathA;
    QString m_pathB;
};

} // namespace tgraph::studio
