// SPDX-License-Identifier: Apache-2.0
#include "core/dump/dumpname.h"

#include <charconv>

namespace tgraph {

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isLower(char c) { return c >= 'a' && c <= 'z'; }

bool allDigits(std::string_view s)
{
    if (s.empty())
        return false;
    for (char c : s)
        if (!isDigit(c))
            return false;
    return true;
}

template <class T> bool parseNumber(std::string_view s, T* out)
{
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
    return ec == std::errc() && end == s.data() + s.size();
}

// `s` minus ".tail" (or "" when s is the tail itself).
std::string_view headBefore(std::string_view s, std::string_view tail)
{
    return s.size() > tail.size() ? s.substr(0, s.size() - tail.size() - 1) : std::string_view();
}

// True when s is `tail` or ends with ".tail".
bool isTail(std::string_view s, std::string_view tail)
{
    return s == tail || (s.size() > tail.size() && s.ends_with(tail) && s[s.size() - tail.size() - 1] == '.');
}

// What a stage suffix says, and the "NAME[.cl_CL]" before it.
struct StageParse
{
    std::string_view head;
    DumpStageKind kind = DumpStageKind::BeforeOptimizations;
    std::string_view stage;
    int64_t index = -1;
    std::string_view backend;
    std::string_view pipeline;
    std::string_view pass;
    std::string_view nextPass;
    std::string_view step;
};

// "sm_" followed by digits: the first half of CUDA's "sm_7.0_gpu_" (the compute capability holds a dot).
bool isSmMajor(std::string_view s) { return s.size() > 3 && s.starts_with("sm_") && allDigits(s.substr(3)); }

// "0_gpu_", "0a_gpu_": the second half.
bool isSmMinorGpu(std::string_view s)
{
    if (!s.ends_with("_gpu_"))
        return false;
    s.remove_suffix(5);
    size_t k = 0;
    while (k < s.size() && isDigit(s[k]))
        ++k;
    if (k == 0)
        return false;
    for (; k < s.size(); ++k)
        if (!isLower(s[k]))
            return false;
    return true;
}

// [BACKEND_]after_optimizations[_before_buffer_assignment|_after_buffer_assignment] at the end.
std::optional<StageParse> parseAfterOptimizations(std::string_view stem)
{
    static constexpr std::string_view kAfter = "after_optimizations";
    const size_t p = stem.rfind(kAfter);
    if (p == std::string_view::npos)
        return std::nullopt;
    const std::string_view tail = stem.substr(p + kAfter.size());
    StageParse s;
    if (tail.empty())
        s.kind = DumpStageKind::AfterOptimizations;
    else if (tail == "_before_buffer_assignment")
        s.kind = DumpStageKind::AfterOptimizationsBeforeBufferAssignment;
    else if (tail == "_after_buffer_assignment")
        s.kind = DumpStageKind::AfterOptimizationsAfterBufferAssignment;
    else
        return std::nullopt;
    const std::string_view pre = stem.substr(0, p);
    size_t stageStart = p;
    if (pre.empty()) {
        s.head = {};
    } else if (pre.back() == '.') {
        s.head = pre.substr(0, pre.size() - 1);
    } else if (pre.back() == '_') {
        // The backend is the last dot-separated part before "after_optimizations", or the last two
        // for CUDA's "sm_MAJOR.MINOR_gpu_".
        size_t q = pre.rfind('.');
        if (q != std::string_view::npos && isSmMinorGpu(pre.substr(q + 1))) {
            const size_t q2 = q == 0 ? std::string_view::npos : pre.rfind('.', q - 1);
            const size_t majorStart = q2 == std::string_view::npos ? 0 : q2 + 1;
            if (isSmMajor(pre.substr(majorStart, q - majorStart)))
                q = q2;
        }
        stageStart = q == std::string_view::npos ? 0 : q + 1;
        s.head = q == std::string_view::npos ? std::string_view() : pre.substr(0, q);
        s.backend = pre.substr(stageStart, pre.size() - stageStart - 1);
    } else {
        return std::nullopt;
    }
    s.stage = stem.substr(stageStart);
    return s;
}

// NNNN.PIPELINE.after_PASS.before_NEXT or NNNN.PASS.STEP, the rightmost "NNNN." (4 digits or more,
// at the start or after a '.') that has a non-empty PIPELINE/PASS and something after it.
std::optional<StageParse> parsePassStage(std::string_view stem)
{
    size_t nextDot = std::string_view::npos; // the first '.' after the one being looked at
    for (size_t d = stem.rfind('.'); d != std::string_view::npos;
         d = d == 0 ? std::string_view::npos : stem.rfind('.', d - 1)) {
        const size_t after = nextDot;
        nextDot = d;
        size_t s = d;
        while (s > 0 && isDigit(stem[s - 1]))
            --s;
        const size_t digits = d - s;
        if (digits < 4 || digits > 18 || (s > 0 && stem[s - 1] != '.'))
            continue;
        // the body after "NNNN." needs a first part and, after its '.', a second one
        if (after == std::string_view::npos || after == d + 1 || after + 1 >= stem.size())
            continue;
        StageParse p;
        p.head = s == 0 ? std::string_view() : stem.substr(0, s - 1);
        p.stage = stem.substr(s);
        parseNumber(stem.substr(s, digits), &p.index);
        const std::string_view body = stem.substr(d + 1);
        const size_t a = body.find(".after_");
        if (a != std::string_view::npos && a > 0) {
            const std::string_view rest = body.substr(a + 7);
            const size_t b = rest.rfind(".before_");
            if (b != std::string_view::npos && b > 0 && b + 8 < rest.size()) {
                p.kind = DumpStageKind::Pass;
                p.pipeline = body.substr(0, a);
                p.pass = rest.substr(0, b);
                p.nextPass = rest.substr(b + 8);
                return p;
            }
        }
        const size_t first = body.find('.');
        p.kind = DumpStageKind::DuringPass;
        p.pass = body.substr(0, first);
        p.step = body.substr(first + 1);
        return p;
    }
    return std::nullopt;
}

bool isStageWordChar(char c) { return isDigit(c) || isLower(c) || (c >= 'A' && c <= 'Z') || c == '_' || c == '-'; }

std::optional<StageParse> parseStage(std::string_view stem)
{
    if (isTail(stem, "before_optimizations")) {
        StageParse s;
        s.kind = DumpStageKind::BeforeOptimizations;
        s.head = headBefore(stem, "before_optimizations");
        s.stage = stem.substr(stem.size() - 20);
        return s;
    }
    if (auto s = parseAfterOptimizations(stem))
        return s;
    if (auto s = parsePassStage(stem))
        return s;
    // A stage another dumper named before_X or after_X (one word, no dots).
    const size_t q = stem.rfind('.');
    const std::string_view last = q == std::string_view::npos ? stem : stem.substr(q + 1);
    const bool named
        = (last.starts_with("before_") && last.size() > 7) || (last.starts_with("after_") && last.size() > 6);
    if (!named)
        return std::nullopt;
    for (char c : last)
        if (!isStageWordChar(c))
            return std::nullopt;
    StageParse s;
    s.kind = DumpStageKind::Named;
    s.head = q == std::string_view::npos ? std::string_view() : stem.substr(0, q);
    s.stage = last;
    return s;
}

// "NAME.cl_NNN" or "cl_NNN" -> NAME and NNN.
void splitChangelist(std::string_view head, DumpFileName& out)
{
    const size_t q = head.rfind('.');
    const std::string_view last = q == std::string_view::npos ? head : head.substr(q + 1);
    if (last.size() > 3 && last.starts_with("cl_") && allDigits(last.substr(3))) {
        out.changelist = std::string(last.substr(3));
        head = q == std::string_view::npos ? std::string_view() : head.substr(0, q);
    }
    out.moduleName = std::string(head);
}

struct FormatSuffix
{
    std::string_view suffix;
    DumpFileKind kind;
};

// Longest first where one ends another.
constexpr FormatSuffix kStageFormats[] = {
    { "-buffer-assignment.txt", DumpFileKind::BufferAssignment },
    { "-memory-usage-report.txt", DumpFileKind::MemoryUsageReport },
    { "-memory-usage-report.pb", DumpFileKind::MemoryUsageReport },
    { ".top_level.html", DumpFileKind::GraphHtml },
    { ".hlo.pb", DumpFileKind::HloProto },
    { ".txt", DumpFileKind::HloText },
    { ".dot", DumpFileKind::GraphDot },
    { ".html", DumpFileKind::GraphHtml },
    { ".url", DumpFileKind::GraphUrl },
    { ".fdo_profile", DumpFileKind::FdoProfile },
};

bool parseStageFile(std::string_view r, DumpFileName& out)
{
    for (const FormatSuffix& f : kStageFormats) {
        if (r.size() <= f.suffix.size() || !r.ends_with(f.suffix))
            continue;
        const auto s = parseStage(r.substr(0, r.size() - f.suffix.size()));
        if (!s)
            return false;
        out.kind = f.kind;
        out.stageKind = s->kind;
        out.stage = std::string(s->stage);
        out.stageIndex = s->index;
        out.backend = std::string(s->backend);
        out.pipeline = std::string(s->pipeline);
        out.pass = std::string(s->pass);
        out.nextPass = std::string(s->nextPass);
        out.step = std::string(s->step);
        splitChangelist(s->head, out);
        return true;
    }
    return false;
}

// execution_NNNN.hlo_snapshot.pb, execution_NNNN.hlo_unoptimized_snapshot[.pb|.txt] at the end:
// the position of "execution_", or npos.
size_t snapshotTail(std::string_view r)
{
    size_t e = std::string_view::npos;
    for (std::string_view kind : { ".hlo_snapshot.pb", ".hlo_unoptimized_snapshot.pb", ".hlo_unoptimized_snapshot.txt",
             ".hlo_unoptimized_snapshot" })
        if (r.ends_with(kind)) {
            e = r.size() - kind.size();
            break;
        }
    if (e == std::string_view::npos)
        return e;
    size_t s = e;
    while (s > 0 && isDigit(r[s - 1]))
        --s;
    if (s == e || s < 10 || r.substr(s - 10, 10) != "execution_")
        return std::string_view::npos;
    s -= 10;
    return s == 0 || r[s - 1] == '.' ? s : std::string_view::npos;
}

void parseArtifact(std::string_view r, DumpFileName& out)
{
    auto certain = [&](DumpFileKind kind, std::string_view tail) {
        out.kind = kind;
        out.artifact = std::string(tail);
        splitChangelist(headBefore(r, tail), out);
    };
    auto guessed = [&](DumpFileKind kind, std::string_view tail) {
        certain(kind, tail);
        out.nameCertain = false;
    };
    if (isTail(r, "metadata.textproto"))
        return certain(DumpFileKind::ModuleMetadata, "metadata.textproto");
    if (isTail(r, "_fusion.html"))
        return certain(DumpFileKind::FusionHtml, "_fusion.html");
    if (const size_t s = snapshotTail(r); s != std::string_view::npos)
        return certain(DumpFileKind::Snapshot, r.substr(s));
    for (std::string_view tail : { "execution_options.txt", "execution_options.pb", "execution_options" })
        if (isTail(r, tail))
            return certain(DumpFileKind::ExecutionOptions, tail);
    for (std::string_view tail : { "debug_options", "debug_options.txt" })
        if (isTail(r, tail))
            return certain(DumpFileKind::DebugOptions, tail);
    if (isTail(r, "config.pbtxt"))
        return certain(DumpFileKind::ModuleConfig, "config.pbtxt");
    if (isTail(r, "thunk_schedule"))
        return certain(DumpFileKind::ThunkSchedule, "thunk_schedule");
    if (r.ends_with(".ll") || r == "ll") {
        if (r.starts_with("ir-"))
            return certain(DumpFileKind::LlvmIr, r);
        if (const size_t i = r.rfind(".ir-"); i != std::string_view::npos)
            return certain(DumpFileKind::LlvmIr, r.substr(i + 1));
        return guessed(DumpFileKind::LlvmIr, "ll");
    }
    if (isTail(r, "ptx"))
        return guessed(DumpFileKind::Ptx, "ptx");
    if (isTail(r, "mlir"))
        return guessed(DumpFileKind::Mlir, "mlir");
    const size_t q = r.rfind('.');
    guessed(DumpFileKind::OtherArtifact, q == std::string_view::npos ? r : r.substr(q + 1));
}

} // namespace

const char* dumpFileKindName(DumpFileKind kind)
{
    switch (kind) {
    case DumpFileKind::HloText:
        return "hlo-text";
    case DumpFileKind::HloProto:
        return "hlo-proto";
    case DumpFileKind::BufferAssignment:
        return "buffer-assignment";
    case DumpFileKind::MemoryUsageReport:
        return "memory-usage-report";
    case DumpFileKind::GraphDot:
        return "dot";
    case DumpFileKind::GraphHtml:
        return "html";
    case DumpFileKind::GraphUrl:
        return "url";
    case DumpFileKind::FdoProfile:
        return "fdo-profile";
    case DumpFileKind::Mlir:
        return "mlir";
    case DumpFileKind::LlvmIr:
        return "llvm-ir";
    case DumpFileKind::Ptx:
        return "ptx";
    case DumpFileKind::ThunkSchedule:
        return "thunk-schedule";
    case DumpFileKind::ExecutionOptions:
        return "execution-options";
    case DumpFileKind::DebugOptions:
        return "debug-options";
    case DumpFileKind::ModuleConfig:
        return "config";
    case DumpFileKind::ModuleMetadata:
        return "metadata";
    case DumpFileKind::Snapshot:
        return "snapshot";
    case DumpFileKind::FusionHtml:
        return "fusion-html";
    case DumpFileKind::OtherArtifact:
        return "other";
    }
    return "?";
}

bool isDumpStageFileKind(DumpFileKind kind) { return kind <= DumpFileKind::FdoProfile; }

const char* dumpStageKindName(DumpStageKind kind)
{
    switch (kind) {
    case DumpStageKind::BeforeOptimizations:
        return "before_optimizations";
    case DumpStageKind::Named:
        return "named";
    case DumpStageKind::Pass:
        return "pass";
    case DumpStageKind::DuringPass:
        return "during_pass";
    case DumpStageKind::AfterOptimizationsBeforeBufferAssignment:
        return "after_optimizations_before_buffer_assignment";
    case DumpStageKind::AfterOptimizations:
        return "after_optimizations";
    case DumpStageKind::AfterOptimizationsAfterBufferAssignment:
        return "after_optimizations_after_buffer_assignment";
    }
    return "?";
}

const char* dumpCompressionName(DumpCompression compression)
{
    switch (compression) {
    case DumpCompression::None:
        return "";
    case DumpCompression::Gzip:
        return "gz";
    case DumpCompression::Xz:
        return "xz";
    }
    return "?";
}

std::optional<DumpFileName> parseDumpFileName(std::string_view fn)
{
    if (fn.empty() || fn.size() > kDumpFileNameMaxBytes || fn.find('/') != std::string_view::npos
        || fn.find('\0') != std::string_view::npos)
        return std::nullopt;
    // "module_" + digits + '.', at the start or after a non-empty prefix and its '.'.
    size_t at = std::string_view::npos, idEnd = 0;
    for (size_t i = fn.find("module_"); i != std::string_view::npos; i = fn.find("module_", i + 1)) {
        if (i != 0 && (i < 2 || fn[i - 1] != '.'))
            continue;
        size_t j = i + 7;
        while (j < fn.size() && isDigit(fn[j]))
            ++j;
        if (j == i + 7 || j - (i + 7) > 18 || j + 1 >= fn.size() || fn[j] != '.')
            continue;
        at = i;
        idEnd = j;
        break;
    }
    if (at == std::string_view::npos)
        return std::nullopt;
    DumpFileName out;
    out.prefix = std::string(at == 0 ? std::string_view() : fn.substr(0, at - 1));
    uint64_t timestamp = 0;
    if (allDigits(out.prefix) && parseNumber(std::string_view(out.prefix), &timestamp))
        out.timestamp = timestamp;
    parseNumber(fn.substr(at + 7, idEnd - at - 7), &out.moduleId);
    std::string_view r = fn.substr(idEnd + 1);
    out.rest = std::string(r);
    if (r.size() > 3 && r.ends_with(".gz")) {
        out.compression = DumpCompression::Gzip;
        r.remove_suffix(3);
    } else if (r.size() > 3 && r.ends_with(".xz")) {
        out.compression = DumpCompression::Xz;
        r.remove_suffix(3);
    }
    if (isTail(r, "_fusion.html") || !parseStageFile(r, out))
        parseArtifact(r, out);
    return out;
}

bool resolveDumpFileName(DumpFileName& name, std::span<const std::string> knownNames)
{
    if (name.nameCertain)
        return false;
    std::string_view r = name.rest;
    if (name.compression != DumpCompression::None)
        r.remove_suffix(3);
    const std::string* best = nullptr;
    for (const std::string& known : knownNames)
        if (!known.empty() && r.size() > known.size() + 1 && r.starts_with(known) && r[known.size()] == '.'
            && (!best || known.size() > best->size()))
            best = &known;
    if (!best)
        return false;
    std::string_view tail = r.substr(best->size() + 1);
    if (const size_t dot = tail.find('.');
        dot != std::string_view::npos && dot > 3 && tail.starts_with("cl_") && allDigits(tail.substr(3, dot - 3))) {
        name.changelist = std::string(tail.substr(3, dot - 3));
        tail.remove_prefix(dot + 1);
    }
    const bool changed = name.moduleName != *best || name.artifact != tail;
    name.moduleName = *best;
    name.artifact = std::string(tail);
    name.nameCertain = true;
    return changed;
}

} // namespace tgraph
