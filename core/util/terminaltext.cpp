// SPDX-License-Identifier: Apache-2.0
#include "core/util/terminaltext.h"

#include <cstddef>
#include <cstdint>

namespace tgraph {

namespace {

// The length of the UTF-8 sequence starting at text[i] and its code point; 0 when it is not valid
// UTF-8 (a stray continuation byte, a truncated or overlong sequence, a surrogate, > U+10FFFF).
size_t utf8Sequence(std::string_view text, size_t i, uint32_t* codePoint)
{
    const auto byte = [&](size_t k) { return uint8_t(text[k]); };
    const uint8_t b0 = byte(i);
    size_t length = 0;
    uint32_t cp = 0;
    if (b0 >= 0xc2 && b0 <= 0xdf) {
        length = 2;
        cp = b0 & 0x1f;
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
        length = 3;
        cp = b0 & 0x0f;
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
        length = 4;
        cp = b0 & 0x07;
    } else {
        return 0;
    }
    if (i + length > text.size())
        return 0;
    for (size_t k = 1; k < length; ++k) {
        if ((byte(i + k) & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (byte(i + k) & 0x3f);
    }
    const uint32_t smallest[] = { 0, 0, 0x80, 0x800, 0x10000 };
    if (cp < smallest[length] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    *codePoint = cp;
    return length;
}

} // namespace

std::string terminalText(std::string_view text)
{
    static const char* hex = "0123456789abcdef";
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        const auto b = uint8_t(text[i]);
        if (b >= 0x20 && b < 0x7f) {
            if (b == '\\')
                out += '\\';
            out += char(b);
            ++i;
            continue;
        }
        if (b < 0x80) { // C0 controls and DEL
            switch (b) {
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            case 0x1b:
                out += "\\e";
                break;
            default:
                out += "\\x";
                out += hex[b >> 4];
                out += hex[b & 15];
            }
            ++i;
            continue;
        }
        uint32_t cp = 0;
        const size_t length = utf8Sequence(text, i, &cp);
        if (length == 0) {
            out += "\\x";
            out += hex[b >> 4];
            out += hex[b & 15];
            ++i;
            continue;
        }
        if (cp <= 0x9f || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)) {
            out += "\\u";
            for (int shift = 12; shift >= 0; shift -= 4)
                out += hex[(cp >> shift) & 15];
        } else {
            out.append(text.substr(i, length));
        }
        i += length;
    }
    return out;
}

bool isValidUtf8(std::string_view text)
{
    for (size_t i = 0; i < text.size();) {
        uint32_t cp = 0;
        if (uint8_t(text[i]) < 0x80)
            ++i;
        else if (const size_t length = utf8Sequence(text, i, &cp); length > 0)
            i += length;
        else
            return false;
    }
    return true;
}

} // namespace tgraph
