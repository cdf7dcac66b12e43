// SPDX-License-Identifier: Apache-2.0
#pragma once

// Data > Fetch TpuGraphs…: the collections, splits, destination and mirror of `tgraph data fetch`
// (docs/formats.md §16), run as one job of the io lane with progress, Cancel and errors inline
// (docs/studio.md §1.1). Before it starts, the dialog lists the archives of the collections and
// splits checked, with their sizes (the mirror folder's files, or the server's answer to a HEAD
// request, asked once per mirror while the dialog is shown; "size unknown" when it does not tell)
// and what the fetch will do with each (download, resume, skip).

#include "core/data/fetch.h"

#include <QDialog>
#include <QHash>

#include <memory>

class QLabel;
class QPushButton;
class QTimer;
class QTreeWidget;

namespace tgraph::widgets {
class ErrorBanner;
class JobChannel;
}

namespace tgraph::studio {

namespace Ui {
class FetchDialog;
}

class FetchDialog : public QDialog
{
    Q_OBJECT

public:
    explicit FetchDialog(QWidget* parent = nullptr);
    ~FetchDialog() override;

    void setDestination(const QString& folder);
    void setMirror(const QString& mirror);
    // Checks only these collections (ids as "tile:xla").
    void setCollections(const QStringList& ids);
    // The options the form stands for; `error` says what is missing when it cannot run.
    tgraph::FetchOptions options(QString* error) const;

    bool isRunning() const;
    QString statusText() const;
    widgets::ErrorBanner* errorBanner() const { return m_banner; }
    // What the fetch would do: one row per archive (archive, size, what happens) and its summary.
    QTreeWidget* planView() const;
    QString planSummary() const;
    // True while the archives' sizes are being asked.
    bool isAskingSizes() const;

public Q_SLOTS:
    void startFetch();
    void cancelFetch();

Q_SIGNALS:
    // A fetch finished: the tree it filled (for the caller to open its collection view).
    void fetched(const QString& destination);

protected:
    void reject() override; // closing while running cancels first
    void showEvent(QShowEvent* event) override;

private:
    void setRunning(bool running);
    // The plan of the options as they stand (planFetch) with the sizes known; asks the sizes when the
    // mirror changed and the dialog is shown.
    void updatePlan();
    void askSizes(const QString& mirror);

    struct Size
    {
        qint64 bytes = -1; // -1: unknown
        QString problem;
    };

    std::unique_ptr<Ui::FetchDialog> m_ui;
    widgets::ErrorBanner* m_banner = nullptr;
    QPushButton* m_fetchButton = nullptr;
    QPushButton* m_cancelButton = nullptr;
    widgets::JobChannel* m_channel = nullptr;
    widgets::JobChannel* m_sizeChannel = nullptr; // the HEAD requests, beside the fetch in the io lane
    QTimer* m_planTimer = nullptr; // an update after the typing stops
    QString m_sizesMirror; // the mirror m_sizes were asked of (or are being asked of)
    QHash<QString, Size> m_sizes; // by archive name
};

} // namespace tgraph::studio
