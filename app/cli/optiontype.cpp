// SPDX-License-Identifier: Apache-2.0
#include "optiontype.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace tgraph::cli {

namespace {

enum class Parsed { Ok, Invalid, OutOfRange };

// The text without one leading '+' (when a digit or '.' follows), so "+5" reads as 5; a '-'
// stays for from_chars.
std::string_view withoutPlus(std::string_view text)
{
    if (text.size() >= 2 && text[0] == '+' && (std::isdigit(static_cast<unsigned char>(text[1])) || text[1] == '.'))
        return text.substr(1);
    return text;
}

Parsed parseInteger(std::string_view text, int64_t* out)
{
    text = withoutPlus(text);
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
    if (ec == std::errc::result_out_of_range && end == text.data() + text.size())
        return Parsed::OutOfRange;
    return ec == std::errc() && end == text.data() + text.size() && !text.empty() ? Parsed::Ok : Parsed::Invalid;
}

Parsed parseSize(std::string_view text, uint64_t* out)
{
    text = withoutPlus(text);
    if (text.size() >= 2 && text[0] == '-') { // a negative integer is one, just out of range
        int64_t negative = 0;
        return parseInteger(text, &negative) == Parsed::Invalid ? Parsed::Invalid : Parsed::OutOfRange;
    }
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
    if (ec == std::errc::result_out_of_range && end == text.data() + text.size())
        return Parsed::OutOfRange;
    return ec == std::errc() && end == text.data() + text.size() && !text.empty() ? Parsed::Ok : Parsed::Invalid;
}

// A finite number; "inf" and "nan" are numbers to from_chars, so they are refused here (Invalid
// with *nonFinite set).
Parsed parseReal(std::string_view text, double* out, bool* nonFinite)
{
    *nonFinite = false;
    text = withoutPlus(text);
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out, std::chars_format::general);
    if (ec == std::errc::result_out_of_range && end == text.data() + text.size())
        return Parsed::OutOfRange;
    if (ec != std::errc() || end != text.data() + text.size() || text.empty())
        return Parsed::Invalid;
    if (!std::isfinite(*out)) {
        *nonFinite = true;
        return Parsed::Invalid;
    }
    return Parsed::Ok;
}

// "90", "2.5s", "1500ms", "5m", "2h" as seconds.
Parsed parseSeconds(std::string_view text, double* seconds)
{
    size_t unitAt = text.size();
    while (unitAt > 0 && std::isalpha(static_cast<unsigned char>(text[unitAt - 1])))
        --unitAt;
    const std::string_view unit = text.substr(unitAt);
    double factor = 0;
    if (unit.empty() || unit == "s")
        factor = 1;
    else if (unit == "ms")
        factor = 0.001;
    else if (unit == "m")
        factor = 60;
    else if (unit == "h")
        factor = 3600;
    else
        return Parsed::Invalid;
    bool nonFinite = false;
    double number = 0;
    const Parsed p = parseReal(text.substr(0, unitAt), &number, &nonFinite);
    *seconds = number * factor;
    return p;
}

std::string number(double v)
{
    char buf[64];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return ec == std::errc() ? std::string(buf, end) : std::string("?");
}

std::string listOf(const std::vector<std::string>& names, size_t count)
{
    std::string out;
    for (size_t i = 0; i < count; ++i)
        out += (i == 0 ? "" : i + 1 == count ? " or " : ", ") + names[i];
    return out;
}

std::vector<std::string_view> splitItems(std::string_view text)
{
    std::vector<std::string_view> items;
    size_t at = 0;
    while (at <= text.size()) {
        size_t comma = text.find(',', at);
        if (comma == std::string_view::npos)
            comma = text.size();
        if (comma > at)
            items.push_back(text.substr(at, comma - at));
        at = comma + 1;
    }
    return items;
}

[[noreturn]] void invalid(std::string_view text)
{
    throw std::logic_error("option value '" + std::string(text) + "' read without being checked");
}

} // namespace

OptionType OptionType::integer(int64_t min, int64_t max)
{
    if (min > max)
        throw std::logic_error("integer option: min > max");
    OptionType t;
    t.m_kind = Kind::Integer;
    t.m_min = min;
    t.m_max = max;
    return t;
}

OptionType OptionType::size(uint64_t max)
{
    OptionType t;
    t.m_kind = Kind::Size;
    t.m_sizeMax = max;
    return t;
}

OptionType OptionType::real(double min, double max)
{
    if (!(min <= max) || !std::isfinite(min) || !std::isfinite(max))
        throw std::logic_error("real option: bad range");
    OptionType t;
    t.m_kind = Kind::Real;
    t.m_realMin = min;
    t.m_realMax = max;
    return t;
}

OptionType OptionType::duration(double minSeconds, double maxSeconds)
{
    OptionType t = real(minSeconds, maxSeconds);
    if (minSeconds < 0)
        throw std::logic_error("duration option: negative minimum");
    t.m_kind = Kind::Duration;
    return t;
}

OptionType OptionType::choice(std::vector<std::string> names, std::vector<int> values)
{
    if (names.empty() || names.size() != values.size())
        throw std::logic_error("choice option: no names, or not one value per name");
    OptionType t;
    t.m_kind = Kind::Choice;
    t.m_listed = names.size();
    t.m_names = std::move(names);
    t.m_values = std::move(values);
    return t;
}

OptionType OptionType::integers(int64_t min, int64_t max)
{
    OptionType t = integer(min, max);
    t.m_kind = Kind::IntegerList;
    return t;
}

OptionType OptionType::names(std::vector<std::string> allowed)
{
    if (allowed.empty())
        throw std::logic_error("name-list option: no names");
    OptionType t;
    t.m_kind = Kind::NameList;
    t.m_listed = allowed.size();
    t.m_names = std::move(allowed);
    return t;
}

OptionType OptionType::custom(std::string allowed, std::function<std::string(const std::string&)> check)
{
    OptionType t;
    t.m_kind = Kind::Custom;
    t.m_allowed = std::move(allowed);
    t.m_check = std::move(check);
    return t;
}

OptionType& OptionType::excludingMin()
{
    if (m_kind != Kind::Real)
        throw std::logic_error("excludingMin: not a real option");
    m_openMin = true;
    return *this;
}

OptionType& OptionType::excludingMax()
{
    if (m_kind != Kind::Real)
        throw std::logic_error("excludingMax: not a real option");
    m_openMax = true;
    return *this;
}

OptionType& OptionType::alias(const std::string& name, const std::string& of)
{
    if (m_kind != Kind::Choice)
        throw std::logic_error("alias: not a choice option");
    for (size_t i = 0; i < m_listed; ++i)
        if (m_names[i] == of) {
            m_names.push_back(name);
            m_values.push_back(m_values[i]);
            return *this;
        }
    throw std::logic_error("alias: no choice named " + of);
}

std::string OptionType::itemProblem(std::string_view text, Kind kind) const
{
    switch (kind) {
    case Kind::Text:
    case Kind::IntegerList:
    case Kind::NameList:
        return {};
    case Kind::Integer: {
        int64_t v = 0;
        const Parsed p = parseInteger(text, &v);
        if (p == Parsed::Invalid)
            return "not an integer";
        return p == Parsed::OutOfRange || v < m_min || v > m_max ? "out of range" : "";
    }
    case Kind::Size: {
        uint64_t v = 0;
        const Parsed p = parseSize(text, &v);
        if (p == Parsed::Invalid)
            return "not a non-negative integer";
        return p == Parsed::OutOfRange || v > m_sizeMax ? "out of range" : "";
    }
    case Kind::Real:
    case Kind::Duration: {
        double v = 0;
        bool nonFinite = false;
        const Parsed p = kind == Kind::Real ? parseReal(text, &v, &nonFinite) : parseSeconds(text, &v);
        if (p == Parsed::Invalid)
            return nonFinite ? "not a finite number" : kind == Kind::Real ? "not a number" : "not a duration";
        const bool below = m_openMin ? !(v > m_realMin) : !(v >= m_realMin);
        const bool above = m_openMax ? !(v < m_realMax) : !(v <= m_realMax);
        return p == Parsed::OutOfRange || below || above ? "out of range" : "";
    }
    case Kind::Choice:
        for (const std::string& n : m_names)
            if (text == n)
                return {};
        return "unknown";
    case Kind::Custom:
        return m_check(std::string(text));
    }
    return {};
}

std::string OptionType::problem(std::string_view text) const
{
    if (m_kind != Kind::IntegerList && m_kind != Kind::NameList)
        return itemProblem(text, m_kind);
    for (std::string_view item : splitItems(text)) {
        std::string why;
        if (m_kind == Kind::IntegerList) {
            why = itemProblem(item, Kind::Integer);
        } else {
            bool known = false;
            for (const std::string& n : m_names)
                known |= item == n;
            why = known ? "" : "unknown";
        }
        if (!why.empty())
            return "item '" + std::string(item) + "' " + (why == "unknown" ? "is unknown" : "is " + why);
    }
    return {};
}

std::string OptionType::rangeText(bool forHelp) const
{
    constexpr int64_t kIntLimit = std::numeric_limits<int32_t>::max();
    switch (m_kind) {
    case Kind::Integer:
    case Kind::IntegerList:
        if (m_min == std::numeric_limits<int64_t>::min() && m_max == std::numeric_limits<int64_t>::max())
            return forHelp ? "" : "any";
        if (m_max == std::numeric_limits<int64_t>::max() || (forHelp && m_max >= kIntLimit))
            return ">= " + std::to_string(m_min);
        return std::to_string(m_min) + ".." + std::to_string(m_max);
    case Kind::Size:
        if (forHelp && m_sizeMax == std::numeric_limits<uint64_t>::max())
            return "";
        return "0.." + std::to_string(m_sizeMax);
    case Kind::Real:
    case Kind::Duration: {
        const bool lower = m_realMin > -std::numeric_limits<double>::max();
        const bool upper = m_realMax < std::numeric_limits<double>::max();
        const std::string unit = m_kind == Kind::Duration ? " s" : "";
        if (lower && upper) {
            if (m_kind == Kind::Duration && !m_openMin && !m_openMax)
                return number(m_realMin) + ".." + number(m_realMax) + unit;
            return std::string(m_openMin ? "(" : "[") + number(m_realMin) + ", " + number(m_realMax)
                + (m_openMax ? ")" : "]") + unit;
        }
        if (lower)
            return (m_openMin ? "> " : ">= ") + number(m_realMin) + unit;
        if (upper)
            return (m_openMax ? "< " : "<= ") + number(m_realMax) + unit;
        return forHelp ? "" : "any";
    }
    case Kind::Choice:
    case Kind::NameList:
        return listOf(m_names, m_listed);
    case Kind::Text:
        return {};
    case Kind::Custom:
        return m_allowed;
    }
    return {};
}

std::string OptionType::allowed() const
{
    const std::string range = rangeText(false);
    switch (m_kind) {
    case Kind::Integer:
        return range == "any"         ? "an integer"
            : range.starts_with(">=") ? "an integer " + range
                                      : "an integer in " + range;
    case Kind::Size:
        return "an integer in " + range;
    case Kind::Real:
        if (range == "any")
            return "a finite number";
        return range[0] == '[' || range[0] == '(' ? "a number in " + range : "a number " + range;
    case Kind::Duration:
        return (std::isdigit(static_cast<unsigned char>(range[0])) || range[0] == '[' || range[0] == '('
                       ? "a duration in " + range
                       : "a duration " + range)
            + "; plain seconds or with a unit: 1500ms, 90s, 5m, 2h";
    case Kind::Choice:
        return range;
    case Kind::IntegerList:
        return range == "any"         ? "comma-separated integers"
            : range.starts_with(">=") ? "comma-separated integers " + range
                                      : "comma-separated integers in " + range;
    case Kind::NameList:
        return "comma-separated names out of " + range;
    case Kind::Custom:
        return range;
    case Kind::Text:
        return "any text";
    }
    return {};
}

std::string OptionType::helpRange() const
{
    switch (m_kind) {
    case Kind::Integer:
    case Kind::Size:
    case Kind::Real:
    case Kind::Duration:
        return rangeText(true);
    default:
        return {};
    }
}

int64_t OptionType::toInteger(std::string_view text) const
{
    int64_t v = 0;
    if (m_kind != Kind::Integer || !problem(text).empty() || parseInteger(text, &v) != Parsed::Ok)
        invalid(text);
    return v;
}

uint64_t OptionType::toSize(std::string_view text) const
{
    uint64_t v = 0;
    if (m_kind != Kind::Size || !problem(text).empty() || parseSize(text, &v) != Parsed::Ok)
        invalid(text);
    return v;
}

double OptionType::toReal(std::string_view text) const
{
    double v = 0;
    bool nonFinite = false;
    if (m_kind != Kind::Real || !problem(text).empty() || parseReal(text, &v, &nonFinite) != Parsed::Ok)
        invalid(text);
    return v;
}

std::chrono::milliseconds OptionType::toDuration(std::string_view text) const
{
    double seconds = 0;
    if (m_kind != Kind::Duration || !problem(text).empty() || parseSeconds(text, &seconds) != Parsed::Ok)
        invalid(text);
    return std::chrono::milliseconds(std::llround(seconds * 1000));
}

int OptionType::toChoice(std::string_view text) const
{
    if (m_kind == Kind::Choice)
        for (size_t i = 0; i < m_names.size(); ++i)
            if (text == m_names[i])
                return m_values[i];
    invalid(text);
}

std::vector<int64_t> OptionType::toIntegers(std::string_view text) const
{
    if (m_kind != Kind::IntegerList || !problem(text).empty())
        invalid(text);
    std::vector<int64_t> out;
    for (std::string_view item : splitItems(text)) {
        int64_t v = 0;
        parseInteger(item, &v);
        out.push_back(v);
    }
    return out;
}

std::vector<std::string> OptionType::toNames(std::string_view text) const
{
    if (m_kind != Kind::NameList || !problem(text).empty())
        invalid(text);
    std::vector<std::string> out;
    for (std::string_view item : splitItems(text))
        out.emplace_back(item);
    return out;
}

namespace opt {

OptionType oneOf(std::vector<std::string> names)
{
    std::vector<int> values(names.size());
    for (size_t i = 0; i < values.size(); ++i)
        values[i] = int(i);
    return OptionType::choice(std::move(names), std::move(values));
}

} // namespace opt

} // namespace tgraph::cli
