// SPDX-License-Identifier: Apache-2.0
#include "widgets/common/jobtracker.h"
#include "app/studio/render/analysisrender.h"
#include "app/studio/render/headlessrender.h"
#include "app/studio/window/mainwindow.h"

#include "core/util/childprocess.h"
#include "core/util/version.h"
#include "model/facade/runtime.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QIcon>
#include <QLocale>

#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

using namespace tgraph::widgets;
using namespace tgraph::studio;

namespace {

void setupParser(QCommandLineParser& parser)
{
    parser.setApplicationDescription(
        QCoreApplication::translate("main", "Inspect TpuGraphs graphs and XLA HLO modules; rank layout configs."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("files"),
        QCoreApplication::translate("main", "Graph files (.npz, .hlo/.txt, .pb) to open; a folder opens on the Passes page when XLA dumped "
                                  "into it (--xla_dump_to), else as a TpuGraphs collection."),
        QStringLiteral("[FILE...]"));
    parser.addOption({ QStringLiteral("render"),
        QCoreApplication::translate("main", "Draw FILE without a window and write the drawing to --output."),
        QStringLiteral("FILE") });
    parser.addOption({ QStringLiteral("view"),
        QCoreApplication::translate("main",
            "With --render: graph, pruned, split (before / after pruning), computations (each computation "
            "one box); with --weights or --project/--run: scatter, scatter-score, tau-strip (FILE may be a "
            "collection directory), attention, cross-attention, node-attention, explain (with --config / --vs); with "
            "--project [--run]: curves (all runs of the project when --run is not given). Default: graph."),
        QStringLiteral("VIEW"), QStringLiteral("graph") });
    parser.addOption({ QStringLiteral("node"),
        QCoreApplication::translate("main", "With --render: draw the neighbourhood of this node (name or #id)."),
        QStringLiteral("NAME") });
    parser.addOption({ QStringLiteral("radius"),
        QCoreApplication::translate("main", "With --node: hops around the node, 1 to 3. Default: 2."),
        QStringLiteral("R"), QStringLiteral("2") });
    parser.addOption({ QStringLiteral("canvas"),
        QCoreApplication::translate("main",
            "With --render and a graph view: draw what a graph canvas of WxH pixels shows as it opens (the first "
            "view at the zoom the studio opens it at, docs/studio.md §1.2), as a PNG."),
        QStringLiteral("WxH") });
    parser.addOption({ QStringLiteral("module"),
        QCoreApplication::translate("main", "With --render: which module of a tuning record (from 0)."),
        QStringLiteral("N"), QStringLiteral("0") });
    parser.addOption({ QStringLiteral("weights"),
        QCoreApplication::translate("main", "With an analysis view: the model (repeatable: an ensemble)."),
        QStringLiteral("W") });
    parser.addOption({ QStringLiteral("project"),
        QCoreApplication::translate("main", "With an analysis view and --run: a project holding stored results."),
        QStringLiteral("P") });
    parser.addOption({ QStringLiteral("run"),
        QCoreApplication::translate("main",
            "With --project: the inference run (id, prefix or name); curves: comma-separated runs, default all."),
        QStringLiteral("RUN") });
    parser.addOption({ QStringLiteral("sweep"),
        QCoreApplication::translate("main", "With --view parallel-coordinates or sweep: the sweep (id, prefix or name)."),
        QStringLiteral("SWEEP") });
    parser.addOption({ QStringLiteral("metric"),
        QCoreApplication::translate("main", "With --view curves: the metric as context/key. Default: train/loss."),
        QStringLiteral("M"), QStringLiteral("train/loss") });
    parser.addOption({ QStringLiteral("smoothing"),
        QCoreApplication::translate("main", "With --view curves: debiased EMA weight 0..0.999. Default: 0.6."),
        QStringLiteral("S"), QStringLiteral("0.6") });
    parser.addOption({ QStringLiteral("x"),
        QCoreApplication::translate("main", "With --view curves: x axis step, relative or wall. Default: step."),
        QStringLiteral("AXIS"), QStringLiteral("step") });
    parser.addOption({ QStringLiteral("config"),
        QCoreApplication::translate("main", "With --view explain: config A (an index, fastest, slowest or default)."),
        QStringLiteral("A"), QStringLiteral("fastest") });
    parser.addOption({ QStringLiteral("vs"),
        QCoreApplication::translate("main", "With --view explain: config B (an index, default, slowest or fastest)."),
        QStringLiteral("B"), QStringLiteral("default") });
    parser.addOption(
        { QStringLiteral("log-y"), QCoreApplication::translate("main", "With --view curves: logarithmic y axis.") });
    parser.addOption({ { QStringLiteral("o"), QStringLiteral("output") },
        QCoreApplication::translate("main", "With --render: the .png or .svg file to write."), QStringLiteral("OUT") });
}

bool asksToRender(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--render") == 0 || std::strncmp(argv[i], "--render=", 9) == 0)
            return true;
    return false;
}

// Exit codes: 0 written, 1 bad input or output, 2 bad usage.
int runRender(const QCommandLineParser& parser)
{
    if (isAnalysisView(parser.value(QStringLiteral("view")))) {
        AnalysisRenderRequest analysis;
        analysis.view = parser.value(QStringLiteral("view"));
        analysis.input = parser.value(QStringLiteral("render"));
        analysis.weights = parser.values(QStringLiteral("weights"));
        analysis.project = parser.value(QStringLiteral("project"));
        analysis.run = parser.value(QStringLiteral("run"));
        analysis.sweep = parser.value(QStringLiteral("sweep"));
        analysis.metric = parser.value(QStringLiteral("metric"));
        bool smoothingOk = false;
        analysis.smoothing = parser.value(QStringLiteral("smoothing")).toDouble(&smoothingOk);
        if (!smoothingOk || !(analysis.smoothing >= 0 && analysis.smoothing < 1)) {
            std::fprintf(stderr, "tgraph-studio: --smoothing must be a number in [0, 1)\n");
            return 2;
        }
        analysis.xAxis = parser.value(QStringLiteral("x"));
        analysis.logY = parser.isSet(QStringLiteral("log-y"));
        analysis.configA = parser.value(QStringLiteral("config"));
        analysis.configB = parser.value(QStringLiteral("vs"));
        analysis.output = parser.value(QStringLiteral("output"));
        if (analysis.output.isEmpty()) {
            std::fprintf(stderr, "tgraph-studio: --render needs -o OUT.png|svg\n");
            return 2;
        }
        QString error;
        if (!renderAnalysis(analysis, &error)) {
            std::fprintf(stderr, "tgraph-studio: %s\n", qPrintable(error));
            return 1;
        }
        std::printf("%s: %s view written\n", qPrintable(analysis.output), qPrintable(analysis.view));
        return 0;
    }
    RenderRequest request;
    request.input = parser.value(QStringLiteral("render"));
    request.output = parser.value(QStringLiteral("output"));
    request.view = parser.value(QStringLiteral("view"));
    request.node = parser.value(QStringLiteral("node"));
    bool radiusOk = false;
    bool moduleOk = false;
    request.radius = parser.value(QStringLiteral("radius")).toInt(&radiusOk);
    request.module = parser.value(QStringLiteral("module")).toInt(&moduleOk);
    if (request.output.isEmpty() || !radiusOk || !moduleOk) {
        std::fprintf(stderr, "tgraph-studio: --render needs -o OUT.png|svg, and --radius / --module numbers\n");
        return 2;
    }
    if (parser.isSet(QStringLiteral("canvas"))) {
        const QStringList parts = parser.value(QStringLiteral("canvas")).split(QLatin1Char('x'));
        bool wOk = false;
        bool hOk = false;
        if (parts.size() == 2)
            request.canvas = QSize(parts[0].toInt(&wOk), parts[1].toInt(&hOk));
        if (!wOk || !hOk) {
            std::fprintf(stderr, "tgraph-studio: --canvas takes WIDTHxHEIGHT in pixels, e.g. 1000x560\n");
            return 2;
        }
    }
    RenderResult result;
    QString error;
    if (!renderGraph(request, &result, &error)) {
        std::fprintf(stderr, "tgraph-studio: %s\n", qPrintable(error));
        return 1;
    }
    std::printf("%s: %lld nodes drawn, %dx%d\n", qPrintable(request.output), static_cast<long long>(result.nodesDrawn),
        result.image.width(), result.image.height());
    return 0;
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

    // The studio runs inference, explanations and tuning in-process: start again with glibc's
    // huge-page tunable unless it is set (core/util/childprocess.h: model passes 2-2.5x faster).
    // `tgraph render` sets it before starting this binary; --help and --version need no restart.
    const char* current = std::getenv("GLIBC_TUNABLES");
    if (const std::string tunables = tgraph::hugePageMallocTunables(); tunables != (current ? current : "")) {
        ::setenv("GLIBC_TUNABLES", tunables.c_str(), 1);
        ::execv("/proc/self/exe", argv); // returns only on failure: then run as is
    }

    // Rendering needs no display: the offscreen platform unless the caller chose one.
    const bool render = asksToRender(argc, argv);
    if (render && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");

    QApplication app(argc, argv);
    // QApplication adopted the user's locale (setlocale(LC_ALL, "")); numbers that core writes and
    // parses for machines (JSON, CSV, dot input, --params) must not get a decimal comma, so the C
    // library's numeric locale goes back to "C" (Qt's own QLocale still formats what users read).
    std::setlocale(LC_NUMERIC, "C");
    // The desktop entry and icon the package installs (packaging/): Wayland compositors match the
    // window to the entry by this name; X11 window managers take the icon set here.
    QGuiApplication::setDesktopFileName(QStringLiteral(TGRAPH_APP_ID));
    QApplication::setWindowIcon(QIcon::fromTheme(QStringLiteral(TGRAPH_APP_ID)));
    QCommandLineParser parser;
    setupParser(parser);
    parser.process(app);
    // After each background job the model runtime's cached tensor memory goes back to the system:
    // a desktop application should not hold gigabytes while it waits for the user.
    JobTracker::setAfterEachJob(JobLane::Model, &tgraph::facade::releaseIdleMemory);
    if (render) {
        // A rendering is a file of the command line, which prints numbers in the C locale: the same
        // drawing under every user locale (docs/studio.md §3.6). The window follows the user's.
        QLocale::setDefault(QLocale::c());
        return runRender(parser);
    }

    tgraph::facade::initRuntime();

    MainWindow window;
    window.showAtStart();
    window.openFiles(parser.positionalArguments());
    return app.exec();
}
