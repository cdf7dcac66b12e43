// SPDX-License-Identifier: Apache-2.0
#pragma once

// Fused element-wise kernels of the TGraph layers (issue 6: the model's element-wise passes over
// (N, C, F) activations cost as much as its matrix products). Plain loops over float arrays, one
// pass over memory where the composed ATen ops take 5-10, parallel over nodes, vectorized by the
// compiler for AVX-512, AVX2 + FMA or plain x86-64 (chosen at run time). No torch types here;
// model/nn/fusedops.h wraps them as autograd functions. Every result depends only on the inputs and
// the dropout seed, never on the thread count (sums run in a fixed order inside one node).
//
// Activation layout: (N, C, F) row-major = nodes x configs x channels, as in layers.h.

#include <cstdint>

namespace tgraph::model::kernels {

// The gated activation that ends every TGraph layer (docs/model.md §3.1-§3.2):
//   x = h * sigmoid(z)                          ChannelGate, z = W2 ReLU(W1 h + b1) + b2
//   y = [x, x * softmax_C(x / T)]   (cross)     CrossConfigAttention, or y = x without it
//   out = GELU(y)                               f_in layers (no residual)
//   out = Dropout(GELU(s + y))                  graph block, code order (s = block input)
//   out = Dropout(s + GELU(y))                  graph block, paper order (residualAfterActivation)
// GELU is the exact (erf) one. Dropout keeps an element with probability 1 - p and scales it by
// 1 / (1 - p); whether element i is kept is a hash of (seed, i), so the backward pass recomputes
// the mask instead of storing it. The row of i is counted in the whole batch the configs belong
// to (configOffset, configTotal), so a batch scored in config chunks draws the masks the whole
// batch draws (docs/model.md §11, "Config chunks").
struct GateActivation
{
    int64_t nodes = 0;
    int64_t configs = 0;
    int64_t width = 0; // F: channels of h and z; out and s have F (no cross) or 2F (cross)
    const float* h = nullptr;
    const float* z = nullptr;
    const float* zBias = nullptr; // (F,) added to z (the gate's last bias)
    const float* residual = nullptr; // s, or null (f_in layers)
    bool residualAfterActivation = false;
    bool cross = false;
    float temperature = 1.0f; // raw T (code: no positivity constraint)
    float dropout = 0.0f; // p; 0 = none (eval mode)
    uint64_t seed = 0;
    // These `configs` are configs configOffset .. configOffset + configs - 1 of a batch of
    // configTotal (0 = this batch alone): dropout keys take row node * configTotal + configOffset + k.
    int64_t configOffset = 0;
    int64_t configTotal = 0;
    // These `nodes` are nodes nodeOffset .. nodeOffset + nodes - 1 of the layer (h, z, residual and
    // the gradients then point at the first of them): dropout keys take the node's place in the layer.
    int64_t nodeOffset = 0;

    int64_t outWidth() const { return cross ? 2 * width : width; }
};

// out: (N, C, outWidth).
void gateActivationForward(const GateActivation& a, float* out);

// Gradients of the above from gradOut (N, C, outWidth): gradH and gradZ (N, C, F), gradResidual
// (N, C, outWidth, may be null when there is no residual), gradZBias (F,) = gradZ summed over
// nodes and configs. Returns dLoss/dT (0 without cross). gradZ may be a.z and gradResidual may be
// gradOut (written in place: a node's z and an element of gradOut are read before the gradients
// that overwrite them are written).
double gateActivationBackward(
    const GateActivation& a, const float* gradOut, float* gradH, float* gradZ, float* gradResidual, float* gradZBias);

// The ChannelGate's two products for `rows` rows of F = `width` channels: hidden = ReLU(x W1^T + b1)
// (rows, R) and z = hidden W2^T (rows, F); the last bias b2 stays with GateActivation::zBias.
// w1t is W1 transposed, (F, R); w2t is W2 transposed, (R, F); hidden may be null. One pass over x
// instead of three BLAS calls, whose products are inefficient at R = F / 8 channels. Each row's
// values depend only on the row, never on the thread count. Returns false, and writes nothing,
// for shapes without a kernel (R other than 16 or 32, F not a multiple of 16).
bool gateProducts(int64_t rows, int64_t width, int64_t reduced, const float* x, const float* w1t, const float* b1,
    const float* w2t, float* hidden, float* z);

// Edges as two compressed adjacency lists, built once per forward (prepareEdges in layers.h).
struct EdgeLists
{
    int64_t nodes = 0;
    // Messages into node i: sources inSource[inBegin[i] .. inBegin[i + 1]), in edge order.
    const int64_t* inBegin = nullptr;
    const int64_t* inSource = nullptr;
    // Messages out of node j: targets outTarget[outBegin[j] .. outBegin[j + 1]), in edge order.
    const int64_t* outBegin = nullptr;
    const int64_t* outTarget = nullptr;
    const float* inverseDegree = nullptr; // (N,): 1 / max(messages into the node, 1)
};

// SAGE with mean aggregation on a combined projection p (N, C, 2W): p[..., :W] = W_l h (the
// messages), p[..., W:] = W_r h (the root term). out[i] = p[i, :, W:] + bias + mean_{j in in(i)}
// p[j, :, :W]; out (N, C, W); bias (W,).
void sageMeanForward(const EdgeLists& e, int64_t configs, int64_t width, const float* p, const float* bias, float* out);
// gradP (N, C, 2W) from gradOut (N, C, W); gradBias (W,) = gradOut summed over nodes and configs.
void sageMeanBackward(
    const EdgeLists& e, int64_t configs, int64_t width, const float* gradOut, float* gradP, float* gradBias);

// Instance norm over nodes, column by column, for activations read a few configs at a time
// (recomputedblock.h). x holds `rows` rows of `cols` floats, `stride` floats apart. mean and
// invStd (cols,): each column's mean and 1 / sqrt(biased variance + eps), summed in double over
// fixed chunks of rows added in order, whatever the thread count (two passes: the variance is taken
// around the float mean).
void columnMoments(int64_t rows, int64_t cols, int64_t stride, const float* x, float eps, float* mean, float* invStd);
// out (rows, cols), contiguous: (x - mean) * invStd.
void normalizeColumns(int64_t rows, int64_t cols, int64_t stride, const float* x, const float* mean,
    const float* invStd, float* out);
// The input gradient of that normalization, from the output y (rows, cols) and its gradient g
// (rows, cols), added to (`accumulate`) or written into out (rows of `outStride` floats):
// out[i, j] (+)= invStd[j] * (g[i, j] - mean_i g[., j] - y[i, j] * mean_i (g y)[., j]).
// When written, out may be g or y (each element is read before it is written).
void normalizeColumnsBackward(int64_t rows, int64_t cols, const float* g, const float* y, const float* invStd,
    float* out, int64_t outStride, bool accumulate);

// The SAGE layer's input for nodes begin .. end - 1 of a layer read a node at a time (node-sliced
// scoring, slicedscoring.h): rowOf[j] points at node j's (C, F) input row. out (end - begin, C, 2F):
// out[i - begin, k] = [ (mean over j in in(i) of rowOf[j][k] - mean[k]) * invStd[k] (zeros for a
// node without messages), (rowOf[i][k] - mean[k]) * invStd[k] ], with mean and invStd (C F,) the
// instance norm's statistics: the normalized mean of the messages beside the normalized row, so
// that one product with [W_l, W_r] gives the layer (the mean is linear).
void sageInputRows(const EdgeLists& e, int64_t begin, int64_t end, int64_t configs, int64_t width,
    const float* const* rowOf, const float* mean, const float* invStd, float* out);
// acc[j] += the sum over the `rows` rows of x (rows x cols, contiguous) of x[i, j], summed in double
// over fixed chunks of rows added in order, whatever the thread count.
void addColumnSums(int64_t rows, int64_t cols, const float* x, double* acc);

// Sums of table rows ("embedding bag", sum mode): out[b] = sum over s of table[index[b * slots + s]]
// (bags x width). The backward pass adds each bag's gradient to the rows it used (gradTable,
// tableRows x width, overwritten); both split the work so that every sum runs in bag order.
void bagSumForward(int64_t bags, int64_t slots, int64_t width, const int64_t* index, const float* table, float* out);
void bagSumBackward(int64_t bags, int64_t slots, int64_t width, int64_t tableRows, const int64_t* index,
    const float* gradOut, float* gradTable);

// float32 -> bfloat16 (the upper 16 bits, rounded to nearest even; NaN stays NaN) of `count`
// floats, on LibTorch's threads: the conversion of a product's inputs (products.h), one pass.
void toBf16(int64_t count, const float* in, uint16_t* out);

// The keep decision of the dropout above for column `column` of row `row` (= node * C + config,
// C and config counted in the whole batch) of the output (exposed for tests).
bool dropoutKeeps(uint64_t seed, uint64_t row, uint32_t column, float p);

// Which instruction set the kernels run with on this machine: "avx512", "avx2" or "baseline".
const char* kernelTarget();

// On how many threads the kernels' work splits: the distinct threads an at::parallel_for of
// `tasks` one-item tasks ran on (at most at::get_num_threads()). Exposed for tests.
int parallelThreads(int64_t tasks);

} // namespace tgraph::model::kernels
