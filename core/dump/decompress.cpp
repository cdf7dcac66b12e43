// SPDX-License-Identifier: Apache-2.0
#include "core/dump/decompress.h"

#include "core/util/error.h"
#include "core/util/format.h"

#include <algorithm>
#include <climits>
#include <lzma.h>
#include <zlib.h>

namespace tgraph {

namespace {

// Output that grows by doubling up to maxBytes + 1 (one byte more tells "too large").
class Output
{
public:
    Output(const std::string& file, uint64_t maxBytes, size_t inputBytes)
        : m_file(file)
        , m_max(maxBytes)
    {
        m_data.resize(size_t(std::min<uint64_t>(std::max<uint64_t>(uint64_t(inputBytes) * 4, 1 << 16), m_max + 1)));
    }
    // Room for more output: a pointer to it and its size.
    std::pair<char*, size_t> room()
    {
        if (m_used == m_data.size()) {
            if (m_used > m_max)
                tooLarge();
            m_data.resize(size_t(std::min<uint64_t>(uint64_t(m_data.size()) * 2, m_max + 1)));
        }
        return { m_data.data() + m_used, m_data.size() - m_used };
    }
    void produced(size_t n)
    {
        m_used += n;
        if (m_used > m_max)
            tooLarge();
    }
    std::string take()
    {
        m_data.resize(m_used);
        m_data.shrink_to_fit();
        return std::move(m_data);
    }

private:
    [[noreturn]] void tooLarge() const
    {
        throw InputError(m_file, "", "decompresses to more than " + formatBytes(m_max) + ", the most allowed");
    }
    const std::string& m_file;
    uint64_t m_max;
    std::string m_data;
    size_t m_used = 0;
};

bool isGzipMagic(std::string_view rest)
{
    return rest.size() >= 2 && uint8_t(rest[0]) == 0x1f && uint8_t(rest[1]) == 0x8b;
}

} // namespace

std::string gunzip(std::string_view data, const std::string& file, uint64_t maxBytes)
{
    if (!isGzipMagic(data))
        throw InputError(file, "byte 0", "not gzip data (no 1f 8b signature)");
    z_stream zs {};
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
        throw InputError(file, "", "cannot start zlib's inflate");
    struct End
    {
        z_stream* zs;
        ~End() { inflateEnd(zs); }
    } end { &zs };
    Output out(file, maxBytes, data.size());
    size_t consumed = 0; // input bytes handed to zlib so far
    while (true) {
        if (zs.avail_in == 0 && consumed < data.size()) {
            const size_t chunk = std::min<size_t>(data.size() - consumed, UINT_MAX);
            zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + consumed));
            zs.avail_in = uInt(chunk);
            consumed += chunk;
        }
        const auto [to, room] = out.room();
        zs.next_out = reinterpret_cast<Bytef*>(to);
        zs.avail_out = uInt(std::min<size_t>(room, UINT_MAX));
        const uInt before = zs.avail_out;
        const int rc = inflate(&zs, Z_NO_FLUSH);
        out.produced(before - zs.avail_out);
        const size_t at = consumed - zs.avail_in; // input position
        if (rc == Z_STREAM_END) {
            const std::string_view rest = data.substr(at);
            if (rest.empty())
                return out.take();
            if (!isGzipMagic(rest))
                throw InputError(file, "byte " + std::to_string(at), "not another gzip member after the first");
            inflateReset(&zs);
            continue;
        }
        if (rc == Z_OK)
            continue;
        if (rc == Z_BUF_ERROR && zs.avail_in == 0 && consumed == data.size())
            throw InputError(file, "byte " + std::to_string(at), "gzip data ends early (truncated)");
        if (rc == Z_BUF_ERROR)
            continue; // output was full; room() grows it
        throw InputError(file, "byte " + std::to_string(at),
            std::string("damaged gzip data: ") + (zs.msg ? zs.msg : "zlib error " + std::to_string(rc)));
    }
}

std::string unxz(std::string_view data, const std::string& file, uint64_t maxBytes)
{
    lzma_stream xs = LZMA_STREAM_INIT;
    // The decoder's own memory (dictionary): xz -9 needs 65 MiB; refuse more than 1 GiB.
    const uint64_t memlimit = uint64_t(1) << 30;
    if (lzma_stream_decoder(&xs, memlimit, LZMA_CONCATENATED) != LZMA_OK)
        throw InputError(file, "", "cannot start liblzma's decoder");
    struct End
    {
        lzma_stream* xs;
        ~End() { lzma_end(xs); }
    } end { &xs };
    Output out(file, maxBytes, data.size());
    xs.next_in = reinterpret_cast<const uint8_t*>(data.data());
    xs.avail_in = data.size();
    while (true) {
        const auto [to, room] = out.room();
        xs.next_out = reinterpret_cast<uint8_t*>(to);
        xs.avail_out = room;
        const lzma_ret rc = lzma_code(&xs, xs.avail_in == 0 ? LZMA_FINISH : LZMA_RUN);
        out.produced(room - xs.avail_out);
        const std::string at = "byte " + std::to_string(data.size() - xs.avail_in);
        switch (rc) {
        case LZMA_OK:
            continue;
        case LZMA_STREAM_END:
            return out.take();
        case LZMA_FORMAT_ERROR:
            throw InputError(file, at, "not xz data (no xz stream header)");
        case LZMA_OPTIONS_ERROR:
            throw InputError(file, at, "xz data with options liblzma does not support");
        case LZMA_MEMLIMIT_ERROR:
            throw InputError(file, at, "xz data whose decoder needs more than 1 GiB of memory");
        case LZMA_BUF_ERROR:
            if (xs.avail_out == 0)
                continue;
            throw InputError(file, at, "xz data ends early (truncated)");
        case LZMA_DATA_ERROR:
            throw InputError(file, at, "damaged xz data");
        default:
            throw InputError(file, at, "damaged xz data (liblzma error " + std::to_string(int(rc)) + ")");
        }
    }
}

std::string lzmaVersion() { return lzma_version_string(); }

} // namespace tgraph
