// SPDX-License-Identifier: Apache-2.0
#include "app/studio/runs/newrundialog.h"
#include "ui_newrundialog.h"

#include "core/graph/graph.h"
#include "core/graph/graphio.h"
#include "core/io/npz.h"
#include "core/train/trainingset.h"
#include "widgets/common/windowplacement.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

#include <algorithm>
#include <initializer_list>

namespace tgraph::studio {

using namespace tgraph::widgets;

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

// The values behind a combo box's items, in the order of the items of the .ui (nullptr: no value).
void setItemValues(QComboBox* box, std::initializer_list<const char*> values)
{
    Q_ASSERT(box->count() == int(values.size()));
    int index = 0;
    for (const char* value : values)
        box->setItemData(index++, QString::fromLatin1(value));
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
    , m_ui(std::make_unique<Ui::NewRunDialog>())
    , m_project(projectPath)
{
    m_ui->setupUi(this);
    WindowPlacement::placeWhenShown(this);
    // What Designer cannot hold: the values behind the combo boxes' items, the data box's
    // placeholder, the text of the Ok button.
    setItemValues(m_ui->kindChoice, { nullptr, "layout", "tile" });
    setItemValues(m_ui->family, { "tgraph", "tpugraphs-baseline", "kaufman", "tpgnn" });
    setItemValues(m_ui->reduction, { "mean-max", "per-node", "lstm", "transformer" });
    setItemValues(m_ui->loss, { nullptr, "hinge", "logistic", "listmle", "mse" });
    setItemValues(m_ui->crossAttn, { "on", "off" });
    setItemValues(m_ui->length, { "--steps", "--epochs" });
    setItemValues(m_ui->parallel, { nullptr, "workers", "folds" });
    m_ui->data->lineEdit()->setPlaceholderText(
        tr("collection directory (train/, valid/) or .npz files, ';'-separated"));
    m_ui->buttons->button(QDialogButtonBox::Ok)->setText(tr("Start"));

    connect(m_ui->buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_ui->buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_ui->copy, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(commandLine()); });
    connect(m_ui->browseDirectory, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Training data"));
        if (!dir.isEmpty())
            setDataPath(dir);
    });
    connect(m_ui->browseFiles, &QPushButton::clicked, this, [this] {
        const QStringList files
            = QFileDialog::getOpenFileNames(this, tr("Training graphs"), {}, tr("TpuGraphs graphs (*.npz)"));
        if (!files.isEmpty())
            setDataPath(files.join(QLatin1Char(';')));
    });
    connect(m_ui->kindChoice, &QComboBox::currentIndexChanged, this, [this] {
        updateKind();
        updateCommand();
    });
    connect(m_ui->data, &QComboBox::currentTextChanged, this, [this] {
        updateKind();
        updateCommand();
    });
    connect(m_ui->length, &QComboBox::currentIndexChanged, this, [this] {
        const bool steps = m_ui->length->currentData().toString() == QStringLiteral("--steps");
        m_ui->lengthValue->setDecimals(steps ? 0 : 1);
        m_ui->lengthValue->setMinimum(steps ? 1 : 0.1);
        updateCommand();
    });
    connect(m_ui->folds, &QSpinBox::valueChanged, this, [this](int folds) {
        m_ui->trainFolds->setEnabled(folds > 0);
        m_ui->keep->setEnabled(folds > 0);
        if (folds > 0)
            m_ui->trainFolds->setMaximum(folds);
    });
    connect(m_ui->trainFolds, &QSpinBox::valueChanged, m_ui->keep, &QSpinBox::setMaximum);
    for (QLineEdit* e : { m_ui->name, m_ui->experiment, m_ui->lr, m_ui->weightDecay })
        connect(e, &QLineEdit::textChanged, this, &NewRunDialog::updateCommand);
    connect(m_ui->crossAttn, &QComboBox::currentIndexChanged, this, &NewRunDialog::updateCommand);
    connect(m_ui->family, &QComboBox::currentIndexChanged, this, [this] {
        const QString family = m_ui->family->currentData().toString();
        m_ui->reduction->setEnabled(family == QStringLiteral("kaufman"));
        m_ui->crossAttn->setEnabled(family == QStringLiteral("tgraph"));
        updateCommand();
    });
    for (QComboBox* b : { m_ui->reduction, m_ui->loss })
        connect(b, &QComboBox::currentIndexChanged, this, &NewRunDialog::updateCommand);
    connect(m_ui->parallel, &QComboBox::currentIndexChanged, this, [this] {
        m_ui->processes->setEnabled(!m_ui->parallel->currentData().toString().isEmpty());
        updateCommand();
    });
    for (QSpinBox* s : { m_ui->configs, m_ui->folds, m_ui->trainFolds, m_ui->keep, m_ui->evalEvery, m_ui->threads,
             m_ui->seed, m_ui->processes })
        connect(s, &QSpinBox::valueChanged, this, &NewRunDialog::updateCommand);
    connect(m_ui->lengthValue, &QDoubleSpinBox::valueChanged, this, &NewRunDialog::updateCommand);
    updateKind();
    updateCommand();
    resize(720, sizeHint().height());
}

NewRunDialog::~NewRunDialog() = default;

void NewRunDialog::setRecentData(const QStringList& entries)
{
    const QString current = m_ui->data->currentText();
    m_ui->data->clear();
    m_ui->data->addItems(entries);
    m_ui->data->setCurrentText(current.isEmpty() && !entries.isEmpty() ? entries.front() : current);
}

void NewRunDialog::setDataPath(const QString& path) { m_ui->data->setCurrentText(path); }

void NewRunDialog::setModelKind(const QString& kind)
{
    m_ui->kindChoice->setCurrentIndex(std::max(0, m_ui->kindChoice->findData(kind)));
}

void NewRunDialog::setModelFamily(const QString& family, const QString& reduction, const QString& loss)
{
    m_ui->family->setCurrentIndex(std::max(0, m_ui->family->findData(family)));
    m_ui->reduction->setCurrentIndex(std::max(0, m_ui->reduction->findData(reduction)));
    m_ui->loss->setCurrentIndex(std::max(0, m_ui->loss->findData(loss)));
}

void NewRunDialog::setParallel(const QString& mode, int processes)
{
    m_ui->parallel->setCurrentIndex(std::max(0, m_ui->parallel->findData(mode)));
    m_ui->processes->setValue(processes);
}

QStringList NewRunDialog::dataEntries() const
{
    QStringList entries;
    for (const QString& e : m_ui->data->currentText().split(QLatin1Char(';'), Qt::SkipEmptyParts))
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
    const QString chosen = m_ui->kindChoice->currentData().toString();
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
    m_ui->kindLabel->setText(kind.isEmpty() ? tr("— (from the data)")
            : tile                          ? tr("tile data: every step uses all configs of a kernel")
                                            : tr("layout data: configs sampled per step"));
    m_ui->configs->setEnabled(!tile);
}

QString NewRunDialog::problem() const
{
    if (!m_dataProblem.isEmpty())
        return m_dataProblem;
    if (!parsePositive(m_ui->lr->text(), false))
        return tr("The learning rate must be a number > 0");
    if (!parsePositive(m_ui->weightDecay->text(), true))
        return tr("The weight decay must be a number >= 0");
    const QString parallel = m_ui->parallel->currentData().toString();
    if (parallel == QStringLiteral("folds") && m_ui->folds->value() == 0)
        return tr("Folds in parallel need cross-validation folds");
    if (parallel == QStringLiteral("workers") && m_ui->folds->value() > 0)
        return tr("Data-parallel workers train one run: for a cross-validation, run its folds in parallel instead");
    return {};
}

QStringList NewRunDialog::trainArguments() const
{
    const QStringList entries = dataEntries();
    QStringList a { QStringLiteral("--data"), entries.value(0) };
    a << entries.mid(1); // further entries are positionals
    const QString length = m_ui->length->currentData().toString();
    a << length
      << (length == QStringLiteral("--steps") ? QString::number(qint64(m_ui->lengthValue->value()))
                                              : QString::number(m_ui->lengthValue->value()));
    const QString chosen = m_ui->kindChoice->currentData().toString();
    if (!chosen.isEmpty())
        a << QStringLiteral("--kind") << chosen;
    if ((chosen.isEmpty() ? m_kind : chosen) != QStringLiteral("tile"))
        a << QStringLiteral("--configs-per-step") << QString::number(m_ui->configs->value());
    const QString family = m_ui->family->currentData().toString();
    if (family == QStringLiteral("tgraph")) {
        a << QStringLiteral("--cross-attn") << m_ui->crossAttn->currentData().toString();
    } else {
        a << QStringLiteral("--model") << family;
        if (family == QStringLiteral("kaufman"))
            a << QStringLiteral("--reduction") << m_ui->reduction->currentData().toString();
    }
    if (!m_ui->loss->currentData().toString().isEmpty())
        a << QStringLiteral("--loss") << m_ui->loss->currentData().toString();
    a << QStringLiteral("--lr") << m_ui->lr->text().trimmed();
    a << QStringLiteral("--weight-decay") << m_ui->weightDecay->text().trimmed();
    if (m_ui->folds->value() > 0)
        a << QStringLiteral("--folds") << QString::number(m_ui->folds->value()) << QStringLiteral("--train-folds")
          << QString::number(m_ui->trainFolds->value()) << QStringLiteral("--keep")
          << QString::number(m_ui->keep->value());
    a << QStringLiteral("--eval-every") << QString::number(m_ui->evalEvery->value());
    const QString parallel = m_ui->parallel->currentData().toString();
    if (parallel == QStringLiteral("workers"))
        a << QStringLiteral("--launch-local") << QString::number(m_ui->processes->value());
    else if (parallel == QStringLiteral("folds"))
        a << QStringLiteral("--parallel-folds") << QString::number(m_ui->processes->value());
    if (parallel.isEmpty() || m_ui->threads->value() > 0) // else the processes share the cores
        a << QStringLiteral("--threads") << QString::number(m_ui->threads->value());
    a << QStringLiteral("--seed") << QString::number(m_ui->seed->value());
    if (!m_ui->experiment->text().trimmed().isEmpty())
        a << QStringLiteral("--experiment") << m_ui->experiment->text().trimmed();
    if (!m_ui->name->text().trimmed().isEmpty())
        a << QStringLiteral("--run-name") << m_ui->name->text().trimmed();
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
    m_ui->command->setText(commandLine());
    m_ui->command->setCursorPosition(0);
    const QString why = problem();
    m_ui->problem->setText(why);
    m_ui->problem->setVisible(!why.isEmpty());
    m_ui->buttons->button(QDialogButtonBox::Ok)->setEnabled(why.isEmpty());
}

} // namespace tgraph::studio
