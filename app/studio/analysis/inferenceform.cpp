// SPDX-License-Identifier: Apache-2.0
#include "app/studio/analysis/inferenceform.h"

#include "ui_inferenceform.h"

#include "widgets/common/formatting.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLineEdit>

#include <algorithm>

namespace tgraph::studio {

using namespace tgraph::widgets;

InferenceForm::InferenceForm(QWidget* parent)
    : QWidget(parent)
    , m_ui(std::make_unique<Ui::InferenceForm>())
{
    m_ui->setupUi(this);
    m_ui->model->lineEdit()->setPlaceholderText(tr("weights or ensemble .npz, checkpoint, or ensemble.json"));
    m_ui->configSet->addItem(tr("All configs of the file"), int(ConfigSetKind::All));
    m_ui->configSet->addItem(tr("Sampled subset"), int(ConfigSetKind::Sample));
    m_ui->configSet->addItem(tr("Generated candidates (HLO module, simulated)"), int(ConfigSetKind::Generate));
    m_ui->store->addItem(tr("Do not store"), QString());

    connect(m_ui->browseModel, &QPushButton::clicked, this, &InferenceForm::browseModel);
    // The same chooser: a training run offers its model, a run of kind "inference" its stored results.
    connect(m_ui->modelFromRun, &QPushButton::clicked, this, &InferenceForm::storedRunRequested);
    connect(m_ui->openStored, &QPushButton::clicked, this, &InferenceForm::storedRunRequested);
    connect(m_ui->browseCollection, &QPushButton::clicked, this, &InferenceForm::browseCollection);
    connect(m_ui->model, &QComboBox::currentTextChanged, this, &InferenceForm::updateMembers);
    connect(m_ui->model, &QComboBox::currentTextChanged, this, [this] { Q_EMIT modelChanged(modelFiles()); });
    connect(m_ui->target, &QComboBox::currentIndexChanged, this, &InferenceForm::updateControls);
    connect(m_ui->configSet, &QComboBox::currentIndexChanged, this, &InferenceForm::updateControls);
    connect(m_ui->run, &QPushButton::clicked, this, &InferenceForm::runRequested);
    connect(m_ui->cancel, &QPushButton::clicked, this, &InferenceForm::cancelRequested);
    updateControls();
}

InferenceForm::~InferenceForm() = default;

void InferenceForm::setDocuments(
    const std::vector<tgraph::GraphDocumentPtr>& documents, const tgraph::GraphDocumentPtr& current)
{
    m_documents = documents;
    const QSignalBlocker block(m_ui->target);
    m_ui->target->clear();
    int currentIndex = -1;
    for (size_t i = 0; i < documents.size(); ++i) {
        const auto& d = documents[i];
        m_ui->target->addItem(
            tr("%1 (%2 configs)").arg(QString::fromStdString(d->title), Formatting::count(d->configCount())));
        if (d == current)
            currentIndex = int(i);
    }
    m_ui->target->addItem(tr("Collection directory"));
    m_ui->target->setCurrentIndex(std::max(currentIndex, 0));
    updateControls();
}

void InferenceForm::setProjects(const QStringList& projectPaths)
{
    const QString current = m_ui->store->currentData().toString();
    const QSignalBlocker block(m_ui->store);
    m_ui->store->clear();
    m_ui->store->addItem(tr("Do not store"), QString());
    for (const QString& p : projectPaths)
        m_ui->store->addItem(QFileInfo(p).fileName(), p);
    const int index = m_ui->store->findData(current);
    m_ui->store->setCurrentIndex(index >= 0 ? index : (projectPaths.isEmpty() ? 0 : 1));
}

void InferenceForm::setStoreInProject(const QString& projectPath)
{
    if (projectPath.isEmpty()) {
        m_ui->store->setCurrentIndex(0);
        return;
    }
    int index = m_ui->store->findData(projectPath);
    if (index < 0) {
        m_ui->store->addItem(QFileInfo(projectPath).fileName(), projectPath);
        index = m_ui->store->count() - 1;
    }
    m_ui->store->setCurrentIndex(index);
}

void InferenceForm::setModelFiles(const QStringList& files)
{
    m_ui->model->setCurrentText(files.join(QLatin1Char(';')));
    updateMembers();
}

void InferenceForm::setCollection(const QString& directory)
{
    m_ui->collection->setText(directory);
    m_ui->target->setCurrentIndex(m_ui->target->count() - 1);
}

void InferenceForm::setConfigSet(ConfigSetKind kind, int64_t count)
{
    m_ui->configSet->setCurrentIndex(m_ui->configSet->findData(int(kind)));
    m_ui->count->setValue(int(std::min<int64_t>(count, m_ui->count->maximum())));
}

void InferenceForm::setBusy(bool busy)
{
    m_busy = busy;
    updateControls();
}

void InferenceForm::browseModel()
{
    const QStringList files = QFileDialog::getOpenFileNames(
        this, tr("Choose a model"), QString(), tr("Models (*.npz *.pt *.ckpt *.json);;All files (*)"));
    if (!files.isEmpty())
        setModelFiles(files);
}

void InferenceForm::browseCollection()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Choose a collection directory"));
    if (!dir.isEmpty())
        setCollection(dir);
}

void InferenceForm::updateMembers()
{
    m_ui->members->clear();
    const std::vector<std::string> args = weights();
    if (args.empty())
        return;
    try {
        for (const std::string& f : expandModelFiles(args)) {
            auto* item = new QListWidgetItem(QFileInfo(QString::fromStdString(f)).fileName(), m_ui->members);
            item->setToolTip(QString::fromStdString(f));
            item->setCheckState(Qt::Checked);
        }
    } catch (const std::exception& e) {
        // Shown when the user runs; the list stays empty meanwhile.
        m_ui->members->addItem(QString::fromStdString(e.what()));
    }
    updateControls();
}

void InferenceForm::updateControls()
{
    const bool collection = !chosenDocument();
    m_ui->collection->setVisible(collection);
    const auto kind = ConfigSetKind(m_ui->configSet->currentData().toInt());
    m_ui->count->setEnabled(!collection && kind != ConfigSetKind::All);
    m_ui->configSet->setEnabled(!collection);
    m_ui->run->setEnabled(!m_busy);
    m_ui->cancel->setEnabled(m_busy);
}

std::vector<std::string> InferenceForm::weights() const
{
    std::vector<std::string> entries;
    for (const QString& e : m_ui->model->currentText().split(QLatin1Char(';'), Qt::SkipEmptyParts))
        entries.push_back(e.trimmed().toStdString());
    return entries;
}

QStringList InferenceForm::modelFiles() const
{
    QStringList files;
    for (const std::string& w : weights())
        files << QString::fromStdString(w);
    return files;
}

QString InferenceForm::collectionToScore(const QString& directory, QString* problem, QString* note)
{
    const QDir dir(directory);
    if (!dir.exists()) {
        *problem = tr("The collection directory %1 does not exist").arg(QDir::toNativeSeparators(directory));
        return {};
    }
    const QStringList npz = QStringList { QStringLiteral("*.npz") };
    if (!dir.entryList(npz, QDir::Files).isEmpty())
        return directory;
    // A collection root as `tgraph synth --collection` and the TpuGraphs data lay it out, which New
    // run takes (it trains on train/ and validates on valid/): its valid/ graphs, held out of
    // training, else its train/ graphs. test/ has no published runtimes; choose it by itself.
    for (const QString& split : { QStringLiteral("valid"), QStringLiteral("train") }) {
        const QDir sub(dir.filePath(split));
        if (sub.exists() && !sub.entryList(npz, QDir::Files).isEmpty()) {
            if (note)
                *note = tr("%1 is a collection: scoring its %2/ graphs")
                            .arg(QDir::toNativeSeparators(dir.dirName()), split);
            return sub.path();
        }
    }
    QStringList withGraphs;
    for (const QString& sub : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
        if (!QDir(dir.filePath(sub)).entryList(npz, QDir::Files).isEmpty())
            withGraphs << sub + QLatin1Char('/');
    if (withGraphs.isEmpty())
        *problem = tr("%1 holds no .npz graphs").arg(QDir::toNativeSeparators(directory));
    else
        *problem = tr("%1 holds no .npz graphs itself; choose one of its folders as the collection: %2")
                       .arg(QDir::toNativeSeparators(directory), withGraphs.join(QStringLiteral(", ")));
    return {};
}

tgraph::GraphDocumentPtr InferenceForm::chosenDocument() const
{
    const int index = m_ui->target->currentIndex();
    return index >= 0 && size_t(index) < m_documents.size() ? m_documents[size_t(index)] : nullptr;
}

QString InferenceForm::collection() const { return m_ui->collection->text(); }

int InferenceForm::batchConfigs() const { return m_ui->batch->value(); }

QStringList InferenceForm::projects() const
{
    QStringList paths;
    for (int i = 1; i < m_ui->store->count(); ++i)
        paths << m_ui->store->itemData(i).toString();
    return paths;
}

QProgressBar* InferenceForm::progressBar() const { return m_ui->progress; }

bool InferenceForm::makeRequest(InferenceRequest* request, QString* problem, QString* note) const
{
    *request = {};
    request->weights = weights();
    if (request->weights.empty()) {
        *problem = tr("Choose a model first: a weights or ensemble .npz, a checkpoint or an ensemble.json");
        return false;
    }
    for (int i = 0; i < m_ui->members->count(); ++i)
        if (m_ui->members->item(i)->checkState() == Qt::Checked)
            request->members.push_back(i);
    if (m_ui->members->count() > 0 && request->members.empty()) {
        *problem = tr("Check at least one ensemble member");
        return false;
    }
    if (int(request->members.size()) == m_ui->members->count())
        request->members.clear();
    request->document = chosenDocument();
    if (!request->document) {
        if (m_ui->collection->text().isEmpty()) {
            *problem = tr("Choose a graph or a collection directory");
            return false;
        }
        const QString graphs = collectionToScore(m_ui->collection->text(), problem, note);
        if (graphs.isEmpty())
            return false;
        request->files.push_back(graphs.toStdString());
    }
    request->configSet = request->document ? ConfigSetKind(m_ui->configSet->currentData().toInt()) : ConfigSetKind::All;
    request->sampleCount = m_ui->count->value();
    request->seed = uint64_t(m_ui->seed->value());
    request->options.batchConfigs = m_ui->batch->value();
    request->options.tta = m_ui->tta->value();
    request->options.attention = bool(request->document);
    request->project = m_ui->store->currentData().toString().toStdString();
    return true;
}

} // namespace tgraph::studio
