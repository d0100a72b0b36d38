#!/usr/bin/env bash
# bench.sh - the benchmark: numbers, never a pass/fail on speed.
#
# Builds the release preset, writes the inputs with gen_bench (tests/tools/
# gen_bench.c) into a temporary directory and measures gguflint on them:
#   (a) a metadata-heavy llama model (256 000 tokens, 250 000 merges, 1 001
#       tensors, ~15.6 MB of metadata): instructions per metadata byte
#       (callgrind), median wall time of 5 runs and peak RSS (GNU time);
#   (b) ~1 GiB of F16 tensor data: `--deep` speed as a ratio to
#       `cat FILE >/dev/null`, interleaved, from the page cache;
#   (c) 10 000 small files in 100 directories: files/s with -r DIR -j1 / -j2;
#   (r) a 2.2 GiB sparse model linted by URL from a local HTTP server:
#       bytes fetched, requests, wall time against the local file
#       (ci/bench-remote.sh; BENCH_SKIP_REMOTE=1 skips it).
# Then a table with the reference figures and targets from the issue.
#
# `bash ci/bench.sh --adversarial` runs the adversarial benchmark instead
# (ci/bench-adversarial.sh: each hostile shape of issue 9 at 1x and 16x next
# to its twin, instructions per input byte, growth and RSS per byte).
#
# It fails when a command fails or a generated file does not lint clean, never
# because a figure misses its target.
#
# Environment:
#   BENCH_SKIP_B=1   skip (b) (the 1 GiB file)
#   BENCH_B_MIB=N    size of (b) in MiB of F16 data (default 1024)
#   BENCH_DIR=DIR    where to make the temporary directory (default $TMPDIR
#                    or /tmp); it is removed at the end
#   BENCH_KEEP=1     keep the temporary directory
# Needs valgrind and GNU time (/usr/bin/time; Debian/Ubuntu package `time`).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

die() { echo "bench: $*" >&2; exit 1; }

case ${1:-} in
--adversarial) exec bash "$root/ci/bench-adversarial.sh" ;;
"") ;;
*) die "usage: ci/bench.sh [--adversarial]" ;;
esac

command -v valgrind >/dev/null || die "valgrind is required (apt-get install valgrind)"
if ! /usr/bin/time -v true >/dev/null 2>&1; then
    die "GNU time is required at /usr/bin/time (apt-get install time)"
fi

echo "== build (release preset)"
cmake --preset release >/dev/null
cmake --build --preset release -j2 >/dev/null
gl=$root/build-release/gguflint
gen=$root/build-release/tests/gen_bench
[ -x "$gl" ] || die "no $gl after the build"
[ -x "$gen" ] || die "no $gen after the build (is GGUFLINT_TESTS on?)"

base=${BENCH_DIR:-${TMPDIR:-/tmp}}
mkdir -p "$base"
work=$(mktemp -d "$base/gguflint-bench.XXXXXX")
cleanup() {
    if [ "${BENCH_KEEP:-0}" = 1 ]; then
        echo "bench: kept $work"
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT

# ---- helpers ----

now() { echo "$EPOCHREALTIME"; }                 # seconds, microseconds
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", b - a }'; }
# median of the numbers given as arguments
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
    if (NR % 2) print v[(NR + 1) / 2]; else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# awk arithmetic: calc FORMAT EXPR
calc() { awk "BEGIN { printf \"$1\", $2 }"; }

# Run a command (output to $work/last.out), fail the benchmark if it fails.
run() {
    if ! "$@" >"$work/last.out" 2>&1; then
        echo "bench: command failed: $*" >&2
        tail -n 20 "$work/last.out" >&2
        exit 1
    fi
}

# Wall time (seconds) of one successful run of a command.
timed() {
    local t0 t1
    t0=$(now)
    if ! "$@" >/dev/null 2>"$work/timed.err"; then
        echo "bench: command failed: $*" >&2
        tail -n 20 "$work/timed.err" >&2
        exit 1
    fi
    t1=$(now)
    elapsed "$t0" "$t1"
}

# Lint FILE... with the default profile; exit 0 is required. Findings below
# the fail level are reported but allowed.
lint_clean() {
    local out rc=0
    out=$("$gl" "$@" 2>&1) || rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "$out" | tail -n 30 >&2
        die "a generated file does not lint clean (exit $rc): $*"
    fi
    case "$out" in
    *" 0 errors, 0 warnings, 0 notes"*) ;;
    *) echo "bench: note: findings below the fail level:"; echo "$out" | tail -n 10 ;;
    esac
}

help=$("$gl" --help 2>&1 || true)
has_opt() { grep -qE -- "(^|[[:space:],])$1([[:space:],=]|\$)" <<<"$help"; }
has_deep=0; has_opt --deep && has_deep=1
has_j=0; has_opt -j && has_j=1
has_r=0; has_opt -r && has_r=1

# ---- inputs ----

echo "== generate inputs in $work"
inputs="a c"
need_mib=300 # a (60 MB) and c (100 MB), with room
if [ "${BENCH_SKIP_B:-0}" != 1 ]; then
    inputs="a b c"
    need_mib=$((need_mib + ${BENCH_B_MIB:-1024}))
fi
avail_mib=$(df -Pk "$work" | awk 'NR == 2 { print int($4 / 1024) }')
if [ "$avail_mib" -lt "$need_mib" ]; then
    die "$work has $avail_mib MiB free, the inputs need about $need_mib MiB (BENCH_SKIP_B=1 skips the 1 GiB file, BENCH_DIR chooses the place)"
fi
t0=$(now)
# shellcheck disable=SC2086
"$gen" "$work" $inputs || die "gen_bench failed"
echo "(generated in $(calc "%.1f" "$(elapsed "$t0" "$(now)")") s)"

a=$work/a.gguf
b=$work/b.gguf
c=$work/c
n_c=$(find "$c" -name '*.gguf' -type f | wc -l)
[ "$n_c" -eq 10000 ] || die "expected 10000 files in $c, found $n_c"

echo "== lint clean"
lint_clean "$a"
[ -f "$b" ] && lint_clean "$b"
# a sample of (c): 3 files per directory (the timed runs below lint them all
# and must exit 0 too)
sample=()
for d in "$c"/d*; do
    mapfile -t -O "${#sample[@]}" sample < <(find "$d" -name '*.gguf' | sort | awk 'NR % 37 == 1')
done
lint_clean "${sample[@]}"
echo "ok: a.gguf$([ -f "$b" ] && echo ', b.gguf'), ${#sample[@]} files of c/"

# ---- 1. instructions per metadata byte of (a) ----

echo "== 1. callgrind: full default lint of a.gguf"
run "$gl" dump --format json "$a"
data_start=$(grep -o '"data_start":[0-9]*' "$work/last.out" | head -n 1 | cut -d: -f2)
if [ -z "$data_start" ] || [ "$data_start" -eq 0 ]; then die "no data_start in the dump of $a"; fi

collected() { # NAME CMD...: the Ir callgrind collects running CMD
    local name=$1 log=$work/cg.log
    shift
    if ! valgrind --tool=callgrind --callgrind-out-file="$work/cg.$name.out" \
            "$@" >/dev/null 2>"$log"; then
        tail -n 20 "$log" >&2
        die "command failed under callgrind: $*"
    fi
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$log" | tail -n 1
}
ir_base=$(collected version "$gl" --version)
ir_a=$(collected a "$gl" "$a")
if [ -z "$ir_a" ] || [ -z "$ir_base" ]; then die "no 'Collected' line from callgrind"; fi
ipb=$(calc "%.2f" "$ir_a / $data_start")
ipb_net=$(calc "%.2f" "($ir_a - $ir_base) / $data_start")
echo "metadata (data_start): $data_start bytes"
echo "Ir gguflint --version:  $ir_base"
echo "Ir gguflint a.gguf:     $ir_a"
echo "instructions per metadata byte: $ipb ($ipb_net without the --version baseline)"
echo "top functions (callgrind_annotate, self Ir):"
callgrind_annotate "$work/cg.a.out" 2>/dev/null |
    awk '/file:function/ { on = 1; getline; next } on && NF { print "  " $0; if (++n == 10) exit }'

# ---- 2. wall time and peak RSS of (a) ----

echo "== 2. wall time (median of 5) and peak RSS: gguflint a.gguf"
timed "$gl" "$a" >/dev/null # warm the page cache
times=()
for _ in 1 2 3 4 5; do times+=("$(timed "$gl" "$a")"); done
wall_a=$(median "${times[@]}")
if ! /usr/bin/time -v "$gl" "$a" >/dev/null 2>"$work/time.log"; then
    tail -n 30 "$work/time.log" >&2
    die "gguflint failed under /usr/bin/time"
fi
rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): *\([0-9]*\).*/\1/p' "$work/time.log")
[ -n "$rss_kb" ] || die "no 'Maximum resident set size' from /usr/bin/time -v"
rss_mb=$(calc "%.1f" "$rss_kb * 1024 / 1e6")
echo "runs: ${times[*]} s"
echo "median wall time: $(calc "%.1f" "$wall_a * 1000") ms; peak RSS: $rss_mb MB ($rss_kb KiB)"

# ---- 3. --deep on (b) against cat ----

deep_fig="skipped (BENCH_SKIP_B=1)"
deep_cmd="gguflint --deep b.gguf"
if [ -f "$b" ]; then
    echo "== 3. --deep on b.gguf against cat, interleaved, page cache warm"
    if [ "$has_deep" = 0 ]; then
        deep_fig="not available (no --deep in gguflint --help)"
        echo "$deep_fig"
    else
        deep=("$gl" --deep --quiet)
        if [ "$has_j" = 1 ]; then deep+=(-j2); deep_cmd="gguflint --deep -j2 b.gguf"; else
            echo "(-j not available: --deep runs single-threaded)"; fi
        size_b=$(stat -c %s "$b")
        cat "$b" >/dev/null; cat "$b" >/dev/null # warm
        run "${deep[@]}" "$b"
        if [ -s "$work/last.out" ]; then
            echo "bench: note: --deep reports findings on b.gguf (timed with them):"
            head -n 5 "$work/last.out"
        fi
        tc=(); td=()
        for _ in 1 2 3 4 5; do
            tc+=("$(timed cat "$b")") # timed sends stdout to /dev/null
            td+=("$(timed "${deep[@]}" "$b")")
        done
        mc=$(median "${tc[@]}"); md=$(median "${td[@]}")
        echo "cat:    ${tc[*]} s"
        echo "--deep: ${td[*]} s"
        cat_mbs=$(calc "%.0f" "$size_b / $mc / 1e6")
        deep_mbs=$(calc "%.0f" "$size_b / $md / 1e6")
        ratio=$(calc "%.2f" "$mc / $md")
        echo "file $size_b bytes; cat $cat_mbs MB/s, --deep $deep_mbs MB/s: $ratio x cat's speed"
        deep_fig="$ratio x cat ($deep_mbs vs $cat_mbs MB/s)"
    fi
fi

# ---- 4. files/s on (c) ----

echo "== 4. files/s on c/ (10 000 files in 100 directories)"
files_per_s() { # JOBS -> prints "figure|command"
    local j=$1 cmd=() label
    if [ "$has_r" = 1 ]; then
        cmd=("$gl" --quiet -r "$c")
        label="gguflint -r DIR"
        if [ "$has_j" = 1 ]; then cmd+=("-j$j"); label+=" -j$j";
        elif [ "$j" != 1 ]; then echo "not available (no -j)|$label -j$j"; return; fi
    else
        # fallback: the files as arguments, 1000 per run, -P for parallel runs
        find "$c" -name '*.gguf' -type f | sort >"$work/c.list"
        cmd=(xargs -n 1000 -P "$j" -a "$work/c.list" "$gl" --quiet)
        label="xargs -n 1000 -P $j gguflint FILES (fallback: no -r)"
        if [ "$has_j" = 1 ]; then
            cmd=(xargs -n 1000 -a "$work/c.list" "$gl" --quiet "-j$j")
            label="xargs -n 1000 gguflint -j$j FILES (fallback: no -r)"
        fi
    fi
    timed "${cmd[@]}" >/dev/null # warm (and must exit 0: every file clean)
    local ts=()
    for _ in 1 2 3; do ts+=("$(timed "${cmd[@]}")"); done
    local m
    m=$(median "${ts[@]}")
    echo "$(calc "%.0f" "$n_c / $m") files/s (median of 3: ${ts[*]} s)|$label"
}
r1=$(files_per_s 1); r2=$(files_per_s 2)
echo "-j1: ${r1%%|*}   [${r1#*|}]"
echo "-j2: ${r2%%|*}   [${r2#*|}]"

# ---- 5. remote: a URL against the same file locally (ci/bench-remote.sh) ----
# Kept in its own script and function (it belongs to the URL inputs); skipped
# with BENCH_SKIP_REMOTE=1 or when this build has no URL support.
bench_remote() {
    remote_row="skipped|"
    if [ "${BENCH_SKIP_REMOTE:-0}" = 1 ]; then return; fi
    if ! grep -q -- '--max-fetch' <<<"$help"; then
        remote_row="not available (no URL support)|"
        return
    fi
    echo "== 5. remote: the 2.2 GiB sparse model by URL (127.0.0.1) and locally"
    local out
    out=$(GGUFLINT=$gl GEN_REMOTE=$root/build-release/tests/gen_remote BENCH_DIR=$work \
        bash "$root/ci/bench-remote.sh") || die "ci/bench-remote.sh failed"
    sed '$d' <<<"$out"
    remote_row=$(tail -n 1 <<<"$out" | cut -d'|' -f2-)
}
bench_remote

# ---- table ----

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
echo
echo "== summary: $(nproc) CPUs, ${cpu:-unknown CPU}, $(uname -sr)"
row() { printf '%-3s %-46s %-42s %s\n' "$@"; }
row "in" "command" "figure" "target / reference (issue)"
row "a" "gguflint a.gguf (callgrind)" "$ipb Ir/metadata byte ($ipb_net net)" \
    "<= 5; llama.cpp gguf_init_from_file ~45"
row "" "  Ir of gguflint --version" "$ir_base" ""
row "a" "gguflint a.gguf (wall, median of 5)" "$(calc "%.1f" "$wall_a * 1000") ms" ""
row "a" "gguflint a.gguf (peak RSS)" "$rss_mb MB" \
    "<= 32 MB; llama.cpp 52 MB, gguf-py 862 MB"
row "b" "$deep_cmd vs cat" "$deep_fig" ">= 0.5 x cat"
row "c" "${r1#*|}" "${r1%% (*}" ""
row "c" "${r2#*|}" "${r2%% (*}" ">= 2000 files/s with -j2"
row "r" "${remote_row#*|}" "${remote_row%%|*}" "<= metadata + 2 MiB, <= 3 requests"
echo "(metadata of a.gguf: $data_start bytes)"
