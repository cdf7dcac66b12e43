// SPDX-License-Identifier: Apache-2.0
// Fuzz entry point: HLO text parser (a file of one or several modules, each verified), then the
// featurizer on whatever parses, and the text writer's round trip: a module written as text
// (docs/formats.md §8.8) must read back, to the same node features; a failure aborts.

#include "core/hlo/featurizer.h"
#include "core/hlo/hlotext.h"
#include "core/hlo/hlotextwriter.h"
#include "core/util/error.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

namespace {

[[noreturn]] void roundTripFailed(const std::string& why, const std::string& written)
{
    std::fprintf(stderr, "text round trip failed: %s\n--- written ---\n%s\n", why.c_str(), written.c_str());
    std::abort();
}

void roundTrip(const tgraph::HloModule& module)
{
    const tgraph::NdArray<float> a = tgraph::featurizeNodes(module); // may refuse the module: InputError
    std::string written;
    try {
        written = tgraph::writeHloText(module);
    } catch (const tgraph::HloTextWriteError&) {
        return; // a module text cannot spell (docs/formats.md §8.8) is refused with a clear error
    }
    try {
        const tgraph::HloModule back = tgraph::parseHloText(written, "written.hlo");
        const tgraph::NdArray<float> b = tgraph::featurizeNodes(back);
        if (a.dim(0) != b.dim(0) || std::memcmp(a.data(), b.data(), size_t(a.size()) * sizeof(float)) != 0)
            roundTripFailed("the node features differ", written);
        if (tgraph::writeHloText(back) != written)
            roundTripFailed("written again, the text differs", written);
    } catch (const std::exception& e) {
        roundTripFailed(e.what(), written);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    try {
        const std::string_view text(reinterpret_cast<const char*>(data), size);
        for (tgraph::HloModule& module : tgraph::parseHloTextModules(text, "fuzz.hlo")) {
            roundTrip(module);
            tgraph::ModuleTuningData d;
            d.hasModule = true;
            d.module = std::move(module);
            tgraph::featurizeLayout(d, "fuzz.hlo");
        }
    } catch (const tgraph::InputError&) {
        // a clear error is the expected outcome for bad input
    }
    return 0;
}
