#!/usr/bin/env bash
# ci/coverage.sh - clang source-based coverage of src/: builds the coverage
# preset, runs every test and replays the whole corpus (and the real files
# when ../shared/gguf-realfiles exists) through every harness, then prints an
# llvm-cov summary of src/ ending with one line
#   coverage: lines NN.N% branches NN.N%
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=$ROOT/build-coverage
PROF=$BUILD/profiles
LLVM_PROFDATA=${LLVM_PROFDATA:-$(command -v llvm-profdata || command -v llvm-profdata-14)}
LLVM_COV=${LLVM_COV:-$(command -v llvm-cov || command -v llvm-cov-14)}

cmake --preset coverage >/dev/null
cmake --build --preset coverage -j2 >/dev/null
rm -rf "$PROF"
mkdir -p "$PROF"
export LLVM_PROFILE_FILE="$PROF/%p-%m.profraw"

(cd "$BUILD" && ctest -j2 --output-on-failure >/dev/null) || {
    echo "coverage: tests failed" >&2
    exit 1
}
inputs=("$ROOT/corpus")
[ -d "$ROOT/../shared/gguf-realfiles" ] && inputs+=("$ROOT/../shared/gguf-realfiles")
for h in "$BUILD"/fuzz/fuzz_*; do
    [ -x "$h" ] && "$h" "${inputs[@]}" >/dev/null
done
# a fuzz campaign's corpus, when one was kept, adds what the fuzzers found
for d in "$ROOT"/ci/out/libfuzzer-*/corpus; do
    [ -d "$d" ] || continue
    h=$(basename "$(dirname "$d")" | sed 's/^libfuzzer-//; s/_sa$//')
    [ -x "$BUILD/fuzz/$h" ] && "$BUILD/fuzz/$h" "$d" >/dev/null
done

"$LLVM_PROFDATA" merge -sparse "$PROF"/*.profraw -o "$PROF/merged.profdata"
first=$BUILD/gguflint
objects=()
for exe in "$BUILD"/tests/test_* "$BUILD"/fuzz/fuzz_*; do
    [ -x "$exe" ] && [ -f "$exe" ] && objects+=(-object "$exe")
done
"$LLVM_COV" report "$first" "${objects[@]}" -instr-profile="$PROF/merged.profdata" "$ROOT/src" \
    >"$PROF/report.txt"
cat "$PROF/report.txt"
total=$(grep '^TOTAL' "$PROF/report.txt")
# columns: regions missed cover functions missed executed lines missed cover branches missed cover
lines=$(echo "$total" | awk '{print $10}')
branches=$(echo "$total" | awk '{print $13}')
echo "coverage: lines ${lines} branches ${branches}"
