// SPDX-License-Identifier: Apache-2.0
#include "app/studio/analysis/explainjob.h"

#include "core/util/error.h"
#include "core/util/progress.h"
#include "model/facade/explanation.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace tgraph::studio {

using tgraph::InputError;

ExplainSession::~ExplainSession() = default;

namespace {

int64_t rankAmong(const std::vector<double>& scores, double score)
{
    return 1 + std::count_if(scores.begin(), scores.end(), [score](double s) { return s < score; });
}

} // namespace

ExplainOutcome runExplain(const ExplainRequest& request, tgraph::ProgressSink* progress)
{
    tgraph::GraphDocumentPtr document = request.document;
    if (!document) {
        if (request.file.empty())
            throw std::invalid_argument("runExplain: no document");
        tgraph::ProgressScope scope(progress, "reading the graph", 0);
        auto documents = tgraph::openGraphDocuments(request.file);
        if (documents.empty())
            throw InputError(request.file, "", "holds no graph");
        document = std::move(documents.front());
    }
    const tgraph::GraphDocument& doc = *document;
    if (doc.kind != tgraph::GraphKind::Layout)
        throw InputError(doc.path, "", "is a tile kernel; explain compares layout configurations of layout graphs");
    if (request.weights.empty())
        throw InputError(doc.path, "", "no model chosen: explain needs the model that ranked the configs");
    auto session = std::make_shared<ExplainSession>();
    session->source = doc.path;
    session->module = doc.module;
    session->batchConfigs = std::max<int64_t>(1, request.batchConfigs);
    {
        tgraph::ProgressScope scope(progress, "loading the model", 0);
        session->models = tgraph::facade::Ensemble::load(tgraph::facade::expandWeightsArguments(request.weights));
    }
    session->graph = doc.layout;
    tgraph::LayoutGraph& graph = session->graph;
    if (request.configValues.size() > 0) {
        const int64_t rows = request.configValues.ndim() == 3 ? request.configValues.dim(0) : 0;
        const int64_t nc = int64_t(request.configurableNodes.size());
        if (rows < 2 || request.configValues.dim(1) != nc || int64_t(request.configIds.size()) != rows
            || (!request.runtimes.empty() && int64_t(request.runtimes.size()) != rows))
            throw InputError(doc.path, "configs", "the config set to explain is inconsistent or has fewer than 2 rows");
        graph.nodeConfigIds = tgraph::NdArray<int64_t>::fromVector({ nc }, request.configurableNodes);
        graph.nodeConfigFeat = request.configValues;
        graph.configRuntime = tgraph::NdArray<int64_t>({ rows }, 0);
        for (int64_t r = 0; r < rows && !request.runtimes.empty(); ++r)
            graph.configRuntime[r] = std::isfinite(request.runtimes[size_t(r)])
                ? std::max<int64_t>(0, std::llround(request.runtimes[size_t(r)]))
                : 0;
        graph.defaultConfig = -1;
        if (request.idsAreFileConfigs && doc.layout.defaultConfig >= 0) {
            const auto it = std::find(request.configIds.begin(), request.configIds.end(), doc.layout.defaultConfig);
            if (it != request.configIds.end())
                graph.defaultConfig = it - request.configIds.begin();
        }
        session->configIds = request.configIds;
        session->pruned = tgraph::pruneToConfigurable(graph, doc.path);
    } else {
        if (graph.configCount() < 2)
            throw InputError(doc.path, "configs",
                "has " + std::to_string(graph.configCount())
                    + " configuration(s); explain compares two (run inference with generated candidates first)");
        if (!doc.prunedGraph)
            throw InputError(doc.path, "", doc.pruneError);
        session->pruned = *doc.prunedGraph;
        session->configIds.resize(size_t(graph.configCount()));
        for (int64_t c = 0; c < graph.configCount(); ++c)
            session->configIds[size_t(c)] = c;
    }

    tgraph::ExplainFileOptions options;
    options.explain.batchConfigs = session->batchConfigs;
    // Gradient x input is not shown in the view; its two backward passes would hold every
    // activation of a whole chunk (2.4 GB instead of 0.6 GB on the demo's 440-node unet).
    options.explain.gradients = false;
    options.rankAll = true;
    ExplainOutcome outcome;
    outcome.runtimesSimulated = request.runtimesSimulated || !graph.syntheticMeta.empty();
    auto attribution = std::make_shared<tgraph::Attribution>(tgraph::facade::explainLayoutGraph(session->models, graph,
        session->pruned, doc.path, request.a, request.b, options, doc.module, &outcome.moduleNote, progress));
    outcome.rowA = attribution->configA;
    outcome.rowB = attribution->configB;
    attribution->labelA = tgraph::configLabel(request.a.role, session->configIds[size_t(outcome.rowA)]);
    attribution->labelB = tgraph::configLabel(request.b.role, session->configIds[size_t(outcome.rowB)]);
    outcome.attribution = std::move(attribution);
    outcome.session = std::move(session);
    outcome.document = std::move(document);
    return outcome;
}

WhatIfOutcome runWhatIf(ExplainSession& session, const tgraph::Attribution& attribution, int64_t baseRow,
    int64_t fileNode, const std::array<float, 18>& values)
{
    const tgraph::PrunedGraph& pruned = session.pruned;
    // The attribution already maps the file's node to its configurable index in the pruned graph.
    int64_t configurable = -1;
    for (const tgraph::NodeAttribution& n : attribution.nodes)
        if (n.fileNode == fileNode)
            configurable = n.configurable;
    if (configurable < 0)
        throw InputError(session.source, "node " + std::to_string(fileNode), "is not a configurable node");
    const tgraph::EditedScore s = tgraph::facade::scoreEditedLayout(
        session.models, pruned, baseRow, configurable, values, session.batchConfigs, session.source, &session.graph,
        session.module);
    WhatIfOutcome out;
    out.baseRow = baseRow;
    out.fileNode = fileNode;
    out.values = values;
    out.baseScore = s.base;
    out.editedScore = s.edited;
    out.configs = pruned.graph.configCount();
    const std::vector<double>& scores = attribution.configScores;
    if (int64_t(scores.size()) == out.configs) {
        // Ranked with the set's own scores: score(base) there plus the edit's effect in its pass.
        const double base = scores[size_t(baseRow)];
        std::vector<double> others = scores;
        others.erase(others.begin() + baseRow);
        out.baseRank = rankAmong(others, base);
        out.rank = rankAmong(others, base + s.effect());
    }
    return out;
}

bool parseTensorLayout(const std::string& text, float* six, std::string* error)
{
    std::fill_n(six, 6, -1.0f);
    std::string t;
    for (const char c : text)
        if (c != ' ' && c != '{' && c != '}')
            t += c;
    if (t.empty() || t == "default" || t == "-")
        return true;
    int count = 0;
    size_t pos = 0;
    while (pos <= t.size()) {
        const size_t comma = std::min(t.find(',', pos), t.size());
        int v = 0;
        const auto [end, ec] = std::from_chars(t.data() + pos, t.data() + comma, v);
        if (ec != std::errc() || end != t.data() + comma || v < 0 || v > 5) {
            *error = "'" + text + "': dims must be integers 0..5 separated by commas, minor-to-major (or 'default')";
            return false;
        }
        if (count == 6) {
            *error = "'" + text + "': at most 6 dims";
            return false;
        }
        if (std::find(six, six + count, float(v)) != six + count) {
            *error = "'" + text + "': dim " + std::to_string(v) + " appears twice";
            return false;
        }
        six[count++] = float(v);
        pos = comma + 1;
    }
    return true;
}

} // namespace tgraph::studio
