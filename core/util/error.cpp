// SPDX-License-Identifier: Apache-2.0
#include "core/util/error.h"

#include <algorithm>

namespace tgraph {

namespace {
std::string oneLine(std::string s)
{
    std::replace_if(
        s.begin(), s.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
    return s;
}

std::string compose(const std::string& file, const std::string& place, const std::string& problem)
{
    std::string out = file.empty() ? std::string() : file + ": ";
    if (!place.empty())
        out += place + ": ";
    return oneLine(out + problem);
}
} // namespace

InputError::InputError(std::string file, std::string place, std::string problem)
    : std::runtime_error(compose(file, place, problem))
    , m_file(std::move(file))
    , m_place(std::move(place))
    , m_problem(std::move(problem))
{ }

} // namespace tgraph
