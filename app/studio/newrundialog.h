// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QDialog>
#include <QStringList>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;

// "New run": the options of `tgraph train` a user sets most often, and the exact command line it
// will run (copyable), so a run started here can be repeated in a terminal or a script.
class NewRunDialog : public QDialog
{
    Q_OBJECT
public:
    explicit NewRunDialog(const QString& projectPath, QWidget* parent = nullptr);

    void setDataPath(const QString& path);
    // `tgraph train` arguments without the leading "train" and without --project (the launcher
    // adds both).
    QStringList trainArguments() const;
    // The whole command as a shell line.
    QString commandLine() const;

private:
    void updateCommand();

    QString m_project;
    QLineEdit* m_data = nullptr;
    QLineEdit* m_name = nullptr;
    QLineEdit* m_experiment = nullptr;
    QComboBox* m_crossAttn = nullptr;
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
    QSpinBox* m_seed = nullptr;
    QLineEdit* m_command = nullptr;
};
