// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the value of a command-line option must be: an integer, an unsigned size, a real number, a
// duration, one of some names, a list of integers or of names, or a form a validator checks; with
// its inclusive range. ArgParser checks every value given on the command line (and every default)
// before a command runs, and the command reads it already converted (ArgParser::get<T>), so no
// command converts text itself and no bad value falls back to a default silently.
//
// Numbers are read with std::from_chars: the same in every locale ("0.001" is 0.001 under
// de_DE.UTF-8 too), the whole text or nothing (no leading blanks, no trailing characters), no
// overflow, no NaN or infinity. An optional leading '+' is accepted.

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace tgraph::cli {

class OptionType
{
public:
    enum class Kind { Text, Integer, Size, Real, Duration, Choice, IntegerList, NameList, Custom };

    OptionType() = default; // Text: any string

    Kind kind() const { return m_kind; }
    // "" when `text` is a valid value, else what is wrong with it ("out of range", "not an integer").
    std::string problem(std::string_view text) const;
    // What is allowed, for error messages: "an integer in 1..256", "keep-first, keep-min or none".
    std::string allowed() const;
    // The range shown by --help ("1..256", ">= 1", "[0, 1)", "1..86400 s"); "" for text, names and
    // custom forms (their help texts name them) and for sizes up to 2^64 - 1 (seeds).
    std::string helpRange() const;

    // Real ranges: the bound itself is not allowed ("> 0", "[0, 1)").
    OptionType& excludingMin();
    OptionType& excludingMax();
    // Choices: `name` is accepted as another spelling of `of`, without being listed.
    OptionType& alias(const std::string& name, const std::string& of);

    // Conversions of a valid value (problem(text) is empty); std::logic_error otherwise.
    int64_t toInteger(std::string_view text) const;
    uint64_t toSize(std::string_view text) const;
    double toReal(std::string_view text) const;
    std::chrono::milliseconds toDuration(std::string_view text) const;
    int toChoice(std::string_view text) const; // the value the name stands for
    std::vector<int64_t> toIntegers(std::string_view text) const;
    std::vector<std::string> toNames(std::string_view text) const;

    // The declared range, for ArgParser::get<T> to check that T holds every allowed value.
    int64_t integerMin() const { return m_min; }
    int64_t integerMax() const { return m_max; }
    uint64_t sizeMax() const { return m_sizeMax; }

    static OptionType integer(int64_t min, int64_t max);
    static OptionType size(uint64_t max);
    static OptionType real(double min, double max);
    static OptionType duration(double minSeconds, double maxSeconds);
    static OptionType choice(std::vector<std::string> names, std::vector<int> values);
    static OptionType integers(int64_t min, int64_t max);
    static OptionType names(std::vector<std::string> allowed);
    static OptionType custom(std::string allowed, std::function<std::string(const std::string&)> check);

private:
    std::string itemProblem(std::string_view item, Kind kind) const;
    std::string rangeText(bool forHelp) const;

    Kind m_kind = Kind::Text;
    int64_t m_min = std::numeric_limits<int64_t>::min();
    int64_t m_max = std::numeric_limits<int64_t>::max();
    uint64_t m_sizeMax = std::numeric_limits<uint64_t>::max();
    double m_realMin = -std::numeric_limits<double>::max();
    double m_realMax = std::numeric_limits<double>::max();
    bool m_openMin = false;
    bool m_openMax = false;
    std::vector<std::string> m_names; // choices and name lists; the first m_listed are shown
    std::vector<int> m_values; // choices: the value of each name
    size_t m_listed = 0;
    std::string m_allowed; // custom forms
    std::function<std::string(const std::string&)> m_check;
};

// The declarations commands use: p.addOption("--threads", "", "T", "...", "0", opt::integer(0, 1024)).
namespace opt {

// A signed integer in min..max.
inline OptionType integer(int64_t min, int64_t max = std::numeric_limits<int64_t>::max())
{
    return OptionType::integer(min, max);
}
// An unsigned integer in 0..max (seeds, sizes).
inline OptionType size(uint64_t max = std::numeric_limits<uint64_t>::max()) { return OptionType::size(max); }
// A finite real number in [min, max]; .excludingMin() / .excludingMax() open a bound.
inline OptionType real(
    double min = -std::numeric_limits<double>::max(), double max = std::numeric_limits<double>::max())
{
    return OptionType::real(min, max);
}
// Seconds in [min, max]: "90", "2.5", or with a unit: "1500ms", "90s", "5m", "2h".
inline OptionType duration(double minSeconds, double maxSeconds)
{
    return OptionType::duration(minSeconds, maxSeconds);
}
// One of `names` (exact spelling); get<std::string> reads it.
OptionType oneOf(std::vector<std::string> names);
// One of the names of enum values, from the enum's own name function (so the spellings are the
// ones the rest of the program prints); get<E> reads the value.
template <class E, class NameOf> OptionType oneOf(std::initializer_list<E> values, NameOf nameOf)
{
    std::vector<std::string> names;
    std::vector<int> ints;
    for (E v : values) {
        names.emplace_back(nameOf(v));
        ints.push_back(static_cast<int>(v));
    }
    return OptionType::choice(std::move(names), std::move(ints));
}
// Comma-separated integers in min..max (empty items are skipped); get<std::vector<int64_t>>.
inline OptionType integers(int64_t min, int64_t max = std::numeric_limits<int64_t>::max())
{
    return OptionType::integers(min, max);
}
// Comma-separated names out of `allowed` (empty items are skipped); get<std::vector<std::string>>.
inline OptionType names(std::vector<std::string> allowed) { return OptionType::names(std::move(allowed)); }
// A form `check` validates: it returns "" for a valid value, else the problem; `allowed` describes
// the form for error messages ("HOST:PORT").
inline OptionType custom(std::string allowed, std::function<std::string(const std::string&)> check)
{
    return OptionType::custom(std::move(allowed), std::move(check));
}

} // namespace opt

} // namespace tgraph::cli
