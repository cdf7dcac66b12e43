#!/usr/bin/env bash
# Builds TGraph Studio's Debian package: installs what is missing (tools/install-deps.sh), configures
# and builds like tools/build.sh (build/, or $TGRAPH_BUILD_DIR), then runs CPack (packaging/) and
# prints the path of build/package/tgraph-studio_<version>_<arch>.deb. Install it with
#   sudo apt install ./build/package/tgraph-studio_*.deb
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TGRAPH_BUILD_DIR:-$root/build}"

"$root/tools/install-deps.sh" >&2
"$root/tools/build.sh" >&2
cd "$build"
log="$(cpack --config CPackConfig.cmake -G DEB)" || { printf '%s\n' "$log" >&2; exit 1; }
deb="$(printf '%s\n' "$log" | sed -n 's/^CPack: - package: \(.*\.deb\) generated\.$/\1/p')"
if [ -z "$deb" ] || [ ! -f "$deb" ]; then
    printf '%s\n' "$log" >&2
    echo "package.sh: cpack reported no .deb" >&2
    exit 1
fi
echo "$deb"
