// SPDX-License-Identifier: Apache-2.0
#pragma once

// Scoring a layout batch without gradients in the memory of one activation, node slice by node
// slice (docs/model.md §6.1, "Node slices"). With cross-attention a chunk of configurations is
// scored whole (its configs compete in every layer's softmax), so its (N, C, H) activations cannot
// be split by configuration; every operator of the stack is, however, local to a node or needs
// only column statistics over the nodes: instance norm (per (config, channel) moments), the gate
// and the cross-config softmax (per node), the SAGE mean (a node's messages). So one (N, C, H)
// buffer holds the layer's input, and each layer runs over slices of a few nodes (all their
// configs), writing its output over its input:
//   - f_in[0] and f_in[1]: the layer's Linear output (N, C, W), W <= H, goes compactly into the
//     front of the buffer slice by slice (a slice's W-wide rows never reach input rows not yet
//     read), its moments are taken there, and the normalized, gated, cross-attended rows are
//     expanded back to H channels in decreasing node order (a slice's H-wide rows only cover
//     compact rows already read);
//   - graph blocks: SAGE in aggregate-then-project form (sageInputRows: the normalized mean of
//     the messages beside the normalized row, one product with [W_l, W_r]), then the tail with the
//     residual read from the buffer; a slice's old rows that later slices still read as messages
//     (a message from a node of a later slice never needs it: nodes are processed in order) are
//     kept aside until their last reader has run. In the code's edge direction on a graph in
//     topological order nothing is kept aside;
//   - the last block's output is summed over the nodes (mean pooling) instead of written back.
// Peak: the buffer plus a few slices' temporaries. The values are forward()'s up to float
// rounding (other summation orders), tst_model nodeSlicedScoresMatchTheWholePass.

#include "model/nn/layers.h"

#include <torch/torch.h>

#include <cstdint>
#include <functional>

namespace tgraph::model {

// On by default; TGRAPH_SLICES=0 in the environment turns the node-sliced path off (A/B runs,
// `tgraph-bench scale --case slices=off`): forward() then scores such batches whole.
bool nodeSlicedScoringEnabled();
void setNodeSlicedScoringEnabled(bool enabled);

// f_in[0]'s Linear applied to X0 for nodes begin .. end - 1, written into `out`, a contiguous
// (end - begin, C, layerWidth) float32 view of the buffer.
using ProjectionRows = std::function<void(int64_t begin, int64_t end, torch::Tensor& out)>;

// Nodes per slice when pooledEmbeddingsBySlices is not told: about 8 MiB of SAGE input rows
// (C x 2H floats per node), a few thousand rows per product.
int64_t defaultSliceNodes(int64_t configs, int64_t hidden);

// The node embeddings after the encoder's last layer averaged over the N nodes, (C, H) float32, for a
// batch of `configs` configs; eval mode (no dropout), no gradients. `sliceNodes` nodes per slice
// (0: about 8 MiB of temporaries per slice).
torch::Tensor pooledEmbeddingsBySlices(const GraphEncoder& encoder, const ProjectionRows& projection, int64_t nodes,
    int64_t configs, const EdgeTensors& edges, int64_t sliceNodes = 0);

} // namespace tgraph::model
