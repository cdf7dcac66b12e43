// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tgraph {

class ProgressSink;

// What to lay out: boxes of a given size (points, 1/72 inch), directed edges drawn from `from` to
// `to` (producer to consumer), and nested clusters drawn as boxes around their members. Labels
// are the caller's business: Graphviz only sees sizes, so no font is involved.
struct LayoutInput
{
    struct Node
    {
        double width = 72;
        double height = 36;
        int32_t cluster = -1; // innermost cluster, -1 = top level
    };
    struct Edge
    {
        int32_t from = 0;
        int32_t to = 0;
        int32_t weight = 1; // Graphviz edge weight: heavier edges are kept shorter and straighter
    };
    struct Cluster
    {
        int32_t parent = -1;
        bool titled = true; // reserve a strip at the top for a title
    };
    enum class Direction { TopToBottom, LeftToRight };

    std::vector<Node> nodes;
    std::vector<Edge> edges;
    std::vector<Cluster> clusters; // a cluster's parent comes before it
    Direction direction = Direction::TopToBottom;
};

// Positions from Graphviz `dot`, in points with y growing downwards and the origin at the top
// left of the drawing.
struct GraphLayout
{
    struct Point
    {
        double x = 0;
        double y = 0;
    };
    struct Box
    {
        double x = 0; // top left
        double y = 0;
        double width = 0;
        double height = 0;
        Point center() const { return { x + width / 2, y + height / 2 }; }
    };
    // A cubic B-spline as Graphviz gives it: p0, then (c1, c2, p) per segment (1 + 3k points),
    // from the producer's border to the consumer's border.
    struct Edge
    {
        std::vector<Point> points;
    };
    enum class Engine { InProcess, DotProcess };

    double width = 0;
    double height = 0;
    std::vector<Box> nodes; // indexed like LayoutInput::nodes
    std::vector<Edge> edges; // indexed like LayoutInput::edges
    std::vector<Box> clusters;
    Engine engine = Engine::InProcess;
    bool fast = false; // laid out with the fast settings
    double seconds = 0; // wall time of the layout
};

struct LayoutOptions
{
    enum class Engine {
        Auto, // a `dot` child process, or libgvc in this process when `dot` cannot be started
        InProcess, // libgvc in this process: no start-up cost, cannot be interrupted
        DotProcess, // the `dot` program: cancelling kills it; a Graphviz crash cannot take us down
    };
    Engine engine = Engine::Auto;
    int64_t maxNodes = 2500; // inputs with more nodes are refused (dot is interactive up to ~1-2k)
    // A child-process layout with full-quality settings that takes longer than this is killed and
    // redone with the fast settings (network simplex and crossing limits, straight edges).
    int qualityTimeMs = 2500;
    std::string dotProgram = "dot";
    ProgressSink* progress = nullptr; // isCancelled() kills the child process; in-process layouts finish
};

// Above this many nodes the layout goes straight to the fast settings (docs/build.md §5).
constexpr int64_t kLayoutFastModeNodes = 700;

// The DOT text handed to Graphviz for `input` (nodes n0.., clusters cluster_0.., edges e0..);
// `fast` limits network simplex and crossing minimisation and draws straight edges.
std::string layoutDotSource(const LayoutInput& input, bool fast = false);
// Reads Graphviz's attributed DOT output (`dot -Tdot`, or gvRender to "dot") back into positions
// for `input`. Throws std::runtime_error when it does not match.
GraphLayout parseLayoutDot(const std::string& dot, const LayoutInput& input);

// Lays out `input` with Graphviz. Blocking (call it from a worker thread); in-process layouts are
// serialized process-wide because libgvc has global state. Throws Cancelled when the progress sink
// asks to stop, std::invalid_argument for inputs above maxNodes or with bad indices, and
// std::runtime_error when Graphviz fails.
GraphLayout layoutGraph(const LayoutInput& input, const LayoutOptions& options = {});

// The Graphviz this process runs with, as the library reports it (About).
std::string graphvizVersion();

} // namespace tgraph
