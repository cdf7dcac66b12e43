// SPDX-License-Identifier: Apache-2.0
#include "core/hlo/hlotextwriter.h"

#include <algorithm>
#include <unordered_map>

namespace tgraph {

namespace {

bool isIdentifier(std::string_view name)
{
    const auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    if (name.empty() || !(alpha(name.front()) || name.front() == '_'))
        return false;
    for (const char c : name)
        if (!(alpha(c) || digit(c) || c == '_' || c == '.' || c == '-'))
            return false;
    return true;
}

// A C string literal as XLA's printer writes one: quotes, backslashes and control bytes escaped.
std::string quoted(std::string_view text)
{
    static const char hex[] = "0123456789abcdef";
    std::string out = "\"";
    for (const char c : text) {
        const auto b = uint8_t(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (b < 0x20 || b == 0x7f) {
            out += "\\x";
            out += hex[b >> 4];
            out += hex[b & 15];
        } else {
            out += c;
        }
    }
    return out + "\"";
}

std::string joined(std::span<const int64_t> values, const char* separator = ",")
{
    std::string out;
    for (size_t k = 0; k < values.size(); ++k)
        out += (k ? separator : "") + std::to_string(values[k]);
    return out;
}

class Writer
{
public:
    explicit Writer(const HloModule& m)
        : m(m)
    {
        for (size_t k = 0; k < m.instructions.size(); ++k)
            m_instructionById.emplace(m.instructions[k].id, k);
        for (size_t k = 0; k < m.computations.size(); ++k)
            m_computationById.emplace(m.computations[k].id, k);
    }

    std::string write()
    {
        m_out = "HloModule " + checkedName(m.name.empty() ? std::string_view("module") : m.name, "module") + "\n";
        const int64_t entry = m.entryIndex();
        for (size_t c = 0; c < m.computations.size(); ++c)
            computation(m.computations[c], int64_t(c) == entry);
        return std::move(m_out);
    }

private:
    static std::string checkedName(std::string_view name, const char* what)
    {
        if (!isIdentifier(name))
            throw HloTextWriteError(std::string("the ") + what + " name " + quoted(name)
                + " cannot be written as an HLO identifier (letters, digits, '_', '.', '-')");
        return std::string(name);
    }

    std::string_view instructionName(int64_t id) const
    {
        const auto it = m_instructionById.find(id);
        if (it == m_instructionById.end())
            throw HloTextWriteError("operand id " + std::to_string(id) + " names no instruction of the module");
        return m.instructions[it->second].name;
    }

    std::string computationName(int64_t id) const
    {
        const auto it = m_computationById.find(id);
        if (it == m_computationById.end())
            throw HloTextWriteError("called computation id " + std::to_string(id) + " names no computation");
        return "%" + checkedName(m.computations[it->second].name, "computation");
    }

    void computation(const HloComputation& c, bool entry)
    {
        m_out += "\n";
        if (entry)
            m_out += "ENTRY ";
        m_out += "%" + checkedName(c.name, "computation") + " {\n";
        for (const HloInstruction& inst : m.instructionsOf(c))
            instruction(inst, inst.id == c.rootId);
        m_out += "}";
        if (!c.executionThread.empty())
            m_out += ", execution_thread=" + quoted(c.executionThread);
        m_out += "\n";
    }

    void instruction(const HloInstruction& inst, bool root)
    {
        const std::string_view op = inst.opcode;
        m_out += root ? "  ROOT %" : "  %";
        m_out += checkedName(inst.name, "instruction") + " = " + m.shapeToText(inst.shape) + " "
            + checkedName(op, "opcode") + "(";
        if (op == "parameter") {
            m_out += std::to_string(inst.parameterNumber);
        } else if (op == "constant") {
            m_out += "{...}";
        } else {
            const auto operands = m.span(inst.operandIds);
            for (size_t k = 0; k < operands.size(); ++k)
                m_out += (k ? ", %" : "%") + std::string(instructionName(operands[k]));
        }
        m_out += ")";
        attributes(inst);
        m_out += "\n";
    }

    void attributes(const HloInstruction& inst)
    {
        const std::string_view op = inst.opcode;
        if (inst.dimensions.count) {
            if (op == "iota")
                m_out += ", iota_dimension=" + std::to_string(m.span(inst.dimensions)[0]);
            else
                m_out += ", dimensions={" + joined(m.span(inst.dimensions)) + "}";
        }
        // The reader gives convolutions and custom-calls a group count of 1 when it is not written.
        const int64_t groupDefault = op == "convolution" || op == "custom-call" ? 1 : 0;
        if (inst.featureGroupCount != groupDefault)
            m_out += ", feature_group_count=" + std::to_string(inst.featureGroupCount);
        if (inst.batchGroupCount != groupDefault)
            m_out += ", batch_group_count=" + std::to_string(inst.batchGroupCount);
        if (inst.isStable)
            m_out += ", is_stable=true";
        const HloInstructionDetails& d = m.detailsOf(inst);
        if (d.windowCount)
            window(d);
        if (d.convolutionDims >= 0)
            dimLabels(m.convolutionDims[size_t(d.convolutionDims)]);
        if (d.sliceCount) {
            m_out += ", slice={";
            for (uint32_t k = 0; k < d.sliceCount; ++k) {
                const HloSliceDimension& s = m.slices[d.sliceOffset + k];
                m_out += (k ? ", [" : "[") + std::to_string(s.start) + ":" + std::to_string(s.limit);
                if (s.stride != 1)
                    m_out += ":" + std::to_string(s.stride);
                m_out += "]";
            }
            m_out += "}";
        }
        if (d.dynamicSliceSizes.count)
            m_out += ", dynamic_slice_sizes={" + joined(m.span(d.dynamicSliceSizes)) + "}";
        if (d.paddingCount) {
            m_out += ", padding=";
            for (uint32_t k = 0; k < d.paddingCount; ++k) {
                const HloPaddingDimension& p = m.paddings[d.paddingOffset + k];
                m_out += (k ? "x" : "") + std::to_string(p.low) + "_" + std::to_string(p.high);
                if (p.interior)
                    m_out += "_" + std::to_string(p.interior);
            }
        }
        if (d.dotDims >= 0)
            dotDims(m.dotDims[size_t(d.dotDims)]);
        calls(inst);
        bool metadataKept = false;
        for (uint32_t k = 0; k < d.attributeCount; ++k) {
            const HloAttribute& a = m.attributes[d.attributeOffset + k];
            if (a.name == "sparsity")
                continue; // written from the dot dimensions above
            metadataKept = metadataKept || a.name == "metadata";
            m_out += ", " + checkedName(a.name, "attribute") + "=" + std::string(a.value);
        }
        if (!metadataKept) {
            const size_t position = size_t(&inst - m.instructions.data());
            const HloOpMetadata& meta = m.opMetadataOf(position);
            if (!meta.opType.empty() || !meta.opName.empty()) {
                m_out += ", metadata={";
                if (!meta.opType.empty())
                    m_out += "op_type=" + quoted(meta.opType) + (meta.opName.empty() ? "" : " ");
                if (!meta.opName.empty())
                    m_out += "op_name=" + quoted(meta.opName);
                m_out += "}";
            }
        }
    }

    // window={size=3x3 stride=2x2 pad=0_1x0_1 lhs_dilate=.. rhs_dilate=.. rhs_reversal=..}, the
    // fields at their defaults left out as XLA leaves them out.
    void window(const HloInstructionDetails& d)
    {
        std::string size, stride, pad, lhsDilate, rhsDilate, reversal;
        bool anyStride = false, anyPad = false, anyLhs = false, anyRhs = false, anyReversal = false;
        for (uint32_t k = 0; k < d.windowCount; ++k) {
            const HloWindowDimension& w = m.windowDims[d.windowOffset + k];
            const char* x = k ? "x" : "";
            size += x + std::to_string(w.size);
            stride += x + std::to_string(w.stride);
            pad += x + std::to_string(w.paddingLow) + "_" + std::to_string(w.paddingHigh);
            lhsDilate += x + std::to_string(w.baseDilation);
            rhsDilate += x + std::to_string(w.windowDilation);
            reversal += x + std::string(w.reversal ? "1" : "0");
            anyStride = anyStride || w.stride != 1;
            anyPad = anyPad || w.paddingLow || w.paddingHigh;
            anyLhs = anyLhs || w.baseDilation != 1;
            anyRhs = anyRhs || w.windowDilation != 1;
            anyReversal = anyReversal || w.reversal;
        }
        m_out += ", window={size=" + size;
        if (anyStride)
            m_out += " stride=" + stride;
        if (anyPad)
            m_out += " pad=" + pad;
        if (anyLhs)
            m_out += " lhs_dilate=" + lhsDilate;
        if (anyRhs)
            m_out += " rhs_dilate=" + rhsDilate;
        if (anyReversal)
            m_out += " rhs_reversal=" + reversal;
        m_out += "}";
    }

    // dim_labels=b01f_01io->b01f: each operand's dimensions labelled in order, spatial ones by
    // their number, '?' for a dimension no label names (custom-calls may write `?b01f`); a '?'
    // after the last label is not kept.
    void dimLabels(const HloConvolutionDims& c)
    {
        const auto labels = [&](int64_t a, char la, int64_t b, char lb, IntSpan spatial) {
            const auto sp = m.span(spatial);
            int64_t last = std::max(a, b);
            for (const int64_t d : sp)
                last = std::max(last, d);
            if (last >= 64)
                throw HloTextWriteError("a convolution dimension number out of range: " + std::to_string(last));
            std::string out(size_t(std::max<int64_t>(last, 0) + 1), '?');
            const auto place = [&](int64_t at, char label) {
                if (at < 0 || size_t(at) >= out.size() || out[size_t(at)] != '?')
                    throw HloTextWriteError("convolution dimension numbers that are not a permutation");
                out[size_t(at)] = label;
            };
            place(a, la);
            place(b, lb);
            if (sp.size() > 10)
                throw HloTextWriteError("a convolution with more than 10 spatial dimensions");
            for (size_t k = 0; k < sp.size(); ++k)
                place(sp[k], char('0' + k));
            return out;
        };
        m_out += ", dim_labels=" + labels(c.inputBatch, 'b', c.inputFeature, 'f', c.inputSpatial) + "_"
            + labels(c.kernelInputFeature, 'i', c.kernelOutputFeature, 'o', c.kernelSpatial) + "->"
            + labels(c.outputBatch, 'b', c.outputFeature, 'f', c.outputSpatial);
    }

    void dotDims(const HloDotDims& d)
    {
        if (d.lhsBatch.count)
            m_out += ", lhs_batch_dims={" + joined(m.span(d.lhsBatch)) + "}";
        if (d.lhsContracting.count)
            m_out += ", lhs_contracting_dims={" + joined(m.span(d.lhsContracting)) + "}";
        if (d.rhsBatch.count)
            m_out += ", rhs_batch_dims={" + joined(m.span(d.rhsBatch)) + "}";
        if (d.rhsContracting.count)
            m_out += ", rhs_contracting_dims={" + joined(m.span(d.rhsContracting)) + "}";
        const auto s = m.span(d.sparsity);
        if (s.size() >= 4) {
            m_out += ", sparsity=";
            for (size_t k = 0; k + 3 < s.size(); k += 4)
                m_out += std::string(k ? "_" : "") + (s[k] == 0 ? "L." : "R.") + std::to_string(s[k + 1]) + "@"
                    + std::to_string(s[k + 2]) + ":" + std::to_string(s[k + 3]);
        }
    }

    // The called computations, in XLA's order (docs/formats.md §2.2), under the attribute names
    // XLA prints them with.
    void calls(const HloInstruction& inst)
    {
        const auto ids = m.span(inst.calledComputationIds);
        if (ids.empty())
            return;
        const std::string_view op = inst.opcode;
        const auto list = [&](size_t from) {
            std::string out = "{";
            for (size_t k = from; k < ids.size(); ++k)
                out += (k > from ? ", " : "") + computationName(ids[k]);
            return out + "}";
        };
        if (op == "while" && ids.size() == 2) {
            m_out += ", body=" + computationName(ids[0]) + ", condition=" + computationName(ids[1]);
        } else if (op == "select-and-scatter" && ids.size() == 2) {
            m_out += ", select=" + computationName(ids[0]) + ", scatter=" + computationName(ids[1]);
        } else if (op == "conditional") {
            m_out += ", branch_computations=" + list(0);
        } else if (op == "custom-call" || ids.size() > 1) {
            m_out += ", called_computations=" + list(0);
        } else if (op == "fusion" || op.starts_with("async-")) {
            m_out += ", calls=" + computationName(ids[0]);
        } else {
            m_out += ", to_apply=" + computationName(ids[0]);
        }
    }

    const HloModule& m;
    std::unordered_map<int64_t, size_t> m_instructionById;
    std::unordered_map<int64_t, size_t> m_computationById;
    std::string m_out;
};

} // namespace

std::string writeHloText(const HloModule& module) { return Writer(module).write(); }

} // namespace tgraph
