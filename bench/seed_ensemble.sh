#!/usr/bin/env bash
# What a seed ensemble gives (docs/model.md §6.3, docs/benchmarks.md §19): `tgraph train --seeds N` on
# a simulated layout collection, then `tgraph eval` of each seed's best checkpoint and of the
# OUT/ensemble.npz it wrote, on a second collection of other generated modules that training never
# saw (all its graphs, measured). Prints one line per model (mean Kendall tau, OPA, top-5 slowdown)
# and the members' mean and standard deviation, and the predict time of the file against the same
# members given as repeated --weights.
#
#   bench/seed_ensemble.sh [BUILD_DIR] [WORK_DIR]
# Environment: SEEDS (runs, 3), STEPS (1000), HIDDEN (64), GRAPHS (training modules, 32),
# THREADS (2).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
work="${2:-$(mktemp -d /tmp/tgraph-seeds-XXXXXX)}"
tgraph="$build/bin/tgraph"
seeds="${SEEDS:-3}"
steps="${STEPS:-1000}"
hidden="${HIDDEN:-64}"
graphs="${GRAPHS:-32}"
threads="${THREADS:-2}"
mkdir -p "$work"
cd "$work"

[ -d train-coll ] || "$tgraph" synth --collection layout -o train-coll --graphs "$graphs" --configs 64 \
    --max-size 800 --seed 11 >/dev/null
[ -d held-out ] || "$tgraph" synth --collection layout -o held-out --graphs 24 --configs 64 --max-size 800 \
    --seed 12 >/dev/null
if [ ! -f run/ensemble.npz ]; then
    start=$(date +%s)
    "$tgraph" train --data train-coll --seeds "$seeds" --steps "$steps" --hidden "$hidden" --configs-per-step 32 \
        --eval-every 250 --threads "$threads" --recipe none --out run >train.log 2>&1
    echo "trained $seeds runs of $steps steps in $(($(date +%s) - start)) s"
fi

evaluate() { # WEIGHTS... -> "graphs tau opa top5"
    local args=()
    for w in "$@"; do args+=(--weights "$w"); done
    "$tgraph" eval "${args[@]}" --data held-out/train --data held-out/valid --threads "$threads" --json |
        /usr/bin/python3 -c 'import json, sys; m = json.load(sys.stdin)["mean"]; print(m["graphs"], m["kendall_tau"], m["opa"], m["slowdown_top5"])'
}

printf '%-22s %6s %8s %8s %8s\n' model graphs tau OPA top-5
taus=()
members=()
for ((k = 0; k < seeds; ++k)); do
    member=run/seed-$k/best.npz
    members+=("$member")
    read -r n tau opa top5 < <(evaluate "$member")
    taus+=("$tau")
    printf '%-22s %6d %8.4f %8.4f %8.4f\n' "$member" "$n" "$tau" "$opa" "$top5"
done
read -r n tau opa top5 < <(evaluate run/ensemble.npz)
printf '%-22s %6d %8.4f %8.4f %8.4f\n' run/ensemble.npz "$n" "$tau" "$opa" "$top5"
/usr/bin/python3 - "${taus[@]}" <<'PY'
import statistics, sys
t = [float(x) for x in sys.argv[1:]]
print(f"members: mean tau {statistics.mean(t):.4f} ± {statistics.stdev(t) if len(t) > 1 else 0:.4f} (std over seeds)")
PY

predict_seconds() {
    local start end
    start=$(date +%s.%N)
    "$tgraph" predict "$@" --data held-out/valid --threads "$threads" -o predicted.npz >/dev/null
    end=$(date +%s.%N)
    /usr/bin/python3 -c "print(f'{$end - $start:.2f}')"
}
weights=()
for m in "${members[@]}"; do weights+=(--weights "$m"); done
echo "predict held-out/valid: ensemble file $(predict_seconds --weights run/ensemble.npz) s, repeated --weights $(predict_seconds "${weights[@]}") s"
