#!/usr/bin/env bash
# Fuzzes every reader of outside files with libFuzzer (clang, ASan + UBSan): HLO text, HLO protobuf,
# npy/npz (and the graph loader), JSON, project files, weights files, XLA dump file names.
#   tools/fuzz.sh [SECONDS_PER_TARGET [TARGET...]]   (default 180 s, every target)
# One target at a time, niced, one job (-jobs=1), -rss_limit_mb=2048, -timeout=10 s per input.
# Seeds: the checked-in corpus (tests/fuzz/corpus/<target>) plus, for the HLO targets, the first
# kilobytes of the real files in ../shared/data (made here, never committed). Crashes land in
# build-fuzz/artifacts/; copy a fixed one into tests/fuzz/corpus/<target>/ so that
# tst_fuzz_<target>_corpus replays it from then on. Logs: build-fuzz/run-<target>/fuzz-0.log.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-180}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(hlotext hloproto hlodiff npz json project weights dumpname)
build="$root/build-fuzz"
shared="$root/../shared/data"

"$root/tools/install-deps.sh"
if ! command -v clang++ >/dev/null || ! dpkg-query -W -f='${db:Status-Status}' libclang-rt-14-dev 2>/dev/null | grep -q installed; then
    sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd=sudo
    $sudo_cmd apt-get install -y -q --no-install-recommends clang libclang-rt-14-dev
fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTGRAPH_FUZZ=ON \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
build_targets=()
for target in "${targets[@]}"; do build_targets+=(--target "fuzz_$target"); done
cmake --build "$build" --parallel "$(nproc)" "${build_targets[@]}"

mkdir -p "$build/artifacts"
for target in "${targets[@]}"; do
    seeds="$build/seeds-$target"
    work="$build/corpus-$target"
    run="$build/run-$target"
    rm -rf "$seeds" "$run"
    mkdir -p "$seeds" "$work" "$run"
    cp "$root/tests/fuzz/corpus/$target/"* "$seeds/"
    if [ -d "$shared" ] && { [ "$target" = hlotext ] || [ "$target" = hloproto ]; }; then
        if [ "$target" = hlotext ]; then files=("$shared"/hlo/*.hlo); else files=("$shared"/tpu_graphs/*.pb); fi
        for f in "${files[@]}"; do
            for n in 512 1024 4096; do head -c "$n" "$f" > "$seeds/$(basename "$f").head$n"; done
            if [ "$target" = hlotext ]; then cp "$f" "$seeds/"; fi
        done
    fi
    echo "== fuzz_$target for ${seconds}s (seeds: $(ls "$seeds" | wc -l))"
    (cd "$run" && nice -n 10 "$build/bin/fuzz_$target" "$work" "$seeds" -jobs=1 -max_total_time="$seconds" \
        -max_len=262144 -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$build/artifacts/$target-" \
        -print_final_stats=1 > parent.log 2>&1) || true
    grep -E "INITED|DONE|stat::number_of_executed_units|stat::peak_rss|ERROR|SUMMARY|Test unit written" \
        "$run/fuzz-0.log" || tail -5 "$run/fuzz-0.log"
done
crashes=$(ls "$build/artifacts" | wc -l)
echo "crash/timeout artifacts: $crashes (in $build/artifacts)"
[ "$crashes" -eq 0 ]
