# SPDX-License-Identifier: Apache-2.0
"""Reference values for tests/core/tst_metrics.cpp.

Usage: metrics_fixture.py OUTFILE

Writes random (fixed seed) runtime/score vectors and the metrics computed with scipy/numpy to OUTFILE as text:

    case <name>
    n <n>
    x <x_0> ... <x_{n-1}>        runtimes (all > 0)
    y <y_0> ... <y_{n-1}>        scores
    tau <kendall tau-b of (x, y) from scipy.stats.kendalltau>
    opa <ordered pair accuracy, brute force>
    topk1 / topk5 / topk10 <top-k slowdown>
    tile <tile score, k = 5>
    end

Every number is printed with repr() (round-trips doubles exactly); NaN is written as 'nan'.
Exits with status 77 when numpy or scipy is not importable, so the C++ test can skip.
"""

import math
import sys
import warnings

try:
    import numpy as np
    from scipy import stats
except ImportError as exc:  # pragma: no cover - depends on the machine
    print(f"metrics_fixture.py: numpy/scipy not available: {exc}", file=sys.stderr)
    sys.exit(77)

SEED = 20240611


def fmt(v):
    v = float(v)
    return "nan" if math.isnan(v) else repr(v)


def opa_brute(r, s):
    """sum_{i,j} [r_i > r_j][s_i > s_j] / sum_{i,j} [r_i > r_j], in row blocks to bound memory."""
    num = 0
    den = 0
    block = 1000
    for lo in range(0, len(r), block):
        rg = r[lo:lo + block, None] > r[None, :]
        sg = s[lo:lo + block, None] > s[None, :]
        num += int(np.count_nonzero(rg & sg))
        den += int(np.count_nonzero(rg))
    return math.nan if den == 0 else num / den


def top_k_min(r, s, k):
    order = np.argsort(s, kind="stable")  # ties in score broken by index
    return r[order[:k]].min()


def topk_slowdown(r, s, k):
    best = r.min()
    return (top_k_min(r, s, k) - best) / best


def tile_score(r, s, k=5):
    return 2 - top_k_min(r, s, k) / r.min()


def make_cases(rng):
    cases = []

    def add(name, x, y):
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        assert x.shape == y.shape and x.ndim == 1 and (x > 0).all()
        cases.append((name, x, y))

    def lognormal(n):
        return np.exp(rng.normal(0.0, 1.0, n))

    def ints(lo, hi, n):  # inclusive range, as positive doubles
        return rng.integers(lo, hi + 1, n).astype(np.float64)

    # Tiny cases.
    add("n2_distinct", [1.5, 2.5], [0.3, -0.1])
    add("n2_tied_x", [2.0, 2.0], [0.1, 0.2])
    add("n2_tied_y", [1.0, 3.0], [0.7, 0.7])
    add("n3_random", lognormal(3), rng.normal(size=3))
    add("n5_random", lognormal(5), rng.normal(size=5))
    add("n10_ints", ints(1, 4, 10), ints(0, 3, 10))

    # Continuous data, independent and correlated.
    for n in (17, 64, 257, 1000):
        add(f"cont_indep_{n}", lognormal(n), rng.normal(size=n))
    for n in (50, 800):
        x = lognormal(n)
        add(f"cont_corr_{n}", x, np.log(x) + rng.normal(0.0, 0.5, n))
    x = lognormal(200)
    add("perfect_200", x, 3.0 * x - 1.0)
    add("reversed_200", x, -x)

    # Heavy ties: integer values from small ranges.
    for n, xr, yr in ((20, 3, 3), (100, 2, 5), (500, 4, 2), (1000, 3, 3), (2000, 10, 10), (3000, 2, 2)):
        add(f"ties_{n}_{xr}x{yr}", ints(1, xr, n), ints(0, yr - 1, n))
    n = 1500
    x = ints(1, 6, n)
    add("ties_corr_1500", x, x + ints(0, 2, n))
    add("ties_x_cont_y_400", ints(1, 3, 400), rng.normal(size=400))
    add("cont_x_ties_y_400", lognormal(400), ints(0, 2, 400))
    x = ints(1, 8, 2500)
    add("ties_anticorr_2500", x, -x + ints(0, 3, 2500))
    add("ties_wide_5000", ints(1, 1000, 5000), ints(1, 1000, 5000))

    # Constant vectors.
    add("const_x_30", np.full(30, 2.5), rng.normal(size=30))
    add("const_y_30", lognormal(30), np.full(30, -1.0))
    add("const_both_12", np.full(12, 4.0), np.full(12, 4.0))

    # Large n.
    add("large_cont_5000", lognormal(5000), rng.normal(size=5000))
    x = ints(1, 50, 5000)
    add("large_ties_corr_5000", x, x + rng.normal(0.0, 8.0, 5000).round())
    return cases


def main():
    if len(sys.argv) != 2:
        print("usage: metrics_fixture.py OUTFILE", file=sys.stderr)
        return 2
    rng = np.random.default_rng(SEED)
    lines = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, x, y in make_cases(rng):
            tau = stats.kendalltau(x, y).statistic
            lines.append(f"case {name}")
            lines.append(f"n {len(x)}")
            lines.append("x " + " ".join(fmt(v) for v in x))
            lines.append("y " + " ".join(fmt(v) for v in y))
            lines.append(f"tau {fmt(tau)}")
            lines.append(f"opa {fmt(opa_brute(x, y))}")
            for k in (1, 5, 10):
                lines.append(f"topk{k} {fmt(topk_slowdown(x, y, k))}")
            lines.append(f"tile {fmt(tile_score(x, y))}")
            lines.append("end")
    with open(sys.argv[1], "w", encoding="ascii") as f:
        f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
