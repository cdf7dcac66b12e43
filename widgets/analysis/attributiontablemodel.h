// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/results/attribution.h"

#include <QAbstractTableModel>

#include <memory>
#include <vector>

namespace tgraph::widgets {

// The explain view's ranked node list: why config A scores differently from config B, one row per
// node of the model's (pruned) graph in the chosen order (counterfactual effect first, or share
// difference). Columns: rank, node (the file's node id), instruction name, opcode, share A, share B,
// A − B, effect (> 0 = A's layout of the node predicted faster), the simulator's effect when the
// module is known, and the layout values that differ. The effect and A − B cells are tinted on the
// diverging map, blue where the node favours A (predicted faster there), red where it favours B. Qt::UserRole holds the
// file node id on every column.
class AttributionTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Rank, Node, Name, Opcode, ShareA, ShareB, Difference, Effect, SimulatedEffect, Layout, ColumnCount };

    explicit AttributionTableModel(QObject* parent = nullptr);

    void setAttribution(std::shared_ptr<const tgraph::Attribution> attribution, tgraph::AttributionOrder order);
    void setOrder(tgraph::AttributionOrder order);
    // Rows shown: configurable nodes whose layout differs only, or every node.
    void setDifferingOnly(bool differingOnly);
    const tgraph::Attribution* attribution() const { return m_attribution.get(); }

    // The file node id of `row` (-1 when out of range) and the row of a file node (-1 when not shown).
    int64_t nodeAt(int row) const;
    int rowOfNode(int64_t fileNode) const;
    // The attribution entry of `row`, nullptr when out of range.
    const tgraph::NodeAttribution* entryAt(int row) const;
    // The layout values that differ, per tensor in HLO's notation: "out {1,0} | {0,1}; kernel ...".
    static QString layoutText(const tgraph::NodeAttribution& node);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    void rebuild();

    std::shared_ptr<const tgraph::Attribution> m_attribution;
    tgraph::AttributionOrder m_order = tgraph::AttributionOrder::Effect;
    bool m_differingOnly = false;
    std::vector<size_t> m_rows; // indices into m_attribution->nodes
    double m_maxEffect = 0; // largest |effect| and |A − B| shown, for the tint
    double m_maxDifference = 0;
};

} // namespace tgraph::widgets
