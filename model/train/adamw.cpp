// SPDX-License-Identifier: Apache-2.0
#include "model/train/adamw.h"

#include <cmath>

namespace tgraph::model {

AdamW::AdamW(std::vector<std::pair<std::string, torch::Tensor>> parameters, const AdamWOptions& options,
    const std::function<bool(const std::string&)>& decayed)
    : m_params(std::move(parameters))
    , m_options(options)
{
    for (const auto& [name, p] : m_params) {
        m_decayed.push_back(decayed(name));
        m_moments[name] = { torch::zeros_like(p, torch::MemoryFormat::Contiguous),
            torch::zeros_like(p, torch::MemoryFormat::Contiguous) };
    }
}

void AdamW::step(double lr)
{
    torch::NoGradGuard noGrad;
    ++m_step;
    const double b1 = m_options.beta1;
    const double b2 = m_options.beta2;
    const double correction1 = 1.0 - std::pow(b1, double(m_step));
    const double correction2Sqrt = std::sqrt(1.0 - std::pow(b2, double(m_step)));
    const double stepSize = lr / correction1;
    for (size_t k = 0; k < m_params.size(); ++k) {
        const auto& [name, p] = m_params[k];
        Moments& m = m_moments[name];
        const torch::Tensor grad = p.grad().defined() ? p.grad() : torch::zeros_like(p);
        if (m_decayed[k] && m_options.weightDecay != 0)
            p.mul_(1.0 - lr * m_options.weightDecay);
        m.expAvg.mul_(b1).add_(grad, 1.0 - b1);
        m.expAvgSq.mul_(b2).addcmul_(grad, grad, 1.0 - b2);
        const auto denom = (m.expAvgSq.sqrt() / correction2Sqrt).add_(m_options.eps);
        p.addcdiv_(m.expAvg, denom, -stepSize);
    }
}

void AdamW::zeroGrad()
{
    for (auto& [name, p] : m_params)
        if (p.grad().defined())
            p.mutable_grad().reset();
}

void AdamW::setState(int64_t step, std::map<std::string, Moments> moments)
{
    torch::NoGradGuard noGrad;
    for (const auto& [name, p] : m_params) {
        const auto it = moments.find(name);
        TORCH_CHECK(it != moments.end(), "AdamW::setState: no moments for ", name);
        m_moments[name].expAvg.copy_(it->second.expAvg);
        m_moments[name].expAvgSq.copy_(it->second.expAvgSq);
    }
    m_step = step;
}

double clipGradNorm(const std::vector<torch::Tensor>& parameters, double maxNorm)
{
    torch::NoGradGuard noGrad;
    std::vector<torch::Tensor> norms;
    for (const auto& p : parameters)
        if (p.grad().defined())
            norms.push_back(p.grad().norm(2));
    if (norms.empty())
        return 0.0;
    const double total = torch::stack(norms).norm(2).item<double>();
    if (maxNorm <= 0 || !std::isfinite(total))
        return total;
    // As PyTorch: the coefficient is a float32 tensor value, clamped at 1.
    const float coef = float(maxNorm) / (float(total) + 1e-6f);
    if (coef < 1.0f)
        for (const auto& p : parameters)
            if (p.grad().defined())
                p.grad().mul_(coef);
    return total;
}

} // namespace tgraph::model
