// SPDX-License-Identifier: Apache-2.0
// Fuzz entry point: .npy and .npz files (core/io), then the graph loader (core/graph) on an npz.
// An input starting with the npy magic is read as an .npy file; anything else as an .npz archive:
// every member's header, every array raw and converted (float, int64), then the archive as a
// layout or tile graph, as `tgraph inspect` would.

#include "fuzzfile.h"

#include "core/graph/graphio.h"
#include "core/io/npy.h"
#include "core/io/npz.h"
#include "core/util/error.h"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace {

void readArrays(tgraph::NpzReader& npz)
{
    for (const std::string& key : npz.keys()) {
        try {
            npz.header(key);
            const tgraph::NpyArray raw = npz.readRaw(key);
            try {
                raw.to<double>(npz.path(), key);
            } catch (const tgraph::InputError&) { }
            try {
                npz.read<int64_t>(key);
            } catch (const tgraph::InputError&) { }
            try {
                npz.read<float>(key);
            } catch (const tgraph::InputError&) { }
        } catch (const tgraph::InputError&) { }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const bool npy = size >= 6 && std::memcmp(data, "\x93NUMPY", 6) == 0;
    const tgraph::fuzz::InputFile file(data, size, npy ? "fuzz.npy" : "fuzz.npz");
    try {
        if (npy) {
            const tgraph::NpyArray a = tgraph::readNpyFile(file.path());
            a.to<int64_t>(file.path());
            return 0;
        }
        tgraph::NpzReader npz(file.path());
        readArrays(npz);
        if (tgraph::detectGraphKind(npz) == tgraph::GraphKind::Tile)
            tgraph::readTileGraph(npz);
        else
            tgraph::readLayoutGraph(npz);
    } catch (const tgraph::InputError&) {
        // a clear error is the expected outcome for bad input
    }
    return 0;
}
