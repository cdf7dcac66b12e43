// SPDX-License-Identifier: Apache-2.0
#pragma once

// The fused kernels of fusedkernels.h as LibTorch autograd functions, used by the TGraph layers
// (layers.cpp; attention maps are computed beside them, so scores do not depend on asking for maps). Same values as the
// composed ATen ops (to float rounding: tst_model compares both, forward and gradients); the dropout mask differs from
// ATen's bernoulli_ stream but has the same distribution and is reproducible from the default
// generator's state (one 64-bit draw per call).

#include "layers.h"

#include <torch/torch.h>

namespace tgraph::model {

// On by default; TGRAPH_FUSED=0 in the environment turns the fused path off (A/B runs); tests
// switch it directly.
bool fusedKernelsEnabled();
void setFusedKernelsEnabled(bool enabled);
// Enabled, and h is float32 on the CPU (double precision, as the explain view uses, takes the
// composed ops).
bool useFusedKernels(const torch::Tensor& h);
// "avx512", "avx2" or "baseline": the instruction set the kernels use on this machine.
const char* fusedKernelTarget();

// out = GELU(y) (no residual), Dropout(GELU(residual + y)) (code order) or Dropout(residual +
// GELU(y)) (`residualAfterActivation`, paper order), where y = x (no temperature) or [x, x *
// softmax over configs of x / temperature] and x = h * sigmoid(z). h, z: (N, C, F) float32;
// residual: (N, C, F or 2F) or undefined; temperature: 0-d or undefined; dropout applies only
// when `training` and p > 0.
torch::Tensor gatedActivation(const torch::Tensor& h, const torch::Tensor& z, const torch::Tensor& residual,
    const torch::Tensor& temperature, bool residualAfterActivation, double dropout, bool training);

// SAGE mean aggregation on a combined projection (N, C, 2W) whose first W channels are the
// messages and last W the root term: out[i] = root[i] + mean of the messages of the nodes
// sending to i. Returns (N, C, W).
torch::Tensor sageMean(const torch::Tensor& combined, const EdgeTensors& edges);

} // namespace tgraph::model
