// SPDX-License-Identifier: Apache-2.0
#pragma once

// Resumable downloads over libcurl (docs/formats.md §16.2).

#include <cstdint>
#include <string>

namespace tgraph {

class ProgressSink;

struct DownloadResult
{
    uint64_t bytes = 0; // size of the finished file
    uint64_t resumedFrom = 0; // bytes already in TARGET.part when the first request was sent
    uint64_t transferred = 0; // bytes received over the network by this call
    int requests = 0; // GET requests sent (more than one when a transfer broke and was resumed)
};

// Downloads `url` to `target` through `target + ".part"`: the server's size is asked first (HEAD),
// a part already there is continued with an HTTP Range request ("Range: bytes=N-"), a transfer
// that breaks off is resumed up to `attempts` times, and the part is renamed to `target` only when
// it has every byte the server announced. A server that ignores Range starts the part over.
// Throws InputError naming the URL on HTTP errors and unreachable servers, and Cancelled when
// `progress` asks to stop (the part stays for the next call to resume; a part without a byte in
// it is removed).
DownloadResult downloadFile(
    const std::string& url, const std::string& target, ProgressSink* progress, int attempts = 4);

// The size the server announces for `url` (a HEAD request's Content-Length), -1 when it does not
// tell (no length, HEAD refused). Throws InputError naming the URL when the server cannot be reached
// within `connectTimeoutSeconds` or does not offer the file (404, 410).
int64_t remoteFileSize(const std::string& url, int connectTimeoutSeconds = 30);

// libcurl's version, for --version texts.
std::string curlVersion();

} // namespace tgraph
