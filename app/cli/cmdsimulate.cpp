// SPDX-License-Identifier: Apache-2.0
#include "argparser.h"
#include "commands.h"
#include "sharedoptions.h"
#include "terminalprogress.h"

#include "core/graph/graphio.h"
#include "core/hlo/hloinput.h"
#include "core/metrics/metrics.h"
#include "core/synth/simulatedgraph.h"
#include "core/util/error.h"
#include "core/util/format.h"

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
        SimulatedGraph simulated = simulateModuleGraph(data, in, count, sampler, seed, params);
        LayoutGraph& graph = simulated.graph;
        if (simulated.measuredConfigs) {
            const std::vector<double>& measured = simulated.measuredNs;
            const std::vector<double>& sim = simulated.simulatedNs;
            std::printf("module %s: %lld measured configurations priced by the simulator\n", name.c_str(),
                (long long)graph.configCount());
            if (measured.size() >= 2) {
                std::printf("  simulated vs measured: Kendall tau-b %.4f, ordered-pair accuracy %.4f\n",
                    kendallTauB(measured, sim), orderedPairAccuracy(measured, sim));
                std::printf("  slowdown of the simulator's top-1 / top-5 / top-10 picks: %.4f%% / %.4f%% / %.4f%%\n",
                    100 * topKSlowdown(measured, sim, 1), 100 * topKSlowdown(measured, sim, 5),
                    100 * topKSlowdown(measured, sim, 10));
            }
        } else {
            std::printf("module %s: %lld configurations sampled (%s) and simulated, %lld failed; default %s\n",
                name.c_str(), (long long)simulated.sampled, layoutSamplerName(sampler), (long long)simulated.failed,
                formatDuration(simulated.defaultNs).c_str());
        }
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
