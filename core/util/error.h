// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <stdexcept>
#include <string>

namespace tgraph {

// A problem with user input (a file, an argument): names the file, the place inside it
// (an array, a zip member, a byte offset, a line) and the problem, on one line:
//   "graph.npz: edge_index[17,1]: node id 3000 out of range [0, 2774)"
class InputError : public std::runtime_error
{
public:
    InputError(std::string file, std::string place, std::string problem);

    const std::string& file() const { return m_file; }
    const std::string& place() const { return m_place; }
    const std::string& problem() const { return m_problem; }

private:
    std::string m_file;
    std::string m_place;
    std::string m_problem;
};

// Thrown by long operations when their ProgressSink asks to stop.
class Cancelled : public std::runtime_error
{
public:
    Cancelled()
        : std::runtime_error("cancelled")
    { }
};

} // namespace tgraph
