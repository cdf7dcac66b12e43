// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QAbstractTableModel>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace tgraph::widgets {

// The parameters of one or more runs side by side (column 0 the key, then one column per run),
// JSON-valued parameters (the trainer's "hparams") flattened to dotted keys. Keys whose values
// differ between the runs are bold and tinted; "only differences" hides the others: the run
// comparer of W&B and MLflow.
class RunParamsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    struct Run
    {
        QString name;
        std::map<std::string, std::string> params;
    };
    static constexpr int DifferentRole = Qt::UserRole + 2; // bool on every cell of a row

    explicit RunParamsModel(QObject* parent = nullptr);

    // Same runs and values as shown: nothing happens (no reset, so a poll does not flicker).
    void setRuns(std::vector<Run> runs);
    void setOnlyDifferences(bool on);
    bool onlyDifferences() const { return m_onlyDifferences; }
    // The keys shown, in row order.
    const std::vector<std::string>& keys() const { return m_keys; }
    int runCount() const { return int(m_runs.size()); }
    // What to say instead of an empty table ("" while it has rows): no runs chosen, one run under
    // "only differences", no differences between the runs, no parameters recorded.
    QString emptyText() const;

    // JSON objects among the values become one entry per leaf ("hparams.model.hidden" = "128").
    static std::map<std::string, std::string> flatten(const std::map<std::string, std::string>& params);
    // Keys with different values (or missing in some run) across `runs`.
    static std::set<std::string> differingKeys(const std::vector<std::map<std::string, std::string>>& runs);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    void rebuildKeys();

    std::vector<Run> m_runs; // flattened
    std::vector<std::string> m_keys;
    std::set<std::string> m_differing;
    bool m_onlyDifferences = false;
};

} // namespace tgraph::widgets
