// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/io/ndarray.h"

#include <memory>
#include <string>
#include <string_view>

namespace tgraph {

// The bytes of a whole file in memory that is not zero-filled first (large files get huge pages).
class FileBytes
{
public:
    const char* data() const { return m_data.get(); }
    size_t size() const { return m_size; }
    std::string_view view() const { return { m_data.get(), m_size }; }

    // InputError naming the file when it cannot be read.
    static FileBytes read(const std::string& path);

private:
    std::unique_ptr<char, ArrayMemoryDeleter> m_data;
    size_t m_size = 0;
};

} // namespace tgraph
