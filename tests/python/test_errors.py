# SPDX-License-Identifier: Apache-2.0
"""Errors: tgraph.InputError carries the command line's file / place / problem; the hostile fuzz
corpus (tests/fuzz/corpus) goes through every reader of the module without crashing the interpreter."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tgraph

CORPUS = Path(__file__).resolve().parent.parent / "fuzz" / "corpus"


def corpus(*folders):
    files = [f for d in folders for f in sorted((CORPUS / d).iterdir()) if f.is_file()]
    assert files, f"no corpus files in {folders}"
    return files


def accepted_or_refused(call, *args):
    """The call either works or raises tgraph.InputError (never another exception, never a crash)."""
    try:
        return call(*args)
    except tgraph.InputError as e:
        assert str(e) and e.problem, "an InputError says what is wrong"
        assert isinstance(e, ValueError)
        return e


def test_input_error_is_a_value_error_with_the_clis_text(cli, tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"PK\x03\x04 not really a zip archive")
    r = cli.run("inspect", bad, check=False)
    assert r.returncode == 1
    with pytest.raises(tgraph.InputError) as e:
        tgraph.load_graph(bad)
    assert issubclass(tgraph.InputError, ValueError)
    assert e.value.file == str(bad)
    assert str(e.value) == ": ".join(p for p in (e.value.file, e.value.place, e.value.problem) if p)
    assert str(e.value) in r.stderr  # the same message as the command line's


@pytest.mark.parametrize("path", corpus("npz", "weights"), ids=lambda p: p.name)
def test_hostile_npz(path):
    g = accepted_or_refused(tgraph.load_graph, path)
    if isinstance(g, tgraph.Graph):
        for k, v in g.items():
            assert v.base is g
    accepted_or_refused(tgraph.load_npz, path)


@pytest.mark.parametrize("path", corpus("hlotext", "hloproto", "hlodiff", "dumpname"), ids=lambda p: p.name)
def test_hostile_hlo(path):
    modules = accepted_or_refused(tgraph.read_hlo, path)
    data = path.read_bytes()
    accepted_or_refused(tgraph.parse_hlo_modules, data)
    if isinstance(modules, list):
        for m in modules[:4]:
            g = accepted_or_refused(tgraph.featurize, m)
            if isinstance(g, tgraph.Graph) and g.kind == "layout" and len(m.configurable_nodes):
                accepted_or_refused(lambda: tgraph.Simulator(m).runtime(tgraph.Simulator(m).candidates(3)))


@pytest.mark.parametrize("path", corpus("weights"), ids=lambda p: p.name)
def test_hostile_weights(path):
    accepted_or_refused(tgraph.Model.load, path)


@pytest.mark.parametrize("path", corpus("json"), ids=lambda p: p.name)
def test_hostile_ensemble_manifests(tmp_path, path):
    manifest = tmp_path / "ensemble.json"
    shutil.copy(path, manifest)
    accepted_or_refused(tgraph.Model.load, manifest)


@pytest.mark.parametrize("path", corpus("project"), ids=lambda p: p.name)
def test_hostile_projects(tmp_path, path):
    copy = tmp_path / (path.stem + ".tgproj")
    shutil.copy(path, copy)
    before = copy.read_bytes()

    def read_all():
        with tgraph.Project(copy) as p:
            for run in p.runs():
                p.params(run["id"])
                for key in p.metric_keys(run["id"]):
                    p.metric(run["id"], key)
                p.graph_metrics(run["id"])
                p.artifacts(run["id"])
            p.latest_metrics()

    accepted_or_refused(read_all)
    assert copy.read_bytes() == before  # read-only: the file is not touched


def test_bad_arguments_are_python_errors(tmp_path, layout_files):
    with pytest.raises(tgraph.InputError) as e:
        tgraph.read_hlo(tmp_path / "nothing.hlo")
    assert e.value.file == str(tmp_path / "nothing.hlo")
    with pytest.raises(TypeError):
        tgraph.load_graph(42)
    with pytest.raises(ValueError, match="keep-first"):
        tgraph.load_graph(layout_files[0]).dedup("most")
    with pytest.raises(KeyError):
        tgraph.load_graph(layout_files[0])["config_feat"]


def test_a_crash_would_be_seen(tmp_path):
    # The corpus runs in this interpreter; prove a child interpreter survives one hostile file end to end.
    path = corpus("npz")[0]
    code = f"import tgraph\ntry:\n    tgraph.load_graph({str(path)!r})\nexcept tgraph.InputError as e:\n    print('refused', e)\n"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ))
    assert r.returncode == 0, r.stderr
