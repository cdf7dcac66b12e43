// SPDX-License-Identifier: Apache-2.0
#include "widgets/graph/opcodepalette.h"

#include <QCoreApplication>

#include <algorithm>
#include <array>

namespace tgraph::widgets {

namespace OpcodePalette {

namespace {

bool isOneOf(std::string_view opcode, std::initializer_list<std::string_view> names)
{
    return std::find(names.begin(), names.end(), opcode) != names.end();
}

} // namespace

Family familyOf(std::string_view opcode)
{
    if (isOneOf(opcode, { "convolution", "dot" }))
        return Family::Convolution;
    if (isOneOf(opcode, { "fusion", "custom-call" }))
        return Family::Fusion;
    if (isOneOf(opcode, { "reduce", "reduce-window", "select-and-scatter", "scatter", "sort", "reduce-precision" }))
        return Family::Reduction;
    if (isOneOf(opcode,
            { "reshape", "transpose", "copy", "broadcast", "slice", "dynamic-slice", "dynamic-update-slice",
                "concatenate", "pad", "gather", "reverse", "bitcast", "copy-start", "copy-done" }))
        return Family::DataMovement;
    if (isOneOf(opcode, { "parameter", "constant", "iota", "rng", "rng-get-and-update-state" }))
        return Family::Parameter;
    if (isOneOf(opcode, { "tuple", "get-tuple-element" }))
        return Family::Tuple;
    if (isOneOf(opcode,
            { "while", "conditional", "call", "async-start", "async-update", "async-done", "all-reduce", "all-gather",
                "all-to-all", "collective-permute", "reduce-scatter", "send", "recv", "send-done", "recv-done",
                "after-all", "infeed", "outfeed", "partition-id", "replica-id" }))
        return Family::ControlFlow;
    if (opcode.empty() || opcode == "unknown" || opcode.substr(0, 7) == "opcode-")
        return Family::Other;
    return Family::Elementwise;
}

QColor color(Family family)
{
    switch (family) {
    case Family::Convolution:
        return QColor(0x4f, 0x8f, 0xe8);
    case Family::Fusion:
        return QColor(0xb3, 0x8c, 0xe0);
    case Family::Reduction:
        return QColor(0xf0, 0xa2, 0x4b);
    case Family::DataMovement:
        return QColor(0x8f, 0xcf, 0x8a);
    case Family::Elementwise:
        return QColor(0xe6, 0xe6, 0xe6);
    case Family::Parameter:
        return QColor(0xf5, 0xd7, 0x6e);
    case Family::Tuple:
        return QColor(0xc8, 0xc8, 0xb4);
    case Family::ControlFlow:
        return QColor(0xe8, 0x7a, 0x7a);
    case Family::Other:
        break;
    }
    return QColor(0xb0, 0xb0, 0xb0);
}

QColor color(std::string_view opcode) { return color(familyOf(opcode)); }

QString familyName(Family family)
{
    switch (family) {
    case Family::Convolution:
        return QCoreApplication::translate("OpcodePalette", "Convolution, dot");
    case Family::Fusion:
        return QCoreApplication::translate("OpcodePalette", "Fusion, custom call");
    case Family::Reduction:
        return QCoreApplication::translate("OpcodePalette", "Reduction, scatter, sort");
    case Family::DataMovement:
        return QCoreApplication::translate("OpcodePalette", "Data movement");
    case Family::Elementwise:
        return QCoreApplication::translate("OpcodePalette", "Elementwise");
    case Family::Parameter:
        return QCoreApplication::translate("OpcodePalette", "Parameter, constant");
    case Family::Tuple:
        return QCoreApplication::translate("OpcodePalette", "Tuple");
    case Family::ControlFlow:
        return QCoreApplication::translate("OpcodePalette", "Control flow, collectives");
    case Family::Other:
        break;
    }
    return QCoreApplication::translate("OpcodePalette", "Other");
}

std::vector<Family> families()
{
    return { Family::Convolution, Family::Fusion, Family::Reduction, Family::DataMovement, Family::Elementwise,
        Family::Parameter, Family::Tuple, Family::ControlFlow, Family::Other };
}

QColor configurableBorder() { return QColor(0xd0, 0x10, 0x60); }

QColor prunedTint() { return QColor(0xf4, 0xf4, 0xf4); }

} // namespace OpcodePalette

} // namespace tgraph::widgets
