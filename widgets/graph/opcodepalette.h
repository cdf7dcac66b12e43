// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QColor>
#include <QString>

#include <string_view>
#include <vector>

namespace tgraph::widgets {

// The graph views' colours for XLA opcodes, grouped into families the way XLA's Graphviz dumps
// colour them (convolutions and dots stand out, data movement is muted). A legend lists them.
namespace OpcodePalette {

enum class Family {
    Convolution, // convolution, dot
    Fusion, // fusion, custom-call
    Reduction, // reduce, reduce-window, select-and-scatter, scatter, sort
    DataMovement, // reshape, transpose, copy, broadcast, slice, concatenate, pad, gather, ...
    Elementwise, // add, multiply, exp, compare, select, ...
    Parameter, // parameter, constant, iota
    Tuple, // tuple, get-tuple-element
    ControlFlow, // while, conditional, call, async ops, collectives
    Other,
};

Family familyOf(std::string_view opcode);
QColor color(Family family);
QColor color(std::string_view opcode);
QString familyName(Family family);
std::vector<Family> families();

// Configurable nodes get a thick border in this colour.
QColor configurableBorder();
// Nodes that pruning removes are drawn faded towards this colour.
QColor prunedTint();

} // namespace OpcodePalette

} // namespace tgraph::widgets
