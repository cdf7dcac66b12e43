// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/hlo/hlomodule.h"

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tgraph {

// The shape of an instruction written without one, as XLA's text parser infers it
// (docs/formats.md §8.7): XLA infers the shapes of some opcodes (element-wise ops, tuple,
// get-tuple-element, while, call, conditional, reduce, dot, ...) from their operands, attributes
// and called computations, with XLA's rules, layouts included; every other opcode must have its
// shape written (parameter, constant, convert, bitcast, reshape, fusion, custom-call, ...).

// True for the opcodes whose shape XLA's parser may infer (XLA's CanInferShape); for the others
// the text must give the shape.
bool canInferHloShape(std::string_view opcode);

// What inferring the shape of one instruction reads.
struct HloShapeRequest
{
    std::string_view opcode;
    std::span<const uint32_t> operands; // shape indices (HloModule::shapes) of the operands, in order
    // Root shapes of the called computations, in XLA's order (docs/formats.md §2.2): the single
    // to_apply / calls; a conditional's branches; a while's body, then its condition.
    std::span<const uint32_t> calleeRoots;
    IntSpan dimensions; // dimensions={...}
    bool hasDimensions = false; // whether the text gives dimensions=
    const HloInstructionDetails* details = nullptr; // window, dim_labels, padding (nullptr: none)
    const HloDotDims* dot = nullptr; // dot dimension numbers and sparsity (nullptr: none)
    int64_t featureGroupCount = 1;
    int64_t batchGroupCount = 1;
    std::span<const HloAttribute> attributes; // the other attributes, as written
};

// Why XLA's parser would not infer the shape: the problem, without a place (the caller adds it).
class HloShapeError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// The inferred shape of request.opcode, as an index into module.shapes: an operand's or a callee
// root's own index when the result is exactly that shape (layout included), else a shape appended
// to module.shapes (tuple elements first, contiguously) with its dimensions and layout appended to
// module.ints. Throws HloShapeError when the shape cannot be inferred (canInferHloShape is false,
// an attribute it needs is missing, or the operands do not fit the opcode).
uint32_t inferHloShape(HloModule& module, const HloShapeRequest& request);

// XLA's NameUniquer as its text parser uses it, separator '.': a name is split into a root and a
// numeric suffix (`add.3` -> `add`, 3), and a root's suffixes are handed out once each.
// unique(prefix) registers prefix and returns it, or prefix with the next free suffix when it is
// taken. XLA names an instruction written inline `<opcode>.anon`, `<opcode>.anon.1`, ...
// (docs/formats.md §8.7).
class HloNameUniquer
{
public:
    HloNameUniquer();
    ~HloNameUniquer();
    HloNameUniquer(const HloNameUniquer&) = delete;
    HloNameUniquer& operator=(const HloNameUniquer&) = delete;
    std::string unique(std::string_view prefix);
    // Registers a name written in the text (XLA registers each as it reads it); only names whose
    // root ends with ".anon" can meet a generated one, so only those are kept.
    void registerWritten(std::string_view name);

private:
    struct Roots;
    std::unique_ptr<Roots> m_roots;
};

} // namespace tgraph
