#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# The tables of bench/real_sweep.sh (docs/benchmarks.md §13), run in its work directory: reads the
# sweep's report.json and simulator.jsonl, scores every finished run's best checkpoint on its fold's
# held-out files with `tgraph eval` (evals/, kept for a second call), scores the seed ensembles of the
# best configuration and of the defaults per fold, and prints Markdown tables.
import argparse
import datetime
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_stats  # noqa: E402
from report_stats import fmt, spread  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--tgraph", required=True)
ap.add_argument("--threads", default="1")
ap.add_argument("--defaults", required=True, help="the configuration of today's defaults, 'hidden=256 lr=1e-3'")
ap.add_argument("--project", default="real.tgproj")
ap.add_argument("--sweep", default="real-sweep")
ap.add_argument("--command", default="")
args = ap.parse_args()


def evaluate(weights, data, out):
    return report_stats.evaluate(args.tgraph, args.threads, weights, data, out, "real_sweep_report")


def graph(result, stem):
    for g in result["graphs"]:
        if g["graph"] == stem:
            return g
    sys.exit(f"real_sweep_report: no {stem} in an evaluation")


report = json.load(open("report.json"))
sim = [json.loads(line) for line in open("simulator.jsonl") if line.strip()]
sim_by_fold = {s["fold"]: s for s in sim}
os.makedirs("evals", exist_ok=True)

configs = {}  # key without the fold -> list of runs
params_of = {c["config"]: c["parameters"] for c in report["configurations"]}
for run in report["runs"]:
    if run["status"] != "FINISHED":
        continue
    p = dict(params_of[run["config"]])
    fold = int(p.pop("config-fold"))
    key = " ".join(f"{k}={v}" for k, v in p.items())
    weights = os.path.join("real.tgproj.d", "runs", run["run"], "best.npz")
    e = evaluate([weights], f"heldout/fold-{fold}", f"evals/{run['run']}.json")
    rec = graph(e, "real_record")
    if abs(e["mean"]["kendall_tau"] - run["tau"]) > 1e-6:  # the files hold exactly the run's held-out configs
        sys.exit(f"real_sweep_report: run {run['run']}: eval tau {e['mean']['kendall_tau']} != the run's {run['tau']}")
    configs.setdefault(key, []).append({"fold": fold, "seed": run["seed"], "weights": weights, "tau": run["tau"],
        "opa": run["opa"], "top5": run["top5_slowdown"], "rtau": rec["kendall_tau"], "ropa": rec["opa"],
        "rtop5": rec["slowdown_top5"]})

if not configs:
    sys.exit("real_sweep_report: no finished run")
best = max(configs, key=lambda k: spread([r["tau"] for r in configs[k]])[0])
defaults = args.defaults if args.defaults in configs else None

print(f"\n### Per configuration: mean ± std over folds x seeds (n = runs)\n")
print("| configuration | n | tau (both graphs) | OPA | top-5 slowdown % | tau (record) | OPA (record) | top-5 % (record) |")
print("|---|---|---|---|---|---|---|---|")
for key in sorted(configs, key=lambda k: -spread([r["tau"] for r in configs[k]])[0]):
    rs = configs[key]
    mark = (" **best**" if key == best else "") + (" (defaults)" if key == defaults else "")
    print(f"| {key}{mark} | {len(rs)} | {fmt([r['tau'] for r in rs])} | {fmt([r['opa'] for r in rs])} | "
          f"{fmt([r['top5'] for r in rs], 100, 4)} | {fmt([r['rtau'] for r in rs])} | {fmt([r['ropa'] for r in rs])} | "
          f"{fmt([r['rtop5'] for r in rs], 100, 4)} |")
print(f"| simulator (record; over folds) | {len(sim)} | | | | {fmt([s['tau'] for s in sim])} | "
      f"{fmt([s['opa'] for s in sim])} | {fmt([s['top5_slowdown'] for s in sim], 100, 4)} |")

print("\n### The real record per fold: model (mean ± std over seeds), seed ensemble, simulator\n")
print("| fold | held-out configs | " + " | ".join(
    f"{k} ({'best' if k == best else 'defaults'}) tau | ensemble tau" for k in [best] + ([defaults] if defaults and defaults != best else []))
      + " | simulator tau |")
chosen = [best] + ([defaults] if defaults and defaults != best else [])
print("|---|---|" + "---|---|" * len(chosen) + "---|")
ensemble = {k: [] for k in chosen}
folds = sorted(sim_by_fold)
for fold in folds:
    cells = []
    for k in chosen:
        rs = [r for r in configs[k] if r["fold"] == fold]
        if not rs:  # a stopped sweep: no finished run of this fold yet
            cells += ["–", "–"]
            continue
        e = evaluate([r["weights"] for r in rs], f"heldout/fold-{fold}",
                     f"evals/ensemble-{k.replace(' ', '_').replace('=', '')}-fold{fold}.json")
        rec = graph(e, "real_record")
        ensemble[k].append({"rtau": rec["kendall_tau"], "ropa": rec["opa"], "rtop5": rec["slowdown_top5"],
                            "tau": e["mean"]["kendall_tau"]})
        cells += [fmt([r["rtau"] for r in rs]), f"{rec['kendall_tau']:.3f} ({len(rs)} seed{'' if len(rs) == 1 else 's'})"]
    print(f"| {fold} | {sim_by_fold[fold]['configs']} | " + " | ".join(cells) + f" | {sim_by_fold[fold]['tau']:.3f} |")
cells = []
for k in chosen:
    per_fold_means = [spread([r["rtau"] for r in configs[k] if r["fold"] == f])[0] for f in folds]
    cells += [fmt(per_fold_means), fmt([e["rtau"] for e in ensemble[k]])]
print("| mean ± std over folds | | " + " | ".join(cells) + f" | {fmt([s['tau'] for s in sim])} |")

print("\n### Seed ensembles (mean of the seeds' scores), mean ± std over folds\n")
print("| configuration | tau (both graphs) | tau (record) | OPA (record) | top-5 % (record) |")
print("|---|---|---|---|---|")
for k in chosen:
    es = ensemble[k]
    print(f"| {k} | {fmt([e['tau'] for e in es])} | {fmt([e['rtau'] for e in es])} | {fmt([e['ropa'] for e in es])} | "
          f"{fmt([e['rtop5'] for e in es], 100, 4)} |")

diff = [spread([r["rtau"] for r in configs[best] if r["fold"] == f])[0] - sim_by_fold[f]["tau"] for f in folds]
print(f"\nbest configuration: {best}; record tau minus simulator tau per fold: "
      + ", ".join(f"{d:+.3f}" for d in diff) + f" (mean {fmt(diff)})")
# Wall time: from the sweep run's start to its end as the project recorded them (resumes included).
shown = subprocess.run([args.tgraph, "runs", "show", args.sweep, "--project", args.project], capture_output=True,
                       text=True).stdout
times = dict(re.findall(r"^(started|ended)\s+(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)$", shown, re.M))
if "started" in times and "ended" in times:
    seconds = (datetime.datetime.fromisoformat(times["ended"]) - datetime.datetime.fromisoformat(times["started"])).seconds
    print(f"sweep wall time: {seconds} s ({seconds / 60:.1f} min) for {sum(len(v) for v in configs.values())} "
          f"finished runs ({times['started']} to {times['ended']})")
if args.command:
    print(f"command: {args.command}")
