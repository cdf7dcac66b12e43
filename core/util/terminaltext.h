// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>

namespace tgraph {

// Text from a file (a run's name, a message, a path a project stores) made safe to print on a
// terminal, escaped instead of interpreted: control characters as \n, \r, \t, \e or \xNN (C0 and
// DEL), C1 controls and the bidirectional overrides and isolates (U+202A-U+202E, U+2066-U+2069) as
// \uNNNN, bytes that are not UTF-8 as \xNN, and the backslash itself as \\, so that the escaped
// text reads back unambiguously. Printable ASCII and valid UTF-8 (accents, CJK) stay as they are.
std::string terminalText(std::string_view text);

// True when `text` is valid UTF-8: no stray or missing continuation bytes, no overlong sequence,
// no surrogate, nothing above U+10FFFF.
bool isValidUtf8(std::string_view text);

} // namespace tgraph
