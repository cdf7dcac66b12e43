#!/usr/bin/env bash
# Writes the seed corpora of the npz, json, project and weights fuzz targets
# (tests/fuzz/corpus/{npz,json,project,weights}/made-*) with the product itself: a synthetic graph
# and tile kernels, tiny models trained for a step or two, their weights files, a project holding
# two runs, and the JSON the product writes; then a few hand-written JSON edge cases. Run it again
# after a format changes, and commit what it wrote:
#   tests/fuzz/make-seeds.sh [BIN_DIR]      (default: build/bin, with tgraph and tgraph-model)
# Numpy's own files are not needed: tst_npz checks that numpy and we read each other's files.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="${1:-$root/build/bin}"
corpus="$root/tests/fuzz/corpus"
python=/usr/bin/python3
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tg() { "$bin/tgraph" "$@" >/dev/null; }
train() { tg train --threads 1 --seed 1 "$@"; }
mkdir -p "$corpus"/{npz,json,project,weights}
rm -f "$corpus"/{npz,json,project,weights}/made-*

# npz: graphs as `tgraph synth`, `prune` and `convert` write them, stored and deflated; npy: members
# of a stored npz (an npz member is an .npy file).
tg synth -o "$work/layout-stored.npz" --nodes 10 --configurable 3 --configs 4 --stored --seed 1
tg synth -o "$work/layout.npz" --nodes 12 --configurable 4 --configs 5 --seed 2
tg synth --collection tile -o "$work/tile" --graphs 1 --configs 4 --min-size 50 --max-size 60
tg synth --collection layout -o "$work/coll" --graphs 8 --configs 4 --min-size 50 --max-size 60
tg prune "$work/layout.npz" -o "$work/pruned-compressed.npz" --compress
cp "$work/layout-stored.npz" "$corpus/npz/made-layout-stored.npz"
cp "$work/layout.npz" "$corpus/npz/made-layout-deflated.npz"
cp "$work/pruned-compressed.npz" "$corpus/npz/made-pruned-compressed.npz"
cp "$(ls "$work"/tile/train/*.npz | head -1)" "$corpus/npz/made-tile.npz"
"$python" - "$work/layout-stored.npz" "$corpus/npz" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for member in ("node_feat.npy", "edge_index.npy", "config_runtime.npy", "node_opcode.npy"):
        with open(f"{sys.argv[2]}/made-{member}", "wb") as out:
            out.write(z.read(member))
PY

# weights: TGraph layout (cross-attention on and off) and tile models, and a zoo model, of the
# smallest widths, each trained for one step, exported by `tgraph weights export`; and an ensemble
# file of the two layout models, made by `tgraph weights combine`.
train --data "$work/layout-stored.npz" --steps 1 --hidden 16 --out "$work/w1"
train --data "$work/layout-stored.npz" --steps 1 --hidden 16 --cross-attn off --out "$work/w2"
train --data "$work/tile/train" --steps 1 --hidden 16 --out "$work/w3"
train --data "$work/layout-stored.npz" --model tpgnn --steps 1 --hidden 4 --out "$work/w4"
tg weights export "$work/w1/last.npz" -o "$corpus/weights/made-layout.npz"
tg weights export "$work/w2/last.npz" -o "$corpus/weights/made-layout-nocross.npz"
tg weights export "$work/w3/last.npz" -o "$corpus/weights/made-tile.npz"
tg weights export "$work/w4/last.npz" -o "$corpus/weights/made-tpgnn.npz"
# an ensemble file of two of them (docs/formats.md §12)
tg weights combine "$corpus/weights/made-layout.npz" "$corpus/weights/made-layout-nocross.npz" \
    -o "$corpus/weights/made-ensemble.npz"

# project: two runs (one evaluated on a validation graph, with a best checkpoint), their params,
# tags, metrics, artifacts and graph metrics. Kept as written (WAL, 4 KiB pages) and rewritten with
# 512-byte pages (the same content in 1/8 of the bytes, which the fuzzer mutates better).
train --data "$work/coll" --steps 3 --eval-every 2 --hidden 16 --project "$work/p.tgproj" --run-name first
train --data "$work/coll" --steps 2 --hidden 16 --project "$work/p.tgproj" --run-name second
cp "$work/p.tgproj" "$corpus/project/made-two-runs.tgproj"
"$python" - "$work/p.tgproj" "$corpus/project/made-two-runs-small-pages.tgproj" <<'PY'
import shutil, sqlite3, sys
shutil.copy(sys.argv[1], sys.argv[2])
c = sqlite3.connect(sys.argv[2], isolation_level=None)
c.execute("PRAGMA journal_mode=DELETE")
c.execute("PRAGMA page_size=512")
c.execute("VACUUM")
c.close()
PY

# json: what the product writes (inspect, compare, training events, run parameters), then edge cases.
"$bin/tgraph" inspect "$work/layout-stored.npz" --json > "$corpus/json/made-inspect.json"
"$bin/tgraph" compare --project "$work/p.tgproj" --runs first second --json > "$corpus/json/made-compare.json"
train --data "$work/coll" --steps 2 --eval-every 1 --hidden 16 --out "$work/w5" --metrics-jsonl "$work/events.jsonl"
head -3 "$work/events.jsonl" | { i=0; while IFS= read -r line; do printf '%s' "$line" > "$corpus/json/made-event-$i.json"; i=$((i + 1)); done; }
"$python" - "$work/p.tgproj" "$corpus/json" <<'PY'
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for i, (value,) in enumerate(c.execute("SELECT value FROM params WHERE value LIKE '{%' OR value LIKE '[%' LIMIT 3")):
    open(f"{sys.argv[2]}/made-param-{i}.json", "w").write(value)
PY
printf '%s' '{"a":[1,-0,0.1,1e-5,1.7976931348623157e308,5e-324,18446744073709551615,-9223372036854775808],"b":{"c":null,"d":true,"e":false}}' > "$corpus/json/made-numbers.json"
printf '%s' '["\u00e9\ud83d\ude00\n\t\"\\\/", "caf\u00c3\u00a9", "", "\u0000"]' > "$corpus/json/made-strings.json"
printf '%s' '{"lr": 0.001, "steps": 3, "name": "run", "tags": ["x", "y"], "nested": [[[[[[[[1]]]]]]]]}' > "$corpus/json/made-params.json"
echo "seeds written: $(ls "$corpus"/{npz,json,project,weights}/made-* | wc -l) files, $(cat "$corpus"/{npz,json,project,weights}/made-* | wc -c) bytes"
