#!/usr/bin/env bash
# abi-dump.sh [--update] - the DWARF half of the ABI check (docs/ABI.md):
# build the shared library with the debug information abi-dumper reads
# (-Og -g -gdwarf-4), dump the ABI of the functions gguflint.h declares,
# and compare it with the committed baseline tests/abi/gguflint.dump.xz with
# abi-compliance-checker (binary and source compatibility; the functions
# under GGUFLINT_UNSTABLE_API are skipped). --update rewrites the baseline
# instead. Exits 1 on an incompatibility (the report's path is printed),
# 77 when the tools are missing (Debian: abi-dumper abi-compliance-checker
# universal-ctags). ABI_BUILD_DIR: the build folder (default build-abi).
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in abi-dumper abi-compliance-checker ctags xz; do
    command -v "$tool" >/dev/null || {
        echo "abi-dump: $tool not found: skipped (apt-get install abi-dumper" \
            "abi-compliance-checker universal-ctags xz-utils)"
        exit 77
    }
done
build=${ABI_BUILD_DIR:-build-abi}
base=tests/abi/gguflint.dump.xz
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS="-Og -g -gdwarf-4" \
    -DGGUFLINT_SHARED=ON >"$build.cmake.log" 2>&1 || { cat "$build.cmake.log"; exit 1; }
rm -f "$build.cmake.log"
cmake --build "$build" -j2 --target gguflint_shared >/dev/null
lib=$(readlink -f "$build/libgguflint.so")
version=$(sed -n 's/^#define GGUFLINT_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' \
    src/gguflint.h | paste -sd.)
# abi-dumper takes the public headers as a folder: only gguflint.h in it
hdr=$build/abi-headers
rm -rf "$hdr" && mkdir -p "$hdr" && cp src/gguflint.h "$hdr/"
abi-dumper "$lib" -o "$build/now.dump" -lver "$version" -public-headers "$hdr" \
    >"$build/abi-dumper.log" 2>&1 || { cat "$build/abi-dumper.log"; exit 1; }
if [ "${1:-}" = --update ]; then
    xz -9 -c "$build/now.dump" >"$base"
    echo "abi-dump: wrote $base ($(wc -c <"$base") bytes)"
    exit 0
fi
[ -f "$base" ] || { echo "abi-dump: no $base: write it with bash ci/abi-dump.sh --update"; exit 1; }
xz -dc "$base" >"$build/base.dump"
python3 tests/check_abi.py unstable-symbols src/gguflint.h >"$build/unstable.txt"
report=$build/abi-report.html
if abi-compliance-checker -l gguflint -old "$build/base.dump" -new "$build/now.dump" \
    -skip-symbols "$build/unstable.txt" -report-path "$report" >"$build/acc.log" 2>&1; then
    grep -E "^(Binary|Source) compatibility|^Total" "$build/acc.log"
    echo "abi-dump: compatible with $base"
    exit 0
fi
cat "$build/acc.log"
echo "abi-dump: the library is not compatible with $base (details: $report)."
echo "If the change is one docs/ABI.md allows, update the baseline: bash ci/abi-dump.sh --update"
exit 1
