// SPDX-License-Identifier: Apache-2.0
#include "widgets/graph/nodeinspector.h"

#include "widgets/common/elidedlabel.h"
#include "widgets/common/formatting.h"

#include "core/graph/featurenames.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace tgraph::widgets {

namespace {

constexpr int kMaxLinks = 40;

QString number(float value) { return Formatting::significant(double(value), 6); }

// A name of at most kLinkCharacters, its middle left out: the links wrap between names only.
constexpr int kLinkCharacters = 28;
QString shortName(const QString& name)
{
    if (name.size() <= kLinkCharacters)
        return name;
    const int head = (kLinkCharacters - 1) / 2;
    return name.left(head) + QChar(0x2026) + name.right(kLinkCharacters - 1 - head);
}

} // namespace

NodeInspector::NodeInspector(QWidget* parent)
    : QWidget(parent)
    , m_header(new ElidedLabel(this, Qt::ElideMiddle))
    , m_kind(new ElidedLabel(this, Qt::ElideRight))
    , m_where(new ElidedLabel(this, Qt::ElideMiddle))
    , m_instruction(new QPlainTextEdit(this))
    , m_links(new QLabel(this))
    , m_features(new QTreeWidget(this))
    , m_config(new QSpinBox(this))
    , m_configs(new QTreeWidget(this))
    , m_configNote(new QLabel(this))
{
    m_header->setObjectName(QStringLiteral("inspectorHeader"));
    QFont bold = m_header->font();
    bold.setBold(true);
    m_header->setFont(bold);
    m_kind->setObjectName(QStringLiteral("inspectorKind"));
    m_where->setObjectName(QStringLiteral("inspectorWhere"));
    for (ElidedLabel* label : { m_header, m_kind, m_where })
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_instruction->setObjectName(QStringLiteral("inspectorInstruction"));
    m_instruction->setReadOnly(true);
    m_instruction->setProperty(Formatting::kVerbatimProperty, true); // HLO text as the file has it
    m_instruction->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_instruction->setMaximumHeight(90);
    // Low minimums: the inspector shares a 768-pixel screen with the bottom docks (docs/studio.md §9).
    m_instruction->setMinimumHeight(36);
    m_instruction->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_links->setObjectName(QStringLiteral("inspectorLinks"));
    m_links->setWordWrap(true);
    m_links->setTextFormat(Qt::RichText);
    m_links->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    connect(m_links, &QLabel::linkActivated, this, [this](const QString& link) {
        bool ok = false;
        const qint64 node = link.mid(QStringLiteral("node:").size()).toLongLong(&ok);
        if (ok)
            Q_EMIT nodeRequested(node);
    });
    m_features->setObjectName(QStringLiteral("inspectorFeatures"));
    m_features->setHeaderLabels({ tr("Feature"), tr("Value") });
    m_features->setUniformRowHeights(true);
    m_features->setMinimumHeight(48);
    m_features->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_configs->setObjectName(QStringLiteral("inspectorConfigs"));
    m_configs->setHeaderLabels({ tr("Config value"), tr("Value") });
    m_configs->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_configs->setMinimumHeight(48);
    m_config->setObjectName(QStringLiteral("inspectorConfigIndex"));
    m_config->setPrefix(tr("configuration #"));
    m_config->setToolTip(tr("The configuration whose layout values are shown: the one selected in the inference "
                            "table or the rank scatter, or any other"));
    connect(m_config, &QSpinBox::valueChanged, this, [this](int config) {
        if (m_document)
            m_selectedConfig[m_document->path] = config;
        fillConfigs();
        Q_EMIT configurationChanged(config);
    });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->setSpacing(2);
    layout->addWidget(m_header);
    layout->addWidget(m_kind);
    layout->addWidget(m_where);
    layout->addWidget(m_instruction);
    layout->addWidget(m_links);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_features);
    auto* configPage = new QWidget(splitter);
    auto* configLayout = new QVBoxLayout(configPage);
    configLayout->setContentsMargins(0, 0, 0, 0);
    auto* configRow = new QHBoxLayout;
    configRow->addWidget(m_config);
    configRow->addWidget(m_configNote, 1);
    configLayout->addLayout(configRow);
    configLayout->addWidget(m_configs);
    splitter->addWidget(configPage);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    layout->addWidget(splitter, 1);
    setNode(-1);
}

void NodeInspector::setDocument(tgraph::GraphDocumentPtr document)
{
    m_document = std::move(document);
    {
        // The configuration selected for this graph before (0 when none): a document change is no
        // new selection, so no configurationChanged().
        const QSignalBlocker block(m_config);
        m_config->setRange(0, m_document ? int(std::max<int64_t>(0, m_document->configCount() - 1)) : 0);
        int64_t config = 0;
        if (m_document)
            if (const auto it = m_selectedConfig.find(m_document->path); it != m_selectedConfig.end())
                config = it->second < m_document->configCount() ? it->second : 0;
        m_config->setValue(int(config));
    }
    setNode(-1);
}

bool NodeInspector::setConfiguration(int64_t config)
{
    if (!m_document || config < 0 || config >= m_document->configCount())
        return false;
    m_config->setValue(int(config)); // valueChanged: remembered, shown, announced
    return true;
}

void NodeInspector::showConfiguration(const QString& graphPath, qint64 config)
{
    if (config < 0)
        return;
    const std::string path = graphPath.toStdString();
    if (m_document && m_document->path == path)
        setConfiguration(config);
    else
        m_selectedConfig[path] = config;
}

int64_t NodeInspector::configuration() const { return m_config->value(); }

QString NodeInspector::headerText() const
{
    QStringList lines { m_header->fullText() };
    for (const ElidedLabel* label : { m_kind, m_where })
        if (!label->isHidden())
            lines << label->fullText();
    return lines.join(QLatin1Char('\n'));
}

QString NodeInspector::instructionText() const { return m_instruction->toPlainText(); }

QString NodeInspector::linksText() const { return m_links->text(); }

QString NodeInspector::linkList(std::span<const int64_t> nodes) const
{
    if (nodes.empty())
        return tr("none");
    QStringList parts;
    for (size_t i = 0; i < nodes.size() && i < size_t(kMaxLinks); ++i)
        parts << QStringLiteral("<a href=\"node:%1\">%2</a>")
                     .arg(nodes[i])
                     .arg(shortName(QString::fromStdString(m_document->nodeName(nodes[i]))).toHtmlEscaped());
    if (nodes.size() > size_t(kMaxLinks))
        parts << tr("… %Ln more", nullptr, int(nodes.size() - kMaxLinks));
    return parts.join(QStringLiteral(", "));
}

void NodeInspector::setNode(int64_t node)
{
    if (!m_document || node < 0 || node >= m_document->nodeCount()) {
        m_node = -1;
        m_header->setFullText(m_document ? tr("Select a node to inspect it.") : tr("No graph."));
        m_kind->hide();
        m_where->hide();
        m_instruction->clear();
        m_instruction->hide();
        m_links->clear();
        m_features->clear();
        m_configs->clear();
        m_configNote->clear();
        return;
    }
    m_node = node;
    const tgraph::GraphDocument& doc = *m_document;
    const auto& computation = doc.computations[size_t(doc.computationOfNode[size_t(node)])];
    m_header->setFullText(QString::fromStdString(doc.nodeName(node)));
    m_kind->setFullText(QStringLiteral("%1  %2").arg(
        QString::fromStdString(doc.opcodeName(node)), QString::fromStdString(doc.shapeText(node))));
    QString where = tr("node #%1 in %2").arg(Formatting::id(node), QString::fromStdString(computation.name));
    if (doc.isConfigurable(node))
        where += QStringLiteral(" · ") + tr("configurable");
    if (doc.pruned && !doc.pruned->contains(node))
        where += QStringLiteral(" · ") + tr("removed by pruning");
    m_where->setFullText(where);
    m_kind->show();
    m_where->show();
    const std::string text = doc.instructionText(node);
    m_instruction->setPlainText(QString::fromStdString(text));
    m_instruction->setVisible(!text.empty());
    m_links->setText(QStringLiteral("<b>%1</b> %2<br><b>%3</b> %4")
                         .arg(tr("Operands:"), linkList(doc.full.topology.operandsOf(node)), tr("Users:"),
                             linkList(doc.full.topology.usersOf(node))));
    fillFeatures();
    fillConfigs();
}

void NodeInspector::fillFeatures()
{
    m_features->clear();
    const tgraph::GraphDocument& doc = *m_document;
    const auto& features = doc.nodeFeatures();
    const int64_t width = doc.nodeCount() > 0 ? features.size() / doc.nodeCount() : 0;
    const float* row = features.data() + m_node * width;
    for (const tgraph::FeatureGroup& group : tgraph::nodeFeatureGroups()) {
        auto* top = new QTreeWidgetItem(m_features, { QString::fromStdString(group.name) });
        bool nonZero = false;
        QStringList summary;
        for (int c = group.first; c < group.first + group.count && c < width; ++c) {
            new QTreeWidgetItem(top, { QString::fromStdString(tgraph::nodeFeatureName(c)), number(row[c]) });
            nonZero |= row[c] != 0;
            if (summary.size() < 6)
                summary << number(row[c]);
        }
        top->setText(1, Formatting::numberList(summary) + (group.count > 6 ? QStringLiteral(" …") : QString()));
        top->setExpanded(nonZero && group.count <= 8);
        if (!nonZero)
            top->setForeground(0, palette().color(QPalette::PlaceholderText));
    }
}

void NodeInspector::fillConfigs()
{
    m_configs->clear();
    if (!m_document || m_node < 0)
        return;
    const tgraph::GraphDocument& doc = *m_document;
    if (!doc.isConfigurable(m_node)) {
        m_configNote->setText(tr("not configurable"));
        m_config->setEnabled(false);
        return;
    }
    m_config->setEnabled(doc.configCount() > 0);
    const float* values = doc.configValues(m_node, m_config->value());
    if (!values) {
        m_configNote->setText(tr("no configurations in this file"));
        return;
    }
    m_configNote->setText(tr("of %1").arg(Formatting::count(doc.configCount())));
    const auto& tensors = tgraph::layoutConfigTensors();
    for (size_t t = 0; t < tensors.size(); ++t) {
        QStringList dims;
        for (int k = 0; k < 6; ++k)
            dims << number(values[t * 6 + size_t(k)]);
        auto* top
            = new QTreeWidgetItem(m_configs, { QString::fromStdString(tensors[t]), Formatting::numberList(dims) });
        for (int k = 0; k < 6; ++k)
            new QTreeWidgetItem(top,
                { QString::fromStdString(tgraph::layoutConfigFeatureName(int(t) * 6 + k)),
                    number(values[t * 6 + size_t(k)]) });
    }
}

} // namespace tgraph::widgets
