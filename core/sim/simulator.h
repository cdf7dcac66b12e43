// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/hlo/hlomodule.h"
#include "core/io/ndarray.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tgraph {

// Every parameter of the analytical TPU-like cost simulator, in one place (docs/simulator.md
// explains the model; `tgraph synth --explain` prints them). Runtimes are synthetic: they have the
// structure of real layout/tile effects, not the numbers of any real chip.
struct SimulatorParams
{
    // machine
    double matrixFlops = 61.5e12; // peak of the matrix units (bf16/f32 on the MXU), FLOP/s
    double vectorFlops = 3.8e12; // element-wise work on the vector unit, FLOP/s
    double hbmBandwidth = 900e9; // bytes/s
    int laneTile = 128; // the minor-most dim is padded to a multiple of this
    int sublaneTile32 = 8; // the second-minor dim: 8 rows for 32-bit types (16 for 16-bit, 32 for 8-bit)
    double opOverheadNs = 150.0; // fixed cost of every executed kernel or op
    // layouts
    double matrixGoodEfficiency = 0.85; // conv/dot with feature/contracting dims minor
    double matrixPenalty = 0.55; // multiplied once per operand or output whose layout puts them elsewhere
    double copyEfficiency = 0.5; // a transposing copy moves data at this share of the bandwidth
    // control flow
    int64_t defaultTripCount = 10; // while loops without a known trip count
    // measurement
    double noiseSigma = 0.004; // multiplicative log-normal noise of a "measurement"
    double failureRate = 0.01; // share of non-default configs whose "compilation fails" (error runs)
    // tile model
    double vmemBytes = 16.0 * 1024 * 1024; // on-chip scratchpad; tiles (double-buffered) must fit
    double tileOverheadNs = 350.0; // fixed cost per tile (DMA setup, loop)

    // One "name = value  (meaning)" line per parameter.
    std::string explain() const;
    // Sets parameters from "name=value[,name=value...]" (names as explain() prints them). False with
    // `error` set for an unknown name, a malformed or out-of-range value; unchanged then.
    bool assign(const std::string& assignments, std::string* error);
};

// The cost of the layout configurations of one module. Prepared once per module (shapes, layouts,
// execution counts of while bodies, fused kernels); a config is then priced by re-costing only the
// configurable nodes and their neighbours.
class LayoutSimulator
{
public:
    LayoutSimulator(const HloModule& module, std::vector<int64_t> configurableNodes, SimulatorParams params = {});
    ~LayoutSimulator();
    LayoutSimulator(const LayoutSimulator&) = delete;
    LayoutSimulator& operator=(const LayoutSimulator&) = delete;

    // Noise-free runtime in ns of one config row (Nc x 18 layout values, -1 = compiler default).
    double runtime(const float* configRow) const;
    // Per instruction (node position -> ns, counting while trip counts), for explanations.
    std::vector<double> breakdown(const float* configRow) const;
    // Per configurable node k (config order): `own[k]` = ns of the node itself, `region[k]` = ns of
    // every instruction its layout reaches (the node, the ops that follow its layout, their
    // consumers), both counting while trip counts; nullptr row = every layout the compiler's. Returns
    // the runtime (as runtime()). `own` and `region` hold one value per configurable node.
    double configurableCosts(const float* configRow, double* own, double* region) const;

    // Simulated measurements of config rows (C, Nc, 18): noise and failures, deterministic for a
    // seed. Row 0 is taken as the compiler default and never fails. failed[c] marks error runs.
    std::vector<int64_t> measure(const NdArray<float>& configs, uint64_t seed, std::vector<bool>* failed) const;

    const SimulatorParams& params() const { return m_params; }
    int64_t configurableCount() const;

private:
    struct Impl;
    Impl* m_impl;
    SimulatorParams m_params;
};

// Tile sizes of one fused kernel (docs/formats.md §5.2 terms): output_bounds = the output
// tile per dimension; kernel_bounds = the number of tiles per dimension.
struct TileChoice
{
    std::vector<int64_t> outputBounds;
    std::vector<int64_t> kernelBounds;
};

// The tile-size model of one kernel (a module whose entry computation is the fused kernel).
class TileSimulator
{
public:
    TileSimulator(const HloModule& kernel, SimulatorParams params = {});

    // Up to `count` distinct valid tile choices (minor-most dim a multiple of 128, second-minor of 8,
    // others powers of two, or full dims), the compiler's default first: the largest tile that fits
    // half the scratchpad.
    std::vector<TileChoice> candidates(int64_t count, uint64_t seed) const;
    // Noise-free ns; -1 when the tile does not fit the scratchpad (the config fails).
    double runtime(const TileChoice& tile) const;
    bool tileable() const { return !m_outputDims.empty(); }

private:
    double tileTime(const TileChoice& tile, double vmemBytes) const;

    SimulatorParams m_params;
    std::vector<int64_t> m_outputDims;
    int64_t m_elementBytes = 4;
    double m_inputBytesPerOutput = 0; // operand bytes read per output element
    double m_flopsPerOutput = 0;
    bool m_matrix = false; // contains a convolution or dot
};

} // namespace tgraph
