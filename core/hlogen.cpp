// SPDX-License-Identifier: Apache-2.0
#include "hlogen.h"

#include <map>
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

Val conv2d(Comp& c, const Val& x, int64_t outChannels, int64_t k, int64_t stride)
{
    const auto& d = x.shape.dims; // NHWC
    const Shape w = x.shape.with({ k, k, d[3], outChannels });
    const Val weights = c.param(w);
    const int64_t pad = k / 2;
    const int64_t h = (d[1] + 2 * pad - k) / stride + 1;
    const int64_t wd = (d[2] + 2 * pad - k) / stride + 1;
    std::string window = "size=" + std::to_string(k) + "x" + std::to_string(k);
    if (stride > 1)
        window += " stride=" + std::to_string(stride) + "x" + std::to_string(stride);
    if (pad)
        window += " pad=" + std::to_string(pad) + "_" + std::to_string(pad) + "x" + std::to_string(pad) + "_"
            + std::to_string(pad);
    return c.op("convolution", x.shape.with({ d[0], h, wd, outChannels }), { x, weights },
        ", window={" + window + "}, dim_labels=b01f_01io->b01f", "Conv2D");
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

// ---- families -------------------------------------------------------------------------------

std::string resnet(const HloGenSpec& spec)
{
    Builder b(spec);
    Comp entry(b, "cluster_resnet_main");
    const int64_t batch = 8;
    Val x = entry.param(Shape { "f32", { batch, 112, 112, 64 }, {} });
    int64_t channels = 64;
    for (int block = 0; b.instructions() < spec.instructions - 60; ++block) {
        b.scope("resnet/block_" + std::to_string(block));
        const bool down = block % 4 == 3 && x.shape.dims[1] > 7;
        const int64_t outChannels = down ? std::min<int64_t>(channels * 2, 2048) : channels;
        Val y = conv2d(entry, x, outChannels, 3, down ? 2 : 1);
        y = fusedBatchNormRelu(b, entry, y, entry.param(Shape { "f32", { outChannels }, {} }),
            entry.param(Shape { "f32", { outChannels }, {} }), nullptr);
        y = conv2d(entry, y, outChannels, 3, 1);
        Val shortcut = x;
        if (down || outChannels != channels)
            shortcut = conv2d(entry, x, outChannels, 1, down ? 2 : 1);
        x = fusedBatchNormRelu(b, entry, y, entry.param(Shape { "f32", { outChannels }, {} }),
            entry.param(Shape { "f32", { outChannels }, {} }), &shortcut);
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
    std::uniform_int_distribution<int> width(4, 10);
    Val x = entry.param(Shape { "f32", { 64, 512 }, {} });
    for (int layer = 0; b.instructions() < spec.instructions - 20; ++layer) {
        b.scope("mlp/dense_" + std::to_string(layer));
        x = dense(b, entry, x, int64_t(1) << width(b.rng()), true);
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
    const int64_t batch = 4, seq = 128, d = 512, heads = 8, layers = 6;
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

} // namespace

std::vector<std::string> hloGenFamilies() { return { "mlp", "resnet", "transformer" }; }

std::string generateHloText(const HloGenSpec& spec)
{
    if (spec.family == "resnet")
        return resnet(spec);
    if (spec.family == "mlp")
        return mlp(spec);
    if (spec.family == "transformer")
        return transformer(spec);
    throw std::invalid_argument("unknown HLO family '" + spec.family + "' (mlp, resnet, transformer)");
}

} // namespace tgraph
