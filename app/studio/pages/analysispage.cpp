// SPDX-License-Identifier: Apache-2.0
#include "app/studio/pages/analysispage.h"

#include "app/studio/analysis/explainpanel.h"
#include "app/studio/analysis/inferencepanel.h"
#include "app/studio/analysis/tunepanel.h"

#include "widgets/graph/graphpane.h"
#include "widgets/graph/graphview.h"
#include "widgets/graph/nodeoverlay.h"

#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>

namespace tgraph::studio {

using namespace tgraph::widgets;

namespace {

// Each configurable node of `document`: how many of its 18 layout values configuration `config`
// pins (not -1). Empty when the document has no such configuration.
NodeOverlay layoutValuesSet(const tgraph::GraphDocument& doc, qint64 config)
{
    NodeOverlay overlay;
    if (doc.kind != tgraph::GraphKind::Layout || config < 0 || config >= doc.configCount())
        return overlay;
    overlay.name = AnalysisPage::tr("config %1: layout values set").arg(config);
    overlay.values.assign(size_t(doc.nodeCount()), std::numeric_limits<float>::quiet_NaN());
    for (int64_t k = 0; k < doc.layout.configurableCount(); ++k) {
        const int64_t node = doc.layout.nodeConfigIds[k];
        const float* values = doc.configValues(node, config);
        overlay.values[size_t(node)] = float(std::count_if(values, values + 18, [](float v) { return v >= 0; }));
    }
    overlay.minimum = 0;
    overlay.maximum = 18;
    return overlay;
}

} // namespace

AnalysisPage::AnalysisPage(StudioSession* session, QWidget* parent)
    : QWidget(parent)
    , m_session(session)
    , m_splitter(new QSplitter(Qt::Horizontal, this))
    , m_views(new QTabWidget(this))
    , m_inference(new InferencePanel(this))
    , m_explain(new ExplainPanel(this))
    , m_tune(new TunePanel(this))
    , m_paneBox(new QWidget(this))
    , m_pane(new GraphPane(m_paneBox))
{
    setObjectName(QStringLiteral("analysisPage"));
    m_inference->setObjectName(QStringLiteral("inferencePanel"));
    m_explain->setObjectName(QStringLiteral("explainPanel"));
    m_tune->setObjectName(QStringLiteral("tunePanel"));
    m_views->setObjectName(QStringLiteral("analysisTabs"));
    m_views->setDocumentMode(true);
    m_views->addTab(m_inference, tr("&Inference"));
    m_views->addTab(m_explain, tr("E&xplain"));
    m_views->addTab(m_tune, tr("T&une"));

    m_paneBox->setObjectName(QStringLiteral("analysisGraph"));
    m_pane->setObjectName(QStringLiteral("analysisGraphPane"));
    m_paneBox->setMinimumWidth(kMinimumPaneWidth);
    auto* paneLayout = new QVBoxLayout(m_paneBox);
    paneLayout->setContentsMargins(0, 0, 0, 0);
    paneLayout->addWidget(m_pane);

    m_splitter->setObjectName(QStringLiteral("analysisSplitter"));
    m_splitter->addWidget(m_views);
    m_splitter->addWidget(m_paneBox);
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setCollapsible(0, false);
    m_splitter->setCollapsible(1, false);
    m_splitter->setSizes({ 900, 360 });
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_splitter);

    connect(m_views, &QTabWidget::currentChanged, this, &AnalysisPage::updatePaneVisibility);

    // The session's graphs, projects and shared model reach the views.
    connect(m_session, &StudioSession::documentsChanged, this, &AnalysisPage::updateDocuments);
    connect(m_session, &StudioSession::currentDocumentChanged, this, &AnalysisPage::updateDocuments);
    connect(m_session, &StudioSession::projectsChanged, this,
        [this] { m_inference->setProjects(m_session->projectPaths()); });
    connect(m_session, &StudioSession::sharedModelChanged, this, [this](const QStringList& files) {
        if (m_inference->modelFiles() != files)
            m_inference->setModelFiles(files);
    });
    connect(m_session, &StudioSession::modelOffered, this, [this](const QStringList& files) {
        m_inference->setModelFiles(files);
        m_tune->setModelFiles(files);
        showView(AnalysisView::Inference);
        m_session->requestPage(Page::Analysis);
    });
    connect(m_session, &StudioSession::overlayChanged, this, &AnalysisPage::onOverlayChanged);
    connect(m_session, &StudioSession::analysisRequested, this, &AnalysisPage::showView);

    // Messages go to the status bar.
    connect(m_inference, &InferencePanel::statusMessage, m_session, &StudioSession::showMessage);
    connect(m_explain, &ExplainPanel::statusMessage, m_session, &StudioSession::showMessage);
    connect(m_tune, &TunePanel::statusMessage, m_session, &StudioSession::showMessage);

    // Inference: the selected configuration, attention overlays, graphs to open, "explain this".
    connect(m_inference, &InferencePanel::configSelected, this, &AnalysisPage::onConfigSelected);
    connect(m_inference, &InferencePanel::nodeOverlayChanged, this,
        [this](const QString& path) { m_session->setOverlay(path, m_inference->nodeOverlay()); });
    connect(m_inference, &InferencePanel::openGraphRequested, this,
        [this](const QString& path) { m_session->requestOpen({ path }); });
    connect(m_inference, &InferencePanel::explainRequested, this,
        [this](const QString& a, const QString& b) { explainFrom(a, b, false); });
    connect(m_inference, &InferencePanel::finished, this,
        [this] { m_explain->setContext(m_inference->explainContext()); });
    // Tune reuses the model chosen in Inference, unless another one was chosen for Tune itself.
    connect(m_inference, &InferencePanel::modelFilesChanged, this, [this](const QStringList& files) {
        const QStringList tune = m_tune->modelFiles();
        if (tune.isEmpty() || tune == m_session->sharedModel())
            m_tune->setModelFiles(files);
        m_session->setSharedModel(files);
    });

    // Explain: nodes clicked in its list, its overlay.
    connect(m_explain, &ExplainPanel::nodeActivated, this, [this](const QString& path, qint64 node) {
        m_session->requestNode(path, node);
        if (path == m_panePath)
            m_pane->selectNode(node);
    });
    connect(m_explain, &ExplainPanel::overlayChanged, this,
        [this](const QString& path) { m_session->setOverlay(path, m_explain->overlay()); });

    // Tune: its overlay of changed layouts, "explain this candidate".
    connect(m_tune, &TunePanel::overlayChanged, this,
        [this](const QString& path) { m_session->setOverlay(path, m_tune->overlay()); });
    connect(m_tune, &TunePanel::explainRequested, this, [this] { explainFrom({}, {}, true); });

    // A node selected in the side pane is selected on the Graph page too.
    connect(m_pane, &GraphPane::nodeSelected, this, [this](qint64 node) {
        if (!m_panePath.isEmpty())
            m_session->requestNode(m_panePath, node);
    });
    updateDocuments();
    updatePaneVisibility();
}

AnalysisPage::~AnalysisPage() = default;

void AnalysisPage::showView(AnalysisView view)
{
    QWidget* widget = view == AnalysisView::Inference ? static_cast<QWidget*>(m_inference)
        : view == AnalysisView::Explain              ? static_cast<QWidget*>(m_explain)
                                                     : static_cast<QWidget*>(m_tune);
    m_views->setCurrentWidget(widget);
    // Tune follows the shared model when it has none of its own yet.
    if (view == AnalysisView::Tune && m_tune->modelFiles().isEmpty() && !m_session->sharedModel().isEmpty())
        m_tune->setModelFiles(m_session->sharedModel());
    if (view == AnalysisView::Explain)
        m_explain->setContext(m_inference->explainContext());
}

AnalysisView AnalysisPage::currentView() const
{
    QWidget* current = m_views->currentWidget();
    return current == m_explain ? AnalysisView::Explain
        : current == m_tune     ? AnalysisView::Tune
                                : AnalysisView::Inference;
}

void AnalysisPage::updateDocuments()
{
    const std::vector<tgraph::GraphDocumentPtr>& documents = m_session->documents();
    const tgraph::GraphDocumentPtr& current = m_session->currentDocument();
    m_inference->setDocuments(documents, current);
    m_tune->setDocuments(documents, current);
    // The pane keeps its graph while it is open; else it shows the current one.
    if (m_panePath.isEmpty() || !m_session->findDocument(m_panePath))
        showInPane(current ? QString::fromStdString(current->path) : QString());
}

void AnalysisPage::showInPane(const QString& path)
{
    const tgraph::GraphDocumentPtr document = path.isEmpty() ? nullptr : m_session->findDocument(path);
    if (!document) {
        if (!m_panePath.isEmpty() || !m_pane->document()) {
            m_panePath.clear();
            m_pane->setDocument(nullptr, tgraph::GraphSource::Kind::Full);
            m_pane->view()->setPlaceholder(tr("The graph being analysed appears here, coloured by the view in front"));
        }
        return;
    }
    if (path != m_panePath || m_pane->document() != document) {
        m_panePath = path;
        m_pane->setDocument(document, tgraph::GraphSource::Kind::Full);
    }
    m_pane->setOverlay(m_session->overlay(path));
}

void AnalysisPage::onOverlayChanged(const QString& path)
{
    if (path == m_panePath)
        m_pane->setOverlay(m_session->overlay(path));
    else if (m_session->overlay(path)) // the views colour another open graph: show that one
        showInPane(path);
}

void AnalysisPage::onConfigSelected(const QString& path, qint64 config)
{
    m_session->selectConfig(path, config);
    if (m_inference->nodeOverlayActive())
        return; // the per-node attention overlay is shown instead (it follows the selection itself)
    if (const tgraph::GraphDocumentPtr document = m_session->findDocument(path))
        m_session->setOverlay(path, layoutValuesSet(*document, config));
}

void AnalysisPage::explainFrom(const QString& a, const QString& b, bool fromTune)
{
    if (fromTune) {
        const ExplainRequest request = m_tune->explainContext();
        m_explain->setContext(request);
        m_explain->setConfigs(QString::number(request.a.index), QString::number(request.b.index));
    } else {
        m_explain->setContext(m_inference->explainContext());
        m_explain->setConfigs(a, b);
    }
    m_views->setCurrentWidget(m_explain);
    m_explain->run();
}

void AnalysisPage::updatePaneVisibility() { m_paneBox->setVisible(m_views->currentWidget() != m_explain); }

QByteArray AnalysisPage::saveState() const { return m_splitter->saveState(); }

void AnalysisPage::restoreState(const QByteArray& state)
{
    if (!state.isEmpty())
        m_splitter->restoreState(state);
}

} // namespace tgraph::studio
