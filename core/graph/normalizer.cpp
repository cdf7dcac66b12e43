// SPDX-License-Identifier: Apache-2.0
#include "core/graph/normalizer.h"

#include "core/util/error.h"
#include "core/io/npz.h"

#include <cmath>
#include <limits>

namespace tgraph {

void Normalizer::add(const NdArray<float>& nodeFeat)
{
    if (nodeFeat.ndim() != 2 || nodeFeat.dim(1) < kColumns)
        throw std::invalid_argument("Normalizer::add: node_feat must be (N, >= 134)");
    const int64_t n = nodeFeat.dim(0);
    if (n == 0)
        return;
    const int64_t stride = nodeFeat.dim(1);
    // Two-pass statistics of this graph, then Chan et al.'s pairwise combination.
    std::array<double, kColumns> mean {};
    for (int64_t i = 0; i < n; ++i) {
        const float* row = nodeFeat.data() + i * stride;
        for (int c = 0; c < kColumns; ++c)
            mean[size_t(c)] += row[c];
    }
    for (double& m : mean)
        m /= double(n);
    std::array<double, kColumns> m2 {};
    for (int64_t i = 0; i < n; ++i) {
        const float* row = nodeFeat.data() + i * stride;
        for (int c = 0; c < kColumns; ++c) {
            const double d = row[c] - mean[size_t(c)];
            m2[size_t(c)] += d * d;
        }
    }
    combine(n, mean, m2);
}

void Normalizer::merge(const Normalizer& other)
{
    if (other.m_count > 0)
        combine(other.m_count, other.m_mean, other.m_m2);
}

void Normalizer::combine(int64_t n, const std::array<double, kColumns>& mean, const std::array<double, kColumns>& m2)
{
    if (m_count == 0) { // the first nodes: their statistics as they are (x * n / n may round)
        m_mean = mean;
        m_m2 = m2;
        m_count = n;
        m_finished = false;
        return;
    }
    const double na = double(m_count);
    const double nb = double(n);
    const double total = na + nb;
    for (size_t c = 0; c < size_t(kColumns); ++c) {
        const double delta = mean[c] - m_mean[c];
        m_mean[c] += delta * nb / total;
        m_m2[c] += m2[c] + delta * delta * na * nb / total;
    }
    m_count += n;
    m_finished = false;
}

void Normalizer::finish()
{
    if (m_count == 0)
        throw std::logic_error("Normalizer::finish: no nodes were added");
    const double n = double(m_count);
    const double eps = std::numeric_limits<double>::epsilon();
    for (size_t c = 0; c < size_t(kColumns); ++c) {
        const double var = m_m2[c] / n;
        // sklearn's constant-feature rule: variance within the rounding error of its computation.
        const double bound = n * eps * var + (n * m_mean[c] * eps) * (n * m_mean[c] * eps);
        m_std[c] = var <= bound ? 1.0 : std::sqrt(var);
    }
    m_finished = true;
}

void Normalizer::apply(NdArray<float>& nodeFeat) const
{
    if (!m_finished)
        throw std::logic_error("Normalizer::apply before finish()");
    if (nodeFeat.ndim() != 2 || nodeFeat.dim(1) < kColumns)
        throw std::invalid_argument("Normalizer::apply: node_feat must be (N, >= 134)");
    const int64_t stride = nodeFeat.dim(1);
    std::array<double, kColumns> inv {};
    for (size_t c = 0; c < size_t(kColumns); ++c)
        inv[c] = 1.0 / m_std[c];
    for (int64_t i = 0; i < nodeFeat.dim(0); ++i) {
        float* row = nodeFeat.data() + i * stride;
        for (int c = 0; c < kColumns; ++c)
            row[c] = float((row[c] - m_mean[size_t(c)]) * inv[size_t(c)]);
    }
}

void Normalizer::save(const std::string& path) const
{
    if (!m_finished)
        throw std::logic_error("Normalizer::save before finish()");
    NdArray<double> mean({ kColumns });
    NdArray<double> stddev({ kColumns });
    std::copy(m_mean.begin(), m_mean.end(), mean.data());
    std::copy(m_std.begin(), m_std.end(), stddev.data());
    NdArray<int64_t> count(std::vector<int64_t> {}, m_count);
    NpzWriter w(path, NpzCompression::Stored);
    w.add("normalizer_mean", mean);
    w.add("normalizer_std", stddev);
    w.add("normalizer_count", count);
    w.commit();
}

Normalizer Normalizer::load(const std::string& path)
{
    NpzReader npz(path);
    const NdArray<double> mean = npz.read<double>("normalizer_mean");
    const NdArray<double> stddev = npz.read<double>("normalizer_std");
    for (const auto* a : { &mean, &stddev })
        if (a->shape() != std::vector<int64_t> { kColumns })
            throw InputError(path, a == &mean ? "normalizer_mean" : "normalizer_std",
                "shape " + shapeToString(a->shape()) + " should be (134,)");
    Normalizer n;
    for (int c = 0; c < kColumns; ++c) {
        if (!std::isfinite(mean[c]))
            throw InputError(path, "normalizer_mean[" + std::to_string(c) + "]", "not finite");
        if (!(stddev[c] > 0) || !std::isfinite(stddev[c]))
            throw InputError(path, "normalizer_std[" + std::to_string(c) + "]", "must be finite and > 0");
        n.m_mean[size_t(c)] = mean[c];
        n.m_std[size_t(c)] = stddev[c];
    }
    n.m_count = npz.contains("normalizer_count") ? npz.read<int64_t>("normalizer_count")[0] : 0;
    n.m_finished = true;
    return n;
}

Normalizer Normalizer::fromStatistics(
    const std::array<double, kColumns>& mean, const std::array<double, kColumns>& stddev, int64_t count)
{
    for (int c = 0; c < kColumns; ++c)
        if (!std::isfinite(mean[size_t(c)]) || !std::isfinite(stddev[size_t(c)]) || !(stddev[size_t(c)] > 0))
            throw std::invalid_argument("Normalizer::fromStatistics: column " + std::to_string(c)
                + " needs a finite mean and a finite std > 0");
    Normalizer n;
    n.m_mean = mean;
    n.m_std = stddev;
    n.m_count = count;
    n.m_finished = true;
    return n;
}

void repadLayoutColumns(NdArray<float>& nodeFeat)
{
    if (nodeFeat.ndim() != 2 || nodeFeat.dim(1) != kNodeFeatures)
        throw std::invalid_argument("repadLayoutColumns: node_feat must be (N, 140)");
    constexpr int kShapeDims = 21; // columns 21..26: shape dims 0..5
    constexpr int kLayout = 134; // columns 134..139: minor-to-major 0..5
    for (int64_t i = 0; i < nodeFeat.dim(0); ++i) {
        float* row = nodeFeat.row(i);
        int rank = 0;
        while (rank < 6 && row[kShapeDims + rank] != 0.0f)
            ++rank;
        for (int k = rank; k < 6; ++k)
            row[kLayout + k] = -1.0f;
    }
}

} // namespace tgraph
