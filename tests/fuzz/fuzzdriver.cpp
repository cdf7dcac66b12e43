// SPDX-License-Identifier: Apache-2.0
// A plain driver for compilers without libFuzzer (GCC): runs every file given (or every file in the
// directories given) through LLVMFuzzerTestOneInput, plus byte-level mutations of each when
// --mutate N is given. Exits non-zero only if the entry point crashes or throws something other
// than tgraph::InputError (which aborts the process like a crash would).

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv)
{
    int mutations = 0;
    std::vector<std::filesystem::path> files;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--mutate" && i + 1 < argc) {
            mutations = std::stoi(argv[++i]);
        } else if (std::filesystem::is_directory(a)) {
            for (const auto& e : std::filesystem::recursive_directory_iterator(a))
                if (e.is_regular_file())
                    files.push_back(e.path());
        } else {
            files.push_back(a);
        }
    }
    std::mt19937_64 rng(12345);
    size_t runs = 0;
    for (const auto& f : files) {
        std::ifstream in(f, std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
        ++runs;
        for (int m = 0; m < mutations && !bytes.empty(); ++m) {
            std::string mutated = bytes;
            const int edits = 1 + int(rng() % 8);
            for (int e = 0; e < edits; ++e) {
                const size_t at = rng() % mutated.size();
                switch (rng() % 4) {
                case 0:
                    mutated[at] = char(rng());
                    break;
                case 1:
                    mutated.erase(at, 1 + rng() % 16);
                    break;
                case 2:
                    mutated.insert(at, mutated.substr(rng() % mutated.size(), 1 + rng() % 32));
                    break;
                default:
                    mutated.resize(at);
                    break;
                }
                if (mutated.empty())
                    break;
            }
            LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(mutated.data()), mutated.size());
            ++runs;
        }
    }
    std::printf("%zu inputs from %zu files ran without a crash\n", runs, files.size());
    return 0;
}
