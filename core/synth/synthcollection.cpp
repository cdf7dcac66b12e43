// SPDX-License-Identifier: Apache-2.0
#include "core/synth/synthcollection.h"

#include "core/graph/graphio.h"
#include "core/hlo/hlotext.h"
#include "core/synth/hlogen.h"
#include "core/util/error.h"
#include "core/util/json.h"
#include "core/util/progress.h"
#include "core/util/version.h"

#include <cmath>
#include <filesystem>
#include <random>

namespace tgraph {

namespace {

namespace fs = std::filesystem;

const char* splitName(int split) { return split == 0 ? "train" : split == 1 ? "valid" : "test"; }

// Graph g of n: the last `test` graphs are the test split, the `valid` before them validation.
int splitOf(int g, int n, const SynthCollectionSpec& spec)
{
    const int test = int(std::lround(n * spec.testShare));
    const int valid = int(std::lround(n * spec.validShare));
    if (g >= n - test)
        return 2;
    if (g >= n - test - valid)
        return 1;
    return 0;
}

template <class Graph> void clearRuntimes(Graph& g)
{
    std::fill_n(g.configRuntime.data(), g.configRuntime.size(), int64_t(0));
}

} // namespace

HloModule generatedModule(const std::string& family, int64_t size, uint64_t seed)
{
    HloGenSpec gen;
    gen.family = family;
    gen.instructions = size;
    gen.seed = seed;
    gen.metadata = false;
    HloTextOptions lean;
    lean.keepAttributes = false;
    return parseHloText(generateHloText(gen), "<generated " + family + ">", lean);
}

std::string syntheticMetaJson(const std::string& generator, const std::string& family, const std::string& sampler,
    uint64_t seed, const SimulatorParams& p)
{
    // One line with a space after ':' and ',', as `tgraph inspect` shows it; every value through
    // nlohmann, so strings are escaped and numbers are exact and free of the C locale.
    const auto v = [](const Json& value) { return jsonText(value, true); };
    return "{\"synthetic\": true, \"generator\": " + v(generator) + ", \"version\": " + v(projectVersion())
        + ", \"family\": " + v(family) + ", \"sampler\": " + v(sampler) + ", \"seed\": " + v(seed)
        + ", \"simulator\": {\"matrixFlops\": " + v(p.matrixFlops) + ", \"vectorFlops\": " + v(p.vectorFlops)
        + ", \"hbmBandwidth\": " + v(p.hbmBandwidth) + ", \"noiseSigma\": " + v(p.noiseSigma)
        + ", \"failureRate\": " + v(p.failureRate) + ", \"vmemBytes\": " + v(p.vmemBytes) + "}}";
}

ModuleTuningData simulateLayoutRuns(HloModule module, const std::vector<int64_t>& configurable,
    const NdArray<float>& configs, const SimulatorParams& params, uint64_t seed)
{
    std::vector<bool> failed;
    std::vector<int64_t> runtimes;
    {
        const LayoutSimulator sim(module, configurable, params);
        runtimes = sim.measure(configs, seed, &failed);
    }
    ModuleTuningData d;
    d.hasModule = true;
    d.module = std::move(module);
    d.configIndexToNode.assign(configurable.begin(), configurable.end());
    const int64_t nc = int64_t(configurable.size());
    for (int64_t c = 0; c < configs.dim(0); ++c) {
        TuningRun run;
        run.config = TuningRun::Config::Module;
        run.isDefault = c == 0;
        run.error = failed[size_t(c)];
        run.hasProfile = !run.error;
        run.computeTimeNs = run.error ? 0 : runtimes[size_t(c)];
        run.layoutNodes.resize(size_t(nc));
        for (int64_t k = 0; k < nc; ++k) {
            const float* row = &configs(c, k, 0);
            auto& tensors = run.layoutNodes[size_t(k)];
            tensors.resize(3);
            for (int t = 0; t < 3; ++t)
                for (int i = 0; i < 6 && row[6 * t + i] >= 0; ++i)
                    tensors[size_t(t)].push_back(int32_t(row[6 * t + i]));
        }
        d.runs.push_back(std::move(run));
    }
    return d;
}

SynthCollectionResult writeSynthCollection(
    const SynthCollectionSpec& spec, const std::string& dir, ProgressSink* progress)
{
    const std::vector<std::string> families = spec.families.empty() ? hloGenFamilies() : spec.families;
    if (spec.graphs < 1 || spec.configs < 2)
        throw InputError(dir, "", "a collection needs at least 1 graph and 2 configurations per graph");
    if (spec.minInstructions < 50 || spec.maxInstructions < spec.minInstructions)
        throw InputError(dir, "", "module sizes must satisfy 50 <= min <= max");
    for (int split = 0; split < 3; ++split) {
        std::error_code ec;
        fs::create_directories(fs::path(dir) / splitName(split), ec);
        if (ec)
            throw InputError(dir, "", "cannot create the output directory: " + ec.message());
    }
    SynthCollectionResult result;
    std::mt19937_64 rng(spec.seed);
    std::uniform_int_distribution<int64_t> size(spec.minInstructions, spec.maxInstructions);
    ProgressScope scope(progress,
        spec.kind == GraphKind::Layout ? "simulating layout graphs" : "simulating tile kernels", uint64_t(spec.graphs));
    auto record = [&](int split, const std::string& name) {
        result.files.push_back(std::string(splitName(split)) + "/" + name);
        (split == 0 ? result.train : split == 1 ? result.valid : result.test)++;
    };

    if (spec.kind == GraphKind::Layout) {
        for (int g = 0; g < spec.graphs; ++g) {
            const std::string& family = families[size_t(g) % families.size()];
            const uint64_t seed = spec.seed * 1000003u + uint64_t(g);
            HloModule module = generatedModule(family, size(rng), seed);
            const std::vector<int64_t> configurable = defaultConfigurableNodes(module);
            const std::string name = family + "_" + std::to_string(g) + ".npz";
            const std::string path = (fs::path(dir) / splitName(splitOf(g, spec.graphs, spec)) / name).string();
            if (configurable.empty())
                throw InputError(path, "", "generated module has no configurable node");
            NdArray<float> configs;
            {
                const LayoutSimulator guide(module, configurable, spec.params); // steers the default sampler's search
                configs = sampleLayoutConfigs(layoutChoices(module, configurable), spec.configs, spec.sampler, seed,
                    path, uint64_t(8) << 30, [&](const float* row) { return guide.runtime(row); });
            }
            const ModuleTuningData data
                = simulateLayoutRuns(std::move(module), configurable, configs, spec.params, seed);
            LayoutGraph graph = featurizeLayout(data, path);
            graph.syntheticMeta
                = syntheticMetaJson("tgraph synth", family, layoutSamplerName(spec.sampler), seed, spec.params);
            const int split = splitOf(g, spec.graphs, spec);
            if (split == 2)
                clearRuntimes(graph); // like the published test split
            saveLayoutGraph(graph, path);
            result.configs += graph.configCount();
            record(split, name);
            scope.advanceTo(uint64_t(g + 1));
        }
        return result;
    }

    // Tile collection: the fused kernels of generated modules, one graph per kernel.
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::normal_distribution<double> noise(0.0, 1.0);
    int made = 0;
    for (int m = 0; made < spec.graphs && m < spec.graphs * 20; ++m) {
        const std::string& family = families[size_t(m) % families.size()];
        const uint64_t seed = spec.seed * 1000003u + uint64_t(m);
        const HloModule module = generatedModule(family, size(rng), seed);
        int fromThisModule = 0; // at most 3 kernels per module, spread over it, for variety
        const size_t stride = std::max<size_t>(1, module.computations.size() / 4);
        for (size_t c = 0; c < module.computations.size() && made < spec.graphs && fromThisModule < 3; c += stride) {
            const HloComputation& comp = module.computations[c];
            if (comp.name.find("fused") == std::string_view::npos)
                continue;
            ModuleTuningData data;
            data.hasModule = true;
            data.module = extractComputation(module, c);
            const TileSimulator sim(data.module, spec.params);
            if (!sim.tileable())
                continue;
            const std::vector<TileChoice> choices = sim.candidates(spec.configs, seed + c);
            if (choices.size() < 2)
                continue;
            for (size_t k = 0; k < choices.size(); ++k) {
                TuningRun run;
                run.config = TuningRun::Config::Op;
                run.hasTileSizeConfig = true;
                run.tile.outputBounds = choices[k].outputBounds;
                run.tile.kernelBounds = choices[k].kernelBounds;
                run.isDefault = k == 0;
                const double ns = sim.runtime(choices[k]);
                run.error = ns < 0 || (k > 0 && unit(rng) < spec.params.failureRate);
                run.hasProfile = !run.error;
                run.computeTimeNs = run.error
                    ? 0
                    : std::max<int64_t>(2, std::llround(ns * std::exp(spec.params.noiseSigma * noise(rng))));
                data.runs.push_back(std::move(run));
            }
            const int split = splitOf(made, spec.graphs, spec);
            const std::string name = family + "_" + std::to_string(m) + "_" + std::string(comp.name) + ".npz";
            const std::string path = (fs::path(dir) / splitName(split) / name).string();
            TileGraph graph = featurizeTile(data, path);
            graph.syntheticMeta = syntheticMetaJson("tgraph synth", family, "tile", seed, spec.params);
            if (split == 2) {
                clearRuntimes(graph);
                std::fill_n(graph.configRuntimeNormalizers.data(), graph.configRuntimeNormalizers.size(), int64_t(0));
            }
            saveTileGraph(graph, path);
            result.configs += graph.configCount();
            record(split, name);
            ++made;
            ++fromThisModule;
            scope.advanceTo(uint64_t(made));
        }
    }
    if (made < spec.graphs)
        throw InputError(dir, "", "the generators gave only " + std::to_string(made) + " tileable kernels");
    return result;
}

} // namespace tgraph
