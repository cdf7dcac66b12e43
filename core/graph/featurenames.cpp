// SPDX-License-Identifier: Apache-2.0
#include "core/graph/featurenames.h"

#include "core/graph/graph.h"

namespace tgraph {

namespace {

struct Tables
{
    std::vector<FeatureGroup> groups;
    std::vector<std::string> names;
    std::vector<int> groupOf;
    std::vector<std::string> configNames;

    void add(const std::string& group, const std::vector<std::string>& columns)
    {
        groups.push_back({ group, int(names.size()), int(columns.size()) });
        for (const std::string& c : columns) {
            names.push_back(c);
            groupOf.push_back(int(groups.size()) - 1);
        }
    }
    // SEQ6 / SEQ2: k leading values, then the sum and product over the whole list.
    void seq(const std::string& group, const std::string& stem, int k)
    {
        std::vector<std::string> columns;
        for (int i = 0; i < k; ++i)
            columns.push_back(stem + "_" + std::to_string(i));
        columns.push_back(stem + "_sum");
        columns.push_back(stem + "_product");
        add(group, columns);
    }
    // NOAGG_k: k leading values only.
    static std::vector<std::string> numbered(const std::string& stem, int k)
    {
        std::vector<std::string> columns;
        for (int i = 0; i < k; ++i)
            columns.push_back(stem + "_" + std::to_string(i));
        return columns;
    }

    Tables()
    {
        add("Instruction", { "is_root", "element_size_in_bits" });
        std::vector<std::string> types;
        for (const char* t : { "invalid", "pred", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64", "f16", "f32",
                 "f64", "bf16", "c64", "c128", "tuple", "opaque", "token" })
            types.push_back(std::string("element_type_") + t);
        add("Element type", types);
        std::vector<std::string> shape = numbered("shape_dim", 6);
        shape.insert(shape.end(), { "shape_dims_sum", "shape_dims_product", "tuple_shapes_size" });
        add("Shape", shape);
        add("Parameter", { "parameter_number" });
        add("Dimensions", numbered("dimensions", 6));
        seq("Window size", "window_size", 6);
        seq("Window stride", "window_stride", 6);
        seq("Window padding low", "window_padding_low", 6);
        seq("Window padding high", "window_padding_high", 6);
        seq("Window dilation", "window_dilation", 6);
        seq("Window base dilation", "window_base_dilation", 6);
        std::vector<std::string> reversal = numbered("window_reversal", 6);
        reversal.insert(reversal.end(), { "window_reversal_true_count", "window_reversal_false_count" });
        add("Window reversal", reversal);
        std::vector<std::string> conv = { "conv_input_batch_dim", "conv_input_feature_dim" };
        for (const std::string& c : numbered("conv_input_spatial_dim", 4))
            conv.push_back(c);
        conv.insert(conv.end(), { "conv_kernel_input_feature_dim", "conv_kernel_output_feature_dim" });
        for (const std::string& c : numbered("conv_kernel_spatial_dim", 4))
            conv.push_back(c);
        conv.insert(conv.end(), { "conv_output_batch_dim", "conv_output_feature_dim" });
        add("Convolution dimensions", conv);
        add("Group counts", { "feature_group_count", "batch_group_count" });
        seq("Slice start", "slice_start", 2);
        seq("Slice stride", "slice_stride", 2);
        seq("Slice limit", "slice_limit", 2);
        seq("Dynamic slice sizes", "dynamic_slice_size", 2);
        seq("Padding low", "padding_low", 2);
        seq("Padding high", "padding_high", 2);
        add("Sort", { "is_stable" });
        add("Layout", numbered("layout_minor_to_major", 6));

        for (const char* tensor : { "output", "input", "kernel" })
            for (int i = 0; i < 6; ++i)
                configNames.push_back(std::string(tensor) + "_layout_" + std::to_string(i));
    }
};

const Tables& tables()
{
    static const Tables t;
    return t;
}

} // namespace

const std::vector<FeatureGroup>& nodeFeatureGroups() { return tables().groups; }

const std::string& nodeFeatureName(int column)
{
    if (column < 0 || column >= int(tables().names.size())) {
        thread_local std::string out;
        out = "feature_" + std::to_string(column);
        return out;
    }
    return tables().names[size_t(column)];
}

int nodeFeatureGroupOf(int column)
{
    return column < 0 || column >= int(tables().groupOf.size()) ? -1 : tables().groupOf[size_t(column)];
}

const std::string& layoutConfigFeatureName(int column)
{
    if (column < 0 || column >= kLayoutConfigFeatures) {
        thread_local std::string out;
        out = "config_feature_" + std::to_string(column);
        return out;
    }
    return tables().configNames[size_t(column)];
}

const std::vector<std::string>& layoutConfigTensors()
{
    static const std::vector<std::string> tensors = { "output", "input", "kernel" };
    return tensors;
}

} // namespace tgraph
