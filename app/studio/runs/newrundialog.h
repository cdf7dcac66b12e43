// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QDialog>
#include <QStringList>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;

// "New run": the `tgraph train` options a user sets most often (only options the command has),
// the model kind the data imply, and the exact command line it will run, copyable, so that a run
// started here can be repeated in a terminal or a script.
class NewRunDialog : public QDialog
{
    Q_OBJECT
public:
    explicit NewRunDialog(const QString& projectPath, QWidget* parent = nullptr);

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

    QString m_project;
    QString m_kind;
    QString m_dataProblem;
    QComboBox* m_data = nullptr;
    QComboBox* m_kindChoice = nullptr;
    QLabel* m_kindLabel = nullptr;
    QLineEdit* m_name = nullptr;
    QLineEdit* m_experiment = nullptr;
    QComboBox* m_crossAttn = nullptr;
    QComboBox* m_family = nullptr;
    QComboBox* m_reduction = nullptr;
    QComboBox* m_loss = nullptr;
    QComboBox* m_length = nullptr; // steps or epochs
    QDoubleSpinBox* m_lengthValue = nullptr;
    QSpinBox* m_configs = nullptr;
    QLineEdit* m_lr = nullptr;
    QLineEdit* m_weightDecay = nullptr;
    QSpinBox* m_folds = nullptr;
    QSpinBox* m_trainFolds = nullptr;
    QSpinBox* m_keep = nullptr;
    QSpinBox* m_evalEvery = nullptr;
    QSpinBox* m_threads = nullptr;
    QComboBox* m_parallel = nullptr;
    QSpinBox* m_processes = nullptr;
    QSpinBox* m_seed = nullptr;
    QLineEdit* m_command = nullptr;
    QLabel* m_problem = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
};
