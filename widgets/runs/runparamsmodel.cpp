// SPDX-License-Identifier: Apache-2.0
#include "widgets/runs/runparamsmodel.h"

#include "widgets/common/formatting.h"

#include "core/util/json.h"

#include <QBrush>
#include <QColor>
#include <QFont>

#include <algorithm>
#include <cmath>

namespace tgraph::widgets {

namespace {

// A value as the table shows it: numbers with up to 12 significant digits, strings unquoted.
std::string cellText(const tgraph::Json& v)
{
    switch (v.type()) {
    case tgraph::Json::value_t::null:
        return "null";
    case tgraph::Json::value_t::boolean:
        return v.get<bool>() ? "true" : "false";
    case tgraph::Json::value_t::number_integer:
        return std::to_string(v.get<int64_t>());
    case tgraph::Json::value_t::number_unsigned:
        return std::to_string(v.get<uint64_t>());
    case tgraph::Json::value_t::number_float:
        return QString::number(v.get<double>(), 'g', 12).toStdString();
    case tgraph::Json::value_t::string:
        return v.get<std::string>();
    case tgraph::Json::value_t::array: {
        std::string text = "[";
        for (const tgraph::Json& item : v)
            text += (text.size() > 1 ? ", " : "") + cellText(item);
        return text + "]";
    }
    case tgraph::Json::value_t::object:
    case tgraph::Json::value_t::binary:
    case tgraph::Json::value_t::discarded:
        break;
    }
    return "{…}";
}

// A recorded value as people read it: a number with a fraction or an exponent ("1e-3", "0.1") in
// the user's notation with up to 12 significant digits; integers (seeds, counts) and text as recorded.
QString shownValue(const std::string& recorded)
{
    const QString text = QString::fromStdString(recorded);
    if (!text.contains(QLatin1Char('.')) && !text.contains(QLatin1Char('e')) && !text.contains(QLatin1Char('E')))
        return text;
    bool ok = false;
    const double v = text.toDouble(&ok); // QString::toDouble reads the C notation of the recorded text
    return ok && std::isfinite(v) ? Formatting::significant(v, 12) : text;
}

void flattenInto(const std::string& prefix, const tgraph::Json& v, std::map<std::string, std::string>& out)
{
    if (!v.is_object()) {
        out[prefix] = cellText(v);
        return;
    }
    for (const auto& [key, member] : v.items())
        flattenInto(prefix + "." + key, member, out);
}

} // namespace

RunParamsModel::RunParamsModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

std::map<std::string, std::string> RunParamsModel::flatten(const std::map<std::string, std::string>& params)
{
    std::map<std::string, std::string> out;
    for (const auto& [key, value] : params) {
        if (!value.empty() && value.front() == '{') {
            try {
                flattenInto(key, tgraph::parseJson(value), out);
                continue;
            } catch (const std::exception&) {
                // not JSON after all: shown as it is
            }
        }
        out[key] = value;
    }
    return out;
}

std::set<std::string> RunParamsModel::differingKeys(const std::vector<std::map<std::string, std::string>>& runs)
{
    std::set<std::string> all;
    for (const auto& params : runs)
        for (const auto& entry : params)
            all.insert(entry.first);
    std::set<std::string> differing;
    for (const std::string& key : all) {
        const auto first = runs.front().find(key);
        for (const auto& params : runs) {
            const auto it = params.find(key);
            if (it == params.end() || first == runs.front().end() || it->second != first->second) {
                differing.insert(key);
                break;
            }
        }
    }
    return differing;
}

void RunParamsModel::setRuns(std::vector<Run> runs)
{
    for (Run& r : runs)
        r.params = flatten(r.params);
    const bool same = runs.size() == m_runs.size()
        && std::equal(runs.begin(), runs.end(), m_runs.begin(),
            [](const Run& a, const Run& b) { return a.name == b.name && a.params == b.params; });
    if (same)
        return;
    beginResetModel();
    m_runs = std::move(runs);
    rebuildKeys();
    endResetModel();
}

void RunParamsModel::setOnlyDifferences(bool on)
{
    if (on == m_onlyDifferences)
        return;
    beginResetModel();
    m_onlyDifferences = on;
    rebuildKeys();
    endResetModel();
}

void RunParamsModel::rebuildKeys()
{
    m_keys.clear();
    m_differing.clear();
    if (m_runs.empty())
        return;
    std::vector<std::map<std::string, std::string>> all;
    for (const Run& r : m_runs)
        all.push_back(r.params);
    if (m_runs.size() > 1)
        m_differing = differingKeys(all);
    std::set<std::string> keys;
    for (const auto& params : all)
        for (const auto& entry : params)
            keys.insert(entry.first);
    for (const std::string& key : keys)
        if (!m_onlyDifferences || m_differing.count(key))
            m_keys.push_back(key);
}

QString RunParamsModel::emptyText() const
{
    if (!m_keys.empty())
        return {};
    if (m_runs.empty())
        return tr("Select runs to see their parameters.");
    bool anyParams = false;
    for (const Run& r : m_runs)
        anyParams = anyParams || !r.params.empty();
    if (!anyParams)
        return tr("The selected runs record no parameters.");
    if (m_runs.size() == 1)
        return tr("Select two or more runs to see which parameters differ.");
    return tr("No differences: the %n selected runs have the same parameters.", nullptr, int(m_runs.size()));
}

int RunParamsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_keys.size()); }
int RunParamsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : 1 + int(m_runs.size());
}

QVariant RunParamsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    const std::string& key = m_keys[size_t(index.row())];
    const bool different = m_differing.count(key) > 0;
    switch (role) {
    case Qt::DisplayRole:
    case Qt::ToolTipRole: {
        if (index.column() == 0)
            return QString::fromStdString(key);
        const auto& params = m_runs[size_t(index.column() - 1)].params;
        const auto it = params.find(key);
        return it == params.end() ? Formatting::missing() : shownValue(it->second);
    }
    case DifferentRole:
        return different;
    case Qt::FontRole:
        if (different) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    case Qt::BackgroundRole:
        return different ? QVariant(QBrush(QColor(255, 200, 0, 60))) : QVariant();
    }
    return {};
}

QVariant RunParamsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (section == 0)
        return tr("Parameter");
    return section - 1 < int(m_runs.size()) ? m_runs[size_t(section - 1)].name : QVariant();
}

} // namespace tgraph::widgets
