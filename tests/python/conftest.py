# SPDX-License-Identifier: Apache-2.0
"""Fixtures of the Python module's tests (docs/python.md §9, docs/testing.md).

CTest runs them as `tst_python` with PYTHONPATH naming the build's python/ folder and
TGRAPH_BIN_DIR its bin/; every input is generated here by the `tgraph` of that build (synthetic
collections, a generated HLO module, a short training run), so the parity tests compare the
module with the command line on the same files. Both sides run the fp32 products (the module's
set_precision, the command line's --precision fp32), whatever `auto` means on the CPU; the bf16
path is compared on its own (test_model.py).
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import tgraph


def bin_dir() -> Path:
    env = os.environ.get("TGRAPH_BIN_DIR")
    if env:
        return Path(env)
    # tgraph.cpython-*.so sits in BUILD/python; the executables in BUILD/bin
    return Path(tgraph.__file__).resolve().parent.parent / "bin"


# Commands that run the model, and so take --precision (docs/model.md §10.12).
MODEL_COMMANDS = {"train", "predict", "eval", "explain", "tune"}


class Cli:
    """The command line of the same build, run as a child process; model commands in fp32 unless
    the arguments name a --precision."""

    def __init__(self):
        self.exe = bin_dir() / "tgraph"
        if not self.exe.exists():
            raise RuntimeError(f"no tgraph executable at {self.exe} (set TGRAPH_BIN_DIR)")

    def run(self, *args, check=True, cwd=None):
        if args and args[0] in MODEL_COMMANDS and "--precision" not in args:
            args = (*args, "--precision", "fp32")
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_WAIT_POLICY="PASSIVE")
        r = subprocess.run([str(self.exe), *map(str, args)], capture_output=True, text=True, env=env, cwd=cwd)
        if check and r.returncode != 0:
            raise AssertionError(f"tgraph {' '.join(map(str, args))} exited {r.returncode}:\n{r.stderr}")
        return r


@pytest.fixture(scope="session")
def cli():
    return Cli()


@pytest.fixture(scope="session", autouse=True)
def one_thread():
    # The tests' reference runs use --threads 1 and fp32 products; so do the module's models
    # (threads before any load).
    tgraph.set_threads(1)
    tgraph.set_precision("fp32")


@pytest.fixture(scope="session")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("tgraph-python")


@pytest.fixture(scope="session")
def layout_dir(cli, work):
    out = work / "layout"
    cli.run("synth", "--collection", "layout", "-o", out, "--graphs", "4", "--configs", "48", "--max-size", "500",
            "--seed", "3")
    return out


@pytest.fixture(scope="session")
def layout_files(layout_dir):
    files = sorted(layout_dir.glob("*/*.npz"))
    assert files, "tgraph synth wrote no layout graph"
    return files


@pytest.fixture(scope="session")
def tile_files(cli, work):
    out = work / "tile"
    cli.run("synth", "--collection", "tile", "-o", out, "--graphs", "3", "--configs", "24", "--max-size", "500",
            "--seed", "4")
    files = sorted(out.glob("*/*.npz"))
    assert files
    return files


@pytest.fixture(scope="session")
def hlo_file(cli, work):
    path = work / "resnet.hlo"
    cli.run("gen-hlo", "--family", "resnet", "--size", "300", "--seed", "7", "-o", path)
    return path


@pytest.fixture(scope="session")
def project(cli, work, layout_dir):
    """A project with one finished training run; its last checkpoint is the layout model."""
    path = work / "runs.tgproj"
    cli.run("train", "--data", layout_dir / "train", "--steps", "4", "--configs-per-step", "16", "--eval-every", "2",
            "--log-every", "1", "--threads", "1", "--project", path, "--run-name", "small")
    return path


@pytest.fixture(scope="session")
def weights(cli, work, layout_dir):
    out = work / "run"
    cli.run("train", "--data", layout_dir / "train", "--steps", "4", "--configs-per-step", "16", "--eval-every", "0",
            "--threads", "1", "--out", out)
    path = out / "last.npz"
    assert path.exists()
    return path


@pytest.fixture(scope="session")
def tile_weights(cli, work, tile_files):
    out = work / "tilerun"
    cli.run("train", "--data", tile_files[0].parent, "--steps", "3", "--configs-per-step", "8", "--eval-every", "0",
            "--threads", "1", "--out", out)
    return out / "last.npz"


@pytest.fixture(scope="session")
def model(weights):
    return tgraph.Model.load(weights)


@pytest.fixture
def copy_to(tmp_path):
    def copy(src, name):
        dst = tmp_path / name
        shutil.copy(src, dst)
        return dst
    return copy
