#!/usr/bin/env bash
# A layout collection larger than memory trains under a memory cap (docs/benchmarks.md §12):
# GRAPHS generated nlp-scale graphs (tgraph synth's single-graph generator, 40,000 nodes, 3,200
# configurable, 4,000 configs, members stored uncompressed: ~0.94 GB each), then `tgraph train
# --resident-graphs R` for STEPS steps under an address-space cap (prlimit --as, as `ulimit -v`),
# reporting the collection's size, the peak RSS and the time per step. With EAGER=1 the same
# training with every graph held in memory (--resident-graphs 0) runs under the same cap first.
# Usage: bench/scale_collection.sh [BUILD_DIR] [WORK_DIR]
#   environment: GRAPHS 32, STEPS 6, CONFIGS 8 (per step), RESIDENT 2, CAP 4G, CROSS off, RECOMPUTE on, EAGER 0
# WORK_DIR (default: a new temporary directory) keeps the generated graphs; a second run reuses them.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
work="${2:-$(mktemp -d)}"
tgraph="$build/bin/tgraph"
graphs="${GRAPHS:-32}"
steps="${STEPS:-6}"
configs="${CONFIGS:-8}"
resident="${RESIDENT:-2}"
cap="${CAP:-4G}"
cross="${CROSS:-off}"
recompute="${RECOMPUTE:-on}"
eager="${EAGER:-0}"
mkdir -p "$work/coll/train"

start=$(date +%s)
for i in $(seq 1 "$graphs"); do
    f="$work/coll/train/$(printf 'g%03d.npz' "$i")"
    [ -e "$f" ] || "$tgraph" synth -o "$f" --nodes 40000 --configurable 3200 --configs 4000 --seed "$i" --stored \
        >/dev/null
done
bytes=$(du -cb "$work"/coll/train/*.npz | tail -1 | cut -f1)
echo "collection: $graphs graphs, $(awk -v b="$bytes" 'BEGIN { printf "%.1f GiB", b / 2^30 }') on disk" \
    "(node_config_feat as float32: $(awk -v n="$graphs" 'BEGIN { printf "%.1f GiB", n * 4000 * 3200 * 18 * 4 / 2^30 }')," \
    "base-7 compressed: $(awk -v n="$graphs" 'BEGIN { printf "%.1f GiB", n * 4000 * 3200 * 3 * 4 / 2^30 }'))," \
    "generated or found in $(($(date +%s) - start)) s"
echo "memory: $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 2^20 }' /proc/meminfo) RAM; cap: prlimit --as=$cap;" \
    "load average $(cut -d' ' -f1-3 /proc/loadavg)"

capBytes=$(numfmt --from=iec "$cap")
# One training under the cap; prints its exit status, peak RSS, wall time and mean step time.
train() {
    local name="$1" keep="$2"
    local log="$work/$name.log"
    local status=0
    /usr/bin/time -f "peak_rss_kib=%M wall_s=%e" -o "$work/$name.time" \
        prlimit --as="$capBytes" "$tgraph" train --data "$work/coll" --resident-graphs "$keep" --steps "$steps" \
        --configs-per-step "$configs" --cross-attn "$cross" --recompute "$recompute" --eval-every 0 --log-every 1 --no-progress \
        --out "$work/$name-run" >"$log" 2>&1 || status=$?
    local peak wall
    peak=$(sed -n 's/.*peak_rss_kib=\([0-9]*\).*/\1/p' "$work/$name.time")
    wall=$(sed -n 's/.*wall_s=\([0-9.]*\).*/\1/p' "$work/$name.time")
    echo "$name: --resident-graphs $keep, $steps steps of $configs configs, cross-attn $cross, recompute $recompute:" \
        "exit $status," \
        "peak RSS $(awk -v k="${peak:-0}" 'BEGIN { printf "%.2f GiB", k / 2^20 }'), ${wall:-?} s wall (log $log)"
    if [ "$status" -ne 0 ]; then
        tail -2 "$log" | sed 's/^/    /'
    fi
}
if [ "$eager" = 1 ]; then
    train eager 0
fi
train lazy "$resident"
grep -E "^step|loaded" "$work/lazy.log" | head -3 | sed 's/^/    /' || true
