// SPDX-License-Identifier: Apache-2.0
// Fuzz entry point: HLO text parser (a file of one or several modules, each verified), then the
// featurizer on whatever parses.

#include "core/util/error.h"
#include "core/hlo/featurizer.h"
#include "core/hlo/hlotext.h"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    try {
        const std::string_view text(reinterpret_cast<const char*>(data), size);
        for (tgraph::HloModule& module : tgraph::parseHloTextModules(text, "fuzz.hlo")) {
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
