#!/usr/bin/env bash
# One command for a fresh Debian 12 machine: installs every dependency, builds, and runs the main
# job on the bundled demo (generated reproducibly at first run by resources/demo/make-demo.sh:
# HLO modules of every generator family, their featurized, simulated and pruned graphs, a synthetic
# layout collection and a tile collection; all marked synthetic). With a display it opens TGraph
# Studio on the demo; without one it runs the headless pipeline and prints a summary. A second run
# reuses the build and the demo data.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TGRAPH_BUILD_DIR:-$root/build}"

"$root/tools/install-deps.sh"
"$root/tools/build.sh" tgraph tgraph-studio

tgraph="$build/bin/tgraph"
demo="$build/demo"
if [ ! -d "$demo/layout" ]; then
    echo "Generating the demo data into $demo ..."
    "$root/resources/demo/make-demo.sh" "$tgraph" "$demo"
fi

if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -z "${TGRAPH_DEMO_HEADLESS:-}" ]; then
    echo "Opening TGraph Studio on the demo (resnet module, its simulated graph before and after pruning)"
    exec "$build/bin/tgraph-studio" "$demo/modules/resnet.hlo" "$demo/graphs/resnet-simulated.npz" \
        "$demo/graphs/resnet-simulated-pruned.npz"
fi

echo "== No display: headless demo pipeline (synthetic data from $demo) =="
module="$demo/modules/resnet.hlo"
echo
echo "\$ tgraph inspect $module"
"$tgraph" inspect "$module" | head -n 14
echo
echo "\$ tgraph simulate $module --configs 200 -o $demo/graphs/resnet-simulated.npz"
"$tgraph" simulate "$module" --configs 200 -o "$demo/graphs/resnet-simulated.npz"
echo
echo "\$ tgraph prune $demo/graphs/resnet-simulated.npz --dedup keep-first --compress -o .../resnet-simulated-pruned.npz"
"$tgraph" prune "$demo/graphs/resnet-simulated.npz" --dedup keep-first --compress \
    -o "$demo/graphs/resnet-simulated-pruned.npz"
echo
echo "\$ tgraph inspect $demo/graphs/resnet-simulated-pruned.npz"
"$tgraph" inspect "$demo/graphs/resnet-simulated-pruned.npz" | grep -v "^synthetic" | head -n 12
echo
echo "Demo collections (simulated runtimes):"
for kind in layout tile; do
    for split in train valid test; do
        printf "  %-7s %-6s %3d graphs\n" "$kind" "$split" "$(ls "$demo/$kind/$split" | wc -l)"
    done
done
echo
if [ -f "$root/../shared/data/tpu_graphs/module_tuning_data_layout.pb" ]; then
    echo "\$ tgraph simulate ../shared/data/tpu_graphs/module_tuning_data_layout.pb   (the simulator against real measurements)"
    "$tgraph" simulate "$root/../shared/data/tpu_graphs/module_tuning_data_layout.pb"
fi

echo
project="$demo/demo.tgproj"
echo "\$ tgraph train --data $demo/layout --steps 40 --eval-every 20 --project $project   (a short TGraph training run)"
"$tgraph" train --data "$demo/layout" --steps 40 --eval-every 20 --log-every 10 --project "$project" \
    --run-name "demo-$(date +%H%M%S)" | grep -v "^    "
run_dir="$(ls -td "$project.d"/runs/*/ | head -n 1)"
echo
echo "\$ tgraph eval --weights ${run_dir}best.npz --data $demo/layout/valid"
"$tgraph" eval --weights "${run_dir}best.npz" --data "$demo/layout/valid"
echo
echo "\$ tgraph runs list --project $project"
"$tgraph" runs list --project "$project"
