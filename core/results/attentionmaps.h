// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the models can report besides scores, for the attention heatmap (torch-free plain structs).

#include <cstdint>
#include <string>
#include <vector>

namespace tgraph {

// One layer's attention, averaged over the graph's nodes.
struct LayerAttention
{
    std::string layer; // parameter prefix: "linear", "linear2", "convs.0", ...
    int64_t configs = 0; // rows: configurations of the batch, in batch order
    int64_t channels = 0; // columns: the layer's self channels (H/2 with cross-attn, H without)
    // configs x channels, row-major: ChannelGate values sigmoid(...) in (0, 1), mean over nodes.
    std::vector<float> gate;
    // configs x channels: cross-config softmax weights, mean over nodes; each column sums to 1
    // over the configs of the batch. Empty when cross-attn is off.
    std::vector<float> cross;
    // Per node (graph overlay): configs x nodes, row-major, the same values averaged over the
    // layer's channels instead of over nodes. Empty when not recorded (inference keeps them only
    // up to kMaxNodeMapValues per layer; see model/infer/inference.h).
    int64_t nodes = 0;
    std::vector<float> nodeGate;
    std::vector<float> nodeCross; // empty when cross-attn is off

    bool hasNodeMaps() const { return nodes > 0 && !nodeGate.empty(); }

    float gateAt(int64_t config, int64_t channel) const { return gate[size_t(config * channels + channel)]; }
    float crossAt(int64_t config, int64_t channel) const { return cross[size_t(config * channels + channel)]; }
};

struct AttentionMaps
{
    std::vector<LayerAttention> layers; // input side first
};

} // namespace tgraph
