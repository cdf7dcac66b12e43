// SPDX-License-Identifier: Apache-2.0
#include "core/view/graphlayout.h"

#include "core/util/childprocess.h"
#include "core/util/error.h"
#include "core/util/progress.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string_view>

namespace tgraph {

namespace {

constexpr double kPointsPerInch = 72.0;

// Numbers in the dot text are written and read with to_chars/from_chars: never the C locale's
// decimal comma (the studio's QApplication adopts the user's locale).
std::string inches(double points)
{
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, points / kPointsPerInch, std::chars_format::fixed, 4);
    return std::string(buffer, result.ptr);
}

void checkInput(const LayoutInput& input, const LayoutOptions& options)
{
    const auto n = int64_t(input.nodes.size());
    if (options.maxNodes > 0 && n > options.maxNodes)
        throw std::invalid_argument("a layout of " + std::to_string(n) + " nodes was asked for; the bound is "
            + std::to_string(options.maxNodes) + " nodes per layout");
    const auto clusters = int32_t(input.clusters.size());
    for (const LayoutInput::Node& node : input.nodes)
        if (node.cluster < -1 || node.cluster >= clusters || !(node.width > 0) || !(node.height > 0))
            throw std::invalid_argument("layout input: bad node size or cluster index");
    for (size_t c = 0; c < input.clusters.size(); ++c)
        if (input.clusters[c].parent < -1 || input.clusters[c].parent >= int32_t(c))
            throw std::invalid_argument("layout input: a cluster's parent must come before it");
    for (const LayoutInput::Edge& e : input.edges)
        if (e.from < 0 || e.to < 0 || e.from >= int32_t(n) || e.to >= int32_t(n))
            throw std::invalid_argument("layout input: edge endpoint out of range");
}

// --- reading Graphviz's attributed DOT output ------------------------------------------------

// Tokens of the DOT language as `dot -Tdot` writes them.
class DotTokens
{
public:
    explicit DotTokens(std::string_view text)
        : m_text(text)
    { }

    // The next token: an identifier or number, a quoted string's content (unescaped), or one
    // punctuation character ("->" as one token). Empty at the end.
    std::string next(bool* quoted = nullptr)
    {
        skipSpace();
        if (quoted)
            *quoted = false;
        if (m_pos >= m_text.size())
            return {};
        const char c = m_text[m_pos];
        if (c == '"') {
            if (quoted)
                *quoted = true;
            std::string out;
            for (++m_pos; m_pos < m_text.size() && m_text[m_pos] != '"'; ++m_pos) {
                if (m_text[m_pos] == '\\' && m_pos + 1 < m_text.size()) {
                    const char escaped = m_text[++m_pos];
                    if (escaped == '\n')
                        continue; // line continuation
                    if (escaped == '\r' && m_pos + 1 < m_text.size() && m_text[m_pos + 1] == '\n') {
                        ++m_pos;
                        continue;
                    }
                    if (escaped != '"' && escaped != '\\')
                        out += '\\';
                    out += escaped;
                    continue;
                }
                out += m_text[m_pos];
            }
            ++m_pos;
            return out;
        }
        if (c == '-' && m_pos + 1 < m_text.size() && m_text[m_pos + 1] == '>') {
            m_pos += 2;
            return "->";
        }
        if (isIdChar(c)) {
            const size_t begin = m_pos;
            while (m_pos < m_text.size() && isIdChar(m_text[m_pos]))
                ++m_pos;
            return std::string(m_text.substr(begin, m_pos - begin));
        }
        ++m_pos;
        return std::string(1, c);
    }

    std::string peek()
    {
        const size_t saved = m_pos;
        std::string t = next();
        m_pos = saved;
        return t;
    }

private:
    static bool isIdChar(char c)
    {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.'
            || (c == '-') || (unsigned char)c >= 0x80;
    }
    void skipSpace()
    {
        while (m_pos < m_text.size()) {
            const char c = m_text[m_pos];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                ++m_pos;
            } else if (c == '/' && m_pos + 1 < m_text.size() && m_text[m_pos + 1] == '*') {
                const size_t end = m_text.find("*/", m_pos + 2);
                m_pos = end == std::string_view::npos ? m_text.size() : end + 2;
            } else if (c == '#' || (c == '/' && m_pos + 1 < m_text.size() && m_text[m_pos + 1] == '/')) {
                const size_t end = m_text.find('\n', m_pos);
                m_pos = end == std::string_view::npos ? m_text.size() : end + 1;
            } else {
                break;
            }
        }
    }

    std::string_view m_text;
    size_t m_pos = 0;
};

using Attributes = std::vector<std::pair<std::string, std::string>>;

// Reads "[a=b, c="d"]" (the '[' already taken).
Attributes readAttributes(DotTokens& tokens)
{
    Attributes out;
    for (std::string key = tokens.next(); !key.empty() && key != "]"; key = tokens.next()) {
        if (key == "," || key == ";")
            continue;
        std::string value;
        if (tokens.peek() == "=") {
            tokens.next();
            value = tokens.next();
        }
        out.emplace_back(std::move(key), std::move(value));
    }
    return out;
}

const std::string* find(const Attributes& attributes, std::string_view key)
{
    for (const auto& [k, v] : attributes)
        if (k == key)
            return &v;
    return nullptr;
}

// "a,b,c,d" -> numbers; throws when a part is not a number.
std::vector<double> numbers(std::string_view text)
{
    std::vector<double> out;
    size_t pos = 0;
    while (pos <= text.size()) {
        size_t end = text.find_first_of(", ", pos);
        if (end == std::string_view::npos)
            end = text.size();
        if (end > pos) {
            const std::string_view part = text.substr(pos, end - pos);
            double v = 0;
            const auto [stop, error] = std::from_chars(part.data(), part.data() + part.size(), v);
            if (error != std::errc() || stop != part.data() + part.size())
                throw std::runtime_error("Graphviz output: '" + std::string(part) + "' is not a number");
            out.push_back(v);
        }
        pos = end + 1;
    }
    return out;
}

// The index in "n12" / "cluster_3" / "e7" with the given prefix, -1 otherwise.
int64_t indexAfter(std::string_view name, std::string_view prefix)
{
    if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix)
        return -1;
    int64_t value = 0;
    for (const char c : name.substr(prefix.size())) {
        if (c < '0' || c > '9')
            return -1;
        value = value * 10 + (c - '0');
    }
    return value;
}

struct RawLayout
{
    std::vector<double> bb; // llx, lly, urx, ury (y up)
    std::vector<std::vector<double>> nodes; // x, y per node
    std::vector<std::vector<double>> edges; // flat x, y pairs per edge
    std::vector<std::vector<double>> clusters; // bb per cluster
};

void parseBody(DotTokens& tokens, RawLayout& raw, int64_t cluster)
{
    for (std::string t = tokens.next(); !t.empty() && t != "}"; t = tokens.next()) {
        if (t == ";" || t == ",")
            continue;
        if (t == "subgraph") {
            std::string name = tokens.next();
            int64_t inner = -1;
            if (name != "{") {
                inner = indexAfter(name, "cluster_");
                tokens.next(); // '{'
            }
            parseBody(tokens, raw, inner);
            continue;
        }
        if (t == "{") {
            parseBody(tokens, raw, cluster);
            continue;
        }
        if (t == "graph" || t == "node" || t == "edge") {
            if (tokens.peek() != "[")
                continue;
            tokens.next();
            const Attributes a = readAttributes(tokens);
            if (t != "graph")
                continue;
            if (const std::string* bb = find(a, "bb")) {
                if (cluster >= 0 && size_t(cluster) < raw.clusters.size())
                    raw.clusters[size_t(cluster)] = numbers(*bb);
                else if (cluster < 0 && raw.bb.empty())
                    raw.bb = numbers(*bb);
            }
            continue;
        }
        // A node or an edge statement (or an attribute assignment "a=b").
        std::vector<std::string> chain { t };
        while (tokens.peek() == "->") {
            tokens.next();
            chain.push_back(tokens.next());
        }
        if (tokens.peek() == "=") {
            tokens.next();
            tokens.next();
            continue;
        }
        Attributes a;
        if (tokens.peek() == "[") {
            tokens.next();
            a = readAttributes(tokens);
        }
        const std::string* pos = find(a, "pos");
        if (!pos)
            continue;
        if (chain.size() == 1) {
            const int64_t node = indexAfter(chain[0], "n");
            if (node >= 0 && size_t(node) < raw.nodes.size())
                raw.nodes[size_t(node)] = numbers(*pos);
            continue;
        }
        const std::string* id = find(a, "id");
        const int64_t edge = id ? indexAfter(*id, "e") : -1;
        if (edge < 0 || size_t(edge) >= raw.edges.size())
            continue;
        // "e,x,y s,x,y x,y x,y ...;second spline" -> the first spline's points.
        std::string_view spline(*pos);
        spline = spline.substr(0, spline.find(';'));
        std::vector<double> flat;
        size_t p = 0;
        while (p < spline.size()) {
            size_t end = spline.find(' ', p);
            if (end == std::string_view::npos)
                end = spline.size();
            std::string_view point = spline.substr(p, end - p);
            p = end + 1;
            if (point.empty() || point.substr(0, 2) == "e," || point.substr(0, 2) == "s,")
                continue;
            const std::vector<double> xy = numbers(point);
            if (xy.size() != 2)
                throw std::runtime_error("Graphviz output: bad edge point '" + std::string(point) + "'");
            flat.insert(flat.end(), xy.begin(), xy.end());
        }
        raw.edges[size_t(edge)] = std::move(flat);
    }
}

// --- the two engines ---------------------------------------------------------------------------

std::mutex& graphvizMutex()
{
    static std::mutex mutex;
    return mutex;
}

std::string g_graphvizError; // guarded by graphvizMutex()

int collectGraphvizError(char* message)
{
    if (message)
        g_graphvizError += message;
    return 0;
}

std::string layoutInProcess(const std::string& dot)
{
    std::lock_guard lock(graphvizMutex());
    static GVC_t* gvc = gvContext(); // one context for the process, like the `dot` program
    g_graphvizError.clear();
    agseterr(AGERR);
    agseterrf(collectGraphvizError);
    Agraph_t* graph = agmemread(dot.c_str());
    if (!graph)
        throw std::runtime_error("Graphviz could not read the layout input: " + g_graphvizError);
    if (gvLayout(gvc, graph, "dot") != 0) {
        agclose(graph);
        throw std::runtime_error("Graphviz layout failed: " + g_graphvizError);
    }
    char* data = nullptr;
    unsigned int length = 0;
    const int rc = gvRenderData(gvc, graph, "dot", &data, &length);
    std::string out = rc == 0 && data ? std::string(data, length) : std::string();
    if (data)
        gvFreeRenderData(data);
    gvFreeLayout(gvc, graph);
    agclose(graph);
    if (rc != 0)
        throw std::runtime_error("Graphviz could not write the layout: " + g_graphvizError);
    return out;
}

// Thrown when a child-process layout ran out of its time.
struct LayoutTimeout
{ };

std::string layoutInChildProcess(const std::string& dot, const LayoutOptions& options, int timeoutMs)
{
    ChildProcessOptions child;
    child.timeoutMs = timeoutMs;
    if (options.progress)
        child.cancelled = [progress = options.progress] { return progress->isCancelled(); };
    ChildProcessResult r;
    try {
        r = runChildProcess({ options.dotProgram, "-Tdot" }, dot, child);
    } catch (const ChildProcessTimeout&) {
        throw LayoutTimeout();
    }
    if (r.exitCode != 0) {
        std::string why = r.err;
        while (!why.empty() && (why.back() == '\n' || why.back() == '\r'))
            why.pop_back();
        throw std::runtime_error(options.dotProgram
            + (r.signal ? " was killed by signal " + std::to_string(r.signal)
                        : " failed with exit code " + std::to_string(r.exitCode))
            + (why.empty() ? std::string() : ": " + why));
    }
    return r.out;
}

} // namespace

std::string layoutDotSource(const LayoutInput& input, bool fast)
{
    std::string dot = "digraph G {\n";
    dot += "graph [rankdir=";
    dot += input.direction == LayoutInput::Direction::TopToBottom ? "TB" : "LR";
    dot += ", nodesep=0.2, ranksep=0.3, outputorder=edgesfirst";
    // Disconnected parts are packed side by side and in rows rather than in one long row. Not with
    // clusters: Graphviz 2.42 (Debian 12) frees cluster subgraphs it still uses when packing them
    // (valgrind: cccomps/dot_layout; it crashed in place_graph_label). layoutGraph packs those itself.
    if (input.clusters.empty())
        dot += ", pack=true, packmode=\"graph\"";
    if (fast)
        dot += ", mclimit=0.1, nslimit=1, nslimit1=1, splines=line";
    dot += "];\nnode [shape=box, fixedsize=true, label=\"\"];\nedge [arrowhead=none];\n";

    std::vector<std::vector<int32_t>> nodesOf(input.clusters.size());
    std::vector<std::vector<int32_t>> childrenOf(input.clusters.size());
    std::vector<int32_t> topNodes;
    std::vector<int32_t> topClusters;
    for (size_t i = 0; i < input.nodes.size(); ++i) {
        const int32_t c = input.nodes[i].cluster;
        (c >= 0 ? nodesOf[size_t(c)] : topNodes).push_back(int32_t(i));
    }
    for (size_t c = 0; c < input.clusters.size(); ++c) {
        const int32_t parent = input.clusters[c].parent;
        (parent >= 0 ? childrenOf[size_t(parent)] : topClusters).push_back(int32_t(c));
    }
    const auto writeNode = [&](int32_t i) {
        const LayoutInput::Node& n = input.nodes[size_t(i)];
        dot += "n" + std::to_string(i) + " [width=" + inches(n.width) + ", height=" + inches(n.height) + "];\n";
    };
    // Clusters nest; write them depth first with an explicit stack (no recursion limit).
    struct Frame
    {
        int32_t cluster;
        size_t next;
    };
    std::vector<Frame> stack;
    for (const int32_t top : topClusters) {
        stack.push_back({ top, 0 });
        dot += "subgraph cluster_" + std::to_string(top) + " {\n";
        while (!stack.empty()) {
            Frame& f = stack.back();
            const size_t c = size_t(f.cluster);
            if (f.next == 0) {
                // A one-character label reserves the title strip; the caller draws the title.
                dot += input.clusters[c].titled ? "graph [label=\".\", fontsize=12, labeljust=l];\n" : "";
                for (const int32_t i : nodesOf[c])
                    writeNode(i);
            }
            if (f.next < childrenOf[c].size()) {
                const int32_t child = childrenOf[c][f.next++];
                dot += "subgraph cluster_" + std::to_string(child) + " {\n";
                stack.push_back({ child, 0 });
                continue;
            }
            dot += "}\n";
            stack.pop_back();
        }
    }
    for (const int32_t i : topNodes)
        writeNode(i);
    for (size_t e = 0; e < input.edges.size(); ++e) {
        const LayoutInput::Edge& edge = input.edges[e];
        dot += "n" + std::to_string(edge.from) + " -> n" + std::to_string(edge.to) + " [id=e" + std::to_string(e);
        if (edge.weight != 1)
            dot += ", weight=" + std::to_string(edge.weight);
        dot += "];\n";
    }
    dot += "}\n";
    return dot;
}

GraphLayout parseLayoutDot(const std::string& dot, const LayoutInput& input)
{
    RawLayout raw;
    raw.nodes.resize(input.nodes.size());
    raw.edges.resize(input.edges.size());
    raw.clusters.resize(input.clusters.size());
    DotTokens tokens(dot);
    std::string t = tokens.next();
    while (!t.empty() && t != "{")
        t = tokens.next(); // "digraph G {"
    if (t.empty())
        throw std::runtime_error("Graphviz output: no graph");
    parseBody(tokens, raw, -1);
    if (raw.bb.size() != 4)
        throw std::runtime_error("Graphviz output: no bounding box");

    GraphLayout out;
    const double left = raw.bb[0];
    const double top = raw.bb[3];
    out.width = raw.bb[2] - raw.bb[0];
    out.height = raw.bb[3] - raw.bb[1];
    const auto flipX = [&](double x) { return x - left; };
    const auto flipY = [&](double y) { return top - y; };
    out.nodes.resize(input.nodes.size());
    for (size_t i = 0; i < input.nodes.size(); ++i) {
        if (raw.nodes[i].size() != 2)
            throw std::runtime_error("Graphviz output: no position for node " + std::to_string(i));
        const LayoutInput::Node& n = input.nodes[i];
        out.nodes[i]
            = { flipX(raw.nodes[i][0]) - n.width / 2, flipY(raw.nodes[i][1]) - n.height / 2, n.width, n.height };
    }
    out.edges.resize(input.edges.size());
    for (size_t e = 0; e < input.edges.size(); ++e) {
        const std::vector<double>& flat = raw.edges[e];
        for (size_t k = 0; k + 1 < flat.size(); k += 2)
            out.edges[e].points.push_back({ flipX(flat[k]), flipY(flat[k + 1]) });
    }
    out.clusters.resize(input.clusters.size());
    for (size_t c = 0; c < input.clusters.size(); ++c) {
        const std::vector<double>& bb = raw.clusters[c];
        if (bb.size() != 4)
            throw std::runtime_error("Graphviz output: no box for cluster " + std::to_string(c));
        out.clusters[c] = { flipX(bb[0]), flipY(bb[3]), bb[2] - bb[0], bb[3] - bb[1] };
    }
    return out;
}

namespace {

// One Graphviz run over `input`; `fast` may turn true when the quality settings ran out of time.
GraphLayout layoutWhole(const LayoutInput& input, const LayoutOptions& options, bool& fast)
{
    if (options.progress && options.progress->isCancelled())
        throw Cancelled();
    bool inProcess = options.engine == LayoutOptions::Engine::InProcess;
    std::string result;
    if (!inProcess) {
        try {
            try {
                result = layoutInChildProcess(layoutDotSource(input, fast), options, fast ? 0 : options.qualityTimeMs);
            } catch (const LayoutTimeout&) {
                fast = true;
                result = layoutInChildProcess(layoutDotSource(input, true), options, 0);
            }
        } catch (const ChildProcessStartError&) {
            // Auto falls back to the library when the program is missing.
            if (options.engine != LayoutOptions::Engine::Auto)
                throw;
            inProcess = true;
        }
    }
    if (inProcess)
        result = layoutInProcess(layoutDotSource(input, fast));
    if (options.progress && options.progress->isCancelled())
        throw Cancelled();
    GraphLayout layout = parseLayoutDot(result, input);
    layout.engine = inProcess ? GraphLayout::Engine::InProcess : GraphLayout::Engine::DotProcess;
    return layout;
}

// A part of a clustered input laid out on its own: the input and where its items came from.
struct LayoutPart
{
    LayoutInput input;
    std::vector<int32_t> nodes, edges, clusters; // original indices
};

// Splits a clustered input into its connected parts (a top-level cluster with everything inside it
// counts as connected, as Graphviz's own cccomps has it). Parts with clusters come first, largest
// first, at most `maxClustered` of them; the remaining clustered parts share one part (Graphviz lays
// its components side by side), and the parts without clusters share one (Graphviz packs those).
std::vector<LayoutPart> splitClusteredInput(const LayoutInput& input, size_t maxClustered)
{
    const size_t n = input.nodes.size();
    std::vector<int32_t> parent(n);
    for (size_t i = 0; i < n; ++i)
        parent[i] = int32_t(i);
    const auto find = [&](int32_t a) {
        while (parent[size_t(a)] != a)
            a = parent[size_t(a)] = parent[size_t(parent[size_t(a)])];
        return a;
    };
    const auto join = [&](int32_t a, int32_t b) {
        a = find(a);
        b = find(b);
        if (a != b)
            parent[size_t(std::max(a, b))] = std::min(a, b);
    };
    for (const LayoutInput::Edge& e : input.edges)
        join(e.from, e.to);
    std::vector<int32_t> topOf(input.clusters.size());
    for (size_t c = 0; c < input.clusters.size(); ++c)
        topOf[c] = input.clusters[c].parent < 0 ? int32_t(c) : topOf[size_t(input.clusters[c].parent)];
    std::vector<int32_t> firstNodeOfTop(input.clusters.size(), -1);
    for (size_t i = 0; i < n; ++i) {
        if (input.nodes[i].cluster < 0)
            continue;
        int32_t& first = firstNodeOfTop[size_t(topOf[size_t(input.nodes[i].cluster)])];
        if (first < 0)
            first = int32_t(i);
        else
            join(first, int32_t(i));
    }
    // Components by their smallest node; clustered ones ranked by size.
    std::vector<int32_t> componentOf(n, -1);
    std::vector<int32_t> sizes;
    std::vector<char> clustered;
    std::vector<int32_t> idOfRoot(n, -1);
    for (size_t i = 0; i < n; ++i) {
        const int32_t root = find(int32_t(i));
        if (idOfRoot[size_t(root)] < 0) {
            idOfRoot[size_t(root)] = int32_t(sizes.size());
            sizes.push_back(0);
            clustered.push_back(0);
        }
        componentOf[i] = idOfRoot[size_t(root)];
        ++sizes[size_t(componentOf[i])];
        if (input.nodes[i].cluster >= 0)
            clustered[size_t(componentOf[i])] = 1;
    }
    std::vector<int32_t> order;
    for (size_t k = 0; k < sizes.size(); ++k)
        if (clustered[k])
            order.push_back(int32_t(k));
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return sizes[size_t(a)] > sizes[size_t(b)]; });
    std::vector<int32_t> partOf(sizes.size(), -1);
    size_t parts = 0;
    for (size_t r = 0; r < order.size(); ++r)
        partOf[size_t(order[r])] = int32_t(r < maxClustered ? parts++ : maxClustered);
    if (order.size() > maxClustered)
        parts = maxClustered + 1;
    const int32_t plainPart = int32_t(parts);
    bool anyPlain = false;
    for (size_t k = 0; k < sizes.size(); ++k)
        if (partOf[k] < 0) {
            partOf[k] = plainPart;
            anyPlain = true;
        }
    std::vector<LayoutPart> out(parts + (anyPlain ? 1 : 0));
    std::vector<int32_t> newIndex(n);
    for (size_t i = 0; i < n; ++i) {
        LayoutPart& part = out[size_t(partOf[size_t(componentOf[i])])];
        newIndex[i] = int32_t(part.nodes.size());
        part.nodes.push_back(int32_t(i));
        part.input.nodes.push_back(input.nodes[i]);
    }
    // Clusters follow their top-level cluster's nodes (a cluster without nodes goes with the first part).
    std::vector<int32_t> newCluster(input.clusters.size(), -1);
    for (size_t c = 0; c < input.clusters.size(); ++c) {
        const int32_t first = firstNodeOfTop[size_t(topOf[c])];
        LayoutPart& part = out[first >= 0 ? size_t(partOf[size_t(componentOf[size_t(first)])]) : 0];
        newCluster[c] = int32_t(part.clusters.size());
        part.clusters.push_back(int32_t(c));
        LayoutInput::Cluster cluster = input.clusters[c];
        cluster.parent = cluster.parent < 0 ? -1 : newCluster[size_t(cluster.parent)];
        part.input.clusters.push_back(cluster);
    }
    for (LayoutPart& part : out)
        for (LayoutInput::Node& node : part.input.nodes)
            node.cluster = node.cluster < 0 ? -1 : newCluster[size_t(node.cluster)];
    for (size_t e = 0; e < input.edges.size(); ++e) {
        const LayoutInput::Edge& edge = input.edges[e];
        LayoutPart& part = out[size_t(partOf[size_t(componentOf[size_t(edge.from)])])];
        part.edges.push_back(int32_t(e));
        part.input.edges.push_back({ newIndex[size_t(edge.from)], newIndex[size_t(edge.to)], edge.weight });
    }
    for (LayoutPart& part : out)
        part.input.direction = input.direction;
    return out;
}

} // namespace

GraphLayout layoutGraph(const LayoutInput& input, const LayoutOptions& options)
{
    checkInput(input, options);
    const auto start = std::chrono::steady_clock::now();
    bool fast = int64_t(input.nodes.size()) > kLayoutFastModeNodes;
    std::vector<LayoutPart> parts;
    if (!input.clusters.empty() && !input.nodes.empty())
        parts = splitClusteredInput(input, 24);
    GraphLayout layout;
    if (parts.size() <= 1) {
        layout = layoutWhole(input, options, fast);
    } else {
        // Rows of parts, tallest first, about as wide as the whole is high (Graphviz's packmode="graph"
        // aims at a square too), with the gap Graphviz's pack leaves.
        constexpr double kGap = 8;
        std::vector<GraphLayout> laid;
        laid.reserve(parts.size());
        double area = 0;
        double widest = 0;
        for (const LayoutPart& part : parts) {
            laid.push_back(layoutWhole(part.input, options, fast));
            area += (laid.back().width + kGap) * (laid.back().height + kGap);
            widest = std::max(widest, laid.back().width);
        }
        std::vector<size_t> byHeight(parts.size());
        for (size_t k = 0; k < parts.size(); ++k)
            byHeight[k] = k;
        std::stable_sort(byHeight.begin(), byHeight.end(),
            [&](size_t a, size_t b) { return laid[a].height > laid[b].height; });
        const double rowWidth = std::max(widest, std::sqrt(area));
        layout.nodes.resize(input.nodes.size());
        layout.edges.resize(input.edges.size());
        layout.clusters.resize(input.clusters.size());
        layout.engine = GraphLayout::Engine::DotProcess;
        double x = 0, y = 0, rowHeight = 0;
        for (const size_t k : byHeight) {
            const GraphLayout& part = laid[k];
            if (x > 0 && x + part.width > rowWidth) {
                x = 0;
                y += rowHeight + kGap;
                rowHeight = 0;
            }
            const auto moved = [&](GraphLayout::Box box) {
                box.x += x;
                box.y += y;
                return box;
            };
            for (size_t i = 0; i < parts[k].nodes.size(); ++i)
                layout.nodes[size_t(parts[k].nodes[i])] = moved(part.nodes[i]);
            for (size_t c = 0; c < parts[k].clusters.size(); ++c)
                layout.clusters[size_t(parts[k].clusters[c])] = moved(part.clusters[c]);
            for (size_t e = 0; e < parts[k].edges.size(); ++e) {
                GraphLayout::Edge edge = part.edges[e];
                for (GraphLayout::Point& p : edge.points) {
                    p.x += x;
                    p.y += y;
                }
                layout.edges[size_t(parts[k].edges[e])] = std::move(edge);
            }
            if (part.engine == GraphLayout::Engine::InProcess)
                layout.engine = GraphLayout::Engine::InProcess;
            layout.width = std::max(layout.width, x + part.width);
            rowHeight = std::max(rowHeight, part.height);
            layout.height = std::max(layout.height, y + rowHeight);
            x += part.width + kGap;
        }
    }
    layout.fast = fast;
    layout.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return layout;
}

std::string graphvizVersion()
{
    GVC_t* gvc = gvContext();
    std::string version = gvc ? gvcVersion(gvc) : "unavailable";
    if (gvc)
        gvFreeContext(gvc);
    return version;
}

} // namespace tgraph
