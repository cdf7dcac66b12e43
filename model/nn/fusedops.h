// SPDX-License-Identifier: Apache-2.0
#pragma once

// The fused kernels of fusedkernels.h as LibTorch autograd functions, used by the TGraph layers
// (layers.cpp; attention maps are computed beside them, so scores do not depend on asking for maps). Same values as the
// composed ATen ops (to float rounding: tst_model compares both, forward and gradients); the dropout mask differs from
// ATen's bernoulli_ stream but has the same distribution and is reproducible from the default
// generator's state (one 64-bit draw per call).

#include "model/nn/configwindow.h"
#include "model/nn/layers.h"

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

// The tail of a TGraph layer in one autograd function: out = GELU(y) (no residual),
// Dropout(GELU(residual + y)) (code order) or Dropout(residual + GELU(y))
// (`residualAfterActivation`, paper order), where y = g (no temperature) or [g, g * softmax over
// configs of g / temperature], g = x * sigmoid(z) and z = linear2(ReLU(linear1(x))) of `gate`
// (the layer's ChannelGate). x: (N, C, F) float32; residual: (N, C, F or 2F) or undefined;
// temperature: 0-d or undefined; dropout applies only when `training` and p > 0, its mask keyed by
// the rows' place in the whole batch `window` says x belongs to (configwindow.h). The gate's
// products run through BLAS; z's bias, everything element-wise and the bias gradients run in the
// fused kernel.
torch::Tensor gatedLayer(const torch::Tensor& x, const ChannelGateImpl& gate, const torch::Tensor& residual,
    const torch::Tensor& temperature, bool residualAfterActivation, double dropout, bool training,
    const ConfigWindow& window = {});

// The SAGE layer (SageConvImpl::forward's value): one (in -> 2W) product for lin_l and lin_r,
// then out[i] = W_r h_i + b_l + mean of W_l h_j over the nodes j sending to i. Returns (N, C, W).
torch::Tensor sageLayer(const torch::Tensor& h, const SageConvImpl& conv, const EdgeTensors& edges);

// Embedding bag in sum mode: out[b] = sum over s of table[index[b, s]]; index (B, S) int64 in
// range (checked), table (R, W) float32. Gradient to the table only.
torch::Tensor bagSum(const torch::Tensor& index, const torch::Tensor& table);

} // namespace tgraph::model
