#!/usr/bin/env bash
# Run a GGUF reader over the conformance suite (corpus/conformance) and print
# its agreement with the expected verdicts of MANIFEST.tsv, per category
# (y_ must be accepted, n_ must be rejected, i_ implementation-defined) and per
# profile (spec, ggml, strict).
#
#   ci/conformance.sh [--reader 'COMMAND {}'] [--profile P] [--suite DIR] [--timeout S]
#
# --reader 'COMMAND {}'  the reader to test: {} is replaced by the file's path
#                        (shell-quoted); exit status 0 means accepted, any other
#                        status rejected; a status of 124 (timeout) or above 128
#                        (a signal) is also counted as a crash. The reader's
#                        single verdict is compared with every profile's column.
#                        Exit status 1 when it rejects a y_ file, accepts an n_
#                        file or crashes.
# (no --reader)          hold gguflint to the manifest: each file is linted with
#                        `gguflint --isolated --profile P` for each profile P
#                        (accepted = no finding at severity error, exit 0) and
#                        must agree 100%; every disagreement is listed with the
#                        errors gguflint reported, and the exit status is 1.
#                        The binary is $GGUFLINT, or build-release/gguflint,
#                        built (incrementally) with the release preset.
# --profile P            only this profile's column (spec, ggml or strict).
# --suite DIR            another suite folder (default corpus/conformance).
# --timeout S            seconds per file for --reader (default 30).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
suite="$root/corpus/conformance"
reader=""
only=""
limit=30

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case "$1" in
    --reader) [ $# -ge 2 ] || usage; reader="$2"; shift 2 ;;
    --profile) [ $# -ge 2 ] || usage; only="$2"; shift 2 ;;
    --suite) [ $# -ge 2 ] || usage; suite="$2"; shift 2 ;;
    --timeout) [ $# -ge 2 ] || usage; limit="$2"; shift 2 ;;
    -h|--help) usage ;;
    *) echo "conformance.sh: unknown argument '$1'" >&2; usage ;;
    esac
done

profiles=(spec ggml strict)
if [ -n "$only" ]; then
    case "$only" in
    spec|ggml|strict) profiles=("$only") ;;
    *) echo "conformance.sh: --profile must be spec, ggml or strict" >&2; exit 2 ;;
    esac
fi
manifest="$suite/MANIFEST.tsv"
[ -f "$manifest" ] || { echo "conformance.sh: no $manifest" >&2; exit 2; }

# The manifest: file, category, description, spec, ggml, strict.
files=() cats=() exp_spec=() exp_ggml=() exp_strict=()
while IFS=$'\t' read -r f c _ s g t; do
    [ "$f" = file ] && continue
    files+=("$f"); cats+=("$c"); exp_spec+=("$s"); exp_ggml+=("$g"); exp_strict+=("$t")
done < "$manifest"
n=${#files[@]}
[ "$n" -gt 0 ] || { echo "conformance.sh: empty manifest" >&2; exit 2; }

expected() { # profile index -> expected verdict
    case "$1" in
    spec) echo "${exp_spec[$2]}" ;;
    ggml) echo "${exp_ggml[$2]}" ;;
    strict) echo "${exp_strict[$2]}" ;;
    esac
}

# got[profile:index] = accept | reject
declare -A got
crashes=()
if [ -z "$reader" ]; then
    bin="${GGUFLINT:-}"
    if [ -z "$bin" ]; then
        (cd "$root" && cmake --preset release >/dev/null &&
            cmake --build build-release --target gguflint -j2 >/dev/null)
        bin="$root/build-release/gguflint"
    fi
    [ -x "$bin" ] || { echo "conformance.sh: $bin is not executable" >&2; exit 2; }
    title="gguflint ($bin)"
    for p in "${profiles[@]}"; do
        for ((i = 0; i < n; i++)); do
            rc=0
            "$bin" --isolated --quiet --profile "$p" "$suite/${files[i]}" >/dev/null 2>&1 || rc=$?
            case $rc in
            0) got[$p:$i]=accept ;;
            1) got[$p:$i]=reject ;;
            *) got[$p:$i]=reject; crashes+=("${files[i]} ($p): exit status $rc") ;;
            esac
        done
    done
else
    title="$reader"
    have_timeout=0
    command -v timeout >/dev/null 2>&1 && have_timeout=1
    for ((i = 0; i < n; i++)); do
        q=$(printf '%q' "$suite/${files[i]}")
        cmd="${reader//\{\}/$q}"
        rc=0
        if [ $have_timeout = 1 ]; then
            timeout "$limit" bash -c "$cmd" >/dev/null 2>&1 </dev/null || rc=$?
        else
            bash -c "$cmd" >/dev/null 2>&1 </dev/null || rc=$?
        fi
        v=reject
        [ $rc = 0 ] && v=accept
        if [ $rc = 124 ] || [ $rc -gt 128 ]; then
            crashes+=("${files[i]}: exit status $rc")
        fi
        for p in "${profiles[@]}"; do got[$p:$i]=$v; done
    done
fi

# The table: agreement per category and profile.
echo "conformance suite: $suite ($n files)"
echo "reader: $title"
echo
printf '%-9s %6s' category files
for p in "${profiles[@]}"; do printf '  %-16s' "$p"; done
echo
for c in y n i all; do
    total=0
    declare -A agree=()
    for p in "${profiles[@]}"; do agree[$p]=0; done
    for ((i = 0; i < n; i++)); do
        [ "$c" = all ] || [ "${cats[i]}" = "$c" ] || continue
        total=$((total + 1))
        for p in "${profiles[@]}"; do
            [ "${got[$p:$i]}" = "$(expected "$p" "$i")" ] && agree[$p]=$((agree[$p] + 1))
        done
    done
    printf '%-9s %6d' "$c" "$total"
    for p in "${profiles[@]}"; do
        if [ "$total" -gt 0 ]; then
            printf '  %-16s' "${agree[$p]}/$total ($((100 * agree[$p] / total))%)"
        else
            printf '  %-16s' "-"
        fi
    done
    echo
    unset agree
done
echo

status=0
if [ ${#crashes[@]} -gt 0 ]; then
    echo "crashes or timeouts (${#crashes[@]}):"
    printf '  %s\n' "${crashes[@]}"
    echo
    status=1
fi

if [ -z "$reader" ]; then
    dis=0
    for p in "${profiles[@]}"; do
        for ((i = 0; i < n; i++)); do
            want=$(expected "$p" "$i")
            [ "${got[$p:$i]}" = "$want" ] && continue
            dis=$((dis + 1))
            echo "DISAGREE ${files[i]} --profile $p: expected $want, gguflint ${got[$p:$i]}s"
            "$bin" --isolated --quiet --profile "$p" "$suite/${files[i]}" 2>&1 |
                grep ': error ' | sed 's/^[^:]*:/    /' | head -n 5 || true
        done
    done
    if [ $dis -gt 0 ]; then
        echo
        echo "$dis disagreements with the manifest"
        status=1
    else
        echo "gguflint agrees with the manifest on every file and profile"
    fi
else
    bad=()
    for ((i = 0; i < n; i++)); do
        v="${got[${profiles[0]}:$i]}"
        if [ "${cats[i]}" = y ] && [ "$v" = reject ]; then bad+=("rejects ${files[i]}"); fi
        if [ "${cats[i]}" = n ] && [ "$v" = accept ]; then bad+=("accepts ${files[i]}"); fi
    done
    if [ ${#bad[@]} -gt 0 ]; then
        echo "must-accept / must-reject failures (${#bad[@]}):"
        printf '  %s\n' "${bad[@]}"
        status=1
    else
        echo "accepts every y_ file and rejects every n_ file"
    fi
fi
exit $status
