// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tgraph {

// A small streaming JSON writer (2-space indented, or compact) for machine-readable output.
class JsonWriter
{
public:
    JsonWriter() = default;
    // Compact: everything on one line, no spaces (JSON-lines records).
    explicit JsonWriter(bool compact)
        : m_compact(compact)
    { }

    JsonWriter& beginObject();
    JsonWriter& endObject();
    JsonWriter& beginArray();
    JsonWriter& endArray();
    JsonWriter& key(std::string_view name);
    JsonWriter& value(std::string_view text);
    JsonWriter& value(const char* text) { return value(std::string_view(text)); }
    JsonWriter& value(int64_t number);
    JsonWriter& value(int number) { return value(int64_t(number)); }
    JsonWriter& value(uint64_t number);
    JsonWriter& value(double number); // NaN and infinities become null
    JsonWriter& value(bool flag);
    JsonWriter& null();

    const std::string& str() const { return m_out; }
    static std::string escape(std::string_view text);

private:
    void beforeValue();
    void newline();

    std::string m_out;
    std::vector<bool> m_hasItems; // per open container
    bool m_afterKey = false;
    bool m_compact = false;
};

} // namespace tgraph
