// SPDX-License-Identifier: Apache-2.0
#include "core/view/nodesearch.h"

#include "core/view/graphdocument.h"
#include "core/hlo/hlomodule.h"
#include "core/graph/opcodes.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace tgraph {

namespace {

std::string lower(std::string_view text)
{
    std::string out(text);
    for (char& c : out)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string_view trimmed(std::string_view text)
{
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
        text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
        text.remove_suffix(1);
    return text;
}

bool allDigits(std::string_view text)
{
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool containsIgnoringCase(std::string_view haystack, const std::string& needleLower)
{
    if (needleLower.size() > haystack.size())
        return false;
    const auto it = std::search(haystack.begin(), haystack.end(), needleLower.begin(), needleLower.end(),
        [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
    return it != haystack.end();
}

} // namespace

std::vector<int64_t> searchNodes(
    const GraphDocument& document, std::string_view query, const GraphSource* source, size_t limit)
{
    std::vector<int64_t> out;
    query = trimmed(query);
    if (query.empty())
        return out;
    bool byId = false;
    bool byOpcode = true;
    bool byName = true;
    if (query.front() == '#' && allDigits(query.substr(1))) {
        byId = true;
        byOpcode = byName = false;
        query.remove_prefix(1);
    } else if (query.substr(0, 3) == "op:") {
        byName = false;
        query = trimmed(query.substr(3));
    } else if (query.substr(0, 5) == "name:") {
        byOpcode = false;
        query = trimmed(query.substr(5));
    } else if (allDigits(query)) {
        byId = true;
    }
    if (query.empty())
        return out;
    const std::string needle = lower(query);
    const int64_t id = byId && query.size() < 19 ? std::stoll(std::string(query)) : -1;
    // Opcodes are compared by name; for graphs without a module the opcode table's names apply.
    const int wantedOpcode = byOpcode ? opcodeId(needle) : 0;
    const HloModule* module = document.module.get();
    const int64_t n = document.nodeCount();
    for (int64_t node = 0; node < n && out.size() < limit; ++node) {
        if (source && !source->contains(node))
            continue;
        bool match = byId && node == id;
        if (!match && byOpcode) {
            if (module)
                match = lower(module->instructions[size_t(node)].opcode) == needle;
            else
                match = wantedOpcode != 0 && document.opcodeId(node) == wantedOpcode;
        }
        if (!match && byName) {
            if (module)
                match = containsIgnoringCase(module->instructions[size_t(node)].name, needle);
            else
                match = containsIgnoringCase(document.nodeName(node), needle);
        }
        if (match)
            out.push_back(node);
    }
    return out;
}

} // namespace tgraph
