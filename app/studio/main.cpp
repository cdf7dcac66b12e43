// SPDX-License-Identifier: Apache-2.0
#include "mainwindow.h"

#include "core/versions.h"
#include "model/torchruntime.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>

#include <cstring>

namespace {

void setupParser(QCommandLineParser& parser)
{
    parser.setApplicationDescription(
        QCoreApplication::translate("main", "Inspect TpuGraphs graphs and XLA HLO modules; rank layout configs."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("files"),
        QCoreApplication::translate("main", "Graph files (.npz) to open."), QStringLiteral("[FILE...]"));
}

// --help and --version print and exit; they must work without a display, so they are answered
// before QApplication connects to one.
bool asksForInfoOnly(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        for (const char* flag : { "-h", "--help", "--help-all", "-?", "-v", "--version" }) {
            if (std::strcmp(argv[i], flag) == 0)
                return true;
        }
    }
    return false;
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication::setOrganizationName(QStringLiteral("TGraph Studio"));
    QCoreApplication::setApplicationName(QStringLiteral("TGraph Studio"));
    QCoreApplication::setApplicationVersion(QString::fromStdString(tgraph::projectVersion()));

    if (asksForInfoOnly(argc, argv)) {
        QCoreApplication app(argc, argv);
        QCommandLineParser parser;
        setupParser(parser);
        parser.process(app); // exits
        return 0;
    }

    QApplication app(argc, argv);
    QCommandLineParser parser;
    setupParser(parser);
    parser.process(app);

    tgraph::model::initTorchThreads();

    MainWindow window;
    window.show();
    window.openFiles(parser.positionalArguments());
    return app.exec();
}
