// SPDX-License-Identifier: Apache-2.0
#include "argparser.h"
#include "commands.h"
#include "sharedoptions.h"
#include "terminalprogress.h"

#include "core/util/error.h"
#include "core/util/format.h"
#include "core/graph/graphio.h"
#include "core/hlo/hloinput.h"
#include "core/metrics/metrics.h"
#include "core/synth/synthcollection.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

namespace tgraph::cli {

namespace {

namespace fs = std::filesystem;

int simulate(const ArgParser& p)
{
    const std::string in = p.positionals().front();
    const std::string out = p.value("--output");
    const int64_t count = p.get<int64_t>("--configs");
    const uint64_t seed = p.get<uint64_t>("--seed");
    const LayoutSampler sampler = p.get<LayoutSampler>("--sampler");
    if (detectInputKind(in) == InputKind::Npz)
        throw InputError(
            in, "", "is a TpuGraphs .npz; simulate reads HLO modules (text or protobuf, tuning records too)");
    const HloInputFile input = readHloInput(in); // attributes kept: backend_config holds while trip counts
    const bool toDirectory = !out.empty() && (input.modules.size() > 1 || out.ends_with('/') || fs::is_directory(out));
    if (toDirectory) {
        std::error_code ec;
        fs::create_directories(out, ec);
        if (ec)
            throw InputError(out, "", "cannot create the output directory: " + ec.message());
    }
    SimulatorParams params;
    if (std::string error; !params.assign(p.value("--params"), &error)) // checked by the parser
        throw std::logic_error(error);
    for (size_t k = 0; k < input.modules.size(); ++k) {
        const ModuleTuningData& data = input.modules[k];
        const std::string name(data.module.name);
        if (collectionOf(data) == GraphKind::Tile)
            throw InputError(in, "module " + name, "holds tile-size runs; simulate prices layout configurations");
        LayoutGraph graph;
        if (!data.runs.empty()) {
            // Measured configurations: price them and compare (the analytical baseline).
            graph = featurizeLayout(data, in);
            const std::vector<int64_t> ids(
                graph.nodeConfigIds.data(), graph.nodeConfigIds.data() + graph.configurableCount());
            const LayoutSimulator sim(data.module, ids, params);
            std::vector<double> measured, simulated;
            for (int64_t c = 0; c < graph.configCount(); ++c) {
                measured.push_back(double(graph.configRuntime[c]));
                simulated.push_back(sim.runtime(graph.nodeConfigFeat.row(c)));
                graph.configRuntime[c] = std::max<int64_t>(1, std::llround(simulated.back()));
            }
            std::printf("module %s: %lld measured configurations priced by the simulator\n", name.c_str(),
                (long long)graph.configCount());
            if (measured.size() >= 2) {
                std::printf("  simulated vs measured: Kendall tau-b %.4f, ordered-pair accuracy %.4f\n",
                    kendallTauB(measured, simulated), orderedPairAccuracy(measured, simulated));
                std::printf("  slowdown of the simulator's top-1 / top-5 / top-10 picks: %.4f%% / %.4f%% / %.4f%%\n",
                    100 * topKSlowdown(measured, simulated, 1), 100 * topKSlowdown(measured, simulated, 5),
                    100 * topKSlowdown(measured, simulated, 10));
            }
        } else {
            const std::vector<int64_t> configurable = defaultConfigurableNodes(data.module);
            if (configurable.empty())
                throw InputError(
                    in, "module " + name, "has no configurable node (convolution, dot or reshape) to simulate");
            const LayoutSimulator sim(data.module, configurable, params);
            const NdArray<float> configs = sampleLayoutConfigs(layoutChoices(data.module, configurable), count, sampler,
                seed, in, uint64_t(8) << 30, [&](const float* row) { return sim.runtime(row); });
            {
                std::vector<bool> failed;
                const std::vector<int64_t> ns = sim.measure(configs, seed, &failed);
                graph = featurizeLayout(data, in); // graph-only: structure and configurable nodes
                int64_t kept = 0;
                for (int64_t c = 0; c < configs.dim(0); ++c)
                    kept += !failed[size_t(c)];
                NdArray<float> feat({ kept, graph.configurableCount(), kLayoutConfigFeatures });
                NdArray<int64_t> runtime({ kept });
                for (int64_t c = 0, j = 0; c < configs.dim(0); ++c) {
                    if (failed[size_t(c)])
                        continue;
                    std::copy_n(configs.row(c), configs.rowSize(), feat.row(j));
                    runtime[j++] = ns[size_t(c)];
                }
                graph.nodeConfigFeat = std::move(feat);
                graph.configRuntime = std::move(runtime);
                setPublishedStorage(graph);
                std::printf("module %s: %lld configurations sampled (%s) and simulated, %lld failed; default %s\n",
                    name.c_str(), (long long)configs.dim(0), layoutSamplerName(sampler),
                    (long long)(configs.dim(0) - kept), formatDuration(ns[0]).c_str());
            }
        }
        graph.syntheticMeta = syntheticMetaJson(
            "tgraph simulate", name, data.runs.empty() ? layoutSamplerName(sampler) : "measured configs", seed, params);
        if (graph.configCount() > 0) {
            const auto [lo, hi]
                = std::minmax_element(graph.configRuntime.data(), graph.configRuntime.data() + graph.configCount());
            std::printf("  simulated runtimes %s .. %s\n", formatDuration(*lo).c_str(), formatDuration(*hi).c_str());
        }
        if (!out.empty()) {
            std::string target = out;
            if (toDirectory) {
                std::string base;
                for (char c : name)
                    base += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') ? c : '_';
                target
                    = (fs::path(out) / ((base.empty() ? "module" : base) + "-" + std::to_string(k) + ".npz")).string();
            }
            validate(graph, target, 0);
            saveLayoutGraph(graph, target);
            std::printf("  wrote %s\n", target.c_str());
        }
    }
    return ExitOk;
}

} // namespace

int runSimulate(const std::vector<std::string>& args)
{
    ArgParser p("simulate",
        "Price layout configurations of an HLO module with the analytical cost simulator (docs/simulator.md).\n"
        "A tuning record's measured configurations are priced and compared with the measurements (Kendall\n"
        "tau, ordered-pair accuracy, slowdown of the simulator's picks): the analytical baseline a learned\n"
        "model has to beat. A module without measurements gets sampled configurations with simulated\n"
        "runtimes (marked synthetic), written with -o.",
        "IN [-o OUT.npz|DIR/] [--configs N] [--sampler random|default] [--seed S] [--params LIST]");
    p.addPositional("IN", "HLO text, HloModuleProto / HloProto / HloSnapshot, or a layout tuning record");
    p.addOption(
        "--output", "-o", "OUT", "write the layout graph with simulated runtimes (a directory for several modules)");
    p.addOption(
        "--configs", "", "N", "configurations to sample for a module without measurements", "200", opt::integer(2));
    p.addOption("--sampler", "", "S", "random or default (see tgraph synth --help)", "random",
        opt::oneOf({ LayoutSampler::Random, LayoutSampler::Default }, layoutSamplerName));
    p.addOption("--seed", "", "S", "random seed of sampling and simulated noise", "1", opt::size());
    p.addOption("--params", "", "LIST",
        "simulator parameters to change, name=value[,name=value...] (names: tgraph synth --explain)", {},
        simulatorParamsType());
    if (const int rc = parseOrExit(p, args); rc >= 0)
        return rc;
    if (p.positionals().size() != 1)
        return usageError("simulate", p.positionals().empty() ? "no input file" : "exactly one input file expected");
    return guarded("simulate", simulate, p);
}

} // namespace tgraph::cli
