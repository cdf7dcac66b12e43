#!/usr/bin/env bash
# Generates TGraph Studio's demo data, reproducibly (fixed seeds), with the `tgraph` binary:
#   resources/demo/make-demo.sh TGRAPH_BINARY OUT_DIR
# OUT_DIR/modules/*.hlo         generated HLO modules of every family (gen-hlo)
# OUT_DIR/graphs/*.npz          each module featurized (convert), with simulated layout configs
#                               (simulate) and pruned with de-duplicated, compressed configs (prune)
# OUT_DIR/layout/{train,valid,test}   a synthetic layout collection, 20 graphs x 200 configs
# OUT_DIR/tile/{train,valid,test}     a synthetic tile collection, 20 kernels
# Everything is marked synthetic (meta_synthetic). Nothing here is checked in: it is made at first run.
set -euo pipefail
tgraph="$1"
out="$2"
rm -rf "$out.partial"
mkdir -p "$out.partial/modules" "$out.partial/graphs"
families=$("$tgraph" gen-hlo --help | sed -n 's/.*model family: \([a-z, ]*\).*/\1/p' | tr -d ' ' | tr ',' ' ')
seed=1
for family in $families; do
    "$tgraph" gen-hlo --family "$family" --size 1500 --seed "$seed" -o "$out.partial/modules/$family.hlo" >/dev/null
    "$tgraph" convert "$out.partial/modules/$family.hlo" -o "$out.partial/graphs/$family.npz" >/dev/null
    "$tgraph" simulate "$out.partial/modules/$family.hlo" --configs 200 --seed "$seed" \
        -o "$out.partial/graphs/$family-simulated.npz" >/dev/null
    "$tgraph" prune "$out.partial/graphs/$family-simulated.npz" --dedup keep-first --compress \
        -o "$out.partial/graphs/$family-simulated-pruned.npz" >/dev/null
    seed=$((seed + 1))
done
"$tgraph" synth --collection layout --sampler default --graphs 20 --configs 200 --seed 7 \
    --min-size 300 --max-size 2000 -o "$out.partial/layout" >/dev/null
"$tgraph" synth --collection tile --graphs 20 --configs 60 --seed 7 -o "$out.partial/tile" >/dev/null
rm -rf "$out"
mv "$out.partial" "$out"
