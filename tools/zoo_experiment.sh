#!/usr/bin/env bash
# The model-zoo experiment (README "Model zoo"): the four cost models of the seed papers trained with
# the same budget (steps, configs per step, seed, learning rate schedule) on
#   1. a simulator layout collection sampled like layout:*:random,
#   2. a simulator layout collection sampled like layout:*:default (TGraph with and without its
#      cross-config attention, the seed paper's ablation),
#   3. a simulator tile collection,
# plus Kaufman et al.'s ablations (rank loss vs MSE, learned vs column-wise reduction), all recorded
# in one project and printed with `tgraph compare`; then every layout model trained in (1) is
# evaluated on the real TpuGraphs layout graphs in ../shared/data (report only: simulator-trained
# models on real TPU measurements).
#
#   tools/zoo_experiment.sh [BUILD_DIR] [WORK_DIR]
# Environment: STEPS (training steps per run, 300), GRAPHS (modules / kernels to train on, 24),
# VALID (held-out modules / kernels, generated with another seed, 10),
# SEED (training seed, 1), THREADS (LibTorch threads, 0 = all cores), SHARED (../shared).
# Re-running reuses the collections and the runs already in WORK_DIR/zoo.tgproj.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
work="${2:-/tmp/tgraph-zoo}"
steps="${STEPS:-300}"
graphs="${GRAPHS:-24}"
valid="${VALID:-10}"
seed="${SEED:-1}"
threads="${THREADS:-0}"
shared="${SHARED:-$root/../shared}"
tgraph="$build/bin/tgraph"
[ -x "$tgraph" ] || { echo "zoo_experiment: no $tgraph (build first: tools/build.sh)" >&2; exit 1; }
mkdir -p "$work/logs"
cd "$work"
project="$work/zoo.tgproj"

# A collection: GRAPHS generated graphs to train on (their train/ and valid/ splits) and VALID more
# from another seed to validate on (a synth collection's own valid/ split has only a few graphs).
synth() { # NAME ARGS...
    local name="$1"
    shift
    [ -d "$name" ] && return
    "$tgraph" synth -o "$name.train-src" --graphs "$graphs" --seed 11 "$@" >/dev/null
    "$tgraph" synth -o "$name.valid-src" --graphs "$valid" --seed 12 "$@" >/dev/null
    mkdir -p "$name.tmp/train" "$name.tmp/valid"
    for f in "$name".train-src/{train,valid}/*.npz; do ln -s "$PWD/$f" "$name.tmp/train/$(basename "$f")"; done
    for f in "$name".valid-src/{train,valid}/*.npz; do ln -s "$PWD/$f" "$name.tmp/valid/v-$(basename "$f")"; done
    mv "$name.tmp" "$name"
}
synth layout-random --collection layout --sampler random --configs 200 --min-size 300 --max-size 1000
synth layout-default --collection layout --sampler default --configs 200 --min-size 300 --max-size 1000
synth tile --collection tile --configs 64 --min-size 300 --max-size 1000

has_run() { "$tgraph" runs show "$1" --project "$project" >/dev/null 2>&1; }

train() { # RUN DATA ARGS...
    local run="$1" data="$2"
    shift 2
    if [ -f "$project" ] && has_run "$run"; then
        return
    fi
    echo "training $run ($*) ..." >&2
    local start=$SECONDS
    if ! "$tgraph" train --data "$data" --steps "$steps" --configs-per-step 64 --eval-every $((steps / 4)) \
        --log-every 100 --seed "$seed" --threads "$threads" --project "$project" --experiment zoo \
        --run-name "$run" "$@" >"logs/$run.log" 2>&1; then
        echo "zoo_experiment: $run failed, see $work/logs/$run.log" >&2
        tail -n 3 "logs/$run.log" >&2
        exit 1
    fi
    echo "  $((SECONDS - start)) s" >&2
}

# 1. Layout, random sampler: the four models, then Kaufman's ablations.
train lr-tgraph layout-random --cross-attn off # the code's choice for random collections
train lr-baseline layout-random --model tpugraphs-baseline
train lr-kaufman layout-random --model kaufman --reduction mean-max
train lr-tpgnn layout-random --model tpgnn
train lr-kaufman-mse layout-random --model kaufman --reduction mean-max --loss mse
train lr-kaufman-lstm layout-random --model kaufman --reduction lstm
train lr-kaufman-transformer layout-random --model kaufman --reduction transformer
train lr-kaufman-per-node layout-random --model kaufman --reduction per-node
# 2. Layout, default sampler: TGraph with and without cross-config attention, and the others.
train ld-tgraph layout-default --cross-attn on # the code's choice for default collections
train ld-tgraph-no-xattn layout-default --cross-attn off
train ld-baseline layout-default --model tpugraphs-baseline
train ld-kaufman layout-default --model kaufman --reduction mean-max
train ld-tpgnn layout-default --model tpgnn
# 3. Tile: the four models, Kaufman with its rank loss and with MSE, column-wise and LSTM.
train t-tgraph tile
train t-baseline tile --model tpugraphs-baseline
train t-kaufman tile --model kaufman --reduction mean-max
train t-tpgnn tile --model tpgnn
train t-kaufman-mse tile --model kaufman --reduction mean-max --loss mse
train t-kaufman-lstm tile --model kaufman --reduction lstm

section() { printf '\n## %s\n\n' "$1"; }
{
    echo "# Model zoo experiment: $graphs training and $valid held-out graphs per collection, $steps steps x 64 configs, seed $seed"
    section "Layout, random sampler"
    "$tgraph" compare --project "$project" --runs lr-tgraph lr-baseline lr-kaufman lr-tpgnn lr-kaufman-mse \
        lr-kaufman-lstm lr-kaufman-transformer lr-kaufman-per-node
    section "Layout, default sampler"
    "$tgraph" compare --project "$project" --runs ld-tgraph ld-tgraph-no-xattn ld-baseline ld-kaufman ld-tpgnn
    section "Tile"
    "$tgraph" compare --project "$project" --runs t-tgraph t-baseline t-kaufman t-tpgnn t-kaufman-mse t-kaufman-lstm

    real="$shared/data/tpu_graphs/npz"
    if compgen -G "$real/layout_*.npz" >/dev/null; then
        section "Real TpuGraphs layout graphs (models of the random-sampler collection; report only)"
        for run in lr-tgraph lr-baseline lr-kaufman lr-tpgnn lr-kaufman-mse lr-kaufman-lstm; do
            "$tgraph" runs export "$run" --project "$project" --weights "$work/w-$run.npz" >/dev/null
            echo "### $run"
            "$tgraph" eval --weights "$work/w-$run.npz" --data "$real"/layout_*.npz --threads "$threads" |
                grep -v '^tau: \|^$'
        done
    else
        section "Real TpuGraphs layout graphs: $real not found, skipped"
    fi
} | tee "$work/report.txt"
"$tgraph" compare --project "$project" --json --runs lr-tgraph lr-baseline lr-kaufman lr-tpgnn lr-kaufman-mse \
    lr-kaufman-lstm lr-kaufman-transformer lr-kaufman-per-node ld-tgraph ld-tgraph-no-xattn ld-baseline ld-kaufman \
    ld-tpgnn t-tgraph t-baseline t-kaufman t-tpgnn t-kaufman-mse t-kaufman-lstm -o "$work/report.json"
echo "report: $work/report.txt, $work/report.json; project: $project" >&2
