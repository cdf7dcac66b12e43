#!/usr/bin/env bash
# One command for a fresh Debian 12 machine: installs every dependency, builds, runs all tests.
# Tests reading the real inputs in ../shared/data are labelled `external` and skip when it is
# absent. Exit status is CTest's: non-zero when any test fails.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TGRAPH_BUILD_DIR:-$root/build}"

"$root/tools/install-deps.sh"
"$root/tools/build.sh"
cd "$build"
ctest --output-on-failure --parallel 2 "$@"
