// SPDX-License-Identifier: Apache-2.0
// Fuzz entry point: weights files and checkpoints (model/nn/weightsfile.h, the torch-free half of
// `tgraph weights import`, `predict --weights` and the studio's model loading): the model the file
// declares (TGraph layout or tile, or a zoo model) with every check made before it is built, the
// normalizer, and every array read as a parameter of its stored shape, as the loader copies it; for
// an ensemble file (model/nn/ensemblefile.h) its index and then each member so.
// Building the model itself needs LibTorch, which this target leaves out (docs/testing.md §4).

#include "fuzzfile.h"

#include "model/nn/ensemblefile.h"
#include "model/nn/weightsfile.h"

#include "core/util/error.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace {

// One model's checks, as the loader makes them: the whole file, or an ensemble file's member under
// `prefix`.
void checkModel(const std::string& path, const std::string& prefix)
{
    try {
        tgraph::model::WeightsFile file(path, prefix);
        tgraph::model::ModelOptions options;
        const char* kind = "layout";
        if (file.contains("meta.model")) {
            bool tile = false;
            options = tgraph::model::declaredZooModel(file, &tile);
            kind = tgraph::model::modelFamilyName(options.family);
        } else {
            const bool tile = file.contains("head.0.weight");
            options = tgraph::model::declaredTGraphModel(file, tile);
            kind = tile ? "tile" : "layout";
        }
        file.normalizer();
        for (const std::string& key : file.keys()) {
            try {
                if (key.rfind("meta.", 0) != 0 && key.rfind("normalizer.", 0) != 0)
                    file.parameter(key, file.shape(key), options, kind);
            } catch (const tgraph::InputError&) { }
        }
        file.refuseUnknownKeys({}, options, kind);
    } catch (const tgraph::InputError&) {
        // a clear error is the expected outcome for bad input
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const tgraph::fuzz::InputFile input(data, size, "fuzz-weights.npz");
    try {
        // An ensemble file (model/nn/ensemblefile.h): its index, then each member as a model.
        tgraph::NpzReader npz(input.path());
        if (tgraph::model::isEnsembleFile(npz)) {
            const tgraph::model::EnsembleFileIndex index = tgraph::model::readEnsembleIndex(npz);
            for (int64_t k = 0; k < index.members; ++k) {
                index.memberInfo(k);
                checkModel(input.path(), tgraph::model::ensembleMemberPrefix(k));
            }
            return 0;
        }
    } catch (const tgraph::InputError&) {
        return 0;
    }
    checkModel(input.path(), {});
    return 0;
}
