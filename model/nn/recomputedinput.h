// SPDX-License-Identifier: Apache-2.0
#pragma once

// f_in[0] and f_in[1] of the TGraph model (LinearActNormImpl::afterLinear, then
// LinearActNormImpl::forward, on the fused path) as one autograd function that keeps only the two
// layers' normalized inputs (half an activation wide each with cross-attention) and their instance
// norms' statistics, not f_in[1]'s input (a whole activation). Its backward pass runs the gates
// again, and f_in[0]'s tail to get f_in[1]'s input for the Linear's weight gradient, and
// differentiates both layers by hand: instance norms through the column kernels (fusedkernels.h),
// gate tails through the fused kernel, the gates' z overwritten by their own gradients.
// docs/model.md §11 ("Recomputation").

#include "model/nn/layers.h"

#include <torch/torch.h>

namespace tgraph::model {

// projected: (N, C, W) float32 on the CPU, f_in[0]'s Linear already applied (GraphEncoder's
// input). Returns f_in[1]'s output (N, C, H). As with recomputedBlock (recomputedblock.h), the
// gradient the backward pass receives is used as working memory.
torch::Tensor recomputedInputLayers(const LinearActNorm& first, const LinearActNorm& second, const torch::Tensor& projected);

} // namespace tgraph::model
