// SPDX-License-Identifier: Apache-2.0
#include "app/studio/runs/runlogpane.h"

#include "app/studio/runs/runprocesses.h"
#include "widgets/common/formatting.h"

#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QVBoxLayout>

namespace tgraph::studio {

using namespace tgraph::widgets;

RunLogPane::RunLogPane(RunProcesses* processes, QWidget* parent)
    : QWidget(parent)
    , m_processes(processes)
    , m_title(new QLabel(tr("Select a run to see its output")))
    , m_text(new QPlainTextEdit)
{
    m_text->setReadOnly(true);
    m_text->setProperty(Formatting::kVerbatimProperty, true); // the process's own output
    m_text->setMaximumBlockCount(RunProcesses::kMaxLines);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setFont(QFont(QStringLiteral("monospace")));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_title);
    layout->addWidget(m_text, 1);
    connect(m_processes, &RunProcesses::outputLine, this,
        [this](const QString& runId, const QString& line) { onOutputLine(runId, line); });
    connect(m_processes, &RunProcesses::runIdKnown, this, [this](const QString& runId) {
        if (m_runId.isEmpty() && !m_fromFile)
            m_runId = runId; // the pane already shows this run's first lines
    });
}

void RunLogPane::showRun(const QString& runId, const QString& name)
{
    const bool fromFile = !m_processes->trainedHere(runId);
    if (runId == m_runId && fromFile == m_fromFile)
        return;
    m_runId = runId;
    m_fromFile = fromFile;
    m_fileText.clear();
    Q_EMIT fileRunChanged(fromFile ? runId : QString());
    if (fromFile) {
        m_title->setText(tr("%1: train.log").arg(name));
        m_text->clear();
        refreshFileLog();
    } else {
        m_title->setText(tr("%1: output of the process started here").arg(name));
        setText(m_processes->output(runId).join(QLatin1Char('\n')));
        m_text->verticalScrollBar()->setValue(m_text->verticalScrollBar()->maximum());
    }
}

void RunLogPane::showNewRun()
{
    m_runId.clear();
    m_fromFile = false;
    m_fileText.clear();
    Q_EMIT fileRunChanged({});
    m_title->setText(tr("Output of the new run"));
    m_text->clear();
}

void RunLogPane::clear()
{
    showNewRun();
    m_title->setText(tr("Select a run to see its output"));
}

void RunLogPane::setFileLog(const QString& runId, const QString& text)
{
    if (!m_fromFile || runId != m_runId || text == m_fileText)
        return;
    m_fileText = text;
    refreshFileLog();
}

void RunLogPane::refreshFileLog()
{
    QString text = m_fileText;
    const QStringList extra = m_processes->output(m_runId);
    if (!extra.isEmpty()) {
        if (!text.isEmpty() && !text.endsWith(QLatin1Char('\n')))
            text += QLatin1Char('\n');
        text += extra.join(QLatin1Char('\n'));
    }
    if (text != m_text->toPlainText())
        setText(text);
}

void RunLogPane::setText(const QString& text)
{
    QScrollBar* bar = m_text->verticalScrollBar();
    const bool atEnd = bar->value() == bar->maximum();
    m_text->setPlainText(text);
    if (atEnd)
        bar->setValue(bar->maximum());
}

void RunLogPane::onOutputLine(const QString& runId, const QString& line)
{
    if (runId != m_runId)
        return;
    if (m_fromFile) {
        refreshFileLog();
        return;
    }
    QScrollBar* bar = m_text->verticalScrollBar();
    const bool atEnd = bar->value() == bar->maximum();
    m_text->appendPlainText(line);
    if (atEnd)
        bar->setValue(bar->maximum());
}

} // namespace tgraph::studio
