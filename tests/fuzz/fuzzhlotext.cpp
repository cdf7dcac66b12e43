// SPDX-License-Identifier: Apache-2.0
// Fuzz entry point: HLO text parser, then the featurizer on whatever parses.

#include "core/util/error.h"
#include "core/hlo/featurizer.h"
#include "core/hlo/hlotext.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    try {
        tgraph::ModuleTuningData d;
        d.hasModule = true;
        d.module = tgraph::parseHloText(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.hlo");
        tgraph::featurizeLayout(d, "fuzz.hlo");
    } catch (const tgraph::InputError&) {
        // a clear error is the expected outcome for bad input
    }
    return 0;
}
