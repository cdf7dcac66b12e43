// SPDX-License-Identifier: Apache-2.0
#pragma once

// A small JSON reader (RFC 8259) for the JSON this project writes itself: hyper-parameters and
// file lists stored in checkpoints, ensemble manifests. Not streaming; documents are small.

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tgraph {

class JsonValue
{
public:
    enum class Type { Null, Bool, Number, String, Array, Object };

    JsonValue() = default;
    static JsonValue boolean(bool b);
    static JsonValue number(double d);
    static JsonValue string(std::string s);
    static JsonValue array(std::vector<JsonValue> items);
    static JsonValue object(std::map<std::string, JsonValue> members);

    Type type() const { return m_type; }
    bool isNull() const { return m_type == Type::Null; }
    bool isNumber() const { return m_type == Type::Number; }
    bool isString() const { return m_type == Type::String; }
    bool isBool() const { return m_type == Type::Bool; }
    bool isArray() const { return m_type == Type::Array; }
    bool isObject() const { return m_type == Type::Object; }

    // Typed access; std::runtime_error ("... is not a number") on a type mismatch.
    bool asBool() const;
    double asNumber() const;
    int64_t asInteger() const; // a number with an exact integral value
    const std::string& asString() const;
    const std::vector<JsonValue>& items() const;
    const std::map<std::string, JsonValue>& members() const;

    bool contains(const std::string& key) const;
    // Object member; std::runtime_error naming the key when absent or not an object.
    const JsonValue& at(const std::string& key) const;

private:
    Type m_type = Type::Null;
    bool m_bool = false;
    double m_number = 0;
    std::string m_string;
    std::shared_ptr<const std::vector<JsonValue>> m_items;
    std::shared_ptr<const std::map<std::string, JsonValue>> m_members;
};

// Throws std::runtime_error "offset N: problem" for malformed text (trailing garbage included).
JsonValue parseJson(std::string_view text);

} // namespace tgraph
