// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QDialog>

class QLabel;

namespace tgraph::studio {

// "About TGraph Studio": the project version and, one line each, the run-time versions of the
// libraries it uses (selectable and copyable, for bug reports).
class AboutDialog : public QDialog
{
    Q_OBJECT
public:
    explicit AboutDialog(QWidget* parent = nullptr);

    // "Qt 6.4.2\nLibTorch 1.13.0\n..." as shown.
    QString versionsText() const;
    static QString libraryVersions();

private:
    QLabel* m_versions = nullptr;
};

} // namespace tgraph::studio
