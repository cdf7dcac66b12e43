// SPDX-License-Identifier: Apache-2.0
#include "app/studio/window/aboutdialog.h"

#include "core/io/npz.h"
#include "core/store/sqlitedb.h"
#include "core/util/version.h"
#include "core/view/graphlayout.h"
#include "model/facade/runtime.h"
#include "widgets/common/windowplacement.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace tgraph::studio {

using namespace tgraph::widgets;

AboutDialog::AboutDialog(QWidget* parent)
    : QDialog(parent)
    , m_versions(new QLabel(this))
{
    setWindowTitle(tr("About TGraph Studio"));
    setObjectName(QStringLiteral("aboutDialog"));
    WindowPlacement::placeWhenShown(this);

    auto* title = new QLabel(tr("TGraph Studio %1").arg(QString::fromStdString(tgraph::projectVersion())), this);
    title->setObjectName(QStringLiteral("aboutTitle"));
    QFont titleFont = title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.4);
    title->setFont(titleFont);
    title->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* description = new QLabel(tr("Tensor program graph analysis and learned cost models for ML-compiler engineers:"
                                      " inspect TpuGraphs graphs and XLA HLO modules, rank layout configurations."),
        this);
    description->setWordWrap(true);

    auto* license = new QLabel(tr("Licensed under the Apache License 2.0."), this);
    license->setForegroundRole(QPalette::PlaceholderText);

    auto* librariesHeading = new QLabel(tr("Libraries in use:"), this);

    m_versions->setObjectName(QStringLiteral("aboutVersions"));
    m_versions->setTextFormat(Qt::PlainText);
    m_versions->setText(libraryVersions());
    m_versions->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_versions->setFrameShape(QFrame::StyledPanel);
    m_versions->setMargin(6);
    m_versions->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton* copy = buttons->addButton(tr("&Copy Versions"), QDialogButtonBox::ActionRole);
    copy->setToolTip(tr("Copy the version information to the clipboard, e.g. for a bug report"));
    connect(copy, &QPushButton::clicked, this, [this] {
        const QString project = QString::fromStdString(tgraph::projectVersion());
        QApplication::clipboard()->setText(tr("TGraph Studio %1\n").arg(project) + versionsText());
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* icon = new QLabel(this);
    const QIcon appIcon = QApplication::windowIcon();
    if (appIcon.isNull())
        icon->hide();
    else
        icon->setPixmap(appIcon.pixmap(64, 64));

    auto* text = new QVBoxLayout;
    text->addWidget(title);
    text->addWidget(description);
    text->addWidget(license);
    text->addSpacing(8);
    text->addWidget(librariesHeading);
    text->addWidget(m_versions);

    auto* top = new QHBoxLayout;
    top->addWidget(icon, 0, Qt::AlignTop);
    top->addLayout(text, 1);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(buttons);
    setMinimumWidth(460);
}

QString AboutDialog::versionsText() const { return m_versions->text(); }

QString AboutDialog::libraryVersions()
{
    const QString runtimeQt = QString::fromLatin1(qVersion());
    const QString qtLine = runtimeQt == QLatin1String(QT_VERSION_STR)
        ? QStringLiteral("Qt %1").arg(runtimeQt)
        : QStringLiteral("Qt %1 (built with %2)").arg(runtimeQt, QLatin1String(QT_VERSION_STR));
    const QStringList lines = {
        qtLine,
        QStringLiteral("LibTorch %1").arg(QString::fromStdString(tgraph::facade::runtimeVersion())),
        QStringLiteral("Graphviz %1").arg(QString::fromStdString(tgraph::graphvizVersion())),
        QStringLiteral("SQLite %1").arg(QString::fromStdString(tgraph::sqliteVersion())),
        QStringLiteral("zlib %1").arg(QString::fromStdString(tgraph::zlibVersion())),
    };
    return lines.join(QLatin1Char('\n'));
}

} // namespace tgraph::studio
