#!/usr/bin/env bash
# Data-parallel scaling on this machine: training steps/s and graphs/s of one worker against two
# (--launch-local) with the same global batch (graphs per step) and one thread each, and of one
# process using all cores against workers sharing them.
# Usage: bench/dp_scaling.sh [BUILD_DIR] [WORK_DIR]   (environment: STEPS 40, CONFIGS 64)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
work="${2:-$(mktemp -d)}"
tgraph="$build/bin/tgraph"
steps="${STEPS:-40}"
configs="${CONFIGS:-64}"
cores="$(nproc)"
mkdir -p "$work"

"$tgraph" synth --collection layout -o "$work/coll" --graphs 12 --configs 200 --min-size 1500 --max-size 3000 \
    --families mlp,resnet,unet,transformer --seed 3 >/dev/null

# Wall seconds of one training command (the last evaluation only at the end).
run() {
    local out="$1"
    shift
    local start end
    start=$(date +%s.%N)
    "$tgraph" train --data "$work/coll" --steps "$steps" --configs-per-step "$configs" --eval-every 0 \
        --no-progress --out "$work/$out" "$@" >"$work/$out.log" 2>&1
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { print b - a }'
}

row() {
    local name="$1" graphs="$2" seconds="$3"
    awk -v n="$name" -v s="$seconds" -v k="$steps" -v g="$graphs" \
        'BEGIN { printf "%-44s %10.1f %10.2f %10.2f\n", n, s, k / s, k * g / s }'
}
printf "%s cores, %s steps of %s configs per graph (wall time includes start-up and one evaluation)\n" "$cores" \
    "$steps" "$configs"
printf "%-44s %10s %10s %10s\n" "setup" "wall s" "steps/s" "graphs/s"
row "1 worker x 1 thread, 2 graphs/step" 2 "$(run t1 --threads 1 --graphs-per-step 2)"
row "2 workers x 1 thread, 2 graphs/step" 2 "$(run w2t1 --launch-local 2 --threads 1)"
row "1 process, $cores threads, 1 graph/step" 1 "$(run g1 --threads "$cores")"
row "1 process, $cores threads, 2 graphs/step" 2 "$(run g2 --threads "$cores" --graphs-per-step 2)"
row "2 workers, cores shared, 2 graphs/step" 2 "$(run w2 --launch-local 2)"
grep -m1 'loaded layout data' "$work/g1.log"
echo "(the same global batch and seed give the same parameters: see tests/app/tst_distributed.cpp)"
