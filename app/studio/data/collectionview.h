// SPDX-License-Identifier: Apache-2.0
#pragma once

// A collection folder checked as `tgraph data verify` checks it (docs/formats.md §16.4): the
// summary table, one row per collection, and the problems of the selected collection below it.
// The check runs on the io lane; opening another folder supersedes it.

#include <QWidget>

class QLabel;
class QListWidget;
class QProgressBar;
class QTableView;

namespace tgraph::widgets {
class ErrorBanner;
class JobChannel;
}

namespace tgraph::studio {

class CollectionCheckModel;

class CollectionView : public QWidget
{
    Q_OBJECT

public:
    explicit CollectionView(QWidget* parent = nullptr);

    // Checks `folder` in the background; the table shows it when done.
    void openFolder(const QString& folder);
    QString folder() const { return m_folder; }
    bool isBusy() const;

    CollectionCheckModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QListWidget* problems() const { return m_problems; }
    widgets::ErrorBanner* errorBanner() const { return m_banner; }

Q_SIGNALS:
    void checked(const QString& folder); // the table shows `folder`

private:
    void showProblems();

    QString m_folder;
    widgets::ErrorBanner* m_banner = nullptr;
    QLabel* m_title = nullptr;
    QProgressBar* m_progress = nullptr;
    QTableView* m_table = nullptr;
    QListWidget* m_problems = nullptr;
    CollectionCheckModel* m_model = nullptr;
    widgets::JobChannel* m_channel = nullptr;
};

} // namespace tgraph::studio
