// SPDX-License-Identifier: Apache-2.0
#include "app/studio/analysis/attentionviews.h"

#include "app/studio/analysis/attentionheatmaps.h"

#include "widgets/analysis/heatmapview.h"
#include "widgets/analysis/rankscatterdata.h"
#include "widgets/common/formatting.h"

#include "widgets/common/flowlayout.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

namespace tgraph::studio {

using namespace tgraph::widgets;

AttentionViews::AttentionViews(QObject* parent)
    : QObject(parent)
{
    m_channelPage = new QWidget;
    auto* channelLayout = new QVBoxLayout(m_channelPage);
    // Controls flow into more rows on a narrow page (docs/studio.md §9).
    auto* channelBar = new QWidget;
    auto* channelControls = new FlowLayout(channelBar, 6, 3);
    channelControls->setContentsMargins(0, 0, 0, 0);
    m_mode = new QComboBox;
    m_mode->addItems({ tr("Selected config"), tr("Mean over configs"), tr("Fastest − slowest (diverging)"),
        tr("Selected − pinned (diverging)") });
    auto* pin = new QPushButton(tr("Pin selected"));
    pin->setToolTip(tr("Pin the selected config as B of \"Selected − pinned\": then select any config A"));
    m_member = new QComboBox;
    channelControls->addWidget(new QLabel(tr("Show:")));
    channelControls->addWidget(m_mode);
    channelControls->addWidget(new QLabel(tr("Member:")));
    channelControls->addWidget(m_member);
    channelControls->addWidget(pin);
    m_nodeOverlayChoice = new QComboBox;
    m_nodeOverlayChoice->setToolTip(tr("Show the attention of every node on the graph view: the same quantity as "
                                       "the heatmap (selected config, mean or difference), averaged over channels"));
    m_nodeOverlayChoice->addItem(tr("none"), -1);
    channelControls->addWidget(new QLabel(tr("Graph overlay:")));
    channelControls->addWidget(m_nodeOverlayChoice);
    channelLayout->addWidget(channelBar);
    m_channelMap = new HeatmapView;
    channelLayout->addWidget(m_channelMap, 1);

    m_crossPage = new QWidget;
    auto* crossLayout = new QVBoxLayout(m_crossPage);
    auto* crossBar = new QWidget;
    auto* crossControls = new FlowLayout(crossBar, 6, 3);
    crossControls->setContentsMargins(0, 0, 0, 0);
    m_crossLayer = new QComboBox;
    crossControls->addWidget(new QLabel(tr("Layer:")));
    crossControls->addWidget(m_crossLayer);
    crossControls->addWidget(new QLabel(tr("columns: configs by true runtime, fastest left")));
    crossLayout->addWidget(crossBar);
    m_crossMap = new HeatmapView;
    crossLayout->addWidget(m_crossMap, 1);

    connect(pin, &QPushButton::clicked, this, &AttentionViews::pinRequested);
    for (QComboBox* choice : { m_mode, m_member, m_crossLayer, m_nodeOverlayChoice })
        connect(choice, &QComboBox::currentIndexChanged, this, &AttentionViews::choicesChanged);
}

// The pages belong to the tab widget that shows them; pages never shown are deleted here.
AttentionViews::~AttentionViews()
{
    for (QWidget* page : { m_channelPage.data(), m_crossPage.data() })
        if (page && !page->parent())
            delete page;
}

const GraphInference* AttentionViews::graph() const
{
    return m_outcome && m_graph >= 0 && size_t(m_graph) < m_outcome->graphs.size() ? &m_outcome->graphs[size_t(m_graph)]
                                                                                   : nullptr;
}

void AttentionViews::setGraph(std::shared_ptr<const InferenceOutcome> outcome, int graphIndex)
{
    m_outcome = std::move(outcome);
    m_graph = graphIndex;
    const GraphInference* g = graph();
    if (!g)
        return;
    {
        const QSignalBlocker block(m_member);
        m_member->clear();
        for (size_t m = 0; m < g->attention.size(); ++m)
            m_member->addItem(m < m_outcome->members.size()
                    ? QFileInfo(QString::fromStdString(m_outcome->members[m])).fileName()
                    : tr("member %1").arg(Formatting::id(int64_t(m) + 1)));
    }
    {
        const QSignalBlocker block(m_crossLayer);
        m_crossLayer->clear();
        if (!g->attention.empty())
            for (const auto& l : g->attention.front().layers)
                if (!l.cross.empty())
                    m_crossLayer->addItem(attentionLayerLabel(l.layer), int(&l - g->attention.front().layers.data()));
    }
    {
        // Choices: data = quantity * 1000 + layer + 1 (layer 0 = mean of layers); kept by data.
        const QSignalBlocker block(m_nodeOverlayChoice);
        const int kept = m_nodeOverlayChoice->currentData().toInt();
        m_nodeOverlayChoice->clear();
        m_nodeOverlayChoice->addItem(tr("none"), -1);
        if (!g->attention.empty() && !g->attention.front().layers.empty()
            && g->attention.front().layers.front().hasNodeMaps()) {
            const auto& layers = g->attention.front().layers;
            for (const int quantity : { 0, 1 }) {
                const bool has = quantity == 0 || !layers.front().nodeCross.empty();
                if (!has)
                    continue;
                const QString what = quantity == 0 ? tr("gate") : tr("cross weight");
                m_nodeOverlayChoice->addItem(tr("%1, mean of layers").arg(what), quantity * 1000);
                for (size_t l = 0; l < layers.size(); ++l)
                    m_nodeOverlayChoice->addItem(
                        QStringLiteral("%1, %2").arg(what, attentionLayerLabel(layers[l].layer)),
                        quantity * 1000 + int(l) + 1);
            }
        } else if (!g->attention.empty()) {
            m_nodeOverlayChoice->addItem(tr("(per-node values not kept: too many configs × nodes)"), -1);
        }
        m_nodeOverlayChoice->setCurrentIndex(std::max(0, m_nodeOverlayChoice->findData(kept)));
    }
}

void AttentionViews::update(const RankScatterData& rows, int64_t selectedConfig, int64_t pinnedConfig)
{
    const GraphInference* graphShown = graph();
    if (!graphShown)
        return;
    const GraphInference& g = *graphShown;
    const int member = std::max(0, m_member->currentIndex());
    if (g.attention.empty() || size_t(member) >= g.attention.size()) {
        HeatmapData empty;
        empty.title = tr("No attention maps for this result (collections and stored results keep scores only)");
        m_channelMap->setData(empty);
        m_crossMap->setData(empty);
        updateNodeOverlay(nullptr, -1, -1, {});
        return;
    }
    const auto& maps = g.attention[size_t(member)];
    // The shown result's rows: fastest first by true runtime, or by predicted score without runtimes.
    const std::vector<int64_t>& fastestFirst = rows.hasRuntimes() ? rows.trueOrder : rows.predictedOrder;
    const auto rowOfConfig = [&rows](int64_t config) { return rows.rowOfConfig(config); };
    switch (m_mode->currentIndex()) {
    case 0: {
        const int64_t row = std::max<int64_t>(0, rowOfConfig(selectedConfig));
        HeatmapData d = channelGateHeatmap(maps, row);
        d.title = tr("Channel gates, config %1").arg(Formatting::id(g.configIds[size_t(row)]));
        m_channelMap->setData(d);
        updateNodeOverlay(&maps, row, -1, tr("config %1").arg(Formatting::id(g.configIds[size_t(row)])));
        break;
    }
    case 1:
        m_channelMap->setData(channelGateHeatmap(maps, -1));
        updateNodeOverlay(&maps, -1, -1, tr("mean over configs"));
        break;
    case 3: {
        const int64_t a = std::max<int64_t>(0, rowOfConfig(selectedConfig));
        const int64_t b = rowOfConfig(pinnedConfig);
        if (b < 0) {
            HeatmapData none;
            none.title = tr("Pin a config first (select it, then \"Pin selected\")");
            m_channelMap->setData(none);
            updateNodeOverlay(nullptr, -1, -1, {});
            break;
        }
        HeatmapData d = channelGateDifference(maps, a, b);
        const QString ids[] = { Formatting::id(g.configIds[size_t(a)]), Formatting::id(pinnedConfig) };
        d.title = tr("Channel gates, config %1 − config %2 (pinned)").arg(ids[0], ids[1]);
        m_channelMap->setData(d);
        updateNodeOverlay(&maps, a, b, tr("config %1 − config %2").arg(ids[0], ids[1]));
        break;
    }
    default: {
        const int64_t a = fastestFirst.front(), b = fastestFirst.back();
        HeatmapData d = channelGateDifference(maps, a, b);
        d.title = tr("Channel gates, config %1 (%2 fastest) − config %3 (slowest)")
                      .arg(Formatting::id(g.configIds[size_t(a)]), g.hasRuntimes() ? tr("truly") : tr("predicted"),
                          Formatting::id(g.configIds[size_t(b)]));
        m_channelMap->setData(d);
        updateNodeOverlay(&maps, a, b,
            tr("config %1 (fastest) − config %2 (slowest)")
                .arg(Formatting::id(g.configIds[size_t(a)]), Formatting::id(g.configIds[size_t(b)])));
    }
    }
    QStringList names;
    for (const int64_t r : fastestFirst)
        names << tr("config %1").arg(Formatting::id(g.configIds[size_t(r)]));
    const int layer = m_crossLayer->currentData().isValid() ? m_crossLayer->currentData().toInt() : -1;
    HeatmapData cross = layer >= 0 ? crossConfigHeatmap(maps, size_t(layer), fastestFirst, names) : HeatmapData {};
    if (cross.rows() == 0)
        cross.title = tr("This model has no cross-config attention");
    else if (!g.hasRuntimes())
        cross.columnLabel = tr("config (sorted by predicted score: no runtimes)");
    m_crossMap->setData(cross);
}

int AttentionViews::mode() const { return m_mode->currentIndex(); }

void AttentionViews::setMode(int mode) { m_mode->setCurrentIndex(mode); }

void AttentionViews::setNodeOverlay(int index) { m_nodeOverlayChoice->setCurrentIndex(index); }

int AttentionViews::nodeOverlayChoices() const { return m_nodeOverlayChoice->count(); }

bool AttentionViews::nodeOverlayActive() const { return m_nodeOverlayChoice->currentData().toInt() >= 0; }

void AttentionViews::updateNodeOverlay(
    const tgraph::AttentionMaps* maps, int64_t a, int64_t b, const QString& rows)
{
    const bool wasShown = !m_nodeOverlay.isEmpty();
    m_nodeOverlay = {};
    const int choice = m_nodeOverlayChoice->currentData().toInt();
    const GraphInference* g = graph();
    if (maps && choice >= 0 && g) {
        const auto quantity = choice >= 1000 ? NodeAttention::Cross : NodeAttention::Gate;
        m_nodeOverlay
            = nodeAttentionOverlay(*maps, quantity, choice % 1000 - 1, a, b, g->modelNodeIds, g->nodesBeforePruning);
        if (!m_nodeOverlay.isEmpty())
            m_nodeOverlay.name = QStringLiteral("%1: %2").arg(m_nodeOverlayChoice->currentText(), rows);
    }
    if ((wasShown || !m_nodeOverlay.isEmpty()) && g)
        Q_EMIT nodeOverlayChanged();
}

} // namespace tgraph::studio
