// SPDX-License-Identifier: Apache-2.0
#include "app/studio/dump/passtimelinemodel.h"

#include "widgets/common/formatting.h"

#include "core/util/terminaltext.h"

#include <QBrush>
#include <QColor>
#include <QFile>
#include <QPalette>

#include <algorithm>

namespace tgraph::studio {

using namespace tgraph::widgets;

namespace {

QString escaped(const std::string& text) { return QString::fromStdString(tgraph::terminalText(text)); }

QString pending() { return QStringLiteral("…"); }

} // namespace

PassTimelineModel::PassTimelineModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void PassTimelineModel::setModule(const DumpIndexPtr& index, size_t module)
{
    std::vector<Row> rows;
    if (index && module < index->modules.size()) {
        std::string previous;
        for (const tgraph::DumpStage& stage : index->modules[module].stages) {
            if (stage.hloFiles.empty())
                continue; // only renderings of this stage: nothing to read
            Row row;
            row.stage = stage;
            row.key = stageFileKey(*index, stage);
            row.previousKey = previous;
            previous = row.key;
            rows.push_back(std::move(row));
        }
    }
    // Keep the figures of rows that did not change.
    for (Row& row : rows)
        for (const Row& old : m_rows)
            if (old.key == row.key && old.previousKey == row.previousKey) {
                row.figures = old.figures;
                break;
            }
    const bool grows = m_index && index && m_module == module && rows.size() >= m_rows.size()
        && std::equal(m_rows.begin(), m_rows.end(), rows.begin(),
            [](const Row& a, const Row& b) { return a.stage.stage == b.stage.stage; });
    if (grows) {
        const int before = int(m_rows.size());
        m_index = index;
        for (int i = 0; i < before; ++i)
            m_rows[size_t(i)] = rows[size_t(i)];
        if (before > 0)
            Q_EMIT dataChanged(this->index(0, 0), this->index(before - 1, ColumnCount - 1));
        if (int(rows.size()) > before) {
            beginInsertRows({}, before, int(rows.size()) - 1);
            for (size_t i = size_t(before); i < rows.size(); ++i)
                m_rows.push_back(std::move(rows[i]));
            endInsertRows();
        }
        updateScale();
        return;
    }
    beginResetModel();
    m_index = index;
    m_module = index ? module : SIZE_MAX;
    m_rows = std::move(rows);
    updateScale();
    endResetModel();
}

const PassTimelineModel::Row* PassTimelineModel::row(int row) const
{
    return row >= 0 && row < int(m_rows.size()) ? &m_rows[size_t(row)] : nullptr;
}

QString PassTimelineModel::stagePath(int row) const
{
    const Row* r = this->row(row);
    if (!r || !m_index)
        return {};
    const size_t file = r->stage.mainFile();
    return file < m_index->files.size() ? QFile::decodeName(QByteArray::fromStdString(m_index->path(file))) : QString();
}

int PassTimelineModel::rowOfPath(const QString& path) const
{
    for (int i = 0; i < rowCount(); ++i)
        if (stagePath(i) == path)
            return i;
    return -1;
}

QString PassTimelineModel::stageLabel(int row) const
{
    const Row* r = this->row(row);
    if (!r)
        return {};
    const tgraph::DumpStage& s = r->stage;
    if (s.kind == tgraph::DumpStageKind::Pass)
        return QStringLiteral("%1 %2 / after %3")
            .arg(s.index, 4, 10, QLatin1Char('0'))
            .arg(escaped(s.pipeline), escaped(s.pass));
    if (s.kind == tgraph::DumpStageKind::DuringPass)
        return QStringLiteral("%1 %2 / %3").arg(s.index, 4, 10, QLatin1Char('0')).arg(escaped(s.pass), escaped(s.step));
    return escaped(s.stage);
}

bool PassTimelineModel::setFigures(const std::string& key, const std::string& previousKey, const StageFigures& figures)
{
    bool took = false;
    for (size_t i = 0; i < m_rows.size(); ++i) {
        Row& r = m_rows[i];
        if (r.key != key || r.previousKey != previousKey)
            continue;
        r.figures = figures;
        took = true;
        // The row and the next one (its estimate delta reads this row's estimate).
        const int last = std::min(int(i) + 1, rowCount() - 1);
        Q_EMIT dataChanged(index(int(i), 0), index(last, ColumnCount - 1));
    }
    if (took) {
        const size_t scale = m_maxChanges;
        updateScale();
        if (scale != m_maxChanges && rowCount() > 0)
            Q_EMIT dataChanged(index(0, ChangesColumn), index(rowCount() - 1, EstimateColumn));
        else if (rowCount() > 0)
            Q_EMIT dataChanged(index(0, EstimateColumn), index(rowCount() - 1, EstimateColumn));
    }
    return took;
}

void PassTimelineModel::updateScale()
{
    m_maxChanges = 0;
    std::vector<double> estimates;
    for (const Row& r : m_rows) {
        if (r.figures && r.figures->added && r.figures->removed && r.figures->changed)
            m_maxChanges = std::max(m_maxChanges, *r.figures->added + *r.figures->removed + *r.figures->changed);
        estimates.push_back(r.figures && r.figures->estimatedNs ? *r.figures->estimatedNs : std::nan(""));
    }
    m_estimates = Formatting::durations(estimates);
}

int PassTimelineModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int PassTimelineModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant PassTimelineModel::display(int row, int column) const
{
    const Row& r = m_rows[size_t(row)];
    const tgraph::DumpStage& s = r.stage;
    const std::optional<StageFigures>& f = r.figures;
    const auto number = [&](const std::optional<size_t>& value, bool needsPrevious) -> QVariant {
        if (!f)
            return pending();
        if (needsPrevious && !f->hasPrevious)
            return QString();
        return value ? Formatting::count(int64_t(*value)) : Formatting::missing();
    };
    switch (column) {
    case IndexColumn:
        return s.index >= 0 ? Formatting::id(s.index) : QString();
    case PipelineColumn:
        return escaped(s.pipeline);
    case PassColumn:
        if (s.kind == tgraph::DumpStageKind::Pass)
            return escaped(s.pass);
        if (s.kind == tgraph::DumpStageKind::DuringPass)
            return escaped(s.pass) + QStringLiteral(" (") + escaped(s.step) + QLatin1Char(')');
        return escaped(s.stage);
    case AddedColumn:
        return number(f ? f->added : std::nullopt, true);
    case RemovedColumn:
        return number(f ? f->removed : std::nullopt, true);
    case ChangedColumn:
        return number(f ? f->changed : std::nullopt, true);
    case InstructionsColumn:
    case ComputationsColumn:
    case FusionsColumn: {
        if (!f)
            return pending();
        if (!f->counts)
            return Formatting::missing();
        const int64_t value = column == InstructionsColumn ? f->counts->instructions
            : column == ComputationsColumn                 ? f->counts->computations
                                                           : f->counts->fusions;
        return Formatting::count(value);
    }
    case EstimateColumn:
        if (!f)
            return pending();
        return f->estimatedNs ? m_estimates.value(row) : Formatting::missing();
    case EstimateDeltaColumn: {
        if (!f)
            return pending();
        if (row == 0)
            return QString();
        const std::optional<StageFigures>& before = m_rows[size_t(row - 1)].figures;
        if (!before)
            return pending();
        if (!f->estimatedNs || !before->estimatedNs)
            return Formatting::missing();
        return Formatting::durationDifference(*f->estimatedNs, *before->estimatedNs);
    }
    }
    return {};
}

QVariant PassTimelineModel::toolTip(int row, int column) const
{
    const Row& r = m_rows[size_t(row)];
    const std::optional<StageFigures>& f = r.figures;
    if (column == PassColumn || column == PipelineColumn || column == IndexColumn) {
        QString tip = stageLabel(row);
        if (!r.stage.nextPass.empty())
            tip += QLatin1Char('\n') + tr("next pass: %1").arg(escaped(r.stage.nextPass));
        const size_t file = r.stage.mainFile();
        if (m_index && file < m_index->files.size())
            tip += QLatin1Char('\n') + escaped(m_index->files[file].entry.name);
        if (f && !f->readError.isEmpty())
            tip += QLatin1Char('\n') + f->readError;
        return tip;
    }
    if (!f)
        return tr("Not read yet");
    switch (column) {
    case ChangesColumn:
    case AddedColumn:
    case RemovedColumn:
    case ChangedColumn:
        if (!f->hasPrevious)
            return tr("The module's first stage");
        if (!f->diffError.isEmpty())
            return f->diffError;
        return tr("Against the stage before: %1 added, %2 removed, %3 changed instructions")
            .arg(Formatting::count(int64_t(f->added.value_or(0))), Formatting::count(int64_t(f->removed.value_or(0))),
                Formatting::count(int64_t(f->changed.value_or(0))));
    case InstructionsColumn:
    case ComputationsColumn:
    case FusionsColumn:
        return f->readError.isEmpty() ? QVariant() : QVariant(f->readError);
    case EstimateColumn:
    case EstimateDeltaColumn:
        if (!f->estimateError.isEmpty())
            return tr("Not priced: %1").arg(f->estimateError);
        return tr("The simulator's estimate (default layouts; synthetic, not a measurement: docs/simulator.md)");
    }
    return {};
}

QVariant PassTimelineModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const Row& r = m_rows[size_t(index.row())];
    const std::optional<StageFigures>& f = r.figures;
    switch (role) {
    case Qt::DisplayRole:
        return index.column() == ChangesColumn ? QVariant() : display(index.row(), index.column());
    case Qt::ToolTipRole:
        return toolTip(index.row(), index.column());
    case AddedRole:
        return f && f->added ? QVariant(qulonglong(*f->added)) : QVariant();
    case RemovedRole:
        return f && f->removed ? QVariant(qulonglong(*f->removed)) : QVariant();
    case ChangedRole:
        return f && f->changed ? QVariant(qulonglong(*f->changed)) : QVariant();
    case DidSomethingRole:
        return f ? QVariant(f->didSomething()) : QVariant();
    case Qt::TextAlignmentRole:
        return index.column() >= AddedColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::ForegroundRole: {
        if (f && !f->readError.isEmpty())
            return QBrush(QColor(0xc0, 0x39, 0x2b));
        if (index.column() == EstimateDeltaColumn && f && f->estimatedNs && index.row() > 0) {
            const std::optional<StageFigures>& before = m_rows[size_t(index.row() - 1)].figures;
            if (before && before->estimatedNs && *f->estimatedNs != *before->estimatedNs)
                return QBrush(
                    *f->estimatedNs > *before->estimatedNs ? QColor(0xc0, 0x39, 0x2b) : QColor(0x1e, 0x84, 0x49));
        }
        if (f && !f->didSomething())
            return QPalette().brush(QPalette::Disabled, QPalette::Text);
        return {};
    }
    default:
        return {};
    }
}

QVariant PassTimelineModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::DisplayRole) {
        switch (section) {
        case IndexColumn:
            return tr("#");
        case PipelineColumn:
            return tr("Pipeline");
        case PassColumn:
            return tr("Pass");
        case ChangesColumn:
            return tr("Changes");
        case AddedColumn:
            return tr("Added");
        case RemovedColumn:
            return tr("Removed");
        case ChangedColumn:
            return tr("Changed");
        case InstructionsColumn:
            return tr("Instr.");
        case ComputationsColumn:
            return tr("Comp.");
        case FusionsColumn:
            return tr("Fus.");
        case EstimateColumn:
            return tr("Sim. time");
        case EstimateDeltaColumn:
            return tr("Sim. Δ");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case IndexColumn:
            return tr("The dump counter: the order the passes ran in");
        case ChangesColumn:
        case AddedColumn:
        case RemovedColumn:
        case ChangedColumn:
            return tr("Instructions the pass added, removed and changed: the diff of this stage against the one "
                      "before (docs/diff.md)");
        case InstructionsColumn:
            return tr("Instructions, fused ones included");
        case ComputationsColumn:
            return tr("Computations");
        case FusionsColumn:
            return tr("Fusion instructions");
        case EstimateColumn:
            return tr("The simulator's estimate of the module's runtime with its default layouts (synthetic, not a "
                      "measurement: docs/simulator.md)");
        case EstimateDeltaColumn:
            return tr("The simulator's estimate against the stage before: red when the pass made the module slower, "
                      "green when faster");
        }
    }
    return {};
}

PassTimelineFilter::PassTimelineFilter(QObject* parent)
    : QSortFilterProxyModel(parent)
{ }

void PassTimelineFilter::setHideUnchanged(bool hide)
{
    if (m_hide == hide)
        return;
    m_hide = hide;
    invalidateRowsFilter();
}

bool PassTimelineFilter::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    if (!m_hide)
        return true;
    const QVariant did = sourceModel()->index(sourceRow, 0, sourceParent).data(PassTimelineModel::DidSomethingRole);
    return !did.isValid() || did.toBool();
}

} // namespace tgraph::studio
