// SPDX-License-Identifier: Apache-2.0
#include "runtablemodel.h"

#include "formatting.h"

#include <QBrush>
#include <QColor>
#include <QDateTime>

#include <cmath>

RunTableModel::RunTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void RunTableModel::setRuns(std::vector<RunRow> runs, int64_t nowMs)
{
    m_nowMs = nowMs;
    bool sameRows = runs.size() == m_runs.size();
    for (size_t i = 0; sameRows && i < runs.size(); ++i)
        sameRows = runs[i].record.id == m_runs[i].record.id;
    if (sameRows) {
        // Same runs in the same order: update the cells in place (no flicker, selection kept).
        m_runs = std::move(runs);
        if (!m_runs.empty())
            Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
        return;
    }
    beginResetModel();
    m_runs = std::move(runs);
    endResetModel();
}

int RunTableModel::rowOfRun(const std::string& runId) const
{
    for (size_t i = 0; i < m_runs.size(); ++i)
        if (m_runs[i].record.id == runId)
            return int(i);
    return -1;
}

int RunTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_runs.size()); }
int RunTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QString RunTableModel::statusText(const RunRow& run)
{
    QString text = QString::fromLatin1(tgraph::runStatusName(run.record.status)).toLower();
    if (run.stale)
        text += QStringLiteral(" (no heartbeat)");
    return text;
}

QColor RunTableModel::statusColor(const RunRow& run)
{
    using tgraph::RunStatus;
    switch (run.record.status) {
    case RunStatus::Running:
        return run.stale ? QColor(200, 140, 0) : QColor(30, 120, 220);
    case RunStatus::Finished:
        return QColor(40, 150, 60);
    case RunStatus::Failed:
    case RunStatus::Crashed:
        return QColor(200, 40, 40);
    case RunStatus::Killed:
        return QColor(120, 120, 120);
    case RunStatus::Pending:
        break;
    }
    return QColor(150, 150, 150);
}

namespace {

QString number(double v, int decimals)
{
    return std::isnan(v) ? QStringLiteral("—") : QString::number(v, 'f', decimals);
}

} // namespace

QVariant RunTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const RunRow& r = m_runs[size_t(index.row())];
    const int64_t end = r.record.endMs
        ? r.record.endMs
        : (r.record.status == tgraph::RunStatus::Running ? m_nowMs : r.record.heartbeatMs);
    const int64_t durationMs = r.record.startMs && end >= r.record.startMs ? end - r.record.startMs : 0;
    const auto param = [&r](const char* key) {
        const auto it = r.params.find(key);
        return it == r.params.end() ? QString() : QString::fromStdString(it->second);
    };
    if (role == RunIdRole)
        return QString::fromStdString(r.record.id);
    if (role == Qt::UserRole) {
        switch (index.column()) {
        case Started:
            return qlonglong(r.record.startMs);
        case Duration:
            return qlonglong(durationMs);
        case Step:
            return qlonglong(r.step);
        case Loss:
            return r.loss;
        case Tau:
            return r.tau;
        case BestTau:
            return r.bestTau;
        case LearningRate:
            return param("lr").toDouble();
        default:
            return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Name:
            return QString::fromStdString(r.record.name);
        case Status:
            return statusText(r);
        case Experiment:
            return QString::fromStdString(r.record.experiment);
        case Started:
            return r.record.startMs
                ? QDateTime::fromMSecsSinceEpoch(r.record.startMs).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))
                : QString();
        case Duration:
            return Formatting::duration(durationMs * 1000000);
        case Step:
            return qlonglong(r.step);
        case Loss:
            return number(r.loss, 4);
        case Tau:
            return number(r.tau, 3);
        case BestTau:
            return number(r.bestTau, 3);
        case LearningRate:
            return param("lr");
        case Id:
            return QString::fromStdString(r.record.id.substr(0, 8));
        }
    }
    if (role == Qt::ForegroundRole && index.column() == Status)
        return QBrush(statusColor(r));
    if (role == Qt::ToolTipRole) {
        QString tip = QString::fromStdString(r.record.commandLine);
        if (!r.record.message.empty())
            tip += QStringLiteral("\n") + QString::fromStdString(r.record.message);
        return tip;
    }
    if (role == Qt::TextAlignmentRole && index.column() >= Duration && index.column() <= LearningRate)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant RunTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    static const char* names[]
        = { "Name", "Status", "Experiment", "Started", "Duration", "Step", "Loss", "Val τ", "Best τ", "lr", "Id" };
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}
