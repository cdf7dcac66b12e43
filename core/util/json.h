// SPDX-License-Identifier: Apache-2.0
#pragma once

// JSON through nlohmann::json (Debian's nlohmann-json3-dev), with what this project adds:
// errors that name the file, line and column, the refusals of hostile input, and typed reads
// whose errors name the member. Numbers never follow the C locale: nlohmann writes doubles with
// its own shortest round-trip formatting and reads them with the locale's decimal point in mind.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace tgraph {

// Objects keep their members in the order they were added, so written files list them as the code
// does.
using Json = nlohmann::ordered_json;

// Deeper nesting is refused while parsing (the code walking a document recurses).
constexpr int kJsonMaxDepth = 256;

// Parses `text` (RFC 8259: no comments, nothing after the value), refusing duplicate member names
// and nesting deeper than kJsonMaxDepth. Throws InputError(file, "[place ]line L column C",
// problem), columns counted in characters; with an empty `file` what() starts at the place, for
// callers that add their own context.
Json parseJson(std::string_view text, const std::string& file = {}, const std::string& place = {});

// 2-space indented with `"key": value` (the default), or compact: one line, no spaces (JSON
// lines). Doubles are written shortest round-trip ("0.1", "1e-05", "3.0"); NaN and infinities
// become null; invalid UTF-8 in strings becomes U+FFFD.
std::string jsonText(const Json& value, bool compact = false);

// Typed reads of an object's member. std::runtime_error naming the member ("member \"lr\" is a
// string, expected a number"; "has no member \"lr\"") for the caller to put a file name in front.
const Json& jsonMember(const Json& object, std::string_view key);
double jsonNumber(const Json& object, std::string_view key); // any number
int64_t jsonInteger(const Json& object, std::string_view key); // an exactly integral number
uint64_t jsonUnsigned(const Json& object, std::string_view key); // a non-negative integral number
bool jsonBool(const Json& object, std::string_view key);
std::string jsonString(const Json& object, std::string_view key);
const Json& jsonArray(const Json& object, std::string_view key);
const Json& jsonObject(const Json& object, std::string_view key);

// The same for a value that is no member (an array's item); `what` names it in the message.
double jsonNumberValue(const Json& value, std::string_view what);
int64_t jsonIntegerValue(const Json& value, std::string_view what);
uint64_t jsonUnsignedValue(const Json& value, std::string_view what);
std::string jsonStringValue(const Json& value, std::string_view what);

} // namespace tgraph
