// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

namespace tgraph {

// A run of node_feat columns that belong together (docs/formats.md §4.2).
struct FeatureGroup
{
    std::string name; // "Window stride"
    int first = 0; // first column
    int count = 0;
};

// The 140 node feature columns in 22 groups, in column order; together they cover every column once.
const std::vector<FeatureGroup>& nodeFeatureGroups();
// Column name: "is_root", "shape_dim_2", "window_stride_product", "layout_minor_to_major_0", ...
// "feature_N" outside 0..139.
const std::string& nodeFeatureName(int column);
// The group holding `column` (index into nodeFeatureGroups()), -1 outside 0..139.
int nodeFeatureGroupOf(int column);

// node_config_feat's 18 values per configurable node (docs/formats.md §5.1): minor-to-major dims of the
// output (0-5), input (6-11) and kernel (12-17) tensors; -1 = no constraint.
const std::string& layoutConfigFeatureName(int column);
// The tensors those 18 values describe, 6 values each: "output", "input", "kernel".
const std::vector<std::string>& layoutConfigTensors();

} // namespace tgraph
