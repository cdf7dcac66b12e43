// SPDX-License-Identifier: Apache-2.0
#pragma once

// What an Ensemble holds: model/infer's loaded members. Private to model/facade (it includes
// LibTorch): app/studio and widgets include ensemble.h, never this file.

#include "model/facade/ensemble.h"
#include "model/infer/inference.h"

#include <vector>

namespace tgraph::facade {

struct Ensemble::Members
{
    std::vector<model::EnsembleMember> list;
};

} // namespace tgraph::facade
