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
#   bash ci/bench-adversarial.sh [--readme]
#
# With --readme the README's adversarial section (between the
# adversarial:begin/end markers) is rewritten from this run: the table with
# the "before" figures of ci/bench-adversarial-before.txt (the code before
# issue 9, measured once) beside this run's, each target checked, the
# machine and the commit. Figures in the README are never typed by hand.
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

readme=0
for arg in "$@"; do
    case $arg in
    --readme) readme=1 ;;
    *) die "unknown argument '$arg' (only --readme)" ;;
    esac
done
command -v valgrind >/dev/null || die "valgrind is required (apt-get install valgrind)"
command -v callgrind_control >/dev/null || die "callgrind_control is required (valgrind)"
/usr/bin/time -f %M true >/dev/null 2>&1 || die "GNU time is required at /usr/bin/time"

shapes=${ADV_SHAPES:-"tokens tokdup tokesc tokutf8 toktail keys names tinykv tensors aliased tplmany tplbig tpllit tplcjk findings nesting manifest shards"}
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

declare -A IR BYTES RSSK LABEL PB1 PB16 GROW HT RB
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
    LABEL[$row]=$label; PB1[$row]=$(per_byte "$h1" "$b1"); PB16[$row]=$(per_byte "$h16" "$b16")
    GROW[$row]=$g; HT[$row]=$ht; RB[$row]=$rb
done
echo "(twins at x$hi: Ir/B $(for row in "${rows[@]}"; do printf '%s %s; ' "$row" "$(per_byte "${IR[$row.twin.$hi]}" "${BYTES[$row.twin.$hi]}")"; done))"

# ---- README section ----

# targets ROW: "yes", or the targets of issue 9 this run's figures miss
targets() {
    local row=$1 miss=()
    awk "BEGIN { exit !($(num "${GROW[$row]}") > 20) }" && miss+=("growth ${GROW[$row]} > 20")
    case $row in
    tokens | keys | names)
        awk "BEGIN { exit !($(num "${HT[$row]}") > 2) }" && miss+=("host/twin ${HT[$row]} > 2") ;;
    esac
    local pb
    for pb in "${PB1[$row]}" "${PB16[$row]}"; do
        if awk "BEGIN { exit !($(num "$pb") > 250) }"; then
            miss+=("$pb Ir/B > 250")
            break
        fi
    done
    if [ ${#miss[@]} = 0 ]; then echo yes; else
        local IFS=';'
        echo "no: ${miss[*]}" | sed 's/;/; /g'
    fi
}

write_readme() {
    local f=$root/README.md before=$root/ci/bench-adversarial-before.txt sec=$work/section
    grep -q '^<!-- adversarial:begin -->$' "$f" && grep -q '^<!-- adversarial:end -->$' "$f" ||
        die "README.md has no <!-- adversarial:begin --> / <!-- adversarial:end --> markers"
    [ "$lo" = 1 ] && [ "$hi" = 16 ] || die "--readme needs ADV_SCALES=\"1 16\" (the before figures' scales)"
    declare -A B1 B16 BG BHT BNOTE
    local shape a b c d note
    while read -r shape a b c d note; do
        case $shape in "" | "#"*) continue ;; esac
        B1[$shape]=$a; B16[$shape]=$b; BG[$shape]=$c; BHT[$shape]=$d; BNOTE[$shape]=$note
    done <"$before"
    local commit cpu
    commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
    [ -z "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ] ||
        commit="$commit (with uncommitted changes)"
    cpu=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo | head -n 1)
    {
        echo "Measured by \`bash ci/bench-adversarial.sh --readme\` on $(nproc) CPUs, ${cpu:-unknown CPU}," \
            "$(uname -sr); commit $commit; $(date -u +%Y-%m-%d). Each cell: before (d83485b, the" \
            "code before issue 9, from \`ci/bench-adversarial-before.txt\`) -> now. \">=\": a run stopped" \
            "by its time limit (a lower bound)."
        echo
        echo "| shape | command | Ir/B x1 | Ir/B x16 | growth x16/x1 | host/twin x16 | RSS/B x16 | targets met now |"
        echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
        local row
        for row in "${rows[@]}"; do
            printf '| %s | `%s` | %s -> %s | %s -> %s | %s -> %s | %s -> %s | %s | %s |\n' "$row" \
                "${LABEL[$row]}" "${B1[$row]:-?}" "${PB1[$row]}" "${B16[$row]:-?}" "${PB16[$row]}" \
                "${BG[$row]:-?}" "${GROW[$row]}" "${BHT[$row]:-?}" "${HT[$row]}" "${RB[$row]}" \
                "$(targets "$row")"
        done
        echo
        printf 'Twins at x16 now (Ir/B):'
        local sep=" "
        for row in "${rows[@]}"; do
            printf '%s%s %s' "$sep" "$row" "$(per_byte "${IR[$row.twin.$hi]}" "${BYTES[$row.twin.$hi]}")"
            sep="; "
        done
        echo "."
        local notes=""
        for row in "${rows[@]}"; do
            [ -n "${BNOTE[$row]:-}" ] && [ "${BNOTE[$row]}" != - ] && notes="$notes $row: ${BNOTE[$row]};"
        done
        [ -z "$notes" ] || echo "Notes on the before figures:${notes%;}."
    } >"$sec"
    local tmp=$work/README.new
    awk -v sec="$sec" '
        /^<!-- adversarial:begin -->$/ { print; while ((getline l < sec) > 0) print l; skip = 1; next }
        /^<!-- adversarial:end -->$/ { skip = 0 }
        !skip { print }' "$f" >"$tmp"
    cat "$tmp" >"$f"
    echo "bench-adversarial: README.md adversarial section rewritten"
}

[ "$readme" = 1 ] && write_readme
exit 0
