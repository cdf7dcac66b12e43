// SPDX-License-Identifier: Apache-2.0
#include "app/studio/pages/graphspage.h"

#include "app/studio/session/studiosession.h"

#include "widgets/common/distinctnames.h"
#include "widgets/common/formatting.h"
#include "widgets/graph/graphpage.h"
#include "widgets/graph/graphpane.h"
#include "widgets/graph/nodeinspector.h"

#include <QAction>
#include <QMenu>
#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabBar>
#include <QTabWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace tgraph::studio {

using namespace tgraph::widgets;

namespace {

constexpr int kListPanel = 0;
constexpr int kCentre = 1;
constexpr int kInspectorPanel = 2;
// Side panels as they unfold the first time: the canvas keeps the rest (docs/studio.md §0).
constexpr int kListWidth = 210;
constexpr int kInspectorWidth = 300;
// Tab titles are shortened to this width, keeping what tells them apart (their tooltip is whole).
constexpr int kTabTitleWidth = 220;

} // namespace

GraphsPage::GraphsPage(StudioSession* session, QWidget* parent)
    : QWidget(parent)
    , m_session(session)
    , m_splitter(new QSplitter(Qt::Horizontal, this))
    , m_centre(new QStackedWidget(this))
    , m_tabs(new QTabWidget(this))
    , m_sidebar(new QTreeWidget(this))
    , m_inspector(new NodeInspector(this))
{
    setObjectName(QStringLiteral("graphsPage"));
    m_tabs->setObjectName(QStringLiteral("graphTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->setTabsClosable(true);
    m_tabs->setMovable(true);
    // Tab titles are shortened by the page so that what tells them apart stays (updateTabTitles);
    // more tabs than fit scroll.
    m_tabs->setElideMode(Qt::ElideNone);
    m_tabs->setUsesScrollButtons(true);
    m_tabs->tabBar()->setExpanding(false);
    connect(m_tabs, &QTabWidget::tabCloseRequested, this, &GraphsPage::closeTab);
    connect(m_tabs, &QTabWidget::currentChanged, this, &GraphsPage::onCurrentChanged);
    connect(m_tabs->tabBar(), &QTabBar::tabMoved, this, &GraphsPage::publishDocuments);

    m_centre->addWidget(createEmptyState());
    m_centre->addWidget(m_tabs);

    m_sidebar->setObjectName(QStringLiteral("graphList"));
    m_sidebar->setHeaderLabels({ tr("Graph"), tr("Nodes"), tr("Configs") });
    m_sidebar->setRootIsDecorated(false);
    m_sidebar->setMinimumWidth(140);
    m_sidebar->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_sidebar->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_sidebar->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    m_sidebar->header()->setStretchLastSection(false);
    connect(m_sidebar, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        if (!item)
            return;
        if (auto* page = qobject_cast<GraphPage*>(item->data(0, Qt::UserRole).value<QObject*>()))
            m_tabs->setCurrentWidget(page);
        else if (item->data(0, Qt::UserRole + 1).toBool())
            m_session->requestPage(Page::Runs); // a project or one of its runs
    });

    m_inspector->setObjectName(QStringLiteral("nodeInspector"));
    m_inspector->setMinimumWidth(200);
    connect(m_inspector, &NodeInspector::nodeRequested, this, [this](qint64 node) {
        if (GraphPage* page = currentPage())
            page->selectNode(node);
    });

    m_splitter->setObjectName(QStringLiteral("graphsSplitter"));
    m_splitter->addWidget(m_sidebar);
    m_splitter->addWidget(m_centre);
    m_splitter->addWidget(m_inspector);
    m_splitter->setStretchFactor(kListPanel, 0);
    m_splitter->setStretchFactor(kCentre, 1);
    m_splitter->setStretchFactor(kInspectorPanel, 0);
    m_splitter->setCollapsible(kCentre, false);
    // Canvas first: both side panels start folded; the inspector unfolds at the first selected
    // node (unless the user folded it), the list of graphs when asked (the tabs name the graphs).
    m_splitter->setSizes({ 0, 1000, 0 });
    m_panelWidths = { kListWidth, 0, kInspectorWidth };

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_splitter);

    m_graphListAction = new QAction(tr("&Graphs and Projects Panel"), this);
    m_graphListAction->setObjectName(QStringLiteral("graphListAction"));
    m_graphListAction->setCheckable(true);
    m_graphListAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L));
    connect(m_graphListAction, &QAction::triggered, this, [this](bool on) { setPanelShown(kListPanel, on); });
    m_inspectorAction = new QAction(tr("&Inspector Panel"), this);
    m_inspectorAction->setObjectName(QStringLiteral("inspectorAction"));
    m_inspectorAction->setCheckable(true);
    m_inspectorAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K));
    connect(m_inspectorAction, &QAction::triggered, this, [this](bool on) {
        m_inspectorFoldedByUser = !on;
        setPanelShown(kInspectorPanel, on);
    });
    connect(m_splitter, &QSplitter::splitterMoved, this, [this] {
        m_graphListAction->setChecked(isGraphListShown());
        m_inspectorAction->setChecked(isInspectorShown());
        m_inspectorFoldedByUser = !isInspectorShown();
    });
    m_graphListAction->setChecked(false);
    m_inspectorAction->setChecked(false);

    connect(m_session, &StudioSession::overlayChanged, this, &GraphsPage::applyOverlay);
    connect(m_session, &StudioSession::nodeRequested, this, [this](const QString& path, qint64 node) {
        if (GraphPage* page = pageForPath(path)) {
            m_tabs->setCurrentWidget(page);
            page->selectNode(node);
        }
    });
    // The inspector shows the configuration selected in the analysis views (for its graph file).
    connect(m_session, &StudioSession::configSelected, m_inspector, &NodeInspector::showConfiguration);
    connect(m_session, &StudioSession::projectsChanged, this, &GraphsPage::updateSidebar);
    onCurrentChanged();
}

GraphsPage::~GraphsPage() = default;

QWidget* GraphsPage::createEmptyState()
{
    auto* page = new QWidget(this);
    page->setObjectName(QStringLiteral("emptyState"));
    auto* hint = new QLabel(tr("Open a TpuGraphs .npz, an HLO dump or a tuning record (%1), or drop files here")
                                .arg(QKeySequence(QKeySequence::Open).toString(QKeySequence::NativeText)),
        page);
    hint->setObjectName(QStringLiteral("emptyStateHint"));
    hint->setAlignment(Qt::AlignCenter);
    hint->setWordWrap(true);
    hint->setForegroundRole(QPalette::PlaceholderText);
    QFont font = hint->font();
    font.setPointSizeF(font.pointSizeF() * 1.4);
    hint->setFont(font);
    auto* open = new QPushButton(tr("Open…"), page);
    open->setIcon(QIcon::fromTheme(QStringLiteral("document-open")));
    connect(open, &QPushButton::clicked, this, &GraphsPage::openRequested);
    auto* layout = new QVBoxLayout(page);
    layout->addStretch(2);
    layout->addWidget(hint);
    layout->addSpacing(12);
    layout->addWidget(open, 0, Qt::AlignHCenter);
    layout->addStretch(3);
    return page;
}

GraphPage* GraphsPage::graphPage(int index) const { return qobject_cast<GraphPage*>(m_tabs->widget(index)); }

GraphPage* GraphsPage::currentPage() const { return graphPage(m_tabs->currentIndex()); }

GraphPage* GraphsPage::pageForPath(const QString& path) const
{
    for (int i = 0; i < m_tabs->count(); ++i)
        if (GraphPage* page = graphPage(i); page && QString::fromStdString(page->document()->path) == path)
            return page;
    return nullptr;
}

int GraphsPage::indexOfPage(const GraphPage* page) const { return m_tabs->indexOf(const_cast<GraphPage*>(page)); }

std::vector<tgraph::GraphDocumentPtr> GraphsPage::documents() const
{
    std::vector<tgraph::GraphDocumentPtr> out;
    for (int i = 0; i < m_tabs->count(); ++i)
        if (GraphPage* page = graphPage(i))
            out.push_back(page->document());
    return out;
}

void GraphsPage::showDocument(
    const tgraph::GraphDocumentPtr& document, const QString& key, const QString& title, const QString& toolTip)
{
    int index = -1;
    for (int i = 0; i < m_tabs->count(); ++i)
        if (m_tabs->widget(i)->property("filePath").toString() == key)
            index = i;
    auto* page = new GraphPage(document, m_tabs);
    page->fullPane()->setNodeMenuHook([this, key, document](QMenu& menu, qint64 node) {
        if (!m_session->isDumpStage(key) || !document->module)
            return;
        const QString name = QString::fromStdString(document->nodeName(node));
        menu.addAction(tr("History across Passes…"), this, [this, key, name] { m_session->requestHistory(key, name); });
    });
    page->setProperty("filePath", key);
    page->setProperty("fullTitle", title);
    if (index >= 0) {
        QWidget* old = m_tabs->widget(index);
        m_tabs->removeTab(index);
        old->deleteLater();
        index = m_tabs->insertTab(index, page, title);
    } else {
        index = m_tabs->addTab(page, title);
    }
    m_tabs->setTabToolTip(index, toolTip);
    m_tabs->setCurrentIndex(index);
    updateTabTitles();
    if (const NodeOverlay* overlay = m_session->overlay(QString::fromStdString(document->path)))
        page->setOverlay(*overlay);
    onCurrentChanged();
    Q_EMIT countChanged(m_tabs->count());
}

void GraphsPage::closeTab(int index)
{
    QWidget* page = m_tabs->widget(index);
    if (!page)
        return;
    m_tabs->removeTab(index);
    page->deleteLater();
    updateTabTitles();
    onCurrentChanged();
    Q_EMIT countChanged(m_tabs->count());
}

void GraphsPage::updateTabTitles()
{
    QStringList names;
    for (int i = 0; i < m_tabs->count(); ++i)
        names << m_tabs->widget(i)->property("fullTitle").toString();
    const QStringList shown = DistinctNames::shorten(names, m_tabs->tabBar()->fontMetrics(), kTabTitleWidth);
    for (int i = 0; i < m_tabs->count() && i < shown.size(); ++i)
        m_tabs->setTabText(i, shown[i]);
}

void GraphsPage::onCurrentChanged()
{
    m_centre->setCurrentIndex(m_tabs->count() > 0 ? 1 : 0);
    GraphPage* page = currentPage();
    if (m_connected != page) {
        if (m_connected) {
            disconnect(m_connected, &GraphPage::nodeSelected, m_inspector, &NodeInspector::setNode);
            disconnect(m_connected, &GraphPage::nodeSelected, this, nullptr);
        }
        m_connected = page;
        if (page) {
            connect(page, &GraphPage::nodeSelected, m_inspector, &NodeInspector::setNode);
            connect(page, &GraphPage::nodeSelected, this, [this](qint64 node) {
                if (node >= 0 && !isInspectorShown() && !m_inspectorFoldedByUser)
                    setPanelShown(kInspectorPanel, true);
            });
        }
        m_inspector->setDocument(page ? page->document() : nullptr);
        if (page)
            m_inspector->setNode(page->selectedNode());
    }
    publishDocuments();
    Q_EMIT currentPageChanged(page);
}

void GraphsPage::publishDocuments()
{
    GraphPage* page = currentPage();
    m_session->setDocuments(documents(), page ? page->document() : nullptr);
    updateSidebar();
}

void GraphsPage::applyOverlay(const QString& path)
{
    const NodeOverlay* overlay = m_session->overlay(path);
    for (int i = 0; i < m_tabs->count(); ++i)
        if (GraphPage* page = graphPage(i); page && QString::fromStdString(page->document()->path) == path)
            page->setOverlay(overlay ? *overlay : NodeOverlay {}); // an empty overlay removes it
}

void GraphsPage::updateSidebar()
{
    const QSignalBlocker blocker(m_sidebar);
    m_sidebar->clear();
    for (int i = 0; i < m_tabs->count(); ++i) {
        GraphPage* page = graphPage(i);
        if (!page)
            continue;
        const tgraph::GraphDocument& doc = *page->document();
        auto* item = new QTreeWidgetItem(m_sidebar,
            { page->property("fullTitle").toString(), Formatting::count(doc.nodeCount()),
                Formatting::count(doc.configCount()) });
        item->setToolTip(0, QDir::toNativeSeparators(QString::fromStdString(doc.path)));
        item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
        item->setTextAlignment(2, Qt::AlignRight | Qt::AlignVCenter);
        item->setData(0, Qt::UserRole, QVariant::fromValue<QObject*>(page));
        if (i == m_tabs->currentIndex())
            m_sidebar->setCurrentItem(item);
    }
    // Projects: their runs, newest first, as the runs table lists them (a cross-validation run's
    // folds count in their run); the Runs page shows them in full.
    for (const ProjectInfoPtr& project : m_session->projects()) {
        std::vector<const tgraph::RunRecord*> runs;
        for (const tgraph::RunRecord& run : project->runs)
            if (run.parentRun.empty())
                runs.push_back(&run);
        auto* top = new QTreeWidgetItem(m_sidebar,
            { QFileInfo(QString::fromStdString(project->path)).fileName(), QString(),
                tr("%n run(s)", nullptr, int(runs.size())) });
        top->setToolTip(0, QDir::toNativeSeparators(QString::fromStdString(project->path)));
        top->setData(0, Qt::UserRole + 1, true);
        QFont bold = top->font(0);
        bold.setBold(true);
        top->setFont(0, bold);
        for (const tgraph::RunRecord* r : runs) {
            const tgraph::RunRecord& run = *r;
            auto* item = new QTreeWidgetItem(top,
                { QString::fromStdString(run.name.empty() ? run.id.substr(0, 8) : run.name), QString(),
                    QString::fromLatin1(tgraph::runStatusName(run.status)) });
            item->setToolTip(0,
                tr("%1 · experiment %2").arg(QString::fromStdString(run.id), QString::fromStdString(run.experiment)));
            item->setData(0, Qt::UserRole + 1, true);
        }
        top->setExpanded(true);
    }
    m_sidebar->setRootIsDecorated(!m_session->projects().empty());
}

bool GraphsPage::isGraphListShown() const { return m_splitter->sizes().value(kListPanel) > 0; }

bool GraphsPage::isInspectorShown() const { return m_splitter->sizes().value(kInspectorPanel) > 0; }

void GraphsPage::setPanelShown(int index, bool shown)
{
    QList<int> sizes = m_splitter->sizes();
    if (sizes.size() != 3)
        return;
    if (shown && sizes[index] == 0) {
        const int wanted = std::max(m_panelWidths[size_t(index)], index == kListPanel ? kListWidth : kInspectorWidth);
        sizes[index] = wanted;
        sizes[kCentre] = std::max(0, sizes[kCentre] - wanted);
    } else if (!shown && sizes[index] > 0) {
        m_panelWidths[size_t(index)] = sizes[index];
        sizes[kCentre] += sizes[index];
        sizes[index] = 0;
    }
    m_splitter->setSizes(sizes);
    m_graphListAction->setChecked(isGraphListShown());
    m_inspectorAction->setChecked(isInspectorShown());
}

QByteArray GraphsPage::saveState() const { return m_splitter->saveState(); }

void GraphsPage::restoreState(const QByteArray& state)
{
    if (!state.isEmpty()) {
        m_splitter->restoreState(state);
    }
    m_graphListAction->setChecked(isGraphListShown());
    m_inspectorAction->setChecked(isInspectorShown());
}

} // namespace tgraph::studio
