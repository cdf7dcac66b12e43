// SPDX-License-Identifier: Apache-2.0
#include "core/util/json.h"

#include "core/util/error.h"

#include <cmath>
#include <set>
#include <stdexcept>
#include <vector>

namespace tgraph {

namespace {

// A refusal of our own from inside nlohmann's parser callback.
struct Refused
{
    std::string problem;
};

// "line L column C" of byte `offset` (0-based, may be text.size() for the end), columns counted in
// characters (UTF-8 continuation bytes do not count).
std::string lineColumn(std::string_view text, size_t offset)
{
    offset = std::min(offset, text.size());
    size_t line = 1;
    size_t lineStart = 0;
    for (size_t i = 0; i < offset; ++i)
        if (text[i] == '\n') {
            ++line;
            lineStart = i + 1;
        }
    size_t column = 1;
    for (size_t i = lineStart; i < offset; ++i)
        column += (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
    return "line " + std::to_string(line) + " column " + std::to_string(column);
}

// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1, column
// 7: " prefix (we name the place ourselves).
std::string problemOf(const Json::exception& e)
{
    std::string what = e.what();
    const size_t bracket = what.find("] ");
    if (bracket != std::string::npos)
        what.erase(0, bracket + 2);
    if (what.rfind("parse error", 0) == 0) {
        const size_t colon = what.find(": ");
        what.erase(0, colon == std::string::npos ? what.size() : colon + 2);
    }
    return what;
}

std::string withPlace(const std::string& place, const std::string& position)
{
    return place.empty() ? position : place + " " + position;
}

const char* typeName(const Json& v)
{
    switch (v.type()) {
    case Json::value_t::null:
        return "null";
    case Json::value_t::boolean:
        return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float:
        return "a number";
    case Json::value_t::string:
        return "a string";
    case Json::value_t::array:
        return "an array";
    case Json::value_t::object:
        return "an object";
    case Json::value_t::binary:
    case Json::value_t::discarded:
        break;
    }
    return "not a JSON value";
}

[[noreturn]] void wrongType(const Json& v, std::string_view what, std::string_view expected)
{
    throw std::runtime_error(std::string(what) + " is " + typeName(v) + ", expected " + std::string(expected));
}

std::string memberName(std::string_view key) { return "member \"" + std::string(key) + "\""; }

} // namespace

Json parseJson(std::string_view text, const std::string& file, const std::string& place)
{
    // Per open container: the member names seen (objects), to refuse duplicates, which nlohmann
    // would silently resolve to the last one.
    std::vector<std::set<std::string>> names;
    const Json::parser_callback_t guard = [&names](int depth, Json::parse_event_t event, Json& parsed) {
        switch (event) {
        case Json::parse_event_t::object_start:
        case Json::parse_event_t::array_start:
            if (depth >= kJsonMaxDepth)
                throw Refused { "nesting deeper than " + std::to_string(kJsonMaxDepth) + " levels" };
            names.emplace_back();
            break;
        case Json::parse_event_t::object_end:
        case Json::parse_event_t::array_end:
            names.pop_back();
            break;
        case Json::parse_event_t::key:
            if (!names.back().insert(parsed.get_ref<const std::string&>()).second)
                throw Refused { "duplicate member \"" + parsed.get_ref<const std::string&>() + "\"" };
            break;
        case Json::parse_event_t::value:
            break;
        }
        return true;
    };
    try {
        return Json::parse(text.begin(), text.end(), guard, /*allow_exceptions=*/true, /*ignore_comments=*/false);
    } catch (const Json::parse_error& e) {
        // e.byte counts the bytes read, the offending one included (one past the end at the end).
        throw InputError(file, withPlace(place, lineColumn(text, e.byte > 0 ? e.byte - 1 : 0)), problemOf(e));
    } catch (const Json::exception& e) {
        throw InputError(file, place, problemOf(e)); // e.g. "number overflow parsing '1e999'"
    } catch (const Refused& r) {
        throw InputError(file, place, r.problem);
    }
}

std::string jsonText(const Json& value, bool compact)
{
    return value.dump(compact ? -1 : 2, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
}

const Json& jsonMember(const Json& object, std::string_view key)
{
    if (!object.is_object())
        wrongType(object, "the value", "an object with " + memberName(key));
    const auto it = object.find(key);
    if (it == object.end())
        throw std::runtime_error("has no " + memberName(key));
    return *it;
}

double jsonNumberValue(const Json& value, std::string_view what)
{
    if (!value.is_number())
        wrongType(value, what, "a number");
    return value.get<double>();
}

int64_t jsonIntegerValue(const Json& value, std::string_view what)
{
    if (value.is_number_integer() && !value.is_number_unsigned())
        return value.get<int64_t>();
    if (value.is_number_unsigned()) {
        if (value.get<uint64_t>() > uint64_t(INT64_MAX))
            throw std::runtime_error(std::string(what) + " is out of range");
        return int64_t(value.get<uint64_t>());
    }
    const double d = jsonNumberValue(value, what);
    if (std::trunc(d) != d)
        throw std::runtime_error(std::string(what) + " is not an integer");
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
        throw std::runtime_error(std::string(what) + " is out of range");
    return int64_t(d);
}

uint64_t jsonUnsignedValue(const Json& value, std::string_view what)
{
    if (value.is_number_unsigned())
        return value.get<uint64_t>();
    if (value.is_number_float()) {
        const double d = value.get<double>();
        if (std::trunc(d) != d)
            throw std::runtime_error(std::string(what) + " is not an integer");
        if (!(d >= 0 && d < 18446744073709551616.0))
            throw std::runtime_error(std::string(what) + " is out of range");
        return uint64_t(d);
    }
    const int64_t v = jsonIntegerValue(value, what);
    if (v < 0)
        throw std::runtime_error(std::string(what) + " is negative");
    return uint64_t(v);
}

std::string jsonStringValue(const Json& value, std::string_view what)
{
    if (!value.is_string())
        wrongType(value, what, "a string");
    return value.get<std::string>();
}

double jsonNumber(const Json& object, std::string_view key)
{
    return jsonNumberValue(jsonMember(object, key), memberName(key));
}

int64_t jsonInteger(const Json& object, std::string_view key)
{
    return jsonIntegerValue(jsonMember(object, key), memberName(key));
}

uint64_t jsonUnsigned(const Json& object, std::string_view key)
{
    return jsonUnsignedValue(jsonMember(object, key), memberName(key));
}

bool jsonBool(const Json& object, std::string_view key)
{
    const Json& v = jsonMember(object, key);
    if (!v.is_boolean())
        wrongType(v, memberName(key), "a boolean");
    return v.get<bool>();
}

std::string jsonString(const Json& object, std::string_view key)
{
    return jsonStringValue(jsonMember(object, key), memberName(key));
}

const Json& jsonArray(const Json& object, std::string_view key)
{
    const Json& v = jsonMember(object, key);
    if (!v.is_array())
        wrongType(v, memberName(key), "an array");
    return v;
}

const Json& jsonObject(const Json& object, std::string_view key)
{
    const Json& v = jsonMember(object, key);
    if (!v.is_object())
        wrongType(v, memberName(key), "an object");
    return v;
}

} // namespace tgraph
