// SPDX-License-Identifier: Apache-2.0
#include "download.h"

#include "core/util/error.h"
#include "core/util/progress.h"
#include "core/util/version.h"

#include <curl/curl.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <system_error>

namespace fs = std::filesystem;

namespace tgraph {

namespace {

void initCurl()
{
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Easy
{
    Easy()
        : handle(curl_easy_init())
    {
        if (!handle)
            throw std::bad_alloc();
    }
    ~Easy() { curl_easy_cleanup(handle); }
    Easy(const Easy&) = delete;
    Easy& operator=(const Easy&) = delete;
    CURL* handle;
};

void commonOptions(CURL* h, const std::string& url, char* errorBuffer)
{
    static const std::string agent = std::string("tgraph/") + projectVersion();
    curl_easy_setopt(h, CURLOPT_URL, url.c_str());
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, 10L);
    curl_easy_setopt(h, CURLOPT_USERAGENT, agent.c_str());
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 30L);
    // A transfer slower than 1 byte/s for a minute is broken: it is resumed like a cut one.
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 60L);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errorBuffer);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    errorBuffer[0] = 0;
}

std::string curlMessage(CURLcode code, const char* buffer)
{
    return buffer && buffer[0] ? std::string(buffer) : std::string(curl_easy_strerror(code));
}

// HEAD: the size the server announces (-1 when it does not tell).
int64_t remoteSize(const std::string& url, int connectTimeoutSeconds)
{
    Easy easy;
    char error[CURL_ERROR_SIZE];
    commonOptions(easy.handle, url, error);
    curl_easy_setopt(easy.handle, CURLOPT_NOBODY, 1L);
    curl_easy_setopt(easy.handle, CURLOPT_CONNECTTIMEOUT, long(connectTimeoutSeconds));
    const CURLcode rc = curl_easy_perform(easy.handle);
    if (rc != CURLE_OK)
        throw InputError(url, "request", curlMessage(rc, error));
    long status = 0;
    curl_easy_getinfo(easy.handle, CURLINFO_RESPONSE_CODE, &status);
    if (url.rfind("http", 0) == 0 && (status == 404 || status == 410))
        throw InputError(url, "HTTP " + std::to_string(status), "the server does not offer this file");
    if (url.rfind("http", 0) == 0 && status != 200)
        return -1; // HEAD not answered (405, 403, ...): the GET tells
    curl_off_t length = -1;
    curl_easy_getinfo(easy.handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
    return length;
}

struct Transfer
{
    CURL* handle = nullptr;
    std::FILE* file = nullptr;
    std::string partPath;
    uint64_t offset = 0; // bytes in the part before this request
    uint64_t received = 0; // body bytes of this request written to the part
    bool decided = false; // status looked at (first body bytes)
    bool writing = false; // status 200/206: the body goes into the part
    int writeErrno = 0;
    ProgressSink* progress = nullptr;
    uint64_t progressBase = 0;
};

size_t onBody(char* data, size_t size, size_t count, void* user)
{
    auto* t = static_cast<Transfer*>(user);
    const size_t bytes = size * count;
    if (!t->decided) {
        t->decided = true;
        long status = 0;
        curl_easy_getinfo(t->handle, CURLINFO_RESPONSE_CODE, &status);
        if (status == 206 || status == 0 /* file:// and other non-HTTP URLs */) {
            t->writing = true;
        } else if (status == 200) {
            // The whole file again (Range ignored): the part starts over.
            t->writing = true;
            if (t->offset > 0) {
                std::fflush(t->file);
                if (std::freopen(t->partPath.c_str(), "wb", t->file) == nullptr) {
                    t->writeErrno = errno;
                    return 0;
                }
                t->offset = 0;
            }
        }
    }
    if (!t->writing)
        return bytes; // an error page: dropped, the status code tells the problem
    if (std::fwrite(data, 1, bytes, t->file) != bytes) {
        t->writeErrno = errno ? errno : EIO;
        return 0;
    }
    t->received += bytes;
    return bytes;
}

int onProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t)
{
    auto* t = static_cast<Transfer*>(user);
    if (!t->progress)
        return 0;
    t->progress->update(t->offset + t->received);
    return t->progress->isCancelled() ? 1 : 0;
}

uint64_t fileSizeOr0(const std::string& path)
{
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    return ec ? 0 : uint64_t(size);
}

// Removes the part when the download ends with no byte in it (refused, unreachable, cancelled
// before the first byte): there is nothing to resume.
class EmptyPartGuard
{
public:
    explicit EmptyPartGuard(std::string part)
        : m_part(std::move(part))
    { }
    ~EmptyPartGuard()
    {
        std::error_code ec;
        if (fs::is_regular_file(m_part, ec) && fs::file_size(m_part, ec) == 0 && !ec)
            fs::remove(m_part, ec);
    }
    EmptyPartGuard(const EmptyPartGuard&) = delete;
    EmptyPartGuard& operator=(const EmptyPartGuard&) = delete;

private:
    std::string m_part;
};

} // namespace

int64_t remoteFileSize(const std::string& url, int connectTimeoutSeconds)
{
    initCurl();
    return remoteSize(url, connectTimeoutSeconds);
}

DownloadResult downloadFile(const std::string& url, const std::string& target, ProgressSink* progress, int attempts)
{
    initCurl();
    const std::string part = target + ".part";
    const EmptyPartGuard emptyPart(part);
    DownloadResult result;
    const int64_t announced = remoteSize(url, 30);
    uint64_t have = fileSizeOr0(part);
    if (announced >= 0 && have > uint64_t(announced)) {
        std::error_code ec;
        fs::remove(part, ec); // longer than the file: not a part of it
        have = 0;
    }
    result.resumedFrom = have;

    const std::string label = "download " + fs::path(target).filename().string();
    ProgressScope scope(progress, label, announced >= 0 ? uint64_t(announced) : 0);
    for (int attempt = 0; attempt < attempts; ++attempt) {
        have = fileSizeOr0(part);
        if (announced > 0 && have == uint64_t(announced))
            break;
        std::FILE* file = std::fopen(part.c_str(), have > 0 ? "ab" : "wb");
        if (!file)
            throw InputError(part, "open", std::strerror(errno));
        Easy easy;
        char error[CURL_ERROR_SIZE];
        commonOptions(easy.handle, url, error);
        Transfer t;
        t.handle = easy.handle;
        t.file = file;
        t.partPath = part;
        t.offset = have;
        t.progress = progress;
        curl_easy_setopt(easy.handle, CURLOPT_WRITEFUNCTION, onBody);
        curl_easy_setopt(easy.handle, CURLOPT_WRITEDATA, &t);
        curl_easy_setopt(easy.handle, CURLOPT_NOPROGRESS, 0L);
        curl_easy_setopt(easy.handle, CURLOPT_XFERINFOFUNCTION, onProgress);
        curl_easy_setopt(easy.handle, CURLOPT_XFERINFODATA, &t);
        if (have > 0)
            curl_easy_setopt(easy.handle, CURLOPT_RESUME_FROM_LARGE, curl_off_t(have));
        ++result.requests;
        const CURLcode rc = curl_easy_perform(easy.handle);
        const bool closed = std::fclose(t.file) == 0;
        result.transferred += t.received;
        long status = 0;
        curl_easy_getinfo(easy.handle, CURLINFO_RESPONSE_CODE, &status);
        if (rc == CURLE_ABORTED_BY_CALLBACK)
            throw Cancelled();
        if (t.writeErrno)
            throw InputError(part, "write", std::strerror(t.writeErrno));
        if (!closed)
            throw InputError(part, "write", std::strerror(errno));
        if (rc == CURLE_RANGE_ERROR) { // the server cannot continue a part: start over
            std::error_code ec;
            fs::remove(part, ec);
            continue;
        }
        if (rc == CURLE_PARTIAL_FILE || rc == CURLE_OPERATION_TIMEDOUT || rc == CURLE_RECV_ERROR
            || rc == CURLE_GOT_NOTHING || rc == CURLE_SEND_ERROR) {
            if (attempt + 1 < attempts)
                continue; // resumed from what arrived
            throw InputError(url, "transfer",
                curlMessage(rc, error) + " after " + std::to_string(result.requests)
                    + " attempts; run again to resume from " + std::to_string(fileSizeOr0(part)) + " bytes");
        }
        if (rc != CURLE_OK)
            throw InputError(url, "request", curlMessage(rc, error));
        if (status == 416 && announced >= 0 && fileSizeOr0(part) == uint64_t(announced))
            break; // already whole
        if (status >= 400)
            throw InputError(url, "HTTP " + std::to_string(status), "the server refused the download");
        if (announced < 0 || fileSizeOr0(part) == uint64_t(announced))
            break;
        if (attempt + 1 == attempts)
            throw InputError(url, "transfer",
                "the server announced " + std::to_string(announced) + " bytes and sent "
                    + std::to_string(fileSizeOr0(part)) + "; run again to resume");
    }
    result.bytes = fileSizeOr0(part);
    if (announced >= 0 && result.bytes != uint64_t(announced))
        throw InputError(url, "transfer",
            "the server announced " + std::to_string(announced) + " bytes and sent " + std::to_string(result.bytes)
                + "; run again to resume");
    std::error_code ec;
    fs::rename(part, target, ec);
    if (ec)
        throw InputError(target, "rename", ec.message());
    scope.advanceTo(result.bytes);
    return result;
}

std::string curlVersion() { return curl_version_info(CURLVERSION_NOW)->version; }

} // namespace tgraph
