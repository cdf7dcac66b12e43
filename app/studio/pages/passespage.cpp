// SPDX-License-Identifier: Apache-2.0
#include "app/studio/pages/passespage.h"

#include "app/studio/common/studiolog.h"
#include "app/studio/dump/changebardelegate.h"
#include "app/studio/dump/moduletablemodel.h"
#include "app/studio/dump/passtimelinemodel.h"
#include "app/studio/dump/timelinefiller.h"
#include "app/studio/session/studiosession.h"

#include "widgets/common/elidedlabel.h"
#include "widgets/common/errorbanner.h"
#include "widgets/common/formatting.h"
#include "widgets/common/jobchannel.h"

#include "core/diff/instructionhistory.h"
#include "core/dump/dumpstage.h"
#include "core/util/error.h"
#include "core/util/terminaltext.h"

#include <QCheckBox>
#include <QCompleter>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStringListModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <set>

namespace tgraph::studio {

using namespace tgraph::widgets;

namespace {

constexpr int kProgressSteps = 1000;
// An artifact larger than this is shown up to it (the rest is named in the dialog's title).
constexpr qsizetype kTextLimit = 32 * 1024 * 1024;

QString escaped(const std::string& text) { return QString::fromStdString(tgraph::terminalText(text)); }

QString fromFileName(const std::string& path) { return QFile::decodeName(QByteArray::fromStdString(path)); }

QString kindsText(uint16_t kinds)
{
    QStringList names;
    for (size_t k = 0; k < tgraph::kHloChangeKindCount; ++k)
        if (kinds & tgraph::hloChangeBit(tgraph::HloChangeKind(k)))
            names << QString::fromLatin1(tgraph::hloChangeKindName(tgraph::HloChangeKind(k)));
    return names.join(QStringLiteral(", "));
}

} // namespace

PassesPage::PassesPage(StudioSession* session, QWidget* parent)
    : QWidget(parent)
    , m_session(session)
    , m_follower(new DumpFollower(this))
    , m_modules(new ModuleTableModel(this))
    , m_moduleProxy(new QSortFilterProxyModel(this))
    , m_timeline(new PassTimelineModel(this))
    , m_timelineFilter(new PassTimelineFilter(this))
    , m_filler(new TimelineFiller(m_timeline, this))
    , m_namesChannel(new JobChannel(JobLane::Io, tr("Instruction names"), this))
    , m_historyChannel(new JobChannel(JobLane::Io, tr("Instruction history"), this))
    , m_fileChannel(new JobChannel(JobLane::Io, tr("Dump file"), this))
{
    setObjectName(QStringLiteral("passesPage"));

    // Left: the modules and the selected one's artifacts.
    m_moduleFilter = new QLineEdit(this);
    m_moduleFilter->setObjectName(QStringLiteral("moduleFilter"));
    m_moduleFilter->setPlaceholderText(tr("Filter modules"));
    m_moduleFilter->setClearButtonEnabled(true);
    m_moduleProxy->setSourceModel(m_modules);
    m_moduleProxy->setSortRole(ModuleTableModel::SortRole);
    m_moduleProxy->setFilterKeyColumn(-1);
    m_moduleProxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_moduleView = new QTableView(this);
    m_moduleView->setObjectName(QStringLiteral("moduleView"));
    m_moduleView->setModel(m_moduleProxy);
    m_moduleView->setSortingEnabled(true);
    m_moduleView->sortByColumn(ModuleTableModel::IdColumn, Qt::AscendingOrder);
    m_moduleView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_moduleView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_moduleView->verticalHeader()->hide();
    m_moduleView->horizontalHeader()->setSectionResizeMode(ModuleTableModel::NameColumn, QHeaderView::Stretch);
    m_moduleView->horizontalHeader()->resizeSection(
        ModuleTableModel::BackendColumn, fontMetrics().horizontalAdvance(QStringLiteral("sm_7.0_gpu")) + 12);
    m_moduleView->setWordWrap(false);
    m_moduleView->setTextElideMode(Qt::ElideMiddle);
    m_artifacts = new QListWidget(this);
    m_artifacts->setObjectName(QStringLiteral("artifactList"));
    m_artifacts->setToolTip(tr("The module's other files: buffer assignment, memory report, LLVM IR, PTX, …"));
    m_openArtifact = new QPushButton(tr("Open as Text"), this);
    m_openArtifact->setObjectName(QStringLiteral("openArtifactButton"));
    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(m_moduleFilter);
    leftLayout->addWidget(m_moduleView, 3);
    leftLayout->addWidget(new QLabel(tr("Other files of the module"), this));
    leftLayout->addWidget(m_artifacts, 1);
    leftLayout->addWidget(m_openArtifact, 0, Qt::AlignLeft);

    // Right: the timeline with its actions, and the history below.
    m_title = new ElidedLabel(this);
    m_title->setObjectName(QStringLiteral("passesTitle"));
    m_hideUnchanged = new QCheckBox(tr("Hide passes that changed nothing"), this);
    m_hideUnchanged->setObjectName(QStringLiteral("hideUnchangedBox"));
    m_openStage = new QPushButton(tr("Open on Graph Page"), this);
    m_openStage->setObjectName(QStringLiteral("openStageButton"));
    m_diffPrevious = new QPushButton(tr("Diff with Previous"), this);
    m_diffPrevious->setObjectName(QStringLiteral("diffPreviousButton"));
    m_diffWith = new QPushButton(tr("Diff with…"), this);
    m_diffWith->setObjectName(QStringLiteral("diffWithButton"));
    m_progressLabel = new QLabel(this);
    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("timelineProgress"));
    m_progress->setMaximumWidth(160);
    m_progress->setTextVisible(false);
    m_cancel = new QToolButton(this);
    m_cancel->setText(tr("Cancel"));
    m_cancel->setAutoRaise(true);
    m_cancel->setToolTip(tr("Stop reading the stages (what was read stays)"));
    auto* actions = new QHBoxLayout;
    actions->addWidget(m_openStage);
    actions->addWidget(m_diffPrevious);
    actions->addWidget(m_diffWith);
    actions->addWidget(m_hideUnchanged);
    actions->addStretch(1);
    actions->addWidget(m_progressLabel);
    actions->addWidget(m_progress);
    actions->addWidget(m_cancel);

    m_timelineFilter->setSourceModel(m_timeline);
    m_timelineView = new QTableView(this);
    m_timelineView->setObjectName(QStringLiteral("timelineView"));
    m_timelineView->setModel(m_timelineFilter);
    m_timelineView->setItemDelegateForColumn(
        PassTimelineModel::ChangesColumn, new ChangeBarDelegate(m_timeline, m_timelineView));
    m_timelineView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_timelineView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_timelineView->verticalHeader()->hide();
    m_timelineView->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_timelineView->setWordWrap(false);
    m_timelineView->setTextElideMode(Qt::ElideMiddle);
    QHeaderView* header = m_timelineView->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setStretchLastSection(true);
    const QFontMetrics metrics = fontMetrics();
    const int x = metrics.horizontalAdvance(QLatin1Char('x'));
    header->resizeSection(PassTimelineModel::IndexColumn, metrics.horizontalAdvance(QStringLiteral("00000")) + 4);
    header->resizeSection(PassTimelineModel::PipelineColumn, x * 10);
    header->resizeSection(PassTimelineModel::PassColumn, x * 19);
    header->resizeSection(PassTimelineModel::ChangesColumn, x * 18);
    for (int c = PassTimelineModel::AddedColumn; c <= PassTimelineModel::FusionsColumn; ++c)
        header->resizeSection(
            c, metrics.horizontalAdvance(m_timeline->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString()) + 16);
    header->resizeSection(
        PassTimelineModel::EstimateColumn, metrics.horizontalAdvance(QStringLiteral("000.00 µs")) + 12);
    header->setMinimumSectionSize(24);

    m_historyEdit = new QLineEdit(this);
    m_historyEdit->setObjectName(QStringLiteral("historyEdit"));
    m_historyEdit->setPlaceholderText(tr("Instruction in the selected stage"));
    m_historyEdit->setClearButtonEnabled(true);
    m_names = new QStringListModel(this);
    m_completer = new QCompleter(m_names, this);
    m_completer->setCaseSensitivity(Qt::CaseInsensitive);
    m_completer->setFilterMode(Qt::MatchContains);
    m_historyEdit->setCompleter(m_completer);
    m_trace = new QPushButton(tr("History"), this);
    m_trace->setObjectName(QStringLiteral("traceButton"));
    m_trace->setToolTip(tr("Which pass created, changed, fused or removed the instruction"));
    m_historySummary = new QLabel(this);
    m_historySummary->setObjectName(QStringLiteral("historySummary"));
    m_historySummary->setWordWrap(true);
    m_historyView = new QTreeWidget(this);
    m_historyView->setObjectName(QStringLiteral("historyView"));
    m_historyView->setRootIsDecorated(false);
    m_historyView->setHeaderLabels({ tr("Stage"), tr("What"), tr("Name"), tr("Kinds") });
    m_historyView->setUniformRowHeights(true);
    auto* historyRow = new QHBoxLayout;
    historyRow->addWidget(new QLabel(tr("History of"), this));
    historyRow->addWidget(m_historyEdit, 1);
    historyRow->addWidget(m_trace);
    auto* history = new QWidget(this);
    auto* historyLayout = new QVBoxLayout(history);
    historyLayout->setContentsMargins(0, 0, 0, 0);
    historyLayout->addLayout(historyRow);
    historyLayout->addWidget(m_historySummary);
    historyLayout->addWidget(m_historyView, 1);

    m_legend = new QLabel(this);
    m_legend->setObjectName(QStringLiteral("timelineLegend"));
    m_legend->setText(tr("<span style='color:%1'>■</span> added <span style='color:%2'>■</span> removed "
                         "<span style='color:%3'>■</span> changed instructions against the stage before; "
                         "times are the simulator's estimates (synthetic, not measured)")
                          .arg(ChangeBarDelegate::addedColor().name(), ChangeBarDelegate::removedColor().name(),
                              ChangeBarDelegate::changedColor().name()));
    m_legend->setWordWrap(true);
    auto* timeline = new QWidget(this);
    auto* timelineLayout = new QVBoxLayout(timeline);
    timelineLayout->setContentsMargins(0, 0, 0, 0);
    timelineLayout->addWidget(m_title);
    timelineLayout->addLayout(actions);
    timelineLayout->addWidget(m_timelineView, 1);
    timelineLayout->addWidget(m_legend);
    auto* rightSplitter = new QSplitter(Qt::Vertical, this);
    rightSplitter->setObjectName(QStringLiteral("passesRightSplitter"));
    rightSplitter->addWidget(timeline);
    rightSplitter->addWidget(history);
    rightSplitter->setStretchFactor(0, 4);
    rightSplitter->setStretchFactor(1, 1);
    rightSplitter->setChildrenCollapsible(false);

    m_splitter = new QSplitter(Qt::Horizontal, this);
    m_splitter->setObjectName(QStringLiteral("passesSplitter"));
    m_splitter->addWidget(left);
    m_splitter->addWidget(rightSplitter);
    m_splitter->setStretchFactor(0, 1);
    m_splitter->setStretchFactor(1, 4);
    m_splitter->setSizes({ 320, 1000 });
    m_splitter->setChildrenCollapsible(false);
    left->setMinimumWidth(200);

    m_banner = new ErrorBanner(this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    layout->addWidget(m_banner);
    layout->addWidget(m_splitter, 1);

    connect(m_follower, &DumpFollower::indexChanged, this, &PassesPage::onIndexChanged);
    connect(m_follower, &DumpFollower::failed, this, [this](const QString& message) { m_banner->addMessage(message); });
    connect(m_moduleFilter, &QLineEdit::textChanged, m_moduleProxy, &QSortFilterProxyModel::setFilterFixedString);
    connect(
        m_moduleView->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &PassesPage::onModuleChanged);
    connect(
        m_timelineView->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &PassesPage::onStageChanged);
    connect(m_timelineView, &QTableView::doubleClicked, this,
        [this](const QModelIndex& index) { openStage(m_timelineFilter->mapToSource(index).row()); });
    connect(m_hideUnchanged, &QCheckBox::toggled, m_timelineFilter, &PassTimelineFilter::setHideUnchanged);
    connect(m_openStage, &QPushButton::clicked, this, [this] { openStage(currentStage()); });
    connect(m_diffPrevious, &QPushButton::clicked, this, &PassesPage::diffWithPrevious);
    connect(m_diffWith, &QPushButton::clicked, this, &PassesPage::diffWithDialog);
    connect(m_openArtifact, &QPushButton::clicked, this, [this] {
        if (QListWidgetItem* item = m_artifacts->currentItem())
            openArtifact(size_t(item->data(Qt::UserRole).toULongLong()));
    });
    connect(m_artifacts, &QListWidget::itemActivated, this,
        [this](QListWidgetItem* item) { openArtifact(size_t(item->data(Qt::UserRole).toULongLong())); });
    connect(m_artifacts, &QListWidget::currentRowChanged, this, &PassesPage::updateActions);
    connect(m_trace, &QPushButton::clicked, this, [this] { traceHistory(m_historyEdit->text().trimmed()); });
    connect(m_historyEdit, &QLineEdit::returnPressed, this, [this] { traceHistory(m_historyEdit->text().trimmed()); });
    connect(m_historyEdit, &QLineEdit::textChanged, this, &PassesPage::updateActions);

    connect(m_filler, &TimelineFiller::progressChanged, this, &PassesPage::showProgress);
    connect(m_filler, &TimelineFiller::finished, this, [this] {
        m_progressLabel->hide();
        m_progress->hide();
        m_cancel->hide();
    });
    connect(m_filler, &TimelineFiller::cancelled, this, [this] {
        m_progressLabel->hide();
        m_progress->hide();
        m_cancel->hide();
    });
    connect(m_cancel, &QToolButton::clicked, m_filler, &TimelineFiller::cancel);
    connect(m_session, &StudioSession::historyRequested, this, &PassesPage::onHistoryRequested);
    connect(m_session, &StudioSession::timelineStageRequested, this, &PassesPage::onTimelineStageRequested);

    connect(m_historyChannel, &JobChannel::failed, this, [this](quint64, const QString& message) {
        m_historyView->clear();
        m_historySummary->setText(message);
        Q_EMIT historyShown();
    });
    connect(m_historyChannel, &JobChannel::progressChanged, this,
        [this](quint64, const QString& label, quint64 done, quint64 total) {
            m_historySummary->setText(total > 0
                    ? tr("%1 (%2 of %3)…")
                          .arg(label, Formatting::count(int64_t(done)), Formatting::count(int64_t(total)))
                    : label + QStringLiteral("…"));
        });
    connect(m_fileChannel, &JobChannel::failed, this,
        [this](quint64, const QString& message) { m_banner->addMessage(message); });

    m_progressLabel->hide();
    m_progress->hide();
    m_cancel->hide();
    updateTitle();
    updateActions();
}

PassesPage::~PassesPage() = default;

QString PassesPage::folder() const { return m_follower->folder(); }

void PassesPage::openFolder(const QString& folder)
{
    m_banner->dismiss();
    m_filler->cancel();
    m_selectedModule.clear();
    m_selectedStage.clear();
    m_modules->setIndex(nullptr);
    m_timeline->setModule(nullptr, SIZE_MAX);
    publishStages();
    m_historyView->clear();
    m_historySummary->clear();
    m_follower->open(folder);
    updateTitle();
    updateActions();
}

void PassesPage::publishStages()
{
    QStringList paths = m_copyOf.keys();
    if (const DumpIndexPtr index = m_modules->dumpIndex())
        for (const tgraph::DumpModule& m : index->modules)
            for (const tgraph::DumpStage& stage : m.stages)
                if (const size_t file = stage.mainFile(); file < index->files.size())
                    paths << fromFileName(index->path(file));
    m_session->setDumpStages(paths);
}

void PassesPage::onIndexChanged(const DumpIndexPtr& index, bool first)
{
    m_modules->setIndex(index);
    publishStages();
    if (first) {
        qCInfo(lcStudio).noquote() << "dump folder" << folder() << "lists" << index->modules.size() << "modules";
        m_moduleView->resizeColumnToContents(ModuleTableModel::IdColumn);
        m_moduleView->resizeColumnToContents(ModuleTableModel::BackendColumn);
        m_moduleView->resizeColumnToContents(ModuleTableModel::StagesColumn);
    }
    // Keep the selected module (by key) while the folder grows; else the first with stages.
    if (!m_selectedModule.isEmpty() && selectModule(m_selectedModule)) {
        onModuleChanged(); // the same module: its rows follow the new index
        return;
    }
    for (int row = 0; row < m_moduleProxy->rowCount(); ++row) {
        const QModelIndex source = m_moduleProxy->mapToSource(m_moduleProxy->index(row, 0));
        if (!index->modules[size_t(source.row())].stages.empty()) {
            m_moduleView->setCurrentIndex(m_moduleProxy->index(row, 0));
            break;
        }
    }
    updateTitle();
}

bool PassesPage::selectModule(const QString& key)
{
    const int row = m_modules->rowOfKey(key);
    if (row < 0)
        return false;
    const QModelIndex proxy = m_moduleProxy->mapFromSource(m_modules->index(row, 0));
    if (!proxy.isValid())
        return false;
    if (m_moduleView->currentIndex().row() != proxy.row())
        m_moduleView->setCurrentIndex(proxy);
    else
        onModuleChanged();
    return true;
}

QString PassesPage::currentModuleKey() const { return m_selectedModule; }

void PassesPage::onModuleChanged()
{
    const QModelIndex current = m_moduleProxy->mapToSource(m_moduleView->currentIndex());
    const DumpIndexPtr index = m_modules->dumpIndex();
    const size_t module = current.isValid() && index ? size_t(current.row()) : SIZE_MAX;
    const QString key = module != SIZE_MAX ? ModuleTableModel::moduleKey(index->modules[module]) : QString();
    const bool same = key == m_selectedModule;
    const QString stage = m_selectedStage;
    m_selectedModule = key;
    if (!same) {
        m_historyView->clear();
        m_historySummary->clear();
        m_names->setStringList({});
    }
    m_timeline->setModule(index, module);
    // The selected stage stays (a grown folder inserts rows; another module selects its first).
    int row = -1;
    if (same)
        for (int i = 0; i < m_timeline->rowCount(); ++i)
            if (QString::fromStdString(m_timeline->rows()[size_t(i)].stage.stage) == stage)
                row = i;
    if (row < 0 && !same && m_timeline->rowCount() > 0)
        row = 0;
    if (row >= 0 && row != currentStage())
        selectStage(row);
    m_filler->fill();
    showArtifacts();
    updateTitle();
    updateActions();
}

void PassesPage::selectStage(int row)
{
    const QModelIndex proxy = m_timelineFilter->mapFromSource(m_timeline->index(row, 0));
    if (proxy.isValid())
        m_timelineView->setCurrentIndex(proxy);
}

int PassesPage::currentStage() const
{
    const QModelIndex source = m_timelineFilter->mapToSource(m_timelineView->currentIndex());
    return source.isValid() ? source.row() : -1;
}

void PassesPage::onStageChanged()
{
    const PassTimelineModel::Row* row = m_timeline->row(currentStage());
    const QString stage = row ? QString::fromStdString(row->stage.stage) : QString();
    if (stage != m_selectedStage || !row) {
        m_selectedStage = stage;
        loadNames();
    }
    updateActions();
}

void PassesPage::updateTitle()
{
    const DumpIndexPtr index = m_modules->dumpIndex();
    if (folder().isEmpty()) {
        m_title->setFullText(tr("Open an XLA dump folder (--xla_dump_to): File > Open Dump Folder…, or drop it here"));
        return;
    }
    if (!index) {
        m_title->setFullText(tr("Listing %1…").arg(QDir::toNativeSeparators(folder())));
        return;
    }
    const size_t module = m_timeline->module();
    QString text = QDir::toNativeSeparators(folder());
    if (module < index->modules.size()) {
        const tgraph::DumpModule& m = index->modules[module];
        text = tr("Module %1 %2: %n HLO stage(s)", nullptr, m_timeline->rowCount())
                   .arg(Formatting::id(m.id), ModuleTableModel::displayName(m))
            + QStringLiteral("  —  ") + text;
    }
    m_title->setFullText(text, QDir::toNativeSeparators(folder()));
}

void PassesPage::updateActions()
{
    const int stage = currentStage();
    m_openStage->setEnabled(stage >= 0);
    m_diffPrevious->setEnabled(stage > 0);
    m_diffWith->setEnabled(stage >= 0 && m_timeline->rowCount() > 1);
    m_trace->setEnabled(stage >= 0 && !m_historyEdit->text().trimmed().isEmpty());
    m_openArtifact->setEnabled(m_artifacts->currentItem() != nullptr);
}

void PassesPage::showProgress(const QString& label, quint64 done, quint64 total)
{
    m_progressLabel->setText(label);
    m_progressLabel->show();
    m_progress->show();
    m_cancel->show();
    if (total == 0) {
        m_progress->setRange(0, 0);
    } else {
        m_progress->setRange(0, kProgressSteps);
        m_progress->setValue(int(double(std::min(done, total)) / double(total) * kProgressSteps));
    }
}

void PassesPage::showArtifacts()
{
    m_artifacts->clear();
    const DumpIndexPtr index = m_timeline->dumpIndex();
    const size_t module = m_timeline->module();
    if (!index || module >= index->modules.size())
        return;
    const tgraph::DumpModule& m = index->modules[module];
    std::vector<size_t> files;
    for (const tgraph::DumpStage& stage : m.stages)
        files.insert(files.end(), stage.attachments.begin(), stage.attachments.end());
    files.insert(files.end(), m.artifacts.begin(), m.artifacts.end());
    for (const size_t file : files) {
        if (file >= index->files.size())
            continue;
        const tgraph::DumpFile& f = index->files[file];
        auto* item = new QListWidgetItem(escaped(f.entry.name), m_artifacts);
        item->setData(Qt::UserRole, qulonglong(file));
        item->setToolTip(tr("%1, %2").arg(
            QString::fromLatin1(tgraph::dumpFileKindName(f.name.kind)), Formatting::bytes(f.entry.size)));
    }
}

void PassesPage::openArtifact(size_t file)
{
    const DumpIndexPtr index = m_timeline->dumpIndex();
    if (!index || file >= index->files.size())
        return;
    const QString name = escaped(index->files[file].entry.name);
    m_fileChannel->start([this, index, file, name](JobProgress&) -> JobTracker::Continuation {
        const std::string bytes = tgraph::readDumpFile(*index, file);
        const bool binary = bytes.find('\0', 0) != std::string::npos && bytes.find('\0') < 4096;
        QString text;
        if (binary)
            text = tr("(%1: binary data, %2)").arg(name, Formatting::bytes(bytes.size()));
        else
            text = QString::fromUtf8(bytes.data(), qsizetype(std::min<size_t>(bytes.size(), size_t(kTextLimit))));
        const bool cut = !binary && bytes.size() > size_t(kTextLimit);
        return [this, name, text, cut, size = bytes.size()] {
            auto* dialog = new QDialog(this);
            dialog->setAttribute(Qt::WA_DeleteOnClose);
            dialog->setObjectName(QStringLiteral("artifactDialog"));
            dialog->setWindowTitle(cut
                    ? tr("%1 (first %2 of %3)")
                          .arg(name, Formatting::bytes(uint64_t(kTextLimit)), Formatting::bytes(size))
                    : name);
            auto* edit = new QPlainTextEdit(dialog);
            edit->setObjectName(QStringLiteral("artifactText"));
            edit->setReadOnly(true);
            edit->setLineWrapMode(QPlainTextEdit::NoWrap);
            edit->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
            edit->setProperty(Formatting::kVerbatimProperty, true);
            edit->setPlainText(text);
            auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
            connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
            auto* layout = new QVBoxLayout(dialog);
            layout->addWidget(edit);
            layout->addWidget(buttons);
            dialog->resize(900, 600);
            dialog->show();
            Q_EMIT textShown(name);
        };
    });
}

void PassesPage::openStage(int row)
{
    const PassTimelineModel::Row* r = m_timeline->row(row);
    const DumpIndexPtr index = m_timeline->dumpIndex();
    if (!r || !index)
        return;
    const size_t file = r->stage.mainFile();
    if (file >= index->files.size())
        return;
    const QString path = m_timeline->stagePath(row);
    if (index->files[file].name.compression == tgraph::DumpCompression::None) {
        m_session->requestOpen({ path });
        m_session->requestPage(Page::Graph);
        return;
    }
    // The graph loader reads plain files: a compressed stage opens through a decompressed copy,
    // kept while the page lives.
    if (!m_copies)
        m_copies = std::make_unique<QTemporaryDir>();
    if (!m_copies->isValid()) {
        m_banner->addMessage(
            tr("%1: no temporary folder to decompress it into").arg(escaped(index->files[file].entry.name)));
        return;
    }
    std::string name = index->files[file].entry.name;
    name.erase(name.rfind('.')); // .gz / .xz
    const QString copy = m_copies->filePath(
        QString::fromStdString(tgraph::terminalText(name)).replace(QLatin1Char('/'), QLatin1Char('_')));
    m_fileChannel->start([this, index, file, copy, path](JobProgress&) -> JobTracker::Continuation {
        const std::string bytes = tgraph::readDumpFile(*index, file);
        QSaveFile out(copy);
        if (!out.open(QIODevice::WriteOnly) || out.write(bytes.data(), qint64(bytes.size())) != qint64(bytes.size())
            || !out.commit())
            throw tgraph::InputError(
                copy.toStdString(), "", "cannot write the decompressed copy: " + out.errorString().toStdString());
        return [this, copy, path] {
            m_copyOf.insert(copy, path);
            publishStages();
            m_session->requestOpen({ copy });
            m_session->requestPage(Page::Graph);
        };
    });
}

StagePair PassesPage::stagePair(int a, int b) const
{
    StagePair pair;
    const DumpIndexPtr index = m_timeline->dumpIndex();
    const size_t module = m_timeline->module();
    if (index && module < index->modules.size()) {
        const tgraph::DumpModule& m = index->modules[module];
        pair.module = tr("Module %1 %2").arg(Formatting::id(m.id), ModuleTableModel::displayName(m));
    }
    for (int i = 0; i < m_timeline->rowCount(); ++i)
        pair.stages.push_back({ m_timeline->stagePath(i), m_timeline->stageLabel(i) });
    pair.a = a;
    pair.b = b;
    return pair;
}

void PassesPage::diffWithPrevious()
{
    const int row = currentStage();
    if (row > 0)
        m_session->requestStageDiff(stagePair(row - 1, row));
}

void PassesPage::diffWith(int other)
{
    const int row = currentStage();
    if (row < 0 || other < 0 || other >= m_timeline->rowCount() || other == row)
        return;
    // The earlier stage is A.
    m_session->requestStageDiff(stagePair(std::min(row, other), std::max(row, other)));
}

void PassesPage::diffWithDialog()
{
    const int row = currentStage();
    if (row < 0)
        return;
    QStringList labels;
    std::vector<int> rows;
    for (int i = 0; i < m_timeline->rowCount(); ++i)
        if (i != row) {
            labels << m_timeline->stageLabel(i);
            rows.push_back(i);
        }
    if (labels.isEmpty())
        return;
    bool ok = false;
    const int suggested = row > 0 ? row - 1 : 0;
    const QString picked = QInputDialog::getItem(this, tr("Diff with…"),
        tr("Compare %1 with the stage:").arg(m_timeline->stageLabel(row)), labels, suggested, false, &ok);
    if (!ok)
        return;
    const qsizetype at = labels.indexOf(picked);
    if (at >= 0)
        diffWith(rows[size_t(at)]);
}

void PassesPage::loadNames()
{
    const PassTimelineModel::Row* row = m_timeline->row(currentStage());
    const DumpIndexPtr index = m_timeline->dumpIndex();
    if (!row || !index) {
        m_namesChannel->cancel();
        m_names->setStringList({});
        return;
    }
    m_namesChannel->start([this, index, stage = row->stage](JobProgress&) -> JobTracker::Continuation {
        QStringList names;
        try {
            const tgraph::HloModule module = tgraph::openDumpStage(*index, stage);
            names.reserve(qsizetype(module.instructions.size()));
            for (const tgraph::HloInstruction& i : module.instructions)
                names << QString::fromUtf8(i.name.data(), qsizetype(i.name.size()));
        } catch (const tgraph::Cancelled&) {
            throw;
        } catch (const std::exception&) {
            // The timeline shows why the stage cannot be read.
        }
        names.sort();
        return [this, names] { m_names->setStringList(names); };
    });
}

bool PassesPage::isTracing() const { return m_historyChannel->isBusy(); }

void PassesPage::traceHistory(const QString& instruction)
{
    const int anchor = currentStage();
    const DumpIndexPtr index = m_timeline->dumpIndex();
    if (anchor < 0 || !index || instruction.isEmpty())
        return;
    if (m_historyEdit->text().trimmed() != instruction)
        m_historyEdit->setText(instruction);
    std::vector<tgraph::DumpStage> stages;
    QStringList labels;
    for (int i = 0; i < m_timeline->rowCount(); ++i) {
        stages.push_back(m_timeline->rows()[size_t(i)].stage);
        labels << m_timeline->stageLabel(i);
    }
    m_historyView->clear();
    m_historySummary->setText(tr("Reading %n stage(s)…", nullptr, int(stages.size())));
    m_historyChannel->start([this, index, stages = std::move(stages), labels, anchor, name = instruction.toStdString()](
                                JobProgress& progress) -> JobTracker::Continuation {
        std::vector<tgraph::HloModule> modules;
        modules.reserve(stages.size());
        {
            tgraph::ProgressScope scope(&progress, tr("Reading stages").toStdString(), stages.size());
            for (const tgraph::DumpStage& stage : stages) {
                modules.push_back(tgraph::openDumpStage(*index, stage));
                scope.advanceBy(1);
            }
        }
        std::vector<const tgraph::HloModule*> pointers;
        for (const tgraph::HloModule& m : modules)
            pointers.push_back(&m);
        const std::vector<tgraph::HloDiff> diffs = tgraph::diffNeighbourStages(pointers, &progress);
        auto history = std::make_shared<tgraph::InstructionHistory>(
            tgraph::traceInstruction(pointers, diffs, size_t(anchor), name));
        return [this, history, labels] { showHistory(*history, labels); };
    });
}

void PassesPage::showHistory(const tgraph::InstructionHistory& history, const QStringList& stageLabels)
{
    m_historyView->clear();
    const auto label = [&](size_t stage) { return stageLabels.value(int(stage)); };
    const size_t first = history.firstStage(), last = history.lastStage();
    QStringList parts;
    parts << (first > 0 ? tr("created by %1").arg(label(first)) : tr("present from the first stage"));
    parts << (last + 1 < history.positions.size() ? tr("removed by %1").arg(label(last + 1))
                                                  : tr("still in the last stage"));
    parts << tr("%n pass(es) touched it", nullptr, int(history.events.size()));
    m_historySummary->setText(escaped(history.anchorName) + QStringLiteral(": ") + parts.join(QStringLiteral("; ")));
    for (const tgraph::InstructionEvent& e : history.events) {
        auto* item = new QTreeWidgetItem(m_historyView);
        item->setText(0, label(e.stage));
        item->setToolTip(0, label(e.stage));
        item->setData(0, Qt::UserRole, qulonglong(e.stage));
        QString what = QString::fromLatin1(tgraph::instructionEventKindName(e.kind));
        if (e.has(tgraph::HloChangeKind::FusedInto))
            what = tr("fused");
        else if (e.has(tgraph::HloChangeKind::FusedOutOf))
            what = tr("unfused");
        item->setText(1, what);
        const QString before = escaped(e.nameBefore), after = escaped(e.nameAfter);
        item->setText(2,
            before.isEmpty()                         ? after
                : after.isEmpty() || before == after ? before
                                                     : before + QStringLiteral(" → ") + after);
        item->setText(3, kindsText(e.kinds));
    }
    if (history.events.empty()) {
        auto* item = new QTreeWidgetItem(m_historyView);
        item->setText(1, tr("no pass changed it"));
    }
    for (int c = 0; c < m_historyView->columnCount(); ++c)
        m_historyView->resizeColumnToContents(c);
    Q_EMIT historyShown();
}

bool PassesPage::showStage(const QString& stagePath)
{
    const QString path = m_copyOf.value(stagePath, stagePath);
    const DumpIndexPtr index = m_modules->dumpIndex();
    if (!index)
        return false;
    for (size_t m = 0; m < index->modules.size(); ++m)
        for (const tgraph::DumpStage& stage : index->modules[m].stages) {
            const size_t file = stage.mainFile();
            if (file >= index->files.size() || fromFileName(index->path(file)) != path)
                continue;
            selectModule(ModuleTableModel::moduleKey(index->modules[m]));
            const int row = m_timeline->rowOfPath(path);
            if (row < 0)
                return false;
            m_hideUnchanged->setChecked(false);
            selectStage(row);
            m_timelineView->scrollTo(m_timelineView->currentIndex());
            return true;
        }
    return false;
}

void PassesPage::onHistoryRequested(const QString& stagePath, const QString& instruction)
{
    if (!showStage(stagePath))
        return;
    m_session->requestPage(Page::Passes);
    traceHistory(instruction);
}

void PassesPage::onTimelineStageRequested(const QString& stagePath)
{
    if (showStage(stagePath))
        m_session->requestPage(Page::Passes);
    else
        m_session->showMessage(
            tr("%1 is not a stage of the open dump folder").arg(QDir::toNativeSeparators(stagePath)));
}

} // namespace tgraph::studio
