// SPDX-License-Identifier: Apache-2.0
#include "core/io/npz.h"

#include "core/util/atomicfile.h"
#include "core/util/error.h"
#include "core/util/format.h"
#include "core/util/memorybudget.h"
#include "core/util/progress.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <condition_variable>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <unordered_set>
#include <zlib.h>

namespace tgraph {

namespace {

constexpr uint32_t kLocalHeaderSig = 0x04034b50;
constexpr uint32_t kCentralHeaderSig = 0x02014b50;
constexpr uint32_t kEndOfCentralDirSig = 0x06054b50;
constexpr uint32_t kZip64EndSig = 0x06064b50;
constexpr uint32_t kZip64LocatorSig = 0x07064b50;
constexpr uint16_t kZip64ExtraId = 0x0001;
constexpr uint32_t kMax32 = 0xffffffffu;
constexpr uint16_t kMax16 = 0xffffu;
constexpr size_t kLocalHeaderSize = 30;
constexpr size_t kCentralHeaderSize = 46;
constexpr size_t kEndOfCentralDirSize = 22;
constexpr size_t kIoChunk = 1 << 20; // bytes per read/inflate step (CRC runs on cache-warm data)
constexpr uint64_t kMaxDeflateRatio = 1100; // deflate cannot expand beyond ~1032:1

uint16_t le16(const uint8_t* p) { return uint16_t(p[0] | p[1] << 8); }
uint32_t le32(const uint8_t* p)
{
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
uint64_t le64(const uint8_t* p) { return uint64_t(le32(p)) | uint64_t(le32(p + 4)) << 32; }

void put16(std::string& s, uint16_t v)
{
    s += char(v & 0xff);
    s += char(v >> 8);
}
void put32(std::string& s, uint32_t v)
{
    put16(s, uint16_t(v & 0xffff));
    put16(s, uint16_t(v >> 16));
}
void put64(std::string& s, uint64_t v)
{
    put32(s, uint32_t(v & kMax32));
    put32(s, uint32_t(v >> 32));
}

std::string hex32(uint32_t v)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
}

std::string keyOf(const std::string& memberName)
{
    constexpr std::string_view suffix = ".npy";
    if (memberName.size() >= suffix.size()
        && memberName.compare(memberName.size() - suffix.size(), suffix.size(), suffix) == 0)
        return memberName.substr(0, memberName.size() - suffix.size());
    return memberName;
}

// Reads exactly `size` bytes at `offset` or throws an InputError that says the file is truncated.
void preadExactly(int fd, void* buffer, size_t size, uint64_t offset, const std::string& file, const std::string& place)
{
    auto* out = static_cast<char*>(buffer);
    while (size) {
        const ssize_t got = ::pread(fd, out, std::min<size_t>(size, size_t(1) << 30), off_t(offset));
        if (got < 0) {
            if (errno == EINTR)
                continue;
            throw InputError(file, place, std::string("read failed: ") + std::strerror(errno));
        }
        if (got == 0)
            throw InputError(file, place, "truncated: data ends early at byte offset " + std::to_string(offset));
        out += got;
        size -= size_t(got);
        offset += uint64_t(got);
    }
}

uint32_t crc32Update(uint32_t crc, const void* data, size_t size)
{
    const auto* p = static_cast<const Bytef*>(data);
    while (size) {
        const uInt n = uInt(std::min<size_t>(size, size_t(1) << 30));
        crc = uint32_t(::crc32(crc, p, n));
        p += n;
        size -= n;
    }
    return crc;
}

// Computes the CRC-32 of a buffer that a reader fills front to back, on another thread, so that
// checksumming overlaps with reading or inflating. publish() announces how far the buffer is
// filled; finish() waits for the rest and returns the CRC.
class BackgroundCrc
{
public:
    BackgroundCrc(const uint8_t* base, uint32_t initial)
        : m_base(base)
        , m_crc(initial)
        , m_thread([this] { run(); })
    {
    }
    ~BackgroundCrc()
    {
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_one();
        m_thread.join();
    }
    void publish(size_t available)
    {
        {
            std::lock_guard lock(m_mutex);
            m_available = available;
        }
        m_wake.notify_one();
    }
    uint32_t finish(size_t total)
    {
        publish(total);
        std::unique_lock lock(m_mutex);
        m_done.wait(lock, [&] { return m_processed == total; });
        return m_crc;
    }

private:
    void run()
    {
        std::unique_lock lock(m_mutex);
        for (;;) {
            m_wake.wait(lock, [&] { return m_stop || m_available > m_processed; });
            if (m_available == m_processed && m_stop)
                return;
            const size_t from = m_processed;
            const size_t to = m_available;
            lock.unlock();
            uint32_t crc = m_crc;
            crc = crc32Update(crc, m_base + from, to - from);
            lock.lock();
            m_crc = crc;
            m_processed = to;
            m_done.notify_all();
            if (m_stop)
                return;
        }
    }

    const uint8_t* m_base;
    uint32_t m_crc;
    size_t m_available = 0;
    size_t m_processed = 0;
    bool m_stop = false;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_done;
    std::thread m_thread;
};

constexpr size_t kBackgroundCrcMin = 8 << 20; // smaller reads checksum inline

} // namespace

// ---------------------------------------------------------------------------------------------
// Reading

class NpzReader::MemberStream
{
public:
    MemberStream(const NpzReader& reader, const ZipMember& member)
        : m_reader(reader)
        , m_member(member)
        , m_place(keyOf(member.name))
    {
        if (member.flags & 0x1)
            fail("encrypted zip members are not supported");
        if (member.method != 0 && member.method != 8)
            fail("zip compression method " + std::to_string(member.method)
                + " is not supported (only stored and deflated, as numpy writes)");
        if (member.localHeaderOffset > reader.m_fileSize
            || reader.m_fileSize - member.localHeaderOffset < kLocalHeaderSize)
            fail("truncated: local header at offset " + std::to_string(member.localHeaderOffset)
                + " lies beyond the end of the file");
        uint8_t header[kLocalHeaderSize];
        preadExactly(reader.m_fd, header, sizeof header, member.localHeaderOffset, reader.m_path, m_place);
        if (le32(header) != kLocalHeaderSig)
            fail("bad zip local header signature at offset " + std::to_string(member.localHeaderOffset));
        m_dataStart = member.localHeaderOffset + kLocalHeaderSize + le16(header + 26) + le16(header + 28);
        if (m_dataStart > reader.m_fileSize || reader.m_fileSize - m_dataStart < member.compressedSize)
            fail("truncated: member data (" + std::to_string(member.compressedSize) + " bytes at offset "
                + std::to_string(m_dataStart) + ") runs past the end of the file (" + std::to_string(reader.m_fileSize)
                + " bytes)");
        m_compressedLeft = member.compressedSize;
        if (member.method == 0) {
            if (member.compressedSize != member.uncompressedSize)
                fail("stored member has different compressed and uncompressed sizes");
        } else {
            if (member.uncompressedSize > member.compressedSize * kMaxDeflateRatio + 1024)
                fail("recorded size " + std::to_string(member.uncompressedSize) + " is impossible for "
                    + std::to_string(member.compressedSize) + " bytes of deflate data");
            std::memset(&m_zs, 0, sizeof m_zs);
            if (inflateInit2(&m_zs, -MAX_WBITS) != Z_OK)
                fail("cannot initialise zlib");
            m_inflating = true;
            m_input.resize(kIoChunk);
        }
    }

    ~MemberStream()
    {
        if (m_inflating)
            inflateEnd(&m_zs);
    }

    [[noreturn]] void fail(const std::string& problem) const { throw InputError(m_reader.m_path, m_place, problem); }
    const std::string& place() const { return m_place; }
    uint64_t produced() const { return m_produced; }
    uint64_t size() const { return m_member.uncompressedSize; }

    // Reads up to `size` bytes of member data; returns fewer only at the end of the member.
    size_t read(void* buffer, size_t size)
    {
        size = size_t(std::min<uint64_t>(size, m_member.uncompressedSize - m_produced));
        auto* out = static_cast<uint8_t*>(buffer);
        size_t done = 0;
        if (!m_inflating) {
            while (done < size) {
                const size_t n = std::min(size - done, kIoChunk);
                preadExactly(m_reader.m_fd, out + done, n, m_dataStart + m_produced, m_reader.m_path, m_place);
                if (!m_crcSuspended)
                    m_crc = crc32Update(m_crc, out + done, n);
                done += n;
                m_produced += n;
            }
            return done;
        }
        while (done < size && !m_streamEnd) {
            if (m_zs.avail_in == 0)
                refill();
            const size_t want = std::min(size - done, kIoChunk);
            m_zs.next_out = out + done;
            m_zs.avail_out = uInt(want);
            const int ret = inflate(&m_zs, Z_NO_FLUSH);
            const size_t got = want - m_zs.avail_out;
            if (!m_crcSuspended)
                m_crc = crc32Update(m_crc, out + done, got);
            done += got;
            m_produced += got;
            if (ret == Z_STREAM_END) {
                m_streamEnd = true;
            } else if (ret == Z_DATA_ERROR || ret == Z_NEED_DICT) {
                fail(std::string("corrupt deflate data: ") + (m_zs.msg ? m_zs.msg : "invalid stream"));
            } else if (ret == Z_MEM_ERROR) {
                throw std::bad_alloc();
            } else if (ret == Z_BUF_ERROR && got == 0 && m_zs.avail_in == 0 && m_compressedLeft == 0) {
                fail("truncated deflate stream: compressed data ends before the member is complete");
            }
        }
        return done;
    }

    // Reads exactly `size` bytes into `buffer`, which the caller keeps untouched until finish():
    // large reads checksum on a second thread while this one reads or inflates.
    void readInto(void* buffer, size_t size, const char* what, ProgressScope& progress)
    {
        auto* dst = static_cast<uint8_t*>(buffer);
        std::unique_ptr<BackgroundCrc> crc;
        if (size >= kBackgroundCrcMin)
            crc = std::make_unique<BackgroundCrc>(dst, m_crc);
        m_crcSuspended = crc != nullptr;
        for (size_t done = 0; done < size;) {
            const size_t n = std::min(size - done, 16 * kIoChunk);
            readExactly(dst + done, n, what);
            done += n;
            if (crc)
                crc->publish(done);
            progress.advanceTo(progress.done() + n);
        }
        if (crc)
            m_crc = crc->finish(size);
        m_crcSuspended = false;
    }

    void readExactly(void* buffer, size_t size, const char* what)
    {
        if (read(buffer, size) != size)
            fail(std::string("member ends inside the ") + what + " (" + std::to_string(m_member.uncompressedSize)
                + " bytes in all)");
    }

    // Checks that the whole member was consumed with the recorded size and CRC-32.
    void finish()
    {
        if (m_produced != m_member.uncompressedSize)
            fail("only " + std::to_string(m_produced) + " of " + std::to_string(m_member.uncompressedSize)
                + " bytes were read");
        if (m_inflating && !m_streamEnd) {
            uint8_t extra;
            if (m_zs.avail_in == 0)
                refill();
            m_zs.next_out = &extra;
            m_zs.avail_out = 1;
            const int ret = inflate(&m_zs, Z_NO_FLUSH);
            if (m_zs.avail_out == 0)
                fail("member inflates to more than its recorded size of " + std::to_string(m_member.uncompressedSize)
                    + " bytes");
            if (ret != Z_STREAM_END)
                fail("truncated or corrupt deflate stream at the end of the member");
        }
        if (m_crc != m_member.crc32)
            fail("CRC-32 mismatch (recorded " + hex32(m_member.crc32) + ", computed " + hex32(m_crc)
                + "): the member is corrupt");
    }

private:
    void refill()
    {
        const size_t n = size_t(std::min<uint64_t>(m_compressedLeft, m_input.size()));
        if (n) {
            preadExactly(m_reader.m_fd, m_input.data(), n, m_dataStart + (m_member.compressedSize - m_compressedLeft),
                m_reader.m_path, m_place);
            m_compressedLeft -= n;
        }
        m_zs.next_in = m_input.data();
        m_zs.avail_in = uInt(n);
    }

    const NpzReader& m_reader;
    const ZipMember& m_member;
    std::string m_place;
    uint64_t m_dataStart = 0;
    uint64_t m_compressedLeft = 0;
    uint64_t m_produced = 0;
    uint32_t m_crc = 0;
    bool m_crcSuspended = false; // a BackgroundCrc covers the bytes being read
    bool m_inflating = false;
    bool m_streamEnd = false;
    z_stream m_zs;
    std::vector<uint8_t> m_input;
};

NpyHeader NpzReader::readNpyHeader(MemberStream& stream) const
{
    const std::string& file = m_path;
    std::byte preamble[kNpyPreambleBytes];
    const size_t got = stream.read(preamble, sizeof preamble);
    const uint64_t headerSize = npyHeaderSize(preamble, got, file, stream.place());
    if (headerSize > stream.size())
        stream.fail("member (" + std::to_string(stream.size()) + " bytes) is smaller than its npy header ("
            + std::to_string(headerSize) + " bytes)");
    // A version 1.0 header may declare fewer bytes than the preamble read (length 0 or 1): copy
    // only what belongs to it (the dictionary it cannot hold is refused by parseNpyHeader).
    std::vector<std::byte> header(static_cast<size_t>(headerSize));
    std::memcpy(header.data(), preamble, size_t(std::min<uint64_t>(got, headerSize)));
    if (headerSize > got)
        stream.readExactly(header.data() + got, size_t(headerSize - got), "npy header");
    NpyHeader h = parseNpyHeader(header.data(), header.size(), file, stream.place());
    const uint64_t expected = h.headerBytes + h.dataBytes();
    if (expected != stream.size())
        stream.fail("npy header lies about the size: shape " + shapeToString(h.shape) + " of " + h.dtype.name()
            + " needs " + std::to_string(h.dataBytes()) + " bytes of data but the member holds "
            + std::to_string(stream.size() - h.headerBytes));
    // A deflated member may declare up to ~1000 times its compressed size (a few MiB of zeros
    // inflate to gigabytes): the declared array must fit the memory budget before it is allocated.
    const uint64_t budget = memoryBudgetBytes();
    if (h.dataBytes() > budget)
        stream.fail("shape " + shapeToString(h.shape) + " of " + h.dtype.name() + " declares " + formatBytes(h.dataBytes())
            + ", more than " + describeMemoryBudget(budget));
    return h;
}

NpzReader::NpzReader(std::string path)
    : m_path(std::move(path))
{
    m_fd = ::open(m_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (m_fd < 0)
        throw InputError(m_path, "", std::string("cannot open: ") + std::strerror(errno));
    struct stat st
    { };
    if (::fstat(m_fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(m_fd);
        throw InputError(m_path, "", "not a regular file");
    }
    m_fileSize = uint64_t(st.st_size);
    try {
        readCentralDirectory();
    } catch (...) {
        ::close(m_fd);
        throw;
    }
}

NpzReader::~NpzReader()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

void NpzReader::readCentralDirectory()
{
    const std::string notZip
        = "not a zip archive: no end-of-central-directory record (the file is truncated or not an .npz)";
    if (m_fileSize < kEndOfCentralDirSize)
        throw InputError(m_path, "", notZip);
    const uint64_t tailSize = std::min<uint64_t>(m_fileSize, kEndOfCentralDirSize + 0xffff);
    const uint64_t tailStart = m_fileSize - tailSize;
    std::vector<uint8_t> tail(tailSize);
    preadExactly(m_fd, tail.data(), tail.size(), tailStart, m_path, "zip end record");
    int64_t eocd = -1;
    for (int64_t pos = int64_t(tailSize - kEndOfCentralDirSize); pos >= 0; --pos) {
        if (le32(&tail[size_t(pos)]) == kEndOfCentralDirSig
            && uint64_t(pos) + kEndOfCentralDirSize + le16(&tail[size_t(pos) + 20]) <= tailSize) {
            eocd = pos;
            break;
        }
    }
    if (eocd < 0)
        throw InputError(m_path, "", notZip);
    const uint8_t* e = &tail[size_t(eocd)];
    uint64_t diskNumber = le16(e + 4);
    uint64_t cdDisk = le16(e + 6);
    uint64_t entries = le16(e + 10);
    uint64_t cdSize = le32(e + 12);
    uint64_t cdOffset = le32(e + 16);
    const uint64_t eocdOffset = tailStart + uint64_t(eocd);
    if (eocdOffset >= 20) {
        uint8_t locator[20];
        preadExactly(m_fd, locator, sizeof locator, eocdOffset - 20, m_path, "zip64 locator");
        if (le32(locator) == kZip64LocatorSig) {
            const uint64_t z64Offset = le64(locator + 8);
            if (z64Offset > m_fileSize || m_fileSize - z64Offset < 56)
                throw InputError(
                    m_path, "zip64 end record", "offset " + std::to_string(z64Offset) + " beyond end of file");
            uint8_t z[56];
            preadExactly(m_fd, z, sizeof z, z64Offset, m_path, "zip64 end record");
            if (le32(z) != kZip64EndSig)
                throw InputError(m_path, "zip64 end record", "bad signature");
            diskNumber = le32(z + 16);
            cdDisk = le32(z + 20);
            entries = le64(z + 32);
            cdSize = le64(z + 40);
            cdOffset = le64(z + 48);
        }
    }
    if (diskNumber != 0 || cdDisk != 0)
        throw InputError(m_path, "", "multi-disk zip archives are not supported");
    if (cdOffset > m_fileSize || cdSize > m_fileSize - cdOffset)
        throw InputError(m_path, "zip central directory",
            "truncated: " + std::to_string(cdSize) + " bytes at offset " + std::to_string(cdOffset)
                + " run past the end of the file (" + std::to_string(m_fileSize) + " bytes)");
    if (entries > cdSize / kCentralHeaderSize)
        throw InputError(m_path, "zip central directory",
            std::to_string(entries) + " entries cannot fit in " + std::to_string(cdSize) + " bytes");

    std::vector<uint8_t> cd(cdSize);
    preadExactly(m_fd, cd.data(), cd.size(), cdOffset, m_path, "zip central directory");
    size_t pos = 0;
    m_members.reserve(entries);
    std::unordered_set<std::string> names;
    for (uint64_t i = 0; i < entries; ++i) {
        const std::string place = "zip central directory entry " + std::to_string(i);
        if (cd.size() - pos < kCentralHeaderSize || le32(&cd[pos]) != kCentralHeaderSig)
            throw InputError(m_path, place, "bad central directory header");
        const uint8_t* h = &cd[pos];
        ZipMember m;
        m.flags = le16(h + 8);
        m.method = le16(h + 10);
        m.crc32 = le32(h + 16);
        m.compressedSize = le32(h + 20);
        m.uncompressedSize = le32(h + 24);
        const size_t nameLen = le16(h + 28);
        const size_t extraLen = le16(h + 30);
        const size_t commentLen = le16(h + 32);
        const uint32_t diskStart = le16(h + 34);
        m.localHeaderOffset = le32(h + 42);
        if (cd.size() - pos - kCentralHeaderSize < nameLen + extraLen + commentLen)
            throw InputError(m_path, place, "entry runs past the end of the central directory");
        m.name.assign(reinterpret_cast<const char*>(h + kCentralHeaderSize), nameLen);
        const uint8_t* extra = h + kCentralHeaderSize + nameLen;
        for (size_t x = 0; x + 4 <= extraLen;) {
            const uint16_t id = le16(extra + x);
            const uint16_t len = le16(extra + x + 2);
            if (x + 4 + len > extraLen)
                throw InputError(m_path, place + " (" + m.name + ")", "malformed extra field");
            if (id == kZip64ExtraId) {
                const uint8_t* f = extra + x + 4;
                size_t left = len;
                auto take = [&](uint64_t& value) {
                    if (left < 8)
                        throw InputError(m_path, place + " (" + m.name + ")", "short zip64 extra field");
                    value = le64(f);
                    f += 8;
                    left -= 8;
                };
                if (m.uncompressedSize == kMax32)
                    take(m.uncompressedSize);
                if (m.compressedSize == kMax32)
                    take(m.compressedSize);
                if (m.localHeaderOffset == kMax32)
                    take(m.localHeaderOffset);
            }
            x += 4 + len;
        }
        if (diskStart != 0 && diskStart != kMax16)
            throw InputError(m_path, place, "multi-disk zip archives are not supported");
        if (!names.insert(m.name).second)
            throw InputError(m_path, place, "duplicate member '" + m.name + "'");
        m_members.push_back(std::move(m));
        pos += kCentralHeaderSize + nameLen + extraLen + commentLen;
    }
}

std::vector<std::string> NpzReader::keys() const
{
    std::vector<std::string> k;
    k.reserve(m_members.size());
    for (const auto& m : m_members)
        k.push_back(keyOf(m.name));
    return k;
}

bool NpzReader::contains(std::string_view key) const
{
    return std::any_of(m_members.begin(), m_members.end(), [&](const ZipMember& m) { return keyOf(m.name) == key; });
}

const ZipMember& NpzReader::findMember(std::string_view key) const
{
    for (const auto& m : m_members)
        if (keyOf(m.name) == key)
            return m;
    throw InputError(m_path, std::string(key), "array is missing from the archive");
}

const ZipMember& NpzReader::member(std::string_view key) const { return findMember(key); }

NpyHeader NpzReader::header(std::string_view key)
{
    MemberStream stream(*this, findMember(key));
    return readNpyHeader(stream);
}

NpyArray NpzReader::readRaw(std::string_view key, ProgressSink* progress)
{
    MemberStream stream(*this, findMember(key));
    NpyArray a;
    a.header = readNpyHeader(stream);
    const uint64_t bytes = a.header.dataBytes();
    a.data.resize(size_t(bytes));
    ProgressScope scope(progress, std::string("reading ") + std::string(key), bytes);
    stream.readInto(a.data.data(), size_t(bytes), "array data", scope);
    stream.finish();
    return a;
}

template <class T> NdArray<T> NpzReader::read(std::string_view key, ProgressSink* progress)
{
    MemberStream stream(*this, findMember(key));
    const NpyHeader h = readNpyHeader(stream);
    const uint64_t bytes = h.dataBytes();
    ProgressScope scope(progress, std::string("reading ") + std::string(key), bytes);
    const bool native = h.dtype == dtypeOf<T>();
    const bool cOrder = !h.fortranOrder || h.shape.size() <= 1;
    // Fortran-ordered arrays are read in storage order (= C order of the reversed shape), then reordered.
    std::vector<int64_t> storageShape = cOrder ? h.shape : std::vector<int64_t>(h.shape.rbegin(), h.shape.rend());
    const uint64_t converted = uint64_t(shapeElementCount(h.shape)) * sizeof(T) * (cOrder ? 1 : 2);
    if (converted > bytes) { // read as a wider type (or reordered): the header check saw less
        const uint64_t budget = memoryBudgetBytes();
        if (converted > budget)
            stream.fail("shape " + shapeToString(h.shape) + " read as " + dtypeOf<T>().name() + " needs "
                + formatBytes(converted) + ", more than " + describeMemoryBudget(budget));
    }
    NdArray<T> out(storageShape);
    if (native) {
        stream.readInto(out.data(), size_t(bytes), "array data", scope);
    } else {
        const size_t item = h.dtype.itemSize();
        std::vector<std::byte> chunk((kIoChunk / item) * item);
        const uint64_t count = uint64_t(out.size());
        for (uint64_t index = 0; index < count;) {
            const size_t n = size_t(std::min<uint64_t>(count - index, chunk.size() / item));
            stream.readExactly(chunk.data(), n * item, "array data");
            convertElements<T>(
                chunk.data(), h.dtype, out.data() + index, n, index, m_path, std::string(key), &storageShape);
            index += n;
            scope.advanceTo(index * item);
        }
    }
    stream.finish();
    if (cOrder)
        return out;
    NdArray<T> c(h.shape);
    fortranToC(
        reinterpret_cast<const std::byte*>(out.data()), reinterpret_cast<std::byte*>(c.data()), h.shape, sizeof(T));
    return c;
}

// ---------------------------------------------------------------------------------------------
// Writing

class NpzWriter::MemberSink
{
public:
    explicit MemberSink(int level)
        : m_level(level)
    { }
    ~MemberSink()
    {
        if (m_deflating)
            deflateEnd(&m_zs);
    }
    ZipMember member;
    uint32_t crc = 0;
    bool deflate = false;
    int m_level;
    bool m_deflating = false;
    z_stream m_zs;
    std::vector<uint8_t> out;
};

NpzWriter::NpzWriter(std::string path, NpzCompression compression, int level)
    : m_path(std::move(path))
    , m_compression(compression)
    , m_level(level)
    , m_file(std::make_unique<AtomicFile>(m_path))
{ }

void NpzWriter::setProgress(ProgressSink* progress, uint64_t totalBytes)
{
    m_progress = progress;
    if (m_progress)
        m_progress->begin("writing " + m_path, totalBytes);
}

NpzWriter::~NpzWriter()
{
    if (m_progress)
        m_progress->end();
} // m_file removes the temporary file unless committed

void NpzWriter::writeRaw(const void* data, size_t size) { m_file->write(data, size); }

void NpzWriter::beginMember(const std::string& name)
{
    if (m_committed)
        throw std::logic_error("NpzWriter: add() after commit()");
    if (!m_names.insert(name).second)
        throw std::invalid_argument("NpzWriter: duplicate member '" + name + "'");
    if (name.size() > kMax16)
        throw std::invalid_argument("NpzWriter: key too long");
    m_sink = std::make_unique<MemberSink>(m_level);
    m_sink->member.name = name;
    m_sink->member.method = m_compression == NpzCompression::Deflated ? 8 : 0;
    m_sink->member.localHeaderOffset = m_file->size();
    m_sink->deflate = m_compression == NpzCompression::Deflated;
    if (m_sink->deflate) {
        std::memset(&m_sink->m_zs, 0, sizeof m_sink->m_zs);
        if (deflateInit2(&m_sink->m_zs, m_level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
            throw std::runtime_error("cannot initialise zlib deflate");
        m_sink->m_deflating = true;
        m_sink->out.resize(kIoChunk);
    }
    // Local header with a zip64 extra field holding both sizes (as numpy's zipfile does with
    // force_zip64), patched with the real CRC and sizes once the data is written.
    std::string h;
    put32(h, kLocalHeaderSig);
    put16(h, 45); // version needed: zip64
    put16(h, 0); // flags
    put16(h, m_sink->member.method);
    put16(h, 0); // time 00:00:00
    put16(h, 0x0021); // date 1980-01-01
    put32(h, 0); // crc, patched
    put32(h, 0); // compressed size, patched
    put32(h, 0); // uncompressed size, patched
    put16(h, uint16_t(name.size()));
    put16(h, 20);
    h += name;
    put16(h, kZip64ExtraId);
    put16(h, 16);
    put64(h, 0);
    put64(h, 0);
    writeRaw(h.data(), h.size());
}

void NpzWriter::writeMemberBytes(const void* data, size_t size)
{
    MemberSink& s = *m_sink;
    const auto* p = static_cast<const uint8_t*>(data);
    while (size) {
        const size_t n = std::min(size, kIoChunk);
        s.crc = crc32Update(s.crc, p, n);
        s.member.uncompressedSize += n;
        if (!s.deflate) {
            writeRaw(p, n);
            s.member.compressedSize += n;
        } else {
            s.m_zs.next_in = const_cast<Bytef*>(p);
            s.m_zs.avail_in = uInt(n);
            while (s.m_zs.avail_in) {
                s.m_zs.next_out = s.out.data();
                s.m_zs.avail_out = uInt(s.out.size());
                ::deflate(&s.m_zs, Z_NO_FLUSH);
                const size_t produced = s.out.size() - s.m_zs.avail_out;
                writeRaw(s.out.data(), produced);
                s.member.compressedSize += produced;
            }
        }
        p += n;
        size -= n;
        m_bytesIn += n;
        if (m_progress)
            m_progress->checkpoint(m_bytesIn);
    }
}

void NpzWriter::endMember()
{
    MemberSink& s = *m_sink;
    if (s.deflate) {
        int ret;
        do {
            s.m_zs.next_out = s.out.data();
            s.m_zs.avail_out = uInt(s.out.size());
            ret = ::deflate(&s.m_zs, Z_FINISH);
            const size_t produced = s.out.size() - s.m_zs.avail_out;
            writeRaw(s.out.data(), produced);
            s.member.compressedSize += produced;
        } while (ret == Z_OK);
        if (ret != Z_STREAM_END)
            throw std::runtime_error("zlib deflate failed");
    }
    s.member.crc32 = s.crc;
    std::string patch;
    put32(patch, s.crc);
    put32(patch, uint32_t(std::min<uint64_t>(s.member.compressedSize, kMax32)));
    put32(patch, uint32_t(std::min<uint64_t>(s.member.uncompressedSize, kMax32)));
    std::string sizes;
    put64(sizes, s.member.uncompressedSize);
    put64(sizes, s.member.compressedSize);
    const uint64_t at = s.member.localHeaderOffset;
    m_file->writeAt(at + 14, patch.data(), patch.size());
    m_file->writeAt(at + kLocalHeaderSize + s.member.name.size() + 4, sizes.data(), sizes.size());
    m_written.push_back(s.member);
    m_sink.reset();
}

void NpzWriter::add(const std::string& key, const NpyArray& array)
{
    if (array.data.size() != array.header.dataBytes())
        throw std::invalid_argument("NpzWriter: array '" + key + "' data size does not match its header");
    beginMember(key + ".npy");
    const std::string header = makeNpyHeader(array.header.dtype, array.header.shape, array.header.fortranOrder);
    writeMemberBytes(header.data(), header.size());
    writeMemberBytes(array.data.data(), array.data.size());
    endMember();
}

void NpzWriter::addFile(const std::string& name, const void* data, size_t size)
{
    beginMember(name);
    writeMemberBytes(data, size);
    endMember();
}

template <class T> void NpzWriter::add(const std::string& key, const NdArray<T>& array, const DType& storeAs)
{
    beginMember(key + ".npy");
    const std::string header = makeNpyHeader(storeAs, array.shape(), false);
    writeMemberBytes(header.data(), header.size());
    if (storeAs == dtypeOf<T>()) {
        writeMemberBytes(array.data(), size_t(array.size()) * sizeof(T));
    } else {
        const size_t item = storeAs.itemSize();
        std::vector<std::byte> chunk((kIoChunk / item) * item);
        const size_t perChunk = chunk.size() / item;
        for (int64_t i = 0; i < array.size();) {
            const size_t n = std::min<size_t>(size_t(array.size() - i), perChunk);
            try {
                storeElements(array.data() + i, n, storeAs, chunk.data());
            } catch (const std::range_error& e) {
                throw std::range_error("NpzWriter: array '" + key + "': " + e.what() + " (" + storeAs.name() + ")");
            }
            writeMemberBytes(chunk.data(), n * item);
            i += int64_t(n);
        }
    }
    endMember();
}

void NpzWriter::commit()
{
    if (m_committed)
        return;
    const uint64_t cdOffset = m_file->size();
    std::string cd;
    for (const auto& m : m_written) {
        std::string extra;
        const bool bigU = m.uncompressedSize >= kMax32;
        const bool bigC = m.compressedSize >= kMax32;
        const bool bigO = m.localHeaderOffset >= kMax32;
        if (bigU || bigC || bigO) {
            std::string fields;
            if (bigU)
                put64(fields, m.uncompressedSize);
            if (bigC)
                put64(fields, m.compressedSize);
            if (bigO)
                put64(fields, m.localHeaderOffset);
            put16(extra, kZip64ExtraId);
            put16(extra, uint16_t(fields.size()));
            extra += fields;
        }
        put32(cd, kCentralHeaderSig);
        put16(cd, 0x0314); // made by: unix, spec 2.0 (as Python's zipfile)
        put16(cd, 45);
        put16(cd, 0);
        put16(cd, m.method);
        put16(cd, 0);
        put16(cd, 0x0021);
        put32(cd, m.crc32);
        put32(cd, bigC ? kMax32 : uint32_t(m.compressedSize));
        put32(cd, bigU ? kMax32 : uint32_t(m.uncompressedSize));
        put16(cd, uint16_t(m.name.size()));
        put16(cd, uint16_t(extra.size()));
        put16(cd, 0); // comment
        put16(cd, 0); // disk
        put16(cd, 0); // internal attributes
        put32(cd, 0644u << 16); // external attributes: rw-r--r--
        put32(cd, bigO ? kMax32 : uint32_t(m.localHeaderOffset));
        cd += m.name;
        cd += extra;
    }
    const uint64_t cdSize = cd.size();
    const uint64_t entries = m_written.size();
    if (entries >= kMax16 || cdOffset >= kMax32 || cdSize >= kMax32) {
        const uint64_t z64Offset = cdOffset + cdSize;
        put32(cd, kZip64EndSig);
        put64(cd, 44); // size of the rest of this record
        put16(cd, 0x0314);
        put16(cd, 45);
        put32(cd, 0);
        put32(cd, 0);
        put64(cd, entries);
        put64(cd, entries);
        put64(cd, cdSize);
        put64(cd, cdOffset);
        put32(cd, kZip64LocatorSig);
        put32(cd, 0);
        put64(cd, z64Offset);
        put32(cd, 1);
    }
    put32(cd, kEndOfCentralDirSig);
    put16(cd, 0);
    put16(cd, 0);
    put16(cd, uint16_t(std::min<uint64_t>(entries, kMax16)));
    put16(cd, uint16_t(std::min<uint64_t>(entries, kMax16)));
    put32(cd, uint32_t(std::min<uint64_t>(cdSize, kMax32)));
    put32(cd, uint32_t(std::min<uint64_t>(cdOffset, kMax32)));
    put16(cd, 0);
    writeRaw(cd.data(), cd.size());
    m_file->commit();
    m_committed = true;
}

#define TGRAPH_INSTANTIATE(T)                                                                                          \
    template NdArray<T> NpzReader::read<T>(std::string_view, ProgressSink*);                                           \
    template void NpzWriter::add<T>(const std::string&, const NdArray<T>&, const DType&);
TGRAPH_INSTANTIATE(bool)
TGRAPH_INSTANTIATE(int8_t)
TGRAPH_INSTANTIATE(uint8_t)
TGRAPH_INSTANTIATE(int16_t)
TGRAPH_INSTANTIATE(uint16_t)
TGRAPH_INSTANTIATE(int32_t)
TGRAPH_INSTANTIATE(uint32_t)
TGRAPH_INSTANTIATE(int64_t)
TGRAPH_INSTANTIATE(uint64_t)
TGRAPH_INSTANTIATE(float)
TGRAPH_INSTANTIATE(double)
#undef TGRAPH_INSTANTIATE

std::string zlibVersion() { return ::zlibVersion(); }

} // namespace tgraph
