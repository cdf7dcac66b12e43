// SPDX-License-Identifier: Apache-2.0
#include "model/nn/products.h"

#include "model/nn/fusedkernels.h"

#include <atomic>
#include <cstdio>
#include <dlfcn.h>

namespace tgraph::model {

namespace {

std::atomic<bool> g_bf16 { false };

// oneDNN's C entry points (dnnl.h, stable across oneDNN 1.x-3.x): row-major GEMMs,
// C = alpha op(A) op(B) + beta C. LibTorch links oneDNN, so they are in the process; they are looked
// up at run time rather than linked, as Debian ships no oneDNN headers with LibTorch.
using GemmBf16 = int (*)(char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
    int64_t lda, const uint16_t* b, int64_t ldb, float beta, float* c, int64_t ldc);
struct DnnlVersion
{
    int major, minor, patch;
    const char* hash;
    unsigned cpuRuntime, gpuRuntime;
};
using VersionFn = const DnnlVersion* (*)();

GemmBf16 gemmBf16()
{
    static const GemmBf16 fn = [] {
        void* symbol = dlsym(RTLD_DEFAULT, "dnnl_gemm_bf16bf16f32");
        if (!symbol) {
            if (void* handle = dlopen("libdnnl.so.2", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD))
                symbol = dlsym(handle, "dnnl_gemm_bf16bf16f32");
        }
        return reinterpret_cast<GemmBf16>(symbol);
    }();
    return fn;
}

// One operand as the GEMM reads it: bfloat16 data, transposed or not, its leading dimension.
struct Operand
{
    torch::Tensor data;
    char trans = 'N';
    int64_t ld = 0;
};

Operand operand(const torch::Tensor& t)
{
    TORCH_CHECK(t.dim() == 2 && t.device().is_cpu()
            && (t.scalar_type() == torch::kFloat32 || t.scalar_type() == torch::kBFloat16),
        "products: operands must be 2-d float32 or bfloat16 CPU tensors");
    // A transposed view of a contiguous tensor (a weight's .t(), a gradient's .t()) is read as it is
    // stored, with the GEMM's transpose flag.
    if (!t.is_contiguous() && t.t().is_contiguous() && t.size(0) > 1 && t.size(1) > 1)
        return { toBf16(t.t()), 'T', t.size(0) };
    const auto data = toBf16(t);
    return { data, 'N', std::max<int64_t>(t.size(1), 1) };
}

const uint16_t* bits(const torch::Tensor& t) { return reinterpret_cast<const uint16_t*>(t.data_ptr()); }

// out (+)= a b in bf16 with float32 results; out (m, n) float32 contiguous.
void bf16Into(const torch::Tensor& out, const torch::Tensor& a, const torch::Tensor& b, bool accumulate)
{
    const int64_t m = a.size(0);
    const int64_t k = a.size(1);
    const int64_t n = b.size(1);
    TORCH_CHECK(b.size(0) == k && out.size(0) == m && out.size(1) == n, "products: shapes (", m, ", ", k, ") x (",
        b.size(0), ", ", n, ") -> (", out.size(0), ", ", out.size(1), ") do not match");
    TORCH_CHECK(out.is_contiguous() && out.scalar_type() == torch::kFloat32, "products: out must be contiguous float32");
    if (m == 0 || n == 0)
        return;
    if (k == 0) {
        if (!accumulate)
            out.zero_();
        return;
    }
    const Operand oa = operand(a);
    const Operand ob = operand(b);
    if (const GemmBf16 gemm = gemmBf16()) {
        if (n <= 32 && m >= 8 * n) {
            // A thin result (a gate's F/8-wide hidden layer): oneDNN runs C = A B at a tenth of its
            // rate for such n, and its transpose C^T = B^T A^T (n rows, m columns) 3-4x faster.
            auto t = torch::empty({ n, m }, out.options());
            const int status = gemm(ob.trans == 'T' ? 'N' : 'T', oa.trans == 'T' ? 'N' : 'T', n, m, k, 1.0f,
                bits(ob.data), ob.ld, bits(oa.data), oa.ld, 0.0f, t.data_ptr<float>(), m);
            TORCH_CHECK(status == 0, "products: oneDNN's bf16 GEMM failed (status ", status, ")");
            auto o = out;
            if (accumulate)
                o.add_(t.t());
            else
                o.copy_(t.t());
            return;
        }
        const int status = gemm(oa.trans, ob.trans, m, n, k, 1.0f, bits(oa.data), oa.ld, bits(ob.data), ob.ld,
            accumulate ? 1.0f : 0.0f, out.data_ptr<float>(), n);
        TORCH_CHECK(status == 0, "products: oneDNN's bf16 GEMM failed (status ", status, ")");
        return;
    }
    const auto av = oa.trans == 'T' ? oa.data.t() : oa.data;
    const auto bv = ob.trans == 'T' ? ob.data.t() : ob.data;
    const auto p = torch::mm(av, bv);
    if (accumulate)
        out.add_(p);
    else
        out.copy_(p);
}

torch::Tensor bf16Product(const torch::Tensor& a, const torch::Tensor& b)
{
    auto out = torch::empty({ a.size(0), b.size(1) }, a.options().dtype(torch::kFloat32));
    bf16Into(out, a, b, false);
    return out;
}

torch::Tensor bf16ProductAdd(const torch::Tensor& bias, const torch::Tensor& a, const torch::Tensor& b)
{
    auto out = bias.detach().to(torch::kFloat32).expand({ a.size(0), b.size(1) }).contiguous();
    bf16Into(out, a, b, true);
    return out;
}

// a b and bias + a b in bf16 as autograd functions, for products recorded by autograd (the layers'
// forward passes with gradients outside the fused autograd functions, and the gradients explain
// takes with respect to the config embeddings): their gradients are bf16 products too. Two
// functions, not one with an optional bias: LibTorch 1.13's Function::apply reads the device of
// every tensor argument, and an undefined one has none ("tensor does not have a device").
class ProductFunction : public torch::autograd::Function<ProductFunction>
{
public:
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& a, const torch::Tensor& b)
    {
        ctx->save_for_backward({ a, b });
        return bf16Product(a, b);
    }

    static torch::autograd::variable_list backward(
        torch::autograd::AutogradContext* ctx, torch::autograd::variable_list grads)
    {
        const auto saved = ctx->get_saved_variables();
        const auto g = grads[0].contiguous();
        const auto gradA = ctx->needs_input_grad(0) ? bf16Product(g, saved[1].t()) : torch::Tensor();
        const auto gradB = ctx->needs_input_grad(1) ? bf16Product(saved[0].t(), g) : torch::Tensor();
        return { gradA, gradB };
    }
};

class ProductAddFunction : public torch::autograd::Function<ProductAddFunction>
{
public:
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& bias,
        const torch::Tensor& a, const torch::Tensor& b)
    {
        ctx->save_for_backward({ a, b });
        return bf16ProductAdd(bias, a, b);
    }

    static torch::autograd::variable_list backward(
        torch::autograd::AutogradContext* ctx, torch::autograd::variable_list grads)
    {
        const auto saved = ctx->get_saved_variables();
        const auto g = grads[0].contiguous();
        const auto gradA = ctx->needs_input_grad(1) ? bf16Product(g, saved[1].t()) : torch::Tensor();
        const auto gradB = ctx->needs_input_grad(2) ? bf16Product(saved[0].t(), g) : torch::Tensor();
        const auto gradBias = ctx->needs_input_grad(0) ? g.sum(0) : torch::Tensor();
        return { gradBias, gradA, gradB };
    }
};

bool recorded(const torch::Tensor& bias, const torch::Tensor& a, const torch::Tensor& b)
{
    return torch::GradMode::is_enabled()
        && (a.requires_grad() || b.requires_grad() || (bias.defined() && bias.requires_grad()));
}

} // namespace

void setBf16Products(bool on) { g_bf16.store(on); }

bool bf16Products() { return g_bf16.load(); }

ProductPrecisionScope::ProductPrecisionScope(bool bf16)
    : m_before(bf16Products())
{
    setBf16Products(bf16);
}

ProductPrecisionScope::~ProductPrecisionScope() { setBf16Products(m_before); }

Precision applyPrecision(Precision requested)
{
    const Precision resolved = resolvePrecision(requested, cpuBf16Units());
    setBf16Products(resolved == Precision::Bf16);
    return resolved;
}

std::string precisionSummary(Precision requested)
{
    const CpuBf16Units units = cpuBf16Units();
    const Precision resolved = resolvePrecision(requested, units);
    std::string why = requested == Precision::Auto ? "auto: " + describe(units)
                                                    : std::string("--precision ") + precisionName(requested);
    if (resolved == Precision::Bf16) {
        why += "; " + bf16GemmBackend();
        if (!units.any() && !units.hidden)
            why += ", emulated: no bf16 units";
    }
    return std::string(precisionName(resolved)) + " products (" + why + ")";
}

std::string bf16GemmBackend()
{
    if (!gemmBf16())
        return "ATen bf16 mm";
    char name[64] = "oneDNN";
    if (void* symbol = dlsym(RTLD_DEFAULT, "dnnl_version")) {
        const DnnlVersion* v = reinterpret_cast<VersionFn>(symbol)();
        std::snprintf(name, sizeof name, "oneDNN %d.%d.%d", v->major, v->minor, v->patch);
    }
    return std::string(name) + " bf16 GEMM, float32 results";
}

torch::Tensor toBf16(const torch::Tensor& t)
{
    if (t.scalar_type() == torch::kBFloat16)
        return t.contiguous();
    TORCH_CHECK(t.scalar_type() == torch::kFloat32, "products: toBf16 takes float32 or bfloat16");
    const auto in = t.contiguous();
    auto out = torch::empty(in.sizes(), in.options().dtype(torch::kBFloat16));
    kernels::toBf16(in.numel(), in.data_ptr<float>(), reinterpret_cast<uint16_t*>(out.data_ptr()));
    return out;
}

torch::Tensor product(const torch::Tensor& a, const torch::Tensor& b)
{
    if (!bf16Products())
        return torch::mm(a, b);
    if (recorded({}, a, b))
        return ProductFunction::apply(a, b);
    return bf16Product(a, b);
}

torch::Tensor productAdd(const torch::Tensor& bias, const torch::Tensor& a, const torch::Tensor& b)
{
    if (!bias.defined()) // a Linear without bias
        return product(a, b);
    if (!bf16Products())
        return torch::addmm(bias, a, b);
    if (recorded(bias, a, b))
        return ProductAddFunction::apply(bias, a, b);
    return bf16ProductAdd(bias, a, b);
}

void productInto(const torch::Tensor& out, const torch::Tensor& a, const torch::Tensor& b, bool accumulate)
{
    if (!bf16Products()) {
        if (accumulate) {
            auto o = out;
            o.addmm_(a, b);
        } else {
            auto o = out;
            torch::mm_out(o, a, b);
        }
        return;
    }
    TORCH_CHECK(!recorded({}, a, b) && !(torch::GradMode::is_enabled() && out.requires_grad()),
        "products: productInto is not differentiable");
    bf16Into(out, a, b, accumulate);
}

} // namespace tgraph::model
