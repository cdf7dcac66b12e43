// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <vector>

// TensorBoard's scalar smoothing: an exponential moving average debiased like Adam's moments, so
// the first points are not pulled towards 0. With weight w, for the k-th finite value v_k
// (k = 1, 2, ...): last_k = w * last_{k-1} + (1 - w) * v_k with last_0 = 0, smoothed_k =
// last_k / (1 - w^k). Non-finite values are passed through unchanged and do not update the
// average; w = 0 returns the input; w is clamped to [0, 0.999].
std::vector<double> debiasedEma(const std::vector<double>& values, double weight);
