// SPDX-License-Identifier: Apache-2.0
#include "model/nn/fusedkernels.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <vector>

// at::parallel_for is a template whose OpenMP implementation (Debian's ATen: AT_PARALLEL_OPENMP)
// is a `#pragma omp parallel` compiled here: without -fopenmp (model/nn/CMakeLists.txt) it would
// quietly run every kernel on one thread.
#if AT_PARALLEL_OPENMP && !defined(_OPENMP)
#error "fusedkernels.cpp must be compiled with OpenMP: ATen's parallel_for is OpenMP here"
#endif

// Each per-node worker is compiled three times (AVX-512, AVX2 + FMA, plain x86-64) and the
// loader picks the best one for the CPU (GCC function multi-versioning). The inner loops run over
// the channels of one (node, config) row and are written branch-free so that they vectorize.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define TGRAPH_KERNEL_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define TGRAPH_KERNEL_CLONES
#endif
#define TGRAPH_INLINE inline __attribute__((always_inline))

namespace tgraph::model::kernels {

namespace {

// --- scalar math the vectorizer can handle (no calls into libm) -----------------------------

// e^x for x in float range: x = n ln2 + r with |r| <= ln2 / 2, e^r by a degree-6 polynomial
// (the Cephes single-precision coefficients, ~1 ulp), 2^n put into the exponent bits. Arguments
// are clamped to [-87, 88]: below, the result is ~1e-38 instead of a denormal or 0.
TGRAPH_INLINE float expApprox(float x)
{
    x = x < -87.0f ? -87.0f : (x > 88.0f ? 88.0f : x);
    // Round x / ln2 to the nearest integer with the 1.5 * 2^23 trick (no floor/round call).
    const float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
    float r = x - n * 0.693359375f;
    r = r - n * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    const float er = p * r * r + r + 1.0f;
    const int32_t bits = (int32_t(n) + 127) << 23;
    float scale;
    std::memcpy(&scale, &bits, sizeof scale);
    return er * scale;
}

TGRAPH_INLINE float sigmoid(float z) { return 1.0f / (1.0f + expApprox(-z)); }

constexpr float kInvSqrt2 = 0.70710678118654752f;
constexpr float kInvSqrt2Pi = 0.39894228040143268f;

// Phi(u) = (1 + erf(u / sqrt 2)) / 2 and phi(u) = e^(-u^2 / 2) / sqrt(2 pi), with erf from
// Abramowitz & Stegun 7.1.26 (absolute error <= 1.5e-7).
TGRAPH_INLINE void normalCdfPdf(float u, float& cdf, float& pdf)
{
    const float x = u * kInvSqrt2;
    const float ax = x < 0.0f ? -x : x;
    const float t = 1.0f / (1.0f + 0.3275911f * ax);
    float p = 1.061405429f;
    p = p * t - 1.453152027f;
    p = p * t + 1.421413741f;
    p = p * t - 0.284496736f;
    p = p * t + 0.254829592f;
    const float gauss = expApprox(-x * x); // e^(-u^2 / 2)
    const float erfAbs = 1.0f - p * t * gauss;
    const float erf = x < 0.0f ? -erfAbs : erfAbs;
    cdf = 0.5f * (1.0f + erf);
    pdf = kInvSqrt2Pi * gauss;
}

// GELU (exact form) and its derivative Phi(u) + u phi(u).
TGRAPH_INLINE float gelu(float u)
{
    float cdf, pdf;
    normalCdfPdf(u, cdf, pdf);
    return u * cdf;
}

TGRAPH_INLINE float geluGrad(float u)
{
    float cdf, pdf;
    normalCdfPdf(u, cdf, pdf);
    return cdf + u * pdf;
}

// --- dropout -------------------------------------------------------------------------------

// 32-bit integer mixer (the "lowbias32" constants): a bijection with good avalanche.
TGRAPH_INLINE uint32_t mix32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

// A row's key: depends on the seed and the row (node * C + config); elements of the row then
// differ by column.
uint32_t rowKey(uint64_t seed, uint64_t row)
{
    const uint32_t a = mix32(uint32_t(row) ^ uint32_t(seed));
    return mix32(a ^ mix32(uint32_t(row >> 32) + uint32_t(seed >> 32) + 0x9e3779b9u));
}

// The row a dropout key is taken from for config k of node i: node * total + offset + k, with the
// batch's place in a larger one (GateActivation::configOffset / configTotal), so that a batch of
// configs split into chunks draws the masks the whole batch draws.
TGRAPH_INLINE uint64_t dropoutRow(const GateActivation& a, int64_t node, int64_t k)
{
    const int64_t total = a.configTotal > 0 ? a.configTotal : a.configs;
    return uint64_t((a.nodeOffset + node) * total + a.configOffset + k);
}

TGRAPH_INLINE uint32_t elementHash(uint32_t key, uint32_t column) { return mix32(key + column * 0x9e3779b9u); }

// keep <=> the top 24 bits of the hash >= p * 2^24.
uint32_t dropThreshold(float p) { return uint32_t(std::lround(double(p) * 16777216.0)); }

struct Dropout
{
    uint64_t seed = 0;
    uint32_t threshold = 0;
    float scale = 1.0f;
};

// 1 / (1 - p) for a kept element, 0 for a dropped one (a select between two constants, which
// the vectorizer turns into a blend).
TGRAPH_INLINE float dropFactor(uint32_t key, uint32_t column, uint32_t threshold, float scale)
{
    return (elementHash(key, column) >> 8) >= threshold ? scale : 0.0f;
}

// --- gated activation ----------------------------------------------------------------------

enum class Mode { Plain, Code, Paper }; // no residual; GELU(s + y); s + GELU(y)

template <Mode M> TGRAPH_INLINE float activate(float s, float y)
{
    if constexpr (M == Mode::Plain)
        return gelu(y);
    else if constexpr (M == Mode::Code)
        return gelu(s + y);
    else
        return s + gelu(y);
}

// d = dLoss/dout already multiplied by the dropout factor. Returns dLoss/dy; *ds = dLoss/ds.
template <Mode M> TGRAPH_INLINE float activateGrad(float s, float y, float d, float& ds)
{
    if constexpr (M == Mode::Plain) {
        ds = 0.0f;
        return d * geluGrad(y);
    } else if constexpr (M == Mode::Code) {
        const float dy = d * geluGrad(s + y);
        ds = dy;
        return dy;
    } else {
        ds = d;
        return d * geluGrad(y);
    }
}

// One output row segment: out[k] = dropout(activate(s[k], y[k])) for k < n, columns col0 + k.
template <Mode M, bool Drop>
TGRAPH_INLINE void writeRow(
    const float* s, const float* y, float* out, int64_t n, uint32_t key, uint32_t col0, const Dropout& drop)
{
    const uint32_t threshold = drop.threshold; // locals: no loads under a condition in the loop
    const float scale = drop.scale;
    for (int64_t k = 0; k < n; ++k) {
        const float v = activate<M>(M == Mode::Plain ? 0.0f : s[k], y[k]);
        if constexpr (Drop)
            out[k] = v * dropFactor(key, col0 + uint32_t(k), threshold, scale);
        else
            out[k] = v;
    }
}

// x = h * sigmoid(z + zb) for one row.
TGRAPH_INLINE void gateRow(
    const float* __restrict h, const float* __restrict z, const float* __restrict zb, float* __restrict x, int64_t f)
{
    for (int64_t j = 0; j < f; ++j)
        x[j] = h[j] * sigmoid(z[j] + zb[j]);
}

// Adds row into acc (per-node sums of the gate bias' gradient).
TGRAPH_INLINE void addRow(const float* __restrict row, float* __restrict acc, int64_t f)
{
    for (int64_t j = 0; j < f; ++j)
        acc[j] += row[j];
}

template <Mode M, bool Drop>
TGRAPH_INLINE void forwardPlainNodes(
    const GateActivation& a, const Dropout& drop, float* out, int64_t begin, int64_t end, float* x)
{
    const int64_t c = a.configs;
    const int64_t f = a.width;
    for (int64_t i = begin; i < end; ++i) {
        for (int64_t k = 0; k < c; ++k) {
            const int64_t row = i * c + k;
            const float* h = a.h + row * f;
            const float* z = a.z + row * f;
            gateRow(h, z, a.zBias, x, f);
            const uint32_t key = Drop ? rowKey(drop.seed, dropoutRow(a, i, k)) : 0;
            writeRow<M, Drop>(M == Mode::Plain ? nullptr : a.residual + row * f, x, out + row * f, f, key, 0, drop);
        }
    }
}

// Cross-config softmax of one node: x (C, F) = h * sigmoid(z + b), then e (C, F) = softmax over the
// configs of x / T, column by column. Leaves x, g (the gate) and e = the softmax weights.
TGRAPH_INLINE void gateMaxRow(const float* __restrict h, const float* __restrict z, const float* __restrict zb,
    float* __restrict x, float* __restrict g, float* __restrict colMax, float t, int64_t f)
{
    for (int64_t j = 0; j < f; ++j) {
        const float gate = sigmoid(z[j] + zb[j]);
        const float v = h[j] * gate;
        g[j] = gate;
        x[j] = v;
        const float l = v / t;
        const float m = colMax[j];
        colMax[j] = l > m ? l : m;
    }
}

TGRAPH_INLINE void expSumRow(const float* __restrict x, float* __restrict e, const float* __restrict colMax,
    float* __restrict colSum, float t, int64_t f)
{
    for (int64_t j = 0; j < f; ++j) {
        const float v = expApprox(x[j] / t - colMax[j]);
        e[j] = v;
        colSum[j] += v;
    }
}

TGRAPH_INLINE void scaleRow(float* __restrict e, const float* __restrict factor, int64_t f)
{
    for (int64_t j = 0; j < f; ++j)
        e[j] *= factor[j];
}

TGRAPH_INLINE void nodeSoftmax(
    const GateActivation& a, int64_t node, float* x, float* g, float* e, float* colMax, float* colSum)
{
    const int64_t c = a.configs;
    const int64_t f = a.width;
    const float t = a.temperature;
    for (int64_t j = 0; j < f; ++j) {
        colMax[j] = -INFINITY;
        colSum[j] = 0.0f;
    }
    for (int64_t k = 0; k < c; ++k)
        gateMaxRow(a.h + (node * c + k) * f, a.z + (node * c + k) * f, a.zBias, x + k * f, g + k * f, colMax, t, f);
    for (int64_t k = 0; k < c; ++k)
        expSumRow(x + k * f, e + k * f, colMax, colSum, t, f);
    for (int64_t j = 0; j < f; ++j)
        colSum[j] = 1.0f / colSum[j];
    for (int64_t k = 0; k < c; ++k)
        scaleRow(e + k * f, colSum, f);
}

// The cross half of one config row: y2 = x * a (the softmax weights), the row's dropout key and
// its residual row (null without one); shared by the forward and backward passes.
template <Mode M, bool Drop>
TGRAPH_INLINE const float* crossRow(const GateActivation& a, const Dropout& drop, int64_t node, int64_t k,
    const float* __restrict x, const float* __restrict weights, float* __restrict y2, uint32_t* key)
{
    for (int64_t j = 0; j < a.width; ++j)
        y2[j] = x[j] * weights[j];
    *key = Drop ? rowKey(drop.seed, dropoutRow(a, node, k)) : 0;
    return M == Mode::Plain ? nullptr : a.residual + (node * a.configs + k) * 2 * a.width;
}

template <Mode M, bool Drop>
TGRAPH_INLINE void forwardCrossNodes(
    const GateActivation& a, const Dropout& drop, float* out, int64_t begin, int64_t end, float* scratch)
{
    const int64_t c = a.configs;
    const int64_t f = a.width;
    const int64_t ow = 2 * f;
    float* x = scratch;
    float* g = x + c * f;
    float* e = g + c * f;
    float* colMax = e + c * f;
    float* colSum = colMax + f;
    float* y2 = colSum + f;
    for (int64_t i = begin; i < end; ++i) {
        nodeSoftmax(a, i, x, g, e, colMax, colSum);
        for (int64_t k = 0; k < c; ++k) {
            const int64_t row = i * c + k;
            const float* xr = x + k * f;
            uint32_t key;
            const float* s = crossRow<M, Drop>(a, drop, i, k, xr, e + k * f, y2, &key);
            writeRow<M, Drop>(s, xr, out + row * ow, f, key, 0, drop);
            writeRow<M, Drop>(s ? s + f : nullptr, y2, out + row * ow + f, f, key, uint32_t(f), drop);
        }
    }
}

// dLoss/dy for one row segment (and dLoss/ds into ds when there is a residual).
template <Mode M, bool Drop>
TGRAPH_INLINE void rowGrad(const float* s, const float* y, const float* d, float* dy, float* ds, int64_t n,
    uint32_t key, uint32_t col0, const Dropout& drop)
{
    const uint32_t threshold = drop.threshold;
    const float scale = drop.scale;
    for (int64_t k = 0; k < n; ++k) {
        float dk = d[k];
        if constexpr (Drop)
            dk *= dropFactor(key, col0 + uint32_t(k), threshold, scale);
        float dsk;
        dy[k] = activateGrad<M>(M == Mode::Plain ? 0.0f : s[k], y[k], dk, dsk);
        if constexpr (M != Mode::Plain)
            ds[k] = dsk;
    }
}

template <Mode M, bool Drop>
TGRAPH_INLINE void backwardPlainNodes(const GateActivation& a, const Dropout& drop, const float* gradOut, float* gradH,
    float* gradZ, float* gradS, int64_t begin, int64_t end, float* scratch, float* biasPerNode)
{
    const int64_t c = a.configs;
    const int64_t f = a.width;
    float* x = scratch;
    float* g = x + f;
    float* dx = g + f;
    float* acc = dx + f;
    for (int64_t i = begin; i < end; ++i) {
        for (int64_t j = 0; j < f; ++j)
            acc[j] = 0.0f;
        for (int64_t k = 0; k < c; ++k) {
            const int64_t row = i * c + k;
            const float* h = a.h + row * f;
            const float* z = a.z + row * f;
            for (int64_t j = 0; j < f; ++j) {
                g[j] = sigmoid(z[j] + a.zBias[j]);
                x[j] = h[j] * g[j];
            }
            const uint32_t key = Drop ? rowKey(drop.seed, dropoutRow(a, i, k)) : 0;
            rowGrad<M, Drop>(M == Mode::Plain ? nullptr : a.residual + row * f, x, gradOut + row * f, dx,
                M == Mode::Plain ? nullptr : gradS + row * f, f, key, 0, drop);
            float* dh = gradH + row * f;
            float* dz = gradZ + row * f;
            for (int64_t j = 0; j < f; ++j) {
                dh[j] = dx[j] * g[j];
                dz[j] = dx[j] * h[j] * g[j] * (1.0f - g[j]);
            }
            addRow(dz, acc, f);
        }
        std::memcpy(biasPerNode + i * f, acc, size_t(f) * sizeof(float));
    }
}

// Cross-attention backward, first part for one config row: the direct paths into dy1 (becomes
// dLoss/dx with the weights held fixed), dLoss/da into ga, and sum_C a * dLoss/da into dot.
TGRAPH_INLINE void crossGradRow(float* __restrict dy1, const float* __restrict dy2, const float* __restrict a,
    const float* __restrict x, float* __restrict ga, float* __restrict dot, int64_t f)
{
    for (int64_t j = 0; j < f; ++j) {
        dy1[j] += dy2[j] * a[j];
        ga[j] = dy2[j] * x[j];
        dot[j] += a[j] * ga[j];
    }
}

// Second part: through the softmax (dl = dLoss/d(x / T)) to dLoss/dx, then the gate: dh, dz;
// sumT[j] collects dl * x for the temperature's gradient.
TGRAPH_INLINE void crossInputGradRow(const float* __restrict a, const float* __restrict ga, const float* __restrict dot,
    const float* __restrict dx0, const float* __restrict x, const float* __restrict g, const float* __restrict h,
    float* __restrict dh, float* __restrict dz, float* __restrict sumT, float t, int64_t f)
{
    for (int64_t j = 0; j < f; ++j) {
        const float dl = a[j] * (ga[j] - dot[j]);
        const float dx = dx0[j] + dl / t;
        sumT[j] += dl * x[j];
        dh[j] = dx * g[j];
        dz[j] = dx * h[j] * g[j] * (1.0f - g[j]);
    }
}

// Returns this range's dLoss/dT, summed node by node in order into perNode[i] (the caller adds
// them up in node order, so the result does not depend on how nodes are split among threads).
template <Mode M, bool Drop>
TGRAPH_INLINE void backwardCrossNodes(const GateActivation& a, const Dropout& drop, const float* gradOut, float* gradH,
    float* gradZ, float* gradS, int64_t begin, int64_t end, float* scratch, double* perNode, float* biasPerNode)
{
    const int64_t c = a.configs;
    const int64_t f = a.width;
    const int64_t ow = 2 * f;
    const float t = a.temperature;
    float* x = scratch;
    float* g = x + c * f;
    float* e = g + c * f;
    float* dxd = e + c * f; // dLoss/dx through the direct paths (x itself and x * a with a fixed)
    float* ga = dxd + c * f; // dLoss/da
    float* colMax = ga + c * f;
    float* colSum = colMax + f;
    float* y2 = colSum + f;
    float* dy2 = y2 + f;
    float* acc = dy2 + f;
    for (int64_t i = begin; i < end; ++i) {
        nodeSoftmax(a, i, x, g, e, colMax, colSum);
        for (int64_t j = 0; j < f; ++j)
            acc[j] = 0.0f;
        float* dot = colMax; // reused: sum over configs of a * dLoss/da, per channel
        for (int64_t j = 0; j < f; ++j)
            dot[j] = 0.0f;
        for (int64_t k = 0; k < c; ++k) {
            const int64_t row = i * c + k;
            const float* xr = x + k * f;
            const float* er = e + k * f;
            uint32_t key;
            const float* s = crossRow<M, Drop>(a, drop, i, k, xr, er, y2, &key);
            float* ds = M == Mode::Plain ? nullptr : gradS + row * ow;
            float* dy1 = dxd + k * f;
            rowGrad<M, Drop>(s, xr, gradOut + row * ow, dy1, ds, f, key, 0, drop);
            rowGrad<M, Drop>(
                s ? s + f : nullptr, y2, gradOut + row * ow + f, dy2, ds ? ds + f : nullptr, f, key, uint32_t(f), drop);
            crossGradRow(dy1, dy2, er, xr, ga + k * f, dot, f);
        }
        float* sumT = y2; // reused: per channel, sum over configs of dLoss/d(x / T) * x
        for (int64_t j = 0; j < f; ++j)
            sumT[j] = 0.0f;
        for (int64_t k = 0; k < c; ++k) {
            const int64_t row = i * c + k;
            crossInputGradRow(e + k * f, ga + k * f, dot, dxd + k * f, x + k * f, g + k * f, a.h + row * f,
                gradH + row * f, gradZ + row * f, sumT, t, f);
            addRow(gradZ + row * f, acc, f);
        }
        std::memcpy(biasPerNode + i * f, acc, size_t(f) * sizeof(float));
        double dT = 0.0;
        for (int64_t j = 0; j < f; ++j)
            dT += double(sumT[j]);
        perNode[i] = -dT / (double(t) * double(t)); // d(x / T)/dT = -x / T^2
    }
}

// --- per-node workers, one set of clones each ----------------------------------------------

template <bool Drop>
TGRAPH_INLINE void forwardNodesImpl(
    const GateActivation& a, const Dropout& drop, float* out, int64_t begin, int64_t end, float* scratch)
{
    const bool residual = a.residual != nullptr;
    const Mode mode = !residual ? Mode::Plain : (a.residualAfterActivation ? Mode::Paper : Mode::Code);
    if (a.cross) {
        if (mode == Mode::Plain)
            forwardCrossNodes<Mode::Plain, Drop>(a, drop, out, begin, end, scratch);
        else if (mode == Mode::Code)
            forwardCrossNodes<Mode::Code, Drop>(a, drop, out, begin, end, scratch);
        else
            forwardCrossNodes<Mode::Paper, Drop>(a, drop, out, begin, end, scratch);
    } else {
        if (mode == Mode::Plain)
            forwardPlainNodes<Mode::Plain, Drop>(a, drop, out, begin, end, scratch);
        else if (mode == Mode::Code)
            forwardPlainNodes<Mode::Code, Drop>(a, drop, out, begin, end, scratch);
        else
            forwardPlainNodes<Mode::Paper, Drop>(a, drop, out, begin, end, scratch);
    }
}

TGRAPH_KERNEL_CLONES
void forwardNodes(
    const GateActivation& a, const Dropout& drop, bool dropping, float* out, int64_t begin, int64_t end, float* scratch)
{
    if (dropping)
        forwardNodesImpl<true>(a, drop, out, begin, end, scratch);
    else
        forwardNodesImpl<false>(a, drop, out, begin, end, scratch);
}

template <bool Drop>
TGRAPH_INLINE void backwardNodesImpl(const GateActivation& a, const Dropout& drop, const float* gradOut, float* gradH,
    float* gradZ, float* gradS, int64_t begin, int64_t end, float* scratch, double* perNode, float* biasPerNode)
{
    const bool residual = a.residual != nullptr;
    const Mode mode = !residual ? Mode::Plain : (a.residualAfterActivation ? Mode::Paper : Mode::Code);
    if (a.cross) {
        if (mode == Mode::Plain)
            backwardCrossNodes<Mode::Plain, Drop>(
                a, drop, gradOut, gradH, gradZ, gradS, begin, end, scratch, perNode, biasPerNode);
        else if (mode == Mode::Code)
            backwardCrossNodes<Mode::Code, Drop>(
                a, drop, gradOut, gradH, gradZ, gradS, begin, end, scratch, perNode, biasPerNode);
        else
            backwardCrossNodes<Mode::Paper, Drop>(
                a, drop, gradOut, gradH, gradZ, gradS, begin, end, scratch, perNode, biasPerNode);
    } else {
        if (mode == Mode::Plain)
            backwardPlainNodes<Mode::Plain, Drop>(
                a, drop, gradOut, gradH, gradZ, gradS, begin, end, scratch, biasPerNode);
        else if (mode == Mode::Code)
            backwardPlainNodes<Mode::Code, Drop>(
                a, drop, gradOut, gradH, gradZ, gradS, begin, end, scratch, biasPerNode);
        else
            backwardPlainNodes<Mode::Paper, Drop>(
                a, drop, gradOut, gradH, gradZ, gradS, begin, end, scratch, biasPerNode);
    }
}

TGRAPH_KERNEL_CLONES
void backwardNodes(const GateActivation& a, const Dropout& drop, bool dropping, const float* gradOut, float* gradH,
    float* gradZ, float* gradS, int64_t begin, int64_t end, float* scratch, double* perNode, float* biasPerNode)
{
    if (dropping)
        backwardNodesImpl<true>(a, drop, gradOut, gradH, gradZ, gradS, begin, end, scratch, perNode, biasPerNode);
    else
        backwardNodesImpl<false>(a, drop, gradOut, gradH, gradZ, gradS, begin, end, scratch, perNode, biasPerNode);
}

// out = the sum of node i's message rows (w floats each, rowOf(j) for sender j), in edge order;
// false (out untouched) for a node without messages.
template <class RowOf>
TGRAPH_INLINE bool sumMessages(const EdgeLists& e, int64_t i, int64_t w, const RowOf& rowOf, float* out)
{
    const int64_t first = e.inBegin[i];
    const int64_t last = e.inBegin[i + 1];
    if (first == last)
        return false;
    const float* m0 = rowOf(e.inSource[first]);
    for (int64_t j = 0; j < w; ++j)
        out[j] = m0[j];
    for (int64_t q = first + 1; q < last; ++q) {
        const float* m = rowOf(e.inSource[q]);
        for (int64_t j = 0; j < w; ++j)
            out[j] += m[j];
    }
    return true;
}

TGRAPH_KERNEL_CLONES
void sageForwardNodes(
    const EdgeLists& e, int64_t c, int64_t w, const float* p, const float* bias, float* out, int64_t begin, int64_t end)
{
    for (int64_t i = begin; i < end; ++i) {
        const float inv = e.inverseDegree[i];
        for (int64_t k = 0; k < c; ++k) {
            float* o = out + (i * c + k) * w;
            const float* root = p + (i * c + k) * 2 * w + w;
            if (!sumMessages(e, i, w, [&](int64_t j) { return p + (j * c + k) * 2 * w; }, o)) {
                for (int64_t j = 0; j < w; ++j)
                    o[j] = root[j] + bias[j];
                continue;
            }
            for (int64_t j = 0; j < w; ++j)
                o[j] = root[j] + bias[j] + inv * o[j];
        }
    }
}

TGRAPH_KERNEL_CLONES
void sageBackwardNodes(const EdgeLists& e, int64_t c, int64_t w, const float* gradOut, float* gradP, float* biasPerNode,
    int64_t begin, int64_t end)
{
    for (int64_t i = begin; i < end; ++i) {
        const int64_t first = e.outBegin[i];
        const int64_t last = e.outBegin[i + 1];
        float* acc = biasPerNode + i * w;
        for (int64_t j = 0; j < w; ++j)
            acc[j] = 0.0f;
        for (int64_t k = 0; k < c; ++k) {
            float* msg = gradP + (i * c + k) * 2 * w;
            float* root = msg + w;
            const float* d = gradOut + (i * c + k) * w;
            for (int64_t j = 0; j < w; ++j) {
                root[j] = d[j];
                msg[j] = 0.0f;
            }
            addRow(d, acc, w);
            for (int64_t q = first; q < last; ++q) {
                const int64_t target = e.outTarget[q];
                const float inv = e.inverseDegree[target];
                const float* dt = gradOut + (target * c + k) * w;
                for (int64_t j = 0; j < w; ++j)
                    msg[j] += inv * dt[j];
            }
        }
    }
}

// The column kernels sum over rows in fixed chunks of kRowChunk rows (row order inside a chunk),
// then add the chunks' sums in chunk order: streaming reads, and the same sums whatever the thread
// count.
constexpr int64_t kRowChunk = 256;

// acc[j] += x[i, j] for rows [begin, end).
TGRAPH_KERNEL_CLONES
void sumRows(int64_t begin, int64_t end, int64_t cols, int64_t stride, const float* x, double* acc)
{
    for (int64_t i = begin; i < end; ++i) {
        const float* r = x + i * stride;
        for (int64_t j = 0; j < cols; ++j)
            acc[j] += double(r[j]);
    }
}

// acc[j] += (x[i, j] - mean[j])^2 for rows [begin, end).
TGRAPH_KERNEL_CLONES
void sumSquaredDeviations(
    int64_t begin, int64_t end, int64_t cols, int64_t stride, const float* x, const float* mean, double* acc)
{
    for (int64_t i = begin; i < end; ++i) {
        const float* r = x + i * stride;
        for (int64_t j = 0; j < cols; ++j) {
            const double d = double(r[j] - mean[j]);
            acc[j] += d * d;
        }
    }
}

TGRAPH_KERNEL_CLONES
void sageInputNodes(const EdgeLists& e, int64_t begin, int64_t end, int64_t first, int64_t c, int64_t w,
    const float* const* rowOf, const float* mean, const float* invStd, float* out)
{
    for (int64_t i = begin; i < end; ++i) {
        const float inv = e.inverseDegree[i];
        for (int64_t k = 0; k < c; ++k) {
            float* agg = out + ((i - first) * c + k) * 2 * w;
            float* self = agg + w;
            const float* mu = mean + k * w;
            const float* is = invStd + k * w;
            const float* row = rowOf[i] + k * w;
            for (int64_t j = 0; j < w; ++j)
                self[j] = (row[j] - mu[j]) * is[j];
            if (!sumMessages(e, i, w, [&](int64_t j) { return rowOf[j] + k * w; }, agg)) {
                for (int64_t j = 0; j < w; ++j)
                    agg[j] = 0.0f;
                continue;
            }
            for (int64_t j = 0; j < w; ++j)
                agg[j] = (agg[j] * inv - mu[j]) * is[j];
        }
    }
}

// acc[j] += g[i, j], acc[cols + j] += g[i, j] * y[i, j] for rows [begin, end).
TGRAPH_KERNEL_CLONES
void sumGradientRows(int64_t begin, int64_t end, int64_t cols, const float* g, const float* y, double* acc)
{
    double* accGy = acc + cols;
    for (int64_t i = begin; i < end; ++i) {
        const float* gr = g + i * cols;
        const float* yr = y + i * cols;
        for (int64_t j = 0; j < cols; ++j) {
            acc[j] += double(gr[j]);
            accGy[j] += double(gr[j] * yr[j]);
        }
    }
}

// Runs `sum(begin, end, acc)` over the row chunks (acc: `width` doubles per chunk, zeroed) and
// returns the chunks' sums added in chunk order.
template <class Sum> std::vector<double> sumOverRowChunks(int64_t rows, int64_t width, const Sum& sum)
{
    const int64_t chunks = std::max<int64_t>(1, (rows + kRowChunk - 1) / kRowChunk);
    std::vector<double> partial(size_t(chunks * width), 0.0);
    at::parallel_for(0, chunks, 1, [&](int64_t begin, int64_t end) {
        for (int64_t k = begin; k < end; ++k)
            sum(k * kRowChunk, std::min(rows, (k + 1) * kRowChunk), partial.data() + k * width);
    });
    std::vector<double> total(size_t(width), 0.0);
    for (int64_t k = 0; k < chunks; ++k)
        for (int64_t j = 0; j < width; ++j)
            total[size_t(j)] += partial[size_t(k * width + j)];
    return total;
}

TGRAPH_KERNEL_CLONES
void normalizeRows(int64_t begin, int64_t end, int64_t cols, int64_t stride, const float* x, const float* mean,
    const float* invStd, float* out)
{
    for (int64_t i = begin; i < end; ++i) {
        const float* r = x + i * stride;
        float* o = out + i * cols;
        for (int64_t j = 0; j < cols; ++j)
            o[j] = (r[j] - mean[j]) * invStd[j];
    }
}

TGRAPH_KERNEL_CLONES
void normalizeBackwardRows(int64_t begin, int64_t end, int64_t cols, const float* g, const float* y,
    const float* invStd, const float* meanG, const float* meanGy, float* out, int64_t outStride, bool accumulate)
{
    for (int64_t i = begin; i < end; ++i) {
        const float* gr = g + i * cols;
        const float* yr = y + i * cols;
        float* o = out + i * outStride;
        if (accumulate)
            for (int64_t j = 0; j < cols; ++j)
                o[j] += invStd[j] * (gr[j] - meanG[j] - yr[j] * meanGy[j]);
        else
            for (int64_t j = 0; j < cols; ++j)
                o[j] = invStd[j] * (gr[j] - meanG[j] - yr[j] * meanGy[j]);
    }
}

// Nodes per task: about 64 k floats of work, at least one node.
int64_t grainFor(int64_t perNode) { return std::max<int64_t>(1, 65536 / std::max<int64_t>(perNode, 1)); }

Dropout dropoutOf(const GateActivation& a)
{
    Dropout d;
    d.seed = a.seed;
    d.threshold = dropThreshold(a.dropout);
    d.scale = a.dropout < 1.0f ? 1.0f / (1.0f - a.dropout) : 0.0f;
    return d;
}

int64_t scratchFloats(const GateActivation& a, bool backward)
{
    const int64_t cf = a.configs * a.width;
    if (!a.cross)
        return 4 * a.width;
    return (backward ? 5 : 3) * cf + 5 * a.width;
}

// out[j] = sum over nodes of perNode[i * f + j], in node order (double sums).
void sumOverNodes(const std::vector<float>& perNode, int64_t nodes, int64_t f, float* out)
{
    std::vector<double> total(size_t(f), 0.0);
    for (int64_t i = 0; i < nodes; ++i)
        for (int64_t j = 0; j < f; ++j)
            total[size_t(j)] += double(perNode[size_t(i * f + j)]);
    for (int64_t j = 0; j < f; ++j)
        out[j] = float(total[size_t(j)]);
}

// --- the gate's two products ----------------------------------------------------------------

// Sixteen floats as one value: one AVX-512 register, two AVX2 or four SSE registers (GCC splits
// the operations for the clone it compiles), so the accumulators below stay in registers.
typedef float Lane16 __attribute__((vector_size(64)));

TGRAPH_INLINE Lane16 load16(const float* p)
{
    Lane16 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

TGRAPH_INLINE void store16(float* p, const Lane16& v) { std::memcpy(p, &v, sizeof v); }

constexpr int64_t kGateRowBlock = 4; // rows sharing each weight load

// For kGateRowBlock rows (`count` <= kGateRowBlock of them real, the others repeat the last):
// hidden = ReLU(x W1^T + b1) with R = 16 * L channels, then z = hidden W2^T, F = `width` channels
// (a multiple of 16). w1t is (F, R), w2t is (R, F). Every z element is the sum over j in
// increasing order of hidden[j] * W2[., j], whatever the block or thread.
template <int L>
TGRAPH_INLINE void gateBlock(int64_t count, int64_t width, const float* x, const float* w1t, const float* b1,
    const float* w2t, float* hidden, float* z)
{
    constexpr int64_t B = kGateRowBlock;
    constexpr int64_t R = 16 * L;
    const float* rows[B];
    for (int64_t b = 0; b < B; ++b)
        rows[b] = x + std::min(b, count - 1) * width;
    Lane16 h[B][L];
    for (int64_t b = 0; b < B; ++b)
        for (int l = 0; l < L; ++l)
            h[b][l] = load16(b1 + 16 * l);
    for (int64_t k = 0; k < width; ++k) {
        Lane16 w[L];
        for (int l = 0; l < L; ++l)
            w[l] = load16(w1t + k * R + 16 * l);
        for (int64_t b = 0; b < B; ++b) {
            const float xv = rows[b][k];
            for (int l = 0; l < L; ++l)
                h[b][l] += xv * w[l];
        }
    }
    float relu[B][R];
    for (int64_t b = 0; b < B; ++b)
        for (int l = 0; l < L; ++l) {
            const Lane16 v = h[b][l] < 0.0f ? Lane16 {} : h[b][l]; // ReLU; NaN stays NaN, as in clamp_min
            store16(relu[b] + 16 * l, v);
        }
    if (hidden)
        for (int64_t b = 0; b < count; ++b)
            std::memcpy(hidden + b * R, relu[b], sizeof relu[b]);
    for (int64_t c = 0; c < width; c += 16) {
        Lane16 acc[B] = {};
        for (int64_t j = 0; j < R; ++j) {
            const Lane16 w = load16(w2t + j * width + c);
            for (int64_t b = 0; b < B; ++b)
                acc[b] += relu[b][j] * w;
        }
        for (int64_t b = 0; b < count; ++b)
            store16(z + b * width + c, acc[b]);
    }
}

template <int L>
TGRAPH_KERNEL_CLONES void gateRows(int64_t begin, int64_t end, int64_t width, const float* x, const float* w1t,
    const float* b1, const float* w2t, float* hidden, float* z)
{
    constexpr int64_t R = 16 * L;
    for (int64_t r = begin; r < end; r += kGateRowBlock) {
        const int64_t count = std::min(kGateRowBlock, end - r);
        gateBlock<L>(count, width, x + r * width, w1t, b1, w2t, hidden ? hidden + r * R : nullptr, z + r * width);
    }
}

} // namespace

void gateActivationForward(const GateActivation& a, float* out)
{
    const Dropout drop = dropoutOf(a);
    const bool dropping = a.dropout > 0.0f;
    at::parallel_for(0, a.nodes, grainFor(a.configs * a.width), [&](int64_t begin, int64_t end) {
        std::vector<float> scratch(size_t(scratchFloats(a, false)));
        forwardNodes(a, drop, dropping, out, begin, end, scratch.data());
    });
}

bool gateProducts(int64_t rows, int64_t width, int64_t reduced, const float* x, const float* w1t, const float* b1,
    const float* w2t, float* hidden, float* z)
{
    if (width % 16 != 0 || (reduced != 16 && reduced != 32))
        return false;
    // Blocks of rows in a fixed grid (a block's rows never depend on where a thread's range starts).
    const int64_t blocks = (rows + kGateRowBlock - 1) / kGateRowBlock;
    at::parallel_for(0, blocks, std::max<int64_t>(1, 4096 / (width * reduced / 16)), [&](int64_t begin, int64_t end) {
        const int64_t first = begin * kGateRowBlock;
        const int64_t last = std::min(rows, end * kGateRowBlock);
        if (reduced == 16)
            gateRows<1>(first, last, width, x, w1t, b1, w2t, hidden, z);
        else
            gateRows<2>(first, last, width, x, w1t, b1, w2t, hidden, z);
    });
    return true;
}

double gateActivationBackward(
    const GateActivation& a, const float* gradOut, float* gradH, float* gradZ, float* gradResidual, float* gradZBias)
{
    const Dropout drop = dropoutOf(a);
    const bool dropping = a.dropout > 0.0f;
    std::vector<double> perNode(a.cross ? size_t(a.nodes) : 0, 0.0);
    std::vector<float> biasPerNode(size_t(a.nodes * a.width));
    at::parallel_for(0, a.nodes, grainFor(a.configs * a.width), [&](int64_t begin, int64_t end) {
        std::vector<float> scratch(size_t(scratchFloats(a, true)));
        backwardNodes(a, drop, dropping, gradOut, gradH, gradZ, gradResidual, begin, end, scratch.data(),
            perNode.data(), biasPerNode.data());
    });
    sumOverNodes(biasPerNode, a.nodes, a.width, gradZBias);
    double dT = 0.0;
    for (const double v : perNode)
        dT += v;
    return dT;
}

void sageMeanForward(const EdgeLists& e, int64_t configs, int64_t width, const float* p, const float* bias, float* out)
{
    at::parallel_for(0, e.nodes, grainFor(configs * width),
        [&](int64_t begin, int64_t end) { sageForwardNodes(e, configs, width, p, bias, out, begin, end); });
}

void sageMeanBackward(
    const EdgeLists& e, int64_t configs, int64_t width, const float* gradOut, float* gradP, float* gradBias)
{
    std::vector<float> biasPerNode(size_t(e.nodes * width));
    at::parallel_for(0, e.nodes, grainFor(configs * width), [&](int64_t begin, int64_t end) {
        sageBackwardNodes(e, configs, width, gradOut, gradP, biasPerNode.data(), begin, end);
    });
    sumOverNodes(biasPerNode, e.nodes, width, gradBias);
}

void columnMoments(int64_t rows, int64_t cols, int64_t stride, const float* x, float eps, float* mean, float* invStd)
{
    const std::vector<double> sums = sumOverRowChunks(
        rows, cols, [&](int64_t begin, int64_t end, double* acc) { sumRows(begin, end, cols, stride, x, acc); });
    for (int64_t j = 0; j < cols; ++j)
        mean[j] = float(sums[size_t(j)] / double(rows));
    const std::vector<double> squares = sumOverRowChunks(rows, cols, [&](int64_t begin, int64_t end, double* acc) {
        sumSquaredDeviations(begin, end, cols, stride, x, mean, acc);
    });
    for (int64_t j = 0; j < cols; ++j)
        invStd[j] = float(1.0 / std::sqrt(squares[size_t(j)] / double(rows) + double(eps)));
}

void sageInputRows(const EdgeLists& e, int64_t begin, int64_t end, int64_t configs, int64_t width,
    const float* const* rowOf, const float* mean, const float* invStd, float* out)
{
    at::parallel_for(begin, end, grainFor(configs * width), [&](int64_t from, int64_t to) {
        sageInputNodes(e, from, to, begin, configs, width, rowOf, mean, invStd, out);
    });
}

void addColumnSums(int64_t rows, int64_t cols, const float* x, double* acc)
{
    const std::vector<double> sums = sumOverRowChunks(
        rows, cols, [&](int64_t begin, int64_t end, double* part) { sumRows(begin, end, cols, cols, x, part); });
    for (int64_t j = 0; j < cols; ++j)
        acc[j] += sums[size_t(j)];
}

void normalizeColumns(int64_t rows, int64_t cols, int64_t stride, const float* x, const float* mean,
    const float* invStd, float* out)
{
    at::parallel_for(0, rows, grainFor(cols),
        [&](int64_t begin, int64_t end) { normalizeRows(begin, end, cols, stride, x, mean, invStd, out); });
}

void normalizeColumnsBackward(int64_t rows, int64_t cols, const float* g, const float* y, const float* invStd,
    float* out, int64_t outStride, bool accumulate)
{
    const std::vector<double> sums = sumOverRowChunks(
        rows, 2 * cols, [&](int64_t begin, int64_t end, double* acc) { sumGradientRows(begin, end, cols, g, y, acc); });
    std::vector<float> meanG(static_cast<size_t>(cols));
    std::vector<float> meanGy(static_cast<size_t>(cols));
    for (int64_t j = 0; j < cols; ++j) {
        meanG[size_t(j)] = float(sums[size_t(j)] / double(rows));
        meanGy[size_t(j)] = float(sums[size_t(cols + j)] / double(rows));
    }
    at::parallel_for(0, rows, grainFor(cols), [&](int64_t begin, int64_t end) {
        normalizeBackwardRows(begin, end, cols, g, y, invStd, meanG.data(), meanGy.data(), out, outStride, accumulate);
    });
}

void bagSumForward(int64_t bags, int64_t slots, int64_t width, const int64_t* index, const float* table, float* out)
{
    at::parallel_for(0, bags, grainFor(slots * width), [&](int64_t begin, int64_t end) {
        for (int64_t b = begin; b < end; ++b) {
            float* o = out + b * width;
            std::memcpy(o, table + index[b * slots] * width, size_t(width) * sizeof(float));
            for (int64_t k = 1; k < slots; ++k)
                addRow(table + index[b * slots + k] * width, o, width);
        }
    });
}

void bagSumBackward(int64_t bags, int64_t slots, int64_t width, int64_t tableRows, const int64_t* index,
    const float* gradOut, float* gradTable)
{
    // Column slices per task: every table cell is summed by one task, over the bags in order.
    const int64_t slice = 64;
    const int64_t slices = (width + slice - 1) / slice;
    at::parallel_for(0, slices, 1, [&](int64_t begin, int64_t end) {
        const int64_t c0 = begin * slice;
        const int64_t c1 = std::min(width, end * slice);
        for (int64_t r = 0; r < tableRows; ++r)
            std::memset(gradTable + r * width + c0, 0, size_t(c1 - c0) * sizeof(float));
        for (int64_t b = 0; b < bags; ++b)
            for (int64_t k = 0; k < slots; ++k)
                addRow(gradOut + b * width + c0, gradTable + index[b * slots + k] * width + c0, c1 - c0);
    });
}

namespace {

TGRAPH_KERNEL_CLONES void toBf16Range(int64_t count, const float* in, uint16_t* out)
{
    for (int64_t i = 0; i < count; ++i) {
        uint32_t bits;
        std::memcpy(&bits, in + i, sizeof bits);
        const uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
        const bool nan = (bits & 0x7fffffffu) > 0x7f800000u;
        out[i] = uint16_t(nan ? ((bits >> 16) | 0x40u) : rounded);
    }
}

} // namespace

void toBf16(int64_t count, const float* in, uint16_t* out)
{
    at::parallel_for(0, count, int64_t(1) << 16,
        [&](int64_t begin, int64_t end) { toBf16Range(end - begin, in + begin, out + begin); });
}

bool dropoutKeeps(uint64_t seed, uint64_t row, uint32_t column, float p)
{
    return (elementHash(rowKey(seed, row), column) >> 8) >= dropThreshold(p);
}

const char* kernelTarget()
{
#if defined(__GNUC__) && defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")
        && __builtin_cpu_supports("avx512dq"))
        return "avx512";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return "avx2";
#endif
    return "baseline";
}

int parallelThreads(int64_t tasks)
{
    std::vector<int> thread(size_t(std::max<int64_t>(tasks, 0)), -1);
    at::parallel_for(0, tasks, 1, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i)
            thread[size_t(i)] = at::get_thread_num();
    });
    return int(std::set<int>(thread.begin(), thread.end()).size());
}

} // namespace tgraph::model::kernels
