// SPDX-License-Identifier: Apache-2.0
#include "model/train/rankloss.h"

#include <algorithm>

namespace tgraph::model {

torch::Tensor slowerMask(const std::vector<int64_t>& runtimes)
{
    const int64_t c = int64_t(runtimes.size());
    auto mask = torch::empty({ c, c }, torch::kFloat32);
    float* m = mask.data_ptr<float>();
    for (int64_t i = 0; i < c; ++i)
        for (int64_t j = 0; j < c; ++j)
            m[i * c + j] = runtimes[size_t(i)] > runtimes[size_t(j)] ? 1.0f : 0.0f;
    return mask;
}

torch::Tensor slowerMask(const std::vector<int64_t>& runtimes, const std::vector<int64_t>& normalizers)
{
    TORCH_CHECK(runtimes.size() == normalizers.size(), "slowerMask: runtimes and normalizers differ in length");
    const int64_t c = int64_t(runtimes.size());
    auto mask = torch::empty({ c, c }, torch::kFloat32);
    float* m = mask.data_ptr<float>();
    for (int64_t i = 0; i < c; ++i)
        for (int64_t j = 0; j < c; ++j) {
            // r_i / n_i > r_j / n_j  <=>  r_i n_j > r_j n_i  (n > 0)
            const __int128 left = __int128(runtimes[size_t(i)]) * normalizers[size_t(j)];
            const __int128 right = __int128(runtimes[size_t(j)]) * normalizers[size_t(i)];
            m[i * c + j] = left > right ? 1.0f : 0.0f;
        }
    return mask;
}

torch::Tensor pairwiseHingeLoss(const torch::Tensor& scores, const torch::Tensor& slower, double margin)
{
    const int64_t c = scores.size(0);
    TORCH_CHECK(scores.dim() == 1 && slower.sizes() == torch::IntArrayRef({ c, c }),
        "pairwiseHingeLoss: scores (C,) and mask (C, C) expected");
    // diff[i][j] = s_i - s_j: config i slower than j should score at least `margin` higher.
    const auto diff = scores.unsqueeze(1) - scores.unsqueeze(0);
    return (torch::relu(margin - diff) * slower).sum() / double(c * c);
}

torch::Tensor pairwiseLogisticLoss(const torch::Tensor& scores, const torch::Tensor& slower)
{
    const int64_t c = scores.size(0);
    const auto diff = scores.unsqueeze(1) - scores.unsqueeze(0);
    const double pairs = std::max<double>(1.0, double(c) * double(c - 1) / 2.0);
    return (torch::nn::functional::softplus(-diff) * slower).sum() / pairs;
}

torch::Tensor listMleLoss(const torch::Tensor& scores, const torch::Tensor& target)
{
    const int64_t c = scores.size(0);
    // Slowest first; a stable sort keeps tied configs in index order.
    const auto order = std::get<1>(target.sort(/*stable=*/true, /*dim=*/0, /*descending=*/true));
    const auto s = scores.index_select(0, order);
    // log sum_{j >= i} exp(s_j), a reversed cumulative logsumexp.
    const auto tail = s.flip(0).logcumsumexp(0).flip(0);
    return (tail - s).sum() / double(std::max<int64_t>(1, c));
}

torch::Tensor mseLoss(const torch::Tensor& scores, const torch::Tensor& target)
{
    return (scores - target).pow(2).mean();
}

} // namespace tgraph::model
