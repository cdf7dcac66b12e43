// SPDX-License-Identifier: Apache-2.0
// Fuzz entry point: protobuf reader (all five formats), then the verifier and the featurizer on
// what parses (each on its own, as the featurizer must not rely on the verifier).

#include "core/util/error.h"
#include "core/hlo/featurizer.h"
#include "core/hlo/hloproto.h"
#include "core/hlo/hloverify.h"

#include <cstddef>
#include <cstdint>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    try {
        const tgraph::HloProtoFile file = tgraph::readHloProto(std::as_bytes(std::span(data, size)), "fuzz.pb");
        for (const tgraph::ModuleTuningData& m : file.modules) {
            try {
                if (m.hasModule)
                    tgraph::verifyHloModule(m.module, "fuzz.pb");
            } catch (const tgraph::InputError&) { }
            try {
                if (tgraph::collectionOf(m) == tgraph::GraphKind::Tile)
                    tgraph::featurizeTile(m, "fuzz.pb");
                else
                    tgraph::featurizeLayout(m, "fuzz.pb");
            } catch (const tgraph::InputError&) { }
        }
    } catch (const tgraph::InputError&) { }
    return 0;
}
