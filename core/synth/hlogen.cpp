// SPDX-License-Identifier: Apache-2.0
#include "core/synth/hlogen.h"

#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>

namespace tgraph {

namespace {

struct Shape
{
    std::string type = "f32";
    std::vector<int64_t> dims;
    std::vector<Shape> elements; // a tuple when type == "tuple"

    static Shape tuple(std::vector<Shape> elements)
    {
        Shape t;
        t.type = "tuple";
        t.elements = std::move(elements);
        return t;
    }

    std::string text() const
    {
        if (type == "tuple") {
            std::string s = "(";
            for (size_t i = 0; i < elements.size(); ++i)
                s += (i ? ", " : "") + elements[i].text();
            return s + ")";
        }
        std::string s = type + "[";
        for (size_t i = 0; i < dims.size(); ++i)
            s += (i ? "," : "") + std::to_string(dims[i]);
        s += "]";
        if (!dims.empty()) {
            s += "{";
            for (size_t i = 0; i < dims.size(); ++i)
                s += (i ? "," : "") + std::to_string(dims.size() - 1 - i);
            s += "}";
        }
        return s;
    }
    Shape with(std::vector<int64_t> d) const { return Shape { type, std::move(d), {} }; }
    Shape scalar() const { return Shape { type, {}, {} }; }
};

struct Val
{
    std::string name;
    Shape shape;
};

std::string list(const std::vector<int64_t>& v)
{
    std::string s = "{";
    for (size_t i = 0; i < v.size(); ++i)
        s += (i ? "," : "") + std::to_string(v[i]);
    return s + "}";
}

class Builder;

// One computation being written; instructions are numbered module-wide like XLA's names.
class Comp
{
public:
    Comp(Builder& b, std::string name)
        : m_b(b)
        , m_name(std::move(name))
    { }
    Val param(const Shape& s);
    Val op(const std::string& opcode, const Shape& s, const std::vector<Val>& operands, const std::string& attrs = {},
        const std::string& opType = {});
    Val constant(const Shape& s, const std::string& literal)
    {
        return op("constant(" + literal + ")", s, {}, {}, "Const");
    }
    std::string finish(const Val& root, bool entry = false);
    const std::string& name() const { return m_name; }

private:
    Builder& m_b;
    std::string m_name;
    std::vector<Val> m_params;
    std::vector<std::string> m_lines;
    std::string m_rootName;
};

class Builder
{
public:
    Builder(const HloGenSpec& spec)
        : m_spec(spec)
        , m_rng(spec.seed)
    { }

    std::string uniqueName(const std::string& base) { return base + "." + std::to_string(++m_counter[base]); }
    int64_t instructions() const { return m_instructions; }
    void count() { ++m_instructions; }
    std::string metadata(const std::string& opType)
    {
        if (!m_spec.metadata || opType.empty())
            return {};
        return ", metadata={op_type=\"" + opType + "\" op_name=\"" + m_scope + "/" + opType
            + "\" source_file=\"model.py\" " + "source_line=" + std::to_string(100 + m_instructions % 900) + "}";
    }
    void scope(const std::string& s) { m_scope = s; }
    void add(std::string computationText) { m_text += computationText + "\n"; }
    std::mt19937_64& rng() { return m_rng; }

    // A scalar reducer computation (add or max) per element type, written once.
    std::string reducer(const std::string& kind, const std::string& type)
    {
        const std::string key = kind + type;
        auto it = m_reducers.find(key);
        if (it != m_reducers.end())
            return it->second;
        Comp c(*this, uniqueName("region_" + kind + "_" + type));
        const Shape s { type, {}, {} };
        const Val a = c.param(s);
        const Val b = c.param(s);
        add(c.finish(c.op(kind == "add" ? "add" : "maximum", s, { a, b })));
        return m_reducers[key] = c.name();
    }

    std::string text(const std::string& moduleName) const { return "HloModule " + moduleName + "\n\n" + m_text; }

private:
    HloGenSpec m_spec;
    std::mt19937_64 m_rng;
    std::map<std::string, int> m_counter;
    std::map<std::string, std::string> m_reducers;
    std::string m_scope = "model";
    std::string m_text;
    int64_t m_instructions = 0;
};

Val Comp::param(const Shape& s)
{
    Val v { m_b.uniqueName("param_" + std::to_string(m_params.size())), s };
    m_lines.push_back("  %" + v.name + " = " + s.text() + " parameter(" + std::to_string(m_params.size()) + ")");
    m_params.push_back(v);
    m_b.count();
    return v;
}

Val Comp::op(const std::string& opcode, const Shape& s, const std::vector<Val>& operands, const std::string& attrs,
    const std::string& opType)
{
    const std::string base = opcode.substr(0, opcode.find('('));
    Val v { m_b.uniqueName(base), s };
    std::string line = "  %" + v.name + " = " + s.text() + " " + opcode;
    if (opcode.find('(') == std::string::npos) {
        line += "(";
        for (size_t i = 0; i < operands.size(); ++i)
            line += (i ? ", %" : "%") + operands[i].name;
        line += ")";
    }
    line += attrs + m_b.metadata(opType);
    m_lines.push_back(line);
    m_b.count();
    return v;
}

std::string Comp::finish(const Val& root, bool entry)
{
    std::string head = (entry ? "ENTRY %" : "%") + m_name + " (";
    for (size_t i = 0; i < m_params.size(); ++i)
        head += (i ? ", " : "") + m_params[i].name + ": " + m_params[i].shape.text();
    head += ") -> " + root.shape.text() + " {\n";
    std::string body;
    for (auto& l : m_lines) {
        if (l.compare(0, root.name.size() + 3, "  %" + root.name) == 0 && l[root.name.size() + 3] == ' ')
            l = "  ROOT " + l.substr(2);
        body += l + "\n";
    }
    return head + body + "}\n";
}

// ---- building blocks ------------------------------------------------------------------------

Val broadcastTo(Comp& c, const Val& v, const Shape& to, std::vector<int64_t> dims)
{
    return c.op("broadcast", to, { v }, ", dimensions=" + list(dims));
}

// scale * x + bias, then relu (max with 0), per channel (last dimension) in a fused computation.
Val fusedBatchNormRelu(Builder& b, Comp& outer, const Val& x, const Val& scale, const Val& bias, const Val* residual)
{
    Comp f(b, b.uniqueName("fused_computation"));
    const Val px = f.param(x.shape);
    const Val ps = f.param(scale.shape);
    const Val pb = f.param(bias.shape);
    const int64_t last = int64_t(x.shape.dims.size()) - 1;
    Val y = f.op("multiply", x.shape, { px, broadcastTo(f, ps, x.shape, { last }) }, {}, "Mul");
    y = f.op("add", x.shape, { y, broadcastTo(f, pb, x.shape, { last }) }, {}, "AddV2");
    std::vector<Val> operands { x, scale, bias };
    if (residual) {
        const Val pr = f.param(residual->shape);
        y = f.op("add", x.shape, { y, pr }, {}, "AddV2");
        operands.push_back(*residual);
    }
    const Val zero = f.constant(x.shape.scalar(), "0");
    y = f.op("maximum", x.shape, { y, broadcastTo(f, zero, x.shape, {}) }, {}, "Relu");
    b.add(f.finish(y));
    return outer.op("fusion", x.shape, operands, ", kind=kLoop, calls=%" + f.name(), "FusedBatchNormV3");
}

// Deterministic choice in [0, n): the std distributions differ between standard libraries.
int64_t pick(std::mt19937_64& rng, int64_t n) { return int64_t(rng() % uint64_t(n)); }

// "vxvxv" with one entry per spatial dimension, as window attributes write them.
std::string perSpatial(const std::string& value, size_t spatial)
{
    std::string s;
    for (size_t i = 0; i < spatial; ++i)
        s += (i ? "x" : "") + value;
    return s;
}

// A convolution over the spatial dimensions of a channels-last tensor (NHWC, or NDHWC in 3-D) with a
// k^r kernel and "same" padding. stride > 1 downsamples; lhsDilate > 1 upsamples by that factor: a
// transposed convolution (conv backprop input) as XLA writes it, the dilated input padded by
// lhsDilate - 1 more at the high end.
Val convolution(
    Comp& c, const Val& x, int64_t outChannels, int64_t k, int64_t stride, int64_t lhsDilate, const std::string& opType)
{
    const auto& d = x.shape.dims;
    const size_t spatial = d.size() - 2;
    std::vector<int64_t> kernel(spatial, k);
    kernel.push_back(d.back());
    kernel.push_back(outChannels);
    const Val weights = c.param(x.shape.with(kernel));
    const int64_t low = (k - 1) / 2;
    const int64_t high = k - 1 - low + (lhsDilate - 1);
    std::vector<int64_t> out { d[0] };
    for (size_t i = 1; i <= spatial; ++i)
        out.push_back(((d[i] - 1) * lhsDilate + 1 + low + high - k) / stride + 1);
    out.push_back(outChannels);
    std::string window = "size=" + perSpatial(std::to_string(k), spatial);
    if (stride > 1)
        window += " stride=" + perSpatial(std::to_string(stride), spatial);
    if (low || high)
        window += " pad=" + perSpatial(std::to_string(low) + "_" + std::to_string(high), spatial);
    if (lhsDilate > 1)
        window += " lhs_dilate=" + perSpatial(std::to_string(lhsDilate), spatial);
    std::string labels;
    for (size_t i = 0; i < spatial; ++i)
        labels += char('0' + i);
    return c.op("convolution", x.shape.with(out), { x, weights },
        ", window={" + window + "}, dim_labels=b" + labels + "f_" + labels + "io->b" + labels + "f", opType);
}

Val conv2d(Comp& c, const Val& x, int64_t outChannels, int64_t k, int64_t stride)
{
    return convolution(c, x, outChannels, k, stride, 1, "Conv2D");
}

Val dense(Builder& b, Comp& c, const Val& x, int64_t out, bool relu)
{
    const Val w = c.param(x.shape.with({ x.shape.dims[1], out }));
    const Val y = c.op("dot", x.shape.with({ x.shape.dims[0], out }), { x, w },
        ", lhs_contracting_dims={1}, rhs_contracting_dims={0}", "MatMul");
    const Val bias = c.param(x.shape.with({ out }));
    if (!relu)
        return c.op("add", y.shape, { y, broadcastTo(c, bias, y.shape, { 1 }) }, {}, "BiasAdd");
    const Val scale = c.param(x.shape.with({ out }));
    return fusedBatchNormRelu(b, c, y, scale, bias, nullptr);
}

Val softmax(Builder& b, Comp& c, const Val& x)
{
    const int64_t last = int64_t(x.shape.dims.size()) - 1;
    std::vector<int64_t> keep(x.shape.dims.begin(), x.shape.dims.end() - 1);
    std::vector<int64_t> keepDims;
    for (int64_t i = 0; i < last; ++i)
        keepDims.push_back(i);
    const Shape reduced = x.shape.with(keep);
    const Val minusInf = c.constant(x.shape.scalar(), "-inf");
    const Val mx = c.op("reduce", reduced, { x, minusInf },
        ", dimensions={" + std::to_string(last) + "}, to_apply=%" + b.reducer("max", x.shape.type), "Max");
    const Val shifted = c.op("subtract", x.shape, { x, broadcastTo(c, mx, x.shape, keepDims) }, {}, "Sub");
    const Val e = c.op("exponential", x.shape, { shifted }, {}, "Exp");
    const Val zero = c.constant(x.shape.scalar(), "0");
    const Val sum = c.op("reduce", reduced, { e, zero },
        ", dimensions={" + std::to_string(last) + "}, to_apply=%" + b.reducer("add", x.shape.type), "Sum");
    return c.op("divide", x.shape, { e, broadcastTo(c, sum, x.shape, keepDims) }, {}, "RealDiv");
}

// Batch-norm/relu fusion with its own scale and bias parameters (created in a fixed order).
Val bnRelu(Builder& b, Comp& c, const Val& y, int64_t channels)
{
    const Val scale = c.param(y.shape.with({ channels }));
    const Val bias = c.param(y.shape.with({ channels }));
    return fusedBatchNormRelu(b, c, y, scale, bias, nullptr);
}

// ---- families -------------------------------------------------------------------------------

std::string resnet(const HloGenSpec& spec)
{
    Builder b(spec);
    std::mt19937_64& rng = b.rng();
    Comp entry(b, "cluster_resnet_main");
    // The seed picks batch, input size, stem width (not always a multiple of the 128-lane tile, like
    // mobile and slimmed networks), block kind and how often the resolution halves.
    static const int64_t batches[] = { 1, 2, 4, 8, 16, 32 };
    static const int64_t sides[] = { 224, 192, 160, 128, 96 };
    static const int64_t stems[] = { 16, 24, 32, 48, 64, 96 };
    const int64_t batch = batches[pick(rng, 6)];
    const int64_t side = sides[pick(rng, 5)];
    const bool bottleneck = pick(rng, 2) == 1;
    const int64_t downEvery = 2 + pick(rng, 3);
    int64_t channels = stems[pick(rng, 6)];
    b.scope("resnet/stem");
    Val x = entry.param(Shape { "f32", { batch, side, side, 3 }, {} });
    x = bnRelu(b, entry, convolution(entry, x, channels, 7, 2, 1, "Conv2D"), channels);
    for (int block = 0; b.instructions() < spec.instructions - 60; ++block) {
        b.scope("resnet/block_" + std::to_string(block));
        const bool down = block % downEvery == downEvery - 1 && x.shape.dims[1] > 7;
        const int64_t outChannels = down ? std::min<int64_t>(channels * 2, 2048) : channels;
        Val y;
        if (bottleneck) {
            // 1x1 reduce to a quarter, 3x3, 1x1 expand (ResNet-50 style).
            const int64_t inner = std::max<int64_t>(outChannels / 4, 8);
            y = bnRelu(b, entry, conv2d(entry, x, inner, 1, 1), inner);
            y = bnRelu(b, entry, conv2d(entry, y, inner, 3, down ? 2 : 1), inner);
            y = conv2d(entry, y, outChannels, 1, 1);
        } else {
            y = bnRelu(b, entry, conv2d(entry, x, outChannels, 3, down ? 2 : 1), outChannels);
            y = conv2d(entry, y, outChannels, 3, 1);
        }
        Val shortcut = x;
        if (down || outChannels != channels)
            shortcut = conv2d(entry, x, outChannels, 1, down ? 2 : 1);
        const Val scale = entry.param(Shape { "f32", { outChannels }, {} });
        const Val bias = entry.param(Shape { "f32", { outChannels }, {} });
        x = fusedBatchNormRelu(b, entry, y, scale, bias, &shortcut);
        channels = outChannels;
    }
    b.scope("resnet/head");
    const Val zero = entry.constant(Shape { "f32", {}, {} }, "0");
    Val pooled = entry.op("reduce", x.shape.with({ batch, channels }), { x, zero },
        ", dimensions={1,2}, to_apply=%" + b.reducer("add", "f32"), "Mean");
    const Val count = entry.constant(Shape { "f32", {}, {} }, std::to_string(x.shape.dims[1] * x.shape.dims[2]));
    pooled = entry.op("divide", pooled.shape, { pooled, broadcastTo(entry, count, pooled.shape, {}) }, {}, "Mean");
    const Val logits = dense(b, entry, pooled, 1000, false);
    const Val probs = softmax(b, entry, logits);
    const Val flat = entry.op("reshape", Shape { "f32", { batch * 1000 }, {} }, { probs }, {}, "Reshape");
    b.add(entry.finish(flat, true));
    return b.text("resnet_" + std::to_string(spec.seed));
}

std::string mlp(const HloGenSpec& spec)
{
    Builder b(spec);
    Comp entry(b, "cluster_mlp_main");
    // Widths as real MLPs have them: powers of two and the odd sizes of tabular and embedding models.
    static const int64_t widths[] = { 16, 24, 32, 48, 64, 96, 100, 128, 200, 256, 384, 512, 768, 1000, 1024 };
    static const int64_t batches[] = { 1, 8, 32, 64, 100, 256, 1024 };
    std::mt19937_64& rng = b.rng();
    const int64_t batch = batches[pick(rng, 7)];
    Val x = entry.param(Shape { "f32", { batch, widths[pick(rng, 15)] }, {} });
    for (int layer = 0; b.instructions() < spec.instructions - 20; ++layer) {
        b.scope("mlp/dense_" + std::to_string(layer));
        x = dense(b, entry, x, widths[pick(rng, 15)], true);
    }
    b.scope("mlp/out");
    const Val logits = dense(b, entry, x, 10, false);
    b.add(entry.finish(softmax(b, entry, logits), true));
    return b.text("mlp_" + std::to_string(spec.seed));
}

// One transformer layer on x [B*S, D]; weights come from `weights` (one per matrix).
Val transformerLayer(Builder& b, Comp& c, const Val& x, int64_t batch, int64_t seq, int64_t heads, std::vector<Val> w)
{
    const int64_t d = x.shape.dims[1];
    const int64_t dh = d / heads;
    const Shape tokens = x.shape;
    // layer norm over D
    const Val zero = c.constant(x.shape.scalar(), "0");
    const Val sum = c.op("reduce", x.shape.with({ tokens.dims[0] }), { x, zero },
        ", dimensions={1}, to_apply=%" + b.reducer("add", "f32"), "Mean");
    const Val inv = c.constant(x.shape.scalar(), std::to_string(1.0 / double(d)));
    const Val mean = c.op("multiply", sum.shape, { sum, broadcastTo(c, inv, sum.shape, {}) }, {}, "Mean");
    const Val centered = c.op("subtract", tokens, { x, broadcastTo(c, mean, tokens, { 0 }) }, {}, "Sub");
    const Val sq = c.op("multiply", tokens, { centered, centered }, {}, "Square");
    const Val var
        = c.op("reduce", sum.shape, { sq, zero }, ", dimensions={1}, to_apply=%" + b.reducer("add", "f32"), "Variance");
    const Val rs = c.op("rsqrt", sum.shape, { var }, {}, "Rsqrt");
    const Val normed = c.op("multiply", tokens, { centered, broadcastTo(c, rs, tokens, { 0 }) }, {}, "Mul");
    // attention
    const Val qkv = c.op("dot", tokens.with({ tokens.dims[0], 3 * d }), { normed, w[0] },
        ", lhs_contracting_dims={1}, rhs_contracting_dims={0}", "MatMul");
    const Val split = c.op("reshape", tokens.with({ batch, seq, 3, heads, dh }), { qkv }, {}, "Reshape");
    auto part = [&](int k) {
        const Val s = c.op("slice", tokens.with({ batch, seq, 1, heads, dh }), { split },
            ", slice={[0:" + std::to_string(batch) + "], [0:" + std::to_string(seq) + "], [" + std::to_string(k) + ":"
                + std::to_string(k + 1) + "], [0:" + std::to_string(heads) + "], [0:" + std::to_string(dh) + "]}",
            "StridedSlice");
        const Val r = c.op("reshape", tokens.with({ batch, seq, heads, dh }), { s }, {}, "Reshape");
        return c.op("transpose", tokens.with({ batch, heads, seq, dh }), { r }, ", dimensions={0,2,1,3}", "Transpose");
    };
    const Val q = part(0), k = part(1), v = part(2);
    Val scores = c.op("dot", tokens.with({ batch, heads, seq, seq }), { q, k },
        ", lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={3}",
        "BatchMatMulV2");
    scores = softmax(b, c, scores);
    const Val ctx = c.op("dot", tokens.with({ batch, heads, seq, dh }), { scores, v },
        ", lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={2}",
        "BatchMatMulV2");
    const Val back
        = c.op("transpose", tokens.with({ batch, seq, heads, dh }), { ctx }, ", dimensions={0,2,1,3}", "Transpose");
    const Val merged = c.op("reshape", tokens, { back }, {}, "Reshape");
    const Val proj
        = c.op("dot", tokens, { merged, w[1] }, ", lhs_contracting_dims={1}, rhs_contracting_dims={0}", "MatMul");
    const Val h = c.op("add", tokens, { x, proj }, {}, "AddV2");
    // MLP with a tanh-GELU
    const Val up = c.op("dot", tokens.with({ tokens.dims[0], 4 * d }), { h, w[2] },
        ", lhs_contracting_dims={1}, rhs_contracting_dims={0}", "MatMul");
    const Val t = c.op("tanh", up.shape, { up }, {}, "Gelu");
    const Val act = c.op("multiply", up.shape, { up, t }, {}, "Gelu");
    const Val down
        = c.op("dot", tokens, { act, w[3] }, ", lhs_contracting_dims={1}, rhs_contracting_dims={0}", "MatMul");
    return c.op("add", tokens, { h, down }, {}, "AddV2");
}

std::string transformer(const HloGenSpec& spec)
{
    Builder b(spec);
    std::mt19937_64& rng = b.rng();
    // The seed picks the model shape: BERT/ViT/GPT-like widths, sequence lengths that are not
    // always a multiple of the tile (ViT's 197), head sizes 32..128.
    static const int64_t batches[] = { 1, 2, 4, 8, 16 };
    static const int64_t seqs[] = { 64, 128, 197, 256, 384, 512 };
    static const int64_t widths[] = { 256, 384, 512, 768, 1024 };
    static const int64_t headDims[] = { 32, 64, 128 };
    const int64_t batch = batches[pick(rng, 5)], seq = seqs[pick(rng, 6)], d = widths[pick(rng, 5)];
    const int64_t heads = d / headDims[pick(rng, 3)];
    const int64_t layers = 2 + pick(rng, 11);
    const Shape tokens { "f32", { batch * seq, d }, {} };
    const Shape counter { "s32", {}, {} };
    const std::vector<Shape> stacked { Shape { "f32", { layers, d, 3 * d }, {} }, Shape { "f32", { layers, d, d }, {} },
        Shape { "f32", { layers, d, 4 * d }, {} }, Shape { "f32", { layers, 4 * d, d }, {} } };
    std::vector<Shape> stateElements { counter, tokens };
    stateElements.insert(stateElements.end(), stacked.begin(), stacked.end());
    const Shape state = Shape::tuple(stateElements);

    // A while loop over `layers` decoder layers whose weights are stacked and sliced by the counter.
    Comp cond(b, b.uniqueName("while_cond"));
    {
        const Val p = cond.param(state);
        const Val i = cond.op("get-tuple-element", counter, { p }, ", index=0");
        const Val limit = cond.constant(counter, std::to_string(layers));
        b.add(cond.finish(cond.op("compare", Shape { "pred", {}, {} }, { i, limit }, ", direction=LT")));
    }
    Comp body(b, b.uniqueName("while_body"));
    {
        b.scope("decoder/layer");
        const Val p = body.param(state);
        const Val i = body.op("get-tuple-element", counter, { p }, ", index=0");
        const Val x = body.op("get-tuple-element", tokens, { p }, ", index=1");
        const Val zero = body.constant(counter, "0");
        std::vector<Val> stacks, weights;
        for (size_t k = 0; k < stacked.size(); ++k) {
            const Shape& s = stacked[k];
            stacks.push_back(body.op("get-tuple-element", s, { p }, ", index=" + std::to_string(k + 2)));
            const Val slice
                = body.op("dynamic-slice", s.with({ 1, s.dims[1], s.dims[2] }), { stacks.back(), i, zero, zero },
                    ", dynamic_slice_sizes={1," + std::to_string(s.dims[1]) + "," + std::to_string(s.dims[2]) + "}",
                    "Slice");
            weights.push_back(body.op("reshape", s.with({ s.dims[1], s.dims[2] }), { slice }, {}, "Reshape"));
        }
        const Val y = transformerLayer(b, body, x, batch, seq, heads, weights);
        const Val one = body.constant(counter, "1");
        std::vector<Val> next { body.op("add", counter, { i, one }), y };
        next.insert(next.end(), stacks.begin(), stacks.end());
        b.add(body.finish(body.op("tuple", state, next)));
    }
    // ... after unrolled encoder layers in the entry, until the size target is met.
    Comp entry(b, "cluster_transformer_main");
    Val x = entry.param(tokens);
    for (int layer = 0; b.instructions() < spec.instructions - 80; ++layer) {
        b.scope("encoder/layer_" + std::to_string(layer));
        std::vector<Val> w { entry.param(tokens.with({ d, 3 * d })), entry.param(tokens.with({ d, d })),
            entry.param(tokens.with({ d, 4 * d })), entry.param(tokens.with({ 4 * d, d })) };
        x = transformerLayer(b, entry, x, batch, seq, heads, w);
    }
    b.scope("decoder");
    std::vector<Val> init { entry.constant(counter, "0"), x };
    for (const Shape& s : stacked)
        init.push_back(entry.param(s));
    const Val start = entry.op("tuple", state, init);
    const Val loop
        = entry.op("while", state, { start }, ", condition=%" + cond.name() + ", body=%" + body.name(), "While");
    b.add(entry.finish(entry.op("get-tuple-element", tokens, { loop }, ", index=1"), true));
    return b.text("transformer_" + std::to_string(spec.seed));
}

// ---- U-Net ----------------------------------------------------------------------------------

// conv(3^r) + batch-norm/relu fusion on a channels-last tensor.
Val convBnRelu(Builder& b, Comp& c, const Val& x, int64_t outChannels, const std::string& opType)
{
    const Val y = convolution(c, x, outChannels, 3, 1, 1, opType);
    const Val scale = c.param(x.shape.with({ outChannels }));
    const Val bias = c.param(x.shape.with({ outChannels }));
    return fusedBatchNormRelu(b, c, y, scale, bias, nullptr);
}

// 2x2 (2x2x2 in 3-D) max pooling with stride 2: window={size=1x2x2x1 stride=1x2x2x1}.
Val maxPool(Builder& b, Comp& c, const Val& x)
{
    std::vector<int64_t> out = x.shape.dims;
    for (size_t i = 1; i + 1 < out.size(); ++i)
        out[i] /= 2;
    const std::string window = "1x" + perSpatial("2", out.size() - 2) + "x1";
    const Val init = c.constant(x.shape.scalar(), "-inf");
    return c.op("reduce-window", x.shape.with(out), { x, init },
        ", window={size=" + window + " stride=" + window + "}, to_apply=%" + b.reducer("max", x.shape.type), "MaxPool");
}

// Nearest-neighbour 2x upsampling: broadcast [N,H,W,C] to [N,H,2,W,2,C], reshape to [N,2H,2W,C].
Val upsampleNearest(Comp& c, const Val& x)
{
    const auto& d = x.shape.dims;
    std::vector<int64_t> repeated { d[0] }, mapping { 0 }, out { d[0] };
    for (size_t i = 1; i + 1 < d.size(); ++i) {
        mapping.push_back(int64_t(repeated.size()));
        repeated.push_back(d[i]);
        repeated.push_back(2);
        out.push_back(2 * d[i]);
    }
    mapping.push_back(int64_t(repeated.size()));
    repeated.push_back(d.back());
    out.push_back(d.back());
    const Val wide = c.op("broadcast", x.shape.with(repeated), { x }, ", dimensions=" + list(mapping), "Resize");
    return c.op("reshape", x.shape.with(out), { wide }, {}, "ResizeNearestNeighbor");
}

// Instruction counts of the pieces below (fit the stages to the size target; checked by tst_hlogen).
constexpr int64_t kConvBlock = 15; // weights, conv/dot, scale, bias, fusion + 10 in the fused computation
constexpr int64_t kUnetLevel = 4 * kConvBlock + 5; // and down- and upsampling (2 each), concatenate
constexpr int64_t kUnetStage = 2 * kConvBlock + 1; // bottleneck and a view reshape
constexpr int64_t kUnetHead = 17; // input, 1x1 conv, softmax with its reducers, reshape

// One U-Net on x: `levels` encoder levels (2 conv blocks, then max pooling or a strided conv), a
// bottleneck, and mirrored decoder levels (nearest or transposed-conv upsampling, concatenated skip
// connection, 2 conv blocks). Returns `base` channels at the input resolution.
Val unetStage(Builder& b, Comp& c, Val x, int64_t base, int64_t levels)
{
    const bool volumetric = x.shape.dims.size() == 5;
    const std::string conv = volumetric ? "Conv3D" : "Conv2D";
    const int64_t channelDim = int64_t(x.shape.dims.size()) - 1;
    std::vector<Val> skips;
    int64_t channels = base;
    for (int64_t level = 0; level < levels; ++level) {
        x = convBnRelu(b, c, x, channels, conv);
        x = convBnRelu(b, c, x, channels, conv);
        skips.push_back(x);
        x = pick(b.rng(), 2) ? maxPool(b, c, x) : convolution(c, x, channels, 3, 2, 1, conv);
        channels = std::min<int64_t>(channels * 2, 512);
    }
    x = convBnRelu(b, c, x, channels, conv);
    x = convBnRelu(b, c, x, channels, conv);
    for (int64_t level = levels - 1; level >= 0; --level) {
        const Val& skip = skips[size_t(level)];
        const int64_t width = skip.shape.dims.back();
        const Val up = pick(b.rng(), 2)
            ? upsampleNearest(c, x)
            : convolution(c, x, width, 3, 1, 2, volumetric ? "Conv3DBackpropInputV2" : "Conv2DBackpropInput");
        std::vector<int64_t> joined = up.shape.dims;
        joined.back() += width;
        x = c.op("concatenate", x.shape.with(joined), { up, skip }, ", dimensions={" + std::to_string(channelDim) + "}",
            "ConcatV2");
        x = convBnRelu(b, c, x, width, conv);
        x = convBnRelu(b, c, x, width, conv);
    }
    return x;
}

// Deepest useful U-Net on these spatial sizes: the bottleneck keeps >= 2 per dimension.
int64_t unetMaxLevels(const std::vector<int64_t>& dims)
{
    int64_t smallest = dims[1];
    for (size_t i = 1; i + 1 < dims.size(); ++i)
        smallest = std::min(smallest, dims[i]);
    int64_t levels = 0;
    while ((smallest >> (levels + 1)) >= 2 && smallest % (int64_t(1) << (levels + 1)) == 0)
        ++levels;
    return levels;
}

// Stacked U-Nets (an hourglass stack) until the size target is met. The seed picks 2-D images
// (NHWC), 3-D volumes (NDHWC, like unet3d) or alternating stages: 3-D on the volume, 2-D slice by
// slice on [N*D,H,W,C]; and per stage the depth, per level the down- and upsampling kind. The
// last stages shrink to the remaining budget (a 0-level stage is a refinement pair of convs).
std::string unet(const HloGenSpec& spec)
{
    Builder b(spec);
    std::mt19937_64& rng = b.rng();
    const int64_t mode = pick(rng, 3); // 0 = 2-D, 1 = 3-D, 2 = alternating
    const int64_t base = int64_t(16) << pick(rng, 3);
    const int64_t classes = 2 + pick(rng, 6);
    const int64_t inChannels = 1 + pick(rng, 4);
    Shape input { "f32", {}, {} };
    if (mode == 0) {
        const int64_t side = int64_t(128) << pick(rng, 2);
        input.dims = { int64_t(1) << pick(rng, 4), side, side, inChannels };
    } else {
        const int64_t side = int64_t(64) << pick(rng, 2);
        input.dims = { 1 + pick(rng, 2), int64_t(16) << pick(rng, 2), side, side, inChannels };
    }
    // Batch and spatial sizes of the two views (channels follow): the volume and its slices.
    const std::vector<int64_t> volume(input.dims.begin(), input.dims.end() - 1);
    // (2-D mode has no depth: no slices; reading volume[3] there overflowed, found by the ASan build)
    const std::vector<int64_t> slices = volume.size() == 4
        ? std::vector<int64_t> { volume[0] * volume[1], volume[2], volume[3] }
        : std::vector<int64_t> {};
    auto view = [](std::vector<int64_t> dims, const Val& v) {
        dims.push_back(v.shape.dims.back());
        return v.shape.with(std::move(dims));
    };

    Comp entry(b, "cluster_unet_main");
    Val x = entry.param(input);
    for (int stage = 0;; ++stage) {
        int64_t levels = 2 + pick(rng, 3);
        const int64_t remaining = spec.instructions - kUnetHead - b.instructions();
        while (levels > (stage ? 0 : 1) && kUnetStage + levels * kUnetLevel > remaining)
            --levels;
        if (stage > 0 && 2 * remaining < kUnetStage + levels * kUnetLevel)
            break;
        b.scope("unet/stage_" + std::to_string(stage));
        if (mode == 2 && stage > 0)
            x = entry.op("reshape", view(stage % 2 ? slices : volume, x), { x }, {}, "Reshape");
        levels = std::min(levels, unetMaxLevels(x.shape.dims));
        x = unetStage(b, entry, x, base, levels);
    }
    b.scope("unet/head");
    if (x.shape.dims.size() != input.dims.size()) // back from the slice view
        x = entry.op("reshape", view(volume, x), { x }, {}, "Reshape");
    const Val logits = convolution(entry, x, classes, 1, 1, 1, x.shape.dims.size() == 5 ? "Conv3D" : "Conv2D");
    const Val probs = softmax(b, entry, logits);
    int64_t pixels = 1;
    for (size_t i = 1; i + 1 < probs.shape.dims.size(); ++i)
        pixels *= probs.shape.dims[i];
    const Val flat
        = entry.op("reshape", probs.shape.with({ probs.shape.dims[0], pixels, classes }), { probs }, {}, "Reshape");
    b.add(entry.finish(flat, true));
    return b.text("unet_" + std::to_string(spec.seed));
}

// ---- GNN ------------------------------------------------------------------------------------

// Layer norm over the features of x [V, F] with scale and offset.
Val layerNorm(Builder& b, Comp& c, const Val& x)
{
    const int64_t rows = x.shape.dims[0], features = x.shape.dims[1];
    const Shape perRow = x.shape.with({ rows });
    const std::string sum = ", dimensions={1}, to_apply=%" + b.reducer("add", x.shape.type);
    const Val zero = c.constant(x.shape.scalar(), "0");
    const Val inv = c.constant(x.shape.scalar(), std::to_string(1.0 / double(features)));
    const Val invRows = broadcastTo(c, inv, perRow, {});
    const Val total = c.op("reduce", perRow, { x, zero }, sum, "Mean");
    const Val mean = c.op("multiply", perRow, { total, invRows }, {}, "Mean");
    const Val centered = c.op("subtract", x.shape, { x, broadcastTo(c, mean, x.shape, { 0 }) }, {}, "Sub");
    const Val squares = c.op("multiply", x.shape, { centered, centered }, {}, "Square");
    const Val sumSquares = c.op("reduce", perRow, { squares, zero }, sum, "Variance");
    Val var = c.op("multiply", perRow, { sumSquares, invRows }, {}, "Variance");
    const Val eps = c.constant(x.shape.scalar(), "1e-05");
    var = c.op("add", perRow, { var, broadcastTo(c, eps, perRow, {}) }, {}, "AddV2");
    const Val rs = c.op("rsqrt", perRow, { var }, {}, "Rsqrt");
    Val y = c.op("multiply", x.shape, { centered, broadcastTo(c, rs, x.shape, { 0 }) }, {}, "Mul");
    const Val gamma = c.param(x.shape.with({ features }));
    y = c.op("multiply", x.shape, { y, broadcastTo(c, gamma, x.shape, { 1 }) }, {}, "Mul");
    const Val beta = c.param(x.shape.with({ features }));
    return c.op("add", x.shape, { y, broadcastTo(c, beta, x.shape, { 1 }) }, {}, "AddV2");
}

Val gatherRows(Comp& c, const Val& table, const Val& indices)
{
    const int64_t features = table.shape.dims[1];
    return c.op("gather", table.shape.with({ indices.shape.dims[0], features }), { table, indices },
        ", offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,"
            + std::to_string(features) + "}",
        "GatherV2");
}

Val scatterAdd(Builder& b, Comp& c, const Val& into, const Val& indices, const Val& updates)
{
    return c.op("scatter", into.shape, { into, indices, updates },
        ", update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, "
        "to_apply=%"
            + b.reducer("add", into.shape.type),
        "UnsortedSegmentSum");
}

// The edge lists and the tensors every layer shares.
struct GraphInputs
{
    Val src; // s32[E]
    Val dst; // s32[E]
    Val zeros; // f32[V,F]
    Val zero; // f32[] 0
    Val one; // f32[] 1
    std::optional<Val> degree; // f32[V,F], in-degree (at least 1) over the features; built on first use

    const Val& inDegree(Builder& b, Comp& c)
    {
        if (!degree) {
            const Shape column = zeros.shape.with({ zeros.shape.dims[0], 1 });
            const Val ones = broadcastTo(c, one, column.with({ src.shape.dims[0], 1 }), {});
            Val d = scatterAdd(b, c, broadcastTo(c, zero, column, {}), dst, ones);
            d = c.op("maximum", column, { d, broadcastTo(c, one, column, {}) }, {}, "Maximum");
            d = c.op("reshape", column.with({ column.dims[0] }), { d }, {}, "Reshape");
            degree = broadcastTo(c, d, zeros.shape, { 0 });
        }
        return *degree;
    }
};

Val matmul(Comp& c, const Val& x, int64_t out)
{
    const Val w = c.param(x.shape.with({ x.shape.dims[1], out }));
    return c.op("dot", x.shape.with({ x.shape.dims[0], out }), { x, w },
        ", lhs_contracting_dims={1}, rhs_contracting_dims={0}", "MatMul");
}

// Bias, residual and relu in one fusion, then layer norm.
Val gnnUpdate(Builder& b, Comp& c, const Val& y, const Val& residual)
{
    const int64_t features = y.shape.dims[1];
    const Val scale = c.param(y.shape.with({ features }));
    const Val bias = c.param(y.shape.with({ features }));
    return layerNorm(b, c, fusedBatchNormRelu(b, c, y, scale, bias, &residual));
}

// One message-passing layer on h [V, F] -> [V, F]:
//   0 GCN: messages transformed by a dot, scattered, divided by the degree, plus a self dot;
//   1 GraphSAGE: mean of the neighbours concatenated with the node, then a dot;
//   2 GIN: sum of the neighbours plus the node, then a two-layer MLP.
Val gnnLayer(Builder& b, Comp& c, const Val& h, GraphInputs& g, int64_t kind)
{
    const int64_t features = h.shape.dims[1];
    Val messages = gatherRows(c, h, g.src);
    if (kind == 0) {
        messages = matmul(c, messages, features);
        Val agg = scatterAdd(b, c, g.zeros, g.dst, messages);
        agg = c.op("divide", h.shape, { agg, g.inDegree(b, c) }, {}, "RealDiv");
        const Val self = matmul(c, h, features);
        return gnnUpdate(b, c, c.op("add", h.shape, { agg, self }, {}, "AddV2"), h);
    }
    Val agg = scatterAdd(b, c, g.zeros, g.dst, messages);
    if (kind == 1) {
        agg = c.op("divide", h.shape, { agg, g.inDegree(b, c) }, {}, "RealDiv");
        const Val both = c.op(
            "concatenate", h.shape.with({ h.shape.dims[0], 2 * features }), { h, agg }, ", dimensions={1}", "ConcatV2");
        return gnnUpdate(b, c, matmul(c, both, features), h);
    }
    const Val sum = c.op("add", h.shape, { h, agg }, {}, "AddV2");
    const Val hidden = dense(b, c, sum, 2 * features, true);
    return gnnUpdate(b, c, matmul(c, hidden, features), h);
}

// Instruction counts of a layer of each kind and of the readout (fit the depth to the size target).
int64_t gnnLayerCost(int64_t kind)
{
    const int64_t update = 2 + 1 + 12 + 22; // scale, bias, fusion + 12 fused (with residual), layer norm
    const int64_t gcn = 8; // gather, 2 dots with weights, scatter, divide, add
    const int64_t sage = 6; // gather, scatter, divide, concatenate, dot with weights
    const int64_t gin = 3 + kConvBlock + 2; // gather, scatter, add; dense + relu fusion; dot with weights
    return update + (kind == 0 ? gcn : kind == 1 ? sage : gin);
}
constexpr int64_t kGnnReadout = 22; // mean over nodes, reshape, dense, softmax with its max reducer

// A message-passing GNN over a graph of V nodes and E edges (int32 edge endpoint parameters): an
// input projection, layers until the size target is met, mean readout over the nodes and a
// classifier. The seed picks the graph size, widths and the layer kind (or a mix of kinds).
std::string gnn(const HloGenSpec& spec)
{
    Builder b(spec);
    std::mt19937_64& rng = b.rng();
    const int64_t nodes = 1000 * (1 + pick(rng, 64));
    const int64_t edges = nodes * (2 + pick(rng, 15));
    const int64_t inFeatures = int64_t(16) << pick(rng, 4);
    const int64_t features = int64_t(64) << pick(rng, 3);
    const int64_t classes = 2 + pick(rng, 40);
    const int64_t style = pick(rng, 4); // a layer kind, or 3 = mixed per layer

    Comp entry(b, "cluster_gnn_main");
    b.scope("gnn/inputs");
    const Val x = entry.param(Shape { "f32", { nodes, inFeatures }, {} });
    GraphInputs g;
    g.src = entry.param(Shape { "s32", { edges }, {} });
    g.dst = entry.param(Shape { "s32", { edges }, {} });
    const Shape hidden { "f32", { nodes, features }, {} };
    g.one = entry.constant(hidden.scalar(), "1");
    g.zero = entry.constant(hidden.scalar(), "0");
    g.zeros = broadcastTo(entry, g.zero, hidden, {});
    b.scope("gnn/embed");
    Val h = dense(b, entry, x, features, true);
    for (int layer = 0;; ++layer) {
        const int64_t kind = style == 3 ? pick(rng, 3) : style;
        if (b.instructions() + kGnnReadout + gnnLayerCost(kind) / 2 >= spec.instructions)
            break;
        b.scope("gnn/layer_" + std::to_string(layer));
        h = gnnLayer(b, entry, h, g, kind);
    }
    b.scope("gnn/readout");
    const Shape pooled = hidden.with({ features });
    const Val sum = entry.op(
        "reduce", pooled, { h, g.zero }, ", dimensions={0}, to_apply=%" + b.reducer("add", hidden.type), "Mean");
    const Val count = entry.constant(hidden.scalar(), std::to_string(nodes));
    const Val mean = entry.op("divide", pooled, { sum, broadcastTo(entry, count, pooled, {}) }, {}, "Mean");
    const Val row = entry.op("reshape", hidden.with({ 1, features }), { mean }, {}, "Reshape");
    const Val logits = dense(b, entry, row, classes, false);
    b.add(entry.finish(softmax(b, entry, logits), true));
    return b.text("gnn_" + std::to_string(spec.seed));
}

} // namespace

std::vector<std::string> hloGenFamilies() { return { "mlp", "resnet", "transformer", "unet", "gnn" }; }

std::string generateHloText(const HloGenSpec& spec)
{
    if (spec.family == "resnet")
        return resnet(spec);
    if (spec.family == "mlp")
        return mlp(spec);
    if (spec.family == "transformer")
        return transformer(spec);
    if (spec.family == "unet")
        return unet(spec);
    if (spec.family == "gnn")
        return gnn(spec);
    throw std::invalid_argument("unknown HLO family '" + spec.family + "' (mlp, resnet, transformer, unet, gnn)");
}

} // namespace tgraph
