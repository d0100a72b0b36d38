#!/usr/bin/env bash
# ci/perf-fuzz.sh - performance fuzzing: builds fuzz/fuzz_perf.c with clang's
# edge counters (the perf-fuzz preset) and runs it, and its structure-aware
# variant, with libFuzzer for PERF_FUZZ_SECONDS each. The harness counts the
# edges (basic-block transitions, about a fifth of the instructions) that
# linting each input takes and aborts when they exceed
#   PERF_FUZZ_BASE + PERF_FUZZ_PER_BYTE x input size
# (the complexity contract of docs/ARCHITECTURE.md), so an input whose cost
# grows faster than its size ends up under ci/out-perf/artifacts/ as a crash;
# libFuzzer is steered towards inputs that cost more per byte. Seeds: the
# corpus and the hostile shapes of the adversarial benchmark at 1x.
#
# Ends with
#   perf-fuzz: E executions, worst P % of the budget (F bytes, C edges), V over budget
# and fails when an input was over budget (or crashed).
#
# Environment:
#   PERF_FUZZ_SECONDS  seconds per harness (default 300)
#   PERF_FUZZ_BASE, PERF_FUZZ_PER_BYTE  the budget (defaults in fuzz_perf.c)
#   PERF_FUZZ_MAX_LEN  largest input libFuzzer makes (default 1048576)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SECS=${PERF_FUZZ_SECONDS:-300}
MAX_LEN=${PERF_FUZZ_MAX_LEN:-1048576}
OUT=$ROOT/ci/out-perf
rm -rf "$OUT"
mkdir -p "$OUT/artifacts" "$OUT/logs" "$OUT/seeds"

build() {
    local preset=$1
    cmake --preset "$preset" >"$OUT/logs/configure-$preset.log" 2>&1 ||
        { cat "$OUT/logs/configure-$preset.log"; exit 2; }
    cmake --build --preset "$preset" -j2 "${@:2}" >"$OUT/logs/build-$preset.log" 2>&1 ||
        { cat "$OUT/logs/build-$preset.log"; exit 2; }
}

echo "== build (perf-fuzz preset; release for the seed generator)"
build perf-fuzz
build release --target gen_adversarial
find corpus -type f -name '*.gguf' -exec cp {} "$OUT/seeds/" \;
# the hostile shapes at 1x (a few of them are larger than MAX_LEN: libFuzzer
# reads their first MAX_LEN bytes)
"$ROOT/build-release/tests/gen_adversarial" "$OUT/seeds" 1 \
    tokens keys names tinykv tensors aliased tplmany tplbig findings nesting >/dev/null

# clang's profile runtime would write default.profraw at every exit
export LLVM_PROFILE_FILE=/dev/null
harnesses=(fuzz_perf)
[ -x build-perf-fuzz/fuzz/fuzz_perf_sa ] && harnesses+=(fuzz_perf_sa)

echo "== the seeds, each once"
PERF_FUZZ_VERBOSE=1 build-perf-fuzz/fuzz/fuzz_perf -runs=1 "$OUT/seeds"/* \
    >"$OUT/logs/seeds.log" 2>&1 || true

echo "== libFuzzer, ${SECS}s per harness: ${harnesses[*]}"
for h in "${harnesses[@]}"; do
    mkdir -p "$OUT/corpus-$h"
    (
        rc=0
        PERF_FUZZ_VERBOSE=1 "build-perf-fuzz/fuzz/$h" -max_total_time="$SECS" \
            -max_len="$MAX_LEN" -dict=fuzz/gguf.dict -rss_limit_mb=4096 -timeout=60 \
            -print_final_stats=1 -artifact_prefix="$OUT/artifacts/$h-" \
            "$OUT/corpus-$h" "$OUT/seeds" >"$OUT/logs/$h.log" 2>&1 || rc=$?
        echo "$rc" >"$OUT/logs/$h.rc"
    ) &
done
wait

# PERF_FUZZ_VERBOSE lines: "perf: N bytes, E edges, P per byte, Q % of the budget"
worst() {
    grep -h '^perf: [0-9]* bytes' "$@" | sort -t' ' -k9 -g | tail -n 1
}
execs=0
bad=0
for h in "${harnesses[@]}"; do
    log=$OUT/logs/$h.log
    rc=$(cat "$OUT/logs/$h.rc")
    e=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    execs=$((execs + ${e:-0}))
    n=$(find "$OUT/artifacts" -name "$h-*" | wc -l)
    if [ "$rc" != 0 ] && [ "$n" = 0 ]; then n=1; fi
    bad=$((bad + n))
    echo "$h: ${e:-0} execs, worst: $(worst "$log" || echo none), over budget or crashed: $n (rc $rc)"
    [ "$n" = 0 ] || grep -E "budget exceeded|ERROR|Test unit written" "$log" | head -n 10 || true
done
w=$(worst "$OUT/logs/seeds.log" "$OUT"/logs/fuzz_perf*.log || true)
echo "seeds: worst $(worst "$OUT/logs/seeds.log" || echo none)"
echo "perf-fuzz: $execs executions, worst $(echo "$w" | awk '{print $9}') % of the budget ($(echo "$w" | awk '{print $2}') bytes, $(echo "$w" | awk '{print $4}') edges), $bad over budget"
[ "$bad" = 0 ]
