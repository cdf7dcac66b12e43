// SPDX-License-Identifier: Apache-2.0
#pragma once

// Data > Fetch TpuGraphs…: the collections, splits, destination and mirror of `tgraph data fetch`
// (docs/formats.md §16), run as one job of the io lane with progress, Cancel and errors inline
// (docs/studio.md).

#include "core/data/fetch.h"

#include <QDialog>

#include <memory>

namespace Ui {
class FetchDialog;
}
class ErrorBanner;
class JobChannel;
class QPushButton;

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
    ErrorBanner* errorBanner() const { return m_banner; }

public Q_SLOTS:
    void startFetch();
    void cancelFetch();

Q_SIGNALS:
    // A fetch finished: the tree it filled (for the caller to open its collection view).
    void fetched(const QString& destination);

protected:
    void reject() override; // closing while running cancels first

private:
    void setRunning(bool running);

    std::unique_ptr<Ui::FetchDialog> m_ui;
    ErrorBanner* m_banner = nullptr;
    QPushButton* m_fetchButton = nullptr;
    QPushButton* m_cancelButton = nullptr;
    JobChannel* m_channel = nullptr;
};
