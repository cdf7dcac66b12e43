#!/usr/bin/env bash
# The recipe experiment (issue 42, docs/benchmarks.md §17): held-out Kendall tau on the real
# tuning record for training recipes, with folds over configurations (docs/model.md §4.4.1: the
# record's and unet3d's distinct configurations cut into FOLDS folds; train on the others, rank
# the held-out ones) x SEEDS seeds; the analytical simulator on the same held-out configurations;
# each recipe's seed ensemble per fold; the recipe picked on the other folds (nested). Prints the
# tables of §17 (bench/recipe_report.py).
#
#   bench/recipe_experiment.sh [BUILD_DIR] [WORK_DIR]
# Environment: SHARED (the folder with data/tpu_graphs; default $TGRAPH_SHARED_DIR, else ../shared
# beside the repository), RECIPES (the names below, in the order to run; default all), FOLDS (3),
# SEEDS ('42 43 44'), STEPS (150, the measured phase), PARALLEL (2), THREADS (1), PRECISION (fp32, as
# §17 was measured: the same figures on any CPU; auto or bf16 for the fast path), ENSEMBLE_SIZE (0: a
# fold's seeds as one ensemble; 3: each 3 consecutive seeds, as the recipe trains them). Runs that finished
# are kept: a second call with the same WORK_DIR trains only the missing ones and reports.
#
# Recipes (flags added to `tgraph train --data data --config-folds F --config-fold k --seed S
# --steps STEPS --eval-every 0`):
#   defaults     --recipe none (hidden 256, lr 1e-3; before docs/model.md §4.8 this was the plain command)
#   auto         (nothing: the recipe `tgraph train` picks for these data, docs/model.md §4.8)
#   best-sweep   --lr 3e-3 (docs/benchmarks.md §13's best)
#   pretrain     --lr 3e-3 --pretrain-sim 1000 (STEPS simulated-layout steps first, docs/model.md §4.7)
#   pretrain-1e3 --pretrain-sim 1000 (pretraining with the default lr)
#   sim-inputs   --lr 3e-3 --sim-inputs (the simulator's estimates as inputs, docs/model.md §4.9)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
work="${2:-$(mktemp -d /tmp/tgraph-recipe-XXXXXX)}"
shared="${SHARED:-${TGRAPH_SHARED_DIR:-$root/../shared}}"
recipes="${RECIPES:-defaults best-sweep pretrain pretrain-1e3}"
folds="${FOLDS:-3}"
seeds="${SEEDS:-42 43 44}"
steps="${STEPS:-150}"
parallel="${PARALLEL:-2}"
threads="${THREADS:-1}"
precision="${PRECISION:-fp32}"
ensemble_size="${ENSEMBLE_SIZE:-0}"
tgraph="$build/bin/tgraph"
bench="$build/bin/tgraph-bench"
record="$shared/data/tpu_graphs/module_tuning_data_layout.pb"
unet="$shared/data/tpu_graphs/npz/layout_xla_default_train_unet3d.npz"
for f in "$record" "$unet"; do
    [ -f "$f" ] || { echo "recipe_experiment: $f is absent (set SHARED)"; exit 1; }
done
mkdir -p "$work/data" "$work/runs"
cd "$work"
[ -f data/real_record.npz ] || "$tgraph" convert "$record" -o data/real_record.npz
# The record's module beside its graph: what --pretrain-sim prices (docs/model.md §4.7).
[ -e data/real_record.pb ] || ln -s "$record" data/real_record.pb
[ -e data/unet3d.npz ] || ln -s "$unet" data/unet3d.npz

flags() {
    case "$1" in
    defaults) echo "--recipe none" ;;
    auto) echo "" ;;
    best-sweep) echo "--lr 3e-3" ;;
    pretrain) echo "--lr 3e-3 --pretrain-sim 1000" ;;
    pretrain-1e3) echo "--pretrain-sim 1000" ;;
    sim-inputs) echo "--lr 3e-3 --sim-inputs" ;;
    *) echo "recipe_experiment: unknown recipe $1" >&2; exit 2 ;;
    esac
}

# One line per run, seeds outermost so that a cut-short experiment has whole seeds over all folds.
jobs=jobs.txt
: >"$jobs"
for seed in $seeds; do
    for recipe in $recipes; do
        for ((k = 0; k < folds; ++k)); do
            dir="runs/$recipe/fold-$k-seed-$seed"
            [ -f "$dir/done" ] && continue
            echo "$recipe $k $seed" >>"$jobs"
        done
    done
done
start=$(date +%s)
run_one() {
    local recipe=$1 k=$2 seed=$3
    local dir="runs/$recipe/fold-$k-seed-$seed"
    rm -rf "$dir"
    mkdir -p "$dir"
    local t0=$(date +%s)
    # shellcheck disable=SC2046
    if nice -n 5 "$tgraph" train --data data --config-folds "$folds" --config-fold "$k" --seed "$seed" \
        --steps "$steps" --eval-every 0 --threads "$threads" --precision "$precision" --no-progress --out "$dir" $(flags "$recipe") \
        >"$dir/train.log" 2>&1; then
        echo $(($(date +%s) - t0)) >"$dir/done"
    else
        echo "recipe_experiment: $dir failed (see $dir/train.log)" >&2
    fi
}
export -f run_one flags
export tgraph folds steps threads precision
if [ -s "$jobs" ]; then
    xargs -P "$parallel" -L 1 bash -c 'run_one "$@"' _ <"$jobs" || true
fi
echo "runs: $(($(date +%s) - start)) s wall time for $(wc -l <"$jobs") runs, $parallel at a time"
# The held-out configurations of every fold as files, and the simulator on the record's.
[ -s simulator.jsonl ] || "$bench" heldout --record "$record" --record-graph real_record.npz --config-folds "$folds" \
    --out heldout data >simulator.jsonl
# The record's module beside each fold's held-out file, for models with simulator inputs.
for ((k = 0; k < folds; ++k)); do
    [ -e "heldout/fold-$k/real_record.pb" ] || ln -s "$record" "heldout/fold-$k/real_record.pb"
done
/usr/bin/python3 "$root/bench/recipe_report.py" --tgraph "$tgraph" --threads "$threads" --recipes "$recipes" \
    --precision "$precision" --ensemble-size "$ensemble_size" \
    --command "bench/recipe_experiment.sh (RECIPES='$recipes' FOLDS=$folds SEEDS='$seeds' STEPS=$steps PARALLEL=$parallel THREADS=$threads PRECISION=$precision ENSEMBLE_SIZE=$ensemble_size)"
