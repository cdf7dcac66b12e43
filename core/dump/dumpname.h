// SPDX-License-Identifier: Apache-2.0
#pragma once

// The names of the files XLA writes into an `--xla_dump_to` folder, told apart from the name alone
// (docs/formats.md §17.1):
//
//   [PREFIX.]module_NNNN[.NAME][.cl_CL].SUFFIX[.gz|.xz]
//
// PREFIX is a timestamp in microseconds (--xla_dump_include_timestamp), `lmhlo` (MLIR dumps) or
// the computation of a fusion visualisation; NNNN the module's unique id (at least 4 digits);
// NAME the module's name, which may hold dots and which XLA leaves out when the name would make
// the file name longer than 255 bytes; CL a build's changelist (Google-internal and TPU builds).
// SUFFIX names a stage of the module and what the file holds (HLO text, HLO protobuf, buffer
// assignment, graph renderings), or another artifact (LLVM IR, PTX, MLIR, thunk schedule, options).

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace tgraph {

// What a dump file holds. The first eight belong to a stage of the module (HLO after some pass);
// the others are the module's other artifacts.
enum class DumpFileKind : uint8_t {
    HloText, // STAGE.txt
    HloProto, // STAGE.hlo.pb (an xla.HloProto)
    BufferAssignment, // STAGE-buffer-assignment.txt
    MemoryUsageReport, // STAGE-memory-usage-report.txt or .pb
    GraphDot, // STAGE.dot
    GraphHtml, // STAGE.html, STAGE.top_level.html
    GraphUrl, // STAGE.url
    FdoProfile, // STAGE.fdo_profile
    Mlir, // .mlir (e.g. the lmhlo.module_NNNN.NAME.mlir of older GPU compilers)
    LlvmIr, // .ll (ir-no-opt.ll, ir-with-opt.ll, ...)
    Ptx, // .ptx
    ThunkSchedule, // thunk_schedule
    ExecutionOptions, // execution_options.txt / .pb
    DebugOptions, // debug_options (the options that differ from their defaults)
    ModuleConfig, // config.pbtxt
    ModuleMetadata, // module_NNNN.metadata.textproto
    Snapshot, // execution_NNNN.hlo_snapshot.pb, execution_NNNN.hlo_unoptimized_snapshot.*
    FusionHtml, // COMPUTATION.module_NNNN.NAME._fusion.html
    OtherArtifact, // any other file named module_NNNN...
};
// "hlo-text", "hlo-proto", "buffer-assignment", ... (stable: the JSON of `tgraph dump list`).
const char* dumpFileKindName(DumpFileKind kind);
// True for the kinds that belong to a stage (HloText .. FdoProfile).
bool isDumpStageFileKind(DumpFileKind kind);

// Which point of the compilation a stage file shows. The order of the enumerators is the order of
// a module's stages (docs/formats.md §17.2).
enum class DumpStageKind : uint8_t {
    BeforeOptimizations, // before_optimizations
    Named, // another before_X / after_X written by a framework (e.g. before_run_auto_sharding)
    Pass, // NNNN.PIPELINE.after_PASS.before_NEXT: between two passes of a pipeline
    DuringPass, // NNNN.PASS.STEP: a pass dumping in the middle of its work
    AfterOptimizationsBeforeBufferAssignment, // [BACKEND_]after_optimizations_before_buffer_assignment
    AfterOptimizations, // [BACKEND_]after_optimizations
    AfterOptimizationsAfterBufferAssignment, // [BACKEND_]after_optimizations_after_buffer_assignment
};
// "before_optimizations", "named", "pass", "during_pass", "after_optimizations", ...
const char* dumpStageKindName(DumpStageKind kind);

enum class DumpCompression : uint8_t { None, Gzip, Xz };
const char* dumpCompressionName(DumpCompression compression); // "", "gz", "xz"

// One file name taken apart.
struct DumpFileName
{
    std::string prefix; // before "module_" ("" when none): a timestamp, "lmhlo", a computation
    std::optional<uint64_t> timestamp; // the prefix when it is all digits
    int64_t moduleId = -1;
    std::string moduleName; // "" when XLA left it out
    // False when the name could not be told from the file name alone (an artifact such as
    // NAME.0.ptx, where NAME may end in ".0" itself); resolveDumpFileName() settles it with the
    // names the module's other files give.
    bool nameCertain = true;
    std::string changelist; // the digits of a ".cl_NNN" part, "" when none
    std::string rest; // everything after "module_NNNN.", compression suffix included
    DumpFileKind kind = DumpFileKind::OtherArtifact;
    DumpCompression compression = DumpCompression::None;

    // Stage files (isDumpStageFileKind(kind)):
    DumpStageKind stageKind = DumpStageKind::BeforeOptimizations;
    std::string stage; // the stage as written: "before_optimizations", "sm_7.0_gpu_after_optimizations",
                       // "0012.fusion.after_a.before_b"
    int64_t stageIndex = -1; // the NNNN of Pass and DuringPass stages, else -1
    std::string backend; // the prefix of after_optimizations without its '_': "sm_7.0_gpu", "cpu", "gfx90a_gpu"
    std::string pipeline; // Pass: the pipeline
    std::string pass; // Pass: the pass that ran before the dump; DuringPass: the pass dumping
    std::string nextPass; // Pass: the pass that runs next
    std::string step; // DuringPass: the step, as the pass names it ("after_adding_copies_...")

    // Other artifacts: what follows the module's name ("ir-no-opt.ll", "0.ptx", "thunk_schedule").
    std::string artifact;

    bool isStageFile() const { return isDumpStageFileKind(kind); }
};

// Names longer than this are not dump files (Linux allows 255 bytes per name).
inline constexpr size_t kDumpFileNameMaxBytes = 4096;

// Takes a file name (no folder) apart; nullopt when it is not named as XLA names its dump files
// (no "module_" followed by digits at the start or after a '.', or nothing after the id). Never
// throws; linear in the name's length.
std::optional<DumpFileName> parseDumpFileName(std::string_view fileName);

// For a name with nameCertain == false: when the part after "module_NNNN." starts with one of
// `knownNames` (the names the module's files with a certain name give) followed by '.', the
// longest such name becomes the module's name and the artifact what follows. Returns whether it
// changed anything.
bool resolveDumpFileName(DumpFileName& name, std::span<const std::string> knownNames);

} // namespace tgraph
