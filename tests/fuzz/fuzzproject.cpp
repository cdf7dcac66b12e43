// SPDX-License-Identifier: Apache-2.0
// Fuzz entry point: project files (core/store), opened read-only as `tgraph runs list|show`,
// `tgraph compare` and the studio's runs view open a project: the header checks, SQLite's
// quick_check, then every read of every run (params, tags, artifacts, metric series whole and
// downsampled, per-graph metrics, predictions, run folders and stored paths) and the comparison of
// all runs as text and JSON. The input is written to a file first (SQLite reads files); nothing is
// ever written to it.

#include "fuzzfile.h"

#include "core/store/project.h"
#include "core/store/runcomparison.h"
#include "core/util/error.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

// Each read of one run on its own: a refusal of one (a bad stored path) must not hide the others.
template <class F> void attempt(F read)
{
    try {
        read();
    } catch (const tgraph::InputError&) { }
}

void readRun(const tgraph::Project& project, const tgraph::RunRecord& run)
{
    attempt([&] { project.findRun(run.id); });
    attempt([&] { project.findRun(run.name); });
    attempt([&] { project.params(run.id); });
    attempt([&] { project.tags(run.id); });
    attempt([&] { project.runDir(run.id); });
    attempt([&] {
        if (!run.checkpoint.empty())
            project.dataPath(run.checkpoint, "run checkpoint");
    });
    attempt([&] {
        for (const tgraph::ArtifactRecord& a : project.artifacts(run.id))
            attempt([&] { project.dataPath(a.path, "run artifact"); });
    });
    attempt([&] {
        for (const std::string& key : project.metricKeys(run.id)) {
            const size_t slash = key.find('/');
            const std::string context = slash == std::string::npos ? std::string() : key.substr(0, slash);
            const std::string name = slash == std::string::npos ? key : key.substr(slash + 1);
            attempt([&] { project.metricHistory(run.id, name, context); });
            attempt([&] { project.metricHistory(run.id, name, context, 8); });
        }
    });
    attempt([&] {
        for (const tgraph::GraphMetricRecord& g : project.graphMetrics(run.id)) {
            attempt([&] { project.absolutePath(g.graph); });
            attempt([&] { project.predictions(run.id, g.step, g.graph); });
            attempt([&] { project.predictedGraphs(run.id, g.step); });
        }
    });
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const tgraph::fuzz::InputFile file(data, size, "fuzz.tgproj");
    try {
        const tgraph::Project project = tgraph::Project::open(file.path(), tgraph::Project::Access::Read);
        project.schemaVersion();
        attempt([&] { project.experiments(); });
        attempt([&] { project.latestMetrics(); });
        std::vector<std::string> ids;
        attempt([&] {
            for (const tgraph::RunRecord& run : project.runs()) {
                readRun(project, run);
                ids.push_back(run.id);
            }
        });
        attempt([&] {
            const tgraph::RunComparison comparison = tgraph::compareRuns(project, ids);
            tgraph::comparisonText(comparison);
            tgraph::comparisonJson(comparison);
        });
    } catch (const tgraph::InputError&) {
        // a clear error is the expected outcome for bad input
    }
    return 0;
}
