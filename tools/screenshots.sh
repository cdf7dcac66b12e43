#!/usr/bin/env bash
# Refreshes the README's pictures in docs/screenshots/: the studio's pages at 1366x768 (and the
# main ones at 1920x1080) with results on every page, drawn offscreen by tst_studio
# populatedPagesFitLaptopScreens (which trains a small model with `tgraph train` first), and the
# first view of the real modules and graphs of the reference data under a German locale, drawn by
# tst_firstview, the Passes page on the real XLA dump folder, drawn by tst_passespage, and a real
# module before / after optimization on the Diff page, drawn by tst_diffview (all skipped when the
# reference data are absent). Needs a build (tools/build.sh); takes
# about a minute.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TGRAPH_BUILD_DIR:-$root/build}"
shots="$(mktemp -d)"
trap 'rm -rf "$shots"' EXIT

nice -n 10 ninja -C "$build" tst_studio tst_firstview tst_passespage tst_diffview tgraph tgraph-model tgraph-studio >/dev/null
export QT_QPA_PLATFORM=offscreen OMP_WAIT_POLICY=PASSIVE OPENBLAS_NUM_THREADS=1 TGRAPH_SCREENSHOT_DIR="$shots"
"$build/bin/tst_studio" populatedPagesFitLaptopScreens >/dev/null
if [ -n "${TGRAPH_SHARED_DIR:-}" ] || [ -d "$root/../shared/data" ]; then
    # The German locale the tests compile (CTest's locale_de_DE fixture).
    (cd "$build" && ctest -R locale_de_DE >/dev/null)
    TGRAPH_SHARED_DIR="${TGRAPH_SHARED_DIR:-$root/../shared}" LC_ALL=de_DE.UTF-8 LOCPATH="$build/locale" \
        "$build/bin/tst_firstview" >/dev/null || true
    # The Passes page on the real XLA dump folder.
    TGRAPH_SHARED_DIR="${TGRAPH_SHARED_DIR:-$root/../shared}" "$build/bin/tst_passespage" realDumpFolder >/dev/null || true
    TGRAPH_SHARED_DIR="${TGRAPH_SHARED_DIR:-$root/../shared}" "$build/bin/tst_diffview" realBeforeAfterPair >/dev/null || true
fi

mkdir -p "$root/docs/screenshots"
for name in graph split inference attention explain tune runs compare; do
    cp "$shots/doc-$name.png" "$root/docs/screenshots/$name.png"
done
for name in graph inference explain tune runs; do
    cp "$shots/doc-$name-1920.png" "$root/docs/screenshots/$name-1920.png"
done
if [ -e "$shots/doc-passes.png" ]; then cp "$shots/doc-passes.png" "$root/docs/screenshots/passes.png"; fi
if [ -e "$shots/doc-diff.png" ]; then cp "$shots/doc-diff.png" "$root/docs/screenshots/diff.png"; fi
if [ -e "$shots/doc-diff-stages.png" ]; then cp "$shots/doc-diff-stages.png" "$root/docs/screenshots/diff-stages.png"; fi
for shot in "$shots"/firstview-*.png; do
    [ -e "$shot" ] && cp "$shot" "$root/docs/screenshots/$(basename "$shot")"
done
ls -l "$root/docs/screenshots"
