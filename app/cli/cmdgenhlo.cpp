// SPDX-License-Identifier: Apache-2.0
#include "argparser.h"
#include "commands.h"

#include "core/hlo/hlotext.h"
#include "core/synth/hlogen.h"
#include "core/util/atomicfile.h"
#include "core/util/error.h"

#include <cstdio>

namespace tgraph::cli {

namespace {

int genHlo(const ArgParser& p)
{
    HloGenSpec spec;
    spec.family = p.get<std::string>("--family");
    spec.instructions = p.get<int64_t>("--size");
    spec.seed = p.get<uint64_t>("--seed");
    spec.metadata = !p.has("--no-metadata");
    const std::string text = generateHloText(spec);
    // Checked by our own parser before anything is written.
    HloTextOptions lean;
    lean.keepAttributes = false;
    const HloModule m = parseHloText(text, "<generated " + spec.family + ">", lean);
    const std::string out = p.value("--output");
    writeFileAtomically(out, text);
    std::printf("wrote %s: synthetic %s module, %zu instructions in %zu computations, %zu bytes\n", out.c_str(),
        spec.family.c_str(), m.instructions.size(), m.computations.size(), text.size());
    return ExitOk;
}

} // namespace

int runGenHlo(const std::vector<std::string>& args)
{
    std::string families;
    for (const auto& f : hloGenFamilies())
        families += (families.empty() ? "" : ", ") + f;
    ArgParser p("gen-hlo",
        "Write a synthetic HLO text module shaped like a post-optimisation XLA dump (fusions, reducers,\n"
        "while loops, convolutions, dots, reshapes; consistent shapes, checked by our parser).",
        "--family F [--size N] [--seed S] [--no-metadata] -o OUT.hlo");
    p.addOption("--output", "-o", "OUT.hlo", "output file");
    p.addOption("--family", "", "F", "model family: " + families, "resnet", opt::oneOf(hloGenFamilies()));
    p.addOption("--size", "", "N", "approximate number of instructions", "2000", opt::integer(50, 2000000));
    p.addOption("--seed", "", "S", "random seed", "1", opt::size());
    p.addOption("--no-metadata", "", "", "leave out op_type/op_name metadata");
    if (const int rc = parseOrExit(p, args); rc >= 0)
        return rc;
    if (p.value("--output").empty())
        return usageError("gen-hlo", "missing -o OUT.hlo");
    return guarded("gen-hlo", genHlo, p);
}

} // namespace tgraph::cli
