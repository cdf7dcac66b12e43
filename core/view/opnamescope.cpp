// SPDX-License-Identifier: Apache-2.0
#include "core/view/opnamescope.h"

namespace tgraph {

void opNameScope(std::string_view opName, std::vector<std::string_view>& out, std::string_view* op)
{
    out.clear();
    int depth = 0;
    size_t begin = 0;
    size_t i = 0;
    for (; i < opName.size(); ++i) {
        const char c = opName[i];
        if (c == '(' || c == '[' || c == '{') {
            ++depth;
        } else if (c == ')' || c == ']' || c == '}') {
            depth = depth > 0 ? depth - 1 : 0;
        } else if (depth == 0 && c == ';') {
            break; // the first of several joined names
        } else if (depth == 0 && c == '/') {
            if (i > begin && out.size() < kMaxScopeDepth)
                out.push_back(opName.substr(begin, i - begin));
            begin = i + 1;
        }
    }
    // opName[begin, i) is the op itself: not part of the scope. A name ending in '/' has an
    // empty last component, so its last non-empty component is the op.
    std::string_view last = opName.substr(begin, i - begin);
    if (last.empty() && !out.empty()) {
        last = out.back();
        out.pop_back();
    }
    if (op)
        *op = last;
}

} // namespace tgraph
