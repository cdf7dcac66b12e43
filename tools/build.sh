#!/usr/bin/env bash
# Configures (Release, Ninja, ccache when present) and builds TGraph Studio into build/ (or
# $TGRAPH_BUILD_DIR). Extra arguments are build targets (default: everything).
# Used by tools/demo.sh and tools/test.sh; works from any current directory.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TGRAPH_BUILD_DIR:-$root/build}"

if [ -f "$build/CMakeCache.txt" ]; then
    cmake -S "$root" -B "$build" >/dev/null
else
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build "$build" --parallel "$(nproc)" "${targets[@]}"
