// SPDX-License-Identifier: Apache-2.0
#include "widgets/runs/runcurvespanel.h"

#include "widgets/common/formatting.h"
#include "widgets/runs/runcurvesview.h"
#include "widgets/runs/smoothing.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QVBoxLayout>

#include <cmath>
#include <utility>

namespace tgraph::widgets {

namespace {

// What the trainer logs (core/store/runwriter.cpp), most wanted first.
const std::pair<const char*, const char*> kKnownMetrics[] = {
    { "train/loss", QT_TRANSLATE_NOOP("RunCurvesPanel", "training loss") },
    { "valid/tau", QT_TRANSLATE_NOOP("RunCurvesPanel", "validation τ") },
    { "valid/opa", QT_TRANSLATE_NOOP("RunCurvesPanel", "validation OPA") },
    { "valid/top5_slowdown", QT_TRANSLATE_NOOP("RunCurvesPanel", "validation top-5 slowdown") },
    { "valid/tile_score", QT_TRANSLATE_NOOP("RunCurvesPanel", "validation tile score") },
    { "train/lr", QT_TRANSLATE_NOOP("RunCurvesPanel", "learning rate") },
    { "train/grad_norm", QT_TRANSLATE_NOOP("RunCurvesPanel", "gradient norm") },
    { "train/steps_per_s", QT_TRANSLATE_NOOP("RunCurvesPanel", "steps / s") },
};

} // namespace

QString RunCurvesPanel::metricLabel(const QString& contextKey)
{
    for (const auto& [key, label] : kKnownMetrics)
        if (contextKey == QLatin1String(key))
            return tr(label);
    return contextKey;
}

RunCurvesPanel::RunCurvesPanel(QWidget* parent)
    : QWidget(parent)
    , m_metric(new QComboBox)
    , m_xAxis(new QComboBox)
    , m_smoothing(new QSlider(Qt::Horizontal))
    , m_smoothingLabel(new QLabel)
    , m_logY(new QCheckBox(tr("log y")))
    , m_outliers(new QCheckBox(tr("ignore outliers")))
    , m_view(new RunCurvesView)
{
    for (const auto& [key, label] : kKnownMetrics)
        m_metric->addItem(tr(label), QString::fromLatin1(key));
    m_metric->setToolTip(tr("The metric to plot (context/key as the project stores it)"));
    m_xAxis->addItem(tr("step"), int(CurveXAxis::Step));
    m_xAxis->addItem(tr("relative time"), int(CurveXAxis::RelativeTime));
    m_xAxis->addItem(tr("wall time"), int(CurveXAxis::WallTime));
    m_smoothing->setRange(0, 99);
    m_smoothing->setValue(int(std::lround(kDefaultSmoothing * 100)));
    m_smoothing->setToolTip(tr("TensorBoard smoothing: the weight of the debiased exponential moving average"));
    m_smoothingLabel->setText(Formatting::number(kDefaultSmoothing, 2));
    m_outliers->setToolTip(tr("Fit the y axis to the 5th..95th percentile of the values"));

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Metric:")));
    controls->addWidget(m_metric);
    controls->addWidget(new QLabel(tr("x:")));
    controls->addWidget(m_xAxis);
    controls->addWidget(new QLabel(tr("Smoothing:")));
    controls->addWidget(m_smoothing, 1);
    controls->addWidget(m_smoothingLabel);
    controls->addWidget(m_logY);
    controls->addWidget(m_outliers);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addWidget(m_view, 1);

    connect(m_metric, &QComboBox::currentIndexChanged, this, [this] { Q_EMIT metricChanged(metric()); });
    connect(m_xAxis, &QComboBox::currentIndexChanged, this,
        [this] { m_view->setXAxis(CurveXAxis(m_xAxis->currentData().toInt())); });
    connect(m_smoothing, &QSlider::valueChanged, this, [this](int value) {
        m_smoothingLabel->setText(Formatting::number(value / 100.0, 2));
        m_view->setSmoothing(value / 100.0);
    });
    connect(m_logY, &QCheckBox::toggled, m_view, &RunCurvesView::setLogY);
    connect(m_outliers, &QCheckBox::toggled, m_view, &RunCurvesView::setIgnoreOutliers);
}

QString RunCurvesPanel::metric() const { return m_metric->currentData().toString(); }

QStringList RunCurvesPanel::metrics() const
{
    QStringList keys;
    for (int i = 0; i < m_metric->count(); ++i)
        keys << m_metric->itemData(i).toString();
    return keys;
}

void RunCurvesPanel::addMetrics(const QStringList& contextKeys)
{
    for (const QString& key : contextKeys)
        if (m_metric->findData(key) < 0)
            m_metric->addItem(metricLabel(key), key);
}

void RunCurvesPanel::setMetric(const QString& contextKey)
{
    addMetrics({ contextKey });
    m_metric->setCurrentIndex(m_metric->findData(contextKey));
}

} // namespace tgraph::widgets
