#!/usr/bin/env bash
# bench.sh - the benchmark: numbers, never a pass/fail on speed.
#
#   bash ci/bench.sh [--readme] [--adversarial] [--smoke]
#
# Builds the release preset, writes its inputs with gen_bench and gen_perf
# (tests/tools/) into a temporary directory, and measures gguflint on them,
# every row next to its target (issues 15 and 28):
#
#   instructions (callgrind, exact and repeatable on a shared machine):
#     a.gguf per metadata byte (a 256 000-token vocabulary, ~15.7 MB of
#     metadata); every real vocabulary file of ../shared/gguf-realfiles per
#     metadata byte, one row each (one row saying so when the folder is
#     absent); the 1 MiB and 4 MiB chat templates (t.gguf, t4.gguf) per
#     template byte; `-r -j1` over gen_perf's v/ (1 000 small vocabulary
#     files with a chat template) per file; one tensor (l2 - l1) and one KV
#     (k2 - k1); start-up (--version) and its dynamic relocations; --deep
#     per data byte (b.gguf).
#   peak RSS (GNU time, N runs): a.gguf; a sparse 200 GiB model (s.gguf).
#   wall clock, N interleaved runs, median and range:
#     a.gguf against the floor (tests/tools/bench_floor.c: touch every
#     metadata page and validate every string with the project's UTF-8
#     validator, nothing else), and their ratio run by run; --deep -j1
#     (through the mapping, and --deep-read pread) and -j2 on b.gguf (2 GiB
#     of F16, written in full) against `cat b.gguf >/dev/null`, page cache
#     warm, then cold (the file's pages dropped with posix_fadvise DONTNEED
#     before each run); -r -j1 and -j2 on 10 000 small files (c/); the
#     -j1/-j2 wall ratio of -r over v/, idle and with a competing busy loop.
#   remote: ci/bench-remote.sh (a 2.2 GiB sparse model by URL).
#
# Then a table of every figure with its target. With --readme the README's
# performance section (between the bench:begin/end markers) is rewritten
# from this run: the table, the CPU model and the commit. Figures in the
# README are never typed by hand.
#
# --smoke: the script's own test (the bench_smoke ctest): the smallest
# inputs (b.gguf of 128 MiB), one run of each figure, no callgrind (the
# commands under it run plainly and their instruction figures read
# "not measured"), and a check that every row of the table was produced.
# Its figures mean nothing; it cannot be combined with --readme.
#
# `bash ci/bench.sh --adversarial` runs the adversarial benchmark instead
# (ci/bench-adversarial.sh: each hostile shape of issue 9 at 1x and 16x next
# to its twin, instructions per input byte, growth and RSS per byte).
#
# Wall-clock figures are only meaningful on an idle machine; instruction
# counts are meaningful anywhere. The script fails when a command fails or a
# generated file does not lint clean, never because a figure misses its
# target.
#
# Environment:
#   BENCH_RUNS=N       interleaved runs per wall-clock figure (default 5;
#                      --smoke: 1)
#   BENCH_B_MIB=N      size of b.gguf in MiB of F16 data (default 2048;
#                      --smoke: 128)
#   BENCH_SKIP_B=1     skip b.gguf (--deep rows)
#   BENCH_SKIP_REMOTE=1  skip the remote row
#   BENCH_BUILD_DIR=DIR  use the gguflint, gen_bench, gen_perf, gen_remote
#                      and bench_floor already built in DIR (a build tree
#                      with tests on) instead of building the release preset
#   BENCH_REALFILES=DIR  the real vocabulary files (default
#                      ../shared/gguf-realfiles beside the source tree)
#   BENCH_DIR=DIR      where the temporary directory goes (default $TMPDIR or
#                      /tmp); it is removed at the end unless BENCH_KEEP=1
# Needs valgrind (not for --smoke), GNU time (/usr/bin/time) and python3
# (for fadvise).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

die() { echo "bench: $*" >&2; exit 1; }

readme=0
adversarial=0
smoke=0
for arg in "$@"; do
    case $arg in
    --readme) readme=1 ;;
    --adversarial) adversarial=1 ;;
    --smoke) smoke=1 ;;
    *) die "unknown argument '$arg' (usage: ci/bench.sh [--readme] [--adversarial] [--smoke])" ;;
    esac
done
[ "$smoke" = 1 ] && [ "$readme" = 1 ] && die "--smoke figures mean nothing: not with --readme"
# --adversarial runs the adversarial benchmark instead; with --readme it
# writes the README's adversarial section
if [ "$adversarial" = 1 ]; then
    [ "$readme" = 1 ] && exec bash "$root/ci/bench-adversarial.sh" --readme
    exec bash "$root/ci/bench-adversarial.sh"
fi
if [ "$smoke" = 1 ]; then
    runs=${BENCH_RUNS:-1}
    b_mib=${BENCH_B_MIB:-128}
else
    runs=${BENCH_RUNS:-5}
    b_mib=${BENCH_B_MIB:-2048}
fi
# the README shows medians and ranges of at least 5 interleaved runs
[ "$readme" = 1 ] && [ "$runs" -lt 5 ] && die "--readme takes 5 or more interleaved runs (BENCH_RUNS=$runs)"
realdir=${BENCH_REALFILES:-$root/../shared/gguf-realfiles}
# the 1-minute load average before anything runs: the README shows it, so a
# table taken on a busy machine says so
load_start=$(cut -d' ' -f1 /proc/loadavg)

if [ "$smoke" = 0 ]; then
    command -v valgrind >/dev/null || die "valgrind is required (apt-get install valgrind)"
fi
if ! /usr/bin/time -v true >/dev/null 2>&1; then
    # the smoke test reports a skip (77, as ctest expects) without it
    [ "$smoke" = 1 ] && { echo "bench: --smoke skipped: no GNU time at /usr/bin/time"; exit 77; }
    die "GNU time is required at /usr/bin/time (apt-get install time)"
fi
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3) || die "python3 is required"

if [ -n "${BENCH_BUILD_DIR:-}" ]; then
    bdir=$BENCH_BUILD_DIR
    echo "== build: using $bdir"
else
    echo "== build (release preset)"
    cmake --preset release >/dev/null
    cmake --build --preset release -j2 >/dev/null
    bdir=$root/build-release
fi
gl=$bdir/gguflint
gen=$bdir/tests/gen_bench
genp=$bdir/tests/gen_perf
floor=$bdir/tests/bench_floor
for x in "$gl" "$gen" "$genp" "$floor"; do [ -x "$x" ] || die "no $x after the build (is GGUFLINT_TESTS on?)"; done

base=${BENCH_DIR:-${TMPDIR:-/tmp}}
mkdir -p "$base"
work=$(mktemp -d "$base/gguflint-bench.XXXXXX")
busy=
cleanup() {
    if [ -n "$busy" ]; then kill "$busy" 2>/dev/null || true; fi
    if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "bench: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# ---- helpers ----

now() { echo "$EPOCHREALTIME"; }
calc() { awk "BEGIN { printf \"$1\", $2 }"; }
# median, min and max of the numbers given: "MED MIN MAX"
stats() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.6f %.6f %.6f\n", m, v[1], v[NR] }'; }

# Wall time (seconds) of one run of a command, which must succeed.
timed() {
    local t0 t1
    t0=$(now)
    if ! "$@" >/dev/null 2>"$work/timed.err"; then
        tail -n 20 "$work/timed.err" >&2
        die "command failed: $*"
    fi
    t1=$(now)
    calc "%.6f" "$t1 - $t0"
}

# "WALL CPU": the wall time and the CPU time (user + system, from the
# child's rusage) in seconds of one run of a command, which must succeed. On
# a shared machine the CPU time moves much less with the load than the wall.
timed_cpu() {
    "$py" -c 'import os, sys, time
t0 = time.monotonic()
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 1)
    os.execvp(sys.argv[1], sys.argv[1:])
_, st, ru = os.wait4(pid, 0)
t1 = time.monotonic()
if st != 0:
    sys.exit(1)
print("%.6f %.6f" % (t1 - t0, ru.ru_utime + ru.ru_stime))' "$@" 2>"$work/timed.err" || {
        tail -n 20 "$work/timed.err" >&2
        die "command failed: $*"
    }
}

# Lint FILE... with the default profile; exit 0 is required.
lint_clean() {
    local out rc=0
    out=$("$gl" "$@" 2>&1) || rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "$out" | tail -n 30 >&2
        die "a generated file does not lint clean (exit $rc): $*"
    fi
}

# ir NAME CMD...: the instructions callgrind collects running CMD (success
# required). --smoke: CMD runs plainly (it must still succeed) and the count
# is 1, which irfig shows as "not measured".
ir() {
    local name=$1 log=$work/cg.$1.log
    shift
    if [ "$smoke" = 1 ]; then
        "$@" >/dev/null 2>"$log" || { tail -n 20 "$log" >&2; die "command failed: $*"; }
        echo 1
        return
    fi
    if ! valgrind --tool=callgrind --callgrind-out-file="$work/cg.$name.out" \
            "$@" >/dev/null 2>"$log"; then
        tail -n 20 "$log" >&2
        die "command failed under callgrind: $*"
    fi
    local v
    v=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$log" | tail -n 1)
    [ -n "$v" ] || die "no 'Collected' line from callgrind for $name"
    echo "$v"
}

# irfig FORMAT EXPR UNIT: an instruction figure ("1.23 Ir per byte"), or
# "not measured (--smoke)"
irfig() {
    if [ "$smoke" = 1 ]; then echo "not measured (--smoke)"; else echo "$(calc "$1" "$2") $3"; fi
}

# data_start of a GGUF file (the metadata size)
data_start() {
    local v
    v=$("$gl" dump --format json "$1" | grep -o '"data_start":[0-9]*' | head -n 1 | cut -d: -f2)
    [ -n "$v" ] || die "no data_start in the dump of $1"
    echo "$v"
}

# Peak RSS in KiB of one run (GNU time).
rss_kib() {
    /usr/bin/time -f '%M' -o "$work/rss" "$@" >/dev/null 2>&1 || die "command failed: $*"
    tail -n 1 "$work/rss"
}

# Drop FILE's pages from the page cache (posix_fadvise DONTNEED): a cold read.
drop_cache() {
    "$py" -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.fsync(fd)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
os.close(fd)' "$1"
}

# A competing CPU load: one busy loop (a child shell), stopped by busy_stop.
busy_start() {
    bash -c 'while :; do :; done' &
    busy=$!
}
busy_stop() {
    if [ -n "$busy" ]; then
        kill "$busy" 2>/dev/null || true
        wait "$busy" 2>/dev/null || true
        busy=
    fi
}

# Rows of the summary: row KEY SECTION INPUT COMMAND FIGURE TARGET appends
# "SECTION|INPUT|COMMAND|FIGURE|TARGET" to $work/rows and KEY to
# $work/keys (--smoke checks every expected key is there).
row() {
    echo "$1" >>"$work/keys"
    shift
    printf '%s|%s|%s|%s|%s\n' "$@" >>"$work/rows"
}
: >"$work/rows"
: >"$work/keys"
# The keys of every row this run must produce, known before it runs (the
# real files from their folder, b.gguf's rows unless skipped, the remote row
# when the build has URL support): --smoke fails unless each is produced
# exactly once.
expected_rows() {
    expected=(version a)
    local f n=0
    if [ -d "$realdir" ]; then
        while IFS= read -r f; do
            expected+=("real:${f##*/}")
            n=$((n + 1))
        done < <(find "$realdir" -maxdepth 1 -name '*.gguf' -type f | sort)
    fi
    [ "$n" -gt 0 ] || expected+=(realfiles)
    expected+=(t t4 v tensor kv)
    [ "${BENCH_SKIP_B:-0}" = 1 ] || expected+=(deep)
    expected+=(rss.a rss.a2 rss.s wall.floor wall.a wall.ratio)
    if [ "${BENCH_SKIP_B:-0}" != 1 ]; then
        local m
        for m in warm cold; do expected+=("deep.$m.cat" "deep.$m.j1" "deep.$m.pread" "deep.$m.j2"); done
    fi
    expected+=(files.j1 files.j2 jobs.idle jobs.busy)
    if [ "${BENCH_SKIP_REMOTE:-0}" != 1 ] && "$gl" --help 2>&1 | grep -q -- '--max-fetch'; then
        expected+=(remote)
    fi
}

# "MED (MIN-MAX) ms" of seconds
ms_fig() {
    local s
    read -r -a s <<<"$(stats "$@")"
    printf '%s ms (%s-%s)' "$(calc "%.1f" "${s[0]} * 1000")" "$(calc "%.1f" "${s[1]} * 1000")" \
        "$(calc "%.1f" "${s[2]} * 1000")"
}
# "MED x (MIN-MAX)" of ratios
x_fig() {
    local s
    read -r -a s <<<"$(stats "$@")"
    printf '%s x (%s-%s)' "$(calc "%.2f" "${s[0]}")" "$(calc "%.2f" "${s[1]}")" "$(calc "%.2f" "${s[2]}")"
}

# ---- inputs ----

bench_inputs() {
    echo "== inputs in $work"
    local inputs="a c" need=400
    if [ "${BENCH_SKIP_B:-0}" != 1 ]; then
        inputs="a b c"
        need=$((need + b_mib))
    fi
    local avail
    avail=$(df -Pk "$work" | awk 'NR == 2 { print int($4 / 1024) }')
    [ "$avail" -ge "$need" ] || die "$work has $avail MiB free, the inputs need about $need MiB (BENCH_SKIP_B=1 skips b.gguf, BENCH_DIR chooses the place)"
    # shellcheck disable=SC2086
    BENCH_B_MIB=$b_mib "$gen" "$work" $inputs >/dev/null || die "gen_bench failed"
    "$genp" "$work" >/dev/null || die "gen_perf failed"
    a=$work/a.gguf b=$work/b.gguf c=$work/c v=$work/v
    n_c=$(find "$c" -name '*.gguf' -type f | wc -l)
    [ "$n_c" -eq 10000 ] || die "expected 10000 files in $c, found $n_c"
    n_v=$(find "$v" -name '*.gguf' -type f | wc -l)
    [ "$n_v" -eq 1000 ] || die "expected 1000 files in $v, found $n_v"
    lint_clean "$a"
    [ -f "$b" ] && lint_clean "$b"
    local f
    for f in t t4 l1 l2 k1 k2 s; do lint_clean "$work/$f.gguf"; done
    local sample=()
    mapfile -t sample < <(find "$c" -name '*.gguf' | sort | awk 'NR % 97 == 1')
    lint_clean "${sample[@]}"
    lint_clean -r "$v"
    "$floor" "$a" >/dev/null || die "bench_floor failed on $a"
    echo "ok: every input lints clean"
}

# ---- 1. instructions ----

# One row per real vocabulary file: Ir per metadata byte.
bench_realfiles() {
    local files=()
    if [ -d "$realdir" ]; then
        mapfile -t files < <(find "$realdir" -maxdepth 1 -name '*.gguf' -type f | sort)
    fi
    if [ "${#files[@]}" -eq 0 ]; then
        echo "real vocabulary files: skipped ($realdir absent or empty)"
        row realfiles "instructions" "real vocabulary files" "gguflint FILE" "skipped ($realdir absent)" "<= 2.0 each, deepseek-llm <= 1.2"
        return
    fi
    local f name ds irv tgt
    for f in "${files[@]}"; do
        name=${f##*/}
        ds=$(data_start "$f")
        irv=$(ir "real.$name" "$gl" "$f")
        echo "$name: $irv Ir over $ds metadata bytes"
        case $name in
        ggml-vocab-deepseek-llm.gguf) tgt="<= 1.2 (2.25 in 0.2.3)" ;;
        *) tgt="<= 2.0 (up to 4.4 in 0.2.3)" ;;
        esac
        row "real:$name" "instructions" "$name ($ds B of metadata)" "gguflint FILE" "$(irfig "%.2f" "$irv / $ds" "Ir per metadata byte")" "$tgt"
    done
}

bench_instructions() {
    echo "== 1. instructions (callgrind)"
    local ir_v ir_a ds_a ir_t ir_t4 ir_vd ir_l1 ir_l2 ir_k1 ir_k2
    ir_v=$(ir version "$gl" --version)
    local relocs="?"
    if command -v readelf >/dev/null; then
        relocs=$(readelf -rW "$gl" | grep -c 'R_X86_64\|R_AARCH64' || true)
    fi
    echo "start-up (--version): $ir_v Ir, $relocs dynamic relocations"
    row version "instructions" "-" "gguflint --version (start-up)" "$(irfig "%.0f" "$ir_v" "Ir"), $relocs dynamic relocations" "as few as possible (0.41 M, 62 % relocations before)"

    ds_a=$(data_start "$a")
    ir_a=$(ir a "$gl" "$a")
    echo "a.gguf: $ir_a Ir over $ds_a metadata bytes"
    row a "instructions" "a.gguf ($ds_a B of metadata)" "gguflint a.gguf, every check" "$(irfig "%.2f" "$ir_a / $ds_a" "Ir per metadata byte")" "<= 1.2 (2.00 in 0.2.3)"
    if [ "$smoke" = 0 ]; then
        echo "top functions (self Ir):"
        callgrind_annotate "$work/cg.a.out" 2>/dev/null |
            awk '/file:function/ { on = 1; getline; next } on && NF { print "  " $0; if (++n == 8) exit }'
    fi

    bench_realfiles

    ir_t=$(ir t "$gl" "$work/t.gguf")
    ir_t4=$(ir t4 "$gl" "$work/t4.gguf")
    echo "t.gguf (1 MiB template): $ir_t Ir; t4.gguf (4 MiB): $ir_t4 Ir"
    row t "instructions" "t.gguf: a 1 MiB chat template" "gguflint t.gguf" "$(irfig "%.1f" "$ir_t / 1048576" "Ir per template byte")" "<= 35 (60 in 0.2.3)"
    row t4 "instructions" "t4.gguf: a 4 MiB chat template" "gguflint t4.gguf" "$(irfig "%.1f" "$ir_t4 / 4194304" "Ir per template byte")" "<= 35 (46 in 0.2.3)"

    ir_vd=$(ir v "$gl" --quiet -r -j1 "$v")
    echo "-r -j1 v/ ($n_v files): $ir_vd Ir"
    row v "instructions" "v/: $n_v vocabulary files with a chat template (~6 KB)" "gguflint -r -j1 v/" "$(irfig "%.1f" "$ir_vd / $n_v / 1000" "k Ir per file")" "<= 80 k (539 k in 0.2.3)"

    ir_l1=$(ir l1 "$gl" "$work/l1.gguf")
    ir_l2=$(ir l2 "$gl" "$work/l2.gguf")
    ir_k1=$(ir k1 "$gl" "$work/k1.gguf")
    ir_k2=$(ir k2 "$gl" "$work/k2.gguf")
    echo "l1, l2, k1, k2: $ir_l1 $ir_l2 $ir_k1 $ir_k2 Ir"
    row tensor "instructions" "l2 - l1: 2 304 more llama tensors" "gguflint FILE" "$(irfig "%.0f" "($ir_l2 - $ir_l1) / (2451 - 147)" "Ir per tensor")" "(3 400-7 400 before)"
    row kv "instructions" "k2 - k1: 20 000 more u32 KVs" "gguflint FILE" "$(irfig "%.0f" "($ir_k2 - $ir_k1) / 20000" "Ir per KV")" "(about 1 800 before)"

    if [ -f "$b" ]; then
        local ir_b sz_b
        sz_b=$(stat -c %s "$b")
        ir_b=$(ir deep "$gl" --deep --quiet -j1 "$b")
        echo "--deep b.gguf: $ir_b Ir over $sz_b bytes"
        row deep "instructions" "b.gguf ($sz_b B, F16)" "gguflint --deep -j1 b.gguf" "$(irfig "%.3f" "$ir_b / $sz_b" "Ir per data byte")" "(1.75 before)"
    fi
}

# ---- 2. peak RSS ----

# "MED MB (range MIN-MAX)" of KiB figures
mb_range() {
    local st
    read -r -a st <<<"$(stats "$@")"
    echo "$(calc "%.1f" "${st[0]} * 1024 / 1e6") MB (range $(calc "%.1f" "${st[1]} * 1024 / 1e6")-$(calc "%.1f" "${st[2]} * 1024 / 1e6"))"
}

bench_rss() {
    echo "== 2. peak RSS (GNU time, $runs runs)"
    # a.gguf as its writer left it in the page cache (large folios: the
    # kernel maps more of the file than is read), then read back from disk
    # (its pages dropped first, then the runs)
    local ra=() rb=() rs=() i
    for ((i = 0; i < runs; i++)); do
        ra+=("$(rss_kib "$gl" "$a")")
        rs+=("$(rss_kib "$gl" "$work/s.gguf")")
    done
    drop_cache "$a"
    for ((i = 0; i < runs; i++)); do
        rb+=("$(rss_kib "$gl" "$a")")
    done
    echo "a.gguf as written: ${ra[*]} KiB; read back: ${rb[*]} KiB; s.gguf: ${rs[*]} KiB"
    row rss.a "memory" "a.gguf, as written" "gguflint a.gguf, peak RSS" "$(mb_range "${ra[@]}")" "<= 16 MB (22.7 MB before)"
    row rss.a2 "memory" "a.gguf, read back" "gguflint a.gguf, peak RSS" "$(mb_range "${rb[@]}")" "<= 16 MB"
    row rss.s "memory" "s.gguf: 200 GiB, data a hole" "gguflint s.gguf, peak RSS" "$(mb_range "${rs[@]}")" "(3.1 MB before)"
}

# ---- 3. wall clock ----

# pair_runs CMD_A... -- CMD_B...: one warm-up run of each, then $runs
# interleaved runs of the two; the global arrays ta and tb get their times
# (seconds) and tr the ratio time(A) / time(B), run by run.
pair_runs() {
    local cmd_a=() cmd_b=() i
    while [ "$1" != -- ]; do cmd_a+=("$1"); shift; done
    shift
    cmd_b=("$@")
    timed "${cmd_a[@]}" >/dev/null
    timed "${cmd_b[@]}" >/dev/null
    ta=() tb=() tr=()
    for ((i = 0; i < runs; i++)); do
        ta+=("$(timed "${cmd_a[@]}")")
        tb+=("$(timed "${cmd_b[@]}")")
        tr+=("$(calc "%.6f" "${ta[i]} / ${tb[i]}")")
    done
}

# gguflint a.gguf against the floor, interleaved: the ratio run by run.
bench_wall_a() {
    echo "== 3a. wall clock: gguflint a.gguf against the floor ($runs interleaved runs)"
    pair_runs "$gl" "$a" -- "$floor" "$a"
    local t=("${ta[@]}") tf=("${tb[@]}") r=("${tr[@]}") tin=() i
    # the floor's own work without the process's start and exit (its
    # in-process figure), for the issue's ~1.3 ms
    for ((i = 0; i < runs; i++)); do
        tin+=("$("$floor" "$a" | sed -n 's/.*in-process \([0-9.]*\) ms.*/\1/p')")
        [ -n "${tin[i]}" ] || die "no in-process time from bench_floor"
        tin[i]=$(calc "%.6f" "${tin[i]} / 1000")
    done
    echo "floor: ${tf[*]} s (in-process: ${tin[*]} s)"
    echo "lint:  ${t[*]} s"
    row wall.floor "wall" "a.gguf" "bench_floor a.gguf (touch + SIMD UTF-8, the floor)" "$(ms_fig "${tf[@]}"); in-process $(ms_fig "${tin[@]}")" "(the issue: ~1.3 ms in-process)"
    row wall.a "wall" "a.gguf" "gguflint a.gguf" "$(ms_fig "${t[@]}")" ""
    row wall.ratio "wall" "a.gguf" "gguflint a.gguf / bench_floor a.gguf, run by run" "$(x_fig "${r[@]}")" "<= 3 x (~6 x in 0.2.3)"
}

# --deep against cat, interleaved: warm (page cache) and cold (dropped).
bench_deep() {
    [ -f "$b" ] || return 0
    local size
    size=$(stat -c %s "$b")
    local mode
    for mode in warm cold; do
        echo "== 3b. --deep on b.gguf ($size B) against cat, $mode, $runs interleaved runs"
        local tc=() t1=() tp=() t2=() cc=() c1=() cp=() c2=() i w
        cat "$b" >/dev/null
        "$gl" --deep --quiet -j2 "$b" >/dev/null || die "--deep b.gguf failed"
        for ((i = 0; i < runs; i++)); do
            [ "$mode" = cold ] && drop_cache "$b"
            read -r -a w <<<"$(timed_cpu cat "$b")"
            tc+=("${w[0]}") cc+=("${w[1]}")
            [ "$mode" = cold ] && drop_cache "$b"
            read -r -a w <<<"$(timed_cpu "$gl" --deep --quiet -j1 "$b")"
            t1+=("${w[0]}") c1+=("${w[1]}")
            [ "$mode" = cold ] && drop_cache "$b"
            read -r -a w <<<"$(timed_cpu "$gl" --deep --quiet -j1 --deep-read pread "$b")"
            tp+=("${w[0]}") cp+=("${w[1]}")
            [ "$mode" = cold ] && drop_cache "$b"
            read -r -a w <<<"$(timed_cpu "$gl" --deep --quiet -j2 "$b")"
            t2+=("${w[0]}") c2+=("${w[1]}")
        done
        echo "cat:        ${tc[*]} s (CPU ${cc[*]} s)"
        echo "--deep -j1: ${t1[*]} s (CPU ${c1[*]} s)"
        echo "  (pread):  ${tp[*]} s (CPU ${cp[*]} s)"
        echo "--deep -j2: ${t2[*]} s (CPU ${c2[*]} s)"
        local sc s1 sp s2 qc q1 qp q2
        read -r -a sc <<<"$(stats "${tc[@]}")"
        read -r -a s1 <<<"$(stats "${t1[@]}")"
        read -r -a sp <<<"$(stats "${tp[@]}")"
        read -r -a s2 <<<"$(stats "${t2[@]}")"
        read -r -a qc <<<"$(stats "${cc[@]}")"
        read -r -a q1 <<<"$(stats "${c1[@]}")"
        read -r -a qp <<<"$(stats "${cp[@]}")"
        read -r -a q2 <<<"$(stats "${c2[@]}")"
        local gbs_c gbs_1 gbs_p gbs_2
        gbs_c=$(calc "%.2f" "$size / ${sc[0]} / 1e9")
        gbs_1=$(calc "%.2f" "$size / ${s1[0]} / 1e9")
        gbs_p=$(calc "%.2f" "$size / ${sp[0]} / 1e9")
        gbs_2=$(calc "%.2f" "$size / ${s2[0]} / 1e9")
        # the CPU time (user + system), median, and its ratio to cat's
        local cpu_c cpu_1 cpu_p cpu_2
        cpu_c="CPU $(calc "%.0f" "${qc[0]} * 1000") ms"
        cpu_1="CPU $(calc "%.0f" "${q1[0]} * 1000") ms, $(calc "%.2f" "${qc[0]} / (${q1[0]} + 1e-9)") x cat's"
        cpu_p="CPU $(calc "%.0f" "${qp[0]} * 1000") ms, $(calc "%.2f" "${qc[0]} / (${qp[0]} + 1e-9)") x cat's"
        cpu_2="CPU $(calc "%.0f" "${q2[0]} * 1000") ms, $(calc "%.2f" "${qc[0]} / (${q2[0]} + 1e-9)") x cat's"
        local tgt1="reported" tgt2=""
        [ "$mode" = warm ] && tgt1=">= 1.1 x cat (0.87-0.90 in 0.2.3)" && tgt2=">= 1.0 x cat"
        row "deep.$mode.cat" "deep ($mode)" "b.gguf ($(calc "%.2f" "$size / 1073741824") GiB F16)" "cat b.gguf >/dev/null" "$gbs_c GB/s ($(ms_fig "${tc[@]}"); $cpu_c)" ""
        row "deep.$mode.j1" "deep ($mode)" "b.gguf" "gguflint --deep -j1 b.gguf (mapped)" "$(calc "%.2f" "${sc[0]} / ${s1[0]}") x cat: $gbs_1 GB/s ($(ms_fig "${t1[@]}"); $cpu_1)" "$tgt1"
        row "deep.$mode.pread" "deep ($mode)" "b.gguf" "gguflint --deep -j1 --deep-read pread b.gguf" "$(calc "%.2f" "${sc[0]} / ${sp[0]}") x cat: $gbs_p GB/s ($(ms_fig "${tp[@]}"); $cpu_p)" "(the twin of the mapped read)"
        row "deep.$mode.j2" "deep ($mode)" "b.gguf" "gguflint --deep -j2 b.gguf" "$(calc "%.2f" "${sc[0]} / ${s2[0]}") x cat: $gbs_2 GB/s ($(ms_fig "${t2[@]}"); $cpu_2)" "$tgt2"
    done
}

bench_files() {
    echo "== 3c. files/s on c/ (10 000 small files in 100 directories), $runs interleaved runs"
    timed "$gl" --quiet -r "$c" -j1 >/dev/null # warm (and every file must be clean)
    local t1=() t2=() i
    for ((i = 0; i < runs; i++)); do
        t1+=("$(timed "$gl" --quiet -r "$c" -j1)")
        t2+=("$(timed "$gl" --quiet -r "$c" -j2)")
    done
    echo "-j1: ${t1[*]} s"
    echo "-j2: ${t2[*]} s"
    local s1 s2
    read -r -a s1 <<<"$(stats "${t1[@]}")"
    read -r -a s2 <<<"$(stats "${t2[@]}")"
    # files/s: the median run, and the range from the slowest and fastest
    row files.j1 "files" "c/: 10 000 files" "gguflint -r c/ -j1" "$(calc "%.0f" "$n_c / ${s1[0]}") files/s ($(calc "%.0f" "$n_c / ${s1[2]}")-$(calc "%.0f" "$n_c / ${s1[1]}"))" ">= 40 000 files/s (30-32 k before)"
    row files.j2 "files" "c/" "gguflint -r c/ -j2" "$(calc "%.0f" "$n_c / ${s2[0]}") files/s ($(calc "%.0f" "$n_c / ${s2[2]}")-$(calc "%.0f" "$n_c / ${s2[1]}"))" "faster than -j1"
}

# -r over v/ at -j1 and -j2, interleaved, idle and with one busy loop
# competing for the CPUs: the ratio t(-j1) / t(-j2) run by run (>= 1: -j2
# is not slower).
bench_jobs() {
    local load
    for load in idle busy; do
        echo "== 3d. -r v/ at -j1 and -j2, $load, $runs interleaved runs"
        [ "$load" = busy ] && busy_start
        local t1=() t2=() c1=() c2=() r=() i w
        timed "$gl" --quiet -r "$v" -j1 >/dev/null
        timed "$gl" --quiet -r "$v" -j2 >/dev/null
        for ((i = 0; i < runs; i++)); do
            read -r -a w <<<"$(timed_cpu "$gl" --quiet -r "$v" -j1)"
            t1+=("${w[0]}") c1+=("${w[1]}")
            read -r -a w <<<"$(timed_cpu "$gl" --quiet -r "$v" -j2)"
            t2+=("${w[0]}") c2+=("${w[1]}")
            r+=("$(calc "%.6f" "${t1[i]} / ${t2[i]}")")
        done
        busy_stop
        echo "-j1: ${t1[*]} s (CPU ${c1[*]} s)"
        echo "-j2: ${t2[*]} s (CPU ${c2[*]} s)"
        local q1 q2
        read -r -a q1 <<<"$(stats "${c1[@]}")"
        read -r -a q2 <<<"$(stats "${c2[@]}")"
        local what="no other load"
        [ "$load" = busy ] && what="one busy loop competing"
        row "jobs.$load" "files" "v/: $n_v files, $what" "gguflint -r v/: -j1 time / -j2 time" "$(x_fig "${r[@]}") (-j1 $(ms_fig "${t1[@]}"), -j2 $(ms_fig "${t2[@]}"); CPU -j1 $(calc "%.1f" "${q1[0]} * 1000") ms, -j2 $(calc "%.1f" "${q2[0]} * 1000") ms)" ">= 1.0 x (-j2 never slower)"
    done
}

# ---- 4. remote: a URL against the same file locally (ci/bench-remote.sh) ----
# Kept in its own script (it belongs to the URL inputs); skipped with
# BENCH_SKIP_REMOTE=1 or when this build has no URL support.
bench_remote() {
    if [ "${BENCH_SKIP_REMOTE:-0}" = 1 ]; then return; fi
    if ! "$gl" --help 2>&1 | grep -q -- '--max-fetch'; then return; fi
    echo "== 4. remote: the 2.2 GiB sparse model by URL (127.0.0.1) and locally"
    local out
    out=$(GGUFLINT=$gl GEN_REMOTE=$bdir/tests/gen_remote BENCH_DIR=$work \
        bash "$root/ci/bench-remote.sh") || die "ci/bench-remote.sh failed"
    sed '$d' <<<"$out"
    local last
    last=$(tail -n 1 <<<"$out")
    IFS='|' read -r _ fig cmd <<<"$last"
    row remote "remote" "2.2 GiB sparse model served from 127.0.0.1" "$cmd" "$fig" "<= metadata + 2 MiB, <= 3 requests"
}

# ---- summary and README ----

table_md() {
    echo "| what | input | command | figure | target (before) |"
    echo "| --- | --- | --- | --- | --- |"
    while IFS='|' read -r sec input cmd fig tgt; do
        echo "| $sec | $input | \`$cmd\` | $fig | $tgt |"
    done <"$work/rows"
}

summary() {
    local cpu commit
    cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
    commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
    if [ -n "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
        commit="$commit (with uncommitted changes)"
    fi
    header="$(nproc) CPUs, ${cpu:-unknown CPU}, $(uname -sr); commit $commit; $(date -u +%Y-%m-%d); load average $load_start at the start, $(cut -d' ' -f1 /proc/loadavg) at the end; wall-clock figures: median (min-max) of $runs interleaved runs"
    [ "$smoke" = 1 ] && header="$header; --smoke: the figures mean nothing"
    echo
    echo "== summary: $header"
    table_md
}

# --smoke: every row expected was produced, once, with a figure.
check_rows() {
    local k missing=0
    [ "$(head -c 1 "$work/keys")" != "" ] || die "--smoke: no rows at all"
    for k in "${expected[@]}"; do
        if ! grep -qxF -- "$k" "$work/keys"; then
            echo "bench: row '$k' was not produced" >&2
            missing=1
        fi
    done
    [ "$(sort "$work/keys" | uniq -d | wc -l)" -eq 0 ] || die "a row was produced twice: $(sort "$work/keys" | uniq -d | tr '\n' ' ')"
    [ "$(wc -l <"$work/keys")" -eq "${#expected[@]}" ] || die "$(wc -l <"$work/keys") rows for ${#expected[@]} expected"
    awk -F'|' 'NF != 5 || $4 == "" || $4 ~ /nan|inf/ { print "bench: bad row: " $0; bad = 1 } END { exit bad }' \
        "$work/rows" >&2 || missing=1
    [ "$missing" = 0 ] || die "--smoke: the table is incomplete"
    echo "bench: --smoke: all ${#expected[@]} rows produced"
}

write_readme() {
    local f=$root/README.md tmp
    grep -q '^<!-- bench:begin -->$' "$f" && grep -q '^<!-- bench:end -->$' "$f" ||
        die "README.md has no <!-- bench:begin --> / <!-- bench:end --> markers"
    tmp=$(mktemp)
    {
        echo "Measured by \`bash ci/bench.sh --readme\` on $header."
        echo
        table_md
    } >"$work/section"
    awk -v sec="$work/section" '
        /^<!-- bench:begin -->$/ { print; while ((getline l < sec) > 0) print l; skip = 1; next }
        /^<!-- bench:end -->$/ { skip = 0 }
        !skip { print }' "$f" >"$tmp"
    mv "$tmp" "$f"
    echo "bench: README.md performance section rewritten"
}

bench_inputs
bench_instructions
bench_rss
bench_wall_a
bench_deep
bench_files
bench_jobs
bench_remote
summary
if [ "$smoke" = 1 ]; then
    expected_rows
    check_rows
fi
[ "$readme" = 1 ] && write_readme
exit 0
