// SPDX-License-Identifier: Apache-2.0
#include "core/train/trainingevents.h"

#include "core/metrics/averages.h"
#include "core/util/error.h"
#include "core/util/json.h"

#include <cerrno>
#include <cstring>
#include <limits>

namespace tgraph {

void summarizeGraphs(EvalMetrics& metrics, bool tile)
{
    metrics.meanTau = meanOfDefined(metrics.graphs, &GraphEvalMetrics::kendallTau);
    metrics.meanOpa = meanOfDefined(metrics.graphs, &GraphEvalMetrics::opa);
    metrics.meanTop5Slowdown = meanOfDefined(metrics.graphs, &GraphEvalMetrics::top5Slowdown);
    metrics.meanTileScore
        = tile ? meanOfDefined(metrics.graphs, &GraphEvalMetrics::tileScore) : std::numeric_limits<double>::quiet_NaN();
}

const char* runEventKindName(RunEventKind kind)
{
    switch (kind) {
    case RunEventKind::Started:
        return "started";
    case RunEventKind::Info:
        return "info";
    case RunEventKind::Warning:
        return "warning";
    case RunEventKind::Checkpoint:
        return "checkpoint";
    case RunEventKind::Finished:
        return "finished";
    case RunEventKind::Stopped:
        return "stopped";
    case RunEventKind::Worker:
        return "worker";
    }
    return "info";
}

void TrainingSinks::stepMetrics(const StepMetrics& m)
{
    for (TrainingSink* s : m_sinks)
        if (s)
            s->stepMetrics(m);
}

void TrainingSinks::evalMetrics(const EvalMetrics& m)
{
    for (TrainingSink* s : m_sinks)
        if (s)
            s->evalMetrics(m);
}

void TrainingSinks::runEvent(const RunEvent& e)
{
    for (TrainingSink* s : m_sinks)
        if (s)
            s->runEvent(e);
}

JsonLinesTrainingSink::JsonLinesTrainingSink(const std::string& path)
    : m_path(path)
{
    m_file = std::fopen(path.c_str(), "w");
    if (!m_file)
        throw InputError(path, "", std::string("cannot create the metrics file: ") + std::strerror(errno));
}

JsonLinesTrainingSink::~JsonLinesTrainingSink()
{
    if (m_file)
        std::fclose(m_file);
}

void JsonLinesTrainingSink::writeLine(const std::string& line)
{
    // A full disk must not stop training: the metrics file is a by-product.
    std::fputs(line.c_str(), m_file);
    std::fputc('\n', m_file);
    std::fflush(m_file);
}

std::string JsonLinesTrainingSink::toJson(const StepMetrics& m)
{
    Json j;
    j["event"] = "step";
    j["fold"] = m.fold;
    j["step"] = m.step;
    j["total_steps"] = m.totalSteps;
    j["interval_steps"] = m.intervalSteps;
    j["epoch"] = m.epoch;
    j["loss"] = m.loss;
    j["lr"] = m.learningRate;
    j["grad_norm"] = m.gradNorm;
    j["tokens_per_s"] = m.tokensPerSecond;
    j["steps_per_s"] = m.stepsPerSecond;
    j["skipped"] = m.skippedSteps;
    j["skipped_total"] = m.skippedTotal;
    return jsonText(j, true);
}

std::string JsonLinesTrainingSink::toJson(const EvalMetrics& m)
{
    Json j;
    j["event"] = "eval";
    j["fold"] = m.fold;
    j["step"] = m.step;
    j["mean_tau"] = m.meanTau;
    j["mean_opa"] = m.meanOpa;
    j["mean_top5_slowdown"] = m.meanTop5Slowdown;
    j["mean_tile_score"] = m.meanTileScore;
    j["mean_top1_slowdown"] = m.meanTop1Slowdown;
    j["ape"] = m.ape;
    j["best"] = m.best;
    j["seconds"] = m.seconds;
    Json& graphs = j["graphs"] = Json::array();
    for (const GraphEvalMetrics& g : m.graphs) {
        Json& row = graphs.emplace_back();
        row["graph"] = g.graph;
        row["configs"] = g.configs;
        row["tau"] = g.kendallTau;
        row["opa"] = g.opa;
        row["top5_slowdown"] = g.top5Slowdown;
        row["tile_score"] = g.tileScore;
    }
    return jsonText(j, true);
}

std::string JsonLinesTrainingSink::toJson(const RunEvent& e)
{
    Json j;
    j["event"] = runEventKindName(e.kind);
    j["fold"] = e.fold;
    j["step"] = e.step;
    j["message"] = e.message;
    if (!e.path.empty())
        j["path"] = e.path;
    return jsonText(j, true);
}

void JsonLinesTrainingSink::stepMetrics(const StepMetrics& m) { writeLine(toJson(m)); }
void JsonLinesTrainingSink::evalMetrics(const EvalMetrics& m) { writeLine(toJson(m)); }
void JsonLinesTrainingSink::runEvent(const RunEvent& e) { writeLine(toJson(e)); }

} // namespace tgraph
