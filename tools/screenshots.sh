#!/usr/bin/env bash
# Refreshes the README's pictures in docs/screenshots/: the studio at 1366x768 with results in
# every dock, drawn offscreen by tst_studio populatedPagesFitLaptopScreens (which trains a small
# model with `tgraph train` first). Needs a build (tools/build.sh); takes about half a minute.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TGRAPH_BUILD_DIR:-$root/build}"
shots="$(mktemp -d)"
trap 'rm -rf "$shots"' EXIT

nice -n 10 ninja -C "$build" tst_studio tgraph tgraph-model tgraph-studio >/dev/null
QT_QPA_PLATFORM=offscreen OMP_WAIT_POLICY=PASSIVE OPENBLAS_NUM_THREADS=1 TGRAPH_SCREENSHOT_DIR="$shots" \
    "$build/bin/tst_studio" populatedPagesFitLaptopScreens >/dev/null

mkdir -p "$root/docs/screenshots"
for name in graph split inference attention explain tune runs compare; do
    cp "$shots/doc-$name.png" "$root/docs/screenshots/$name.png"
done
ls -l "$root/docs/screenshots"
