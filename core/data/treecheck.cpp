// SPDX-License-Identifier: Apache-2.0
#include "treecheck.h"

#include "collections.h"

#include "core/graph/configs.h"
#include "core/graph/graphio.h"
#include "core/io/npz.h"
#include "core/util/error.h"
#include "core/util/json.h"
#include "core/util/progress.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>
#include <string_view>
#include <unordered_set>

namespace fs = std::filesystem;

namespace tgraph {

namespace {

using Severity = TreeProblem::Severity;

template <class G> std::vector<std::string> dtypeProblems(const G& graph)
{
    G published;
    setPublishedStorage(published);
    std::vector<std::string> problems;
    for (const auto& [key, want] : published.storage) {
        const auto it = graph.storage.find(key);
        if (it == graph.storage.end() || it->second.dtype == want.dtype)
            continue;
        problems.push_back(key + " stored as " + it->second.dtype.name() + ", published as " + want.dtype.name());
    }
    return problems;
}

int64_t duplicateRows(const NdArray<float>& rows)
{
    if (rows.ndim() < 1 || rows.dim(0) < 2)
        return 0;
    const size_t rowBytes = size_t(rows.rowSize()) * sizeof(float);
    std::unordered_set<std::string_view> seen;
    int64_t duplicates = 0;
    for (int64_t i = 0; i < rows.dim(0); ++i)
        if (!seen.insert(std::string_view(reinterpret_cast<const char*>(rows.row(i)), rowBytes)).second)
            ++duplicates;
    return duplicates;
}

void runtimeProblems(const NdArray<int64_t>& runtime, const std::string& split, const std::string& file,
    std::vector<TreeProblem>& problems)
{
    const int64_t n = runtime.size();
    if (n == 0)
        return;
    bool allZero = true, allEqual = true;
    for (int64_t i = 0; i < n; ++i) {
        allZero = allZero && runtime[i] == 0;
        allEqual = allEqual && runtime[i] == runtime[0];
    }
    if (split == "test") {
        if (!allZero)
            problems.push_back({ Severity::Warning, file, "a test-split graph with measured runtimes" });
        return;
    }
    if (allZero)
        problems.push_back({ Severity::Error, file,
            "config_runtime: all " + std::to_string(n) + " runtimes are 0 outside the test split (not measured)" });
    else if (allEqual && n >= 2)
        problems.push_back({ Severity::Error, file,
            "config_runtime: all " + std::to_string(n) + " runtimes are equal (" + std::to_string(runtime[0])
                + " ns): nothing to rank" });
}

int splitIndex(const std::string& split)
{
    const auto& splits = tpuSplits();
    return int(std::find(splits.begin(), splits.end(), split) - splits.begin());
}

bool hasSplitFolders(const fs::path& dir)
{
    std::error_code ec;
    for (const auto& split : tpuSplits())
        if (fs::is_directory(dir / split, ec))
            return true;
    return false;
}

std::vector<fs::path> npzFiles(const fs::path& folder)
{
    std::vector<fs::path> files;
    std::error_code ec;
    if (!fs::is_directory(folder, ec))
        return files;
    for (const auto& entry : fs::directory_iterator(folder, ec))
        if (entry.is_regular_file(ec) && entry.path().extension() == ".npz")
            files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

// The kind of a collection folder not named by the dataset: from its first npz file.
GraphKind detectFolderKind(const fs::path& folder)
{
    for (const auto& split : tpuSplits())
        for (const auto& file : npzFiles(folder / split)) {
            try {
                NpzReader npz(file.string());
                return detectGraphKind(npz);
            } catch (const InputError&) { }
        }
    return GraphKind::Layout;
}

} // namespace

int CollectionCheck::errors() const
{
    return int(std::count_if(
        problems.begin(), problems.end(), [](const TreeProblem& p) { return p.severity == Severity::Error; }));
}

int CollectionCheck::warnings() const { return int(problems.size()) - errors(); }

int64_t CollectionCheck::nodesMedian() const { return nodes.empty() ? 0 : nodes[(nodes.size() - 1) / 2]; }

int TreeCheck::errors() const
{
    int n = 0;
    for (const auto& c : collections)
        n += c.errors();
    return n;
}

int TreeCheck::warnings() const
{
    int n = 0;
    for (const auto& c : collections)
        n += c.warnings();
    return n;
}

std::vector<std::string> publishedDtypeProblems(const LayoutGraph& graph) { return dtypeProblems(graph); }
std::vector<std::string> publishedDtypeProblems(const TileGraph& graph) { return dtypeProblems(graph); }

void checkGraphFile(const std::string& path, const std::string& split, const std::string& base, CollectionCheck& check)
{
    const std::string file = fs::path(path).lexically_relative(base).string();
    const int s = splitIndex(split);
    if (s < 3)
        ++check.graphs[s];
    GraphLoadOptions options;
    options.minConfigs = 0; // the count is judged below
    try {
        NpzReader npz(path);
        const GraphKind kind = detectGraphKind(npz);
        if (kind != check.kind) {
            check.problems.push_back({ Severity::Error, file,
                std::string("a ") + graphKindName(kind) + " graph in a " + graphKindName(check.kind) + " collection" });
            return;
        }
        int64_t configs = 0, nodes = 0, duplicates = 0;
        std::vector<std::string> dtypes;
        const auto facts = [&](const auto& g, int64_t repeated) {
            configs = g.configCount();
            nodes = g.nodeCount();
            duplicates = repeated;
            dtypes = dtypeProblems(g);
            runtimeProblems(g.configRuntime, split, file, check.problems);
        };
        if (kind == GraphKind::Layout) {
            const LayoutGraph g = readLayoutGraph(npz, options);
            facts(g, countDuplicateConfigs(g.nodeConfigFeat));
        } else {
            const TileGraph g = readTileGraph(npz, options);
            facts(g, duplicateRows(g.configFeat));
        }
        for (const auto& d : dtypes)
            check.problems.push_back({ Severity::Error, file, d });
        if (configs == 0)
            check.problems.push_back({ Severity::Error, file, "no configurations" });
        else if (configs == 1)
            check.problems.push_back({ Severity::Warning, file, "a single configuration: nothing to rank" });
        if (duplicates > 0)
            check.problems.push_back({ Severity::Warning, file,
                std::to_string(duplicates) + " of " + std::to_string(configs)
                    + " configurations repeat an earlier one" });
        check.nodes.insert(std::upper_bound(check.nodes.begin(), check.nodes.end(), nodes), nodes);
        check.configs += configs;
        check.duplicateConfigs += duplicates;
    } catch (const InputError& e) {
        // The reader names the file: keep the place and the problem.
        std::string what = e.place().empty() ? e.problem() : e.place() + ": " + e.problem();
        check.problems.push_back({ Severity::Error, file, what });
    }
}

TreeCheck checkDatasetTree(const std::string& dirIn, ProgressSink* progress)
{
    std::error_code ec;
    const fs::path dir = fs::absolute(dirIn, ec).lexically_normal();
    if (!fs::is_directory(dir, ec))
        throw InputError(dirIn, "", "not a folder");
    fs::path tree = dir;
    if (fs::is_directory(dir / "npz", ec))
        tree = dir / "npz";

    // Collections to check: (id, folder, kind).
    std::vector<CollectionCheck> found;
    const std::string treeText = tree.string();
    if (tree.filename() == "npz") {
        for (const auto& c : tpuCollections()) {
            const fs::path folder = tree.parent_path() / c.folder;
            if (!fs::is_directory(folder, ec))
                continue;
            CollectionCheck check;
            check.id = c.id;
            check.folder = folder.string();
            check.kind = c.kind;
            found.push_back(std::move(check));
        }
        if (found.empty())
            throw InputError(
                dirIn, "", "holds no TpuGraphs collection (npz/tile/xla, npz/layout/{xla,nlp}/{default,random})");
    } else if (hasSplitFolders(dir)) {
        CollectionCheck check;
        const TpuCollection* c = tpuCollectionOfPath(dir.string() + "/");
        check.id = c ? c->id : dir.filename().string();
        check.folder = dir.string();
        check.kind = c ? c->kind : detectFolderKind(dir);
        found.push_back(std::move(check));
    } else {
        throw InputError(dirIn, "",
            "neither a TpuGraphs tree (npz/...) nor a collection folder (train/, valid/, test/ of .npz files)");
    }

    int64_t total = 0;
    for (const auto& c : found)
        for (const auto& split : tpuSplits())
            total += int64_t(npzFiles(fs::path(c.folder) / split).size());
    ProgressScope scope(progress, "verify", uint64_t(total));
    TreeCheck result;
    result.root = dir.string();
    for (auto& check : found) {
        for (const auto& split : tpuSplits()) {
            const fs::path folder = fs::path(check.folder) / split;
            if (!fs::is_directory(folder, ec)) {
                check.problems.push_back({ Severity::Warning, split + "/", "no " + split + " split" });
                continue;
            }
            const auto files = npzFiles(folder);
            if (files.empty())
                check.problems.push_back({ Severity::Warning, split + "/", "no .npz file in the " + split + " split" });
            for (const auto& file : files) {
                checkGraphFile(file.string(), split, check.folder, check);
                scope.advanceBy(1);
            }
        }
        result.collections.push_back(std::move(check));
    }
    return result;
}

std::string treeCheckTable(const TreeCheck& check)
{
    std::vector<std::vector<std::string>> rows;
    rows.push_back({ "collection", "train", "valid", "test", "nodes min", "median", "max", "configs", "dup configs",
        "errors", "warnings" });
    for (const auto& c : check.collections)
        rows.push_back({ c.id, std::to_string(c.graphs[0]), std::to_string(c.graphs[1]), std::to_string(c.graphs[2]),
            std::to_string(c.nodesMin()), std::to_string(c.nodesMedian()), std::to_string(c.nodesMax()),
            std::to_string(c.configs), std::to_string(c.duplicateConfigs), std::to_string(c.errors()),
            std::to_string(c.warnings()) });
    std::vector<size_t> width(rows.front().size(), 0);
    for (const auto& row : rows)
        for (size_t i = 0; i < row.size(); ++i)
            width[i] = std::max(width[i], row[i].size());
    std::string out;
    for (const auto& row : rows) {
        for (size_t i = 0; i < row.size(); ++i) {
            const std::string pad(width[i] - row[i].size(), ' ');
            out += i == 0 ? row[i] + pad : "  " + pad + row[i];
        }
        out += '\n';
    }
    return out;
}

std::string treeCheckJson(const TreeCheck& check)
{
    Json j;
    j["root"] = check.root;
    j["errors"] = check.errors();
    j["warnings"] = check.warnings();
    Json& list = j["collections"] = Json::array();
    for (const auto& c : check.collections) {
        Json& o = list.emplace_back();
        o["collection"] = c.id;
        o["folder"] = c.folder;
        o["kind"] = graphKindName(c.kind);
        o["graphs"] = { { "train", c.graphs[0] }, { "valid", c.graphs[1] }, { "test", c.graphs[2] } };
        o["nodes"] = { { "min", c.nodesMin() }, { "median", c.nodesMedian() }, { "max", c.nodesMax() } };
        o["configs"] = c.configs;
        o["duplicate_configs"] = c.duplicateConfigs;
        o["errors"] = c.errors();
        o["warnings"] = c.warnings();
        Json& problems = o["problems"] = Json::array();
        for (const auto& p : c.problems)
            problems.push_back({ { "severity", p.severity == Severity::Error ? "error" : "warning" },
                { "file", p.file }, { "problem", p.problem } });
    }
    return jsonText(j);
}

} // namespace tgraph
