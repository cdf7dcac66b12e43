#!/usr/bin/env bash
# One command for a fresh Debian 12 machine: installs every dependency, builds, runs all tests.
# Tests reading the real inputs in ../shared/data are labelled `external` and skip when it is
# absent. Then the sanitizer build: the torch-free parts (core, `tgraph`, their tests, the fuzz
# corpus replay) built with ASan + UBSan into build/asan (-DTGRAPH_SANITIZE=ON) and their tests
# run there (label `sanitize`; docs/testing.md §4). TGRAPH_SKIP_SANITIZE=1 leaves that step out
# for a quick local run; CI runs it. Arguments go to both ctest runs (e.g. -R tst_json, -L core).
# Exit status: non-zero when any test of either run fails.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TGRAPH_BUILD_DIR:-$root/build}"

"$root/tools/install-deps.sh"
"$root/tools/build.sh"
status=0
(cd "$build" && ctest --output-on-failure --parallel 2 "$@") || status=$?

if [ "${TGRAPH_SKIP_SANITIZE:-0}" = 1 ]; then
    echo "test.sh: sanitizer build skipped (TGRAPH_SKIP_SANITIZE=1)"
    exit "$status"
fi
asan="$build/asan"
if [ ! -f "$asan/CMakeCache.txt" ]; then
    shared=()  # the reference data where the regular build looks for them
    dir="$(grep -m1 '^TGRAPH_SHARED_DIR:' "$build/CMakeCache.txt" | cut -d= -f2- || true)"
    [ -n "$dir" ] && shared=(-DTGRAPH_SHARED_DIR="$dir")
    cmake -S "$root" -B "$asan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTGRAPH_SANITIZE=ON "${shared[@]}" >/dev/null
fi
cmake --build "$asan" --parallel "$(nproc)"
(cd "$asan" && ctest --output-on-failure --parallel 2 -L sanitize "$@") || status=$?
exit "$status"
