// SPDX-License-Identifier: Apache-2.0
#include "model/infer/autotune.h"

#include "model/infer/explainsimulator.h"

#include "core/hlo/featurizer.h"
#include "core/io/filebytes.h"
#include "core/results/attribution.h"
#include "core/util/atomicfile.h"
#include "core/util/childprocess.h"
#include "core/util/error.h"
#include "core/util/json.h"
#include "core/util/progress.h"

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace tgraph::model {

namespace fs = std::filesystem;

namespace {

std::string shellQuote(const std::string& text)
{
    std::string out = "'";
    for (const char c : text)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

} // namespace

double measureWithCommand(const std::string& command, const std::string& configFile, int timeoutMs, std::string* note)
{
    std::string line = command;
    const std::string placeholder = "{config_file}";
    const auto at = line.find(placeholder);
    if (at == std::string::npos)
        line += " " + shellQuote(configFile);
    else
        line.replace(at, placeholder.size(), shellQuote(configFile));
    ChildProcessOptions options;
    options.timeoutMs = timeoutMs;
    ChildProcessResult r;
    try {
        r = runChildProcess({ "/bin/sh", "-c", line }, {}, options);
    } catch (const ChildProcessTimeout&) {
        *note = "timed out after " + std::to_string(timeoutMs / 1000) + " s";
        return NAN;
    } catch (const ChildProcessOutputLimit& e) {
        *note = e.what();
        return NAN;
    }
    if (r.exitCode != 0) {
        std::string err = r.err.substr(0, 200);
        while (!err.empty() && (err.back() == '\n' || err.back() == '\r'))
            err.pop_back();
        *note = (r.signal ? "killed by signal " + std::to_string(r.signal) : "exit code " + std::to_string(r.exitCode))
            + (err.empty() ? "" : ": " + err);
        return NAN;
    }
    std::istringstream words(r.out);
    std::string word;
    double last = NAN;
    while (words >> word) {
        double v = 0; // from_chars: a decimal point whatever the locale
        const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
        if (ec == std::errc() && end == word.data() + word.size() && std::isfinite(v))
            last = v;
    }
    if (!(last > 0)) {
        *note = "printed no runtime (a number > 0 on standard output)";
        return NAN;
    }
    return last;
}

std::string simulatorModuleProblem(const GraphDocument& document)
{
    if (document.kind == GraphKind::Tile)
        return "the simulator prices layouts, and this graph is a tile kernel";
    if (document.module)
        return {};
    std::string why;
    if (regenerateSynthModule(document.layout, &why))
        return {};
    return why;
}

Autotuner::Autotuner(
    std::vector<EnsembleMember>& models, std::shared_ptr<const GraphDocument> document, AutotuneRequest request)
    : m_models(models)
    , m_document(std::move(document))
    , m_request(std::move(request))
{
    const GraphDocument& doc = *m_document;
    const std::string& input = doc.path;
    const bool simulate = m_request.simulate;
    if (doc.kind == GraphKind::Tile) {
        if (simulate)
            throw InputError(
                input, "--simulate", "tile kernels are verified with --measure (the simulator prices layouts)");
        m_space = tileTuneSpace(doc.tile, input);
        m_scorer.emplace(models, doc.tile, m_space, input);
    } else {
        m_fileGraph = doc.layout;
        if (m_fileGraph.configurableCount() == 0 && doc.module) {
            const std::vector<int64_t> ids = defaultConfigurableNodes(*doc.module);
            m_fileGraph.nodeConfigIds = NdArray<int64_t>::fromVector({ int64_t(ids.size()) }, ids);
        }
        if (m_fileGraph.configurableCount() == 0)
            throw InputError(input, "node_config_ids", "the graph has no configurable nodes: there is nothing to tune");
        if (doc.module) {
            m_module = doc.module;
            m_moduleNote = input;
        } else if (!m_request.moduleFile.empty()) {
            const LinkedModule link = linkModuleFile(m_fileGraph, input, m_request.moduleFile);
            m_module = link.module;
            m_moduleNote = link.source;
        } else if (std::string why; auto link = regenerateSynthModule(m_fileGraph, &why)) {
            m_module = link->module;
            m_moduleNote = link->source;
        }
        if (m_module)
            m_simParams = simulatorParamsOf(m_fileGraph, m_request.simulatorParams, input);
        const std::vector<int64_t> ids(
            m_fileGraph.nodeConfigIds.data(), m_fileGraph.nodeConfigIds.data() + m_fileGraph.configurableCount());
        if (m_request.space == "module" || (m_request.space == "auto" && m_module)) {
            if (!m_module)
                throw InputError(input, "--space module",
                    "the graph's HLO module is not known (give an HLO module or tuning record, or --module FILE)");
            m_space = moduleTuneSpace(*m_module, ids, input);
        } else {
            m_space = fileTuneSpace(m_fileGraph, input);
        }
        if (simulate && !m_module)
            throw InputError(input, "--simulate",
                "the simulator needs the graph's HLO module (give an HLO module or tuning record, or --module FILE)");
        m_pruned = pruneToConfigurable(m_fileGraph, input);
        m_scorer.emplace(models, m_pruned.graph, m_space, input);
        if (m_scorer->takesSimInputs()) {
            // A model with simulator inputs (docs/model.md §4.9) reads the simulator's price of every
            // candidate: from the module found above, else the one beside the graph file.
            std::shared_ptr<const HloModule> module = m_module;
            SimulatorParams params = m_simParams;
            if (!module) {
                std::string source, why;
                module = moduleOfGraphFile(m_fileGraph, input, &source, &why);
                if (module) {
                    params = simulatorParamsOf(m_fileGraph, m_request.simulatorParams, input);
                    m_moduleNote = source;
                } else
                    m_simInputsNote = "the model's simulator inputs are unpriced: " + why;
            }
            if (module)
                m_scorer->setSimulator(std::make_shared<LayoutSimulator>(*module, m_space.nodeIds, params));
        }
        if (simulate)
            m_simulator = std::make_unique<LayoutSimulator>(*m_module, m_space.nodeIds, m_simParams);
    }
    if (m_request.topK <= 0)
        m_request.topK = m_space.kind == GraphKind::Tile ? 5 : 10;
}

Autotuner::~Autotuner() = default;

AutotuneOutcome Autotuner::run(ProgressSink* progress, const std::function<void(const TuneResult&)>& onBatch)
{
    const TuneOptions& options = m_request.search;
    const int64_t topK = m_request.topK;
    AutotuneOutcome out;
    const auto started = std::chrono::steady_clock::now();
    out.result = runTuneSearch(m_space, options, std::ref(*m_scorer), progress, onBatch);
    out.searchSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const TuneResult& result = out.result;

    // Final candidates: the best of the search (and the start), re-scored together in one batch.
    const std::vector<size_t> ranking = result.ranking();
    const size_t finalists
        = std::min(ranking.size(), size_t(std::max<int64_t>(topK * 4, std::min<int64_t>(options.batch, 64))));
    std::vector<size_t> chosen(ranking.begin(), ranking.begin() + int64_t(finalists));
    if (std::find(chosen.begin(), chosen.end(), size_t(0)) == chosen.end())
        chosen.push_back(0); // the default, for the speed-up
    std::vector<TuneGenes> genes;
    for (const size_t i : chosen)
        genes.push_back(result.evaluated[i].genes);
    const std::vector<double> rescored = (*m_scorer)(genes);
    std::vector<AutotuneCandidate> finals;
    for (size_t i = 0; i < chosen.size(); ++i) {
        AutotuneCandidate c;
        c.evaluation = chosen[i];
        c.searchScore = result.evaluated[chosen[i]].score;
        c.score = rescored[i];
        finals.push_back(c);
    }
    std::stable_sort(finals.begin(), finals.end(),
        [](const AutotuneCandidate& a, const AutotuneCandidate& b) { return a.score < b.score; });
    out.defaultEntry
        = *std::find_if(finals.begin(), finals.end(), [](const AutotuneCandidate& c) { return c.evaluation == 0; });
    // The top-k: distinct configurations other than the default, which has its own entry (listed
    // among them too, it showed twice: as "default" and as one of the ranks). The search scores no
    // config row twice, so distinct evaluations are distinct rows; the check keeps it so.
    std::set<std::vector<float>> rows { m_space.row(result.evaluated[0].genes) };
    for (const AutotuneCandidate& c : finals)
        if (int64_t(out.top.size()) < topK && rows.insert(m_space.row(result.evaluated[c.evaluation].genes)).second)
            out.top.push_back(c);

    // Verification of the top-k and the default.
    const bool measure = !m_request.measureCommand.empty();
    out.verification = m_simulator ? "simulated" : measure ? "measured" : "";
    std::error_code ec;
    if (measure) {
        if (m_request.configDir.empty())
            throw std::invalid_argument("Autotuner: --measure needs a directory for the config files");
        fs::create_directories(m_request.configDir, ec);
    }
    const auto configFile = [this](int rank) {
        return (fs::path(m_request.configDir)
            / (rank > 0 ? "config-" + std::to_string(rank) + ".json" : std::string("config-default.json")))
            .string();
    };
    const auto verifyOne = [&](AutotuneCandidate& c, int rank) {
        const std::vector<float> row = m_space.row(result.evaluated[c.evaluation].genes);
        if (m_simulator) {
            c.runtime = m_simulator->runtime(row.data());
        } else if (measure) {
            writeFileAtomically(configFile(rank), configJson(row, rank));
            c.runtime
                = measureWithCommand(m_request.measureCommand, configFile(rank), m_request.measureTimeoutMs, &c.note);
        }
    };
    {
        ProgressScope scope(out.verification.empty() ? nullptr : progress,
            m_simulator ? "simulating the top-k" : "measuring the top-k", uint64_t(out.top.size() + 1));
        verifyOne(out.defaultEntry, 0);
        scope.advanceBy(1);
        for (size_t r = 0; r < out.top.size(); ++r) {
            verifyOne(out.top[r], int(r + 1));
            scope.advanceBy(1);
        }
    }

    addFileRuntimes(out);

    // The configuration to apply: the fastest verified one when it beats the default (an autotuner
    // applies nothing it has not seen run faster), 0 = keep the default.
    const double base = out.defaultEntry.runtime;
    for (size_t r = 0; r < out.top.size(); ++r) {
        const double t = out.top[r].runtime;
        if (std::isfinite(t) && std::isfinite(base) && t < base
            && (out.winner == 0 || t < out.top[size_t(out.winner - 1)].runtime))
            out.winner = int(r + 1);
    }
    return out;
}

// Instruction names: the document's, or those of the linked module (a regenerated synth module).
void Autotuner::addFileRuntimes(AutotuneOutcome& out) const
{
    // The input file's own measurement of the final candidates it holds: one pass over its configs,
    // each compared with the few candidates (no copy of the file's configs).
    const bool tile = m_space.kind == GraphKind::Tile;
    const NdArray<float>& configs = tile ? m_document->tile.configFeat : m_fileGraph.nodeConfigFeat;
    const NdArray<int64_t>& runtimes = tile ? m_document->tile.configRuntime : m_fileGraph.configRuntime;
    const int64_t count = configs.ndim() > 0 ? configs.dim(0) : 0;
    const int64_t width = m_space.rowValues();
    if (count == 0 || configs.size() != count * width)
        return;
    std::vector<std::pair<std::vector<float>, AutotuneCandidate*>> wanted;
    wanted.emplace_back(row(out, out.defaultEntry), &out.defaultEntry);
    for (AutotuneCandidate& c : out.top)
        wanted.emplace_back(row(out, c), &c);
    for (int64_t k = 0; k < count; ++k) {
        const float* values = configs.data() + k * width;
        for (auto& [candidate, entry] : wanted)
            if (entry->fileRuntime < 0 && runtimes.data()[k] > 0
                && std::memcmp(values, candidate.data(), sizeof(float) * size_t(width)) == 0)
                entry->fileRuntime = runtimes.data()[k];
    }
}

std::string Autotuner::nodeName(int64_t node) const
{
    const GraphDocument& doc = *m_document;
    if (!doc.module && m_module && node >= 0 && size_t(node) < m_module->instructions.size())
        return std::string(m_module->instructions[size_t(node)].name);
    return doc.nodeName(node);
}

std::string Autotuner::layoutAssignment(const std::vector<float>& row) const
{
    const TuneSpace& space = m_space;
    const GraphDocument& doc = *m_document;
    std::ostringstream out;
    if (space.kind == GraphKind::Tile) {
        out << "  config_feat:";
        for (int i = 0; i < space.rowWidth; ++i)
            out << ' ' << row[size_t(i)];
        out << '\n';
        return out.str();
    }
    int changed = 0;
    for (size_t k = 0; k < space.nodeIds.size(); ++k) {
        std::array<int8_t, 18> values {};
        bool isDefault = true;
        for (int v = 0; v < 18; ++v) {
            values[size_t(v)] = int8_t(row[k * 18 + size_t(v)]);
            isDefault = isDefault && values[size_t(v)] == -1;
        }
        if (isDefault)
            continue;
        ++changed;
        const int64_t node = space.nodeIds[k];
        out << "  " << nodeName(node) << " (" << doc.opcodeName(node) << ", node " << node << "):";
        static const char* const names[] = { "output", "input", "kernel" };
        for (int t = 0; t < 3; ++t) {
            const std::string text = tensorLayoutText(values, t);
            if (text != "default")
                out << ' ' << names[t] << " {" << text << "}";
        }
        out << '\n';
    }
    if (changed == 0)
        out << "  (the compiler default everywhere)\n";
    return out.str();
}

// The JSON file a --measure command reads: the config and its layouts.
std::string Autotuner::configJson(const std::vector<float>& row, int rank) const
{
    const TuneSpace& space = m_space;
    const GraphDocument& doc = *m_document;
    Json j;
    j["source"] = space.source;
    j["rank"] = rank;
    j["kind"] = graphKindName(space.kind);
    if (space.kind == GraphKind::Tile) {
        Json& feat = j["config_feat"] = Json::array();
        for (int i = 0; i < space.rowWidth; ++i)
            feat.push_back(double(row[size_t(i)]));
    } else {
        j["node_config_ids"] = space.nodeIds;
        Json& layouts = j["layouts"] = Json::array();
        for (size_t k = 0; k < space.nodeIds.size(); ++k) {
            std::array<int8_t, 18> values {};
            for (int v = 0; v < 18; ++v)
                values[size_t(v)] = int8_t(row[k * 18 + size_t(v)]);
            Json& layout = layouts.emplace_back();
            layout["node"] = space.nodeIds[k];
            layout["name"] = nodeName(space.nodeIds[k]);
            layout["opcode"] = doc.opcodeName(space.nodeIds[k]);
            layout["values"] = values;
            layout["output"] = tensorLayoutText(values, 0);
            layout["input"] = tensorLayoutText(values, 1);
            layout["kernel"] = tensorLayoutText(values, 2);
        }
    }
    return jsonText(j) + "\n";
}

} // namespace tgraph::model
