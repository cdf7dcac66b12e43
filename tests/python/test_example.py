# SPDX-License-Identifier: Apache-2.0
"""The worked example of docs/python.md §2, run as it is written there (the plot only when
matplotlib is installed)."""

import re
import shutil
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parent.parent.parent / "docs" / "python.md"


def block(name):
    text = DOC.read_text()
    m = re.search(r"<!-- example: " + name + r" -->\s*```python\n(.*?)```", text, re.S)
    assert m, f"docs/python.md has no '{name}' example block"
    return m.group(1)


@pytest.fixture(scope="module")
def ran(tmp_path_factory, weights):
    """Runs the main block in a folder holding the model as run/last.npz; returns its namespace."""
    folder = tmp_path_factory.mktemp("example")
    (folder / "run").mkdir()
    shutil.copy(weights, folder / "run" / "last.npz")
    namespace = {"__name__": "__example__"}
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(folder)
        exec(compile(block("main"), str(DOC), "exec"), namespace)
    return folder, namespace


def test_worked_example_runs(ran, capsys):
    folder, ns = ran
    graph, scores, e = ns["graph"], ns["scores"], ns["e"]
    assert graph.config_count >= 2 and len(scores.scores) == graph.config_count
    assert e.config_b == 0 and e.label_a.startswith("predicted fastest")
    assert any(ns["nodes"]["name"])  # the module's instruction names reached the explanation


def test_worked_example_plot(ran):
    pytest.importorskip("matplotlib")
    folder, ns = ran
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(folder)
        exec(compile(block("plot"), str(DOC), "exec"), ns)
    assert (folder / "rank-scatter.png").stat().st_size > 1000
