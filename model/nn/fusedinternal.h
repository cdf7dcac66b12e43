// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the autograd functions around the fused kernels share (fusedops.cpp, recomputedblock.cpp):
// not part of the model's interface.

#include "model/nn/fusedkernels.h"
#include "model/nn/layers.h"

#include <torch/torch.h>

#include <cstdint>

namespace tgraph::model::fused {

// Throws unless t is a (N, C, F) float32 CPU tensor.
void checkActivation(const torch::Tensor& t, const char* what);
// One 64-bit draw from LibTorch's default CPU generator: the dropout mask follows its state (and so
// torch::manual_seed and the checkpointed RNG state), as ATen's own dropout does.
uint64_t drawSeed();
// The kernel's view of a gated layer tail: x (N, C, F) and z contiguous float32; residual and
// temperature may be undefined.
kernels::GateActivation describe(const torch::Tensor& h, const torch::Tensor& z, const torch::Tensor& residual,
    const torch::Tensor& temperature, bool residualAfterActivation, double dropout, uint64_t seed);
kernels::EdgeLists edgeLists(const EdgeTensors& e);

// InstanceNorm (layers.h, instanceNormNodes) statistics of h (N, C, F), contiguous: per (config,
// channel) column, the mean over nodes and 1 / sqrt(biased variance + 1e-5), (C F,) each, summed
// in double (kernels::columnMoments). A single node gives exact zeros, as instanceNormNodes does.
struct Moments
{
    torch::Tensor mean;
    torch::Tensor invStd;
};
Moments momentsOf(const torch::Tensor& h);

// A gate's hidden layer ReLU(W1 x + b1) for x (N, C, F) contiguous: (N C, F / r).
torch::Tensor gateHidden(const torch::Tensor& x, const torch::Tensor& w1, const torch::Tensor& b1);

// The gate's z = W2 ReLU(W1 x + b1), without b2, for x (N, C, F) contiguous: (N C, F). Without
// gradients only: kernels::gateProducts in one pass, or ATen's products for shapes it has no
// kernel for (the passes with gradients keep ATen's products, which their backward passes and
// recomputations repeat bit for bit).
torch::Tensor gateLogits(const torch::Tensor& x, const torch::Tensor& w1, const torch::Tensor& b1, const torch::Tensor& w2);

// The backward pass of the gate's products z = W2 gateHidden(x), from dLoss/dz (N C, F): the
// gradients of W1, b1 and W2, and the W1 path's input gradient added into gradX (N, C, F).
struct GateProductGradients
{
    torch::Tensor w1, b1, w2;
};
GateProductGradients gateProductsBackward(const torch::Tensor& gradZ, const torch::Tensor& hidden,
    const torch::Tensor& x, const torch::Tensor& w1, const torch::Tensor& w2, const torch::Tensor& gradX);
// The same for some rows of the layer (gradZ, hidden, x and gradX of those rows), the parameters'
// gradients added into `sums` (defined, of the parameters' shapes).
void addGateProductGradients(const torch::Tensor& gradZ, const torch::Tensor& hidden, const torch::Tensor& x,
    const torch::Tensor& w1, const torch::Tensor& w2, const torch::Tensor& gradX, GateProductGradients& sums);

} // namespace tgraph::model::fused
