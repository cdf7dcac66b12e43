#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The Python module against the command line, numpy and the PyTorch module (docs/benchmarks.md §16).

  PYTHONPATH=build/python /usr/bin/python3 bench/python_bench.py [--dir /tmp/tgraph-python-bench]
                                                                 [--threads T] [--repeat R] [--gib G]

Row 1, reading a ~1 GB layout graph (generated here, seeded, stored members as np.savez writes
them, into --dir, never into the repository): tgraph.load_npz (raw arrays), tgraph.load_graph
(converted and validated) and numpy.load of every array, each in a fresh child interpreter (best
of R warm-cache runs, peak RSS of the child).
Row 2, predicting 1,024 configurations of one graph (tgraph synth, pruned, exactly 1,024 configs)
with one model (tgraph train, default width): Model.predict in Python (model loaded once; one pass
of 1,024 and chunks of 128), `tgraph predict` as a process (start, load, read, score, write), the
whole of a Python script (import, load, read, predict) and the PyTorch reference module
(bench/model_torch.py, one pass of 1,024) when Python's torch is installed. The scores of Python
and the command line are checked equal.
"""
import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import tgraph

HERE = Path(__file__).resolve().parent


def cpu_seconds(who=None):
    """User + system CPU seconds of this process (or of its waited-for children)."""
    import resource
    r = resource.getrusage(resource.RUSAGE_CHILDREN if who == "children" else resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def child(code, *args, env=None):
    """Runs `code` in a fresh interpreter; returns (seconds, peak_rss, cpu) it prints: the wall and
    CPU seconds of the timed part (`code` sets seconds; cpu0 is taken before it starts)."""
    full = ("import resource, sys, time\n"
            "def _cpu():\n    r = resource.getrusage(resource.RUSAGE_SELF)\n    return r.ru_utime + r.ru_stime\n"
            + code.replace("t = time.perf_counter()", "t = time.perf_counter(); cpu0 = _cpu()") +
            "\ncpu = _cpu() - cpu0 if 'cpu0' in dir() else float('nan')\n"
            "print(seconds, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, cpu)\n")
    r = subprocess.run([sys.executable, "-c", full, *map(str, args)], capture_output=True, text=True,
                       env=env or os.environ)
    if r.returncode != 0:
        raise SystemExit(f"child failed: {r.stderr}")
    s, rss, cpu = r.stdout.split()[-3:]
    return float(s), int(rss), float(cpu)


def best(runs):
    return min(runs, key=lambda r: r[0])


def make_big_graph(path, gib, seed=5):
    """A valid layout graph of about `gib` GiB, most of it node_config_feat (C, Nc, 18) float32."""
    rng = np.random.default_rng(seed)
    n, nc = 100_000, 2_000
    c = max(2, int((gib * 2**30 - n * 140 * 4) / (nc * 18 * 4)))
    node_feat = rng.standard_normal((n, 140), dtype=np.float32)
    node_feat[:, 134:140] = rng.integers(-1, 6, (n, 6))
    consumers = np.arange(1, n, dtype=np.int64)
    producers = (consumers - 1 - rng.integers(0, 8, n - 1)).clip(0)
    edge_index = np.stack([consumers, producers], axis=1)
    ids = np.sort(rng.choice(n, nc, replace=False)).astype(np.int64)
    feat = np.empty((c, nc, 18), np.float32)
    for start in range(0, c, 256):  # in blocks: no second gigabyte of int64 temporaries
        stop = min(c, start + 256)
        feat[start:stop] = rng.integers(-1, 6, (stop - start, nc, 18), dtype=np.int8)
    np.savez(path, node_feat=node_feat, node_opcode=rng.integers(1, 120, n).astype(np.uint8),
             edge_index=edge_index, node_config_ids=ids, node_config_feat=feat,
             config_runtime=rng.integers(1000, 10**7, c).astype(np.int64),
             node_splits=np.array([[0, n // 2]], np.int64))


def read_row(path, repeat):
    codes = {
        "tgraph.load_npz": "import tgraph\nt = time.perf_counter(); d = tgraph.load_npz(sys.argv[1]); "
                           "seconds = time.perf_counter() - t",
        "tgraph.load_graph": "import tgraph\nt = time.perf_counter(); g = tgraph.load_graph(sys.argv[1]); "
                             "seconds = time.perf_counter() - t",
        "numpy.load (every array)": "import numpy as np\nt = time.perf_counter()\n"
                                    "with np.load(sys.argv[1]) as f: d = {k: f[k] for k in f.files}\n"
                                    "seconds = time.perf_counter() - t",
    }
    size = path.stat().st_size
    print(f"\n1. reading {path.name}: {size / 2**30:.2f} GiB (best of {repeat}, warm page cache, fresh process each)")
    print(f"   {'reader':28} {'seconds':>8} {'GB/s':>6} {'CPU s':>6} {'peak RSS':>9}")
    child(codes["numpy.load (every array)"], path)  # warm the page cache
    for name, code in codes.items():
        s, rss, cpu = best([child(code, path) for _ in range(repeat)])
        print(f"   {name:28} {s:8.3f} {size / s / 1e9:6.2f} {cpu:6.2f} {rss / 2**30:7.2f} GiB")


def predict_row(work, cli, threads, repeat):
    data = work / "synth"
    if not data.exists():
        subprocess.run([cli, "synth", "--collection", "layout", "-o", data, "--graphs", "2", "--configs", "1100",
                        "--min-size", "1500", "--max-size", "2500", "--families", "resnet", "--seed", "11"],
                       check=True, capture_output=True)
    weights = work / "run" / "last.npz"
    if not weights.exists():
        subprocess.run([cli, "train", "--data", data / "train", "--steps", "2", "--configs-per-step", "16",
                        "--eval-every", "0", "--threads", str(threads), "--out", work / "run"],
                       check=True, capture_output=True)
    graph_file = work / "graph-1024.npz"
    if not graph_file.exists():
        source = max(data.glob("*/*.npz"), key=lambda f: tgraph.load_graph(f).config_count)
        g = tgraph.load_graph(source).prune()
        if g.config_count < 1024:
            raise SystemExit(f"{source} has {g.config_count} configurations, fewer than 1,024")
        arrays = {k: np.array(v) for k, v in g.items()}
        arrays["node_config_feat"] = arrays["node_config_feat"][:1024]
        arrays["config_runtime"] = arrays["config_runtime"][:1024]
        tgraph.Graph.from_arrays(arrays, source=str(source)).save(graph_file)
    g = tgraph.load_graph(graph_file)
    print(f"\n2. predicting 1,024 configurations: {g} ({threads} thread(s), best of {repeat})")
    print(f"   {'what':58} {'seconds':>8} {'CPU s':>6}")
    env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE", OPENBLAS_NUM_THREADS="1")

    model = tgraph.Model.load(weights)
    for batch in (1024, 128):
        runs = []
        for _ in range(repeat):
            t, c = time.perf_counter(), cpu_seconds()
            model.predict(g, batch_configs=batch)
            runs.append((time.perf_counter() - t, cpu_seconds() - c))
        s, c = best(runs)
        print(f"   {'Python Model.predict (loaded), batch_configs=%d' % batch:58} {s:8.3f} {c:6.2f}")

    out = work / "cli-scores.npz"
    runs = []
    for _ in range(repeat):
        t, c = time.perf_counter(), cpu_seconds("children")
        subprocess.run([cli, "predict", "--weights", weights, "--data", graph_file, "--batch-configs", "1024",
                        "--threads", str(threads), "-o", out], check=True, capture_output=True, env=env)
        runs.append((time.perf_counter() - t, cpu_seconds("children") - c))
    s, c = best(runs)
    print(f"   {'tgraph predict --batch-configs 1024 (whole process)':58} {s:8.3f} {c:6.2f}")
    with np.load(out) as cli_scores:
        same = np.array_equal(cli_scores[graph_file.stem], model.predict(g, batch_configs=1024))
    script = ("import tgraph\nt = time.perf_counter(); tgraph.set_threads(int(sys.argv[3]))\n"
              "m = tgraph.Model.load(sys.argv[1]); s = m.predict(tgraph.load_graph(sys.argv[2]), batch_configs=1024)\n"
              "seconds = time.perf_counter() - t")
    s, _, c = best([child(script, weights, graph_file, threads, env=env) for _ in range(repeat)])
    print(f"   {'Python script: import excluded, load + read + predict':58} {s:8.3f} {c:6.2f}")
    runs = []
    for _ in range(repeat):
        t, c = time.perf_counter(), cpu_seconds("children")
        child("import tgraph\ntgraph.set_threads(int(sys.argv[3])); m = tgraph.Model.load(sys.argv[1])\n"
              "s = m.predict(tgraph.load_graph(sys.argv[2]), batch_configs=1024); seconds = 0",
              weights, graph_file, threads, env=env)
        runs.append((time.perf_counter() - t, cpu_seconds("children") - c))
    s, c = best(runs)
    print(f"   {'Python script as a process (interpreter start, import too)':58} {s:8.3f} {c:6.2f}")
    try:
        import torch  # noqa: F401
        r = subprocess.run([sys.executable, HERE / "model_torch.py", weights, graph_file, "1024", str(repeat),
                            str(threads), "--no-step"], capture_output=True, text=True, env=env)
        forward = dict(kv.split("=") for kv in r.stdout.split()).get("forward") if r.returncode == 0 else None
        if forward:
            print(f"   {'PyTorch reference module (model_torch.py), one pass':58} {float(forward):8.3f}      -")
        else:
            print(f"   PyTorch reference module: failed: {r.stderr.strip().splitlines()[-1:]}")
    except ImportError:
        print("   PyTorch reference module: skipped (no torch for Python)")
    print(f"   scores of Python and tgraph predict equal: {same}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dir", default="/tmp/tgraph-python-bench", type=Path)
    p.add_argument("--bin", type=Path, help="the build's bin/ (default: beside the module's python/ folder)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--gib", type=float, default=1.0, help="size of the generated graph")
    p.add_argument("--keep", action="store_true", help="keep the generated files")
    a = p.parse_args()
    tgraph.set_threads(a.threads)
    cli = (a.bin or Path(tgraph.__file__).resolve().parent.parent / "bin") / "tgraph"
    a.dir.mkdir(parents=True, exist_ok=True)
    big = a.dir / "big.npz"
    if not big.exists():
        t = time.perf_counter()
        make_big_graph(big, a.gib)
        print(f"generated {big} in {time.perf_counter() - t:.1f} s")
    read_row(big, a.repeat)
    predict_row(a.dir, cli, a.threads, a.repeat)
    if not a.keep:
        shutil.rmtree(a.dir)


if __name__ == "__main__":
    main()
