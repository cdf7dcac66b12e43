// SPDX-License-Identifier: Apache-2.0
#pragma once

// A graph block of the TGraph model (GraphBlockImpl::forward on the fused path) as one autograd
// function that keeps only its input and recomputes the rest in the backward pass, the parts that
// are per configuration (instance norm, SAGE and their gradients) a few configurations at a time.
// The block's largest intermediates (the normalized input, SAGE's products and their gradients)
// then never exist for the whole batch at once; only the cross-config tail needs every
// configuration, and it runs whole. docs/model.md §11 ("Recomputation").

#include "model/nn/configwindow.h"
#include "model/nn/layers.h"

#include <torch/torch.h>

#include <cstdint>

namespace tgraph::model {

// Size of one (N, k, F) float32 slice that sets k, the configurations per chunk.
constexpr int64_t kBlockChunkBytes = int64_t(32) << 20;

// Configurations per chunk: as many as keep an (nodes, k, width) float32 slice within `bytes`, at
// least 1.
int64_t blockChunkConfigs(int64_t nodes, int64_t width, int64_t bytes);

// The block's output for h (N, C, H) float32 on the CPU, recorded for the backward pass as above.
// Dropout (when `training`) draws one seed from the default generator, as the block itself does,
// and keys its masks by `window`: the masks and values of the block's own forward pass. The
// gradient the backward pass receives is used as working memory (it becomes h's gradient), so
// the block's output must reach the loss through operations that hand it a gradient of its own
// (GraphEncoder's recompute path: the next recomputed layer, or the mean over nodes).
// `last`: the block is the last layer before the loss, so nothing runs between its forward and its
// backward pass; it keeps eta, z and the gate's hidden layer (two half activations with
// cross-attention, when its backward pass would rebuild them anyway) instead of recomputing them.
torch::Tensor recomputedBlock(const GraphBlock& block, const torch::Tensor& h, const EdgeTensors& edges, bool training,
    const ConfigWindow& window, bool last = false, int64_t chunkBytes = kBlockChunkBytes);

} // namespace tgraph::model
