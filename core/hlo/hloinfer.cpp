// SPDX-License-Identifier: Apache-2.0
#include "core/hlo/hloinfer.h"

#include <algorithm>
#include <charconv>
#include <initializer_list>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tgraph {

namespace {

// ---- element types (docs/formats.md §6: xla::PrimitiveType numbers) ------------------------------
namespace T = PrimitiveType;
constexpr int32_t kS4 = 21, kU4 = 22, kS2 = 26, kU2 = 27, kS1 = 30, kU1 = 31;

bool isFloat(int32_t t)
{
    switch (t) {
    case T::F16:
    case T::F32:
    case T::F64:
    case T::BF16:
    case 19: // f8e5m2
    case 20: // f8e4m3fn
    case 23: // f8e4m3b11fnuz
    case 24: // f8e5m2fnuz
    case 25: // f8e4m3fnuz
    case 28: // f8e4m3
    case 29: // f8e3m4
    case 32: // f4e2m1fn
    case 33: // f8e8m0fnu
        return true;
    default:
        return false;
    }
}
bool isComplex(int32_t t) { return t == T::C64 || t == T::C128; }
bool isSignedInt(int32_t t)
{
    return t == T::S8 || t == T::S16 || t == T::S32 || t == T::S64 || t == kS4 || t == kS2 || t == kS1;
}
bool isUnsignedInt(int32_t t)
{
    return t == T::U8 || t == T::U16 || t == T::U32 || t == T::U64 || t == kU4 || t == kU2 || t == kU1;
}
bool isIntegral(int32_t t) { return isSignedInt(t) || isUnsignedInt(t); }
bool isArrayType(int32_t t)
{
    return t != T::Tuple && t != T::Token && t != T::OpaqueType && t != T::Buffer && t != T::Invalid;
}
int32_t complexComponent(int32_t t) { return t == T::C64 ? T::F32 : T::F64; }

int bitWidth(int32_t t)
{
    switch (t) {
    case T::Pred:
    case kS1:
    case kU1:
        return 1;
    case kS2:
    case kU2:
        return 2;
    case kS4:
    case kU4:
    case 32:
        return 4;
    case T::S8:
    case T::U8:
    case 19:
    case 20:
    case 23:
    case 24:
    case 25:
    case 28:
    case 29:
    case 33:
        return 8;
    case T::S16:
    case T::U16:
    case T::F16:
    case T::BF16:
        return 16;
    case T::S32:
    case T::U32:
    case T::F32:
        return 32;
    case T::S64:
    case T::U64:
    case T::F64:
    case T::C64:
        return 64;
    case T::C128:
        return 128;
    default:
        return 0;
    }
}

// The range (largest binary exponent + 1) and significand digits of a floating-point type.
std::pair<int, int> floatRangeAndPrecision(int32_t t)
{
    switch (t) {
    case T::F16:
        return { 16, 11 };
    case T::F32:
        return { 128, 24 };
    case T::F64:
        return { 1024, 53 };
    case T::BF16:
        return { 128, 8 };
    case 19: // f8e5m2
        return { 16, 3 };
    case 20: // f8e4m3fn
        return { 9, 4 };
    case 23: // f8e4m3b11fnuz
        return { 5, 4 };
    case 24: // f8e5m2fnuz
        return { 16, 3 };
    case 25: // f8e4m3fnuz
    case 28: // f8e4m3
        return { 8, 4 };
    case 29: // f8e3m4
        return { 4, 5 };
    case 32: // f4e2m1fn
        return { 3, 2 };
    case 33: // f8e8m0fnu
        return { 128, 1 };
    default:
        return { -1, -1 };
    }
}

// XLA's HigherPrecisionType: complex over real, then more range, more precision, more bits, signed.
int32_t higherPrecision(int32_t a, int32_t b)
{
    const auto properties = [](int32_t t) {
        const int32_t c = isComplex(t) ? complexComponent(t) : t;
        const auto [range, precision] = floatRangeAndPrecision(c);
        return std::make_tuple(isComplex(t), range, precision, bitWidth(c), isSignedInt(c));
    };
    return properties(a) < properties(b) ? b : a;
}

// Equal element types, or both floating point (XLA's SameElementTypeIgnoringFpPrecision).
bool sameTypeIgnoringFp(int32_t a, int32_t b) { return a == b || (isFloat(a) && isFloat(b)); }

// ---- the opcodes ----------------------------------------------------------------------------------
enum class Op : uint8_t {
    Copy, // copy, domain: the operand's shape, whatever it is
    UnaryFloat, // floating point only
    UnaryFloatOrComplex,
    RealImag,
    Abs,
    UnaryIntegral, // count-leading-zeros, popcnt
    Negate,
    Sign,
    Not,
    IsFinite,
    OptBarrier,
    Arithmetic, // add, maximum, minimum, multiply, mulhi
    ArithmeticNoPred, // subtract, divide, power, remainder, atan2, shifts
    Complex,
    Logical, // and, or, xor
    Compare,
    Clamp,
    Select,
    Tuple,
    GetTupleElement,
    While,
    Conditional,
    Call,
    Map,
    Reduce,
    Sort,
    Broadcast,
    Transpose,
    Reverse,
    Concatenate,
    Pad,
    Dot,
    ScaledDot,
    RaggedDot,
    Convolution,
    ReduceWindow,
    SelectAndScatter,
    Scatter,
    Gather,
    Fft,
    TriangularSolve,
    Cholesky,
    BatchNormTraining,
    BatchNormInference,
    BatchNormGrad,
    GetDimensionSize,
    SetDimensionSize,
    TopK,
    AfterAll,
    AddDependency,
    PartitionOrReplicaId,
    NotInferredHere, // scan, shuffle: XLA infers them, this reader does not yet
};

const std::unordered_map<std::string_view, Op>& inferableOpcodes()
{
    static const std::unordered_map<std::string_view, Op> ops = [] {
        std::unordered_map<std::string_view, Op> o;
        auto add = [&o](Op op, std::initializer_list<std::string_view> names) {
            for (std::string_view n : names)
                o.emplace(n, op);
        };
        add(Op::Copy, { "copy", "domain" });
        add(Op::UnaryFloat, { "floor", "cbrt", "ceil", "erf", "round-nearest-afz", "round-nearest-even" });
        add(Op::UnaryFloatOrComplex,
            { "cosine", "sine", "exponential", "exponential-minus-one", "log", "log-plus-one", "logistic", "rsqrt",
                "sqrt", "tan", "tanh", "acos", "acosh", "asin", "asinh", "atan", "atanh", "cosh", "sinh" });
        add(Op::RealImag, { "real", "imag" });
        add(Op::Abs, { "abs" });
        add(Op::UnaryIntegral, { "count-leading-zeros", "popcnt" });
        add(Op::Negate, { "negate" });
        add(Op::Sign, { "sign" });
        add(Op::Not, { "not" });
        add(Op::IsFinite, { "is-finite" });
        add(Op::OptBarrier, { "opt-barrier" });
        add(Op::Arithmetic, { "add", "maximum", "minimum", "multiply", "mulhi" });
        add(Op::ArithmeticNoPred,
            { "subtract", "divide", "power", "remainder", "atan2", "shift-left", "shift-right-arithmetic",
                "shift-right-logical" });
        add(Op::Complex, { "complex" });
        add(Op::Logical, { "and", "or", "xor" });
        add(Op::Compare, { "compare" });
        add(Op::Clamp, { "clamp" });
        add(Op::Select, { "select" });
        add(Op::Tuple, { "tuple" });
        add(Op::GetTupleElement, { "get-tuple-element" });
        add(Op::While, { "while" });
        add(Op::Conditional, { "conditional" });
        add(Op::Call, { "call" });
        add(Op::Map, { "map" });
        add(Op::Reduce, { "reduce" });
        add(Op::Sort, { "sort" });
        add(Op::Broadcast, { "broadcast" });
        add(Op::Transpose, { "transpose" });
        add(Op::Reverse, { "reverse" });
        add(Op::Concatenate, { "concatenate" });
        add(Op::Pad, { "pad" });
        add(Op::Dot, { "dot" });
        add(Op::ScaledDot, { "scaled-dot" });
        add(Op::RaggedDot, { "ragged-dot" });
        add(Op::Convolution, { "convolution" });
        add(Op::ReduceWindow, { "reduce-window" });
        add(Op::SelectAndScatter, { "select-and-scatter" });
        add(Op::Scatter, { "scatter" });
        add(Op::Gather, { "gather" });
        add(Op::Fft, { "fft" });
        add(Op::TriangularSolve, { "triangular-solve" });
        add(Op::Cholesky, { "cholesky" });
        add(Op::BatchNormTraining, { "batch-norm-training" });
        add(Op::BatchNormInference, { "batch-norm-inference" });
        add(Op::BatchNormGrad, { "batch-norm-grad" });
        add(Op::GetDimensionSize, { "get-dimension-size" });
        add(Op::SetDimensionSize, { "set-dimension-size" });
        add(Op::TopK, { "topk" });
        add(Op::AfterAll, { "after-all" });
        add(Op::AddDependency, { "add-dependency" });
        add(Op::PartitionOrReplicaId, { "partition-id", "replica-id" });
        add(Op::NotInferredHere, { "scan", "shuffle" });
        return o;
    }();
    return ops;
}

[[noreturn]] void fail(const std::string& problem) { throw HloShapeError(problem); }

std::string join(std::span<const int64_t> values)
{
    std::string out;
    for (size_t k = 0; k < values.size(); ++k)
        out += (k ? "," : "") + std::to_string(values[k]);
    return out;
}

bool isPermutation(std::span<const int64_t> p)
{
    std::vector<bool> seen(p.size(), false);
    for (int64_t v : p) {
        if (v < 0 || size_t(v) >= p.size() || seen[size_t(v)])
            return false;
        seen[size_t(v)] = true;
    }
    return true;
}

// ---- attribute values as written: integers and {a,b,...} lists -----------------------------------
struct ValueText
{
    std::string_view s;
    size_t i = 0;

    void spaces()
    {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
            ++i;
    }
    bool take(char c)
    {
        spaces();
        if (i < s.size() && s[i] == c) {
            ++i;
            return true;
        }
        return false;
    }
    bool number(int64_t& out)
    {
        spaces();
        const char* begin = s.data() + i;
        const auto [end, ec] = std::from_chars(begin, s.data() + s.size(), out);
        if (ec != std::errc())
            return false;
        i += size_t(end - begin);
        return true;
    }
    bool atEnd()
    {
        spaces();
        return i == s.size();
    }
};

class Inference
{
public:
    Inference(HloModule& module, const HloShapeRequest& request)
        : m(module)
        , r(request)
    { }

    uint32_t run()
    {
        const auto& ops = inferableOpcodes();
        const auto it = ops.find(r.opcode);
        if (it == ops.end())
            fail("XLA's parser infers no shape for " + std::string(r.opcode));
        switch (it->second) {
        case Op::Copy:
            need(1);
            return r.operands[0];
        case Op::UnaryFloat:
            return unary([](int32_t t) { return isFloat(t); }, "floating");
        case Op::UnaryFloatOrComplex:
            return unary([](int32_t t) { return isFloat(t) || isComplex(t); }, "floating or complex");
        case Op::RealImag:
            need(1);
            expectArray(0, "operand of unary operation");
            if (isComplex(type(0)))
                return withType(r.operands[0], complexComponent(type(0)));
            return unary([](int32_t t) { return isFloat(t); }, "floating or complex");
        case Op::Abs:
            need(1);
            expectArray(0, "operand of unary operation");
            if (isComplex(type(0)))
                return withType(r.operands[0], complexComponent(type(0)));
            return unary([](int32_t t) { return isSignedInt(t) || isFloat(t); }, "signed, floating or complex");
        case Op::UnaryIntegral:
            return unary([](int32_t t) { return isIntegral(t); }, "integral");
        case Op::Negate:
            return unary(
                [](int32_t t) { return isIntegral(t) || isFloat(t) || isComplex(t); }, "integral, floating or complex");
        case Op::Sign:
            return unary([](int32_t t) { return isSignedInt(t) || isFloat(t) || isComplex(t); }, "signed or complex");
        case Op::Not:
            return unary([](int32_t t) { return t == T::Pred || isIntegral(t); }, "pred or integral");
        case Op::IsFinite:
            unary([](int32_t t) { return isFloat(t); }, "floating");
            return withType(r.operands[0], T::Pred);
        case Op::OptBarrier:
            fail("XLA's shape inference refuses opt-barrier (it is no unary array operation)");
        case Op::Arithmetic:
            return binary(false);
        case Op::ArithmeticNoPred:
            return binary(true);
        case Op::Complex: {
            need(2);
            expectArray(0, "lhs of binary operation complex");
            expectArray(1, "rhs of binary operation complex");
            if (!isFloat(type(0)))
                fail("expected a floating element type for complex, got " + primitiveTypeName(type(0)));
            const uint32_t s = elementwise();
            if (type(0) == T::F32 && type(1) == T::F32)
                return withType(s, T::C64);
            if (type(0) == T::F64 && type(1) == T::F64)
                return withType(s, T::C128);
            fail("complex of " + primitiveTypeName(type(0)) + " and " + primitiveTypeName(type(1))
                + " is not implemented in XLA (f32 or f64 only)");
        }
        case Op::Logical:
            need(2);
            expectArray(0, "lhs of binary operation " + std::string(r.opcode));
            expectArray(1, "rhs of binary operation " + std::string(r.opcode));
            if (type(0) != T::Pred && !isIntegral(type(0)))
                fail("expected a pred or integral element type for " + std::string(r.opcode) + ", got "
                    + primitiveTypeName(type(0)));
            return elementwise();
        case Op::Compare:
            need(2);
            expectArray(0, "lhs of binary operation compare");
            expectArray(1, "rhs of binary operation compare");
            return withType(elementwise(), T::Pred);
        case Op::Clamp:
            return clamp();
        case Op::Select:
            return select();
        case Op::Tuple:
            return tupleOf(r.operands);
        case Op::GetTupleElement:
            return getTupleElement();
        case Op::While:
            return whileLoop();
        case Op::Conditional:
            return conditional();
        case Op::Call:
            return callee("to_apply=");
        case Op::Map:
            return map();
        case Op::Reduce:
            return reduce();
        case Op::Sort:
            return sort();
        case Op::Broadcast:
            return broadcast();
        case Op::Transpose:
            return transpose();
        case Op::Reverse:
            return reverse();
        case Op::Concatenate:
            return concatenate();
        case Op::Pad:
            return pad();
        case Op::Dot:
            need(2 + (r.dot ? r.dot->sparsity.count / 4 : 0));
            return dot(0, 1, r.dot, {});
        case Op::ScaledDot:
            need(4);
            return dot(0, 2, r.dot, {});
        case Op::RaggedDot:
            return raggedDot();
        case Op::Convolution:
            return convolution();
        case Op::ReduceWindow:
            return reduceWindow();
        case Op::SelectAndScatter:
            need(3);
            expectArray(0, "operand of select-and-scatter");
            return r.operands[0];
        case Op::Scatter:
            return scatter();
        case Op::Gather:
            return gather();
        case Op::Fft:
            return fft();
        case Op::TriangularSolve:
            return triangularSolve();
        case Op::Cholesky:
            return cholesky();
        case Op::BatchNormTraining:
        case Op::BatchNormGrad:
            return batchNorm(it->second == Op::BatchNormTraining ? 3 : 5, true);
        case Op::BatchNormInference:
            return batchNorm(5, false);
        case Op::GetDimensionSize:
            need(1);
            dimensionOf(0, "get-dimension-size");
            return makeShape(T::S32, {});
        case Op::SetDimensionSize:
            need(2);
            dimensionOf(0, "set-dimension-size");
            if (type(1) != T::S32 || !dims(1).empty())
                fail("set-dimension-size's value has to be an s32 scalar, got " + text(1));
            return r.operands[0];
        case Op::TopK:
            return topK();
        case Op::AfterAll: {
            HloShape token;
            token.elementType = T::Token;
            token.dims = m.addInts({});
            token.minorToMajor = token.dims;
            return push(token);
        }
        case Op::AddDependency:
            need(2);
            return r.operands[0];
        case Op::PartitionOrReplicaId:
            return makeShape(T::U32, {});
        case Op::NotInferredHere:
            fail("XLA infers the shape of " + std::string(r.opcode) + ", this reader does not yet");
        }
        fail("no rule");
    }

private:
    // ---- operands and shapes --------------------------------------------------------------------
    void need(size_t count) const
    {
        if (r.operands.size() != count)
            fail(std::string(r.opcode) + " takes " + std::to_string(count) + (count == 1 ? " operand" : " operands")
                + ", got " + std::to_string(r.operands.size()));
    }
    const HloShape& shape(size_t k) const { return m.shapes[r.operands[k]]; }
    int32_t type(size_t k) const { return shape(k).elementType; }
    std::vector<int64_t> dims(size_t k) const
    {
        const auto d = m.span(shape(k).dims);
        return { d.begin(), d.end() };
    }
    std::string text(size_t k) const { return m.shapeToText(r.operands[k]); }
    void expectArray(size_t k, const std::string& what) const
    {
        if (!isArrayType(type(k)))
            fail("expected an array for the " + what + ", got " + text(k));
    }

    uint32_t push(const HloShape& s)
    {
        m.shapes.push_back(s);
        return uint32_t(m.shapes.size() - 1);
    }

    // A new array shape with XLA's default layout (descending minor-to-major), as ShapeUtil::MakeShape.
    uint32_t makeShape(int32_t elementType, std::span<const int64_t> dimensions)
    {
        HloShape s;
        s.elementType = elementType;
        s.dims = m.addInts(dimensions);
        std::vector<int64_t> layout(dimensions.size());
        for (size_t k = 0; k < layout.size(); ++k)
            layout[k] = int64_t(layout.size() - 1 - k);
        s.minorToMajor = m.addInts(layout);
        s.hasLayout = !dimensions.empty();
        return push(s);
    }

    // Shape `index` with another element type, its dimensions and layout kept (ChangeElementType).
    uint32_t withType(uint32_t index, int32_t elementType)
    {
        HloShape s = m.shapes[index];
        if (s.elementType == elementType)
            return index;
        s.elementType = elementType;
        return push(s);
    }

    // A tuple of the given shapes, each with its layout (MakeTupleShape).
    uint32_t tupleOf(std::span<const uint32_t> elements)
    {
        std::vector<HloShape> copies;
        copies.reserve(elements.size());
        for (uint32_t e : elements)
            copies.push_back(m.shapes[e]);
        HloShape t;
        t.elementType = T::Tuple;
        t.firstTupleShape = uint32_t(m.shapes.size());
        t.tupleCount = uint32_t(copies.size());
        t.dims = m.addInts({});
        t.minorToMajor = t.dims;
        m.shapes.insert(m.shapes.end(), copies.begin(), copies.end());
        return push(t);
    }

    // ---- attributes -----------------------------------------------------------------------------
    const HloAttribute* attribute(std::string_view name) const
    {
        for (const HloAttribute& a : r.attributes)
            if (a.name == name)
                return &a;
        return nullptr;
    }
    const HloAttribute& required(std::string_view name) const
    {
        const HloAttribute* a = attribute(name);
        if (!a)
            fail(std::string(r.opcode) + " needs " + std::string(name) + "= to infer its shape");
        return *a;
    }
    int64_t integerAttribute(std::string_view name) const
    {
        const HloAttribute& a = required(name);
        ValueText v { a.value };
        int64_t out = 0;
        if (!v.number(out) || !v.atEnd())
            fail(std::string(name) + "= must be an integer, got '" + std::string(a.value) + "'");
        return out;
    }
    std::vector<int64_t> listAttribute(std::string_view name, bool mustExist = true) const
    {
        const HloAttribute* a = mustExist ? &required(name) : attribute(name);
        std::vector<int64_t> out;
        if (!a)
            return out;
        ValueText v { a->value };
        int64_t x = 0;
        if (!v.take('{')) {
            if (!v.number(x) || !v.atEnd())
                fail(std::string(name) + "= must be a list of integers {a,b,...}, got '" + std::string(a->value) + "'");
            return { x };
        }
        if (v.take('}') && v.atEnd())
            return out;
        for (;;) {
            if (!v.number(x))
                fail(std::string(name) + "= must be a list of integers {a,b,...}, got '" + std::string(a->value) + "'");
            out.push_back(x);
            if (v.take(','))
                continue;
            if (!v.take('}') || !v.atEnd())
                fail(std::string(name) + "= must be a list of integers {a,b,...}, got '" + std::string(a->value) + "'");
            return out;
        }
    }
    std::vector<int64_t> dimensionsAttribute() const
    {
        if (!r.hasDimensions)
            fail(std::string(r.opcode) + " needs dimensions= to infer its shape");
        const auto d = m.span(r.dimensions);
        return { d.begin(), d.end() };
    }
    uint32_t calleeRoot(size_t k, const char* attribute) const
    {
        if (k >= r.calleeRoots.size())
            fail(std::string(r.opcode) + " needs " + attribute + " to infer its shape");
        return r.calleeRoots[k];
    }

    // ---- element-wise ---------------------------------------------------------------------------
    template <class Allowed> uint32_t unary(Allowed allowed, const char* kinds)
    {
        need(1);
        expectArray(0, "operand of unary operation");
        if (!allowed(type(0)))
            fail("expected a " + std::string(kinds) + " element type for " + std::string(r.opcode) + ", got "
                + primitiveTypeName(type(0)));
        return r.operands[0];
    }

    uint32_t binary(bool refusesPred)
    {
        need(2);
        const std::string op(r.opcode);
        expectArray(0, "lhs of binary operation " + op);
        expectArray(1, "rhs of binary operation " + op);
        if (refusesPred && (type(0) == T::Pred || type(1) == T::Pred))
            fail("expected an arithmetic element type for " + op + ", got pred");
        if (op == "atan2" && !isFloat(type(0)) && !isComplex(type(0)))
            fail("expected a floating or complex element type for atan2, got " + primitiveTypeName(type(0)));
        return elementwise();
    }

    // XLA's InferElementwiseBinaryOpShape without broadcast dimensions: equal dimensions keep the
    // lhs's layout; a dimension of 1 or a scalar operand broadcasts, with a default layout.
    uint32_t elementwise()
    {
        const int32_t a = type(0), b = type(1);
        if (!sameTypeIgnoringFp(a, b))
            fail(
                "binary op " + std::string(r.opcode) + " with different element types: " + text(0) + " and " + text(1));
        const int32_t result = higherPrecision(a, b);
        const std::vector<int64_t> da = dims(0), db = dims(1);
        if (da == db)
            return withType(r.operands[0], result);
        if (da.size() == db.size()) {
            std::vector<int64_t> out(da.size());
            for (size_t k = 0; k < da.size(); ++k) {
                if (da[k] == 1 || db[k] == 1)
                    out[k] = da[k] == 1 ? db[k] : da[k];
                else if (da[k] == db[k])
                    out[k] = da[k];
                else
                    fail("binary op " + std::string(r.opcode) + " with incompatible shapes: " + text(0) + " and "
                        + text(1));
            }
            return makeShape(result, out);
        }
        const bool lhsLarger = da.size() > db.size();
        if (!(lhsLarger ? db : da).empty())
            fail("shapes must be equal rank, but are " + text(0) + " and " + text(1));
        return makeShape(result, lhsLarger ? da : db);
    }

    uint32_t clamp()
    {
        need(3);
        expectArray(0, "clamp min");
        expectArray(1, "clamp operand");
        expectArray(2, "clamp max");
        if (!sameTypeIgnoringFp(type(0), type(1)) || !sameTypeIgnoringFp(type(2), type(1))
            || !sameTypeIgnoringFp(type(0), type(2)))
            fail("clamp with incompatible element types: " + text(0) + ", " + text(1) + ", " + text(2));
        const std::vector<int64_t> lo = dims(0), x = dims(1), hi = dims(2);
        if ((!lo.empty() && lo != x) || (!hi.empty() && hi != x) || (!lo.empty() && !hi.empty() && lo != hi))
            fail("clamp with incompatible shapes: " + text(0) + ", " + text(1) + ", " + text(2));
        return r.operands[1];
    }

    uint32_t select()
    {
        need(3);
        expectArray(0, "select pred");
        expectArray(1, "select on-true");
        expectArray(2, "select on-false");
        if (dims(1) != dims(2) || !sameTypeIgnoringFp(type(1), type(2)))
            fail("operands to select must be the same shape; got " + text(1) + " and " + text(2));
        if (type(0) != T::Pred)
            fail("select's pred operand must have pred element type; got " + text(0));
        const bool scalarPred = dims(0).empty();
        if (!scalarPred && dims(0) != dims(1))
            fail("operands to select and predicate must be the same shape; got " + text(1) + " and " + text(2) + " and "
                + text(0));
        return withType(r.operands[scalarPred ? 1 : 0], higherPrecision(type(1), type(2)));
    }

    // ---- tuples and control flow ----------------------------------------------------------------
    uint32_t getTupleElement()
    {
        need(1);
        const int64_t index = integerAttribute("index");
        const HloShape& t = shape(0);
        if (t.elementType != T::Tuple)
            fail("get-tuple-element of a non-tuple: " + text(0));
        if (index < 0 || uint64_t(index) >= t.tupleCount)
            fail("index " + std::to_string(index) + " is out of the bounds of " + text(0));
        return t.firstTupleShape + uint32_t(index);
    }

    bool sameShape(uint32_t a, uint32_t b) const
    {
        const HloShape& x = m.shapes[a];
        const HloShape& y = m.shapes[b];
        if (x.elementType != y.elementType || x.tupleCount != y.tupleCount)
            return false;
        for (uint32_t k = 0; k < x.tupleCount; ++k)
            if (!sameShape(x.firstTupleShape + k, y.firstTupleShape + k))
                return false;
        const auto dx = m.span(x.dims), dy = m.span(y.dims);
        return std::equal(dx.begin(), dx.end(), dy.begin(), dy.end());
    }

    uint32_t whileLoop()
    {
        need(1);
        const uint32_t body = calleeRoot(0, "body= and condition=");
        const uint32_t condition = calleeRoot(1, "body= and condition=");
        if (m.shapes[condition].elementType != T::Pred || !m.span(m.shapes[condition].dims).empty())
            fail("the condition must return a pred[], it returns " + m.shapeToText(condition));
        if (!sameShape(body, r.operands[0]))
            fail("the body returns " + m.shapeToText(body) + " but the loop's initial value has shape " + text(0));
        return r.operands[0];
    }

    uint32_t conditional()
    {
        if (r.operands.empty())
            fail("conditional takes a branch index and one operand per branch, got no operands");
        const uint32_t first = calleeRoot(0, "branch_computations= (or true_computation= and false_computation=)");
        for (size_t k = 1; k < r.calleeRoots.size(); ++k)
            if (!sameShape(first, r.calleeRoots[k]))
                fail("branch 0 returns " + m.shapeToText(first) + " but branch " + std::to_string(k) + " returns "
                    + m.shapeToText(r.calleeRoots[k]));
        return first;
    }

    uint32_t callee(const char* attribute) { return calleeRoot(0, attribute); }

    uint32_t map()
    {
        if (r.operands.empty())
            fail("map takes at least one operand");
        size_t arg = 0;
        for (size_t k = 1; k < r.operands.size(); ++k) {
            expectArray(k, "operand of map");
            if (dims(k) == dims(arg))
                continue;
            if (sameTypeIgnoringFp(type(k), type(arg))) {
                if (dims(k).empty())
                    continue;
                if (dims(arg).empty()) {
                    arg = k;
                    continue;
                }
            }
            fail("map requires all operands to have the same shape");
        }
        const std::vector<int64_t> argDims = dims(arg);
        const std::vector<int64_t> mapped = r.hasDimensions ? dimensionsAttribute() : std::vector<int64_t> {};
        if (!r.hasDimensions && !argDims.empty())
            fail("map needs dimensions={0,...," + std::to_string(argDims.size() - 1) + "} to infer its shape");
        if (mapped.size() != argDims.size())
            fail("map applied to a subset of dimensions is not supported: rank " + std::to_string(argDims.size())
                + ", dimensions={" + join(mapped) + "}");
        for (size_t k = 0; k < mapped.size(); ++k)
            if (mapped[k] != int64_t(k))
                fail("map requires monotonically increasing dimension numbers; got {" + join(mapped) + "}");
        const uint32_t root = calleeRoot(0, "to_apply=");
        if (!m.span(m.shapes[root].dims).empty() || !isArrayType(m.shapes[root].elementType))
            fail("the mapped computation's result has to be a scalar; got " + m.shapeToText(root));
        return makeShape(m.shapes[root].elementType, argDims);
    }

    uint32_t reduce()
    {
        if (r.operands.empty() || r.operands.size() % 2)
            fail("reduce takes an even number of operands (inputs, then one init value each), got "
                + std::to_string(r.operands.size()));
        const size_t inputs = r.operands.size() / 2;
        for (size_t k = 0; k < inputs; ++k)
            expectArray(k, "input of reduce");
        for (size_t k = 1; k < inputs; ++k)
            if (dims(k) != dims(0))
                fail("all reduced inputs must have the same dimensions: " + text(0) + " and " + text(k));
        const std::vector<int64_t> input = dims(0);
        std::vector<bool> reduced(input.size(), false);
        for (int64_t d : dimensionsAttribute()) {
            if (d < 0 || size_t(d) >= input.size())
                fail("reducing out-of-bounds dimension " + std::to_string(d) + " in shape " + text(0));
            if (reduced[size_t(d)])
                fail("duplicate reduction dimension " + std::to_string(d));
            reduced[size_t(d)] = true;
        }
        std::vector<int64_t> kept;
        for (size_t k = 0; k < input.size(); ++k)
            if (!reduced[k])
                kept.push_back(input[k]);
        const uint32_t root = calleeRoot(0, "to_apply=");
        const HloShape rootShape = m.shapes[root];
        if (rootShape.elementType != T::Tuple) {
            if (!m.span(rootShape.dims).empty() || !isArrayType(rootShape.elementType))
                fail("the reducer must return a scalar or a tuple of scalars; it returns " + m.shapeToText(root));
            return makeShape(rootShape.elementType, kept);
        }
        std::vector<uint32_t> elements;
        for (uint32_t k = 0; k < rootShape.tupleCount; ++k)
            elements.push_back(makeShape(m.shapes[rootShape.firstTupleShape + k].elementType, kept));
        return tupleOf(elements);
    }

    uint32_t sort()
    {
        if (r.operands.empty())
            fail("sort takes at least one operand");
        if (r.operands.size() == 1)
            return r.operands[0];
        for (size_t k = 1; k < r.operands.size(); ++k)
            if (dims(k) != dims(0))
                fail("sort keys and values must have the same dimensions: " + text(0) + " and " + text(k));
        return tupleOf(r.operands);
    }

    // ---- shape-changing ops ---------------------------------------------------------------------
    // XLA's parser infers a broadcast through the operand-and-sizes form of its shape inference:
    // the values of dimensions= are read as new major dimension sizes (docs/formats.md §8.7).
    uint32_t broadcast()
    {
        need(1);
        expectArray(0, "operand of broadcast");
        std::vector<int64_t> out;
        if (r.hasDimensions)
            out = dimensionsAttribute();
        else if (!dims(0).empty())
            fail("broadcast of a non-scalar needs dimensions=");
        for (int64_t d : out)
            if (d < 0)
                fail("broadcast with negative dimension size " + std::to_string(d));
        const std::vector<int64_t> operand = dims(0);
        out.insert(out.end(), operand.begin(), operand.end());
        return makeShape(type(0), out);
    }

    // XLA's PermuteDimensions: dimension k of the result is dimension p[k] of the operand, and the
    // layout is chosen so that the transpose is a bitcast.
    uint32_t transpose()
    {
        need(1);
        expectArray(0, "transpose");
        const std::vector<int64_t> p = dimensionsAttribute();
        const std::vector<int64_t> operand = dims(0);
        if (p.size() != operand.size() || !isPermutation(p))
            fail("transpose dimensions {" + join(p) + "} are not a permutation of the operand dimensions (operand "
                + text(0) + ")");
        HloShape s = shape(0);
        std::vector<int64_t> out(p.size()), inverse(p.size());
        for (size_t k = 0; k < p.size(); ++k) {
            out[k] = operand[size_t(p[k])];
            inverse[size_t(p[k])] = int64_t(k);
        }
        s.dims = m.addInts(out);
        const auto layout = m.span(s.minorToMajor);
        if (layout.size() == p.size()) {
            std::vector<int64_t> permuted(layout.size());
            for (size_t k = 0; k < layout.size(); ++k) {
                if (layout[k] < 0 || size_t(layout[k]) >= p.size())
                    fail("the operand's layout is not a permutation: " + text(0));
                permuted[k] = inverse[size_t(layout[k])];
            }
            s.minorToMajor = m.addInts(permuted);
        }
        return push(s);
    }

    uint32_t reverse()
    {
        need(1);
        expectArray(0, "operand of reverse");
        const std::vector<int64_t> reversed = dimensionsAttribute();
        std::vector<bool> seen(dims(0).size(), false);
        for (int64_t d : reversed) {
            if (d < 0 || size_t(d) >= seen.size())
                fail("reverse dimension " + std::to_string(d) + " is out of the bounds of " + text(0));
            if (seen[size_t(d)])
                fail("a dimension number is duplicated in reverse");
            seen[size_t(d)] = true;
        }
        return r.operands[0];
    }

    uint32_t concatenate()
    {
        if (r.operands.empty())
            fail("concatenate takes at least one operand");
        const std::vector<int64_t> d = dimensionsAttribute();
        if (d.size() != 1)
            fail("concatenate takes one dimension in dimensions=, got {" + join(d) + "}");
        const int64_t dimension = d[0];
        std::vector<int64_t> out = dims(0);
        if (dimension < 0 || size_t(dimension) >= out.size())
            fail("concatenate dimension out of bounds: " + std::to_string(dimension));
        int32_t result = type(0);
        for (size_t k = 0; k < r.operands.size(); ++k)
            expectArray(k, "operand of concatenation");
        for (size_t k = 1; k < r.operands.size(); ++k) {
            const std::vector<int64_t> dk = dims(k);
            if (dk.size() != out.size())
                fail("cannot concatenate arrays of different ranks: " + text(0) + " and " + text(k));
            if (!sameTypeIgnoringFp(type(0), type(k)))
                fail("cannot concatenate arrays of different element types: " + text(0) + " and " + text(k));
            for (size_t j = 0; j < dk.size(); ++j)
                if (int64_t(j) != dimension && dk[j] != out[j])
                    fail("cannot concatenate arrays that differ in dimensions other than the one being concatenated: "
                        + text(0) + " and " + text(k));
            out[size_t(dimension)] += dk[size_t(dimension)];
            result = higherPrecision(result, type(k));
        }
        return makeShape(result, out);
    }

    uint32_t pad()
    {
        need(2);
        if (type(0) == T::Tuple)
            fail("pad does not take tuple operands");
        if (!dims(1).empty())
            fail("pad's padding value must be a scalar, got " + text(1));
        const std::vector<int64_t> operand = dims(0);
        const size_t count = r.details ? r.details->paddingCount : 0;
        if (!r.details || !count) {
            if (!operand.empty())
                fail("pad needs padding= to infer its shape");
        }
        if (count != operand.size())
            fail("the rank of the operand and the padding configuration do not match: " + text(0) + " has rank "
                + std::to_string(operand.size()) + ", padding= has " + std::to_string(count) + " dimensions");
        if (!sameTypeIgnoringFp(type(0), type(1)))
            fail("the element types of the operands of pad do not match: " + text(0) + " and " + text(1));
        std::vector<int64_t> out(operand.size());
        for (size_t k = 0; k < operand.size(); ++k) {
            const HloPaddingDimension& p = m.paddings[r.details->paddingOffset + k];
            if (p.interior < 0)
                fail("interior padding cannot be negative");
            out[k] = operand[k] + p.low + p.high + std::max<int64_t>(operand[k] - 1, 0) * p.interior;
            if (out[k] < 0)
                fail("padding results in a negative size for dimension " + std::to_string(k));
        }
        return makeShape(higherPrecision(type(0), type(1)), out);
    }

    // ---- dots and convolutions ------------------------------------------------------------------
    // The result of a dot: batch dimensions, then the lhs's and the rhs's free ones (those of
    // `skipRhs` left out), of the higher-precision element type, default layout.
    uint32_t dot(size_t lhs, size_t rhs, const HloDotDims* dn, std::span<const int64_t> skipRhs,
        std::vector<int64_t> leading = {})
    {
        expectArray(lhs, "lhs of dot");
        expectArray(rhs, "rhs of dot");
        const std::vector<int64_t> a = dims(lhs), b = dims(rhs);
        const auto list = [&](IntSpan s) {
            const auto v = m.span(s);
            return std::vector<int64_t>(v.begin(), v.end());
        };
        const std::vector<int64_t> lc = dn ? list(dn->lhsContracting) : std::vector<int64_t> {};
        const std::vector<int64_t> rc = dn ? list(dn->rhsContracting) : std::vector<int64_t> {};
        const std::vector<int64_t> lb = dn ? list(dn->lhsBatch) : std::vector<int64_t> {};
        const std::vector<int64_t> rb = dn ? list(dn->rhsBatch) : std::vector<int64_t> {};
        const auto inRangeAndUnique = [](const std::vector<int64_t>& c, const std::vector<int64_t>& bt, size_t rank) {
            std::vector<bool> seen(rank, false);
            for (const auto* v : { &c, &bt })
                for (int64_t d : *v) {
                    if (d < 0 || size_t(d) >= rank || seen[size_t(d)])
                        return false;
                    seen[size_t(d)] = true;
                }
            return true;
        };
        if (!inRangeAndUnique(lc, lb, a.size()) || !inRangeAndUnique(rc, rb, b.size()))
            fail("a dimension number of the dot is out of range or repeated (" + text(lhs) + " <dot> " + text(rhs)
                + ")");
        if (lc.size() != rc.size())
            fail("the dot must contract as many lhs as rhs dimensions");
        // Structured sparsity: the sparse operand stores n of every m values of its sparse dimension.
        int64_t lhsScale[2] = { 1, 1 }, rhsScale[2] = { 1, 1 }; // per operand: n, m
        int64_t sparseDim[2] = { -1, -1 };
        if (dn)
            for (uint32_t k = 0; k + 3 < dn->sparsity.count; k += 4) {
                const auto s = m.span(dn->sparsity).subspan(k, 4);
                const size_t operand = s[0] == 0 ? 0 : 1;
                sparseDim[operand] = s[1];
                (operand == 0 ? lhsScale : rhsScale)[0] = s[2];
                (operand == 0 ? lhsScale : rhsScale)[1] = s[3];
            }
        for (size_t k = 0; k < lc.size(); ++k) {
            int64_t x = a[size_t(lc[k])], y = b[size_t(rc[k])];
            if (lc[k] == sparseDim[0]) {
                x *= lhsScale[1];
                y *= lhsScale[0];
            }
            if (rc[k] == sparseDim[1]) {
                x *= rhsScale[0];
                y *= rhsScale[1];
            }
            if (x != y)
                fail("contracting dimension sizes of the dot are not compatible: " + text(lhs) + " <dot> " + text(rhs));
        }
        if (lb.size() != rb.size())
            fail("the dot must have as many lhs as rhs batch dimensions");
        for (size_t k = 0; k < lb.size(); ++k)
            if (a[size_t(lb[k])] != b[size_t(rb[k])])
                fail("batch dimension sizes of the dot are not compatible: " + text(lhs) + " <dot> " + text(rhs));
        std::vector<int64_t> out = std::move(leading);
        for (int64_t d : lb)
            out.push_back(a[size_t(d)]);
        const auto has
            = [](const std::vector<int64_t>& v, int64_t d) { return std::find(v.begin(), v.end(), d) != v.end(); };
        for (size_t k = 0; k < a.size(); ++k)
            if (!has(lc, int64_t(k)) && !has(lb, int64_t(k)))
                out.push_back(a[k]);
        for (size_t k = 0; k < b.size(); ++k)
            if (!has(rc, int64_t(k)) && !has(rb, int64_t(k))
                && std::find(skipRhs.begin(), skipRhs.end(), int64_t(k)) == skipRhs.end())
                out.push_back(b[k]);
        return makeShape(higherPrecision(type(lhs), type(rhs)), out);
    }

    uint32_t raggedDot()
    {
        need(3);
        expectArray(2, "group_sizes of ragged dot");
        const std::vector<int64_t> groups = dims(2);
        if (groups.size() != 1)
            fail("group_sizes is expected to have rank 1, got " + text(2));
        const std::vector<int64_t> ragged = listAttribute("lhs_ragged_dims");
        const std::vector<int64_t> groupDims = listAttribute("rhs_group_dims", false);
        if (ragged.size() != 1)
            fail("there must be exactly one ragged dimension in the lhs");
        const auto list = [&](IntSpan s) {
            const auto v = m.span(s);
            return std::vector<int64_t>(v.begin(), v.end());
        };
        const std::vector<int64_t> lc = r.dot ? list(r.dot->lhsContracting) : std::vector<int64_t> {};
        const std::vector<int64_t> lb = r.dot ? list(r.dot->lhsBatch) : std::vector<int64_t> {};
        const std::vector<int64_t> rhs = dims(1);
        for (int64_t g : groupDims)
            if (g < 0 || size_t(g) >= rhs.size())
                fail("rhs group dimension " + std::to_string(g) + " is out of range");
        const bool contracting = std::find(lc.begin(), lc.end(), ragged[0]) != lc.end();
        const bool batch = std::find(lb.begin(), lb.end(), ragged[0]) != lb.end();
        if ((contracting || batch) && !groupDims.empty())
            fail("rhs_group_dims must be empty when the lhs's ragged dimension is a contracting or batch dimension");
        if (!contracting && !batch && groupDims.size() != 1)
            fail("rhs_group_dims must have one dimension when the lhs's ragged dimension is a free dimension");
        if (!contracting && !batch && rhs[size_t(groupDims[0])] != groups[0])
            fail("group_sizes is expected to have shape [" + std::to_string(rhs[size_t(groupDims[0])]) + "], got "
                + text(2));
        return dot(0, 1, r.dot, groupDims, contracting ? std::vector<int64_t> { groups[0] } : std::vector<int64_t> {});
    }

    // The output size of each windowed dimension (XLA's InferWindowOutputShape).
    std::vector<int64_t> windowOutput(const std::vector<int64_t>& base)
    {
        const size_t count = r.details ? r.details->windowCount : 0;
        if (count != base.size())
            fail("the window has " + std::to_string(count) + " dimensions but the base shape has "
                + std::to_string(base.size()));
        std::vector<int64_t> out(base.size());
        for (size_t k = 0; k < base.size(); ++k) {
            const HloWindowDimension& w = m.windowDims[r.details->windowOffset + k];
            if (w.size <= 0 || w.stride <= 0 || w.baseDilation < 1 || w.windowDilation < 1)
                fail("the window has a non-positive size, stride or dilation in dimension " + std::to_string(k));
            const int64_t dilatedBase = base[k] == 0 ? 0 : (base[k] - 1) * w.baseDilation + 1;
            const int64_t padded = w.paddingLow + dilatedBase + w.paddingHigh;
            const int64_t dilatedWindow = (w.size - 1) * w.windowDilation + 1;
            if (padded < 0)
                fail("the padded base of window dimension " + std::to_string(k) + " is negative");
            out[k] = padded == 0 || dilatedWindow > padded ? 0 : (padded - dilatedWindow) / w.stride + 1;
        }
        return out;
    }

    uint32_t convolution()
    {
        if (r.operands.size() < 2)
            fail("convolution takes at least 2 operands, got " + std::to_string(r.operands.size()));
        expectArray(0, "lhs of convolution");
        expectArray(1, "rhs of convolution");
        if (!r.details || r.details->convolutionDims < 0)
            fail("convolution needs dim_labels= to infer its shape");
        const HloConvolutionDims& c = m.convolutionDims[size_t(r.details->convolutionDims)];
        const int64_t fg = r.featureGroupCount, bg = r.batchGroupCount;
        if (fg <= 0 || bg <= 0)
            fail("feature_group_count and batch_group_count must be positive");
        if (fg > 1 && bg > 1)
            fail("feature_group_count and batch_group_count cannot both be above 1");
        const auto inSpatial = m.span(c.inputSpatial), kSpatial = m.span(c.kernelSpatial),
                   outSpatial = m.span(c.outputSpatial);
        if (inSpatial.size() != kSpatial.size() || inSpatial.size() != outSpatial.size())
            fail("dim_labels give the input, kernel and output different numbers of spatial dimensions");
        const size_t rank = inSpatial.size() + 2;
        const std::vector<int64_t> lhs = dims(0), rhs = dims(1);
        if (lhs.size() != rank || rhs.size() != rank)
            fail("dim_labels name " + std::to_string(rank) + " dimensions but the operands are " + text(0) + " and "
                + text(1));
        const auto isPermutationOf = [rank](int64_t a, int64_t b, std::span<const int64_t> spatial) {
            std::vector<int64_t> all { a, b };
            all.insert(all.end(), spatial.begin(), spatial.end());
            return all.size() == rank && isPermutation(all);
        };
        if (!isPermutationOf(c.inputBatch, c.inputFeature, inSpatial)
            || !isPermutationOf(c.kernelInputFeature, c.kernelOutputFeature, kSpatial)
            || !isPermutationOf(c.outputBatch, c.outputFeature, outSpatial))
            fail("dim_labels must name every dimension once");
        const int64_t inputFeatures = lhs[size_t(c.inputFeature)], inputBatch = lhs[size_t(c.inputBatch)];
        const int64_t kernelInput = rhs[size_t(c.kernelInputFeature)],
                      kernelOutput = rhs[size_t(c.kernelOutputFeature)];
        if (kernelOutput % bg != 0)
            fail("the kernel's output features are not a multiple of batch_group_count");
        if (inputFeatures % fg != 0 || inputFeatures / fg != kernelInput)
            fail("the input features (" + std::to_string(inputFeatures) + ") divided by feature_group_count ("
                + std::to_string(fg) + ") must equal the kernel's input features (" + std::to_string(kernelInput)
                + ")");
        if (kernelOutput % fg != 0)
            fail("the kernel's output features are not a multiple of feature_group_count");
        if (inputBatch % bg != 0)
            fail("the input batch is not a multiple of batch_group_count");
        std::vector<int64_t> base(inSpatial.size());
        for (size_t k = 0; k < base.size(); ++k) {
            base[k] = lhs[size_t(inSpatial[k])];
            const int64_t size = r.details->windowCount > k ? m.windowDims[r.details->windowOffset + k].size : -1;
            if (rhs[size_t(kSpatial[k])] != size)
                fail("the window's sizes must equal the kernel's spatial dimensions");
        }
        const std::vector<int64_t> window = windowOutput(base);
        std::vector<int64_t> out(rank);
        out[size_t(c.outputBatch)] = inputBatch / bg;
        out[size_t(c.outputFeature)] = kernelOutput;
        for (size_t k = 0; k < outSpatial.size(); ++k)
            out[size_t(outSpatial[k])] = window[k];
        return makeShape(higherPrecision(type(0), type(1)), out);
    }

    // XLA's parser infers a reduce-window from its first input and init value only.
    uint32_t reduceWindow()
    {
        if (r.operands.size() != 2)
            fail("XLA's parser infers the shape of a reduce-window of one input only (this one has "
                + std::to_string(r.operands.size() / 2) + ")");
        expectArray(0, "operand of reduce-window");
        calleeRoot(0, "to_apply=");
        return makeShape(type(1), windowOutput(dims(0)));
    }

    uint32_t scatter()
    {
        if (r.operands.size() < 3 || r.operands.size() % 2 == 0)
            fail("scatter takes an odd number of operands (inputs, indices, then one update each), got "
                + std::to_string(r.operands.size()));
        const size_t inputs = r.operands.size() / 2;
        if (!isIntegral(type(inputs)))
            fail("scatter indices must be an integral tensor; got " + text(inputs));
        calleeRoot(0, "to_apply=");
        if (inputs == 1)
            return r.operands[0];
        return tupleOf(r.operands.subspan(0, inputs));
    }

    uint32_t gather()
    {
        need(2);
        expectArray(0, "input of gather");
        expectArray(1, "start indices of gather");
        if (!isIntegral(type(1)))
            fail("gather indices must be an integral tensor; got " + text(1));
        const std::vector<int64_t> offset = listAttribute("offset_dims");
        const std::vector<int64_t> collapsed = listAttribute("collapsed_slice_dims");
        const std::vector<int64_t> batching = listAttribute("operand_batching_dims", false);
        const std::vector<int64_t> sizes = listAttribute("slice_sizes");
        const int64_t indexVectorDim = integerAttribute("index_vector_dim");
        listAttribute("start_index_map");
        const std::vector<int64_t> input = dims(0);
        std::vector<int64_t> indices = dims(1);
        if (indexVectorDim < 0 || size_t(indexVectorDim) > indices.size())
            fail("index_vector_dim " + std::to_string(indexVectorDim) + " is out of bounds for " + text(1));
        if (size_t(indexVectorDim) == indices.size())
            indices.push_back(1);
        if (!std::is_sorted(offset.begin(), offset.end())
            || std::adjacent_find(offset.begin(), offset.end()) != offset.end())
            fail("offset_dims must be ascending and not repeat");
        if (!std::is_sorted(collapsed.begin(), collapsed.end()) || !std::is_sorted(batching.begin(), batching.end()))
            fail("collapsed_slice_dims and operand_batching_dims must be ascending");
        if (sizes.size() != input.size())
            fail("slice_sizes has " + std::to_string(sizes.size()) + " entries for an input of rank "
                + std::to_string(input.size()));
        if (sizes.size() != offset.size() + collapsed.size() + batching.size())
            fail("slice_sizes must have as many entries as offset_dims, collapsed_slice_dims and operand_batching_dims "
                 "together");
        const size_t rank = offset.size() + indices.size() - 1;
        std::vector<int64_t> out;
        size_t offsetSeen = 0, gatherSeen = 0;
        for (size_t k = 0; k < rank; ++k) {
            if (std::binary_search(offset.begin(), offset.end(), int64_t(k))) {
                while (std::binary_search(collapsed.begin(), collapsed.end(), int64_t(offsetSeen))
                    || std::binary_search(batching.begin(), batching.end(), int64_t(offsetSeen)))
                    ++offsetSeen;
                if (offsetSeen >= sizes.size())
                    fail("offset_dims do not fit the slice sizes");
                out.push_back(sizes[offsetSeen++]);
            } else {
                if (gatherSeen == size_t(indexVectorDim))
                    ++gatherSeen;
                if (gatherSeen >= indices.size())
                    fail("the gather's dimension numbers do not fit the indices " + text(1));
                out.push_back(indices[gatherSeen++]);
            }
        }
        return makeShape(type(0), out);
    }

    uint32_t fft()
    {
        need(1);
        const HloAttribute& kind = required("fft_type");
        const std::vector<int64_t> length = listAttribute("fft_length");
        if (length.empty() || length.size() > 3)
            fail("fft supports ranks 1-3; fft_length= has " + std::to_string(length.size()) + " entries");
        std::vector<int64_t> in = dims(0);
        if (in.size() < length.size())
            fail("the fft's operand has rank " + std::to_string(in.size()) + ", below the fft's rank");
        const std::string_view t = kind.value;
        if (t == "FFT" || t == "IFFT") {
            if (!isComplex(type(0)))
                fail(std::string(t) + " requires a complex input, found " + primitiveTypeName(type(0)));
            return r.operands[0];
        }
        const size_t first = in.size() - length.size();
        if (t == "RFFT") {
            if (type(0) != T::F32 && type(0) != T::F64)
                fail("RFFT requires an f32 or f64 input, found " + primitiveTypeName(type(0)));
            for (size_t k = 0; k < length.size(); ++k)
                if (in[first + k] != length[k])
                    fail("RFFT requires its innermost dimensions to match fft_length");
            HloShape s = shape(0);
            s.elementType = type(0) == T::F32 ? T::C64 : T::C128;
            if (length.back() != 0)
                in.back() = length.back() / 2 + 1;
            s.dims = m.addInts(in);
            return push(s);
        }
        if (t == "IRFFT") {
            if (!isComplex(type(0)))
                fail("IRFFT requires a complex input, found " + primitiveTypeName(type(0)));
            for (size_t k = 0; k + 1 < length.size(); ++k)
                if (in[first + k] != length[k])
                    fail("IRFFT requires its innermost dimensions to match fft_length");
            if ((in.back() != 0 || length.back() != 0) && in.back() != length.back() / 2 + 1)
                fail("IRFFT requires its innermost dimension to be fft_length/2+1");
            HloShape s = shape(0);
            s.elementType = complexComponent(type(0));
            in.back() = length.back();
            s.dims = m.addInts(in);
            return push(s);
        }
        fail("unknown fft_type '" + std::string(t) + "'");
    }

    uint32_t triangularSolve()
    {
        need(2);
        const HloAttribute* transpose = attribute("transpose_a");
        if (!transpose
            || !(
                transpose->value == "NO_TRANSPOSE" || transpose->value == "TRANSPOSE" || transpose->value == "ADJOINT"))
            fail("triangular-solve needs transpose_a=NO_TRANSPOSE, TRANSPOSE or ADJOINT to infer its shape");
        const HloAttribute* left = attribute("left_side");
        const bool leftSide = left && left->value == "true";
        if ((!isFloat(type(0)) && !isComplex(type(0))) || type(0) != type(1))
            fail("triangular-solve takes two floating or complex operands of one element type, got " + text(0) + " and "
                + text(1));
        const std::vector<int64_t> a = dims(0), b = dims(1);
        if (a.size() < 2 || b.size() != a.size())
            fail("triangular-solve takes operands of the same rank, at least 2: " + text(0) + " and " + text(1));
        if (a[a.size() - 2] != a.back() || a.back() != b[b.size() - (leftSide ? 2 : 1)]
            || !std::equal(a.begin(), a.end() - 2, b.begin(), b.end() - 2))
            fail("the operands of triangular-solve do not fit: " + text(0) + " and " + text(1));
        return r.operands[1];
    }

    uint32_t cholesky()
    {
        need(1);
        const std::vector<int64_t> a = dims(0);
        if (!isFloat(type(0)) && !isComplex(type(0)))
            fail("cholesky takes a floating or complex operand, got " + text(0));
        if (a.size() < 2 || a[a.size() - 2] != a.back())
            fail("cholesky takes square matrices (rank 2 or more), got " + text(0));
        return r.operands[0];
    }

    uint32_t batchNorm(size_t operands, bool tuple)
    {
        need(operands);
        expectArray(0, "operand of batch norm");
        const int64_t feature = integerAttribute("feature_index");
        const std::vector<int64_t> operand = dims(0);
        if (feature < 0 || size_t(feature) >= operand.size())
            fail("feature_index " + std::to_string(feature) + " is out of the bounds of " + text(0));
        if (!tuple)
            return r.operands[0];
        const int64_t count = operand[size_t(feature)];
        const uint32_t vector = makeShape(type(0), std::span<const int64_t>(&count, 1));
        const uint32_t elements[3] = { r.operands[0], vector, vector };
        return tupleOf(elements);
    }

    void dimensionOf(size_t k, const char* what)
    {
        const std::vector<int64_t> d = dimensionsAttribute();
        if (d.empty() || d[0] < 0 || size_t(d[0]) >= dims(k).size())
            fail(std::string(what) + " dimension out of bounds: dimensions={" + join(d) + "} for " + text(k));
    }

    uint32_t topK()
    {
        need(1);
        expectArray(0, "operand of top-k operation");
        const int64_t k = integerAttribute("k");
        std::vector<int64_t> out = dims(0);
        if (out.empty() || out.back() < k || k < 0)
            fail("k=" + std::to_string(k) + " does not fit the last dimension of " + text(0));
        out.back() = k;
        const uint32_t values = makeShape(type(0), out);
        const uint32_t indices = makeShape(T::S32, out);
        const uint32_t elements[2] = { values, indices };
        return tupleOf(elements);
    }

    HloModule& m;
    const HloShapeRequest& r;
};

} // namespace

bool canInferHloShape(std::string_view opcode) { return inferableOpcodes().count(opcode) > 0; }

uint32_t inferHloShape(HloModule& module, const HloShapeRequest& request) { return Inference(module, request).run(); }

// ---- names --------------------------------------------------------------------------------------
struct HloNameUniquer::Roots
{
    struct Ids
    {
        std::unordered_set<int64_t> used;
        int64_t next = 0;
        int64_t take(int64_t id)
        {
            if (used.insert(id).second)
                return id;
            while (!used.insert(next).second)
                ++next;
            return next++;
        }
    };
    std::unordered_map<std::string, Ids> ids;
};

HloNameUniquer::HloNameUniquer()
    : m_roots(std::make_unique<Roots>())
{ }
HloNameUniquer::~HloNameUniquer() = default;

namespace {

// XLA's NameUniquer::GetSanitizedName.
std::string sanitized(std::string_view name)
{
    std::string out(name.empty() ? std::string_view("name") : name);
    const auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
    const auto allowed = [&](char c) { return alpha(c) || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'; };
    if (!alpha(out[0]) && out[0] != '_')
        out[0] = '_';
    for (size_t k = 1; k < out.size(); ++k)
        if (!allowed(out[k]))
            out[k] = '_';
    if (out != "tuple" && primitiveTypeFromName(out) >= 0)
        out += '_';
    if (out.size() >= 2 && out[0] == '_' && out[1] == '_' && out.compare(0, 6, "__xla_") != 0)
        out[0] = 'a';
    return out;
}

// Splits a sanitized name into its root and numeric suffix (XLA: a '.' neither first nor last,
// followed by an integer absl::SimpleAtoi reads); no suffix gives (name, 0, false).
std::tuple<std::string, int64_t, bool> splitSuffix(const std::string& name)
{
    const size_t dot = name.rfind('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 >= name.size())
        return { name, 0, false };
    std::string_view digits = std::string_view(name).substr(dot + 1);
    if (digits.front() == '+')
        digits.remove_prefix(1);
    int64_t value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty())
        return { name, 0, false };
    return { name.substr(0, dot), value, true };
}

bool endsWithAnon(const std::string& root)
{
    return root.size() >= 5 && root.compare(root.size() - 5, 5, ".anon") == 0;
}

} // namespace

std::string HloNameUniquer::unique(std::string_view prefix)
{
    auto [root, suffix, hasSuffix] = splitSuffix(sanitized(prefix));
    const int64_t id = m_roots->ids[root].take(suffix);
    if (id == 0)
        return hasSuffix ? root + ".0" : root;
    return root + "." + std::to_string(id);
}

void HloNameUniquer::registerWritten(std::string_view name)
{
    auto [root, suffix, hasSuffix] = splitSuffix(sanitized(name));
    (void)hasSuffix;
    if (endsWithAnon(root))
        m_roots->ids[root].take(suffix);
}

} // namespace tgraph
