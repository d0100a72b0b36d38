#!/usr/bin/env bash
# ci/fuzz.sh - a fuzz campaign: builds every harness for libFuzzer (ASan +
# UBSan) and for AFL++ (afl-clang-fast, ASan), runs each for FUZZ_SECONDS with
# libFuzzer and then with AFL++ (same seeds and dictionary), and fails on any
# crash, leak, timeout or out-of-memory, keeping the reproducer under
# ci/out/artifacts/. Prints executions/s and coverage per harness and ends with
#   fuzz: N harnesses, E executions, C crashes
#
# Environment:
#   FUZZ_SECONDS   seconds per harness and engine (default 60)
#   FUZZ_HARNESSES harnesses to run (default: every fuzz/fuzz_*.c but
#                  fuzz_perf, which ci/perf-fuzz.sh runs; libFuzzer also runs
#                  each one's structure-aware *_sa variant)
#   FUZZ_ENGINES   "libfuzzer afl" (default), or one of them
#   FUZZ_JOBS      harnesses run at once (default 2)
# The libFuzzer binaries stay in build-fuzz/fuzz/, the AFL++ ones in build-afl/fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SECONDS_PER=${FUZZ_SECONDS:-60}
ENGINES=${FUZZ_ENGINES:-"libfuzzer afl"}
JOBS=${FUZZ_JOBS:-2}
if [ -z "${FUZZ_HARNESSES:-}" ]; then
    FUZZ_HARNESSES=$(cd fuzz && ls fuzz_*.c | sed 's/\.c$//' | grep -v '^fuzz_perf$' | tr '\n' ' ')
fi
OUT=$ROOT/ci/out
rm -rf "$OUT"
mkdir -p "$OUT/artifacts" "$OUT/logs"

SEEDS=$OUT/seeds
mkdir -p "$SEEDS" "$OUT/seeds-manifest" "$OUT/seeds-config"
find corpus -type f -name '*.gguf' -exec cp {} "$SEEDS/" \;
[ -n "$(ls -A "$SEEDS")" ] || { echo "fuzz: no seeds under corpus/" >&2; exit 2; }
# fuzz_fetch reads HTTP response scripts, not GGUF files: its own seeds;
# the readers of the CLI (fuzz_manifest, fuzz_config) take JSON and INI
FETCH_SEEDS=$ROOT/corpus/fetch
cp corpus/manifests/*.json "$OUT/seeds-manifest/"
cp corpus/configs/*.ini "$OUT/seeds-config/"
# fuzz_diff: pairs of files end to end (corpus/diffs), and the GGUF seeds
mkdir -p "$OUT/seeds-diff"
cp corpus/diffs/*.pair "$SEEDS"/* "$OUT/seeds-diff/"
# fuzz_template reads raw template text: one seed per template of the payload
# corpus (attacks and clean shapes: the last column of corpus/templates/*.tsv) and,
# when present, the shared real templates (../shared/real-templates, copied
# into ci/out only, never into the project). AFL++ wants small seeds: the
# ones over 64 KiB are left to libFuzzer's -max_len.
TEMPLATE_SEEDS=$OUT/seeds-template
mkdir -p "$TEMPLATE_SEEDS"
for tsv in corpus/templates/*.tsv; do
    awk -F'\t' -v dir="$TEMPLATE_SEEDS" -v base="$(basename "$tsv" .tsv)" \
        '!/^#/ && NF >= 2 { f = sprintf("%s/%s-%03d", dir, base, NR); printf "%s", $NF > f; close(f) }' "$tsv"
done
if [ -d ../shared/real-templates ]; then
    for f in ../shared/real-templates/*.jinja; do
        if [ "$(stat -c %s "$f")" -le 65536 ]; then
            cp "$f" "$TEMPLATE_SEEDS/real-$(basename "$f")"
        fi
    done
fi
seeds_for() {
    case $1 in
    fuzz_fetch*) echo "$FETCH_SEEDS" ;;
    fuzz_manifest*) echo "$OUT/seeds-manifest" ;;
    fuzz_config*) echo "$OUT/seeds-config" ;;
    fuzz_diff*) echo "$OUT/seeds-diff" ;;
    fuzz_template*) echo "$TEMPLATE_SEEDS" ;;
    *) echo "$SEEDS" ;;
    esac
}

build() {
    local preset=$1
    cmake --preset "$preset" >"$OUT/logs/configure-$preset.log" 2>&1 ||
        { cat "$OUT/logs/configure-$preset.log"; exit 2; }
    cmake --build --preset "$preset" -j2 >"$OUT/logs/build-$preset.log" 2>&1 ||
        { cat "$OUT/logs/build-$preset.log"; exit 2; }
}

total_execs=0
total_crashes=0
summary=()

# fuzz_template reads raw template text: its own dictionary of Jinja tokens
dict_for() {
    case $1 in
    fuzz_template*) echo fuzz/template.dict ;;
    fuzz_fetch*) echo fuzz/fetch.dict ;;
    fuzz_manifest*) echo fuzz/manifest.dict ;;
    fuzz_config*) echo fuzz/config.dict ;;
    *) echo fuzz/gguf.dict ;;
    esac
}

run_libfuzzer() {
    local h=$1 bin=$ROOT/build-fuzz/fuzz/$1 work=$OUT/libfuzzer-$1
    mkdir -p "$work/corpus"
    local log=$OUT/logs/libfuzzer-$h.log rc=0
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
        "$bin" -max_total_time="$SECONDS_PER" -dict="$(dict_for "$h")" -rss_limit_mb=2048 \
        -timeout=10 -print_final_stats=1 -artifact_prefix="$OUT/artifacts/$h-" \
        "$work/corpus" "$(seeds_for "$h")" >"$log" 2>&1 || rc=$?
    echo "$rc" >"$work/rc"
}

run_afl() {
    local h=$1 bin=$ROOT/build-afl/fuzz/$1 work=$OUT/afl-$1
    mkdir -p "$work"
    local log=$OUT/logs/afl-$h.log rc=0
    AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
        AFL_NO_AFFINITY=1 AFL_QUIET=1 AFL_IGNORE_SEED_PROBLEMS=1 \
        ASAN_OPTIONS=abort_on_error=1:symbolize=0:detect_leaks=0 \
        timeout $((SECONDS_PER + 120)) afl-fuzz -V "$SECONDS_PER" -i "$(seeds_for "$h")" -o "$work/out" \
        -x "$(dict_for "$h")" -m none -t 10000 -- "$bin" >"$log" 2>&1 || rc=$?
    echo "$rc" >"$work/rc"
}

# run_all ENGINE HARNESS...: each harness, JOBS at a time
run_all() {
    local engine=$1 running=0
    shift
    for h in "$@"; do
        "run_$engine" "$h" &
        running=$((running + 1))
        if [ "$running" -ge "$JOBS" ]; then
            wait -n || true
            running=$((running - 1))
        fi
    done
    wait || true
}

report_libfuzzer() {
    local h=$1 log=$OUT/logs/libfuzzer-$1.log
    local execs rate cov crashes rc
    rc=$(cat "$OUT/libfuzzer-$h/rc")
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 || true)
    crashes=$(ls "$OUT/artifacts" 2>/dev/null | grep -c "^$h-" || true)
    if [ "$rc" != 0 ] && [ "$crashes" = 0 ]; then crashes=1; fi
    execs=${execs:-0}
    total_execs=$((total_execs + execs))
    total_crashes=$((total_crashes + crashes))
    summary+=("libfuzzer $h: ${execs} execs, ${rate:-0} exec/s, ${cov:-cov: ?}, crashes ${crashes} (rc ${rc})")
    if [ "$crashes" != 0 ]; then
        grep -E "ERROR|SUMMARY|runtime error|Test unit written" "$log" | head -20 || true
    fi
}

report_afl() {
    local h=$1 work=$OUT/afl-$1
    local stats=$work/out/default/fuzzer_stats execs rate cvg crashes hangs rc
    rc=$(cat "$work/rc")
    if [ ! -f "$stats" ]; then
        summary+=("afl $h: did not start (rc $rc), see ci/out/logs/afl-$h.log")
        tail -20 "$OUT/logs/afl-$h.log" || true
        total_crashes=$((total_crashes + 1))
        return
    fi
    execs=$(sed -n 's/^execs_done *: *//p' "$stats")
    rate=$(sed -n 's/^execs_per_sec *: *//p' "$stats")
    cvg=$(sed -n 's/^bitmap_cvg *: *//p' "$stats")
    crashes=$(find "$work/out/default/crashes" -type f ! -name README.txt 2>/dev/null | wc -l)
    hangs=$(find "$work/out/default/hangs" -type f 2>/dev/null | wc -l)
    for f in $(find "$work/out/default/crashes" "$work/out/default/hangs" -type f ! -name README.txt 2>/dev/null); do
        cp "$f" "$OUT/artifacts/afl-$h-$(basename "$f" | tr ':,' '__')"
    done
    total_execs=$((total_execs + ${execs:-0}))
    total_crashes=$((total_crashes + crashes + hangs))
    summary+=("afl $h: ${execs:-0} execs, ${rate:-0} exec/s, bitmap ${cvg:-?}, crashes ${crashes}, hangs ${hangs}")
}

n_harnesses=$(echo $FUZZ_HARNESSES | wc -w)
for engine in $ENGINES; do
    case $engine in
    libfuzzer)
        build fuzz
        # each harness and its structure-aware variant (custom mutator)
        lf=()
        for h in $FUZZ_HARNESSES; do
            lf+=("$h")
            [ -x "build-fuzz/fuzz/${h}_sa" ] && lf+=("${h}_sa")
        done
        run_all libfuzzer "${lf[@]}"
        for h in "${lf[@]}"; do report_libfuzzer "$h"; done
        ;;
    afl)
        if ! command -v afl-fuzz >/dev/null || ! command -v afl-clang-fast >/dev/null; then
            echo "fuzz: AFL++ not installed (apt-get install afl++)" >&2
            exit 2
        fi
        build afl
        run_all afl $FUZZ_HARNESSES
        for h in $FUZZ_HARNESSES; do report_afl "$h"; done
        ;;
    *) echo "fuzz: unknown engine $engine" >&2; exit 2 ;;
    esac
done

printf '%s\n' "${summary[@]}"
if [ "$total_crashes" != 0 ]; then
    echo "reproducers:"
    ls -1 "$OUT/artifacts"
fi
echo "fuzz: $n_harnesses harnesses, $total_execs executions, $total_crashes crashes"
[ "$total_crashes" = 0 ]
