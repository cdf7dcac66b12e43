#!/usr/bin/env bash
# The real-data sweep experiment (issue 29, docs/benchmarks.md §13): a `tgraph sweep` on the real
# layout tuning record and the published unet3d layout graph with folds over configurations
# (`tgraph train --config-folds`, docs/model.md §4.4.1), the grid times 3 seeds times the folds; the
# simulator on exactly the same held-out configurations of the record (`tgraph-bench heldout`); a
# seed ensemble of the best configuration per fold (`tgraph eval` with the seeds' weights on the
# held-out files). Prints the table of the README's "Experiment: sweeping on real data".
#
#   bench/real_sweep.sh [BUILD_DIR] [WORK_DIR]
# Environment: SHARED (the folder with data/tpu_graphs; default $TGRAPH_SHARED_DIR, else ../shared
# beside the repository),
# GRID ('hidden=64,256 lr=1e-3,3e-3'; hidden=256 lr=1e-3 are today's defaults), FOLDS (3), SEEDS (3), STEPS (150),
# PARALLEL (2), THREADS (1), DEFAULTS (the grid's configuration of today's defaults, 'hidden=256
# lr=1e-3'). A second call with the same WORK_DIR resumes the sweep and reports.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
work="${2:-$(mktemp -d /tmp/tgraph-real-sweep-XXXXXX)}"
shared="${SHARED:-${TGRAPH_SHARED_DIR:-$root/../shared}}"
grid="${GRID:-hidden=64,256 lr=1e-3,3e-3}"
folds="${FOLDS:-3}"
seeds="${SEEDS:-3}"
steps="${STEPS:-150}"
parallel="${PARALLEL:-2}"
threads="${THREADS:-1}"
tgraph="$build/bin/tgraph"
bench="$build/bin/tgraph-bench"
python=/usr/bin/python3
record="$shared/data/tpu_graphs/module_tuning_data_layout.pb"
unet="$shared/data/tpu_graphs/npz/layout_xla_default_train_unet3d.npz"
for f in "$record" "$unet"; do
    [ -f "$f" ] || { echo "real_sweep: $f is absent (set SHARED)"; exit 1; }
done
mkdir -p "$work/data"
cd "$work"
[ -f data/real_record.npz ] || "$tgraph" convert "$record" -o data/real_record.npz
[ -e data/unet3d.npz ] || ln -s "$unet" data/unet3d.npz

folds_list=$(seq -s, 0 $((folds - 1)))
start=$(date +%s)
if [ ! -f sweep.id ]; then
    echo real-sweep >sweep.id # first, so that a killed script resumes this sweep instead of making another
    "$tgraph" sweep --project real.tgproj --data data --name real-sweep \
        --grid "config-fold=$folds_list $grid" --seeds "$seeds" --parallel "$parallel" --threads "$threads" \
        --config-folds "$folds" --steps "$steps" --eval-every 0 >sweep.log 2>&1 || true
else
    "$tgraph" sweep --resume "$(cat sweep.id)" --project real.tgproj >>sweep.log 2>&1 || true
fi
sweep=$(cat sweep.id)
echo "sweep: $(($(date +%s) - start)) s wall time (log: $work/sweep.log)"
"$tgraph" sweep report "$sweep" --project real.tgproj -o report.txt
"$tgraph" sweep report "$sweep" --project real.tgproj --json -o report.json
# The held-out configurations of every fold as files, and the simulator on the record's.
"$bench" heldout --record "$record" --record-graph real_record.npz --config-folds "$folds" --out heldout data \
    >simulator.jsonl
# Every run's best checkpoint on its fold's held-out files (per graph: the record alone), the seed
# ensembles of the best configuration and of the defaults, and the tables.
"$python" "$root/bench/real_sweep_report.py" --tgraph "$tgraph" --threads "$threads" --defaults "${DEFAULTS:-hidden=256 lr=1e-3}" --sweep "$sweep" \
    --command "bench/real_sweep.sh (GRID='$grid' FOLDS=$folds SEEDS=$seeds STEPS=$steps PARALLEL=$parallel THREADS=$threads)"
