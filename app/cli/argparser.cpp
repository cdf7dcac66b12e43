// SPDX-License-Identifier: Apache-2.0
#include "argparser.h"

#include <stdexcept>

namespace tgraph::cli {

ArgParser::ArgParser(std::string command, std::string summary, std::string usage)
    : m_command(std::move(command))
    , m_summary(std::move(summary))
    , m_usage(std::move(usage))
{ }

void ArgParser::addOption(std::string name, std::string shortName, std::string valueName, std::string help,
    std::string defaultValue, OptionType type)
{
    if (valueName.empty() && type.kind() != OptionType::Kind::Text)
        throw std::logic_error("option " + name + ": a flag has no value type");
    if (!defaultValue.empty())
        if (const std::string why = type.problem(defaultValue); !why.empty())
            throw std::logic_error("option " + name + ": default '" + defaultValue + "': " + why);
    m_options.push_back({ std::move(name), std::move(shortName), std::move(valueName), std::move(help),
        std::move(defaultValue), std::move(type) });
}

void ArgParser::addPositional(std::string name, std::string help)
{
    m_positionalHelp.emplace_back(std::move(name), std::move(help));
}

const ArgParser::Option* ArgParser::find(const std::string& token) const
{
    for (const auto& o : m_options)
        if (token == o.name || (!o.shortName.empty() && token == o.shortName))
            return &o;
    return nullptr;
}

bool ArgParser::parse(const std::vector<std::string>& args, std::string* error)
{
    bool onlyPositionals = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (onlyPositionals || a.size() < 2 || a[0] != '-') {
            m_positionals.push_back(a);
            continue;
        }
        if (a == "--") {
            onlyPositionals = true;
            continue;
        }
        if (a == "--help" || a == "-h") {
            m_help = true;
            return true;
        }
        std::string name = a;
        std::string inlineValue;
        bool hasInline = false;
        if (const auto eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
            name = a.substr(0, eq);
            inlineValue = a.substr(eq + 1);
            hasInline = true;
        }
        const Option* o = find(name);
        if (!o) {
            *error = "unknown option " + name;
            return false;
        }
        if (o->valueName.empty()) {
            if (hasInline) {
                *error = "option " + o->name + " takes no value";
                return false;
            }
            m_values[o->name].assign(1, '1');
        } else if (hasInline) {
            m_values[o->name] = inlineValue;
            m_repeated[o->name].push_back(inlineValue);
        } else {
            if (i + 1 >= args.size()) {
                *error = "option " + o->name + " needs a value (" + o->valueName + ")";
                return false;
            }
            m_values[o->name] = args[++i];
            m_repeated[o->name].push_back(args[i]);
        }
    }
    return checkValues(error);
}

// Every given value against its option's type, in the order the options are declared.
bool ArgParser::checkValues(std::string* error) const
{
    for (const Option& o : m_options) {
        const auto given = m_repeated.find(o.name);
        if (given == m_repeated.end())
            continue;
        for (const std::string& v : given->second)
            if (const std::string why = o.type.problem(v); !why.empty()) {
                *error = o.name + " '" + v + "': " + why;
                if (const std::string allowed = o.type.allowed(); !allowed.empty())
                    *error += " (allowed: " + allowed + ")";
                return false;
            }
    }
    return true;
}

void ArgParser::requireDeclared(const std::string& name) const
{
    for (const Option& o : m_options)
        if (o.name == name)
            return;
    throw std::logic_error("option " + name + " is not declared");
}

std::pair<const ArgParser::Option*, std::string> ArgParser::typed(const std::string& name, OptionType::Kind kind) const
{
    for (const Option& o : m_options) {
        if (o.name != name)
            continue;
        if (o.type.kind() != kind)
            wrongType(name, "the type it is declared with");
        const bool list = kind == OptionType::Kind::IntegerList || kind == OptionType::Kind::NameList;
        if (!has(name) && o.defaultValue.empty() && !list) // an absent list is an empty one
            throw std::logic_error("option " + name + " has no value (not given, no default): check has() first");
        return { &o, value(name) };
    }
    throw std::logic_error("option " + name + " is not declared");
}

void ArgParser::wrongType(const std::string& name, const char* type)
{
    throw std::logic_error("option " + name + " read as another type than " + type);
}

bool ArgParser::has(const std::string& name) const { return m_values.count(name) > 0; }

std::string ArgParser::value(const std::string& name) const
{
    auto it = m_values.find(name);
    if (it != m_values.end())
        return it->second;
    for (const auto& o : m_options)
        if (o.name == name)
            return o.defaultValue;
    return {};
}

std::vector<std::string> ArgParser::values(const std::string& name) const
{
    auto it = m_repeated.find(name);
    return it != m_repeated.end() ? it->second : std::vector<std::string> {};
}

std::string ArgParser::help() const
{
    std::string out = "Usage: tgraph " + m_command + " " + m_usage + "\n\n" + m_summary + "\n";
    auto row = [&](std::string left, const std::string& text) {
        out += "  " + left;
        if (left.size() < 26)
            out.append(26 - left.size(), ' ');
        else
            out += "\n" + std::string(28, ' ');
        out += text + "\n";
    };
    if (!m_positionalHelp.empty()) {
        out += "\nArguments:\n";
        for (const auto& [name, text] : m_positionalHelp)
            row(name, text);
    }
    out += "\nOptions:\n";
    for (const auto& o : m_options) {
        std::string left = o.shortName.empty() ? o.name : o.shortName + ", " + o.name;
        if (!o.valueName.empty())
            left += " " + o.valueName;
        std::string notes = o.type.helpRange();
        if (!o.defaultValue.empty())
            notes += (notes.empty() ? "" : "; ") + std::string("default: ") + o.defaultValue;
        row(left, o.help + (notes.empty() ? "" : " (" + notes + ")"));
    }
    row("-h, --help", "show this help");
    for (const auto& n : m_notes)
        out += "\n" + n + "\n";
    return out;
}

} // namespace tgraph::cli
