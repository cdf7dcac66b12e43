// SPDX-License-Identifier: Apache-2.0
#pragma once

// Where a batch of configs sits in a larger batch (docs/model.md §11, "Config chunks"). Dropout
// keys its masks by the position of a (node, config) row in the whole batch (fusedkernels.h), so
// the configs of a batch scored chunk by chunk draw the masks the whole batch would draw, as long
// as every chunk starts from the same state of the dropout generator. Torch-free.

#include <cstdint>

namespace tgraph::model {

struct ConfigWindow
{
    int64_t offset = 0; // the batch's first config is config `offset` of the whole batch
    int64_t total = 0; // configs of the whole batch; 0 = the batch is the whole batch

    // The window of a sub-batch starting at config `begin` of this batch of `configs` configs.
    ConfigWindow sub(int64_t begin, int64_t configs) const { return { offset + begin, total > 0 ? total : configs }; }
};

} // namespace tgraph::model
