// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QDialog>
#include <QStringList>

#include <memory>

namespace tgraph::studio {

namespace Ui {
class NewRunDialog;
}

// "New run": the `tgraph train` options a user sets most often (only options the command has),
// the model kind the data imply, and the exact command line it will run, copyable, so that a run
// started here can be repeated in a terminal or a script.
class NewRunDialog : public QDialog
{
    Q_OBJECT
public:
    explicit NewRunDialog(const QString& projectPath, QWidget* parent = nullptr);
    ~NewRunDialog() override;

    // Data the project's runs trained on (newest first) for the data box; the first one is
    // chosen when nothing is yet.
    void setRecentData(const QStringList& entries);
    // One collection directory or .npz file, or several separated by ';'.
    void setDataPath(const QString& path);
    QStringList dataEntries() const;
    // "layout" or "tile" as the data say; empty when they cannot be used (see problem()), also
    // when they are not of the kind chosen.
    QString dataKind() const { return m_kind; }
    // The model kind: "" = as the data say, "layout" or "tile" (passed as --kind).
    void setModelKind(const QString& kind);
    // The architecture of the model zoo: "tgraph", "tpugraphs-baseline", "kaufman" or "tpgnn"
    // (--model); `reduction` (kaufman) and `loss` ("" = the model's own) go with it.
    void setModelFamily(const QString& family, const QString& reduction = {}, const QString& loss = {});
    // How the run uses several processes: "" = one, "workers" = data-parallel workers on this
    // machine (--launch-local N), "folds" = the cross-validation's folds as separate processes,
    // N at a time (--parallel-folds N).
    void setParallel(const QString& mode, int processes = 2);
    // Why the run cannot start (empty when it can).
    QString problem() const;

    // `tgraph train` arguments without "train" and without --project (the launcher adds both).
    QStringList trainArguments() const;
    // The whole command as a shell line.
    QString commandLine() const;
    static QString shellQuote(const QString& text);

private:
    void updateKind();
    void updateCommand();

    std::unique_ptr<Ui::NewRunDialog> m_ui; // the form: newrundialog.ui
    QString m_project;
    QString m_kind;
    QString m_dataProblem;
};

} // namespace tgraph::studio
