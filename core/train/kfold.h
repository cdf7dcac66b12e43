// SPDX-License-Identifier: Apache-2.0
#pragma once

// Graph-level K-fold cross-validation (docs/model.md §4.4): which fold each graph is held
// out in, and which trained folds form the ensemble.

#include <cstdint>
#include <vector>

namespace tgraph {

// numpy's np.random.RandomState(seed).permutation(n), exactly: MT19937 seeded as numpy's legacy
// seeding (init_genrand) and its Fisher-Yates shuffle with masked rejection sampling.
std::vector<int64_t> numpyPermutation(int64_t n, uint32_t seed);

// Held-out fold of each of `n` items, as sklearn's KFold(n_splits=folds, shuffle=True,
// random_state=seed): items are permuted (numpyPermutation), then cut into `folds` contiguous
// parts, the first n % folds of them one item larger. Every item is in exactly one fold.
// std::invalid_argument if folds < 2 or folds > n.
std::vector<int> kfoldAssignment(int64_t n, int folds, uint32_t seed);

// Indices (into `scores`) of the `keep` best scores, best first; NaN scores (a run that never
// produced a defined validation tau) rank last; ties keep the lower index first. keep is capped
// at scores.size().
std::vector<int> selectBest(const std::vector<double>& scores, int keep);

} // namespace tgraph
