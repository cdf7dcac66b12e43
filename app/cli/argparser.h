// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "optiontype.h"

#include <chrono>
#include <map>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tgraph::cli {

// Options of one sub-command: "--name VALUE", "--name=VALUE", short aliases ("-o FILE"), flags,
// and positional arguments. Produces the command's --help text from the same declarations.
class ArgParser
{
public:
    ArgParser(std::string command, std::string summary, std::string usage);

    // valueName empty = a flag. shortName may be empty. `type` says what the value must be
    // (optiontype.h: opt::integer(1, 256), opt::real(0, 1), opt::oneOf(...), ...); parse() refuses
    // any other value, and get<T>() reads it converted. A default must be valid (std::logic_error).
    void addOption(std::string name, std::string shortName, std::string valueName, std::string help,
        std::string defaultValue = {}, OptionType type = {});
    void addPositional(std::string name, std::string help);
    void addNote(std::string text) { m_notes.push_back(std::move(text)); }

    // False with `error` set on unknown options, missing values, or a value its option's type
    // refuses ("--threads '4x': not an integer (allowed: an integer in 0..1024)").
    bool parse(const std::vector<std::string>& args, std::string* error);
    bool helpRequested() const { return m_help; }

    bool has(const std::string& name) const;
    std::string value(const std::string& name) const; // default value when absent (the last one when repeated)
    std::vector<std::string> values(const std::string& name) const; // every occurrence, in order
    const std::vector<std::string>& positionals() const { return m_positionals; }

    // The value (given, else the default) converted as its option's type declares: a signed
    // integer type for opt::integer (its whole range must fit T), an unsigned one for opt::size,
    // double for opt::real, std::chrono::milliseconds for opt::duration, the enum for
    // opt::oneOf(values, nameOf), std::vector<int64_t> / std::vector<std::string> for the lists
    // (empty when absent), std::string for any option. std::logic_error when the option has no
    // value (check has()) or T does not match its type: a programming error, never a user's.
    template <class T> T get(const std::string& name) const;

    std::string help() const;
    const std::string& command() const { return m_command; }

private:
    struct Option
    {
        std::string name;
        std::string shortName;
        std::string valueName;
        std::string help;
        std::string defaultValue;
        OptionType type;
    };
    const Option* find(const std::string& token) const;
    bool checkValues(std::string* error) const;
    // The option named `name` and its value (given, else the default); std::logic_error when the
    // option is not declared, has no value, or is not of `kind`.
    std::pair<const Option*, std::string> typed(const std::string& name, OptionType::Kind kind) const;
    void requireDeclared(const std::string& name) const;
    [[noreturn]] static void wrongType(const std::string& name, const char* type);

    std::string m_command;
    std::string m_summary;
    std::string m_usage;
    std::vector<Option> m_options;
    std::vector<std::pair<std::string, std::string>> m_positionalHelp;
    std::vector<std::string> m_notes;
    std::map<std::string, std::string> m_values;
    std::map<std::string, std::vector<std::string>> m_repeated;
    std::vector<std::string> m_positionals;
    bool m_help = false;
};

template <class T> T ArgParser::get(const std::string& name) const
{
    using Kind = OptionType::Kind;
    if constexpr (std::is_same_v<T, std::string>) {
        requireDeclared(name);
        return value(name); // "" when neither given nor defaulted
    } else if constexpr (std::is_same_v<T, bool>) {
        static_assert(!std::is_same_v<T, bool>, "flags: use has()");
    } else if constexpr (std::is_enum_v<T>) {
        const auto [o, text] = typed(name, Kind::Choice);
        return static_cast<T>(o->type.toChoice(text));
    } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
        const auto [o, text] = typed(name, Kind::Integer);
        if (o->type.integerMin() < int64_t(std::numeric_limits<T>::min())
            || o->type.integerMax() > int64_t(std::numeric_limits<T>::max()))
            wrongType(name, "an integer type that holds its whole range");
        return T(o->type.toInteger(text));
    } else if constexpr (std::is_integral_v<T>) {
        const auto [o, text] = typed(name, Kind::Size);
        if (o->type.sizeMax() > uint64_t(std::numeric_limits<T>::max()))
            wrongType(name, "an unsigned type that holds its whole range");
        return T(o->type.toSize(text));
    } else if constexpr (std::is_same_v<T, double>) {
        const auto [o, text] = typed(name, Kind::Real);
        return o->type.toReal(text);
    } else if constexpr (std::is_same_v<T, std::chrono::milliseconds>) {
        const auto [o, text] = typed(name, Kind::Duration);
        return o->type.toDuration(text);
    } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
        const auto [o, text] = typed(name, Kind::IntegerList);
        return o->type.toIntegers(text);
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
        const auto [o, text] = typed(name, Kind::NameList);
        return o->type.toNames(text);
    } else {
        static_assert(std::is_same_v<T, void>, "ArgParser::get: unsupported type");
    }
}

} // namespace tgraph::cli
