#!/usr/bin/env bash
# bench-adversarial.sh - the adversarial benchmark (run by `ci/bench.sh
# --adversarial`, or directly): for each hostile shape of issue 9, callgrind
# instructions per input byte at 1x and 16x size, each next to its twin (the
# same size with the hostile property replaced by random or ordinary
# content), and the peak RSS per input byte. Numbers, never a pass/fail on
# speed: it fails only when a command cannot run.
#
# Columns: Ir/B = instructions per input byte (input = the files the command
# reads, manifests included); growth = Ir at 16x / Ir at 1x (linear work is
# 16); host/twin = Ir of the hostile input / Ir of its twin at 16x;
# RSS/B = peak resident set (GNU time) per input byte at 16x. Targets (issue
# 9): growth <= 20, host/twin <= 2 for colliding inputs, Ir/B <= 250.
#
# Environment:
#   ADV_SHAPES   shapes to run (default: all; see tests/tools/gen_adversarial.c)
#   ADV_SCALES   default "1 16"
#   ADV_TIMEOUT  seconds per callgrind run (default 1800); a run stopped by it
#                is dumped first and reported as ">= N"
#   GGUFLINT_BIN measure this gguflint instead of build-release/gguflint (the
#                "before" figures were measured with the untouched code's binary)
#   BENCH_DIR, BENCH_KEEP as in ci/bench.sh
# Needs valgrind (callgrind_control too) and GNU time.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

die() { echo "bench-adversarial: $*" >&2; exit 1; }
command -v valgrind >/dev/null || die "valgrind is required (apt-get install valgrind)"
command -v callgrind_control >/dev/null || die "callgrind_control is required (valgrind)"
/usr/bin/time -f %M true >/dev/null 2>&1 || die "GNU time is required at /usr/bin/time"

shapes=${ADV_SHAPES:-"tokens keys names tinykv tensors aliased tplmany tplbig findings nesting manifest shards"}
scales=${ADV_SCALES:-"1 16"}
tmo=${ADV_TIMEOUT:-1800}

echo "== build (release preset)"
cmake --preset release >/dev/null
cmake --build --preset release -j2 >/dev/null
gl=${GGUFLINT_BIN:-$root/build-release/gguflint}
gen=$root/build-release/tests/gen_adversarial
[ -x "$gl" ] || die "no $gl"
[ -x "$gen" ] || die "no $gen after the build"
echo "gguflint: $gl ($("$gl" --version))"

base=${BENCH_DIR:-${TMPDIR:-/tmp}}
mkdir -p "$base"
work=$(mktemp -d "$base/gguflint-adv.XXXXXX")
cleanup() {
    if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "bench-adversarial: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

calc() { awk "BEGIN { printf \"$1\", $2 }"; }

# ir NAME CMD...: instructions callgrind collects running CMD (stdout
# discarded, any exit status accepted: hostile inputs have findings). On
# timeout the counters are dumped first and the figure is prefixed with ">=".
ir() {
    local name=$1 out=$work/cg.$1 log=$work/cg.$1.log
    shift
    rm -f "$out"*
    valgrind --tool=callgrind --callgrind-out-file="$out" "$@" >/dev/null 2>"$log" &
    local pid=$! waited=0
    while kill -0 "$pid" 2>/dev/null; do
        sleep 1
        waited=$((waited + 1))
        if [ "$waited" -ge "$tmo" ]; then
            callgrind_control -d "$pid" >/dev/null 2>&1 || true
            sleep 2
            kill "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
            local sum=0 f
            for f in "$out"*; do
                [ -f "$f" ] || continue
                local v
                v=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p;s/^totals: *\([0-9]*\).*/\1/p' "$f" | head -n 1)
                [ -n "$v" ] && sum=$((sum + v))
            done
            echo ">=$sum"
            return
        fi
    done
    wait "$pid" 2>/dev/null || true
    local v
    v=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$log" | tail -n 1)
    [ -n "$v" ] || { tail -n 20 "$log" >&2; die "no callgrind figure for $name: $*"; }
    echo "$v"
}

# rss CMD...: peak RSS in KiB (any exit status accepted)
rss() {
    /usr/bin/time -f %M -o "$work/rss" "$@" >/dev/null 2>&1 || true
    tail -n 1 "$work/rss"
}

bytes_of() { # total bytes of files and directories given
    du -sb --apparent-size "$@" 2>/dev/null | awk '{ s += $1 } END { print s }'
}

# per-byte figure of an Ir value that may carry ">="
per_byte() {
    local v=$1 b=$2 pre=""
    case $v in ">="*) pre=">="; v=${v#>=} ;; esac
    echo "$pre$(calc "%.1f" "$v / $b")"
}
num() { echo "${1#>=}"; }

# cmd_for SHAPE VARIANT DIR -> sets cmd (array), inputs (array), label
cmd_for() {
    local shape=$1 v=$2 d=$3 f
    f=$d/$shape$v.gguf
    case $shape in
    aliased-deep) f=$d/aliased$v.gguf; cmd=("$gl" --deep "$f"); inputs=("$f"); label="gguflint --deep" ;;
    aliased-hash) f=$d/aliased$v.gguf; cmd=("$gl" hash "$f"); inputs=("$f"); label="gguflint hash" ;;
    manifest)
        "$gl" hash "$f" >"$d/manifest$v.json" 2>/dev/null || die "gguflint hash $f failed"
        cmd=("$gl" hash --verify-manifest "$d/manifest$v.json" "$f")
        inputs=("$f" "$d/manifest$v.json"); label="gguflint hash --verify-manifest" ;;
    shards) cmd=("$gl" -r "$d/shards$v"); inputs=("$d/shards$v"); label="gguflint -r DIR" ;;
    *) cmd=("$gl" "$f"); inputs=("$f"); label="gguflint FILE" ;;
    esac
}

declare -A IR BYTES RSSK
rows=()
for shape in $shapes; do
    gen_shape=$shape
    sub=$shape
    case $shape in aliased) sub="aliased-deep aliased-hash" ;; esac
    for s in $scales; do
        d=$work/s$s
        mkdir -p "$d"
        echo "== generate $shape x$s"
        "$gen" "$d" "$s" "$gen_shape" || die "gen_adversarial $shape $s failed"
        for row in $sub; do
            for v in "" ".twin"; do
                cmd_for "$row" "$v" "$d"
                b=$(bytes_of "${inputs[@]}")
                t0=$EPOCHREALTIME
                n=$(ir "$row$v.$s" "${cmd[@]}")
                t1=$EPOCHREALTIME
                r=$(rss "${cmd[@]}")
                IR[$row$v.$s]=$n; BYTES[$row$v.$s]=$b; RSSK[$row$v.$s]=$r
                printf '%-14s x%-3s %-6s %12s bytes %16s Ir %10s Ir/B %8s KiB RSS (%s s under callgrind)\n' \
                    "$row" "$s" "${v:-host}" "$b" "$n" "$(per_byte "$n" "$b")" "$r" \
                    "$(calc "%.1f" "$t1 - $t0")"
            done
            [ "$s" = "${scales##* }" ] && rows+=("$row")
        done
    done
    rm -rf "$work"/s*/shards* "$work"/s*/*.gguf "$work"/s*/*.json "$work"/cg.*
done

lo=${scales%% *}
hi=${scales##* }
echo
echo "== adversarial benchmark: $(nproc) CPUs, $(uname -sr), $("$gl" --version)"
printf '| %-13s | %-32s | %10s | %9s | %9s | %7s | %9s | %8s |\n' shape command \
    "bytes x$hi" "Ir/B x$lo" "Ir/B x$hi" growth host/twin "RSS/B"
printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' --------------- ---------------------------------- \
    ------------ ----------- ----------- --------- ----------- ----------
for row in "${rows[@]}"; do
    case $row in
    aliased-deep) label="gguflint --deep FILE" ;;
    aliased-hash) label="gguflint hash FILE" ;;
    manifest) label="hash --verify-manifest M FILE" ;;
    shards) label="gguflint -r DIR" ;;
    *) label="gguflint FILE" ;;
    esac
    h1=${IR[$row.$lo]}; h16=${IR[$row.$hi]}; t16=${IR[$row.twin.$hi]}
    b1=${BYTES[$row.$lo]}; b16=${BYTES[$row.$hi]}
    g=$(calc "%.1f" "$(num "$h16") / $(num "$h1")")
    case $h16 in ">="*) g=">=$g" ;; esac
    ht=$(calc "%.2f" "$(num "$h16") / $(num "$t16")")
    case $h16 in ">="*) ht=">=$ht" ;; esac
    rb=$(calc "%.1f" "${RSSK[$row.$hi]} * 1024 / $b16")
    printf '| %-13s | %-32s | %10s | %9s | %9s | %7s | %9s | %8s |\n' "$row" "$label" "$b16" \
        "$(per_byte "$h1" "$b1")" "$(per_byte "$h16" "$b16")" "$g" "$ht" "$rb"
done
echo "(twins at x$hi: Ir/B $(for row in "${rows[@]}"; do printf '%s %s; ' "$row" "$(per_byte "${IR[$row.twin.$hi]}" "${BYTES[$row.twin.$hi]}")"; done))"
