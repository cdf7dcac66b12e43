// SPDX-License-Identifier: Apache-2.0
// Fuzz entry point: the JSON reader (core/util/json): parse with this project's refusals (depth,
// duplicate members), every typed read on every value, and the round trip: what jsonText writes,
// compact or indented, parses back to the same value (a difference aborts, like a crash).

#include "core/util/error.h"
#include "core/util/json.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

namespace {

void readTyped(const tgraph::Json& value, int depth)
{
    const auto attempt = [](auto read) {
        try {
            read();
        } catch (const std::runtime_error&) { }
    };
    attempt([&] { tgraph::jsonNumberValue(value, "value"); });
    attempt([&] { tgraph::jsonIntegerValue(value, "value"); });
    attempt([&] { tgraph::jsonUnsignedValue(value, "value"); });
    attempt([&] { tgraph::jsonStringValue(value, "value"); });
    if (value.is_object()) {
        for (auto it = value.begin(); it != value.end(); ++it) {
            const std::string& key = it.key();
            attempt([&] { tgraph::jsonNumber(value, key); });
            attempt([&] { tgraph::jsonInteger(value, key); });
            attempt([&] { tgraph::jsonUnsigned(value, key); });
            attempt([&] { tgraph::jsonBool(value, key); });
            attempt([&] { tgraph::jsonString(value, key); });
            attempt([&] { tgraph::jsonArray(value, key); });
            attempt([&] { tgraph::jsonObject(value, key); });
            readTyped(*it, depth + 1);
        }
        attempt([&] { tgraph::jsonMember(value, "missing member"); });
    } else if (value.is_array()) {
        for (const tgraph::Json& item : value)
            readTyped(item, depth + 1);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    tgraph::Json value;
    try {
        value = tgraph::parseJson(text, "fuzz.json");
    } catch (const tgraph::InputError&) {
        return 0; // a clear error is the expected outcome for bad input
    }
    readTyped(value, 0);
    for (const bool compact : { true, false }) {
        const std::string written = tgraph::jsonText(value, compact);
        if (tgraph::parseJson(written, "written.json") != value)
            std::abort(); // what we write must read back as what we read
    }
    return 0;
}
