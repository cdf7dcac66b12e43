// SPDX-License-Identifier: Apache-2.0
// Fuzz entry point: the XLA dump file name parser and the folder index built from names
// (core/dump, docs/formats.md §17). The input is one file name, and also, split at newlines, the
// names of a folder. Beyond not crashing, what must hold is checked and a breach aborts: a parsed
// name's rest is the end of the name, a stage file names its stage; every file of the index is in
// exactly one place (a stage's files or a module's artifacts).

#include "core/dump/dumpindex.h"
#include "core/dump/dumpname.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {

void check(bool ok)
{
    if (!ok)
        std::abort();
}

void checkName(std::string_view name)
{
    const auto n = tgraph::parseDumpFileName(name);
    if (!n)
        return;
    check(n->moduleId >= 0);
    check(!n->rest.empty() && name.ends_with(n->rest));
    check(name.find(n->moduleName) != std::string_view::npos);
    if (n->isStageFile())
        check(!n->stage.empty() && name.find(n->stage) != std::string_view::npos);
    check(n->isStageFile() || n->stageIndex == -1);
    tgraph::DumpFileName copy = *n;
    const std::vector<std::string> known = { n->moduleName, "a", "a.0" };
    tgraph::resolveDumpFileName(copy, known);
    check(copy.moduleId == n->moduleId);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    checkName(text);
    std::vector<tgraph::DumpEntry> entries;
    size_t start = 0;
    while (start <= text.size() && entries.size() < 4096) {
        const size_t end = std::min(text.find('\n', start), text.size());
        if (end > start) {
            tgraph::DumpEntry e;
            e.name = std::string(text.substr(start, end - start));
            e.type = e.name.size() % 7 == 3 ? tgraph::DumpEntry::Type::LinkInside : tgraph::DumpEntry::Type::File;
            checkName(e.name);
            entries.push_back(std::move(e));
        }
        start = end + 1;
    }
    const tgraph::DumpIndex index = tgraph::buildDumpIndex("fuzz", entries);
    std::vector<int> seen(index.files.size(), 0);
    for (const tgraph::DumpModule& m : index.modules) {
        for (const tgraph::DumpStage& s : m.stages) {
            for (size_t k : s.hloFiles)
                ++seen.at(k);
            for (size_t k : s.attachments)
                ++seen.at(k);
        }
        for (size_t k : m.artifacts)
            ++seen.at(k);
    }
    for (int n : seen)
        check(n == 1);
    check(index.files.size() + index.others.size() == entries.size());
    return 0;
}
