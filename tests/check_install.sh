#!/usr/bin/env bash
# check_install.sh BUILD_DIR SOURCE_DIR - the installed library works for
# its users: `cmake --install --prefix` into a temporary tree, then
#   - gguflint.pc (through pkg-config) points into that tree, and a C program
#     that defines its own `emit` links against the static library with the
#     flags pkg-config gives and finds the hostile example's problems;
#   - find_package(gguflint) configures tests/consumers/: a C++ program on the
#     shared library and the `emit` program on the static and the shared
#     library, each run on the example files.
# Exits 77 (skipped) when pkg-config or a C++ compiler is missing.
set -euo pipefail
build=$1
src=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gguflint-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "check_install: $*" >&2; exit 1; }

command -v pkg-config >/dev/null || { echo "pkg-config not found: skipped"; exit 77; }
cxx=${CXX:-}
if [ -z "$cxx" ]; then
    for c in c++ g++ clang++; do command -v "$c" >/dev/null && { cxx=$c; break; }; done
fi
[ -n "$cxx" ] || { echo "no C++ compiler: skipped"; exit 77; }
cc=${CC:-cc}

prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
hostile=$src/corpus/examples/hostile.gguf
valid=$src/corpus/examples/valid.gguf

# pkg-config: the .pc file wherever the library was installed
pc=$(find "$prefix" -name gguflint.pc | head -1)
[ -n "$pc" ] || fail "no gguflint.pc under $prefix"
export PKG_CONFIG_PATH=$(dirname "$pc")
incdir=$(pkg-config --variable=includedir gguflint)
libdir=$(pkg-config --variable=libdir gguflint)
[ -f "$incdir/gguflint.h" ] || fail "pkg-config includedir $incdir has no gguflint.h"
[ -f "$libdir/libgguflint.a" ] || fail "pkg-config libdir $libdir has no libgguflint.a"
echo "ok: gguflint.pc: includedir $incdir, libdir $libdir"
# shellcheck disable=SC2046  # word splitting of the flags is intended
"$cc" -o "$tmp/pc_static" "$src/tests/consumers/static_emit.c" $(pkg-config --cflags gguflint) \
    "$libdir/libgguflint.a" $(pkg-config --static --libs-only-l gguflint | sed 's/-lgguflint//')
"$tmp/pc_static" "$hostile" 20 || fail "static consumer (pkg-config) on hostile.gguf"
"$tmp/pc_static" "$valid" 0 || fail "static consumer (pkg-config) on valid.gguf"
echo "ok: pkg-config static consumer that defines emit"

# CMake package
want=$(sed -n 's/^#define GGUFLINT_VERSION_MAJOR \([0-9]*\)$/\1/p' "$src/src/gguflint.h").$(
    sed -n 's/^#define GGUFLINT_VERSION_MINOR \([0-9]*\)$/\1/p' "$src/src/gguflint.h")
cmake -S "$src/tests/consumers" -B "$tmp/consumers" -DCMAKE_PREFIX_PATH="$prefix" \
    -DGGUFLINT_WANT_VERSION="$want" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/consumers" -j2 >/dev/null
for exe in consumer_cxx consumer_static consumer_shared_emit; do
    [ -x "$tmp/consumers/$exe" ] || continue
    "$tmp/consumers/$exe" "$hostile" 20 || fail "$exe on hostile.gguf"
    "$tmp/consumers/$exe" "$valid" 0 || fail "$exe on valid.gguf"
    echo "ok: find_package consumer $exe"
done
[ -x "$tmp/consumers/consumer_cxx" ] || fail "consumer_cxx was not built"
echo "check_install: all consumers passed"
