// SPDX-License-Identifier: Apache-2.0
#include "widgets/analysis/attributiontablemodel.h"

#include "widgets/common/colormaps.h"

#include "core/util/format.h"
#include "core/graph/opcodes.h"

#include <QColor>

#include <cmath>

namespace {

QString number(double v) { return std::isfinite(v) ? QString::number(v, 'g', 4) : QStringLiteral("–"); }

QString signedNumber(double v)
{
    if (!std::isfinite(v))
        return QStringLiteral("–");
    return (v > 0 ? QStringLiteral("+") : QString()) + QString::number(v, 'g', 4);
}

QString signedDuration(double ns)
{
    if (!std::isfinite(ns))
        return QStringLiteral("–");
    return QString::fromStdString((ns < 0 ? "−" : "+") + tgraph::formatDuration(std::llround(std::abs(ns))));
}

// A faint diverging tint: strong enough to read the sign at a glance, light enough for black text.
QVariant tint(double v, double max)
{
    if (!std::isfinite(v) || max <= 0)
        return {};
    QColor c = ColorMaps::diverging(std::clamp(v / max, -1.0, 1.0));
    c.setAlpha(150);
    return c;
}

} // namespace

AttributionTableModel::AttributionTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void AttributionTableModel::setAttribution(
    std::shared_ptr<const tgraph::Attribution> attribution, tgraph::AttributionOrder order)
{
    beginResetModel();
    m_attribution = std::move(attribution);
    m_order = order;
    rebuild();
    endResetModel();
}

void AttributionTableModel::setOrder(tgraph::AttributionOrder order)
{
    if (order == m_order)
        return;
    beginResetModel();
    m_order = order;
    rebuild();
    endResetModel();
}

void AttributionTableModel::setDifferingOnly(bool differingOnly)
{
    if (differingOnly == m_differingOnly)
        return;
    beginResetModel();
    m_differingOnly = differingOnly;
    rebuild();
    endResetModel();
}

void AttributionTableModel::rebuild()
{
    m_rows.clear();
    m_maxEffect = m_maxDifference = 0;
    if (!m_attribution)
        return;
    for (const size_t i : tgraph::rankedNodes(*m_attribution, m_order)) {
        const tgraph::NodeAttribution& n = m_attribution->nodes[i];
        if (m_differingOnly && !n.layoutDiffers())
            continue;
        m_rows.push_back(i);
        if (std::isfinite(n.effect()))
            m_maxEffect = std::max(m_maxEffect, std::abs(n.effect()));
        m_maxDifference = std::max(m_maxDifference, std::abs(n.difference()));
    }
}

int64_t AttributionTableModel::nodeAt(int row) const
{
    const tgraph::NodeAttribution* n = entryAt(row);
    return n ? n->fileNode : -1;
}

int AttributionTableModel::rowOfNode(int64_t fileNode) const
{
    for (size_t r = 0; r < m_rows.size(); ++r)
        if (m_attribution->nodes[m_rows[r]].fileNode == fileNode)
            return int(r);
    return -1;
}

const tgraph::NodeAttribution* AttributionTableModel::entryAt(int row) const
{
    if (row < 0 || size_t(row) >= m_rows.size())
        return nullptr;
    return &m_attribution->nodes[m_rows[size_t(row)]];
}

int AttributionTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int AttributionTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(ColumnCount);
}

QVariant AttributionTableModel::data(const QModelIndex& index, int role) const
{
    const tgraph::NodeAttribution* n = entryAt(index.row());
    if (!n)
        return {};
    const int column = index.column();
    if (role == Qt::UserRole)
        return qint64(n->fileNode);
    if (role == Qt::TextAlignmentRole)
        return column == Name || column == Opcode || column == Layout ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                                      : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::BackgroundRole) {
        if (column == Effect)
            return tint(-n->effect(), m_maxEffect); // blue = favours A, as everywhere in the explain view
        if (column == Difference)
            return tint(n->difference(), m_maxDifference);
        return {};
    }
    if (role == Qt::ToolTipRole) {
        QString tip = tr("node %1 (%2)").arg(n->fileNode).arg(QString::fromStdString(tgraph::opcodeName(n->opcode)));
        if (!n->name.empty())
            tip += QStringLiteral(" ") + QString::fromStdString(n->name);
        tip += tr("\nshare A %1, share B %2 (w·h/N: the node's part of the score)")
                   .arg(number(n->shareA), number(n->shareB));
        if (std::isfinite(n->effect()))
            tip += tr("\nB with A's layout of this node: %1\nA with B's layout of this node: %2\n"
                      "effect %3 (> 0: A's choice is predicted faster)")
                       .arg(signedNumber(n->effectOnB), signedNumber(n->effectOnA), signedNumber(n->effect()));
        if (std::isfinite(n->simulatedA))
            tip += tr("\nsimulated: A %1, B %2")
                       .arg(QString::fromStdString(tgraph::formatDuration(std::llround(n->simulatedA))),
                           QString::fromStdString(tgraph::formatDuration(std::llround(n->simulatedB))));
        if (n->configurable >= 0)
            tip += tr("\nlayout (minor-to-major, A | B): %1")
                       .arg(n->layoutDiffers() ? QString::fromStdString(tgraph::layoutDifferenceText(*n))
                                               : tr("the same"));
        return tip;
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (column) {
    case Rank:
        return index.row() + 1;
    case Node:
        return qint64(n->fileNode);
    case Name:
        return n->name.empty() ? QStringLiteral("–") : QString::fromStdString(n->name);
    case Opcode:
        return QString::fromStdString(tgraph::opcodeName(n->opcode));
    case ShareA:
        return number(n->shareA);
    case ShareB:
        return number(n->shareB);
    case Difference:
        return signedNumber(n->difference());
    case Effect:
        return signedNumber(n->effect());
    case SimulatedEffect:
        return signedDuration(n->simulatedEffect());
    case Layout:
        if (n->configurable < 0)
            return tr("(not configurable)");
        return n->layoutDiffers() ? QString::fromStdString(tgraph::layoutDifferenceText(*n)) : tr("same");
    default:
        return {};
    }
}

QVariant AttributionTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case ShareA:
        case ShareB:
            return tr("The node's part of the score, w·h_n/N; shares + bias = score (higher = slower)");
        case Difference:
            return tr("share A − share B: < 0 (blue) = the node makes A look faster than B");
        case Effect:
            return tr("How much better A's layout of this node is: (score(A with B's layout) − score(A) + score(B) − "
                      "score(B with A's layout)) / 2; > 0 (blue) = A's choice predicted faster");
        case SimulatedEffect:
            return tr("The same counterfactual priced by the cost simulator (when the module is known): > 0 = A's "
                      "choice is faster in the simulator");
        case Layout:
            return tr("Layout values that differ, minor-to-major per tensor (out, in, kernel), A | B");
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    static const char* names[ColumnCount]
        = { "#", "Node", "Name", "Opcode", "Share A", "Share B", "A − B", "Effect", "Sim. effect", "Layout A | B" };
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}
