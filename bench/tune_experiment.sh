#!/usr/bin/env bash
# The autotuner's acceptance experiment (issue "Autotune"): on simulator modules, search with a model
# trained on that simulator and compare the simulated runtime of the best verified configuration
# with the compiler default's, for sa / evo / random search with the same budget, averaged over
# seeds. Prints one line per run and the geometric-mean speed-ups.
#
#   bench/tune_experiment.sh [BUILD_DIR] [WORK_DIR]
# Environment: STEPS (training steps, 1500), BUDGET (model evaluations per search, 1000),
# SEEDS (search seeds, "1 2 3"), GRAPHS (modules in the collection, 16).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
work="${2:-$(mktemp -d /tmp/tgraph-tune-XXXXXX)}"
tgraph="$build/bin/tgraph"
steps="${STEPS:-1500}"
budget="${BUDGET:-1000}"
seeds="${SEEDS:-1 2 3}"
graphs="${GRAPHS:-16}"
mkdir -p "$work"
cd "$work"

if [ ! -d coll ]; then
    # Families whose generated modules have layouts faster than the simulator's default.
    "$tgraph" synth --collection layout --sampler default --graphs "$graphs" --configs 300 \
        --families resnet,mlp --min-size 300 --max-size 500 --seed 21 -o coll >/dev/null
fi
if [ ! -f run/best.npz ]; then
    echo "training $steps steps on $(ls coll/train | wc -l) modules ..."
    "$tgraph" train --data coll --steps "$steps" --configs-per-step 32 --eval-every 500 --seed 3 \
        --cross-attn off -o run >train.log 2>&1
    grep "eval at step" train.log | tail -1
fi

printf '%-16s %-7s %5s %12s %12s %10s %9s %8s\n' graph strategy seed default_ns best_ns top-k_best applied seconds
declare -A logsum appliedsum count
for graph in coll/test/*.npz coll/valid/*.npz; do
    for strategy in random sa evo; do
        for seed in $seeds; do
            out="tune-$(basename "$graph" .npz)-$strategy-$seed"
            rm -rf "$out"
            start=$(date +%s.%N)
            "$tgraph" tune "$graph" --weights run/best.npz --strategy "$strategy" --budget "$budget" \
                --seed "$seed" --simulate -o "$out" >/dev/null 2>&1
            end=$(date +%s.%N)
            # top.csv: rank,evaluation,search_score,score,runtime_ns,...; row 2 = the default.
            read -r def best < <(awk -F, 'NR==2 {d=$5} NR>2 && $5!="" && (b=="" || $5<b) {b=$5} END {print d, b}' \
                "$out/top.csv")
            # top-k best: the fastest of the model's top-k; applied: the default unless one of them
            # verifiably beats it (what tune applies).
            speedup=$(awk -v d="$def" -v b="$best" 'BEGIN {printf "%.4f", d / b}')
            applied=$(awk -v d="$def" -v b="$best" 'BEGIN {printf "%.4f", (b < d ? d / b : 1)}')
            printf '%-16s %-7s %5s %12s %12s %9sx %8sx %8.1f\n' "$(basename "$graph" .npz)" "$strategy" "$seed" \
                "$def" "$best" "$speedup" "$applied" "$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')"
            logsum[$strategy]=$(awk -v s="${logsum[$strategy]:-0}" -v x="$speedup" 'BEGIN {print s + log(x)}')
            appliedsum[$strategy]=$(awk -v s="${appliedsum[$strategy]:-0}" -v x="$applied" 'BEGIN {print s + log(x)}')
            count[$strategy]=$(( ${count[$strategy]:-0} + 1 ))
        done
    done
done
echo
for strategy in random sa evo; do
    awk -v s="${logsum[$strategy]}" -v a="${appliedsum[$strategy]}" -v n="${count[$strategy]}" -v name="$strategy" \
        -v b="$budget" 'BEGIN {printf "%-7s geometric-mean speed-up over the compiler default: top-k best %.4fx, applied %.4fx (%d runs, budget %d)\n", name, exp(s / n), exp(a / n), n, b}'
done
