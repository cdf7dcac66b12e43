// SPDX-License-Identifier: Apache-2.0
// `tgraph render`: draw a graph to PNG or SVG without a window. The drawing is the studio's own
// (Graphviz layout, the graph view's items), so this hands over to `tgraph-studio --render`.
#include "argparser.h"
#include "commands.h"

namespace tgraph::cli {

int runRender(const std::vector<std::string>& args)
{
    ArgParser p("render",
        "Draw a graph file (.npz, HLO text, HLO / tuning-record protobuf) as the studio's graph view does,\n"
        "without a window, into a PNG or SVG file: the whole graph (large modules collapsed to their\n"
        "computations), the pruned graph, both side by side, or the neighbourhood of one node. Runs\n"
        "tgraph-studio --render (built with the GUI).",
        "FILE -o OUT.png|OUT.svg [--view graph|pruned|split|computations] [--node NAME|#ID [--radius R]] "
        "[--module K]");
    p.addPositional("FILE", "the graph or module to draw");
    p.addOption("--output", "-o", "OUT", "the .png or .svg file to write");
    p.addOption("--view", "", "VIEW",
        "graph, pruned, split (before / after pruning) or computations (each computation one box)", "graph");
    p.addOption("--node", "", "NAME", "draw the neighbourhood of this node (instruction name or #id)");
    p.addOption("--radius", "", "R", "with --node: hops around the node, 1 to 3", "2");
    p.addOption("--module", "", "K", "which module of a tuning record with several (from 0)", "0");
    if (const int rc = parseOrExit(p, args); rc >= 0)
        return rc;
    if (p.positionals().size() != 1)
        return usageError("render", "give exactly one FILE");
    if (p.value("--output").empty())
        return usageError("render", "missing -o OUT.png|OUT.svg");
    std::vector<std::string> studio { "--render", p.positionals().front(), "--view", p.value("--view"), "--radius",
        p.value("--radius"), "--module", p.value("--module"), "-o", p.value("--output") };
    if (p.has("--node")) {
        studio.push_back("--node");
        studio.push_back(p.value("--node"));
    }
    return execSibling("tgraph-studio", studio);
}

} // namespace tgraph::cli
