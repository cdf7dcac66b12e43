// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <charconv>
#include <map>
#include <string>
#include <vector>

namespace tgraph::cli {

// The whole of `text` as a number of type T (std::from_chars: no sign for unsigned types, no
// leading spaces, no trailing characters); false otherwise.
template <class T> bool parseNumber(const std::string& text, T* out)
{
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
    return ec == std::errc() && end == text.data() + text.size();
}

// Options of one sub-command: "--name VALUE", "--name=VALUE", short aliases ("-o FILE"), flags,
// and positional arguments. Produces the command's --help text from the same declarations.
class ArgParser
{
public:
    ArgParser(std::string command, std::string summary, std::string usage);

    // valueName empty = a flag. shortName may be empty.
    void addOption(std::string name, std::string shortName, std::string valueName, std::string help,
        std::string defaultValue = {});
    void addPositional(std::string name, std::string help);
    void addNote(std::string text) { m_notes.push_back(std::move(text)); }

    // False with `error` set on unknown options, missing values or wrong positional counts.
    bool parse(const std::vector<std::string>& args, std::string* error);
    bool helpRequested() const { return m_help; }

    bool has(const std::string& name) const;
    std::string value(const std::string& name) const; // default value when absent (the last one when repeated)
    std::vector<std::string> values(const std::string& name) const; // every occurrence, in order
    const std::vector<std::string>& positionals() const { return m_positionals; }

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
    };
    const Option* find(const std::string& token) const;

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

} // namespace tgraph::cli
