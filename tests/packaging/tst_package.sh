#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tst_package: builds the Debian package from this build tree (CPack, as tools/package.sh does),
# checks its control fields and file list, extracts it with `dpkg -x` into a scratch root and runs the
# executables from there (tgraph --version, a model command through the tgraph-model beside it, a
# graph rendered by the tgraph-studio beside it), and validates the desktop entry, AppStream
# metadata, MIME types, man pages and icons it installs.
#   tst_package.sh BUILD_DIR VERSION APP_ID
set -euo pipefail
build="$1"
version="$2"
app_id="$3"

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { echo "PASS: $*"; }
# check DESCRIPTION COMMAND...: runs the command, its output shown on failure.
check() {
    local what="$1"; shift
    local out
    if out="$("$@" 2>&1)"; then pass "$what"; else fail "$what: $* exited $?"; printf '%s\n' "$out" >&2; fi
}

scratch="$(mktemp -d "$build/tst_package.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
root="$scratch/root"
export XDG_RUNTIME_DIR="$scratch/xdg-runtime"
mkdir -m 700 "$XDG_RUNTIME_DIR"

# 1. The package, built from this tree into the scratch directory.
cd "$build"
if ! log="$(cpack --config CPackConfig.cmake -G DEB -B "$scratch/out" 2>&1)"; then
    printf '%s\n' "$log" >&2
    echo "FAIL: cpack could not build the package" >&2
    exit 1
fi
arch="$(dpkg --print-architecture)"
deb="$scratch/out/tgraph-studio_${version}_${arch}.deb"
if [ ! -f "$deb" ]; then
    printf '%s\n' "$log" >&2
    echo "FAIL: cpack did not write $(basename "$deb")" >&2
    exit 1
fi
echo "package: $(basename "$deb"), $(stat -c %s "$deb") bytes"

# 2. Control fields.
control="$(dpkg-deb -f "$deb")"
printf '%s\n' "$control" | grep -E '^(Package|Version|Architecture|Depends|Recommends|Installed-Size):'
field() { printf '%s\n' "$control" | sed -n "s/^$1: //p"; }
[ "$(field Package)" = tgraph-studio ] && pass "Package: tgraph-studio" || fail "Package is '$(field Package)'"
[ "$(field Version)" = "$version" ] && pass "Version: $version" || fail "Version is '$(field Version)', not $version"
depends="$(field Depends)"
# Explicit (run, not linked) and from dpkg-shlibdeps (linked): LibTorch, Qt Widgets, Graphviz, SQLite.
for dep in graphviz libopenblas0-openmp python3 python3-numpy 'libtorch[0-9.]*' 'libqt6widgets6' 'libgvc6' 'libsqlite3-0' 'libc6'; do
    if printf '%s\n' "$depends" | tr ',' '\n' | grep -Eq "^ *${dep}( |\$)"; then
        pass "Depends names $dep"
    else
        fail "Depends lacks $dep: $depends"
    fi
done

# 3. File list: what must be there, and nothing from tests, benchmarks or build helpers.
files="$(dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|')"
required=(
    /usr/bin/tgraph /usr/bin/tgraph-model /usr/bin/tgraph-studio
    /usr/share/man/man1/tgraph.1.gz /usr/share/man/man1/tgraph-studio.1.gz /usr/share/man/man1/tgraph-model.1.gz
    "/usr/share/applications/$app_id.desktop" "/usr/share/metainfo/$app_id.metainfo.xml"
    /usr/share/mime/packages/tgraph-studio.xml /usr/share/doc/tgraph-studio/copyright
    "/usr/share/icons/hicolor/scalable/apps/$app_id.svg"
)
icon_sizes=(16 22 24 32 48 64 128 256 512)
for s in "${icon_sizes[@]}"; do required+=("/usr/share/icons/hicolor/${s}x${s}/apps/$app_id.png"); done
# The Python module (app/python) and its type stubs, in Debian's path for modules of python3.
pymodule="$(printf '%s\n' "$files" | grep -E '^/usr/lib/python3/dist-packages/tgraph\.cpython-[0-9]+-[^/]*\.so$' || true)"
[ -n "$pymodule" ] && pass "the package holds the Python module $pymodule" || fail "the package lacks /usr/lib/python3/dist-packages/tgraph.cpython-*.so"
required+=(/usr/lib/python3/dist-packages/tgraph.pyi)
for f in "${required[@]}"; do
    grep -qxF "$f" <<<"$files" || fail "the package lacks $f"
done
pass "the package holds the ${#required[@]} required files"
if stray="$(printf '%s\n' "$files" | grep -E '/(tst_|tgraph-bench|tgraph-rendericon|fuzz_)|\.a$|^/usr/(local|include)/|^/(etc|opt|var|home)/')"; then
    fail "the package holds files it must not: $stray"
fi
outside="$(printf '%s\n' "$files" | grep -v '^/usr/' | grep -v '^/$' || true)"
[ -z "$outside" ] && pass "every file is under /usr" || fail "files outside /usr: $outside"

# 4. The extracted package runs from its own directory.
dpkg -x "$deb" "$root"
bin="$root/usr/bin"
if out="$("$bin/tgraph" --version 2>&1)" && [[ "$out" == "tgraph $version "* ]]; then
    pass "tgraph --version: $out"
else
    fail "tgraph --version printed '$out'"
fi
if out="$(QT_QPA_PLATFORM=offscreen "$bin/tgraph-studio" --version 2>&1)" && [[ "$out" == *" $version"* ]]; then
    pass "tgraph-studio --version: $out"
else
    fail "tgraph-studio --version printed '$out'"
fi
# The installed tgraph-model runs its products on the OpenMP build of OpenBLAS (its RUNPATH names
# that build's folder, whatever the libblas.so.3 alternative says; docs/build.md §4).
if [ -e "/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)/openblas-openmp/libblas.so.3" ]; then
    if out="$("$bin/tgraph-model" --version 2>&1)" && [[ "$out" == *"OpenBLAS (OpenMP)"* ]]; then
        pass "tgraph-model --version: $out"
    else
        fail "tgraph-model --version does not name the OpenMP OpenBLAS: $out"
    fi
fi
# `tgraph train` is run by the tgraph-model next to tgraph: its help proves that one starts.
if out="$("$bin/tgraph" train --help 2>&1)" && [[ "$out" == "Usage: tgraph train "* ]]; then
    pass "tgraph train --help (tgraph-model from the package)"
else
    fail "tgraph train --help: $out"
fi
check "tgraph gen-hlo" "$bin/tgraph" gen-hlo --family mlp --size 100 -o "$scratch/a.hlo"
# `import tgraph` from the extracted dist-packages with Debian's python3, reading what tgraph wrote.
if out="$(PYTHONPATH="$root/usr/lib/python3/dist-packages" /usr/bin/python3 -c \
    "import sys, tgraph; m = tgraph.read_hlo(sys.argv[1])[0]; print(tgraph.__version__, tgraph.__file__, m.instruction_count)" \
    "$scratch/a.hlo" 2>&1)" && [[ "$out" == "$version $root/usr/lib/python3/dist-packages/tgraph."* ]]; then
    pass "python3 -c 'import tgraph' from the package: $out"
else
    fail "import tgraph from the package: $out"
fi
check "tgraph inspect" "$bin/tgraph" inspect "$scratch/a.hlo"
# `tgraph render` runs the tgraph-studio next to it (offscreen) and Graphviz lays the graph out.
check "tgraph render (tgraph-studio from the package)" "$bin/tgraph" render "$scratch/a.hlo" -o "$scratch/a.png"
[ -s "$scratch/a.png" ] || fail "tgraph render wrote no drawing"

# 5. Desktop entry, AppStream metadata, MIME types.
check "desktop-file-validate" desktop-file-validate "$root/usr/share/applications/$app_id.desktop"
check "appstreamcli validate" appstreamcli validate --no-net --pedantic "$root/usr/share/metainfo/$app_id.metainfo.xml"
mime="$scratch/mime"
mkdir -p "$mime/packages"
cp "$root/usr/share/mime/packages/tgraph-studio.xml" "$mime/packages/"
check "update-mime-database" update-mime-database "$mime"
for t in 'application/x-tgraph-project application/vnd.sqlite3' 'text/x-xla-hlo text/plain' \
    'application/x-npz application/zip'; do
    grep -qxF "$t" "$mime/subclasses" 2>/dev/null && pass "MIME sub-class: $t" || fail "MIME database lacks sub-class $t"
done
for g in 'application/x-tgraph-project:\*.tgproj' 'text/x-xla-hlo:\*.hlo' 'application/x-npz:\*.npz'; do
    grep -q ":$g\$" "$mime/globs2" 2>/dev/null && pass "MIME glob ${g//\\/}" || fail "MIME database lacks glob ${g//\\/}"
done

# 6. Man pages: render without warnings, and tgraph(1) documents every command `tgraph --help` lists.
for page in tgraph tgraph-studio; do
    file="$root/usr/share/man/man1/$page.1.gz"
    if text="$(MANWIDTH=100 man --warnings=w -l "$file" 2>"$scratch/man.err")" && [ ! -s "$scratch/man.err" ] \
        && [ -n "$text" ]; then
        pass "man -l $page.1.gz renders without warnings"
    else
        fail "man -l $page.1.gz: $(cat "$scratch/man.err")"
    fi
done
text="$(MANWIDTH=100 man -l "$root/usr/share/man/man1/tgraph.1.gz" 2>/dev/null)"
commands="$("$bin/tgraph" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z-]*\) .*/\1/p')"
[ "$(printf '%s\n' "$commands" | wc -l)" -ge 10 ] || fail "tgraph --help lists too few commands: $commands"
missing=""
# A here-string, not a pipe: grep -q exits at its first match and, under pipefail, the writer's
# SIGPIPE would count as "missing" once the page outgrows the pipe buffer.
for c in $commands; do
    grep -q "^   tgraph $c\$" <<<"$text" || missing+=" $c"
done
[ -z "$missing" ] && pass "tgraph(1) has a section per command" || fail "tgraph(1) lacks the commands:$missing"

# 7. Icons: PNGs of the size their directory names (the IHDR chunk's width and height).
for s in "${icon_sizes[@]}"; do
    png="$root/usr/share/icons/hicolor/${s}x${s}/apps/$app_id.png"
    dims="$(od -An -tu1 -j16 -N8 "$png" 2>/dev/null | awk '{ printf "%d %d", $3 * 256 + $4, $7 * 256 + $8 }')"
    [ "$dims" = "$s $s" ] || fail "$png is '$dims', not ${s}x${s}"
done
pass "icons: ${#icon_sizes[@]} PNG sizes checked"
xmllint --noout "$root/usr/share/icons/hicolor/scalable/apps/$app_id.svg" && pass "scalable icon is well-formed SVG" \
    || fail "scalable icon is not well-formed XML"

if [ "$failures" -ne 0 ]; then
    echo "tst_package: $failures check(s) failed" >&2
    exit 1
fi
echo "tst_package: all checks passed"
