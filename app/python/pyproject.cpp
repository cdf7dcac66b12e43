// SPDX-License-Identifier: Apache-2.0
#include "app/python/pyproject.h"

#include "app/python/pyarrays.h"

#include "core/store/project.h"
#include "core/util/error.h"

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <filesystem>
#include <optional>

namespace tgraph::python {

namespace {

py::dict runDict(const RunRecord& r)
{
    py::dict d;
    d["id"] = r.id;
    d["experiment"] = r.experiment;
    d["name"] = r.name;
    d["parent_run"] = r.parentRun;
    d["status"] = std::string(runStatusName(r.status));
    d["start_ms"] = r.startMs;
    d["end_ms"] = r.endMs;
    d["heartbeat_ms"] = r.heartbeatMs;
    d["last_step"] = r.lastStep;
    d["pid"] = r.pid;
    d["host"] = r.host;
    d["command_line"] = r.commandLine;
    d["resumed_from"] = r.resumedFrom;
    d["checkpoint"] = r.checkpoint;
    d["message"] = r.message;
    return d;
}

class ProjectHandle
{
public:
    ProjectHandle(const std::filesystem::path& path, bool write)
        : m_project(Project::open(path.string(), write ? Project::Access::Write : Project::Access::Read))
        , m_write(write)
    { }

    Project& project()
    {
        if (!m_project)
            throw py::value_error("the project is closed");
        return *m_project;
    }

    // A run by id, unique id prefix (>= 4 digits) or unique name.
    RunRecord run(const std::string& idOrName)
    {
        std::optional<RunRecord> r = project().findRun(idOrName);
        if (!r)
            throw InputError(project().path(), "run " + idOrName, "no such run (or the prefix or name is ambiguous)");
        return *r;
    }

    py::list runs(const std::optional<std::string>& experiment)
    {
        py::list out;
        for (const RunRecord& r : project().runs(experiment.value_or("")))
            out.append(runDict(r));
        return out;
    }

    py::dict metric(const std::string& runIdOrName, const std::string& name, const std::optional<std::string>& context,
        int64_t maxPoints)
    {
        std::string key = name, ctx = context.value_or("");
        if (!context) {
            const size_t slash = name.find('/');
            if (slash != std::string::npos) {
                ctx = name.substr(0, slash);
                key = name.substr(slash + 1);
            }
        }
        const RunRecord r = run(runIdOrName);
        const MetricSeries s = project().metricHistory(r.id, key, ctx, maxPoints);
        std::vector<int64_t> step, wall;
        std::vector<double> value;
        for (const MetricPoint& p : s.points) {
            step.push_back(p.step);
            wall.push_back(p.wallMs);
            value.push_back(p.value);
        }
        py::dict d;
        d["step"] = ownedArray(std::move(step));
        d["wall_ms"] = ownedArray(std::move(wall));
        d["value"] = ownedArray(std::move(value));
        return d;
    }

    void requireWrite(const char* what)
    {
        if (!m_write)
            throw py::value_error(
                std::string(what) + ": the project is open read-only (tgraph.Project(path, write=True))");
    }

    void close() { m_project.reset(); }

private:
    std::optional<Project> m_project;
    bool m_write = false;
};

} // namespace

void bindProject(py::module_& m)
{
    py::class_<ProjectHandle>(m, "Project",
        "A TGraph Studio project file (.tgproj, docs/store.md): experiments, runs, their parameters and\n"
        "metric histories. Read-only unless write=True; records are lists of dicts and histories dicts\n"
        "of numpy arrays, both what pandas.DataFrame(...) takes as they are. A run is named by its id,\n"
        "a unique id prefix (4+ digits) or its unique name.")
        .def(py::init<const std::filesystem::path&, bool>(), py::arg("path"), py::kw_only(), py::arg("write") = false,
            "Opens an existing project; InputError (naming the file) for anything that is not a sound\n"
            "project file. The file is never modified unless write=True.")
        .def_property_readonly("path", [](ProjectHandle& p) { return p.project().path(); })
        .def_property_readonly("schema_version", [](ProjectHandle& p) { return p.project().schemaVersion(); })
        .def("experiments", [](ProjectHandle& p) { return p.project().experiments(); })
        .def("runs", &ProjectHandle::runs, py::arg("experiment") = py::none(),
            "every run (newest first) as a dict: id, experiment, name, parent_run, status, start_ms, end_ms, ...")
        .def(
            "run", [](ProjectHandle& p, const std::string& id) { return runDict(p.run(id)); }, py::arg("run"))
        .def(
            "params", [](ProjectHandle& p, const std::string& id) { return p.project().params(p.run(id).id); },
            py::arg("run"), "the run's parameters (str -> str)")
        .def(
            "tags", [](ProjectHandle& p, const std::string& id) { return p.project().tags(p.run(id).id); },
            py::arg("run"))
        .def(
            "metric_keys", [](ProjectHandle& p, const std::string& id) { return p.project().metricKeys(p.run(id).id); },
            py::arg("run"), "the run's metric series as 'context/key'")
        .def("metric", &ProjectHandle::metric, py::arg("run"), py::arg("key"), py::kw_only(),
            py::arg("context") = py::none(), py::arg("max_points") = 0,
            "One metric's history by step: dict(step=int64, wall_ms=int64, value=float64 arrays). key may be\n"
            "'context/key' as metric_keys() names it; max_points > 0 downsamples keeping spikes.")
        .def(
            "latest_metrics",
            [](ProjectHandle& p, const std::vector<std::string>& runs) {
                std::vector<std::string> ids;
                for (const std::string& r : runs)
                    ids.push_back(p.run(r).id);
                py::list out;
                for (const LatestMetric& l : p.project().latestMetrics(ids)) {
                    py::dict d;
                    d["run"] = l.runId;
                    d["context"] = l.context;
                    d["key"] = l.key;
                    d["step"] = l.step;
                    d["wall_ms"] = l.wallMs;
                    d["value"] = l.value;
                    out.append(d);
                }
                return out;
            },
            py::arg("runs") = std::vector<std::string> {}, "the latest value of every metric (of the given runs)")
        .def(
            "graph_metrics",
            [](ProjectHandle& p, const std::string& id, int64_t step) {
                py::list out;
                for (const GraphMetricRecord& g : p.project().graphMetrics(p.run(id).id, step)) {
                    py::dict d;
                    d["graph"] = g.graph;
                    d["step"] = g.step;
                    d["configs"] = g.configs;
                    d["kendall_tau"] = g.kendallTau;
                    d["opa"] = g.opa;
                    d["top5_slowdown"] = g.top5Slowdown;
                    d["tile_score"] = g.tileScore;
                    out.append(d);
                }
                return out;
            },
            py::arg("run"), py::arg("step") = -1, "per-graph evaluations at `step` (-1: the latest evaluated)")
        .def(
            "predictions",
            [](ProjectHandle& p, const std::string& id, int64_t step, const std::string& graph) {
                std::vector<int64_t> config, runtime;
                std::vector<double> score;
                for (const PredictionRecord& r : p.project().predictions(p.run(id).id, step, graph)) {
                    config.push_back(r.config);
                    score.push_back(r.score);
                    runtime.push_back(r.runtimeNs);
                }
                py::dict d;
                d["config"] = ownedArray(std::move(config));
                d["score"] = ownedArray(std::move(score));
                d["runtime_ns"] = ownedArray(std::move(runtime));
                return d;
            },
            py::arg("run"), py::arg("step"), py::arg("graph"))
        .def(
            "artifacts",
            [](ProjectHandle& p, const std::string& id) {
                py::list out;
                for (const ArtifactRecord& a : p.project().artifacts(p.run(id).id)) {
                    py::dict d;
                    d["kind"] = a.kind;
                    d["path"] = a.path;
                    d["step"] = a.step;
                    d["created_ms"] = a.createdMs;
                    out.append(d);
                }
                return out;
            },
            py::arg("run"))
        .def(
            "set_tag",
            [](ProjectHandle& p, const std::string& id, const std::string& key, const std::string& value) {
                p.requireWrite("set_tag");
                p.project().setTag(p.run(id).id, key, value);
            },
            py::arg("run"), py::arg("key"), py::arg("value"), "sets a tag of a run (write=True only)")
        .def("close", &ProjectHandle::close, "closes the connection (also at the end of a with block)")
        .def("__enter__", [](py::object self) { return self; })
        .def("__exit__", [](ProjectHandle& p, py::args) { p.close(); });
}

} // namespace tgraph::python
