// SPDX-License-Identifier: Apache-2.0
#include "widgets/analysis/attributiontablemodel.h"

#include "widgets/common/colormaps.h"
#include "widgets/common/formatting.h"

#include "core/graph/opcodes.h"

#include <QColor>

#include <cmath>

namespace tgraph::widgets {

namespace {

QString number(double v) { return Formatting::significant(v, 4); }

QString signedNumber(double v) { return Formatting::signedSignificant(v, 4); }

QString signedDuration(double ns)
{
    if (!std::isfinite(ns))
        return Formatting::missing();
    const QString magnitude = Formatting::duration(std::llround(std::abs(ns)));
    return ns == 0 ? magnitude : (ns < 0 ? QStringLiteral("−") : QStringLiteral("+")) + magnitude;
}

// One tensor's minor-to-major dims in HLO's layout notation, "{1,0}", or "default" (all -1).
QString tensorLayout(const std::array<int8_t, 18>& values, int tensor)
{
    int last = -1;
    for (int i = 0; i < 6; ++i)
        if (values[size_t(6 * tensor + i)] != -1)
            last = i;
    if (last < 0)
        return QStringLiteral("default");
    QStringList dims;
    for (int i = 0; i <= last; ++i)
        dims << Formatting::id(values[size_t(6 * tensor + i)]);
    return QLatin1Char('{') + dims.join(QLatin1Char(',')) + QLatin1Char('}');
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
        QString tip = tr("node %1 (%2)")
                          .arg(Formatting::id(n->fileNode), QString::fromStdString(tgraph::opcodeName(n->opcode)));
        if (!n->name.empty())
            tip += QStringLiteral(" ") + QString::fromStdString(n->name);
        tip += tr("\nshare A %1, share B %2 (w·h/N: the node's part of the score)")
                   .arg(number(n->shareA), number(n->shareB));
        if (std::isfinite(n->effect()))
            tip += tr("\nB with A's layout of this node: %1\nA with B's layout of this node: %2\n"
                      "effect %3 (> 0: A's choice is predicted faster)")
                       .arg(signedNumber(n->effectOnB), signedNumber(n->effectOnA), signedNumber(n->effect()));
        if (std::isfinite(n->simulatedA)) {
            const QStringList simulated = Formatting::durations({ n->simulatedA, n->simulatedB });
            tip += tr("\nsimulated: A %1, B %2").arg(simulated[0], simulated[1]);
        }
        if (n->configurable >= 0)
            tip += tr("\nlayout (minor-to-major, A | B): %1").arg(n->layoutDiffers() ? layoutText(*n) : tr("the same"));
        return tip;
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (column) {
    case Rank:
        return Formatting::count(index.row() + 1);
    case Node:
        return Formatting::id(n->fileNode);
    case Name:
        return n->name.empty() ? Formatting::missing() : QString::fromStdString(n->name);
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
        return n->layoutDiffers() ? layoutText(*n) : tr("same");
    default:
        return {};
    }
}

QString AttributionTableModel::layoutText(const tgraph::NodeAttribution& node)
{
    QStringList parts;
    for (int t = 0; t < 3; ++t) {
        const uint32_t mask = 0x3fu << (6 * t);
        if (!(node.differingValues & mask))
            continue;
        parts << QStringLiteral("%1 %2 | %3")
                     .arg(QLatin1String(tgraph::kLayoutTensorNames[t]), tensorLayout(node.layoutA, t),
                         tensorLayout(node.layoutB, t));
    }
    return parts.join(QStringLiteral("; "));
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

} // namespace tgraph::widgets
