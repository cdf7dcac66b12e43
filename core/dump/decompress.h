// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tgraph {

// The whole content of gzip data (one member or several, one after another, as gzip and XLA's
// --xla_dump_compress_protos write it) / of xz data (one stream or several, as xz writes it), at
// most `maxBytes` of output. InputError(file, "", problem) on data that is damaged, truncated,
// followed by something that is not another member, or larger than maxBytes once decompressed
// ("decompresses to more than 8.00 GiB, the memory budget ...").
std::string gunzip(std::string_view data, const std::string& file, uint64_t maxBytes);
std::string unxz(std::string_view data, const std::string& file, uint64_t maxBytes);

// The liblzma this process runs with ("5.4.1"), for `tgraph --version`.
std::string lzmaVersion();

} // namespace tgraph
