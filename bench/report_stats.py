# SPDX-License-Identifier: Apache-2.0
# What the experiment reports (bench/real_sweep_report.py, bench/recipe_report.py) share: mean ±
# sample std over the defined values, and `tgraph eval --json` of some weights on some data,
# kept in a file so that a second call reads it instead of scoring again.
import json
import math
import os
import subprocess
import sys


def spread(values):
    v = [x for x in values if x is not None and not math.isnan(x)]
    if not v:
        return (float("nan"), float("nan"), 0)
    m = sum(v) / len(v)
    s = math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1)) if len(v) > 1 else float("nan")
    return (m, s, len(v))


def fmt(values, scale=1.0, digits=3):
    m, s, n = spread(values)
    if n == 0:
        return "–"
    return f"{m * scale:.{digits}f} ± {s * scale:.{digits}f}" if n > 1 else f"{m * scale:.{digits}f}"


def evaluate(tgraph, threads, weights, data, out, who, precision=""):
    """The JSON of `tgraph eval --json --data DATA --weights W... [--precision P]`, cached in OUT."""
    if not os.path.exists(out):
        r = subprocess.run([tgraph, "eval", "--threads", threads, "--json", "--data", data]
                           + (["--precision", precision] if precision else [])
                           + sum((["--weights", w] for w in weights), []), capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"{who}: tgraph eval failed for {data}: {r.stderr.strip()}")
        tmp = out + ".tmp"
        with open(tmp, "w") as f:
            f.write(r.stdout)
        os.replace(tmp, out)
    with open(out) as f:
        return json.load(f)
