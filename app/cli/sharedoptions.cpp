// SPDX-License-Identifier: Apache-2.0
#include "sharedoptions.h"

#include "argparser.h"

#include "core/sim/simulator.h"

namespace tgraph::cli {

OptionType simulatorParamsType()
{
    return opt::custom({}, [](const std::string& text) {
        std::string error;
        SimulatorParams().assign(text, &error);
        return error;
    });
}

void addPrecisionOption(ArgParser& p)
{
    p.addOption("--precision", "", "auto|fp32|bf16",
        "matrix products in bfloat16 with float32 accumulation (bf16) or in float32 (fp32); norms, softmax, loss, "
        "optimizer and weights stay float32, weights files too; auto: bf16 where the CPU has AMX-BF16 or "
        "AVX512-BF16 (this CPU: "
            + describe(cpuBf16Units()) + ", so " + precisionName(resolvePrecision(Precision::Auto, cpuBf16Units()))
            + "), fp32 elsewhere; scores differ from fp32's by < 1 % of their range, rankings barely (Kendall tau > 0.99); TGRAPH_CPU_BF16=0 in "
              "the environment makes auto fp32 (docs/model.md §10.12)",
        "auto", opt::oneOf({ Precision::Auto, Precision::Fp32, Precision::Bf16 }, precisionName));
}

tgraph::Precision precisionOption(const ArgParser& p)
{
    return p.get<Precision>("--precision");
}

} // namespace tgraph::cli
