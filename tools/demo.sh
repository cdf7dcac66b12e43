#!/usr/bin/env bash
# One command for a fresh Debian 12 machine: installs every dependency, builds, and runs the main
# job on the bundled demo. With a display it opens TGraph Studio on the demo graphs; without one it
# runs the headless pipeline (generate -> inspect -> prune + dedup + compress -> inspect) and prints
# its results. A second run reuses the build and the demo data.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TGRAPH_BUILD_DIR:-$root/build}"

"$root/tools/install-deps.sh"
"$root/tools/build.sh" tgraph tgraph-studio

bin="$build/bin"
demo="$build/demo"
mkdir -p "$demo"
# Until the simulator issue bundles realistic demo modules, the demo graph is a synthetic
# TpuGraphs layout graph (marked synthetic; see `tgraph synth --help`).
graph="$demo/demo-layout.npz"
pruned="$demo/demo-layout-pruned.npz"
if [ ! -f "$graph" ]; then
    "$bin/tgraph" synth -o "$graph" --nodes 3000 --configurable 60 --configs 1000 --duplicates 0.05 --seed 7
fi

if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -z "${TGRAPH_DEMO_HEADLESS:-}" ]; then
    [ -f "$pruned" ] || "$bin/tgraph" prune "$graph" -o "$pruned" --dedup keep-first --compress
    echo "Opening TGraph Studio on $graph and $pruned"
    exec "$bin/tgraph-studio" "$graph" "$pruned"
fi

echo "== No display: headless demo pipeline =="
echo
echo "\$ tgraph inspect $graph"
"$bin/tgraph" inspect "$graph"
echo
echo "\$ tgraph prune $graph -o $pruned --dedup keep-first --compress"
"$bin/tgraph" prune "$graph" -o "$pruned" --dedup keep-first --compress
echo
echo "\$ tgraph inspect $pruned"
"$bin/tgraph" inspect "$pruned"
