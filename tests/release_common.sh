# release_common.sh - sourced by check_release.sh and check_precommit.sh:
#   release_setup NAME MODULE... picks Debian's python3 (else python3) as
#       $python, skips (exit 77) when it lacks a module, makes the scratch
#       folder $tmp (removed on exit) and starts the clock $t0;
#   fail MESSAGE, ok MESSAGE;
#   expect_exit STATUS OUTFILE CMD... runs CMD with its output in OUTFILE and
#       fails, showing the output, unless CMD exits STATUS.
# shellcheck shell=bash
release_setup() {
    check=$1
    shift
    python=/usr/bin/python3
    [ -x $python ] || python=python3
    local m
    for m in "$@"; do
        $python -c "import $m" 2>/dev/null ||
            { echo "SKIP: $python has no module $m (Debian: python3-$m)"; exit 77; }
    done
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/gguflint-$check.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    # shellcheck disable=SC2034  # the clock the sourcing script reads
    t0=$SECONDS
}
fail() { echo "$check: FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }
expect_exit() {
    local want=$1 out=$2 st=0
    shift 2
    "$@" >"$out" 2>&1 || st=$?
    [ "$st" = "$want" ] || { cat "$out"; fail "$*: exit $st, $want expected"; }
}
