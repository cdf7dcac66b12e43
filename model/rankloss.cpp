// SPDX-License-Identifier: Apache-2.0
#include "rankloss.h"

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

} // namespace tgraph::model
