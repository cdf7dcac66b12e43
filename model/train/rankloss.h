// SPDX-License-Identifier: Apache-2.0
#pragma once

// The pairwise hinge ranking loss of TGraph (docs/model.md §4.1, paper eq. 8, code):
//   L = 1/C^2 sum_i sum_j 1[r_i > r_j] max(0, 1 - (s_i - s_j))
// over all ordered pairs of one graph's C configs, normalized by the full C x C grid (diagonal
// included), so a higher score means slower. Ties contribute nothing.

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace tgraph::model {

// (C, C) float32: [i][j] = 1 when config i is strictly slower than config j, from raw integer
// runtimes (exact: no float rounding merges runtimes 1 ns apart; docs/model.md §2.6).
torch::Tensor slowerMask(const std::vector<int64_t>& runtimes);

// Tile collections (docs/model.md §5): the target is runtime / normalizer. Compared exactly by
// cross-multiplication in 128-bit integers. Normalizers must be > 0.
torch::Tensor slowerMask(const std::vector<int64_t>& runtimes, const std::vector<int64_t>& normalizers);

// scores (C,), slower (C, C) -> 0-d loss with `margin` (1 in the code).
torch::Tensor pairwiseHingeLoss(const torch::Tensor& scores, const torch::Tensor& slower, double margin = 1.0);

// Kaufman et al.'s logistic rank loss: sum over slower pairs of log(1 + exp(-(s_i - s_j))),
// divided by the C (C - 1) / 2 pairs (docs/model.md §8.2).
torch::Tensor pairwiseLogisticLoss(const torch::Tensor& scores, const torch::Tensor& slower);

// ListMLE (the TpuGraphs baseline, docs/model.md §8.1): the negative log-likelihood of the true order
// under the Plackett-Luce model of the scores, slowest first (higher score = slower), divided by
// C. `target` (C,) orders the configs (larger = slower; ties keep index order).
torch::Tensor listMleLoss(const torch::Tensor& scores, const torch::Tensor& target);

// Mean squared error of scores against `target` (C,).
torch::Tensor mseLoss(const torch::Tensor& scores, const torch::Tensor& target);

} // namespace tgraph::model
