#!/usr/bin/env bash
# bench-remote.sh - the remote row of the benchmark (ci/bench.sh runs it; it
# also runs alone): the 2.2 GiB sparse model of gen_remote (4.15 MB of
# metadata) served over HTTP from 127.0.0.1 by tests/support/httpd.py,
# linted by URL and locally. Reports bytes fetched and requests (targets: at
# most the metadata size + 2 MiB, at most 3 requests) and the median wall
# time of 5 runs of each. Numbers, never a pass/fail on speed; it fails only
# when a command fails. The last line is machine-readable:
#   remote|FIGURE|COMMAND
# Environment: GGUFLINT (default build-release/gguflint), GEN_REMOTE (default
# build-release/tests/gen_remote), BENCH_DIR (where the temporary directory
# goes; the sparse file takes ~4 MB of disk).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
die() { echo "bench-remote: $*" >&2; exit 1; }

gl=${GGUFLINT:-$root/build-release/gguflint}
gen=${GEN_REMOTE:-$root/build-release/tests/gen_remote}
if [ ! -x "$gl" ] || [ ! -x "$gen" ]; then
    cmake --preset release >/dev/null
    cmake --build --preset release -j2 --target gguflint gen_remote >/dev/null
fi
if [ ! -x "$gl" ] || [ ! -x "$gen" ]; then die "no $gl or $gen"; fi
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3) || die "python3 is needed for the test server"

base=${BENCH_DIR:-${TMPDIR:-/tmp}}
work=$(mktemp -d "$base/gguflint-bench-remote.XXXXXX")
srv=
cleanup() {
    exec 7>&- 2>/dev/null || true
    if [ -n "$srv" ]; then wait "$srv" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

meta=$("$gen" "$work" sparse | sed -n 's/.*: \([0-9]*\) bytes of metadata.*/\1/p')
[ -n "$meta" ] || die "gen_remote did not report the metadata size"
file=$work/sparse.gguf
size=$(stat -c %s "$file")

mkfifo "$work/stdin"
"$py" tests/support/httpd.py "$work" "$work/ports" <"$work/stdin" &
srv=$!
exec 7>"$work/stdin" # the server runs until this closes
for _ in $(seq 100); do [ -s "$work/ports" ] && break; sleep 0.1; done
[ -s "$work/ports" ] || die "the test server did not start"
read -r port _ <"$work/ports"
url=http://127.0.0.1:$port/ok/sparse.gguf
export no_proxy='*' NO_PROXY='*'
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy

now() { echo "$EPOCHREALTIME"; }
timed() {
    local t0
    t0=$(now)
    "$@" >/dev/null || die "command failed: $*"
    awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.6f", b - a }'
}
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[(NR + 1) / 2] }'; }

json=$("$gl" --format json "$url") || die "gguflint $url failed"
fetched=$(grep -o '"bytes_fetched":[0-9]*' <<<"$json" | cut -d: -f2)
requests=$(grep -o '"requests":[0-9]*' <<<"$json" | cut -d: -f2)
if [ -z "$fetched" ] || [ -z "$requests" ]; then die "no bytes_fetched/requests in the JSON report"; fi
local_json=$("$gl" --format json "$file")
[ "$(grep -o '"findings":\[[^]]*\]' <<<"$json")" = \
  "$(grep -o '"findings":\[[^]]*\]' <<<"$local_json")" ] || die "remote and local findings differ"

timed "$gl" --quiet "$file" >/dev/null
tl=(); tr=()
for _ in 1 2 3 4 5; do
    tl+=("$(timed "$gl" --quiet "$file")")
    tr+=("$(timed "$gl" --quiet "$url")")
done
ml=$(median "${tl[@]}"); mr=$(median "${tr[@]}")
budget=$((meta + 2097152))
echo "file: $size bytes, metadata $meta bytes"
echo "remote: $fetched bytes fetched (target <= $budget: metadata + 2 MiB), $requests requests (target <= 3)"
echo "local:  ${tl[*]} s"
echo "remote: ${tr[*]} s"
printf 'median wall: local %.1f ms, remote (127.0.0.1) %.1f ms\n' \
    "$(awk -v t="$ml" 'BEGIN { print t * 1000 }')" "$(awk -v t="$mr" 'BEGIN { print t * 1000 }')"
printf 'remote|%s B, %s requests; %.1f vs %.1f ms local|gguflint URL (2.2 GiB sparse, %s B metadata)\n' \
    "$fetched" "$requests" "$(awk -v t="$mr" 'BEGIN { print t * 1000 }')" \
    "$(awk -v t="$ml" 'BEGIN { print t * 1000 }')" "$meta"
