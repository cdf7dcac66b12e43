// SPDX-License-Identifier: Apache-2.0
#pragma once

// The pairwise hinge ranking loss of TGraph (spec tgraph-model.md §4.1, paper eq. 8, code):
//   L = 1/C^2 sum_i sum_j 1[r_i > r_j] max(0, 1 - (s_i - s_j))
// over all ordered pairs of one graph's C configs, normalized by the full C x C grid (diagonal
// included), so a higher score means slower. Ties contribute nothing.

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace tgraph::model {

// (C, C) float32: [i][j] = 1 when config i is strictly slower than config j, from raw integer
// runtimes (exact: no float rounding merges runtimes 1 ns apart; spec §2.6).
torch::Tensor slowerMask(const std::vector<int64_t>& runtimes);

// Tile collections (spec §5): the target is runtime / normalizer. Compared exactly by
// cross-multiplication in 128-bit integers. Normalizers must be > 0.
torch::Tensor slowerMask(const std::vector<int64_t>& runtimes, const std::vector<int64_t>& normalizers);

// scores (C,), slower (C, C) -> 0-d loss with `margin` (1 in the code).
torch::Tensor pairwiseHingeLoss(const torch::Tensor& scores, const torch::Tensor& slower, double margin = 1.0);

} // namespace tgraph::model
