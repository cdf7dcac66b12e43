// SPDX-License-Identifier: Apache-2.0
#include "core/util/jsonreader.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace tgraph {

JsonValue JsonValue::boolean(bool b)
{
    JsonValue v;
    v.m_type = Type::Bool;
    v.m_bool = b;
    return v;
}

JsonValue JsonValue::number(double d)
{
    JsonValue v;
    v.m_type = Type::Number;
    v.m_number = d;
    return v;
}

JsonValue JsonValue::string(std::string s)
{
    JsonValue v;
    v.m_type = Type::String;
    v.m_string = std::move(s);
    return v;
}

JsonValue JsonValue::array(std::vector<JsonValue> items)
{
    JsonValue v;
    v.m_type = Type::Array;
    v.m_items = std::make_shared<const std::vector<JsonValue>>(std::move(items));
    return v;
}

JsonValue JsonValue::object(std::map<std::string, JsonValue> members)
{
    JsonValue v;
    v.m_type = Type::Object;
    v.m_members = std::make_shared<const std::map<std::string, JsonValue>>(std::move(members));
    return v;
}

namespace {

const char* typeName(JsonValue::Type t)
{
    switch (t) {
    case JsonValue::Type::Null:
        return "null";
    case JsonValue::Type::Bool:
        return "a boolean";
    case JsonValue::Type::Number:
        return "a number";
    case JsonValue::Type::String:
        return "a string";
    case JsonValue::Type::Array:
        return "an array";
    case JsonValue::Type::Object:
        return "an object";
    }
    return "?";
}

void expectType(JsonValue::Type actual, JsonValue::Type wanted)
{
    if (actual != wanted)
        throw std::runtime_error(std::string("is ") + typeName(actual) + ", expected " + typeName(wanted));
}

} // namespace

bool JsonValue::asBool() const
{
    expectType(m_type, Type::Bool);
    return m_bool;
}

double JsonValue::asNumber() const
{
    expectType(m_type, Type::Number);
    return m_number;
}

int64_t JsonValue::asInteger() const
{
    expectType(m_type, Type::Number);
    if (!(std::fabs(m_number) <= 9007199254740992.0) || std::trunc(m_number) != m_number)
        throw std::runtime_error("is not an integer");
    return int64_t(m_number);
}

const std::string& JsonValue::asString() const
{
    expectType(m_type, Type::String);
    return m_string;
}

const std::vector<JsonValue>& JsonValue::items() const
{
    expectType(m_type, Type::Array);
    return *m_items;
}

const std::map<std::string, JsonValue>& JsonValue::members() const
{
    expectType(m_type, Type::Object);
    return *m_members;
}

bool JsonValue::contains(const std::string& key) const { return isObject() && m_members->count(key) > 0; }

const JsonValue& JsonValue::at(const std::string& key) const
{
    const auto& m = members();
    const auto it = m.find(key);
    if (it == m.end())
        throw std::runtime_error("has no member \"" + key + "\"");
    return it->second;
}

namespace {

class Parser
{
public:
    explicit Parser(std::string_view text)
        : m_text(text)
    { }

    JsonValue document()
    {
        JsonValue v = value(0);
        skipSpace();
        if (m_pos != m_text.size())
            fail("unexpected text after the JSON value");
        return v;
    }

private:
    [[noreturn]] void fail(const std::string& problem) const
    {
        throw std::runtime_error("offset " + std::to_string(m_pos) + ": " + problem);
    }

    void skipSpace()
    {
        while (m_pos < m_text.size()
            && (m_text[m_pos] == ' ' || m_text[m_pos] == '\t' || m_text[m_pos] == '\n' || m_text[m_pos] == '\r'))
            ++m_pos;
    }

    char peek() const { return m_pos < m_text.size() ? m_text[m_pos] : '\0'; }

    void expect(char c)
    {
        if (peek() != c)
            fail(std::string("expected '") + c + "'");
        ++m_pos;
    }

    bool consumeWord(std::string_view word)
    {
        if (m_text.substr(m_pos, word.size()) != word)
            return false;
        m_pos += word.size();
        return true;
    }

    JsonValue value(int depth)
    {
        if (depth > 256)
            fail("nesting deeper than 256 levels");
        skipSpace();
        const char c = peek();
        if (c == '{')
            return object(depth);
        if (c == '[')
            return array(depth);
        if (c == '"')
            return JsonValue::string(string());
        if (consumeWord("true"))
            return JsonValue::boolean(true);
        if (consumeWord("false"))
            return JsonValue::boolean(false);
        if (consumeWord("null"))
            return JsonValue();
        if (c == '-' || (c >= '0' && c <= '9'))
            return JsonValue::number(number());
        fail(m_pos >= m_text.size() ? "unexpected end of text" : "unexpected character");
    }

    JsonValue object(int depth)
    {
        expect('{');
        std::map<std::string, JsonValue> members;
        skipSpace();
        if (peek() == '}') {
            ++m_pos;
            return JsonValue::object(std::move(members));
        }
        for (;;) {
            skipSpace();
            if (peek() != '"')
                fail("expected a member name");
            std::string key = string();
            skipSpace();
            expect(':');
            JsonValue v = value(depth + 1);
            if (!members.emplace(key, std::move(v)).second)
                fail("duplicate member \"" + key + "\"");
            skipSpace();
            if (peek() == ',') {
                ++m_pos;
                continue;
            }
            expect('}');
            return JsonValue::object(std::move(members));
        }
    }

    JsonValue array(int depth)
    {
        expect('[');
        std::vector<JsonValue> items;
        skipSpace();
        if (peek() == ']') {
            ++m_pos;
            return JsonValue::array(std::move(items));
        }
        for (;;) {
            items.push_back(value(depth + 1));
            skipSpace();
            if (peek() == ',') {
                ++m_pos;
                continue;
            }
            expect(']');
            return JsonValue::array(std::move(items));
        }
    }

    static void appendUtf8(std::string& out, uint32_t cp)
    {
        if (cp < 0x80) {
            out += char(cp);
        } else if (cp < 0x800) {
            out += char(0xC0 | (cp >> 6));
            out += char(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += char(0xE0 | (cp >> 12));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        } else {
            out += char(0xF0 | (cp >> 18));
            out += char(0x80 | ((cp >> 12) & 0x3F));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        }
    }

    uint32_t hex4()
    {
        if (m_pos + 4 > m_text.size())
            fail("truncated \\u escape");
        uint32_t v = 0;
        for (int i = 0; i < 4; ++i) {
            const char c = m_text[m_pos++];
            v <<= 4;
            if (c >= '0' && c <= '9')
                v |= uint32_t(c - '0');
            else if (c >= 'a' && c <= 'f')
                v |= uint32_t(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                v |= uint32_t(c - 'A' + 10);
            else
                fail("bad hex digit in a \\u escape");
        }
        return v;
    }

    std::string string()
    {
        expect('"');
        std::string out;
        for (;;) {
            if (m_pos >= m_text.size())
                fail("unterminated string");
            const char c = m_text[m_pos++];
            if (c == '"')
                return out;
            if (static_cast<unsigned char>(c) < 0x20)
                fail("control character inside a string");
            if (c != '\\') {
                out += c;
                continue;
            }
            if (m_pos >= m_text.size())
                fail("unterminated escape");
            const char e = m_text[m_pos++];
            switch (e) {
            case '"':
            case '\\':
            case '/':
                out += e;
                break;
            case 'b':
                out += '\b';
                break;
            case 'f':
                out += '\f';
                break;
            case 'n':
                out += '\n';
                break;
            case 'r':
                out += '\r';
                break;
            case 't':
                out += '\t';
                break;
            case 'u': {
                uint32_t cp = hex4();
                if (cp >= 0xD800 && cp < 0xDC00) {
                    if (!consumeWord("\\u"))
                        fail("unpaired surrogate");
                    const uint32_t low = hex4();
                    if (low < 0xDC00 || low >= 0xE000)
                        fail("bad low surrogate");
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                } else if (cp >= 0xDC00 && cp < 0xE000) {
                    fail("unpaired surrogate");
                }
                appendUtf8(out, cp);
                break;
            }
            default:
                fail("unknown escape");
            }
        }
    }

    double number()
    {
        const size_t start = m_pos;
        if (peek() == '-')
            ++m_pos;
        auto digits = [&] {
            const size_t from = m_pos;
            while (peek() >= '0' && peek() <= '9')
                ++m_pos;
            return m_pos - from;
        };
        if (peek() == '0')
            ++m_pos;
        else if (digits() == 0)
            fail("bad number");
        if (peek() == '.') {
            ++m_pos;
            if (digits() == 0)
                fail("bad number: no digits after '.'");
        }
        if (peek() == 'e' || peek() == 'E') {
            ++m_pos;
            if (peek() == '+' || peek() == '-')
                ++m_pos;
            if (digits() == 0)
                fail("bad number: no exponent digits");
        }
        const std::string text(m_text.substr(start, m_pos - start));
        errno = 0;
        const double v = std::strtod(text.c_str(), nullptr);
        if (errno == ERANGE && std::isinf(v))
            fail("number out of range");
        return v;
    }

    std::string_view m_text;
    size_t m_pos = 0;
};

} // namespace

JsonValue parseJson(std::string_view text) { return Parser(text).document(); }

} // namespace tgraph
