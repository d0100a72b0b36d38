#!/usr/bin/env bash
# bench.sh - the benchmark: numbers, never a pass/fail on speed.
#
#   bash ci/bench.sh [--readme] [--adversarial]
#
# Builds the release preset, writes its inputs with gen_bench and gen_perf
# (tests/tools/) into a temporary directory, and measures gguflint on them:
#
#   instructions (callgrind, exact and repeatable on a shared machine):
#     a.gguf per metadata byte (a 256 000-token vocabulary, ~15.7 MB of
#     metadata); ggml-vocab-deepseek-llm.gguf per byte (../shared, skipped
#     when absent); a 1 MiB chat template (t.gguf) per template byte; one
#     tensor (l2 - l1) and one KV (k2 - k1); start-up (--version) and its
#     dynamic relocations; --deep per data byte (b.gguf).
#   peak RSS (GNU time, 5 runs): a.gguf; a sparse 200 GiB model (s.gguf).
#   wall clock, 5 interleaved runs, median and range:
#     a.gguf; --deep -j1 and -j2 on b.gguf (2 GiB of F16) against
#     `cat b.gguf >/dev/null`, page cache warm, then cold (the file's pages
#     dropped with posix_fadvise DONTNEED before each run); -r -j1 and -j2
#     on 10 000 small files (c/).
#   remote: ci/bench-remote.sh (a 2.2 GiB sparse model by URL).
#
# Then a table of every figure with its target (issue 15). With --readme the
# README's performance section (between the bench:begin/end markers) is
# rewritten from this run: the table, the CPU model and the commit. Figures
# in the README are never typed by hand.
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
#   BENCH_RUNS=N       interleaved runs per wall-clock figure (default 5)
#   BENCH_B_MIB=N      size of b.gguf in MiB of F16 data (default 2048)
#   BENCH_SKIP_B=1     skip b.gguf (--deep rows)
#   BENCH_SKIP_REMOTE=1  skip the remote row
#   BENCH_DIR=DIR      where the temporary directory goes (default $TMPDIR or
#                      /tmp); it is removed at the end unless BENCH_KEEP=1
# Needs valgrind, GNU time (/usr/bin/time) and python3 (for fadvise).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

die() { echo "bench: $*" >&2; exit 1; }

readme=0
adversarial=0
for arg in "$@"; do
    case $arg in
    --readme) readme=1 ;;
    --adversarial) adversarial=1 ;;
    *) die "unknown argument '$arg' (usage: ci/bench.sh [--readme] [--adversarial])" ;;
    esac
done
# --adversarial runs the adversarial benchmark instead; with --readme it
# writes the README's adversarial section
if [ "$adversarial" = 1 ]; then
    [ "$readme" = 1 ] && exec bash "$root/ci/bench-adversarial.sh" --readme
    exec bash "$root/ci/bench-adversarial.sh"
fi
runs=${BENCH_RUNS:-5}
# the 1-minute load average before anything runs: the README shows it, so a
# table taken on a busy machine says so
load_start=$(cut -d' ' -f1 /proc/loadavg)

command -v valgrind >/dev/null || die "valgrind is required (apt-get install valgrind)"
/usr/bin/time -v true >/dev/null 2>&1 || die "GNU time is required at /usr/bin/time (apt-get install time)"
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3) || die "python3 is required"

echo "== build (release preset)"
cmake --preset release >/dev/null
cmake --build --preset release -j2 >/dev/null
gl=$root/build-release/gguflint
gen=$root/build-release/tests/gen_bench
genp=$root/build-release/tests/gen_perf
for x in "$gl" "$gen" "$genp"; do [ -x "$x" ] || die "no $x after the build (is GGUFLINT_TESTS on?)"; done

base=${BENCH_DIR:-${TMPDIR:-/tmp}}
mkdir -p "$base"
work=$(mktemp -d "$base/gguflint-bench.XXXXXX")
cleanup() {
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

# Lint FILE... with the default profile; exit 0 is required.
lint_clean() {
    local out rc=0
    out=$("$gl" "$@" 2>&1) || rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "$out" | tail -n 30 >&2
        die "a generated file does not lint clean (exit $rc): $*"
    fi
}

# ir NAME CMD...: the instructions callgrind collects running CMD (success required)
ir() {
    local name=$1 log=$work/cg.$1.log
    shift
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

# Rows of the summary: "SECTION|INPUT|COMMAND|FIGURE|TARGET" lines in $work/rows.
row() { printf '%s|%s|%s|%s|%s\n' "$@" >>"$work/rows"; }
: >"$work/rows"

# ---- inputs ----

bench_inputs() {
    echo "== inputs in $work"
    local inputs="a c" need=400
    if [ "${BENCH_SKIP_B:-0}" != 1 ]; then
        inputs="a b c"
        need=$((need + ${BENCH_B_MIB:-2048}))
    fi
    local avail
    avail=$(df -Pk "$work" | awk 'NR == 2 { print int($4 / 1024) }')
    [ "$avail" -ge "$need" ] || die "$work has $avail MiB free, the inputs need about $need MiB (BENCH_SKIP_B=1 skips b.gguf, BENCH_DIR chooses the place)"
    # shellcheck disable=SC2086
    BENCH_B_MIB=${BENCH_B_MIB:-2048} "$gen" "$work" $inputs >/dev/null || die "gen_bench failed"
    "$genp" "$work" >/dev/null || die "gen_perf failed"
    a=$work/a.gguf b=$work/b.gguf c=$work/c
    n_c=$(find "$c" -name '*.gguf' -type f | wc -l)
    [ "$n_c" -eq 10000 ] || die "expected 10000 files in $c, found $n_c"
    lint_clean "$a"
    [ -f "$b" ] && lint_clean "$b"
    local f
    for f in t l1 l2 k1 k2 s; do lint_clean "$work/$f.gguf"; done
    local sample=()
    mapfile -t sample < <(find "$c" -name '*.gguf' | sort | awk 'NR % 97 == 1')
    lint_clean "${sample[@]}"
    echo "ok: every input lints clean"
}

# ---- 1. instructions ----

bench_instructions() {
    echo "== 1. instructions (callgrind)"
    local ir_v ir_a ds_a ir_t ir_l1 ir_l2 ir_k1 ir_k2
    ir_v=$(ir version "$gl" --version)
    local relocs="?"
    if command -v readelf >/dev/null; then
        relocs=$(readelf -rW "$gl" | grep -c 'R_X86_64\|R_AARCH64' || true)
    fi
    echo "start-up (--version): $ir_v Ir, $relocs dynamic relocations"
    row "instructions" "-" "gguflint --version (start-up)" "$ir_v Ir, $relocs dynamic relocations" "as few as possible (0.41 M, 62 % relocations before)"

    ds_a=$(data_start "$a")
    ir_a=$(ir a "$gl" "$a")
    local ipb_a
    ipb_a=$(calc "%.2f" "$ir_a / $ds_a")
    echo "a.gguf: $ir_a Ir over $ds_a metadata bytes: $ipb_a Ir/B"
    row "instructions" "a.gguf ($ds_a B of metadata)" "gguflint a.gguf, every check" "$ipb_a Ir per metadata byte" "<= 2.0 (4.74 before)"
    echo "top functions (self Ir):"
    callgrind_annotate "$work/cg.a.out" 2>/dev/null |
        awk '/file:function/ { on = 1; getline; next } on && NF { print "  " $0; if (++n == 8) exit }'

    local deepseek=$root/../shared/gguf-realfiles/ggml-vocab-deepseek-llm.gguf
    if [ -f "$deepseek" ]; then
        local ds_d ir_d
        ds_d=$(data_start "$deepseek")
        ir_d=$(ir deepseek "$gl" "$deepseek")
        echo "ggml-vocab-deepseek-llm.gguf: $ir_d Ir over $ds_d bytes"
        row "instructions" "ggml-vocab-deepseek-llm.gguf ($ds_d B)" "gguflint FILE" "$(calc "%.2f" "$ir_d / $ds_d") Ir per byte" "<= 2.5 (5.13 before)"
    else
        row "instructions" "ggml-vocab-deepseek-llm.gguf" "gguflint FILE" "skipped (../shared absent)" "<= 2.5"
    fi

    ir_t=$(ir t "$gl" "$work/t.gguf")
    echo "t.gguf (1 MiB template): $ir_t Ir"
    row "instructions" "t.gguf: a 1 MiB chat template" "gguflint t.gguf" "$(calc "%.1f" "$ir_t / 1048576") Ir per template byte" "<= 60 (183 before)"

    ir_l1=$(ir l1 "$gl" "$work/l1.gguf")
    ir_l2=$(ir l2 "$gl" "$work/l2.gguf")
    ir_k1=$(ir k1 "$gl" "$work/k1.gguf")
    ir_k2=$(ir k2 "$gl" "$work/k2.gguf")
    local per_t per_k
    per_t=$(calc "%.0f" "($ir_l2 - $ir_l1) / (2451 - 147)")
    per_k=$(calc "%.0f" "($ir_k2 - $ir_k1) / 20000")
    echo "one tensor: $per_t Ir; one KV: $per_k Ir"
    row "instructions" "l2 - l1: 2 304 more llama tensors" "gguflint FILE" "$per_t Ir per tensor" "(3 400-7 400 before)"
    row "instructions" "k2 - k1: 20 000 more u32 KVs" "gguflint FILE" "$per_k Ir per KV" "(about 1 800 before)"

    if [ -f "$b" ]; then
        local ir_b sz_b
        sz_b=$(stat -c %s "$b")
        ir_b=$(ir deep "$gl" --deep --quiet -j1 "$b")
        echo "--deep b.gguf: $ir_b Ir over $sz_b bytes"
        row "instructions" "b.gguf ($sz_b B, F16)" "gguflint --deep -j1 b.gguf" "$(calc "%.3f" "$ir_b / $sz_b") Ir per data byte" "(1.75 before)"
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
    local ss
    read -r -a ss <<<"$(stats "${rs[@]}")"
    echo "a.gguf as written: ${ra[*]} KiB; read back: ${rb[*]} KiB; s.gguf: ${rs[*]} KiB"
    row "memory" "a.gguf, as written" "gguflint a.gguf, peak RSS" "$(mb_range "${ra[@]}")" "<= 16 MB (22.7 MB before)"
    row "memory" "a.gguf, read back" "gguflint a.gguf, peak RSS" "$(mb_range "${rb[@]}")" "<= 16 MB"
    row "memory" "s.gguf: 200 GiB, data a hole" "gguflint s.gguf, peak RSS" "$(calc "%.1f" "${ss[0]} * 1024 / 1e6") MB (range $(calc "%.1f" "${ss[1]} * 1024 / 1e6")-$(calc "%.1f" "${ss[2]} * 1024 / 1e6"))" "(3.1 MB before)"
}

# ---- 3. wall clock ----

# "MED (MIN-MAX) ms" of seconds
ms_fig() {
    local s
    read -r -a s <<<"$(stats "$@")"
    printf '%s ms (%s-%s)' "$(calc "%.1f" "${s[0]} * 1000")" "$(calc "%.1f" "${s[1]} * 1000")" \
        "$(calc "%.1f" "${s[2]} * 1000")"
}

bench_wall_a() {
    echo "== 3a. wall clock: gguflint a.gguf ($runs runs)"
    timed "$gl" "$a" >/dev/null
    local t=() i
    for ((i = 0; i < runs; i++)); do t+=("$(timed "$gl" "$a")"); done
    echo "runs: ${t[*]} s"
    row "wall" "a.gguf" "gguflint a.gguf" "$(ms_fig "${t[@]}")" ""
}

# --deep against cat, interleaved: warm (page cache) and cold (dropped).
bench_deep() {
    [ -f "$b" ] || return 0
    local size
    size=$(stat -c %s "$b")
    local mode
    for mode in warm cold; do
        echo "== 3b. --deep on b.gguf ($size B) against cat, $mode, $runs interleaved runs"
        local tc=() t1=() t2=() i
        cat "$b" >/dev/null
        "$gl" --deep --quiet -j2 "$b" >/dev/null || die "--deep b.gguf failed"
        for ((i = 0; i < runs; i++)); do
            [ "$mode" = cold ] && drop_cache "$b"
            tc+=("$(timed cat "$b")")
            [ "$mode" = cold ] && drop_cache "$b"
            t1+=("$(timed "$gl" --deep --quiet -j1 "$b")")
            [ "$mode" = cold ] && drop_cache "$b"
            t2+=("$(timed "$gl" --deep --quiet -j2 "$b")")
        done
        echo "cat:      ${tc[*]} s"
        echo "--deep -j1: ${t1[*]} s"
        echo "--deep -j2: ${t2[*]} s"
        local sc s1 s2
        read -r -a sc <<<"$(stats "${tc[@]}")"
        read -r -a s1 <<<"$(stats "${t1[@]}")"
        read -r -a s2 <<<"$(stats "${t2[@]}")"
        local gbs_c gbs_1 gbs_2
        gbs_c=$(calc "%.2f" "$size / ${sc[0]} / 1e9")
        gbs_1=$(calc "%.2f" "$size / ${s1[0]} / 1e9")
        gbs_2=$(calc "%.2f" "$size / ${s2[0]} / 1e9")
        local tgt1="" tgt2=""
        [ "$mode" = warm ] && tgt1=">= 0.9 x cat (0.58-0.60 before)" && tgt2=">= 1.0 x cat"
        row "deep ($mode)" "b.gguf ($(calc "%.2f" "$size / 1073741824") GiB F16)" "cat b.gguf >/dev/null" "$gbs_c GB/s ($(ms_fig "${tc[@]}"))" ""
        row "deep ($mode)" "b.gguf" "gguflint --deep -j1 b.gguf" "$(calc "%.2f" "${sc[0]} / ${s1[0]}") x cat: $gbs_1 GB/s ($(ms_fig "${t1[@]}"))" "$tgt1"
        row "deep ($mode)" "b.gguf" "gguflint --deep -j2 b.gguf" "$(calc "%.2f" "${sc[0]} / ${s2[0]}") x cat: $gbs_2 GB/s ($(ms_fig "${t2[@]}"))" "$tgt2"
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
    row "files" "c/: 10 000 files" "gguflint -r c/ -j1" "$(calc "%.0f" "$n_c / ${s1[0]}") files/s ($(calc "%.0f" "$n_c / ${s1[2]}")-$(calc "%.0f" "$n_c / ${s1[1]}"))" ">= 40 000 files/s (30-32 k before)"
    row "files" "c/" "gguflint -r c/ -j2" "$(calc "%.0f" "$n_c / ${s2[0]}") files/s ($(calc "%.0f" "$n_c / ${s2[2]}")-$(calc "%.0f" "$n_c / ${s2[1]}"))" "faster than -j1"
}

# ---- 4. remote: a URL against the same file locally (ci/bench-remote.sh) ----
# Kept in its own script (it belongs to the URL inputs); skipped with
# BENCH_SKIP_REMOTE=1 or when this build has no URL support.
bench_remote() {
    if [ "${BENCH_SKIP_REMOTE:-0}" = 1 ]; then return; fi
    if ! "$gl" --help 2>&1 | grep -q -- '--max-fetch'; then return; fi
    echo "== 4. remote: the 2.2 GiB sparse model by URL (127.0.0.1) and locally"
    local out
    out=$(GGUFLINT=$gl GEN_REMOTE=$root/build-release/tests/gen_remote BENCH_DIR=$work \
        bash "$root/ci/bench-remote.sh") || die "ci/bench-remote.sh failed"
    sed '$d' <<<"$out"
    local last
    last=$(tail -n 1 <<<"$out")
    IFS='|' read -r _ fig cmd <<<"$last"
    row "remote" "2.2 GiB sparse model served from 127.0.0.1" "$cmd" "$fig" "<= metadata + 2 MiB, <= 3 requests"
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
    echo
    echo "== summary: $header"
    table_md
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
bench_remote
summary
[ "$readme" = 1 ] && write_readme
exit 0
