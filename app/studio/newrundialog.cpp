// SPDX-License-Identifier: Apache-2.0
#include "newrundialog.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

namespace {

QString shellQuote(const QString& s)
{
    static const QString safe
        = QStringLiteral("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@");
    if (!s.isEmpty() && std::all_of(s.begin(), s.end(), [](QChar c) { return safe.contains(c); }))
        return s;
    QString quoted = s;
    quoted.replace(QStringLiteral("'"), QStringLiteral("'\\''"));
    return QStringLiteral("'") + quoted + QStringLiteral("'");
}

} // namespace

NewRunDialog::NewRunDialog(const QString& projectPath, QWidget* parent)
    : QDialog(parent)
    , m_project(projectPath)
{
    setWindowTitle(tr("New training run"));
    auto* form = new QFormLayout;
    auto* dataRow = new QHBoxLayout;
    m_data = new QLineEdit;
    m_data->setPlaceholderText(tr("collection directory (train/ and valid/) or .npz files"));
    auto* browse = new QPushButton(tr("Browse…"));
    dataRow->addWidget(m_data, 1);
    dataRow->addWidget(browse);
    form->addRow(tr("Data:"), dataRow);
    m_name = new QLineEdit;
    m_name->setPlaceholderText(tr("run-N"));
    form->addRow(tr("Run name:"), m_name);
    m_experiment = new QLineEdit(QStringLiteral("Default"));
    form->addRow(tr("Experiment:"), m_experiment);
    m_crossAttn = new QComboBox;
    m_crossAttn->addItem(tr("on (the code's default for default collections)"), QStringLiteral("on"));
    m_crossAttn->addItem(tr("off (random collections)"), QStringLiteral("off"));
    form->addRow(tr("Cross-config attention:"), m_crossAttn);
    auto* lengthRow = new QHBoxLayout;
    m_length = new QComboBox;
    m_length->addItem(tr("steps"), QStringLiteral("--steps"));
    m_length->addItem(tr("epochs"), QStringLiteral("--epochs"));
    m_lengthValue = new QDoubleSpinBox;
    m_lengthValue->setRange(0.5, 1e7);
    m_lengthValue->setDecimals(1);
    m_lengthValue->setValue(1000);
    lengthRow->addWidget(m_lengthValue);
    lengthRow->addWidget(m_length);
    form->addRow(tr("Length:"), lengthRow);
    m_configs = new QSpinBox;
    m_configs->setRange(2, 100000);
    m_configs->setValue(64);
    form->addRow(tr("Configs per step:"), m_configs);
    m_lr = new QLineEdit(QStringLiteral("1e-3"));
    form->addRow(tr("Learning rate:"), m_lr);
    m_weightDecay = new QLineEdit(QStringLiteral("1e-5"));
    form->addRow(tr("Weight decay:"), m_weightDecay);
    auto* foldRow = new QHBoxLayout;
    m_folds = new QSpinBox;
    m_folds->setRange(0, 100);
    m_folds->setSpecialValueText(tr("no cross-validation"));
    m_trainFolds = new QSpinBox;
    m_trainFolds->setRange(1, 100);
    m_trainFolds->setValue(5);
    m_keep = new QSpinBox;
    m_keep->setRange(1, 100);
    m_keep->setValue(4);
    foldRow->addWidget(m_folds);
    foldRow->addWidget(new QLabel(tr("trained")));
    foldRow->addWidget(m_trainFolds);
    foldRow->addWidget(new QLabel(tr("kept")));
    foldRow->addWidget(m_keep);
    form->addRow(tr("Folds:"), foldRow);
    m_evalEvery = new QSpinBox;
    m_evalEvery->setRange(0, 10000000);
    m_evalEvery->setValue(100);
    m_evalEvery->setSpecialValueText(tr("only at the end"));
    form->addRow(tr("Validate every:"), m_evalEvery);
    m_threads = new QSpinBox;
    m_threads->setRange(0, 256);
    m_threads->setSpecialValueText(tr("all cores"));
    form->addRow(tr("Threads:"), m_threads);
    m_seed = new QSpinBox;
    m_seed->setRange(0, INT_MAX);
    m_seed->setValue(42);
    form->addRow(tr("Seed:"), m_seed);
    auto* commandRow = new QHBoxLayout;
    m_command = new QLineEdit;
    m_command->setReadOnly(true);
    auto* copy = new QPushButton(tr("Copy"));
    commandRow->addWidget(m_command, 1);
    commandRow->addWidget(copy);
    form->addRow(tr("Command:"), commandRow);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Start"));
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(copy, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(m_command->text()); });
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Training data"));
        if (!dir.isEmpty())
            setDataPath(dir);
    });
    for (QLineEdit* e : { m_data, m_name, m_experiment, m_lr, m_weightDecay })
        connect(e, &QLineEdit::textChanged, this, &NewRunDialog::updateCommand);
    for (QComboBox* c : { m_crossAttn, m_length })
        connect(c, &QComboBox::currentIndexChanged, this, &NewRunDialog::updateCommand);
    for (QSpinBox* s : { m_configs, m_folds, m_trainFolds, m_keep, m_evalEvery, m_threads, m_seed })
        connect(s, &QSpinBox::valueChanged, this, &NewRunDialog::updateCommand);
    connect(m_lengthValue, &QDoubleSpinBox::valueChanged, this, &NewRunDialog::updateCommand);
    updateCommand();
    resize(640, sizeHint().height());
}

void NewRunDialog::setDataPath(const QString& path) { m_data->setText(path); }

QStringList NewRunDialog::trainArguments() const
{
    QStringList a { QStringLiteral("--data"), m_data->text() };
    const bool steps = m_length->currentData().toString() == QStringLiteral("--steps");
    a << m_length->currentData().toString()
      << (steps ? QString::number(qint64(m_lengthValue->value())) : QString::number(m_lengthValue->value()));
    a << QStringLiteral("--configs-per-step") << QString::number(m_configs->value());
    a << QStringLiteral("--cross-attn") << m_crossAttn->currentData().toString();
    a << QStringLiteral("--lr") << m_lr->text().trimmed() << QStringLiteral("--weight-decay")
      << m_weightDecay->text().trimmed();
    if (m_folds->value() > 0)
        a << QStringLiteral("--folds") << QString::number(m_folds->value()) << QStringLiteral("--train-folds")
          << QString::number(m_trainFolds->value()) << QStringLiteral("--keep") << QString::number(m_keep->value());
    a << QStringLiteral("--eval-every") << QString::number(m_evalEvery->value());
    a << QStringLiteral("--threads") << QString::number(m_threads->value());
    a << QStringLiteral("--seed") << QString::number(m_seed->value());
    if (!m_experiment->text().trimmed().isEmpty())
        a << QStringLiteral("--experiment") << m_experiment->text().trimmed();
    if (!m_name->text().trimmed().isEmpty())
        a << QStringLiteral("--run-name") << m_name->text().trimmed();
    return a;
}

QString NewRunDialog::commandLine() const
{
    QStringList parts { QStringLiteral("tgraph"), QStringLiteral("train") };
    for (const QString& a : trainArguments())
        parts << shellQuote(a);
    parts << QStringLiteral("--project") << shellQuote(m_project);
    return parts.join(QLatin1Char(' '));
}

void NewRunDialog::updateCommand() { m_command->setText(commandLine()); }
