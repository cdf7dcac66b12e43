// SPDX-License-Identifier: Apache-2.0
// `tgraph render`: draw a graph to PNG or SVG without a window. The drawing is the studio's own
// (Graphviz layout, the graph view's items), so this hands over to `tgraph-studio --render`.
#include "argparser.h"
#include "commands.h"

#include <limits>

namespace tgraph::cli {

int runRender(const std::vector<std::string>& args)
{
    ArgParser p("render",
        "Draw a graph file (.npz, HLO text, HLO / tuning-record protobuf) as the studio's graph view does,\n"
        "without a window, into a PNG or SVG file: the whole graph (large modules collapsed to their\n"
        "computations), the pruned graph, both side by side, or the neighbourhood of one node. Runs\n"
        "tgraph-studio --render (built with the GUI).\n"
        "Analysis views run a model on FILE (or a collection directory) or read an inference run stored in a\n"
        "project: scatter (true vs predicted rank), scatter-score (runtime vs score), tau-strip (Kendall tau per\n"
        "graph), attention (channel gates per layer), cross-attention (softmax over configs), node-attention (the\n"
        "model's graph coloured by each node's channel gate, mean over layers and configs), explain (why config\n"
        "--config ranks against --vs: the ranked nodes and the model's graph coloured by share A - B, blue where\n"
        "a node favours A); curves draws the training curves of project runs (--metric context/key, e.g. valid/tau;\n"
        "without --run, of every run of the project); parallel-coordinates draws a sweep's runs (one axis per\n"
        "swept parameter and one for validation tau) and sweep its whole Sweep view (--project P --sweep SWEEP).",
        "FILE -o OUT.png|OUT.svg [--view graph|pruned|split|computations] [--node NAME|#ID [--radius R]] "
        "[--module K] [--canvas WxH]\n"
        "       tgraph render FILE|DIR --view scatter|scatter-score|tau-strip|attention|cross-attention --weights W "
        "-o OUT\n"
        "       tgraph render FILE --view node-attention --weights W -o OUT\n"
        "       tgraph render FILE --view explain --weights W [--config fastest] [--vs default] -o OUT\n"
        "       tgraph render --view scatter|tau-strip --project P.tgproj --run RUN -o OUT\n"
        "       tgraph render --view curves --project P.tgproj [--run RUN[,RUN...]] [--metric train/loss]\n"
        "             [--smoothing 0.6] [--x step|relative|wall] [--log-y] -o OUT\n"
        "       tgraph render --view parallel-coordinates|sweep --project P.tgproj --sweep SWEEP -o OUT");
    p.addPositional("FILE", "the graph or module to draw");
    p.addOption("--output", "-o", "OUT", "the .png or .svg file to write");
    p.addOption("--view", "", "VIEW",
        "graph, pruned, split (before / after pruning) or computations (each computation one box)", "graph");
    p.addOption("--node", "", "NAME", "draw the neighbourhood of this node (instruction name or #id)");
    p.addOption("--radius", "", "R", "with --node: hops around the node", "2", opt::integer(1, 3));
    p.addOption("--canvas", "", "WxH",
        "draw what a graph canvas of W x H pixels shows as it opens: the studio's first view at the zoom it opens "
        "at (docs/studio.md §1.2), as a PNG");
    p.addOption("--module", "", "K", "which module of a tuning record with several (from 0)", "0",
        opt::integer(0, std::numeric_limits<int>::max()));
    p.addOption(
        "--weights", "", "W", "analysis views: the model (weights .npz, checkpoint, ensemble.json; repeatable)");
    p.addOption("--project", "", "P", "analysis views: a project with a stored inference run (with --run)");
    p.addOption("--run", "", "RUN",
        "with --project: the run (id, id prefix or name; curves: comma-separated runs, default all runs)");
    p.addOption("--sweep", "", "SWEEP", "--view parallel-coordinates|sweep: the sweep (id, id prefix or name)");
    p.addOption("--metric", "", "M", "--view curves: the metric as context/key", "train/loss");
    p.addOption("--config", "", "A", "--view explain: config A (an index, fastest, slowest or default)", "fastest");
    p.addOption("--vs", "", "B", "--view explain: config B (an index, default, slowest or fastest)", "default");
    p.addOption("--smoothing", "", "S", "--view curves: TensorBoard's debiased EMA weight", "0.6",
        opt::real(0, 1).excludingMax());
    p.addOption("--x", "", "AXIS", "--view curves: x axis: step, relative (seconds from the start) or wall", "step");
    p.addOption("--log-y", "", "", "--view curves: logarithmic y axis");
    if (const int rc = parseOrExit(p, args); rc >= 0)
        return rc;
    const bool stored = p.has("--project") || p.has("--run");
    const bool curves = p.value("--view") == "curves"; // all runs of the project when none are named
    const bool sweepView = p.value("--view") == "parallel-coordinates" || p.value("--view") == "sweep";
    if (sweepView && (!p.has("--project") || !p.has("--sweep")))
        return usageError("render", "--view " + p.value("--view") + " needs --project P.tgproj --sweep SWEEP");
    if (stored && !p.has("--project"))
        return usageError("render", "--run needs --project P.tgproj");
    if (stored && !curves && !sweepView && !p.has("--run"))
        return usageError("render", "--project needs --run RUN (the stored inference run to draw)");
    if (p.positionals().size() != (stored ? 0u : 1u) && !(stored && p.positionals().size() == 1))
        return usageError("render", "give exactly one FILE (or --project P --run RUN)");
    if (p.value("--output").empty())
        return usageError("render", "missing -o OUT.png|OUT.svg");
    const std::string input = p.positionals().empty() ? std::string() : p.positionals().front();
    std::vector<std::string> studio { "--render", input, "--view", p.value("--view"), "--radius",
        std::to_string(p.get<int>("--radius")), "--module", std::to_string(p.get<int>("--module")), "-o",
        p.value("--output") };
    for (const std::string& w : p.values("--weights")) {
        studio.push_back("--weights");
        studio.push_back(w);
    }
    for (const char* option :
        { "--project", "--run", "--sweep", "--metric", "--smoothing", "--x", "--config", "--vs", "--canvas" })
        if (p.has(option)) {
            studio.push_back(option);
            studio.push_back(p.value(option));
        }
    if (p.has("--log-y"))
        studio.push_back("--log-y");
    if (p.has("--node")) {
        studio.push_back("--node");
        studio.push_back(p.value("--node"));
    }
    return execSibling("tgraph-studio", studio);
}

} // namespace tgraph::cli
