// SPDX-License-Identifier: Apache-2.0
#pragma once

// What a training run reports while it runs, as plain structs (torch-free), and the sink that
// receives them. The trainer (model/train/trainer.h) calls the sink; the CLI prints the events and can
// write them as JSON lines (`tgraph train --metrics-jsonl FILE`) for other processes to follow;
// the project store records them in its database.

#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace tgraph {

// One logging interval of training steps (the values are means over the interval's steps that
// were taken; skipped steps only count in `skippedSteps`).
struct StepMetrics
{
    int fold = -1; // cross-validation fold, -1 for a plain run
    int64_t step = 0; // steps done (1-based index of the interval's last step)
    int64_t totalSteps = 0;
    int64_t intervalSteps = 0; // steps in this interval (taken + skipped)
    double epoch = 0; // graph visits (step x graphs per step) / training graphs
    double loss = 0; // mean pairwise hinge loss of the taken steps (NaN if none was taken)
    double learningRate = 0; // at the interval's last step
    double gradNorm = 0; // mean global L2 norm of the gradients before clipping
    double tokensPerSecond = 0; // configs x nodes processed per second of training-step time
    double stepsPerSecond = 0;
    int64_t skippedSteps = 0; // in this interval: non-finite loss or gradient, no update
    int64_t skippedTotal = 0; // since the start of the run
};

// Ranking quality of one validation graph, over all of its configurations.
struct GraphEvalMetrics
{
    std::string graph; // file name
    int64_t configs = 0;
    double kendallTau = 0; // tau-b of scores vs runtimes (docs/model.md §7.1)
    double opa = 0; // ordered-pair accuracy (docs/model.md §7.4)
    double top5Slowdown = 0; // (best runtime among the 5 best-scored - best) / best
    double tileScore = 0; // tile collections: 2 - min top-5 / min (docs/model.md §7.3, raw runtimes); NaN for layout
};

struct EvalMetrics
{
    int fold = -1;
    int64_t step = 0;
    std::vector<GraphEvalMetrics> graphs; // in validation-set order
    double meanTau = 0; // over graphs with a defined tau
    double meanOpa = 0;
    double meanTop5Slowdown = 0;
    double meanTileScore = 0; // NaN for layout
    double meanTop1Slowdown = 0; // runtime of the predicted-best config / the best runtime - 1, mean over graphs
    // Kaufman et al.'s APE (docs/model.md §7.5) over the graphs: 100 x sum |t(predicted best)
    // - min t| / sum min t, from raw runtimes; NaN for layout.
    double ape = std::numeric_limits<double>::quiet_NaN();
    bool best = false; // the best mean tau of the run so far (its checkpoint is kept)
    double seconds = 0; // evaluation wall time
};

// Sets meanTau, meanOpa, meanTop5Slowdown and (tile only, NaN for layout) meanTileScore from
// `graphs`, undefined values left out (docs/model.md §7.6).
void summarizeGraphs(EvalMetrics& metrics, bool tile);

enum class RunEventKind {
    Started, // a run (or a fold) begins; message describes data and model
    Info, // anything worth a line
    Warning, // e.g. a graph skipped while loading
    Checkpoint, // `path` was written
    Finished, // the run reached its last step
    Stopped, // the run stopped early (divergence, cancel); message says why
    Worker, // a data-parallel worker's heartbeat: message = its status, path = its tag ("worker.R")
};
const char* runEventKindName(RunEventKind kind);

struct RunEvent
{
    RunEventKind kind = RunEventKind::Info;
    int fold = -1;
    int64_t step = 0;
    std::string message;
    std::string path; // Checkpoint: the file written
};

class TrainingSink
{
public:
    virtual ~TrainingSink() = default;
    virtual void stepMetrics(const StepMetrics& m) = 0;
    virtual void evalMetrics(const EvalMetrics& m) = 0;
    virtual void runEvent(const RunEvent& e) = 0;
};

// Forwards every event to several sinks (null entries are ignored).
class TrainingSinks final : public TrainingSink
{
public:
    explicit TrainingSinks(std::vector<TrainingSink*> sinks)
        : m_sinks(std::move(sinks))
    { }
    void stepMetrics(const StepMetrics& m) override;
    void evalMetrics(const EvalMetrics& m) override;
    void runEvent(const RunEvent& e) override;

private:
    std::vector<TrainingSink*> m_sinks;
};

// One JSON object per line, flushed after each line, so another process can follow the file:
//   {"event":"step","fold":-1,"step":50,"total_steps":400,"epoch":4.17,"loss":0.21,"lr":0.00098,
//    "grad_norm":0.8,"tokens_per_s":51200,"steps_per_s":3.1,"skipped":0,"skipped_total":0}
//   {"event":"eval","fold":-1,"step":400,"mean_tau":0.41,"mean_opa":0.7,"mean_top5_slowdown":0.02,
//    "mean_tile_score":null,"best":true,"seconds":0.4,"graphs":[{"graph":"a.npz","configs":99,"tau":..,
//    "opa":..,"top5_slowdown":..,"tile_score":null}]}
//   {"event":"started"|"info"|"warning"|"checkpoint"|"finished"|"stopped","fold":-1,"step":0,
//    "message":"...","path":"..."}
// Non-finite numbers are written as null.
class JsonLinesTrainingSink final : public TrainingSink
{
public:
    // Opens (truncates) `path`; InputError naming it when it cannot be created.
    explicit JsonLinesTrainingSink(const std::string& path);
    ~JsonLinesTrainingSink() override;
    JsonLinesTrainingSink(const JsonLinesTrainingSink&) = delete;
    JsonLinesTrainingSink& operator=(const JsonLinesTrainingSink&) = delete;

    void stepMetrics(const StepMetrics& m) override;
    void evalMetrics(const EvalMetrics& m) override;
    void runEvent(const RunEvent& e) override;

    // The JSON object of each event, on one line without the newline.
    static std::string toJson(const StepMetrics& m);
    static std::string toJson(const EvalMetrics& m);
    static std::string toJson(const RunEvent& e);

private:
    void writeLine(const std::string& line);

    std::string m_path;
    std::FILE* m_file = nullptr;
};

} // namespace tgraph
