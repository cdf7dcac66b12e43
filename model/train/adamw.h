// SPDX-License-Identifier: Apache-2.0
#pragma once

// AdamW as torch.optim.AdamW (PyTorch 1.13, single-tensor path, amsgrad off) and global
// gradient-norm clipping as torch.nn.utils.clip_grad_norm_ (docs/model.md §4.2), with the
// state held per parameter name so checkpoints can store it under the state-dict names.

#include <torch/torch.h>

#include <map>
#include <string>
#include <vector>

namespace tgraph::model {

struct AdamWOptions
{
    double beta1 = 0.9;
    double beta2 = 0.999;
    double eps = 1e-8;
    double weightDecay = 1e-5;
};

class AdamW
{
public:
    struct Moments
    {
        torch::Tensor expAvg; // first moment, shape of the parameter
        torch::Tensor expAvgSq; // second moment
    };

    // `decayed(name)` says whether a parameter gets weight decay.
    AdamW(std::vector<std::pair<std::string, torch::Tensor>> parameters, const AdamWOptions& options,
        const std::function<bool(const std::string&)>& decayed);

    // One update with learning rate `lr` from the parameters' current gradients. Per parameter:
    //   p *= 1 - lr wd;  m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2;
    //   p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
    // Every parameter takes part (a missing gradient counts as zero, as all parameters of these
    // models receive one), so one step count serves all.
    void step(double lr);
    void zeroGrad();

    int64_t stepCount() const { return m_step; }
    const std::vector<std::pair<std::string, torch::Tensor>>& parameters() const { return m_params; }
    const std::map<std::string, Moments>& moments() const { return m_moments; }
    // Restores state (checkpoint): every parameter's moments, shapes already checked by the caller.
    void setState(int64_t step, std::map<std::string, Moments> moments);

private:
    std::vector<std::pair<std::string, torch::Tensor>> m_params;
    std::vector<bool> m_decayed;
    std::map<std::string, Moments> m_moments;
    AdamWOptions m_options;
    int64_t m_step = 0;
};

// Scales all gradients so that their global L2 norm is at most maxNorm (coefficient
// maxNorm / (norm + 1e-6), applied when below 1). Returns the norm before clipping (may be
// non-finite, then nothing is scaled). maxNorm <= 0 only measures.
double clipGradNorm(const std::vector<torch::Tensor>& parameters, double maxNorm);

} // namespace tgraph::model
