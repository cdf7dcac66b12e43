// SPDX-License-Identifier: Apache-2.0
#include "core/train/kfold.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

namespace tgraph {

std::vector<int64_t> numpyPermutation(int64_t n, uint32_t seed)
{
    std::vector<int64_t> items(size_t(std::max<int64_t>(n, 0)));
    std::iota(items.begin(), items.end(), int64_t(0));
    std::mt19937 mt(seed); // numpy's legacy seeding of an int is MT19937's init_genrand
    for (int64_t i = n - 1; i >= 1; --i) {
        // numpy random_interval(max = i): smallest all-ones mask >= i, redraw until <= i.
        uint64_t mask = uint64_t(i);
        for (int shift = 1; shift <= 32; shift *= 2)
            mask |= mask >> shift;
        uint64_t j = 0;
        if (uint64_t(i) <= 0xffffffffULL) {
            do
                j = uint64_t(mt()) & mask;
            while (j > uint64_t(i));
        } else {
            do
                j = ((uint64_t(mt()) << 32) | uint64_t(mt())) & mask;
            while (j > uint64_t(i));
        }
        std::swap(items[size_t(i)], items[size_t(j)]);
    }
    return items;
}

std::vector<int> kfoldAssignment(int64_t n, int folds, uint32_t seed)
{
    if (folds < 2)
        throw std::invalid_argument("k-fold needs at least 2 folds, got " + std::to_string(folds));
    if (folds > n)
        throw std::invalid_argument(
            "k-fold with " + std::to_string(folds) + " folds needs at least as many graphs, got " + std::to_string(n));
    const std::vector<int64_t> order = numpyPermutation(n, seed);
    std::vector<int> fold(size_t(n), -1);
    int64_t pos = 0;
    for (int f = 0; f < folds; ++f) {
        const int64_t size = n / folds + (f < n % folds ? 1 : 0);
        for (int64_t k = 0; k < size; ++k)
            fold[size_t(order[size_t(pos++)])] = f;
    }
    return fold;
}

std::vector<int> selectBest(const std::vector<double>& scores, int keep)
{
    std::vector<int> order(scores.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        const double x = scores[size_t(a)], y = scores[size_t(b)];
        if (std::isnan(x) || std::isnan(y))
            return !std::isnan(x) && std::isnan(y);
        return x > y;
    });
    order.resize(size_t(std::clamp<int64_t>(keep, 0, int64_t(order.size()))));
    return order;
}

} // namespace tgraph
