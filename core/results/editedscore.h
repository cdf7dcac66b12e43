// SPDX-License-Identifier: Apache-2.0
#pragma once

// The scores of a what-if edit: a config with one node's layout values replaced, scored in the
// same forward pass as the config it was made from (model/infer/explain.h: scoreEditedLayout).

namespace tgraph {

struct EditedScore
{
    double base = 0; // score of `base` in the pass
    double edited = 0; // score of the edited config in the same pass
    double effect() const { return edited - base; } // > 0 = the edit is predicted slower
};

} // namespace tgraph
