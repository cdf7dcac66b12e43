// SPDX-License-Identifier: Apache-2.0
#include "core/train/trainingevents.h"

#include "core/util/error.h"
#include "core/util/jsonwriter.h"

#include <cerrno>
#include <cstring>

namespace tgraph {

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
    JsonWriter w(true);
    w.beginObject()
        .key("event")
        .value("step")
        .key("fold")
        .value(m.fold)
        .key("step")
        .value(m.step)
        .key("total_steps")
        .value(m.totalSteps)
        .key("interval_steps")
        .value(m.intervalSteps)
        .key("epoch")
        .value(m.epoch)
        .key("loss")
        .value(m.loss)
        .key("lr")
        .value(m.learningRate)
        .key("grad_norm")
        .value(m.gradNorm)
        .key("tokens_per_s")
        .value(m.tokensPerSecond)
        .key("steps_per_s")
        .value(m.stepsPerSecond)
        .key("skipped")
        .value(m.skippedSteps)
        .key("skipped_total")
        .value(m.skippedTotal)
        .endObject();
    return w.str();
}

std::string JsonLinesTrainingSink::toJson(const EvalMetrics& m)
{
    JsonWriter w(true);
    w.beginObject()
        .key("event")
        .value("eval")
        .key("fold")
        .value(m.fold)
        .key("step")
        .value(m.step)
        .key("mean_tau")
        .value(m.meanTau)
        .key("mean_opa")
        .value(m.meanOpa)
        .key("mean_top5_slowdown")
        .value(m.meanTop5Slowdown)
        .key("mean_tile_score")
        .value(m.meanTileScore)
        .key("mean_top1_slowdown")
        .value(m.meanTop1Slowdown)
        .key("ape")
        .value(m.ape)
        .key("best")
        .value(m.best)
        .key("seconds")
        .value(m.seconds)
        .key("graphs")
        .beginArray();
    for (const GraphEvalMetrics& g : m.graphs)
        w.beginObject()
            .key("graph")
            .value(g.graph)
            .key("configs")
            .value(g.configs)
            .key("tau")
            .value(g.kendallTau)
            .key("opa")
            .value(g.opa)
            .key("top5_slowdown")
            .value(g.top5Slowdown)
            .key("tile_score")
            .value(g.tileScore)
            .endObject();
    w.endArray().endObject();
    return w.str();
}

std::string JsonLinesTrainingSink::toJson(const RunEvent& e)
{
    JsonWriter w(true);
    w.beginObject()
        .key("event")
        .value(runEventKindName(e.kind))
        .key("fold")
        .value(e.fold)
        .key("step")
        .value(e.step)
        .key("message")
        .value(e.message);
    if (!e.path.empty())
        w.key("path").value(e.path);
    w.endObject();
    return w.str();
}

void JsonLinesTrainingSink::stepMetrics(const StepMetrics& m) { writeLine(toJson(m)); }
void JsonLinesTrainingSink::evalMetrics(const EvalMetrics& m) { writeLine(toJson(m)); }
void JsonLinesTrainingSink::runEvent(const RunEvent& e) { writeLine(toJson(e)); }

} // namespace tgraph
