// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace tgraph {

struct GraphDocument;
struct GraphSource;

// Nodes matching a search query, ascending by node id. The query matches
//   - a node id: "#123" or "123" (plain numbers also match names containing them);
//   - an opcode: "convolution", "op:reshape" (exact, case-insensitive);
//   - a name: any case-insensitive substring ("conv.12", "name:fusion" forces a name search).
// `source` restricts the result to its nodes (nullptr = the whole graph). At most `limit` results.
std::vector<int64_t> searchNodes(
    const GraphDocument& document, std::string_view query, const GraphSource* source = nullptr, size_t limit = 100000);

} // namespace tgraph
