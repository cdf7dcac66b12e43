#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# The tables of bench/recipe_experiment.sh (docs/benchmarks.md §17), run in its work directory:
# every finished run's last checkpoint and each recipe's seed ensemble per fold scored with
# `tgraph eval` on the fold's held-out record file (heldout/fold-k/real_record.npz, written by
# `tgraph-bench heldout`; evals/ keeps the results for a second call), the simulator from
# simulator.jsonl, and the recipe chosen on the other folds (nested: pick on the other folds,
# report on this one). Markdown on stdout.
import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_stats  # noqa: E402
from report_stats import fmt, spread  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--tgraph", required=True)
ap.add_argument("--threads", default="1")
ap.add_argument("--recipes", required=True)
ap.add_argument("--command", default="")
ap.add_argument("--precision", default="")
ap.add_argument("--ensemble-size", type=int, default=0,
                help="seeds per ensemble, consecutive in seed order (0: all of a fold's seeds, one ensemble)")
args = ap.parse_args()
recipes = args.recipes.split()


def evaluate(weights, data, out):
    return report_stats.evaluate(args.tgraph, args.threads, weights, data, out, "recipe_report",
                                 args.precision)["graphs"][0]


sim = {}
with open("simulator.jsonl") as f:
    for line in f:
        s = json.loads(line)
        sim[s["fold"]] = s
folds = sorted(sim)
os.makedirs("evals", exist_ok=True)

runs = {}  # recipe -> list of {fold, seed, tau, opa, top5, seconds, weights}
for recipe in recipes:
    base = os.path.join("runs", recipe)
    if not os.path.isdir(base):
        continue
    for name in sorted(os.listdir(base)):
        d = os.path.join(base, name)
        if not os.path.exists(os.path.join(d, "done")):
            continue
        _, fold, _, seed = name.split("-")
        weights = os.path.join(d, "last.npz")
        g = evaluate([weights], f"heldout/fold-{fold}/real_record.npz", f"evals/{recipe}-{name}.json")
        with open(os.path.join(d, "done")) as f:
            seconds = int(f.read().strip() or 0)
        runs.setdefault(recipe, []).append({"fold": int(fold), "seed": int(seed), "tau": g["kendall_tau"],
                                            "opa": g["opa"], "top5": g["slowdown_top5"], "seconds": seconds,
                                            "weights": weights})

# Seed ensembles (mean of raw scores) per recipe and fold: all of the fold's seeds as one, or with
# --ensemble-size N each run of N consecutive seeds (what the recipe trains from one --seed).
ensembles = {}
for recipe, rs in runs.items():
    for fold in folds:
        members = sorted((r for r in rs if r["fold"] == fold), key=lambda r: r["seed"])
        size = args.ensemble_size or len(members)
        groups = [members[i:i + size] for i in range(0, len(members) - size + 1, size)] if size >= 2 else []
        for group in groups:
            cache = (f"evals/{recipe}-ensemble-fold-{fold}-n{len(group)}.json" if not args.ensemble_size else
                     f"evals/{recipe}-ensemble-fold-{fold}-seeds-{group[0]['seed']}-{group[-1]['seed']}.json")
            g = evaluate([r["weights"] for r in group], f"heldout/fold-{fold}/real_record.npz", cache)
            ensembles.setdefault(recipe, []).append({"fold": fold, "tau": g["kendall_tau"], "opa": g["opa"],
                                                     "top5": g["slowdown_top5"], "members": len(group)})

print(f"command: {args.command}\n")
print("| recipe | n (runs) | tau (record, held out) | OPA | top-5 slowdown % | minutes per run |")
print("|---|---|---|---|---|---|")
for recipe in recipes:
    rs = runs.get(recipe, [])
    if rs:
        print(f"| {recipe} | {len(rs)} | {fmt([r['tau'] for r in rs])} | {fmt([r['opa'] for r in rs])} | "
              f"{fmt([r['top5'] for r in rs], 100, 4)} | {fmt([r['seconds'] / 60 for r in rs], 1, 1)} |")
    es = ensembles.get(recipe, [])
    if es:
        print(f"| {recipe}, seed ensemble | {len(es)} ensembles over {len({e['fold'] for e in es})} folds "
              f"({'/'.join(str(e['members']) for e in es)} seeds) | "
              f"{fmt([e['tau'] for e in es])} | {fmt([e['opa'] for e in es])} | {fmt([e['top5'] for e in es], 100, 4)} | |")
print(f"| simulator | {len(sim)} folds | {fmt([s['tau'] for s in sim.values()])} | "
      f"{fmt([s['opa'] for s in sim.values()])} | {fmt([s['top5_slowdown'] for s in sim.values()], 100, 4)} | |")

# Per fold: each candidate (recipe, or its ensemble) and the simulator.
candidates = {}
for recipe, rs in runs.items():
    candidates[recipe] = {f: spread([r["tau"] for r in rs if r["fold"] == f])[0] for f in folds}
for recipe, es in ensembles.items():
    candidates[recipe + " (ensemble)"] = {f: spread([e["tau"] for e in es if e["fold"] == f])[0] for f in folds
                                          if any(e["fold"] == f for e in es)}
print("\n| candidate | " + " | ".join(f"fold {f} ({sim[f]['configs']} configs)" for f in folds) + " | above the simulator on |")
print("|---|" + "---|" * (len(folds) + 1))
for name, by_fold in candidates.items():
    above = sum(1 for f in folds if f in by_fold and not math.isnan(by_fold[f]) and by_fold[f] > sim[f]["tau"])
    have = sum(1 for f in folds if f in by_fold and not math.isnan(by_fold[f]))
    print(f"| {name} | " + " | ".join(f"{by_fold[f]:.3f}" if f in by_fold and not math.isnan(by_fold[f]) else "–"
                                      for f in folds) + f" | {above} of {have} folds |")
print("| simulator | " + " | ".join(f"{sim[f]['tau']:.3f}" for f in folds) + " | |")

# Nested: for each fold, the candidate with the best mean over the other folds, reported on this one.
print("\n| reported fold | chosen on the other folds | its tau there | its tau on this fold | simulator |")
print("|---|---|---|---|---|")
nested = []
complete = {n: b for n, b in candidates.items() if all(f in b and not math.isnan(b[f]) for f in folds)}
for f in folds:
    if not complete:
        break
    others = [g for g in folds if g != f]
    chosen = max(complete, key=lambda n: sum(complete[n][g] for g in others) / len(others))
    there = sum(complete[chosen][g] for g in others) / len(others)
    nested.append(complete[chosen][f])
    print(f"| {f} | {chosen} | {there:.3f} | {complete[chosen][f]:.3f} | {sim[f]['tau']:.3f} |")
if nested:
    print(f"\nnested estimate (mean ± std over {len(nested)} folds): {fmt(nested)}")
