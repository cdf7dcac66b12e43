# SPDX-License-Identifier: Apache-2.0
"""Projects: runs, params and metric histories as records and numpy arrays, read-only by default."""

import json

import numpy as np
import pytest

import tgraph


def test_runs_params_and_histories(cli, project):
    before = project.read_bytes()
    p = tgraph.Project(project)
    runs = p.runs()
    assert len(runs) == 1 and isinstance(runs[0], dict)
    run = runs[0]
    assert run["name"] == "small" and run["status"] == "FINISHED" and len(run["id"]) == 32
    assert p.run("small")["id"] == run["id"] == p.run(run["id"][:6])["id"]
    # the same as the command line lists (tgraph runs list --json)
    listed = cli.run("runs", "list", project, "--json", check=False)
    if listed.returncode == 0:
        assert run["id"] in listed.stdout
    params = p.params(run["id"])
    assert params and all(isinstance(k, str) and isinstance(v, str) for k, v in params.items())
    keys = p.metric_keys("small")
    assert keys and all("/" in k for k in keys)
    loss = next(k for k in keys if "loss" in k)
    h = p.metric("small", loss)
    assert set(h) == {"step", "wall_ms", "value"}
    assert h["step"].dtype == np.int64 and h["value"].dtype == np.float64
    assert len(h["step"]) == len(h["value"]) >= 2 and np.all(np.diff(h["step"]) > 0)
    context, key = loss.split("/", 1)
    assert np.array_equal(p.metric("small", key, context=context)["value"], h["value"])
    latest = p.latest_metrics()
    assert any(m["context"] + "/" + m["key"] == loss and m["value"] == h["value"][-1] for m in latest)
    assert "Default" in p.experiments()
    with pytest.raises(ValueError, match="read-only"):
        p.set_tag("small", "note", "x")
    with pytest.raises(tgraph.InputError, match="no such run"):
        p.params("nonexistent-run")
    p.close()
    with pytest.raises(ValueError, match="closed"):
        p.runs()
    assert project.read_bytes() == before


def test_records_are_what_pandas_takes(project):
    pandas = pytest.importorskip("pandas")
    with tgraph.Project(project) as p:
        runs = pandas.DataFrame(p.runs())
        assert list(runs["name"]) == ["small"]
        history = pandas.DataFrame(p.metric("small", p.metric_keys("small")[0]))
        assert list(history.columns) == ["step", "wall_ms", "value"]


def test_write_access_sets_tags(tmp_path, project):
    copy = tmp_path / "copy.tgproj"
    copy.write_bytes(project.read_bytes())
    with tgraph.Project(copy, write=True) as p:
        p.set_tag("small", "note", "from python")
    with tgraph.Project(copy) as p:
        assert p.tags("small")["note"] == "from python"


def test_not_a_project(tmp_path):
    bad = tmp_path / "x.tgproj"
    bad.write_text("hello")
    with pytest.raises(tgraph.InputError) as e:
        tgraph.Project(bad)
    assert e.value.file == str(bad)
