// SPDX-License-Identifier: Apache-2.0
#include "app/studio/runs/newrundialog.h"

#include "core/graph/graph.h"
#include "core/graph/graphio.h"
#include "core/io/npz.h"
#include "core/train/trainingset.h"

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
#include <climits>

namespace {

// The kind of the first data file ("layout" / "tile"), or InputError naming the problem.
QString detectKind(const QStringList& entries)
{
    std::vector<std::string> list;
    for (const QString& e : entries)
        list.push_back(e.toStdString());
    const std::vector<tgraph::DataFile> files = tgraph::listDataFiles(list);
    if (files.empty())
        throw std::runtime_error("no .npz files");
    const tgraph::NpzReader npz(files.front().path);
    return QString::fromLatin1(tgraph::graphKindName(tgraph::detectGraphKind(npz)));
}

bool parsePositive(const QString& text, bool allowZero)
{
    bool ok = false;
    const double v = text.trimmed().toDouble(&ok);
    return ok && (allowZero ? v >= 0 : v > 0);
}

} // namespace

QString NewRunDialog::shellQuote(const QString& text)
{
    static const QString safe
        = QStringLiteral("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%");
    if (!text.isEmpty() && std::all_of(text.begin(), text.end(), [](QChar c) { return safe.contains(c); }))
        return text;
    QString quoted = text;
    quoted.replace(QStringLiteral("'"), QStringLiteral("'\\''"));
    return QStringLiteral("'") + quoted + QStringLiteral("'");
}

NewRunDialog::NewRunDialog(const QString& projectPath, QWidget* parent)
    : QDialog(parent)
    , m_project(projectPath)
{
    setWindowTitle(tr("New training run"));
    auto* form = new QFormLayout;

    auto* dataRow = new QHBoxLayout;
    m_data = new QComboBox;
    m_data->setEditable(true);
    m_data->setInsertPolicy(QComboBox::NoInsert);
    m_data->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_data->lineEdit()->setPlaceholderText(tr("collection directory (train/, valid/) or .npz files, ';'-separated"));
    m_data->setToolTip(tr("A TpuGraphs collection directory, a directory of .npz files or .npz files; the list "
                          "holds the data of this project's earlier runs"));
    auto* browseDir = new QPushButton(tr("Directory…"));
    auto* browseFiles = new QPushButton(tr("Files…"));
    dataRow->addWidget(m_data, 1);
    dataRow->addWidget(browseDir);
    dataRow->addWidget(browseFiles);
    form->addRow(tr("Data:"), dataRow);
    auto* kindRow = new QHBoxLayout;
    m_kindChoice = new QComboBox;
    m_kindChoice->addItem(tr("as the data say"), QString());
    m_kindChoice->addItem(tr("layout"), QStringLiteral("layout"));
    m_kindChoice->addItem(tr("tile"), QStringLiteral("tile"));
    m_kindChoice->setToolTip(tr("Layout models train on layout graphs, tile models on tile kernels; a chosen kind "
                                "is passed as --kind and data of the other kind are refused"));
    m_kindLabel = new QLabel;
    kindRow->addWidget(m_kindChoice);
    kindRow->addWidget(m_kindLabel, 1);
    form->addRow(tr("Kind:"), kindRow);

    auto* familyRow = new QHBoxLayout;
    m_family = new QComboBox;
    m_family->addItem(tr("TGraph (cross-config attention, pairwise hinge)"), QStringLiteral("tgraph"));
    m_family->addItem(tr("TpuGraphs baseline (SAGE early/late join, ListMLE)"), QStringLiteral("tpugraphs-baseline"));
    m_family->addItem(tr("Kaufman et al. (GraphSAGE + reduction)"), QStringLiteral("kaufman"));
    m_family->addItem(tr("TPGNN (GCN + TopK pooling, MSE)"), QStringLiteral("tpgnn"));
    m_family->setToolTip(tr("The cost models of the seed papers (--model); compare their runs with Compare"));
    m_reduction = new QComboBox;
    for (const char* r : { "mean-max", "per-node", "lstm", "transformer" })
        m_reduction->addItem(QString::fromLatin1(r), QString::fromLatin1(r));
    m_reduction->setToolTip(tr("Kaufman et al.: how node embeddings become the graph's (--reduction)"));
    m_loss = new QComboBox;
    m_loss->addItem(tr("the model's own loss"), QString());
    for (const char* l : { "hinge", "logistic", "listmle", "mse" })
        m_loss->addItem(QString::fromLatin1(l), QString::fromLatin1(l));
    m_loss->setToolTip(tr("--loss: pairwise hinge or logistic, ListMLE, or MSE on the standardized log runtime"));
    familyRow->addWidget(m_family, 1);
    familyRow->addWidget(m_reduction);
    familyRow->addWidget(m_loss);
    form->addRow(tr("Model:"), familyRow);

    m_name = new QLineEdit;
    m_name->setPlaceholderText(tr("run-N"));
    form->addRow(tr("Run name:"), m_name);
    m_experiment = new QLineEdit(QStringLiteral("Default"));
    form->addRow(tr("Experiment:"), m_experiment);
    m_crossAttn = new QComboBox;
    m_crossAttn->addItem(tr("on (the code's choice for default collections)"), QStringLiteral("on"));
    m_crossAttn->addItem(tr("off (the code's choice for random collections)"), QStringLiteral("off"));
    form->addRow(tr("Cross-config attention:"), m_crossAttn);

    auto* lengthRow = new QHBoxLayout;
    m_lengthValue = new QDoubleSpinBox;
    m_lengthValue->setRange(1, 1e8);
    m_lengthValue->setDecimals(0);
    m_lengthValue->setValue(2000);
    m_length = new QComboBox;
    m_length->addItem(tr("steps"), QStringLiteral("--steps"));
    m_length->addItem(tr("epochs"), QStringLiteral("--epochs"));
    lengthRow->addWidget(m_lengthValue, 1);
    lengthRow->addWidget(m_length);
    form->addRow(tr("Length:"), lengthRow);
    m_configs = new QSpinBox;
    m_configs->setRange(2, 1000000);
    m_configs->setValue(64);
    m_configs->setToolTip(tr("Layout configs sampled per step (tile steps use all configs of a kernel)"));
    form->addRow(tr("Configs per step:"), m_configs);
    m_lr = new QLineEdit(QStringLiteral("1e-3"));
    form->addRow(tr("Learning rate:"), m_lr);
    m_weightDecay = new QLineEdit(QStringLiteral("1e-5"));
    form->addRow(tr("Weight decay:"), m_weightDecay);

    auto* foldRow = new QHBoxLayout;
    m_folds = new QSpinBox;
    m_folds->setRange(0, 1000);
    m_folds->setSpecialValueText(tr("none"));
    m_trainFolds = new QSpinBox;
    m_trainFolds->setRange(1, 1000);
    m_trainFolds->setValue(5);
    m_keep = new QSpinBox;
    m_keep->setRange(1, 1000);
    m_keep->setValue(4);
    foldRow->addWidget(m_folds);
    foldRow->addWidget(new QLabel(tr("trained:")));
    foldRow->addWidget(m_trainFolds);
    foldRow->addWidget(new QLabel(tr("kept in the ensemble:")));
    foldRow->addWidget(m_keep);
    form->addRow(tr("Cross-validation folds:"), foldRow);
    m_evalEvery = new QSpinBox;
    m_evalEvery->setRange(0, INT_MAX);
    m_evalEvery->setValue(200);
    m_evalEvery->setSpecialValueText(tr("only at the end"));
    m_evalEvery->setSuffix(tr(" steps"));
    form->addRow(tr("Validate every:"), m_evalEvery);
    auto* parallelRow = new QHBoxLayout;
    m_parallel = new QComboBox;
    m_parallel->addItem(tr("one process"), QString());
    m_parallel->addItem(tr("data-parallel workers"), QStringLiteral("workers"));
    m_parallel->addItem(tr("cross-validation folds in parallel"), QStringLiteral("folds"));
    m_parallel->setToolTip(tr("Data-parallel: each worker takes one graph of every step, gradients are averaged "
                              "over the workers (--launch-local; across machines: --world-size/--rank/--master).\n"
                              "Parallel folds: each fold trains in a process of its own (--parallel-folds), "
                              "often the better use of a few cores."));
    m_processes = new QSpinBox;
    m_processes->setRange(2, 256);
    m_processes->setPrefix(tr("processes: "));
    parallelRow->addWidget(m_parallel, 1);
    parallelRow->addWidget(m_processes);
    form->addRow(tr("Parallel:"), parallelRow);
    m_threads = new QSpinBox;
    m_threads->setRange(0, 1024);
    m_threads->setSpecialValueText(tr("all cores"));
    m_threads->setToolTip(tr("LibTorch threads per process (all cores: shared among parallel processes)"));
    form->addRow(tr("Threads:"), m_threads);
    m_seed = new QSpinBox;
    m_seed->setRange(0, INT_MAX);
    m_seed->setValue(42);
    form->addRow(tr("Seed:"), m_seed);

    auto* commandRow = new QHBoxLayout;
    m_command = new QLineEdit;
    m_command->setReadOnly(true);
    m_command->setObjectName(QStringLiteral("command"));
    auto* copy = new QPushButton(tr("Copy"));
    copy->setToolTip(tr("Copy the command to the clipboard"));
    commandRow->addWidget(m_command, 1);
    commandRow->addWidget(copy);
    form->addRow(tr("Command:"), commandRow);
    m_problem = new QLabel;
    m_problem->setStyleSheet(QStringLiteral("color: #c0392b"));
    m_problem->setWordWrap(true);

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Start"));
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_problem);
    layout->addWidget(m_buttons);

    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(copy, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(commandLine()); });
    connect(browseDir, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Training data"));
        if (!dir.isEmpty())
            setDataPath(dir);
    });
    connect(browseFiles, &QPushButton::clicked, this, [this] {
        const QStringList files
            = QFileDialog::getOpenFileNames(this, tr("Training graphs"), {}, tr("TpuGraphs graphs (*.npz)"));
        if (!files.isEmpty())
            setDataPath(files.join(QLatin1Char(';')));
    });
    connect(m_kindChoice, &QComboBox::currentIndexChanged, this, [this] {
        updateKind();
        updateCommand();
    });
    connect(m_data, &QComboBox::currentTextChanged, this, [this] {
        updateKind();
        updateCommand();
    });
    connect(m_length, &QComboBox::currentIndexChanged, this, [this] {
        const bool steps = m_length->currentData().toString() == QStringLiteral("--steps");
        m_lengthValue->setDecimals(steps ? 0 : 1);
        m_lengthValue->setMinimum(steps ? 1 : 0.1);
        updateCommand();
    });
    connect(m_folds, &QSpinBox::valueChanged, this, [this](int folds) {
        m_trainFolds->setEnabled(folds > 0);
        m_keep->setEnabled(folds > 0);
        if (folds > 0)
            m_trainFolds->setMaximum(folds);
    });
    connect(m_trainFolds, &QSpinBox::valueChanged, m_keep, &QSpinBox::setMaximum);
    for (QLineEdit* e : { m_name, m_experiment, m_lr, m_weightDecay })
        connect(e, &QLineEdit::textChanged, this, &NewRunDialog::updateCommand);
    connect(m_crossAttn, &QComboBox::currentIndexChanged, this, &NewRunDialog::updateCommand);
    connect(m_family, &QComboBox::currentIndexChanged, this, [this] {
        const QString family = m_family->currentData().toString();
        m_reduction->setEnabled(family == QStringLiteral("kaufman"));
        m_crossAttn->setEnabled(family == QStringLiteral("tgraph"));
        updateCommand();
    });
    for (QComboBox* b : { m_reduction, m_loss })
        connect(b, &QComboBox::currentIndexChanged, this, &NewRunDialog::updateCommand);
    connect(m_parallel, &QComboBox::currentIndexChanged, this, [this] {
        m_processes->setEnabled(!m_parallel->currentData().toString().isEmpty());
        updateCommand();
    });
    m_processes->setEnabled(false);
    m_reduction->setEnabled(false);
    for (QSpinBox* s : { m_configs, m_folds, m_trainFolds, m_keep, m_evalEvery, m_threads, m_seed, m_processes })
        connect(s, &QSpinBox::valueChanged, this, &NewRunDialog::updateCommand);
    connect(m_lengthValue, &QDoubleSpinBox::valueChanged, this, &NewRunDialog::updateCommand);
    m_trainFolds->setEnabled(false);
    m_keep->setEnabled(false);
    updateKind();
    updateCommand();
    resize(720, sizeHint().height());
}

void NewRunDialog::setRecentData(const QStringList& entries)
{
    const QString current = m_data->currentText();
    m_data->clear();
    m_data->addItems(entries);
    m_data->setCurrentText(current.isEmpty() && !entries.isEmpty() ? entries.front() : current);
}

void NewRunDialog::setDataPath(const QString& path) { m_data->setCurrentText(path); }

void NewRunDialog::setModelKind(const QString& kind)
{
    m_kindChoice->setCurrentIndex(std::max(0, m_kindChoice->findData(kind)));
}

void NewRunDialog::setModelFamily(const QString& family, const QString& reduction, const QString& loss)
{
    m_family->setCurrentIndex(std::max(0, m_family->findData(family)));
    m_reduction->setCurrentIndex(std::max(0, m_reduction->findData(reduction)));
    m_loss->setCurrentIndex(std::max(0, m_loss->findData(loss)));
}

void NewRunDialog::setParallel(const QString& mode, int processes)
{
    m_parallel->setCurrentIndex(std::max(0, m_parallel->findData(mode)));
    m_processes->setValue(processes);
}

QStringList NewRunDialog::dataEntries() const
{
    QStringList entries;
    for (const QString& e : m_data->currentText().split(QLatin1Char(';'), Qt::SkipEmptyParts))
        if (!e.trimmed().isEmpty())
            entries << e.trimmed();
    return entries;
}

void NewRunDialog::updateKind()
{
    m_kind.clear();
    m_dataProblem.clear();
    const QStringList entries = dataEntries();
    if (entries.isEmpty()) {
        m_dataProblem = tr("Choose the training data");
    } else {
        try {
            m_kind = detectKind(entries);
        } catch (const std::exception& e) {
            m_dataProblem = QString::fromStdString(e.what());
        }
    }
    const QString chosen = m_kindChoice->currentData().toString();
    if (!chosen.isEmpty() && !m_kind.isEmpty() && chosen != m_kind) {
        m_dataProblem = m_kind == QStringLiteral("tile")
            ? tr(
                "The data are tile kernels: a layout model cannot train on them (choose the tile model or layout data)")
            : tr(
                "The data are layout graphs: a tile model cannot train on them (choose the layout model or tile data)");
        m_kind.clear();
    }
    const QString kind = chosen.isEmpty() ? m_kind : chosen;
    const bool tile = kind == QStringLiteral("tile");
    m_kindLabel->setText(kind.isEmpty() ? tr("— (from the data)")
            : tile                      ? tr("tile data: every step uses all configs of a kernel")
                                        : tr("layout data: configs sampled per step"));
    m_configs->setEnabled(!tile);
}

QString NewRunDialog::problem() const
{
    if (!m_dataProblem.isEmpty())
        return m_dataProblem;
    if (!parsePositive(m_lr->text(), false))
        return tr("The learning rate must be a number > 0");
    if (!parsePositive(m_weightDecay->text(), true))
        return tr("The weight decay must be a number >= 0");
    const QString parallel = m_parallel->currentData().toString();
    if (parallel == QStringLiteral("folds") && m_folds->value() == 0)
        return tr("Folds in parallel need cross-validation folds");
    if (parallel == QStringLiteral("workers") && m_folds->value() > 0)
        return tr("Data-parallel workers train one run: for a cross-validation, run its folds in parallel instead");
    return {};
}

QStringList NewRunDialog::trainArguments() const
{
    const QStringList entries = dataEntries();
    QStringList a { QStringLiteral("--data"), entries.value(0) };
    a << entries.mid(1); // further entries are positionals
    const QString length = m_length->currentData().toString();
    a << length
      << (length == QStringLiteral("--steps") ? QString::number(qint64(m_lengthValue->value()))
                                              : QString::number(m_lengthValue->value()));
    const QString chosen = m_kindChoice->currentData().toString();
    if (!chosen.isEmpty())
        a << QStringLiteral("--kind") << chosen;
    if ((chosen.isEmpty() ? m_kind : chosen) != QStringLiteral("tile"))
        a << QStringLiteral("--configs-per-step") << QString::number(m_configs->value());
    const QString family = m_family->currentData().toString();
    if (family == QStringLiteral("tgraph")) {
        a << QStringLiteral("--cross-attn") << m_crossAttn->currentData().toString();
    } else {
        a << QStringLiteral("--model") << family;
        if (family == QStringLiteral("kaufman"))
            a << QStringLiteral("--reduction") << m_reduction->currentData().toString();
    }
    if (!m_loss->currentData().toString().isEmpty())
        a << QStringLiteral("--loss") << m_loss->currentData().toString();
    a << QStringLiteral("--lr") << m_lr->text().trimmed();
    a << QStringLiteral("--weight-decay") << m_weightDecay->text().trimmed();
    if (m_folds->value() > 0)
        a << QStringLiteral("--folds") << QString::number(m_folds->value()) << QStringLiteral("--train-folds")
          << QString::number(m_trainFolds->value()) << QStringLiteral("--keep") << QString::number(m_keep->value());
    a << QStringLiteral("--eval-every") << QString::number(m_evalEvery->value());
    const QString parallel = m_parallel->currentData().toString();
    if (parallel == QStringLiteral("workers"))
        a << QStringLiteral("--launch-local") << QString::number(m_processes->value());
    else if (parallel == QStringLiteral("folds"))
        a << QStringLiteral("--parallel-folds") << QString::number(m_processes->value());
    if (parallel.isEmpty() || m_threads->value() > 0) // else the processes share the cores
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

void NewRunDialog::updateCommand()
{
    m_command->setText(commandLine());
    m_command->setCursorPosition(0);
    const QString why = problem();
    m_problem->setText(why);
    m_problem->setVisible(!why.isEmpty());
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(why.isEmpty());
}
