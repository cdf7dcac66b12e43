// SPDX-License-Identifier: Apache-2.0
#include "widgets/runs/runtablemodel.h"

#include "widgets/common/formatting.h"

#include <QBrush>
#include <QDateTime>
#include <QStringList>

#include <algorithm>
#include <set>

namespace tgraph::widgets {

namespace {

// Run durations as W&B shows them: "45s", "12m 3s", "2h 5m".
QString runDuration(int64_t ms) { return Formatting::elapsed(ms / 1000); }

// A parameter's value as written for the command line ("1e-3") in the user's notation ("0.001").
QString numberParam(const QString& text, int digits)
{
    bool ok = false;
    const double v = text.toDouble(&ok);
    return ok ? Formatting::significant(v, digits) : text;
}

QString countParam(const QString& text)
{
    bool ok = false;
    const qlonglong v = text.toLongLong(&ok);
    return ok ? Formatting::count(v) : text;
}

QString param(const RunRow& r, const char* key)
{
    const auto it = r.params.find(key);
    return it == r.params.end() ? QString() : QString::fromStdString(it->second);
}

// A finite number as the sort key, else no value (QSortFilterProxyModel sorts it last).
QVariant numberKey(double v) { return std::isfinite(v) ? QVariant(v) : QVariant(); }

} // namespace

RunTableModel::RunTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void RunTableModel::setRuns(std::vector<RunRow> runs, int64_t nowMs)
{
    m_nowMs = nowMs;
    std::set<std::string> incoming;
    for (const RunRow& r : runs)
        incoming.insert(r.record.id);
    // Rows of runs that are gone, from the bottom up.
    for (int row = rowCount() - 1; row >= 0; --row)
        if (!incoming.count(m_runs[size_t(row)].record.id)) {
            beginRemoveRows({}, row, row);
            m_runs.erase(m_runs.begin() + row);
            endRemoveRows();
        }
    // Runs that stay are updated in place; new ones are appended (the view sorts).
    std::vector<RunRow> added;
    for (RunRow& r : runs) {
        const int row = rowOfRun(r.record.id);
        if (row >= 0)
            m_runs[size_t(row)] = std::move(r);
        else
            added.push_back(std::move(r));
    }
    if (!m_runs.empty())
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    if (!added.empty()) {
        beginInsertRows({}, rowCount(), rowCount() + int(added.size()) - 1);
        for (RunRow& r : added)
            m_runs.push_back(std::move(r));
        endInsertRows();
    }
}

int RunTableModel::rowOfRun(const std::string& runId) const
{
    const auto it
        = std::find_if(m_runs.begin(), m_runs.end(), [&runId](const RunRow& r) { return r.record.id == runId; });
    return it == m_runs.end() ? -1 : int(it - m_runs.begin());
}

const RunRow* RunTableModel::run(const std::string& runId) const
{
    const int row = rowOfRun(runId);
    return row < 0 ? nullptr : &m_runs[size_t(row)];
}

int RunTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_runs.size()); }
int RunTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QString RunTableModel::statusText(const RunRow& run)
{
    QString text = QString::fromLatin1(tgraph::runStatusName(run.record.status)).toLower();
    if (run.stale)
        text += tr(" (no heartbeat)");
    return text;
}

QColor RunTableModel::statusColor(const RunRow& run)
{
    using tgraph::RunStatus;
    switch (run.record.status) {
    case RunStatus::Running:
        return run.stale ? QColor(200, 130, 0) : QColor(30, 120, 220);
    case RunStatus::Finished:
        return QColor(40, 150, 60);
    case RunStatus::Failed:
    case RunStatus::Crashed:
        return QColor(200, 40, 40);
    case RunStatus::Killed:
        return QColor(130, 130, 130);
    case RunStatus::Pending:
        break;
    }
    return QColor(150, 150, 150);
}

QString RunTableModel::paramSummary(const std::map<std::string, std::string>& params)
{
    const auto get = [&params](const char* key) {
        const auto it = params.find(key);
        return it == params.end() ? QString() : QString::fromStdString(it->second);
    };
    QStringList parts;
    if (const QString model = get("model"); !model.isEmpty() && model != QStringLiteral("tgraph"))
        parts << (get("reduction").isEmpty() ? model : model + " " + get("reduction"));
    const QString steps = get("steps");
    const QString epochs = get("epochs");
    if (!steps.isEmpty() && steps != QStringLiteral("0"))
        parts << tr("%1 steps").arg(countParam(steps));
    else if (!epochs.isEmpty() && epochs.toDouble() > 0)
        parts << tr("%1 epochs").arg(numberParam(epochs, 4));
    if (!get("configs_per_step").isEmpty() && get("kind") != QStringLiteral("tile"))
        parts << tr("%1 configs").arg(countParam(get("configs_per_step")));
    if (!get("cross_attn").isEmpty())
        parts << tr("cross-attn %1").arg(get("cross_attn"));
    if (!get("seed").isEmpty())
        parts << tr("seed %1").arg(get("seed"));
    if (!get("folds").isEmpty() && get("folds") != QStringLiteral("0"))
        parts << tr("%1 folds").arg(countParam(get("folds")));
    return parts.join(QStringLiteral(" · "));
}

int64_t RunTableModel::durationMs(const RunRow& run, int64_t nowMs)
{
    const tgraph::RunRecord& r = run.record;
    if (!r.startMs)
        return 0;
    int64_t end = r.endMs;
    if (!end)
        end = r.status == tgraph::RunStatus::Running && !run.stale ? nowMs : r.heartbeatMs;
    return std::max<int64_t>(0, end - r.startMs);
}

QVariant RunTableModel::sortKey(const RunRow& r, int column) const
{
    switch (column) {
    case Started:
        return qlonglong(r.record.startMs);
    case Duration:
        return qlonglong(durationMs(r, m_nowMs));
    case Step:
        return qlonglong(r.step);
    case Loss:
        return numberKey(r.loss);
    case Tau:
        return numberKey(r.tau);
    case BestTau:
        return numberKey(r.bestTau);
    case LearningRate: {
        bool ok = false;
        const double lr = param(r, "lr").toDouble(&ok);
        return ok ? QVariant(lr) : QVariant();
    }
    default:
        return display(r, column);
    }
}

QVariant RunTableModel::display(const RunRow& r, int column) const
{
    switch (column) {
    case Name:
        return QString::fromStdString(r.record.name);
    case Status:
        return statusText(r);
    case Kind:
        return param(r, "kind");
    case Started:
        return r.record.startMs
            ? QDateTime::fromMSecsSinceEpoch(r.record.startMs).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))
            : QString();
    case Duration:
        return r.record.startMs ? runDuration(durationMs(r, m_nowMs)) : QString();
    case Step:
        return Formatting::count(r.step);
    case Loss:
        return Formatting::number(r.loss, 4);
    case Tau:
        return Formatting::number(r.tau, 4);
    case BestTau:
        return Formatting::number(r.bestTau, 4);
    case LearningRate:
        return numberParam(param(r, "lr"), 3);
    case Params:
        return paramSummary(r.params);
    case Experiment:
        return QString::fromStdString(r.record.experiment);
    case Id:
        return QString::fromStdString(r.record.id.substr(0, 8));
    }
    return {};
}

QVariant RunTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const RunRow& r = m_runs[size_t(index.row())];
    switch (role) {
    case RunIdRole:
        return QString::fromStdString(r.record.id);
    case Qt::UserRole:
        return sortKey(r, index.column());
    case Qt::DisplayRole:
        return display(r, index.column());
    case Qt::ForegroundRole:
        return index.column() == Status ? QVariant(QBrush(statusColor(r))) : QVariant();
    case Qt::ToolTipRole: {
        QString tip = QString::fromStdString(r.record.commandLine);
        if (!r.record.message.empty())
            tip += QStringLiteral("\n") + QString::fromStdString(r.record.message);
        if (r.record.pid)
            tip += tr("\npid %1 on %2").arg(Formatting::id(r.record.pid), QString::fromStdString(r.record.host));
        return tip.trimmed();
    }
    case Qt::TextAlignmentRole:
        if (index.column() >= Duration && index.column() <= LearningRate)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    }
    return {};
}

QVariant RunTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    static const char* const names[] = { QT_TR_NOOP("Name"), QT_TR_NOOP("Status"), QT_TR_NOOP("Kind"),
        QT_TR_NOOP("Started"), QT_TR_NOOP("Duration"), QT_TR_NOOP("Step"), QT_TR_NOOP("Loss"), QT_TR_NOOP("Val τ"),
        QT_TR_NOOP("Best τ"), QT_TR_NOOP("lr"), QT_TR_NOOP("Params"), QT_TR_NOOP("Experiment"), QT_TR_NOOP("Id") };
    static_assert(std::size(names) == ColumnCount);
    return tr(names[section]);
}

} // namespace tgraph::widgets
