#!/usr/bin/env bash
# ci/cflite-check.sh - runs .clusterfuzzlite/build.sh the way OSS-Fuzz does,
# locally (CC=clang, LIB_FUZZING_ENGINE=-fsanitize=fuzzer, a temporary OUT),
# and checks every target, dictionary, options file and seed zip it ships,
# then runs each target briefly on its seeds, so the integration cannot rot.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export OUT=$TMP/out WORK=$TMP/work SRC=$TMP/src SRC_DIR=$ROOT
mkdir -p "$OUT" "$WORK" "$SRC"
export CC=clang CXX=clang++ LIB_FUZZING_ENGINE=-fsanitize=fuzzer
export CFLAGS="-O1 -g -fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=all"
command -v clang++ >/dev/null || export CXX=clang
bash .clusterfuzzlite/build.sh
fail=0
n=0
for src in fuzz/fuzz_*.c; do
    targets=("$(basename "$src" .c)" "$(basename "$src" .c)_sa")
    # fuzz_fetch (HTTP scripts) has no structure-aware variant, and is built
    # only with URL support; the CLI's readers (manifests, configs) have none
    # either
    if [ "${targets[0]}" = fuzz_fetch ]; then
        [ -e "$OUT/fuzz_fetch" ] || { echo "cflite: fuzz_fetch not built (no URL support)"; continue; }
        targets=(fuzz_fetch)
    fi
    case ${targets[0]} in fuzz_manifest | fuzz_config | fuzz_baseline | fuzz_diff) targets=("${targets[0]}") ;; esac
    for target in "${targets[@]}"; do
        n=$((n + 1))
        for f in "$target" "$target.dict" "$target.options" "${target}_seed_corpus.zip"; do
            [ -s "$OUT/$f" ] || { echo "cflite: missing $f"; fail=1; }
        done
        mkdir -p "$TMP/seeds-$target"
        python3 -c "import sys,zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])" \
            "$OUT/${target}_seed_corpus.zip" "$TMP/seeds-$target"
        "$OUT/$target" -runs=2000 -dict="$OUT/$target.dict" "$TMP/seeds-$target" \
            >"$TMP/$target.log" 2>&1 || { echo "cflite: $target failed"; tail -20 "$TMP/$target.log"; fail=1; }
    done
done
[ "$fail" = 0 ] && echo "cflite: $n targets built and run, outputs complete"
exit "$fail"
